//! The wasm-bindgen entry of the relevance module (wasm32 only).

use wasm_bindgen::prelude::*;

use super::{bm25_scores, Bm25};

/// BM25 scores of `docs` for `query` (see the module documentation).
/// Parameters that are not finite and non-negative take the defaults.
#[wasm_bindgen(js_name = bm25Scores)]
#[must_use]
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec
pub fn bm25_scores_wasm(docs: Vec<String>, query: &str, k1: f64, b: f64) -> Vec<f64> {
    let d = Bm25::default();
    let ok = |x: f64| x.is_finite() && x >= 0.0;
    let params = Bm25 {
        k1: if ok(k1) { k1 } else { d.k1 },
        b: if ok(b) && b <= 1.0 { b } else { d.b },
    };
    bm25_scores(&docs, query, params)
}
