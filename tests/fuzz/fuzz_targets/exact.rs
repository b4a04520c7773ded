//! Fuzzes the exact slicers (ExactKnapsackSlice, ExactCountConstrainedSlice)
//! with arbitrary items, budgets and count entries, under small guards so that
//! their fallbacks are exercised too: no panic, and every successful slice
//! keeps its invariants (the exact count slice never exceeds the budget).
#![no_main]

#[path = "common.rs"]
mod common;

use common::{check, check_error, decode, Case};
use ctxpack::{ExactCountConstrainedSlice, ExactKnapsackSlice, Slicer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: Case| {
    let (items, budget, entries, scarcity) = decode(&case);
    let slicer: Box<dyn Slicer> = if case.slicer % 2 == 0 {
        Box::new(
            ExactKnapsackSlice::new()
                .with_max_states(1 << 10)
                .with_max_work(1 << 14)
                .with_max_table_bytes(1 << 16),
        )
    } else {
        match ExactCountConstrainedSlice::new(entries, scarcity) {
            Ok(s) => Box::new(s.with_max_cells(1 << 14).with_max_table_bytes(1 << 16)),
            Err(e) => {
                assert_eq!(e.code(), "INVALID_COUNT_ENTRY");
                return;
            }
        }
    };
    match slicer.slice(&items, &budget) {
        Ok(s) => check(&items, &budget, &s, false),
        Err(e) => check_error(&items, &e),
    }
});
