//! The knapsack dynamic programme, once, for the knapsack strategies, the
//! exact count-constrained slice, the variants and the budget simulation:
//!
//! * `cell.rs`: the one DP cell trait (`plus`, `beats`, its block form),
//!   for `i32` and `i64` (the exact count-constrained slice adds its own
//!   cells, with an unreachable value, in `slicers/exact_count_dp.rs`);
//! * `row.rs`: the one 0/1 row update (in place or from another row, with
//!   or without keep bits) and the multiple-choice class row
//!   (its tests: `row_tests.rs`);
//! * `blocks.rs`: the row update over whole 16-cell groups: portable,
//!   SIMD128 and AVX2;
//! * `kernel.rs`: the knapsack slice's DP over its keep table, with the fill
//!   above the prefix weight sum, and the reconstruction (its tests:
//!   `kernel_tests.rs`);
//! * `keep.rs`: the keep table (a bit per cell) of the exact
//!   count-constrained DP, the variants and the simulation's minimum
//!   budgets (the kernel's own is the same layout, inline in its hot loop);
//! * `guard.rs`: what a table costs and the one `TABLE_TOO_LARGE` error;
//! * `order.rs`: the greedy walk's density order;
//! * `testing.rs` (tests only): the seeded generator and the plain-loop
//!   check of the row update that the DP unit tests share.
//!
//! Not the row update, on purpose: the simulation's walks (`step` in
//! `simulation/per_budget.rs`: a walk takes what fits, no max), the
//! saturating `qmax` move and the close of `slicers/exact_count_dp.rs`.

pub(crate) mod blocks;
pub(crate) mod cell;
pub(crate) mod guard;
pub(crate) mod keep;
pub(crate) mod kernel;
pub(crate) mod order;
pub(crate) mod row;
#[cfg(test)]
pub(crate) mod testing;
