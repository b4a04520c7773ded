//! The slicers: one strategy per file, each a [`Slicer`](crate::Slicer).
//!
//! The four seed slicers follow their specifications in `docs/specs/`
//! (greedy, knapsack, count-constrained knapsack, packer); `exact` and
//! `exact_count` go beyond them and solve to optimality within guards.
//! Their parts: `minknap.rs` (the exact slice's search), `exact_report.rs`
//! (what both exact slices report), `exact_count_finish.rs` (its decisions and
//! shortfalls from what it took), `exact_count_plan.rs` and
//! `exact_count_dp.rs` (the count-constrained DP and its cells; its tests:
//! `exact_count_dp_tests.rs`).

pub(crate) mod count_constrained;
pub(crate) mod exact;
pub(crate) mod exact_count;
pub(crate) mod exact_count_dp;
pub(crate) mod exact_count_finish;
pub(crate) mod exact_count_plan;
pub(crate) mod exact_report;
pub(crate) mod greedy;
pub(crate) mod knapsack;
pub(crate) mod minknap;
pub(crate) mod packer;
