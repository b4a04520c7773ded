//! What an index of texts keeps so that any later query can be scored
//! without reading the texts again: each text's length and its distinct
//! words with their counts ([`doc_terms`]), and a query's distinct terms in
//! the order [`QueryTerms`] numbers them ([`query_terms`]). A caller that
//! keeps both (a session's memo, pkg/src/messages/relevance.ts) builds the
//! same [`TextStats`] that [`QueryTerms::stats`] reads from the text, so the
//! scores of [`super::bm25_from_stats`] are the same bits.

#[cfg(doc)]
use super::TextStats;
use super::{for_each_word, QueryTerms, WordMap};

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
    let mut words = 0_usize;
    let mut at: WordMap<usize> = WordMap::default();
    let mut terms: Vec<(String, u32)> = Vec::new();
    for_each_word(text, |w| {
        words += 1;
        if let Some(&k) = at.get(w) {
            terms[k].1 = terms[k].1.saturating_add(1);
        } else {
            at.insert(w.to_owned(), terms.len());
            terms.push((w.to_owned(), 1));
        }
    });
    DocTerms {
        words: u32::try_from(words).unwrap_or(u32::MAX),
        terms,
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
}
