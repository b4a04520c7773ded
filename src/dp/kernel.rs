//! The DP kernel of [`KnapsackSlice`](crate::KnapsackSlice): the spec's
//! recurrence and reconstruction, computed with SIMD, with exactly the spec's
//! keep bits.
//!
//! # What is computed
//!
//! docs/specs/knapsack-slice.md runs, for each candidate `i` in input order,
//!
//! ```text
//! for w <- capacity downto dw:
//!     with <- dp[w - dw] + dv
//!     if with > dp[w]: dp[w] <- with; keep[i][w] <- true
//! ```
//!
//! Because `w` descends, `dp[w - dw]` is still the previous row's value when
//! it is read, so a row is `new[w] = max(old[w], old[w - dw] + dv)` with
//! `keep[i][w] = (old[w - dw] + dv > old[w])`, and nothing changes below `dw`.
//! Reconstruction walks the rows from the last to the first, taking row `i`
//! when `keep[i][remaining]` is set. This module computes exactly those keep
//! bits for every cell `w <= capacity` of every row (the tests compare all of
//! them with the spec's loop), so the reconstruction, and the selection, are
//! the spec's.
//!
//! # How
//!
//! * **32-bit values** when the sum of all row values fits an `i32`: then no
//!   partial sum overflows, and `i32` arithmetic gives the same numbers as the
//!   `i64` one. Otherwise `i64` with saturating addition, as before.
//! * **SIMD, in place, top down**: each row is the shared row update
//!   (`row.rs`) over the cells up to the prefix weight sum, in the cell
//!   type's block form (`blocks.rs`: SIMD128 in wasm, AVX2 natively,
//!   portable otherwise), which equals the spec's descending loop.
//! * **Above the prefix weight sum.** Let `S` be the sum of the weights of
//!   rows `0..=i` and `T` the (saturating) sum of their values. Every row has
//!   a value above 0, so for `w >= S` (all rows fit) `dp[w] = T`, and row `i`
//!   keeps at every `w >= S` exactly when `T_prev + dv > T_prev`, which holds
//!   unless `T_prev` has saturated at `i64::MAX`. Those words are filled
//!   without computing them, and the value row above `S` is written lazily:
//!   it is known to be `T` and is filled in only when a later row needs it.
//!   Over all rows the fill costs one pass over the row.
//!
//! The keep table is one bit per cell, rows of whole 64-bit words; its size
//! is guarded in bytes before anything is allocated.

use super::blocks::{blocks_portable, i32_blocks, Blocks};
use super::cell::Cell;
use super::guard::{keep_bytes, too_large};
use super::row;
use crate::CtxpackError;

/// Solves the knapsack over `weights` / `values` (one DP row each, every
/// weight in `1..=capacity`, every value above 0) and returns the row numbers
/// in reconstruction order (last row first).
///
/// # Errors
/// [`CtxpackError::TableTooLarge`] when the table would exceed `limit` bytes
/// (counting the keep bits and an 8-byte value row), does not fit this
/// platform's address space, or cannot be allocated.
pub(crate) fn solve(
    weights: &[usize],
    values: &[i64],
    capacity: i64,
    limit: u64,
) -> Result<Vec<usize>, CtxpackError> {
    debug_assert_eq!(weights.len(), values.len());
    let layout = Layout::check(weights.len(), capacity, limit)?;
    let mut bits = layout.keep_table()?;
    let fits_i32 = values
        .iter()
        .try_fold(0i64, |sum, &v| sum.checked_add(v))
        .is_some_and(|sum| sum <= i64::from(i32::MAX));
    if fits_i32 {
        let values: Vec<i32> = values
            .iter()
            .map(|&v| i32::try_from(v).unwrap_or(i32::MAX))
            .collect();
        let dp = layout.value_row()?;
        fill(weights, &values, &layout, &mut bits, dp, i32_blocks());
    } else {
        let dp = layout.value_row()?;
        fill(
            weights,
            values,
            &layout,
            &mut bits,
            dp,
            blocks_portable::<i64>,
        );
    }
    Ok(reconstruct(weights, &layout, &bits))
}

/// `err` (a [`CtxpackError::TableTooLarge`]) with the platform's address
/// space as its limit, which no option raises.
fn too_large_for_platform(err: CtxpackError) -> CtxpackError {
    match err {
        CtxpackError::TableTooLarge {
            candidates,
            capacity,
            cells,
            bytes,
            bucket_helps,
            ..
        } => CtxpackError::TableTooLarge {
            candidates,
            capacity,
            cells,
            bytes,
            limit: u64::try_from(usize::MAX).unwrap_or(u64::MAX),
            unit: crate::TableLimit::Addressable,
            bucket_helps,
        },
        other => other,
    }
}

/// The table's shape, checked against the byte limit.
struct Layout {
    rows: usize,
    capacity: usize,
    words_per_row: usize,
    /// Set when the table cannot be allocated: the error to return.
    too_large: CtxpackError,
}

impl Layout {
    /// The byte guard: `rows × ⌈(capacity + 1) / 64⌉ × 8` bytes of keep bits
    /// plus `(capacity + 1) × 8` bytes of value row must not exceed `limit`.
    fn check(rows: usize, capacity: i64, limit: u64) -> Result<Layout, CtxpackError> {
        let columns = u64::try_from(capacity)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let words_per_row = columns.div_ceil(64);
        let row_count = rows as u64;
        let bytes =
            keep_bytes(u128::from(row_count), u128::from(columns)) + u128::from(columns) * 8;
        let too_large = too_large(
            rows,
            u128::from(columns),
            u128::from(row_count) * u128::from(columns),
            bytes,
            limit,
            crate::TableLimit::Bytes,
        );
        if bytes > u128::from(limit) {
            return Err(too_large);
        }
        // Sizes must also fit this platform's usize (32 bits on wasm32),
        // including the value row padded to whole words.
        let fits = |x: u64| usize::try_from(x).ok();
        let (Some(_), Some(_), Some(words_per_row), Some(capacity)) = (
            fits(row_count.saturating_mul(words_per_row)),
            fits(words_per_row * 64),
            fits(words_per_row),
            fits(columns - 1),
        ) else {
            // Within a raised limit, but past what this platform addresses.
            return Err(too_large_for_platform(too_large));
        };
        Ok(Layout {
            rows,
            capacity,
            words_per_row,
            too_large,
        })
    }

    /// The zeroed keep table, or the guard's error if it cannot be allocated.
    fn keep_table(&self) -> Result<Vec<u64>, CtxpackError> {
        let words = self.rows * self.words_per_row;
        let mut bits = Vec::new();
        bits.try_reserve_exact(words)
            .map_err(|_| self.too_large.clone())?;
        bits.resize(words, 0);
        Ok(bits)
    }

    /// The zeroed value row, padded to whole 64-cell blocks.
    fn value_row<V: Cell>(&self) -> Result<Vec<V>, CtxpackError> {
        let len = self.words_per_row * 64;
        let mut dp = Vec::new();
        dp.try_reserve_exact(len)
            .map_err(|_| self.too_large.clone())?;
        dp.resize(len, V::ZERO);
        Ok(dp)
    }
}

/// The spec's DP over all rows: fills the keep table `bits` (zeroed on
/// entry); `dp` is the zeroed value row of `words_per_row × 64` cells.
fn fill<V: Cell>(
    weights: &[usize],
    values: &[V],
    layout: &Layout,
    bits: &mut [u64],
    mut dp: Vec<V>,
    blocks: Blocks<V>,
) {
    let capacity = layout.capacity;
    let wpr = layout.words_per_row;
    debug_assert!(bits.len() == weights.len() * wpr && dp.len() == wpr * 64);
    // dp[..valid_end] holds the previous row; above it, the previous row is
    // `total` (every cell there is at or above the prefix weight sum).
    let mut valid_end = dp.len();
    let mut total = V::ZERO;
    let mut weight_sum = 0usize;
    for (r, (&dw, &v)) in weights.iter().zip(values).enumerate() {
        debug_assert!(dw >= 1 && dw <= capacity);
        let keep = &mut bits[r * wpr..(r + 1) * wpr];
        let next_sum = weight_sum.saturating_add(dw);
        // Cells at or above next_sum keep iff total + v > total. Compute the
        // words up to the one that holds next_sum - 1 (or the capacity).
        let top = capacity.min(next_sum - 1) / 64;
        let computed_end = (top + 1) * 64;
        if valid_end < computed_end {
            dp[valid_end..computed_end].fill(total);
        }
        row::update(
            Some(blocks),
            &mut dp[..computed_end],
            None,
            dw,
            v,
            Some(&mut *keep),
        );
        let next_total = total.plus(v);
        if next_total.beats(total) {
            keep[top + 1..].fill(!0);
        }
        total = next_total;
        weight_sum = next_sum;
        valid_end = computed_end;
    }
}

/// The spec's reconstruction: row numbers from the last row to the first.
fn reconstruct(weights: &[usize], layout: &Layout, bits: &[u64]) -> Vec<usize> {
    let wpr = layout.words_per_row;
    let mut chosen = Vec::new();
    let mut remaining = layout.capacity;
    for (r, &dw) in weights.iter().enumerate().rev() {
        if bits[r * wpr + remaining / 64] >> (remaining % 64) & 1 == 1 {
            chosen.push(r);
            remaining -= dw;
        }
    }
    chosen
}

#[cfg(test)]
#[path = "kernel_tests.rs"]
mod tests;
