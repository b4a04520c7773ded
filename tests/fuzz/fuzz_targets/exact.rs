//! Fuzzes the exact slicers (ExactKnapsackSlice, ExactCountConstrainedSlice)
//! with arbitrary items, budgets and count entries, under guards drawn from
//! the case (from tiny, so that the fallbacks run, to raised well past the
//! defaults' share of a small instance): no panic, and every successful slice
//! keeps its invariants (the exact count slice never exceeds the budget).
#![no_main]

#[path = "common.rs"]
mod common;

use common::{check, check_error, decode, Case};
use ctxpack_core::{ExactCountConstrainedSlice, ExactKnapsackSlice, Slicer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: Case| {
    let (items, budget, entries, scarcity) = decode(&case);
    // Guard scale from the slicer byte: 2^10 … 2^25 (table bytes up to 32 MiB).
    let shift = 10 + u32::from(case.slicer >> 1) % 16;
    let slicer: Box<dyn Slicer> = if case.slicer % 2 == 0 {
        Box::new(
            ExactKnapsackSlice::new()
                .with_max_states(1 << shift.min(20))
                .with_max_work(1u64 << (shift + 4))
                .with_max_table_bytes(1 << shift),
        )
    } else {
        match ExactCountConstrainedSlice::new(entries, scarcity) {
            Ok(s) => Box::new(s.with_max_cells(1u64 << (shift + 4)).with_max_table_bytes(1 << shift)),
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
