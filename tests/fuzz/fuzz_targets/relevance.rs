//! Fuzzes the BM25 core the messages layer scores with: arbitrary texts and
//! queries (huge ones included) never panic, stats read text by text and
//! packed and unpacked give the direct scores bit for bit, and arbitrary
//! packed stats are either read or refused with `INVALID_INPUT`, never a
//! panic or an out-of-range index.
#![no_main]

use arbitrary::Arbitrary;
use ctxpack_core::relevance::{
    bm25_from_stats, bm25_scores, pack_stats, unpack_stats, Bm25, QueryTerms,
};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Case {
    texts: Vec<String>,
    query: String,
    /// Arbitrary packed stats, read as the wasm boundary reads them.
    raw: Vec<u32>,
    terms: u8,
    k1: u8,
    b: u8,
}

fuzz_target!(|case: Case| {
    let params = Bm25 {
        k1: f64::from(case.k1) / 50.0,
        b: f64::from(case.b) / 255.0,
    };
    let direct = bm25_scores(&case.texts, &case.query, params);
    assert_eq!(direct.len(), case.texts.len());
    assert!(direct.iter().all(|s| s.is_finite() && *s >= 0.0));

    let query = QueryTerms::new(&case.query);
    let stats: Vec<_> = case.texts.iter().map(|t| query.stats(t)).collect();
    let unpacked = unpack_stats(&pack_stats(&stats)).expect("packed stats read back");
    assert_eq!(unpacked, stats);
    let from = bm25_from_stats(&unpacked, query.len(), params).expect("own stats are valid");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&from), bits(&direct));

    if let Ok(read) = unpack_stats(&case.raw) {
        match bm25_from_stats(&read, usize::from(case.terms), params) {
            Ok(scores) => assert_eq!(scores.len(), read.len()),
            Err(e) => assert_eq!(e.code(), "INVALID_INPUT"),
        }
    }
});
