//! `bm25Scores`, and the same in two parts, `bm25Stats` and
//! `bm25FromStats`, for a caller that keeps the stats of the texts it has
//! seen ([`crate::relevance`]). Stats cross as one `Uint32Array` in
//! [`pack_stats`]' form: per text its length in words, its number of
//! matches `m`, then `m` pairs (term, count), only for the query terms it
//! holds.

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::relevance::fusion::{cosine_relevance, fuse, Fusion};
use crate::relevance::{
    bm25_from_stats, bm25_scores, pack_stats, unpack_stats, Bm25, QueryTerms, TextStats,
};

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

/// The number of distinct terms of `query`, which `bm25FromStats` takes.
#[wasm_bindgen(js_name = bm25Terms)]
#[must_use]
pub fn bm25_terms(query: &str) -> u32 {
    u32::try_from(QueryTerms::new(query).len()).unwrap_or(u32::MAX)
}

/// The number of distinct terms of `query` (what `bm25FromStats` takes),
/// then the stats of `docs` for it, packed (see the module documentation):
/// `2 + 2m` numbers a text, `m` the number of query terms it holds. The
/// count leads so that a caller reading a new query's stats does not read
/// the query twice (`bm25Terms`).
#[wasm_bindgen(js_name = bm25Stats)]
#[must_use]
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec
pub fn bm25_stats(docs: Vec<String>, query: &str) -> Vec<u32> {
    let query = QueryTerms::new(query);
    let stats: Vec<TextStats> = docs.iter().map(|d| query.stats(d)).collect();
    let mut out = vec![u32::try_from(query.len()).unwrap_or(u32::MAX)];
    out.extend(pack_stats(&stats));
    out
}

/// BM25 scores from packed stats (as `bm25Stats` writes them after its
/// leading count, from one call or several for the same query of `terms`
/// distinct terms).
///
/// # Errors
/// `INVALID_INPUT` when `stats` ends inside a text, or a text's matches are
/// not strictly ascending terms below `terms` with counts above 0.
#[wasm_bindgen(js_name = bm25FromStats)]
pub fn bm25_from_stats_wasm(
    stats: &[u32],
    terms: u32,
    k1: f64,
    b: f64,
) -> Result<Vec<f64>, JsValue> {
    let stats = unpack_stats(stats).map_err(|e| to_js_error(&e))?;
    bm25_from_stats(&stats, terms as usize, params(k1, b)).map_err(|e| to_js_error(&e))
}

/// The caller's relevance of each text from vectors: `query` is the
/// query's vector, `docs` the texts' vectors one after another (flattened,
/// each of `query.len()` numbers). See [`cosine_relevance`].
///
/// # Errors
/// `INVALID_INPUT` when the lengths do not make whole vectors or a number
/// is not finite.
#[wasm_bindgen(js_name = cosineRelevance)]
pub fn cosine_relevance_wasm(query: &[f32], docs: &[f32]) -> Result<Vec<f64>, JsValue> {
    cosine_relevance(query, docs).map_err(|e| to_js_error(&e))
}

/// BM25 scores fused with the caller's (see [`fuse`]): `competing[i]` is 1
/// for a text that takes part; `rrf_k` above 0 fuses by reciprocal rank
/// with that constant, 0 by the weighted sum of max-normalised scores.
///
/// # Errors
/// `INVALID_INPUT` as [`fuse`].
#[wasm_bindgen(js_name = fuseRelevance)]
pub fn fuse_relevance_wasm(
    lexical: &[f64],
    caller: &[f64],
    competing: &[u8],
    weight: f64,
    rrf_k: f64,
) -> Result<Vec<f64>, JsValue> {
    let competing: Vec<bool> = competing.iter().map(|&c| c == 1).collect();
    let fusion = if rrf_k == 0.0 {
        Fusion::Weighted { weight }
    } else {
        Fusion::Rrf { weight, k: rrf_k }
    };
    fuse(lexical, caller, &competing, fusion).map_err(|e| to_js_error(&e))
}
