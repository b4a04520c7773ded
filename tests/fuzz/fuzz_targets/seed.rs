//! Fuzzes the four seed slicers (GreedySlice, KnapsackSlice,
//! CountConstrainedKnapsackSlice, GreedyPacker) with arbitrary items, budgets
//! and options: no panic, and every successful slice keeps its invariants
//! (one decision per item, selected exactly the included ones, the budget
//! respected except the count-constrained phase-1 overrun the spec allows).
#![no_main]

#[path = "common.rs"]
mod common;

use common::{check, check_error, decode, knapsack, Case};
use ctxpack_core::{CountConstrainedKnapsackSlice, GreedyPacker, GreedySlice, Slicer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: Case| {
    let (items, budget, entries, scarcity) = decode(&case);
    let Some(knapsack) = knapsack(&case) else { return };
    let which = case.slicer % 4;
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
        _ => Box::new(GreedyPacker::new(u32::from(case.skips % 6))),
    };
    match slicer.slice(&items, &budget) {
        Ok(s) => check(&items, &budget, &s, which == 2),
        Err(e) => check_error(&items, &e),
    }
});
