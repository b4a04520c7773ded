//! # ctxpack
//!
//! Decides which context fragments go into an LLM prompt under a token
//! budget. This crate is the slicing core: four slicers that follow their
//! specifications exactly and explain every decision, and two exact ones
//! that go beyond them.
//!
//! | slicer | spec | what it does |
//! |---|---|---|
//! | [`GreedySlice`] | docs/specs/greedy-slice.md | greedy by value density (score / tokens) |
//! | [`KnapsackSlice`] | docs/specs/knapsack-slice.md | 0/1 knapsack DP over bucketed token counts |
//! | [`CountConstrainedKnapsackSlice`] | docs/specs/count-constrained-knapsack-slice.md | per-kind require and cap counts around the knapsack |
//! | [`GreedyPacker`] | docs/specs/greedy-knapsack-packer.md | the caller's order, skip-and-continue, stop after N misses |
//! | [`ExactKnapsackSlice`] | beyond the seeds | the knapsack optimum over real token counts (minknap), bucketed fallback past its guard |
//! | [`ExactCountConstrainedSlice`] | beyond the seeds | require and cap counts per kind, solved to optimality within the budget |
//! | [`Groups`] | beyond the seeds | atomic groups and dependencies around any of them ([`GroupedStrategy`]) |
//! | [`Variants`] | beyond the seeds | alternative versions of an item (full, summary, stub), at most one selected: the multiple-choice knapsack |
//!
//! Every slicer implements [`Slicer`]: it takes [`Item`]s (tokens, score,
//! kind) and a [`Budget`] and returns a [`Selection`]: the selected indexes
//! in the spec's output order, one [`Decision`] per input item with its
//! reason, the totals, and any count [`Shortfall`]s. Bad input is a
//! [`CtxpackError`] with a stable code; nothing here panics on input.
//!
//! ```
//! use ctxpack_core::{Budget, GreedySlice, Item, KnapsackSlice, Slicer};
//!
//! let items = [Item::new(300, 0.9), Item::new(200, 0.7), Item::new(250, 0.6)];
//! let budget = Budget::new(500);
//! let greedy = GreedySlice.slice(&items, &budget)?;
//! let knapsack = KnapsackSlice::default().slice(&items, &budget)?;
//! assert_eq!(greedy.selected, [1, 0]);
//! assert_eq!(knapsack.total_tokens, 500);
//! for (i, d) in knapsack.decisions.iter().enumerate() {
//!     println!("item {i}: {}", d.code());
//! }
//! # Ok::<(), ctxpack_core::CtxpackError>(())
//! ```
//!
//! [`media`] counts images and PDFs the way providers do: image sizes read
//! from headers without decoding, and each provider's token rule.
//!
//! The wasm-bindgen boundary of the npm package lives in its own module,
//! compiled only for `wasm32`; the core has no wasm import.

mod constraints;
mod dp;
mod error;
mod item;
pub mod media;
mod problem;
mod selection;
mod simulation;
mod slicers;
mod sort;
mod variants;

// The slicers' modules by name, for the crate's own paths.
use slicers::{count_constrained, exact, exact_count, greedy, knapsack, packer};

pub use constraints::group_slice::{GroupedSelection, GroupedStrategy};
pub use constraints::groups::{DependencyMode, Groups, UnitScore, Units};
pub mod relevance;
pub mod state_key;

pub use count_constrained::{CountConstrainedKnapsackSlice, CountQuotaEntry, ScarcityBehavior};
pub use error::{CountEntryProblem, CtxpackError, ErrorReason, TableLimit};
pub use exact::{
    ExactKnapsackSlice, ExactReport, FallbackReason, Solver, DEFAULT_MAX_STATES, DEFAULT_MAX_WORK,
};
pub use exact_count::{ExactCountConstrainedSlice, DEFAULT_MAX_CELLS};
pub use greedy::GreedySlice;
pub(crate) use item::check_scores;
pub use item::{Budget, Item};
pub use knapsack::{KnapsackSlice, DEFAULT_BUCKET_SIZE, DEFAULT_MAX_TABLE_BYTES, SCORE_SCALE};
pub use packer::{GreedyPacker, LazySelection, DEFAULT_MAX_CONSECUTIVE_SKIPS};
pub use problem::{Outcome, Problem, ProblemStrategy, Reason, MAX_FIRST_SOLVES};
pub use selection::{Decision, ExclusionReason, InclusionReason, Selection, Shortfall};
pub use simulation::simulate::{
    BudgetSimulation, MinBudget, SlackDiff, Strategy, DEFAULT_MAX_SIMULATION_CELLS,
};
pub use variants::{VariantSelection, Variants, MAX_OPTIONS};

/// A selection strategy: picks items under a budget and explains each
/// decision.
///
/// ```
/// use ctxpack_core::{Budget, GreedyPacker, GreedySlice, Item, KnapsackSlice, Slicer};
/// let slicers: Vec<Box<dyn Slicer>> =
///     vec![Box::new(GreedySlice), Box::new(KnapsackSlice::default()), Box::new(GreedyPacker::default())];
/// let items = [Item::new(100, 0.5), Item::new(0, 0.1)];
/// for s in &slicers {
///     let sel = s.slice(&items, &Budget::new(100))?;
///     assert_eq!(sel.decisions.len(), items.len());
/// }
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
pub trait Slicer {
    /// Selects from `items` under `budget`.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidScore`] for a NaN or infinite score, and the
    /// slicer's own errors (a knapsack table over its limit, a count
    /// shortfall under `ScarcityBehavior::Throw`).
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError>;
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The wasm-bindgen boundary (wasm32 only). Public for the wasm-bindgen
/// tests; JS users reach it through the npm package.
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;
