//! The one cell type of every knapsack DP: what `dp[c − w] + v` and
//! "strictly better" mean, and which block form updates a row of it.
//! Implemented by `i32` and `i64` here and by the exact count-constrained
//! slice's lexicographic cell (`slicers/exact_count_dp.rs`).

use super::blocks::{blocks_portable, i32_blocks, Blocks};

/// A DP value.
pub(crate) trait Cell: Copy {
    /// Nothing taken yet.
    const ZERO: Self;
    /// An unreachable cell: `plus` keeps it unreachable and every reachable
    /// cell beats it.
    const NEG: Self;
    /// An item's gain `v >= 0` as a cell.
    fn value(v: i64) -> Self;
    /// This cell with one more item of gain `gain` (from [`Cell::value`]).
    fn plus(self, gain: Self) -> Self;
    /// Strictly better: the row update takes the item only then.
    fn beats(self, other: Self) -> bool;
    /// The fastest [`Blocks`] for this cell on this machine; `None`: the
    /// row runs cell by cell (fewer instantiations in the wasm).
    fn blocks() -> Option<Blocks<Self>> {
        None
    }
}

/// Used only where the caller checked that the sum of every gain fits an
/// `i32`: then no reachable sum wraps, and `NEG` (`i32::MIN`) plus any
/// sum of gains stays negative, so unreachable cells need no test (which
/// keeps the SIMD blocks one add and one max per lane).
impl Cell for i32 {
    const ZERO: i32 = 0;
    const NEG: i32 = i32::MIN;
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
    fn blocks() -> Option<Blocks<i32>> {
        Some(i32_blocks())
    }
}

/// Sums saturate at `i64::MAX`; a negative (unreachable) cell stays as it
/// is, branch-free (its gain is masked to 0).
impl Cell for i64 {
    const ZERO: i64 = 0;
    const NEG: i64 = -1;
    fn value(v: i64) -> i64 {
        v
    }
    #[inline]
    fn plus(self, gain: i64) -> i64 {
        self.saturating_add(gain & !(self >> 63))
    }
    #[inline]
    fn beats(self, other: i64) -> bool {
        self > other
    }
    fn blocks() -> Option<Blocks<i64>> {
        Some(blocks_portable::<i64>)
    }
}
