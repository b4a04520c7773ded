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
///
/// ```
/// use ctxpack::relevance::tokenize;
/// assert_eq!(tokenize("Queries about the Ünïcode TOKENS!"), ["query", "about", "the", "ünïcode", "token"]);
/// ```
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
///
/// The same as [`TextStats`] of each text followed by
/// [`bm25_from_stats`]: the part that reads the texts and the part that
/// weighs them are apart, so that a caller who keeps the stats of texts it
/// has seen (a conversation, turn after turn) only reads the new ones.
///
/// ```
/// use ctxpack::relevance::{bm25_scores, Bm25};
/// let docs = ["the deploy token rotates hourly", "lunch on friday", "rotate the token"];
/// let s = bm25_scores(&docs, "how often does the token rotate", Bm25::default());
/// assert!(s[0] > 0.0 && s[2] > 0.0 && s[1] == 0.0);
/// ```
#[must_use]
pub fn bm25_scores<S: AsRef<str>>(docs: &[S], query: &str, params: Bm25) -> Vec<f64> {
    let query = QueryTerms::new(query);
    let stats: Vec<TextStats> = docs.iter().map(|d| query.stats(d.as_ref())).collect();
    bm25_from_stats(&stats, params)
}

/// A query's distinct terms, sorted: what [`TextStats`] counts.
///
/// ```
/// use ctxpack::relevance::QueryTerms;
/// let q = QueryTerms::new("dogs and the dog");
/// assert_eq!(q.len(), 3); // "and", "dog", "the"
/// assert_eq!(q.stats("a dog, two dogs").counts, [0, 2, 0]);
/// ```
#[derive(Clone, Debug)]
pub struct QueryTerms {
    terms: Vec<String>,
}

impl QueryTerms {
    /// The distinct terms of `query` ([`tokenize`]d), sorted.
    #[must_use]
    pub fn new(query: &str) -> Self {
        let mut terms = tokenize(query);
        terms.sort_unstable();
        terms.dedup();
        Self { terms }
    }

    /// The number of distinct terms.
    #[must_use]
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether the query has no term.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// What BM25 needs of `text`: its length in words and how often it holds
    /// each term.
    #[must_use]
    pub fn stats(&self, text: &str) -> TextStats {
        let mut counts = vec![0_u32; self.terms.len()];
        let words = if self.terms.is_empty() {
            0
        } else {
            let words = tokenize(text);
            for w in &words {
                if let Ok(t) = self.terms.binary_search(w) {
                    counts[t] = counts[t].saturating_add(1);
                }
            }
            words.len()
        };
        TextStats {
            words: u32::try_from(words).unwrap_or(u32::MAX),
            counts,
        }
    }
}

/// A text's BM25 statistics for one query ([`QueryTerms::stats`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextStats {
    /// The text's length in words.
    pub words: u32,
    /// Per query term (in [`QueryTerms`]' order), its count in the text.
    pub counts: Vec<u32>,
}

/// The BM25 scores of texts from their [`TextStats`] for one query (every
/// `counts` as long): the collection's size, average length and document
/// frequencies are theirs. Zeros when the query has no term.
///
/// ```
/// use ctxpack::relevance::{bm25_from_stats, bm25_scores, Bm25, QueryTerms};
/// let docs = ["rust and wasm", "wasm wasm", "nothing here"];
/// let q = QueryTerms::new("wasm rust");
/// let stats: Vec<_> = docs.iter().map(|d| q.stats(d)).collect();
/// assert_eq!(bm25_from_stats(&stats, Bm25::default()), bm25_scores(&docs, "wasm rust", Bm25::default()));
/// ```
#[must_use]
pub fn bm25_from_stats(stats: &[TextStats], params: Bm25) -> Vec<f64> {
    let mut scores = vec![0.0; stats.len()];
    let terms = stats.first().map_or(0, |s| s.counts.len());
    if terms == 0 {
        return scores;
    }
    let mut df = vec![0_u32; terms];
    for s in stats {
        for (t, &c) in s.counts.iter().enumerate().take(terms) {
            if c > 0 {
                df[t] += 1;
            }
        }
    }
    let n = to_f64(stats.len());
    let total: f64 = stats.iter().map(|s| f64::from(s.words)).sum();
    let avgdl = if total > 0.0 { total / n } else { 1.0 };
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| (1.0 + (n - f64::from(d) + 0.5) / (f64::from(d) + 0.5)).ln())
        .collect();
    for (score, s) in scores.iter_mut().zip(stats) {
        let norm = params.k1 * (1.0 - params.b + params.b * f64::from(s.words) / avgdl);
        *score = s
            .counts
            .iter()
            .take(terms)
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(t, &c)| {
                let tf = f64::from(c);
                idf[t] * tf * (params.k1 + 1.0) / (tf + norm)
            })
            .sum();
    }
    scores
}

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

    #[test]
    #[allow(clippy::cast_possible_truncation)] // small counts
    fn stats_read_in_parts_give_the_scores_of_the_whole_collection() {
        // A small deterministic generator (xorshift): texts and queries over a
        // vocabulary with plurals, case and Unicode, split anywhere.
        let mut x: u32 = 0x9E37_79B9;
        let mut next = |m: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % m
        };
        let words = [
            "dog", "Dogs", "city", "cities", "café", "CAFÉ", "rust", "wasm", "the", "a", "is",
            "status", "42", "x-ray",
        ];
        for round in 0..200 {
            let n = 1 + next(12) as usize;
            let text = |len: u32, next: &mut dyn FnMut(u32) -> u32| {
                (0..len)
                    .map(|_| words[next(words.len() as u32) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let docs: Vec<String> = (0..n).map(|_| text(next(9), &mut next)).collect();
            let query = text(next(5), &mut next);
            let params = Bm25 {
                k1: 0.5 + f64::from(next(20)) / 10.0,
                b: f64::from(next(11)) / 10.0,
            };
            let whole = bm25_scores(&docs, &query, params);
            let q = QueryTerms::new(&query);
            let split = next(n as u32 + 1) as usize;
            let mut stats: Vec<TextStats> = docs[..split].iter().map(|d| q.stats(d)).collect();
            stats.extend(docs[split..].iter().map(|d| q.stats(d)));
            let parts = bm25_from_stats(&stats, params);
            let bits = |v: &[f64]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&parts), bits(&whole), "round {round}");
        }
    }
}
