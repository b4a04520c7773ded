//! The knapsack dynamic programme, once, for the knapsack strategies and
//! the budget simulation:
//!
//! * `kernel.rs`: the spec's DP with its keep table (bit per cell), the row
//!   update in scalar, SIMD128 and AVX2 forms, and the reconstruction
//!   (its tests: `kernel_tests.rs`);
//! * `keep.rs`: the keep table (a bit per cell) of the exact
//!   count-constrained DP and the simulation's minimum budgets (the
//!   kernel's own is the same layout, inline in its hot loop);
//! * `row.rs`: the same row update over a value row alone (the budget
//!   curves, the simulation's minimum budgets);
//! * `guard.rs`: what a table costs and the one `TABLE_TOO_LARGE` error;
//! * `order.rs`: the greedy walk's density order.

pub(crate) mod guard;
pub(crate) mod keep;
pub(crate) mod kernel;
pub(crate) mod order;
pub(crate) mod row;
