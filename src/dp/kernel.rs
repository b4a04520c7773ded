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
//! * **SIMD, in place, top down.** A row is computed in runs of cells from
//!   the top down: 4-cell vectors in wasm (SIMD128), 8-cell vectors natively
//!   when the CPU has AVX2, 16 cells at a time in portable code; 16 keep bits
//!   are stored at once. A run `[b, b + k)` reads `[b - dw, b + k - dw)`;
//!   every cell written before it in this row is at or above `b + k`, above
//!   everything it reads (`dw >= 1`), and it reads before it writes, so it
//!   sees only the previous row's values: the runs equal the spec's
//!   descending loop, whatever their length. The 16 cells that contain `dw`
//!   run one by one.
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

use super::guard::{keep_bytes, too_large};
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

/// A DP value: `i32` (when no sum can overflow) or saturating `i64`.
pub(crate) trait Cell: Copy + Ord {
    const ZERO: Self;
    /// The spec's `dp[w - dw] + dv`.
    fn plus(self, v: Self) -> Self;
}

impl Cell for i32 {
    const ZERO: i32 = 0;
    #[inline]
    fn plus(self, v: i32) -> i32 {
        // Never wraps: the caller checked that the sum of all values fits.
        self.wrapping_add(v)
    }
}

impl Cell for i64 {
    const ZERO: i64 = 0;
    #[inline]
    fn plus(self, v: i64) -> i64 {
        self.saturating_add(v)
    }
}

/// Computes the 16-cell groups `lo..=hi` of one row (cells `16 lo` to
/// `16 hi + 15`), top down, in place: `dp[w] = max(dp[w], dp[w - dw] + v)`,
/// and sets the keep bit of each cell `w` (bit `w % 64` of `keep[w / 64]`).
/// Requires `lo >= 1`, `16 lo >= dw` (every cell at or above `dw`),
/// `16 (hi + 1) <= dp.len()` and `hi / 4 < keep.len()`; the kernels check it
/// and panic otherwise.
pub(crate) type Blocks<V> = fn(&mut [V], usize, V, usize, usize, &mut [u64]);

fn check_blocks<V>(dp: &[V], dw: usize, lo: usize, hi: usize, keep: &[u64]) {
    assert!(
        lo >= 1 && lo * 16 >= dw && (hi + 1) * 16 <= dp.len() && hi / 4 < keep.len(),
        "knapsack kernel called out of bounds"
    );
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
        // The group that holds dw runs cell by cell, the groups above it in
        // the kernel. (If dw is at computed_end, then dw = next_sum: the
        // whole row is above the prefix sum.)
        let bottom = dw / 16;
        let top_group = 4 * top + 3;
        if bottom <= top_group {
            if bottom < top_group {
                blocks(&mut dp, dw, v, bottom + 1, top_group, keep);
            }
            keep[bottom / 4] |=
                u64::from(group_scalar(&mut dp, dw, v, bottom)) << (bottom % 4 * 16);
        }
        let next_total = total.plus(v);
        if next_total > total {
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

/// The cells `dw..` of group `group = dw / 16`, one at a time, top down;
/// their keep bits (bit `w % 16` for cell `w`).
fn group_scalar<V: Cell>(dp: &mut [V], dw: usize, v: V, group: usize) -> u16 {
    let base = group * 16;
    let mut keep = 0u16;
    for w in (dw.max(base)..base + 16).rev() {
        let with = dp[w - dw].plus(v);
        let old = dp[w];
        keep |= u16::from(with > old) << (w - base);
        dp[w] = with.max(old);
    }
    keep
}

/// Portable [`Blocks`]: copy a group's 16 source cells first, then the
/// group has no overlap and the compiler vectorises what it can.
pub(crate) fn blocks_portable<V: Cell>(
    dp: &mut [V],
    dw: usize,
    v: V,
    lo: usize,
    hi: usize,
    keep: &mut [u64],
) {
    check_blocks(dp, dw, lo, hi, keep);
    for group in (lo..=hi).rev() {
        let base = group * 16;
        let mut src = [V::ZERO; 16];
        src.copy_from_slice(&dp[base - dw..base - dw + 16]);
        let mut bits = 0u64;
        for (l, (d, &s)) in dp[base..base + 16].iter_mut().zip(&src).enumerate() {
            let with = s.plus(v);
            bits |= u64::from(with > *d) << l;
            *d = with.max(*d);
        }
        let shift = group % 4 * 16;
        let word = &mut keep[group / 4];
        *word = *word & !(0xFFFF << shift) | bits << shift;
    }
}

/// The fastest [`Blocks`] for `i32` on this machine.
pub(crate) fn i32_blocks() -> Blocks<i32> {
    #[cfg(target_arch = "wasm32")]
    {
        blocks_simd128
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            blocks_avx2
        } else {
            blocks_portable::<i32>
        }
    }
    #[cfg(not(any(target_arch = "wasm32", target_arch = "x86_64")))]
    {
        blocks_portable::<i32>
    }
}

/// SIMD128 [`Blocks`] for `i32`: four vectors of four cells per group.
#[cfg(target_arch = "wasm32")]
pub(crate) fn blocks_simd128(
    dp: &mut [i32],
    dw: usize,
    v: i32,
    lo: usize,
    hi: usize,
    keep: &mut [u64],
) {
    check_blocks(dp, dw, lo, hi, keep);
    // SAFETY: the bounds were checked above. A wasm module is validated as
    // a whole before it runs: an engine without SIMD128 refuses to load it,
    // so this code only ever runs where the feature exists.
    unsafe { simd128_groups(dp.as_mut_ptr(), dw, v, lo, hi, keep.as_mut_ptr()) }
}

/// # Safety
/// The preconditions of [`Blocks`], with `dp` and `keep` valid for them.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
#[allow(clippy::cast_ptr_alignment)] // only unaligned loads and stores
unsafe fn simd128_groups(dp: *mut i32, dw: usize, v: i32, lo: usize, hi: usize, keep: *mut u64) {
    use core::arch::wasm32::{i32x4_add, i32x4_bitmask, i32x4_gt, i32x4_max, i32x4_splat, v128};
    let add = i32x4_splat(v);
    // wasm is little-endian: the keep bits of group g are u16 number g of
    // the row. One group per step keeps few vectors live (V8 spills when a
    // whole word is unrolled).
    let keep = keep.cast::<u16>();
    let mut group = hi + 1;
    while group > lo {
        group -= 1;
        // SAFETY: the cells of groups lo..=hi are in bounds, and their
        // sources `dw` below are at index >= 16 lo - dw >= 0.
        unsafe {
            let d = dp.add(group * 16).cast::<v128>();
            let s = dp.add(group * 16 - dw).cast::<v128>();
            let mut mask = 0u32;
            for j in (0..4).rev() {
                // Vectors top down, each one's loads before its store: see
                // the module docs for why this equals the descending loop.
                let with = i32x4_add(s.add(j).read_unaligned(), add);
                let old = d.add(j).read_unaligned();
                d.add(j).write_unaligned(i32x4_max(with, old));
                mask |= u32::from(i32x4_bitmask(i32x4_gt(with, old))) << (4 * j);
            }
            #[allow(clippy::cast_possible_truncation)] // 16 bits
            keep.add(group).write(mask as u16);
        }
    }
}

/// AVX2 [`Blocks`] for `i32`: two vectors of eight cells per group. Only
/// returned by [`i32_blocks`] when the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
pub(crate) fn blocks_avx2(
    dp: &mut [i32],
    dw: usize,
    v: i32,
    lo: usize,
    hi: usize,
    keep: &mut [u64],
) {
    check_blocks(dp, dw, lo, hi, keep);
    assert!(std::arch::is_x86_feature_detected!("avx2"));
    // SAFETY: bounds checked above, AVX2 detected.
    unsafe { avx2_groups(dp.as_mut_ptr(), dw, v, lo, hi, keep.as_mut_ptr()) }
}

/// # Safety
/// The CPU has AVX2; the preconditions of [`Blocks`], with `dp` and `keep`
/// valid for them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::cast_ptr_alignment)] // only unaligned loads and stores
unsafe fn avx2_groups(dp: *mut i32, dw: usize, v: i32, lo: usize, hi: usize, keep: *mut u64) {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_max_epi32, _mm256_set1_epi32,
        _mm256_storeu_si256,
    };
    let add = _mm256_set1_epi32(v);
    // x86 is little-endian: the keep bits of group g are u16 number g.
    // Loads and stores are unaligned (`loadu` / `storeu`).
    let keep = keep.cast::<u16>();
    let mut group = hi + 1;
    while group > lo {
        group -= 1;
        // SAFETY: as in `simd128_groups`.
        unsafe {
            let d = dp.add(group * 16).cast::<__m256i>();
            let s = dp.add(group * 16 - dw).cast::<__m256i>();
            let with_hi = _mm256_add_epi32(_mm256_loadu_si256(s.add(1)), add);
            let old_hi = _mm256_loadu_si256(d.add(1));
            _mm256_storeu_si256(d.add(1), _mm256_max_epi32(with_hi, old_hi));
            let with_lo = _mm256_add_epi32(_mm256_loadu_si256(s), add);
            let old_lo = _mm256_loadu_si256(d);
            _mm256_storeu_si256(d, _mm256_max_epi32(with_lo, old_lo));
            let mask = movemask(with_lo, old_lo) | movemask(with_hi, old_hi) << 8;
            keep.add(group).write(mask);
        }
    }
}

/// The 8 bits of `a > b`, lane by lane.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn movemask(a: std::arch::x86_64::__m256i, b: std::arch::x86_64::__m256i) -> u16 {
    use std::arch::x86_64::{_mm256_castsi256_ps, _mm256_cmpgt_epi32, _mm256_movemask_ps};
    #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)] // an 8-bit mask
    let m = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b))) as u16;
    m
}

#[cfg(test)]
#[path = "kernel_tests.rs"]
mod tests;
