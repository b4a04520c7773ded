//! What the fuzz targets share: the arbitrary case, its decoding into
//! items, budget and slicer options, and the invariants every successful
//! slice must keep.
#![allow(dead_code)]

use arbitrary::Arbitrary;
use ctxpack_core::{
    Budget, CountQuotaEntry, CtxpackError, Decision, InclusionReason, Item, KnapsackSlice,
    ScarcityBehavior, Selection,
};

#[derive(Arbitrary, Debug)]
pub struct RawItem {
    pub tokens: i32,
    score: f64,
    kind: u8,
}

#[derive(Arbitrary, Debug)]
pub struct RawEntry {
    kind: u8,
    require: u8,
    cap: u8,
}

#[derive(Arbitrary, Debug)]
pub struct Case {
    pub slicer: u8,
    pub items: Vec<RawItem>,
    pub target: i32,
    pub extra_max: u16,
    pub bucket: i16,
    pub entries: Vec<RawEntry>,
    pub throw: bool,
    pub skips: u8,
}

pub const KINDS: [&str; 5] = ["tool", "Tool", "msg", "doc", ""];


/// The case's items (at most 256), budget, count entries and scarcity.
pub fn decode(case: &Case) -> (Vec<Item<'static>>, Budget, Vec<CountQuotaEntry>, ScarcityBehavior) {
    let items = case
        .items
        .iter()
        .take(256)
        .map(|r| Item {
            tokens: i64::from(r.tokens % 100_000),
            score: r.score,
            kind: KINDS[usize::from(r.kind) % KINDS.len()],
        })
        .collect();
    let target = i64::from(case.target % 1_000_000);
    let budget = Budget::with_max(target, target + i64::from(case.extra_max)).expect("max >= target");
    let entries = case
        .entries
        .iter()
        .take(6)
        .map(|e| {
            CountQuotaEntry::new(
                KINDS[usize::from(e.kind) % KINDS.len()],
                usize::from(e.require % 8),
                usize::from(e.cap % 8),
            )
        })
        .collect();
    let scarcity = if case.throw { ScarcityBehavior::Throw } else { ScarcityBehavior::Degrade };
    (items, budget, entries, scarcity)
}

/// The knapsack of the case (a small table limit keeps the fuzzer fast; the
/// guard is part of what is fuzzed), or `None` for an invalid bucket size.
pub fn knapsack(case: &Case) -> Option<KnapsackSlice> {
    match KnapsackSlice::new(i64::from(case.bucket)) {
        Ok(k) => Some(k.with_max_table_bytes(1 << 20)),
        Err(e) => {
            assert_eq!(e.code(), "INVALID_BUCKET_SIZE");
            assert!(case.bucket <= 0);
            None
        }
    }
}

pub fn check(items: &[Item<'_>], budget: &Budget, s: &Selection, count_constrained: bool) {
    assert_eq!(s.decisions.len(), items.len());
    let mut seen = vec![false; items.len()];
    for &i in &s.selected {
        assert!(!seen[i], "index {i} selected twice");
        seen[i] = true;
        assert!(s.decisions[i].is_included());
        assert!(items[i].tokens >= 0);
    }
    for (i, d) in s.decisions.iter().enumerate() {
        assert_eq!(d.is_included(), seen[i]);
    }
    let total: i64 = s.selected.iter().map(|&i| items[i].tokens).sum();
    assert_eq!(total, s.total_tokens);
    if budget.target_tokens() <= 0 {
        assert!(s.selected.is_empty());
    } else if count_constrained && s.over_budget {
        assert_eq!(s.overrun_tokens, total - budget.target_tokens());
        // Only required items can push past the target.
        let required: i64 = s
            .selected
            .iter()
            .filter(|&&i| s.decisions[i] == Decision::Included(InclusionReason::Required))
            .map(|&i| items[i].tokens)
            .sum();
        assert!(required > budget.target_tokens());
    } else {
        assert!(total <= budget.target_tokens(), "{total} > {}", budget.target_tokens());
        assert!(!s.over_budget);
    }
}

pub fn check_error(items: &[Item<'_>], e: &CtxpackError) {
    match e.code() {
        "INVALID_SCORE" => {
            let i = e.index().expect("an index");
            assert!(!items[i].score.is_finite());
            assert!(items[..i].iter().all(|it| it.score.is_finite()));
        }
        "TABLE_TOO_LARGE" | "COUNT_REQUIREMENT_SHORTFALL" | "COUNT_REQUIREMENT_OVER_BUDGET" => {}
        other => panic!("unexpected error {other}: {e}"),
    }
}
