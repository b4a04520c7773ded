//! Fuzzes every slicer (the four seed slicers and the two exact ones) with
//! arbitrary items, budgets and options: no panic,
//! and when a slice succeeds its invariants hold (one decision per item,
//! selected exactly the included ones, the budget respected except the
//! count-constrained knapsack's documented phase-1 overrun).
#![no_main]

use arbitrary::Arbitrary;
use ctxpack::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError, Decision,
    ExactCountConstrainedSlice, ExactKnapsackSlice, GreedyPacker, GreedySlice, InclusionReason,
    Item, KnapsackSlice, ScarcityBehavior, Selection, Slicer,
};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct RawItem {
    tokens: i32,
    score: f64,
    kind: u8,
}

#[derive(Arbitrary, Debug)]
struct RawEntry {
    kind: u8,
    require: u8,
    cap: u8,
}

#[derive(Arbitrary, Debug)]
struct Case {
    slicer: u8,
    items: Vec<RawItem>,
    target: i32,
    extra_max: u16,
    bucket: i16,
    entries: Vec<RawEntry>,
    throw: bool,
    skips: u8,
}

const KINDS: [&str; 5] = ["tool", "Tool", "msg", "doc", ""];

fuzz_target!(|case: Case| {
    let items: Vec<Item<'_>> = case
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
    // Keep tables small so the fuzzer stays fast; the guard is part of what is fuzzed.
    let knapsack = match KnapsackSlice::new(i64::from(case.bucket)) {
        Ok(k) => k.with_max_table_bytes(1 << 20),
        Err(e) => {
            assert_eq!(e.code(), "INVALID_BUCKET_SIZE");
            assert!(case.bucket <= 0);
            return;
        }
    };
    let entries: Vec<CountQuotaEntry> = case
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
    let which = case.slicer % 6;
    let slicer: Box<dyn Slicer> = match which {
        0 => Box::new(GreedySlice),
        1 => Box::new(knapsack),
        2 => match CountConstrainedKnapsackSlice::new(entries, knapsack, scarcity) {
            Ok(s) => Box::new(s),
            Err(e) => {
                assert_eq!(e.code(), "INVALID_COUNT_ENTRY");
                return;
            }
        },
        3 => Box::new(GreedyPacker::new(u32::from(case.skips % 6))),
        // Small guards keep the fuzzer fast and exercise the fallbacks.
        4 => Box::new(
            ExactKnapsackSlice::new()
                .with_max_states(1 << 10)
                .with_max_work(1 << 14)
                .with_max_table_bytes(1 << 16),
        ),
        _ => match ExactCountConstrainedSlice::new(entries, scarcity) {
            Ok(s) => Box::new(s.with_max_cells(1 << 14).with_max_table_bytes(1 << 16)),
            Err(e) => {
                assert_eq!(e.code(), "INVALID_COUNT_ENTRY");
                return;
            }
        },
    };
    match slicer.slice(&items, &budget) {
        Ok(s) => check(&items, &budget, &s, which == 2),
        Err(e) => check_error(&items, &e),
    }
});

fn check(items: &[Item<'_>], budget: &Budget, s: &Selection, count_constrained: bool) {
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

fn check_error(items: &[Item<'_>], e: &CtxpackError) {
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
