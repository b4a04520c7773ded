//! One internal problem for the message layer (issue 26): the items of a
//! chat history in columns ([`Problem`]: sizes, values, units, positions,
//! stubs, what is kept for sure) and the structure as constraints of the
//! selection, not filters after it: units go in whole, each item in full,
//! as its stub or not at all, and (Anthropic) the first kept message opens
//! a user unit.
//!
//! * `input.rs`: [`Problem`], [`ProblemStrategy`], and the one place where
//!   values are lifted for the value-maximising strategies;
//! * `lead.rs`: the rule on the first message, over the units;
//! * `solve.rs`: [`Problem::solve`] (and at several sizes in one call,
//!   [`Problem::solve_sizes`]) through the crate's slicers, units and
//!   variants;
//! * `first.rs`: `'exact'` and `'knapsack'` under the rule (what is exact,
//!   and when it is not); `bound.rs`, the bound its search prunes by;
//! * `walk.rs`: the walks under the rule, in one pass;
//! * `outcome.rs`: [`Outcome`] and [`Reason`].

mod bound;
mod first;
mod input;
mod lead;
mod outcome;
mod solve;
// Against a brute force with proptest (a native dev-dependency).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
mod walk;

pub use first::MAX_FIRST_SOLVES;
pub use input::{Problem, ProblemStrategy};
pub use outcome::{Outcome, Reason};
