//! What an index of texts keeps so that any later query can be scored
//! without reading the texts again: each text's length and its distinct
//! words with their counts ([`doc_terms`]), and a query's distinct terms in
//! the order [`QueryTerms`] numbers them ([`query_terms`]). A caller that
//! keeps both (a session's memo, pkg/src/messages/relevance.ts) builds the
//! same [`TextStats`] that [`QueryTerms::stats`] reads from the text, so the
//! scores of [`super::bm25_from_stats`] are the same bits.

#[cfg(doc)]
use super::TextStats;
use std::hash::Hasher;

use super::{for_each_word, QueryTerms, WordHasher};

/// A text's length in words and its distinct words with their counts, in
/// the order of their first appearance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocTerms {
    /// The text's length in words (at most `u32::MAX`).
    pub words: u32,
    /// Each distinct word once, with how often the text holds it (above 0).
    pub terms: Vec<(String, u32)>,
}

/// Every distinct word of `text` as [`super::tokenize`] gives it, with its
/// count, and the text's length in words. Linear in the text.
///
/// ```
/// use ctxpack_core::relevance::doc_terms;
/// let d = doc_terms("Dogs chase cats; a dog naps");
/// assert_eq!(d.words, 6);
/// assert_eq!(d.terms[0], ("dog".to_owned(), 2));
/// ```
#[must_use]
pub fn doc_terms(text: &str) -> DocTerms {
    let mut counter = TermCounter::default();
    let words = counter.read(text);
    DocTerms {
        words,
        terms: counter.terms().map(|(w, c)| (w.to_owned(), c)).collect(),
    }
}

/// Counts the distinct words of texts read one after another
/// ([`read`](Self::read), then [`terms`](Self::terms)), reusing one table
/// and one buffer for all of them: no allocation per word, where a map of
/// owned words made two (a session's first turn reads every text of its
/// history through it). [`doc_terms`] is one text through it.
///
/// ```
/// use ctxpack_core::relevance::TermCounter;
/// let mut c = TermCounter::default();
/// assert_eq!(c.read("Dogs chase cats; a dog naps"), 6);
/// assert_eq!(c.terms().next(), Some(("dog", 2)));
/// assert_eq!(c.read("cats"), 1);
/// assert_eq!(c.terms().collect::<Vec<_>>(), [("cat", 1)]);
/// ```
#[derive(Debug, Default)]
pub struct TermCounter {
    /// Open addressing, a power of two long: `(text, term + 1)`, a slot
    /// being empty unless its text is the one being read (so that a new text
    /// clears nothing).
    slots: Vec<(u32, u32)>,
    /// The number of the text being read (from 1).
    text: u32,
    /// Per term of the text being read: its hash, where its word lies in
    /// `bytes`, and its count.
    hashes: Vec<u64>,
    spans: Vec<(usize, usize)>,
    counts: Vec<u32>,
    bytes: String,
}

impl TermCounter {
    /// Reads `text`: afterwards [`terms`](Self::terms) gives its distinct
    /// words. Returns its length in words (at most `u32::MAX`).
    pub fn read(&mut self, text: &str) -> u32 {
        self.text = self.text.wrapping_add(1);
        if self.text == 0 {
            // After 2³² texts the numbers come round: forget every slot.
            self.slots.fill((0, 0));
            self.text = 1;
        }
        self.hashes.clear();
        self.spans.clear();
        self.counts.clear();
        self.bytes.clear();
        let mut words = 0_u32;
        for_each_word(text, |w| {
            words = words.saturating_add(1);
            self.count(w);
        });
        words
    }

    /// The distinct words of the text last read, with their counts, in the
    /// order of their first appearance.
    pub fn terms(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.spans
            .iter()
            .zip(&self.counts)
            .map(|(&(from, to), &c)| (&self.bytes[from..to], c))
    }

    fn count(&mut self, w: &str) {
        if 2 * (self.counts.len() + 1) > self.slots.len() {
            self.grow();
        }
        let mut h = WordHasher::default();
        h.write(w.as_bytes());
        let hash = h.finish();
        let mask = self.slots.len() - 1;
        // The low bits are the multiply's weakest: fold the high ones in.
        #[allow(clippy::cast_possible_truncation)] // masked to the table
        let mut at = ((hash ^ (hash >> 32)) as usize) & mask;
        loop {
            let (text, term) = self.slots[at];
            if text != self.text {
                break;
            }
            let k = term as usize - 1;
            let (from, to) = self.spans[k];
            if self.hashes[k] == hash && &self.bytes[from..to] == w {
                self.counts[k] = self.counts[k].saturating_add(1);
                return;
            }
            at = (at + 1) & mask;
        }
        let from = self.bytes.len();
        self.bytes.push_str(w);
        self.spans.push((from, self.bytes.len()));
        self.hashes.push(hash);
        self.counts.push(1);
        // At most half the slots are taken, and a text of 2³¹ distinct words
        // would be more than 4 GiB.
        self.slots[at] = (
            self.text,
            u32::try_from(self.counts.len()).unwrap_or(u32::MAX),
        );
    }

    /// Twice the slots (at least 64), the text's terms placed again.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(64);
        self.slots = vec![(0, 0); size];
        let mask = size - 1;
        for (k, &hash) in self.hashes.iter().enumerate() {
            #[allow(clippy::cast_possible_truncation)] // masked to the table
            let mut at = ((hash ^ (hash >> 32)) as usize) & mask;
            while self.slots[at].0 == self.text {
                at = (at + 1) & mask;
            }
            self.slots[at] = (self.text, u32::try_from(k + 1).unwrap_or(u32::MAX));
        }
    }
}

/// The distinct terms of `query`, term number `i` at index `i` (the
/// numbering of [`QueryTerms`]: sorted).
///
/// ```
/// use ctxpack_core::relevance::query_terms;
/// assert_eq!(query_terms("the dogs and the dog"), ["and", "dog", "the"]);
/// ```
#[must_use]
pub fn query_terms(query: &str) -> Vec<String> {
    let q = QueryTerms::new(query);
    let mut terms: Vec<(&String, u32)> = q.rank.iter().map(|(t, &r)| (t, r)).collect();
    terms.sort_unstable_by_key(|&(_, r)| r);
    terms.into_iter().map(|(t, _)| t.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relevance::{
        bm25_from_packed, bm25_from_stats, bm25_scores, pack_stats, Bm25, TextStats,
    };

    /// The stats [`QueryTerms::stats`] reads, built from the index alone.
    fn stats_from_index(doc: &DocTerms, query: &[String]) -> TextStats {
        let mut matches: Vec<(u32, u32)> = doc
            .terms
            .iter()
            .filter_map(|(t, c)| {
                query
                    .iter()
                    .position(|q| q == t)
                    .map(|r| (u32::try_from(r).unwrap(), *c))
            })
            .collect();
        matches.sort_unstable();
        TextStats {
            words: if query.is_empty() { 0 } else { doc.words },
            matches,
        }
    }

    #[test]
    fn index_stats_equal_the_query_stats_and_the_scores_bit_for_bit() {
        let docs = [
            "Rust and WASM, then rust again",
            "Queries about cities and a city",
            "",
            "日本 Café ÉCOLE écoles",
            "nothing shared here at all",
        ];
        for query in ["rust city", "écoles café", "", "?!", "and and the"] {
            let terms = query_terms(query);
            let q = QueryTerms::new(query);
            assert_eq!(terms.len(), q.len());
            let stats: Vec<TextStats> = docs
                .iter()
                .map(|d| stats_from_index(&doc_terms(d), &terms))
                .collect();
            for (d, s) in docs.iter().zip(&stats) {
                assert_eq!(*s, q.stats(d), "{query:?} on {d:?}");
            }
            let scores = bm25_from_stats(&stats, terms.len(), Bm25::default()).unwrap();
            let direct = bm25_scores(&docs, query, Bm25::default());
            let packed =
                bm25_from_packed(&pack_stats(&stats), terms.len(), Bm25::default()).unwrap();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&scores), bits(&direct));
            assert_eq!(bits(&packed), bits(&direct));
        }
    }

    /// What [`TermCounter`] must give, written the plain way: every word of
    /// [`tokenize`](crate::relevance::tokenize), counted in a map, in the
    /// order of first appearance.
    #[cfg(not(target_arch = "wasm32"))]
    fn reference(text: &str) -> (u32, Vec<(String, u32)>) {
        let words = crate::relevance::tokenize(text);
        let mut order: Vec<(String, u32)> = Vec::new();
        let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for w in &words {
            if let Some(&k) = at.get(w) {
                order[k].1 += 1;
            } else {
                at.insert(w.clone(), order.len());
                order.push((w.clone(), 1));
            }
        }
        (u32::try_from(words.len()).unwrap(), order)
    }

    // proptest is not built for wasm32 (Cargo.toml).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// One counter through texts one after another (its table grown by a
        /// large one, then reused by small ones) gives each text's words as a
        /// fresh count does.
        #[test]
        fn term_counter_reused_across_texts_equals_a_fresh_count(
            texts in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        "dog", "dogs", "Dog", "cat", "ÉCOLE", "écoles", "日本", "a", "x1",
                        "zz", "Σίσυφος", "ab", "ba", "abc", "\u{1F600}", "q", "-", " ", "\n", "..",
                    ]),
                    0..300,
                ),
                1..12,
            ),
            distinct in 0_usize..400,
        ) {
            let mut counter = TermCounter::default();
            // Many distinct words first, so that the table grows past what the others need.
            let big = (0..distinct).fold(String::new(), |mut s, i| {
                use std::fmt::Write;
                let _ = write!(s, "w{i} ");
                s
            });
            let (words, terms) = reference(&big);
            proptest::prop_assert_eq!(counter.read(&big), words);
            proptest::prop_assert_eq!(counter.terms().map(|(w, c)| (w.to_owned(), c)).collect::<Vec<_>>(), terms);
            for parts in texts {
                let text = parts.concat();
                let (words, terms) = reference(&text);
                proptest::prop_assert_eq!(counter.read(&text), words);
                let got: Vec<(String, u32)> = counter.terms().map(|(w, c)| (w.to_owned(), c)).collect();
                proptest::prop_assert_eq!(&got, &terms);
                proptest::prop_assert_eq!(doc_terms(&text), DocTerms { words, terms });
            }
        }
    }
}
