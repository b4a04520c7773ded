//! The one cell trait of every knapsack DP: what `dp[c − w] + v` and
//! "strictly better" mean, and which block form updates a row of it.
//! Implemented by `i32` and `i64` here and by the exact count-constrained
//! slice's cells (`slicers/exact_count_dp.rs`), which add an unreachable
//! value.

use super::blocks::{i32_blocks, Blocks};

/// A DP value.
pub(crate) trait Cell: Copy {
    /// Nothing taken yet.
    const ZERO: Self;
    /// An item's gain `v >= 0` as a cell.
    fn value(v: i64) -> Self;
    /// This cell with one more item of gain `gain` (from [`Cell::value`]).
    fn plus(self, gain: Self) -> Self;
    /// Strictly better: the row update takes the item only then.
    fn beats(self, other: Self) -> bool;
    /// `self` if it beats `other`, else `other`.
    #[inline]
    fn better(self, other: Self) -> Self {
        if self.beats(other) {
            self
        } else {
            other
        }
    }
    /// The fastest [`Blocks`] for this cell on this machine; `None`: the
    /// row runs cell by cell (fewer instantiations in the wasm).
    fn blocks() -> Option<Blocks<Self>> {
        None
    }
}

/// Used only where the caller checked that the sum of every gain fits an
/// `i32`: then no sum wraps (and the count DP's unreachable `i32::MIN`
/// plus any sum of gains stays negative), so the SIMD blocks are one add
/// and one max per lane.
impl Cell for i32 {
    const ZERO: i32 = 0;
    fn value(v: i64) -> i32 {
        i32::try_from(v).unwrap_or(i32::MAX)
    }
    #[inline]
    fn plus(self, gain: i32) -> i32 {
        self.wrapping_add(gain)
    }
    #[inline]
    fn beats(self, other: i32) -> bool {
        self > other
    }
    #[inline]
    fn better(self, other: i32) -> i32 {
        // Ord::max: a conditional move, where the default's select may
        // become a branch that mispredicts.
        Ord::max(self, other)
    }
    fn blocks() -> Option<Blocks<i32>> {
        Some(i32_blocks())
    }
}

/// Sums saturate at `i64::MAX`. No block form: without keep bits the plain
/// loop is faster than the portable blocks (the knapsack kernel, which
/// stores keep bits, passes them itself).
impl Cell for i64 {
    const ZERO: i64 = 0;
    fn value(v: i64) -> i64 {
        v
    }
    #[inline]
    fn plus(self, gain: i64) -> i64 {
        self.saturating_add(gain)
    }
    #[inline]
    fn beats(self, other: i64) -> bool {
        self > other
    }
    #[inline]
    fn better(self, other: i64) -> i64 {
        Ord::max(self, other)
    }
}
