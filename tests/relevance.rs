//! BM25 (`ctxpack_core::relevance`) against the dense implementation it
//! replaced, written out plainly here: a row of counts per text with one
//! entry per query term, and a sum over every term. The sparse one must
//! give the same bits (signs of zero included) on random texts and
//! queries, in one call and from stats read in parts; a query of tens of
//! thousands of distinct terms over many texts must cost what the texts
//! and the query do; bad stats are `INVALID_INPUT`, never a panic.
#![cfg(not(target_arch = "wasm32"))] // native dev-dependencies (proptest)

use ctxpack_core::relevance::{
    bm25_from_packed, bm25_from_stats, bm25_scores, pack_stats, tokenize, unpack_stats, Bm25,
    QueryTerms, TextStats,
};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// The reference: the dense implementation, as it stood.
// ---------------------------------------------------------------------------

fn ref_stem(word: String) -> String {
    if word.chars().count() <= 3 {
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

fn ref_tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| ref_stem(w.to_lowercase()))
        .collect()
}

/// Per text: its length in words, and its count of every query term (sorted terms).
fn ref_rows(docs: &[String], query: &str) -> (usize, Vec<(u32, Vec<u32>)>) {
    let mut terms = ref_tokenize(query);
    terms.sort_unstable();
    terms.dedup();
    let rows = docs
        .iter()
        .map(|d| {
            let mut counts = vec![0_u32; terms.len()];
            if terms.is_empty() {
                return (0, counts);
            }
            let words = ref_tokenize(d);
            for w in &words {
                if let Ok(t) = terms.binary_search(w) {
                    counts[t] += 1;
                }
            }
            (u32::try_from(words.len()).unwrap(), counts)
        })
        .collect();
    (terms.len(), rows)
}

#[allow(clippy::cast_precision_loss)]
fn ref_scores(docs: &[String], query: &str, params: Bm25) -> Vec<f64> {
    let (terms, rows) = ref_rows(docs, query);
    let mut scores = vec![0.0; rows.len()];
    if terms == 0 {
        return scores;
    }
    let mut df = vec![0_u32; terms];
    for (_, counts) in &rows {
        for (t, &c) in counts.iter().enumerate() {
            if c > 0 {
                df[t] += 1;
            }
        }
    }
    let n = rows.len() as f64;
    let total: f64 = rows.iter().map(|(w, _)| f64::from(*w)).sum();
    let avgdl = if total > 0.0 { total / n } else { 1.0 };
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| (1.0 + (n - f64::from(d) + 0.5) / (f64::from(d) + 0.5)).ln())
        .collect();
    for (score, (words, counts)) in scores.iter_mut().zip(&rows) {
        let norm = params.k1 * (1.0 - params.b + params.b * f64::from(*words) / avgdl);
        *score = counts
            .iter()
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

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// Words with plurals, case, Unicode (a final sigma, a lowercase that grows
/// from one character to two), punctuation, numbers and long words.
const VOCAB: &[&str] = &[
    "dog",
    "Dogs",
    "DOGS",
    "city",
    "cities",
    "CITIES",
    "café",
    "CAFÉ",
    "rust",
    "wasm",
    "the",
    "a",
    "is",
    "bus",
    "status",
    "classes",
    "42",
    "x-ray",
    "ΟΔΟΣ",
    "οδος",
    "Σ",
    "İstanbul",
    "Straße",
    "日本",
    "tokens",
    "token",
    "query",
    "queries",
    "ies",
    "sss",
    "a.b",
    "don't",
    "—",
    "  ",
    // Around the 16 bytes of a short word's key (src/relevance/short.rs): looked up
    // by key or as a string, the same word is the same term either way.
    "Abcdefghijklmnop",
    "abcdefghijklmnops",
    "ABCDEFGHIJKLMNOPS",
    "abcdefghijklmnoies",
    "abcdefghijklmnoy",
    "abcdefghijklmnopq",
    "abcdefghijklmnopqrs",
    // The Kelvin sign: a word beyond ASCII whose lowercase is ASCII ("key").
    "\u{212A}ey",
    "Keys",
];

fn prop_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..14).prop_map(|w| w.join(" "))
}

fn prop_params() -> impl Strategy<Value = Bm25> {
    (0_u32..30, 0_u32..=10).prop_map(|(k, b)| Bm25 {
        k1: f64::from(k) / 10.0,
        b: f64::from(b) / 10.0,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn tokenize_equals_the_reference(text in prop_text(), noise in "\\PC{0,40}") {
        prop_assert_eq!(tokenize(&text), ref_tokenize(&text));
        prop_assert_eq!(tokenize(&noise), ref_tokenize(&noise));
    }

    #[test]
    fn scores_equal_the_dense_reference_bit_for_bit(
        docs in prop::collection::vec(prop_text(), 0..12),
        query in prop_text(),
        params in prop_params(),
        query_among_docs in any::<bool>(),
    ) {
        // The query is often one of the texts (a chat's latest user message).
        let mut docs = docs;
        if query_among_docs {
            docs.push(query.clone());
        }
        let got = bm25_scores(&docs, &query, params);
        prop_assert_eq!(bits(&got), bits(&ref_scores(&docs, &query, params)));
    }

    #[test]
    fn stats_in_parts_packed_give_the_direct_scores_bit_for_bit(
        docs in prop::collection::vec(prop_text(), 0..12),
        query in prop_text(),
        params in prop_params(),
        split in 0_usize..13,
    ) {
        // What a session's memo does: the stats of two calls, packed as they cross
        // the wasm boundary, concatenated, read back and weighed.
        let q = QueryTerms::new(&query);
        let split = split.min(docs.len());
        let mut packed = pack_stats(&docs[..split].iter().map(|d| q.stats(d)).collect::<Vec<_>>());
        packed.extend(pack_stats(&docs[split..].iter().map(|d| q.stats(d)).collect::<Vec<_>>()));
        let stats = unpack_stats(&packed).unwrap();
        prop_assert_eq!(stats.len(), docs.len());
        let parts = bm25_from_stats(&stats, q.len(), params).unwrap();
        prop_assert_eq!(bits(&parts), bits(&bm25_scores(&docs, &query, params)));
        // Or weighed where they lie, as bm25FromStats does.
        prop_assert_eq!(bits(&bm25_from_packed(&packed, q.len(), params).unwrap()), bits(&parts));
    }
}

// ---------------------------------------------------------------------------
// Named cases
// ---------------------------------------------------------------------------

/// A deterministic generator (xorshift32).
struct Xorshift(u32);

impl Xorshift {
    fn next(&mut self, m: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0 % m
    }
}

/// Word `i` of a vocabulary of made-up words, none a plural (no final `s`).
fn word(i: u32) -> String {
    format!("w{i}x")
}

#[test]
fn a_huge_query_over_many_texts_completes_sparse_and_matches_the_reference_on_a_slice() {
    // 40,000 distinct query terms; 5,000 texts of 30 words each from a vocabulary
    // of 60,000 (two thirds of it in the query).
    let mut rng = Xorshift(0x2545_F491);
    let query: String = (0..40_000).map(|i| word(i) + " ").collect();
    let docs: Vec<String> = (0..5_000)
        .map(|_| {
            (0..30)
                .map(|_| word(rng.next(60_000)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let q = QueryTerms::new(&query);
    assert_eq!(q.len(), 40_000);
    let stats: Vec<TextStats> = docs.iter().map(|d| q.stats(d)).collect();
    // What is kept is bounded by the texts, not by texts × terms.
    let kept: usize = stats.iter().map(|s| s.matches.len()).sum();
    assert!(kept <= 5_000 * 30, "{kept} matches kept");
    assert!(
        kept > 5_000 * 10,
        "two thirds of the words are query terms: {kept}"
    );
    let scores = bm25_scores(&docs, &query, Bm25::default());
    assert_eq!(
        bits(&scores),
        bits(&bm25_from_stats(&stats, q.len(), Bm25::default()).unwrap())
    );
    assert!(scores.iter().all(|s| s.is_finite() && *s > 0.0));
    // The reference is texts × terms: a slice of 60 texts as its own collection.
    let slice = &docs[..60];
    assert_eq!(
        bits(&bm25_scores(slice, &query, Bm25::default())),
        bits(&ref_scores(slice, &query, Bm25::default()))
    );
}

#[test]
fn an_empty_query_gives_positive_zeros() {
    let docs = ["a dog".to_owned(), String::new(), "cities".to_owned()];
    for query in ["", "  ?! — "] {
        let scores = bm25_scores(&docs, query, Bm25::default());
        assert_eq!(bits(&scores), [0_u64; 3], "query {query:?}");
        assert_eq!(
            bits(&scores),
            bits(&ref_scores(&docs, query, Bm25::default()))
        );
        assert!(QueryTerms::new(query).is_empty());
        assert_eq!(QueryTerms::new(query).stats("a dog"), TextStats::default());
    }
}

#[test]
fn a_query_with_no_match_gives_zeros_as_the_reference_does() {
    let docs = ["a dog".to_owned(), String::new(), "cities".to_owned()];
    let scores = bm25_scores(&docs, "zebra quagga", Bm25::default());
    assert!(scores.iter().all(|&s| s == 0.0));
    // The same zeros, to the sign (an empty sum): the same bits as the reference.
    assert_eq!(
        bits(&scores),
        bits(&ref_scores(&docs, "zebra quagga", Bm25::default()))
    );
    let q = QueryTerms::new("zebra quagga");
    assert!(docs.iter().all(|d| q.stats(d).matches.is_empty()));
}

#[test]
fn empty_texts_give_zeros_and_leave_the_others_as_the_reference_scores_them() {
    let none: [String; 0] = [];
    assert!(bm25_scores(&none, "dog", Bm25::default()).is_empty());
    assert!(bm25_from_stats(&[], 3, Bm25::default()).unwrap().is_empty());
    let docs = [String::new(), "dogs and cities".to_owned(), String::new()];
    let scores = bm25_scores(&docs, "dog city", Bm25::default());
    assert!(scores[0] == 0.0 && scores[2] == 0.0 && scores[1] > 0.0);
    assert_eq!(
        bits(&scores),
        bits(&ref_scores(&docs, "dog city", Bm25::default()))
    );
    let only_empty = [String::new(), String::new()];
    assert_eq!(
        bits(&bm25_scores(&only_empty, "dog", Bm25::default())),
        bits(&ref_scores(&only_empty, "dog", Bm25::default()))
    );
}

#[test]
fn bad_stats_are_invalid_input_never_a_panic() {
    let stats = |matches: Vec<(u32, u32)>| vec![TextStats { words: 5, matches }];
    for (bad, what) in [
        (stats(vec![(2, 1)]), "term 2 of 2"),
        (stats(vec![(1, 1), (0, 1)]), "descending"),
        (stats(vec![(1, 1), (1, 2)]), "twice"),
        (stats(vec![(0, 0)]), "count 0"),
        (stats(vec![(u32::MAX, 1)]), "term u32::MAX"),
    ] {
        let err = bm25_from_stats(&bad, 2, Bm25::default()).unwrap_err();
        assert_eq!(err.code(), "INVALID_INPUT", "{what}");
    }
    let err = bm25_from_stats(&stats(vec![(2, 1)]), 2, Bm25::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stats[0] match 0: term numbers must be strictly ascending and below terms = 2, counts above 0; got term 2, count 1"
    );
    // Packed stats that end inside a text: its length alone, a count of
    // matches beyond the end, one too large to double.
    for packed in [&[4][..], &[4, 1, 0], &[4, 0, 4, 1, 0, 1, 7], &[1, u32::MAX]] {
        let err = unpack_stats(packed).unwrap_err();
        assert_eq!(err.code(), "INVALID_INPUT", "{packed:?}");
        // Read in place, the same error.
        let read = bm25_from_packed(packed, 2, Bm25::default()).unwrap_err();
        assert_eq!(read.to_string(), err.to_string(), "{packed:?}");
    }
    // Bad matches in packed stats: the same error as unpacked.
    for (bad, what) in [
        (stats(vec![(2, 1)]), "term 2 of 2"),
        (stats(vec![(1, 1), (0, 1)]), "descending"),
        (stats(vec![(0, 0)]), "count 0"),
    ] {
        let unpacked = bm25_from_stats(&bad, 2, Bm25::default()).unwrap_err();
        let read = bm25_from_packed(&pack_stats(&bad), 2, Bm25::default()).unwrap_err();
        assert_eq!(read.to_string(), unpacked.to_string(), "{what}");
    }
    assert_eq!(
        unpack_stats(&[4, 0, 4, 1, 0]).unwrap_err().to_string(),
        "stats end inside text 1: each text is its length, its number of matches m, then m (term, count) pairs; got 5 numbers"
    );
    assert!(unpack_stats(&[]).unwrap().is_empty());
}

#[test]
fn the_query_read_as_a_text_has_the_stats_of_any_text_like_it() {
    // The query's own stats come from reading it once as the query; a copy of
    // it, and the same words in another spelling, are read as texts.
    let query = "Tokens rotate; the token, TOKENS. Rotate hourly!";
    let q = QueryTerms::new(query);
    let spelled = "tokens Rotate the TOKEN tokens rotate HOURLY";
    assert_eq!(q.stats(query), q.stats(&String::from(query)));
    assert_eq!(q.stats(query), q.stats(spelled));
    assert_eq!(
        q.stats(query),
        TextStats {
            words: 7,
            matches: vec![(0, 1), (1, 2), (2, 1), (3, 3)]
        }
    );
}

#[test]
fn stats_of_an_empty_text_and_of_repeated_terms() {
    let q = QueryTerms::new("token rotate");
    assert_eq!(
        q.stats(""),
        TextStats {
            words: 0,
            matches: vec![]
        }
    );
    assert_eq!(
        q.stats("Tokens rotate; the token, TOKENS."),
        TextStats {
            words: 5,
            matches: vec![(0, 1), (1, 3)]
        }
    );
}
