//! Levels of detail: alternative versions of an item (a full tool result,
//! its summary, a one-line stub), of which at most one goes in — the
//! multiple-choice knapsack. The rules in full: `docs/variants.md`.
//!
//! * `classes.rs`: the input ([`Variants`]) and the classes: one per unit
//!   of [`Groups`], its options the undominated combinations of its
//!   members' versions;
//! * `walk.rs`: greedy and the packer, taking the best version that fits;
//! * `mckp.rs`: the bucketed DP over classes (the knapsack strategy, and
//!   the exact one's fallback), on `dp`'s class row update and keep table;
//! * `mcknap.rs`: the exact strategy, an expanding core around the LP
//!   break class after Pisinger's mcknap;
//! * `slice.rs`: the strategies over the classes, dependencies in rounds,
//!   and the answer expanded to the items ([`VariantSelection`]).

pub(crate) mod classes;
pub(crate) mod mcknap;
pub(crate) mod mckp;
pub(crate) mod slice;
pub(crate) mod walk;

pub use classes::{Variants, MAX_OPTIONS};
pub use slice::VariantSelection;
