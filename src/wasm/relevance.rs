//! `bm25Scores`, and the same in two parts, `bm25Stats` and
//! `bm25FromStats`, for a caller that keeps the stats of the texts it has
//! seen ([`crate::relevance`]). Stats cross as one `Uint32Array`: per text
//! its length in words, then its count of each of the query's `terms`.

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::relevance::{bm25_from_stats, bm25_scores, Bm25, QueryTerms, TextStats};
use crate::CtxpackError;

/// `k1` and `b`, each of the defaults where not finite and non-negative
/// (`b` at most 1).
fn params(k1: f64, b: f64) -> Bm25 {
    let d = Bm25::default();
    let ok = |x: f64| x.is_finite() && x >= 0.0;
    Bm25 {
        k1: if ok(k1) { k1 } else { d.k1 },
        b: if ok(b) && b <= 1.0 { b } else { d.b },
    }
}

/// BM25 scores of `docs` for `query` (see the module documentation).
/// Parameters that are not finite and non-negative take the defaults.
#[wasm_bindgen(js_name = bm25Scores)]
#[must_use]
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec
pub fn bm25_scores_wasm(docs: Vec<String>, query: &str, k1: f64, b: f64) -> Vec<f64> {
    bm25_scores(&docs, query, params(k1, b))
}

/// The number of distinct terms of `query`: the width of its stats rows,
/// less one.
#[wasm_bindgen(js_name = bm25Terms)]
#[must_use]
pub fn bm25_terms(query: &str) -> u32 {
    u32::try_from(QueryTerms::new(query).len()).unwrap_or(u32::MAX)
}

/// The stats of `docs` for `query`: per text, its length in words then its
/// count of each query term (`bm25Terms(query) + 1` numbers a text).
#[wasm_bindgen(js_name = bm25Stats)]
#[must_use]
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec
pub fn bm25_stats(docs: Vec<String>, query: &str) -> Vec<u32> {
    let query = QueryTerms::new(query);
    let mut out = Vec::with_capacity(docs.len() * (query.len() + 1));
    for d in &docs {
        let s = query.stats(d);
        out.push(s.words);
        out.extend_from_slice(&s.counts);
    }
    out
}

/// BM25 scores from stats rows of `terms + 1` numbers (as `bm25Stats`
/// writes them, from one call or several for the same query).
///
/// # Errors
/// `INVALID_INPUT` when `stats` is not whole rows.
#[wasm_bindgen(js_name = bm25FromStats)]
pub fn bm25_from_stats_wasm(
    stats: &[u32],
    terms: u32,
    k1: f64,
    b: f64,
) -> Result<Vec<f64>, JsValue> {
    let width = terms as usize + 1;
    if stats.len() % width != 0 {
        return Err(to_js_error(&CtxpackError::InvalidInput {
            reason: format!(
                "stats must be whole rows of terms + 1 = {width} numbers, got {} numbers",
                stats.len()
            ),
        }));
    }
    let rows: Vec<TextStats> = stats
        .chunks_exact(width)
        .map(|row| TextStats {
            words: row[0],
            counts: row[1..].to_vec(),
        })
        .collect();
    Ok(bm25_from_stats(&rows, params(k1, b)))
}
