//! Budget simulation: what a strategy selects at every budget, computed in
//! one pass rather than one slice per budget. `budget_curve.rs` holds the
//! knapsack strategies' curves (the DP's last row), `simulate.rs` the
//! [`BudgetSimulation`](crate::BudgetSimulation) front end (curves for
//! every monotonic strategy, minimum budgets, slack), `per_budget.rs` the
//! engines it runs (the walks, the knapsack's rows, the exact sweep).

pub(crate) mod budget_curve;
pub(crate) mod per_budget;
pub(crate) mod simulate;
