//! The knapsack dynamic programme shared by the knapsack strategies and
//! the budget simulation: the row update (scalar and SIMD) and the keep
//! table that records each choice.

pub(crate) mod kernel;
