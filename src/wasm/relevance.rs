//! `bm25Scores`, and for a caller that indexes each text once (a session's
//! memo) what the index keeps (`bm25DocTerms`, `bm25QueryTerms`), the
//! stats of texts not indexed yet (`bm25Stats`), and the scores from stats
//! (`bm25FromStats`; [`crate::relevance`]).
//! Stats cross as one `Uint32Array` in [`pack_stats`]' form: per text its
//! length in words, its number of matches `m`, then `m` pairs (term,
//! count), only for the query terms it holds.

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::relevance::fusion::{cosine_relevance, fuse, Fusion};
use crate::relevance::{
    bm25_from_packed, bm25_scores, pack_stats, query_terms, Bm25, QueryTerms, TermCounter,
    TextStats, WordMap,
};
use crate::{CtxpackError, ErrorReason};

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

/// The texts packed in `bytes`: text `i` is `bytes[ends[i - 1]..ends[i]]`
/// (from 0 for the first), UTF-8 as JavaScript's `TextEncoder` writes it.
/// Texts cross as one byte array, copied into wasm memory at once: a string
/// each was read into memory one character at a time by the glue, most of
/// the crossing's time on long histories.
///
/// # Errors
/// `INVALID_INPUT` when `ends` go back or past `bytes`, or a text is not
/// UTF-8.
pub fn packed_texts<'a>(bytes: &'a [u8], ends: &[u32]) -> Result<Vec<&'a str>, JsValue> {
    let mut texts = Vec::with_capacity(ends.len());
    let mut from = 0_usize;
    for (i, &end) in ends.iter().enumerate() {
        let end = end as usize;
        let text = bytes
            .get(from..end)
            .and_then(|b| std::str::from_utf8(b).ok())
            .ok_or_else(|| {
                to_js_error(&CtxpackError::InvalidInput {
                    reason: ErrorReason::TextEnd {
                        text: i,
                        end,
                        from,
                        len: bytes.len(),
                    },
                })
            })?;
        texts.push(text);
        from = end;
    }
    Ok(texts)
}

/// BM25 scores of the texts packed in `bytes` and `ends` ([`packed_texts`])
/// for `query` (see the module documentation). Parameters that are not
/// finite and non-negative take the defaults.
///
/// # Errors
/// `INVALID_INPUT` when the texts are not packed as [`packed_texts`] reads them.
#[wasm_bindgen(js_name = bm25Scores)]
pub fn bm25_scores_wasm(
    bytes: &[u8],
    ends: &[u32],
    query: &str,
    k1: f64,
    b: f64,
) -> Result<Vec<f64>, JsValue> {
    Ok(bm25_scores(
        &packed_texts(bytes, ends)?,
        query,
        params(k1, b),
    ))
}

/// BM25 scores from packed stats ([`pack_stats`]' form, as
/// [`QueryTerms::stats`] reads them; built by a caller's index from
/// `bm25DocTerms` and `bm25QueryTerms`) for a query of `terms` distinct
/// terms.
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
    bm25_from_packed(stats, terms as usize, params(k1, b)).map_err(|e| to_js_error(&e))
}

/// The stats of the texts packed in `bytes` and `ends` ([`packed_texts`])
/// for `query`, packed (see the module documentation; terms numbered as
/// `bm25QueryTerms` lists them): each text read once, for this query only.
/// For a caller that has indexed nothing yet (a session's first call),
/// which `bm25FromStats` then weighs as `bm25Scores` would.
///
/// # Errors
/// `INVALID_INPUT` when the texts are not packed as [`packed_texts`] reads them.
#[wasm_bindgen(js_name = bm25Stats)]
pub fn bm25_stats(bytes: &[u8], ends: &[u32], query: &str) -> Result<Vec<u32>, JsValue> {
    let query = QueryTerms::new(query);
    let stats: Vec<TextStats> = packed_texts(bytes, ends)?
        .iter()
        .map(|d| query.stats(d))
        .collect();
    Ok(pack_stats(&stats))
}

/// What an index keeps of the texts packed in `bytes` and `ends`
/// ([`packed_texts`]; [`crate::relevance::doc_terms`], through one
/// [`TermCounter`] for all of them), for a caller that reads each text once
/// and scores it for any later query. One array: `L`, then `L` numbers (per
/// text its length in words, its number `m` of distinct words, then `m`
/// pairs: the word's number and its count), then the byte length `B` of the
/// words, then the call's distinct words as UTF-8, word number `k` the
/// `k`-th, each followed by a NUL, four bytes to a number (little endian,
/// the last one padded with zeros). A word shared by many texts crosses
/// once, so the caller decodes and looks up each once per call, not once
/// per text. Words never hold a NUL: it is not alphanumeric.
///
/// # Errors
/// `INVALID_INPUT` when the texts are not packed as [`packed_texts`] reads them.
#[wasm_bindgen(js_name = bm25DocTerms)]
pub fn bm25_doc_terms(bytes: &[u8], ends: &[u32]) -> Result<Vec<u32>, JsValue> {
    let docs = packed_texts(bytes, ends)?;
    let mut counts: Vec<u32> = Vec::new();
    let mut words: Vec<u8> = Vec::new();
    let mut numbers: WordMap<u32> = WordMap::default();
    let mut counter = TermCounter::default();
    for d in docs {
        counts.push(counter.read(d));
        let at = counts.len();
        counts.push(0);
        for (word, count) in counter.terms() {
            let number = if let Some(&n) = numbers.get(word) {
                n
            } else {
                let n = u32::try_from(numbers.len()).unwrap_or(u32::MAX);
                numbers.insert(word.to_owned(), n);
                words.extend_from_slice(word.as_bytes());
                words.push(0);
                n
            };
            counts.push(number);
            counts.push(count);
        }
        counts[at] = u32::try_from((counts.len() - at - 1) / 2).unwrap_or(u32::MAX);
    }
    let mut out = Vec::with_capacity(2 + counts.len() + words.len().div_ceil(4));
    out.push(u32::try_from(counts.len()).unwrap_or(u32::MAX));
    out.extend_from_slice(&counts);
    out.push(u32::try_from(words.len()).unwrap_or(u32::MAX));
    out.extend(words.chunks(4).map(|c| {
        let mut b = [0_u8; 4];
        b[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(b)
    }));
    Ok(out)
}

/// The distinct terms of `query` in the order `bm25Stats` numbers them,
/// each followed by a NUL.
#[wasm_bindgen(js_name = bm25QueryTerms)]
#[must_use]
pub fn bm25_query_terms(query: &str) -> String {
    let mut out = String::new();
    for t in query_terms(query) {
        out.push_str(&t);
        out.push('\0');
    }
    out
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
