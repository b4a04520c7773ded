//! The knapsack dynamic programme, once, for the knapsack strategies, the
//! exact count-constrained slice, the variants and the budget simulation:
//!
//! * `cell.rs`: the one DP cell trait (`plus`, `beats`, an unreachable
//!   value, its block form), for `i32` and `i64`;
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
//! * `order.rs`: the greedy walk's density order.

pub(crate) mod blocks;
pub(crate) mod cell;
pub(crate) mod guard;
pub(crate) mod keep;
pub(crate) mod kernel;
pub(crate) mod order;
pub(crate) mod row;
#[cfg(test)]
pub(crate) mod testing;
