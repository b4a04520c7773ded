//! Lexical relevance: how well each text of a collection matches a query,
//! by Okapi BM25.
//!
//! **Tokenisation** ([`tokenize`]): the text is lowercased with Unicode's
//! full lowercase mapping and split into words at every character that is
//! neither alphabetic nor numeric (`char::is_alphanumeric`, Unicode-aware:
//! "Café" and "日本" are words). A light English stemmer then folds plurals:
//! a word of more than three characters ending in `ies` ends in `y` instead,
//! and one ending in `s` (not `ss`, `us` or `is`) loses it. Nothing else.
//!
//! **Scoring** ([`bm25_scores`]): for a query `q` and a text `d` of a
//! collection of `N` texts with average length `avgdl` (in words),
//!
//! ```text
//! score(d, q) = Σ_{t ∈ distinct(q)} idf(t) · tf(t, d) · (k1 + 1)
//!                                 / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl))
//! idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//! ```
//!
//! with `tf` the count of `t` in `d`, `df` the number of texts holding `t`,
//! and by default `k1 = 1.2`, `b = 0.75`. The idf is never negative. All
//! arithmetic is `f64` in a fixed order, so every platform gives the same
//! bits (wasm's `ln` comes from the same Rust `libm` code everywhere).
//!
//! ```
//! use ctxpack::relevance::{bm25_scores, tokenize, Bm25};
//!
//! assert_eq!(tokenize("Pasta's BERRIES, café"), ["pasta", "s", "berry", "café"]);
//! let docs = ["we adopted a dog named Rex", "nice weather today", "Rex the dog loves parks"];
//! let scores = bm25_scores(&docs, "Which dog did we adopt?", Bm25::default());
//! assert!(scores[0] > scores[1] && scores[2] > scores[1]);
//! ```

#[cfg(target_arch = "wasm32")]
mod wasm;

use std::collections::HashMap;

/// BM25's two parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bm25 {
    /// Term-frequency saturation (default 1.2).
    pub k1: f64,
    /// Length normalisation, 0 (none) to 1 (full); default 0.75.
    pub b: f64,
}

impl Default for Bm25 {
    fn default() -> Self {
        Self { k1: 1.2, b: 0.75 }
    }
}

/// Folds a plural to its singular (see the module documentation).
fn stem(word: String) -> String {
    let chars = word.chars().count();
    if chars <= 3 {
        return word;
    }
    if let Some(base) = word.strip_suffix("ies") {
        return format!("{base}y");
    }
    if word.ends_with('s')
        && !(word.ends_with("ss") || word.ends_with("us") || word.ends_with("is"))
    {
        let mut w = word;
        w.pop();
        return w;
    }
    word
}

/// The words of `text`: Unicode lowercase, split at non-alphanumeric
/// characters, plurals folded (see the module documentation).
#[must_use]
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| stem(w.to_lowercase()))
        .collect()
}

/// The BM25 score of every text in `docs` for `query` (see the module
/// documentation), in the order of `docs`. Empty collections and queries
/// give zeros; nothing panics.
#[must_use]
pub fn bm25_scores<S: AsRef<str>>(docs: &[S], query: &str, params: Bm25) -> Vec<f64> {
    let mut terms: Vec<String> = tokenize(query);
    terms.sort_unstable();
    terms.dedup();
    let mut scores = vec![0.0; docs.len()];
    if terms.is_empty() || docs.is_empty() {
        return scores;
    }
    let index: HashMap<&str, usize> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    // Per text: its length and the counts of the query terms in it.
    let mut lengths = Vec::with_capacity(docs.len());
    let mut counts: Vec<Vec<(usize, u32)>> = Vec::with_capacity(docs.len());
    let mut df = vec![0_u32; terms.len()];
    for doc in docs {
        let words = tokenize(doc.as_ref());
        let mut tf = vec![0_u32; terms.len()];
        for w in &words {
            if let Some(&t) = index.get(w.as_str()) {
                tf[t] += 1;
            }
        }
        let present: Vec<(usize, u32)> = tf
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(t, &c)| (t, c))
            .collect();
        for &(t, _) in &present {
            df[t] += 1;
        }
        lengths.push(words.len());
        counts.push(present);
    }
    let n = to_f64(docs.len());
    let total: f64 = lengths.iter().map(|&l| to_f64(l)).sum();
    let avgdl = if total > 0.0 { total / n } else { 1.0 };
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| (1.0 + (n - f64::from(d) + 0.5) / (f64::from(d) + 0.5)).ln())
        .collect();
    for (i, present) in counts.iter().enumerate() {
        let norm = params.k1 * (1.0 - params.b + params.b * to_f64(lengths[i]) / avgdl);
        scores[i] = present
            .iter()
            .map(|&(t, c)| {
                let tf = f64::from(c);
                idf[t] * tf * (params.k1 + 1.0) / (tf + norm)
            })
            .sum();
    }
    scores
}

/// A count as `f64` (exact below 2^53, far beyond any collection here).
#[allow(clippy::cast_precision_loss)]
fn to_f64(n: usize) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_is_unicode_aware_and_folds_plurals() {
        assert_eq!(
            tokenize("ÉCOLE Straße 42 x-ray"),
            ["école", "straße", "42", "x", "ray"]
        );
        assert_eq!(
            tokenize("classes cities bus status dogs is"),
            ["classe", "city", "bus", "status", "dog", "is"]
        );
        assert!(tokenize("  ,;!  ").is_empty());
    }

    #[test]
    fn rare_terms_weigh_more_than_common_ones() {
        let docs = ["the cat", "the dog", "the bird", "the zebra"];
        let s = bm25_scores(&docs, "the zebra", Bm25::default());
        assert!(s[3] > s[0]);
        assert!((s[0] - s[1]).abs() < 1e-12);
    }

    #[test]
    fn longer_texts_are_normalised() {
        let docs = [
            "rust wasm",
            "rust and many other words that dilute the match a lot",
        ];
        let s = bm25_scores(&docs, "rust", Bm25::default());
        assert!(s[0] > s[1]);
        let flat = bm25_scores(&docs, "rust", Bm25 { k1: 1.2, b: 0.0 });
        assert!((flat[0] - flat[1]).abs() < 1e-12);
    }

    #[test]
    fn empty_inputs_give_zeros() {
        assert_eq!(
            bm25_scores::<&str>(&[], "q", Bm25::default()),
            Vec::<f64>::new()
        );
        assert_eq!(bm25_scores(&["a", ""], "", Bm25::default()), [0.0, 0.0]);
        assert_eq!(bm25_scores(&["", ""], "word", Bm25::default()), [0.0, 0.0]);
    }

    #[test]
    fn repeated_query_terms_count_once() {
        let docs = ["apple pie", "banana"];
        assert_eq!(
            bm25_scores(&docs, "apple apple apple", Bm25::default()),
            bm25_scores(&docs, "apple", Bm25::default())
        );
    }
}
