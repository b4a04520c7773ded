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
//! arithmetic is `f64` in a fixed order (the Σ runs over the terms in
//! sorted order, skipping those `d` lacks), so every platform gives the
//! same bits (wasm's `ln` comes from the same Rust `libm` code everywhere).
//!
//! **Cost**: linear in the length of the texts and the query, whatever the
//! number of distinct query terms. Each word of a text is one hash lookup
//! among the query's terms ([`QueryTerms`]), a short ASCII word (most) by
//! its bytes alone, without making the word (`short.rs`); a text's
//! [`TextStats`] hold only the terms it has, so the Σ above only visits
//! those.
//!
//! ```
//! use ctxpack_core::relevance::{bm25_scores, tokenize, Bm25};
//!
//! assert_eq!(tokenize("Pasta's BERRIES, café"), ["pasta", "s", "berry", "café"]);
//! let docs = ["we adopted a dog named Rex", "nice weather today", "Rex the dog loves parks"];
//! let scores = bm25_scores(&docs, "Which dog did we adopt?", Bm25::default());
//! assert!(scores[0] > scores[1] && scores[2] > scores[1]);
//! ```

pub mod fusion;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::{CtxpackError, ErrorReason};

/// The hash of the word maps: `FxHash`'s multiply-rotate over 8 bytes at a
/// time. Scoring looks up every word of every text, and the standard
/// `SipHash` was a third of that lookup's time on short words. A map's
/// hasher decides only where a key is stored, never what is found or in
/// which order results come out (terms are numbered by sorting), so the
/// scores do not depend on it.
#[derive(Clone, Copy, Default)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut v = [0_u8; 8];
            v.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(v)).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut v = [0_u8; 8];
            v[..rest.len()].copy_from_slice(rest);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(v) ^ (rest.len() as u64)).wrapping_mul(K);
        }
        self.0 = h;
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by words, with [`WordHasher`].
pub(crate) type WordMap<V> = HashMap<String, V, BuildHasherDefault<WordHasher>>;

mod index;
pub use index::{doc_terms, query_terms, DocTerms, TermCounter};
mod packed;
pub use packed::{pack_stats, unpack_stats};
mod short;
use short::{short_key, ShortTerms};
mod words;
pub use words::tokenize;
use words::{for_each_span, for_each_word, plural, read8, word_of};

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

/// The BM25 score of every text in `docs` for `query` (see the module
/// documentation), in the order of `docs`. Empty collections and queries
/// give zeros; nothing panics.
///
/// The same as [`QueryTerms::stats`] of each text followed by
/// [`bm25_from_stats`]: the part that reads the texts and the part that
/// weighs them are apart, so that a caller who keeps the stats of texts it
/// has seen (a conversation, turn after turn) only reads the new ones.
///
/// The cost is linear in the length of the texts and of the query, whatever
/// the number of distinct query terms: each word of a text is one hash
/// lookup among the query's terms, and only the terms a text holds are
/// kept and summed.
///
/// ```
/// use ctxpack_core::relevance::{bm25_scores, Bm25};
/// let docs = ["the deploy token rotates hourly", "lunch on friday", "rotate the token"];
/// let s = bm25_scores(&docs, "how often does the token rotate", Bm25::default());
/// assert!(s[0] > 0.0 && s[2] > 0.0 && s[1] == 0.0);
/// ```
#[must_use]
pub fn bm25_scores<S: AsRef<str>>(docs: &[S], query: &str, params: Bm25) -> Vec<f64> {
    let query = QueryTerms::new(query);
    let stats: Vec<TextStats> = docs.iter().map(|d| query.stats(d.as_ref())).collect();
    // Stats made by `query` itself: every index below its length, ascending.
    weigh(&|| stats_of(&stats), query.len(), params)
}

/// A query's distinct terms, each numbered by its rank in sorted order:
/// what [`TextStats`] counts.
///
/// ```
/// use ctxpack_core::relevance::QueryTerms;
/// let q = QueryTerms::new("dogs and the dog");
/// assert_eq!(q.len(), 3); // "and" 0, "dog" 1, "the" 2
/// assert_eq!(q.stats("a dog, two dogs").matches, [(1, 2)]);
/// ```
#[derive(Clone, Debug)]
pub struct QueryTerms {
    /// Term → its rank among the sorted distinct terms. The ranks fix the
    /// order in which a text's matches are summed (ascending, as the terms
    /// sort), so that the scores do not depend on the map's order.
    rank: WordMap<u32>,
    /// The query, and its stats as a text: the query is most often one of
    /// the texts too (a chat's latest user message), and a large one (a
    /// pasted log) is then read once, not twice.
    query: Box<str>,
    own: TextStats,
    /// The terms of at most 16 ASCII bytes again, for the words of a text
    /// that have a key (most): found without making the word.
    short: ShortTerms,
}

impl QueryTerms {
    /// The distinct terms of `query` ([`tokenize`]d), numbered in sorted
    /// order.
    ///
    /// No bound on their number: memory and time are linear in the query's
    /// length, which the caller already holds.
    ///
    /// ```
    /// use ctxpack_core::relevance::QueryTerms;
    /// assert!(QueryTerms::new(" ?! ").is_empty());
    /// ```
    #[must_use]
    pub fn new(query: &str) -> Self {
        // Distinct words with their counts first (one string per distinct word,
        // not per word), then sorted.
        let mut words = 0_usize;
        let mut counts: WordMap<u32> = WordMap::default();
        for_each_word(query, |w| {
            words += 1;
            if let Some(c) = counts.get_mut(w) {
                *c = c.saturating_add(1);
            } else {
                counts.insert(w.to_owned(), 1);
            }
        });
        let mut terms: Vec<(String, u32)> = counts.into_iter().collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut rank =
            WordMap::with_capacity_and_hasher(terms.len(), BuildHasherDefault::default());
        let mut matches = Vec::with_capacity(terms.len());
        for (i, (term, count)) in terms.into_iter().enumerate() {
            // A query of 2³² distinct terms would need more than 8 GiB of text.
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            rank.insert(term, i);
            matches.push((i, count));
        }
        // As `stats` reads a text; nothing when there is no term.
        let own = if rank.is_empty() {
            TextStats::default()
        } else {
            TextStats {
                words: u32::try_from(words).unwrap_or(u32::MAX),
                matches,
            }
        };
        let short = ShortTerms::new(rank.iter().map(|(t, &i)| (t.as_str(), i)));
        Self {
            rank,
            query: query.into(),
            own,
            short,
        }
    }

    /// The number of distinct terms.
    ///
    /// ```
    /// use ctxpack_core::relevance::QueryTerms;
    /// assert_eq!(QueryTerms::new("Cities and a city").len(), 3);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.rank.len()
    }

    /// Whether the query has no term.
    ///
    /// ```
    /// use ctxpack_core::relevance::QueryTerms;
    /// assert!(QueryTerms::new("").is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rank.is_empty()
    }

    /// What BM25 needs of `text`: its length in words and how often it holds
    /// each query term it holds at all. Linear in the text: one lookup per
    /// word, then a sort of the matching words' term numbers. A query with
    /// no term reads nothing (length 0: its scores are zeros anyway).
    ///
    /// ```
    /// use ctxpack_core::relevance::QueryTerms;
    /// let s = QueryTerms::new("rust wasm").stats("Rust, then WASM, then rust");
    /// assert_eq!((s.words, s.matches), (5, vec![(0, 2), (1, 1)]));
    /// ```
    #[must_use]
    pub fn stats(&self, text: &str) -> TextStats {
        if self.rank.is_empty() {
            return TextStats::default();
        }
        if text == &*self.query {
            return self.own.clone();
        }
        let mut words = 0_usize;
        let mut hits: Vec<u32> = Vec::new();
        let mut word = String::new();
        for_each_span(text, |start, end, ascii| {
            words += 1;
            // A short ASCII word by its key, any other as the word itself
            // (`rank` has every term, the short ones too).
            let key = if ascii {
                short_key(text.as_bytes(), start, end)
            } else {
                None
            };
            let hit = if let Some(key) = key {
                self.short.get(key)
            } else {
                word_of(&text[start..end], ascii, &mut word);
                self.rank.get(word.as_str()).copied()
            };
            if let Some(t) = hit {
                hits.push(t);
            }
        });
        hits.sort_unstable();
        let matches = hits
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0], u32::try_from(run.len()).unwrap_or(u32::MAX)))
            .collect();
        TextStats {
            words: u32::try_from(words).unwrap_or(u32::MAX),
            matches,
        }
    }
}

/// A text's BM25 statistics for one query ([`QueryTerms::stats`]): only the
/// terms it holds, so that its size is bounded by the text, not the query.
///
/// ```
/// use ctxpack_core::relevance::{QueryTerms, TextStats};
/// let s = QueryTerms::new("dog").stats("no match here");
/// assert_eq!(s, TextStats { words: 3, matches: vec![] });
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextStats {
    /// The text's length in words (at most `u32::MAX`).
    pub words: u32,
    /// `(term, count)` for each query term the text holds: the term's number
    /// in [`QueryTerms`], strictly ascending; the count above 0 (at most
    /// `u32::MAX`).
    pub matches: Vec<(u32, u32)>,
}

/// The BM25 scores of texts from their [`TextStats`] for one query of
/// `terms` distinct terms: the collection's size, average length and
/// document frequencies are theirs. Zeros when the query has no term.
/// Linear in `terms` and the stats' matches.
///
/// # Errors
/// [`CtxpackError::InvalidInput`] when a text's matches are not strictly
/// ascending term numbers below `terms` with counts above 0 (stats that
/// [`QueryTerms::stats`] of a `terms`-term query never makes).
///
/// ```
/// use ctxpack_core::relevance::{bm25_from_stats, bm25_scores, Bm25, QueryTerms};
/// let docs = ["rust and wasm", "wasm wasm", "nothing here"];
/// let q = QueryTerms::new("wasm rust");
/// let stats: Vec<_> = docs.iter().map(|d| q.stats(d)).collect();
/// let scores = bm25_from_stats(&stats, q.len(), Bm25::default()).unwrap();
/// assert_eq!(scores, bm25_scores(&docs, "wasm rust", Bm25::default()));
/// assert!(bm25_from_stats(&stats, 1, Bm25::default()).is_err()); // "wasm" is term 1 of 2
/// ```
pub fn bm25_from_stats(
    stats: &[TextStats],
    terms: usize,
    params: Bm25,
) -> Result<Vec<f64>, CtxpackError> {
    for (i, s) in stats.iter().enumerate() {
        check_matches(i, s.matches.iter().copied(), terms)?;
    }
    Ok(weigh(&|| stats_of(stats), terms, params))
}

/// [`bm25_from_stats`] of stats packed as [`pack_stats`] writes them, read
/// in place: the same scores, bit for bit, without a vector per text (a
/// session's turn weighs every text of its history).
///
/// # Errors
/// As [`unpack_stats`] (first), then as [`bm25_from_stats`].
///
/// ```
/// use ctxpack_core::relevance::{bm25_from_packed, bm25_from_stats, pack_stats, Bm25, QueryTerms};
/// let q = QueryTerms::new("wasm rust");
/// let stats: Vec<_> = ["rust and wasm", "wasm wasm", "none"].iter().map(|d| q.stats(d)).collect();
/// let packed = pack_stats(&stats);
/// assert_eq!(bm25_from_packed(&packed, 2, Bm25::default())?, bm25_from_stats(&stats, 2, Bm25::default())?);
/// assert!(bm25_from_packed(&packed[..5], 2, Bm25::default()).is_err());
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
pub fn bm25_from_packed(
    packed: &[u32],
    terms: usize,
    params: Bm25,
) -> Result<Vec<f64>, CtxpackError> {
    packed::check_shape(packed)?;
    for (i, (_, matches)) in packed::texts(packed).enumerate() {
        check_matches(i, matches, terms)?;
    }
    Ok(weigh(&|| packed::texts(packed), terms, params))
}

/// Text `i`'s matches: strictly ascending term numbers below `terms`, counts above 0.
fn check_matches(
    i: usize,
    matches: impl Iterator<Item = (u32, u32)>,
    terms: usize,
) -> Result<(), CtxpackError> {
    let mut next = 0_usize; // the lowest term number the next match may have
    for (k, (t, c)) in matches.enumerate() {
        let t = t as usize;
        if t < next || t >= terms || c == 0 {
            return Err(CtxpackError::InvalidInput {
                reason: ErrorReason::StatsMatch {
                    text: i,
                    entry: k,
                    terms,
                    term: t,
                    count: u64::from(c),
                },
            });
        }
        next = t + 1;
    }
    Ok(())
}

/// [`TextStats`] as [`weigh`] reads texts.
fn stats_of(
    stats: &[TextStats],
) -> impl Iterator<Item = (u32, impl Iterator<Item = (u32, u32)> + '_)> + '_ {
    stats.iter().map(|s| (s.words, s.matches.iter().copied()))
}

/// [`bm25_from_stats`] of texts known to be valid for `terms` terms, each
/// read as its length in words and its matches; `texts` gives them from the
/// start each time it is called (twice: the collection's figures, then the
/// scores).
fn weigh<T, M>(texts: &dyn Fn() -> T, terms: usize, params: Bm25) -> Vec<f64>
where
    T: Iterator<Item = (u32, M)>,
    M: Iterator<Item = (u32, u32)>,
{
    let mut df = vec![0_u32; terms];
    let (mut count, mut total) = (0_usize, 0.0_f64);
    for (words, matches) in texts() {
        count += 1;
        total += f64::from(words);
        for (t, _) in matches {
            df[t as usize] += 1;
        }
    }
    let mut scores = vec![0.0; count];
    if terms == 0 {
        return scores;
    }
    let n = to_f64(count);
    let avgdl = if total > 0.0 { total / n } else { 1.0 };
    // Only the terms some text holds are ever read.
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| {
            if d == 0 {
                0.0
            } else {
                (1.0 + (n - f64::from(d) + 0.5) / (f64::from(d) + 0.5)).ln()
            }
        })
        .collect();
    for (score, (words, matches)) in scores.iter_mut().zip(texts()) {
        let norm = params.k1 * (1.0 - params.b + params.b * f64::from(words) / avgdl);
        // Summed in ascending term order (the order of the terms' sort), as the
        // formula's Σ over the query's terms, skipping the zeros: the same bits
        // for the same texts whatever the query's size.
        *score = matches
            .map(|(t, c)| {
                let tf = f64::from(c);
                idf[t as usize] * tf * (params.k1 + 1.0) / (tf + norm)
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
            let parts = bm25_from_stats(&stats, q.len(), params).expect("stats of q");
            let bits = |v: &[f64]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&parts), bits(&whole), "round {round}");
        }
    }
}
