//! The block form of the row update: whole 16-cell groups of a row at a
//! time, top down, portable (any [`Cell`]), SIMD128 in wasm and AVX2
//! natively (`i32`). `row.rs` runs the cells around the groups one by one.
//!
//! A group `[b, b + 16)` reads `[b − w, b + 16 − w)` of the source row.
//! In place (the source is the row itself) every cell written before it is
//! at or above `b + 16`, above everything it reads, and it reads before it
//! writes, so it sees only the previous row's values: the groups equal the
//! descending 0/1 loop. From another row the order does not matter.

use super::cell::Cell;

/// Computes the 16-cell groups `lo..=hi` of `dp` (cells `16 lo` to
/// `16 hi + 15`), top down: `dp[c] = max(dp[c], src[c − w] + v)` where
/// `src` is the given row, or `dp` itself (in place) when `None`; with
/// `keep`, stores each group's 16 keep bits (bit `c % 64` of `keep[c / 64]`
/// set where taking is strictly better). Requires `16 lo >= w`,
/// `16 (hi + 1) <= dp.len()`, the source as long minus `w`, and
/// `hi / 4 < keep.len()`; checked, with a panic otherwise.
pub(crate) type Blocks<V> = fn(&mut [V], Option<&[V]>, usize, V, usize, usize, Option<&mut [u64]>);

fn check_blocks<V>(
    dp: &[V],
    src: Option<&[V]>,
    w: usize,
    lo: usize,
    hi: usize,
    keep: Option<&[u64]>,
) {
    let src_len = src.map_or(dp.len(), <[V]>::len);
    assert!(
        lo * 16 >= w
            && lo <= hi
            && (hi + 1) * 16 <= dp.len()
            && (hi + 1) * 16 - w <= src_len
            && keep.map_or(true, |k| hi / 4 < k.len()),
        "DP row blocks called out of bounds"
    );
}

/// Portable [`Blocks`]: copy a group's 16 source cells first, then the
/// group has no overlap and the compiler vectorises what it can.
pub(crate) fn blocks_portable<V: Cell>(
    dp: &mut [V],
    src: Option<&[V]>,
    w: usize,
    v: V,
    lo: usize,
    hi: usize,
    mut keep: Option<&mut [u64]>,
) {
    check_blocks(dp, src, w, lo, hi, keep.as_deref());
    for group in (lo..=hi).rev() {
        let base = group * 16;
        let mut from = [V::ZERO; 16];
        from.copy_from_slice(&src.unwrap_or(dp)[base - w..base - w + 16]);
        let mut bits = 0u64;
        for (l, (d, &s)) in dp[base..base + 16].iter_mut().zip(&from).enumerate() {
            let with = s.plus(v);
            let take = with.beats(*d);
            bits |= u64::from(take) << l;
            if take {
                *d = with;
            }
        }
        if let Some(keep) = keep.as_deref_mut() {
            let shift = group % 4 * 16;
            let word = &mut keep[group / 4];
            *word = *word & !(0xFFFF << shift) | bits << shift;
        }
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

/// The raw pointers of a checked [`Blocks`] call: the row, its source
/// (the row itself in place) and the keep row's `u16` groups, or null.
#[cfg(any(target_arch = "wasm32", target_arch = "x86_64"))]
fn pointers(
    dp: &mut [i32],
    src: Option<&[i32]>,
    keep: Option<&mut [u64]>,
) -> (*mut i32, *const i32, *mut u16) {
    let d = dp.as_mut_ptr();
    let s = src.map_or(d.cast_const(), <[i32]>::as_ptr);
    let k = keep.map_or(std::ptr::null_mut(), |k| k.as_mut_ptr().cast::<u16>());
    (d, s, k)
}

/// SIMD128 [`Blocks`] for `i32`: four vectors of four cells per group.
#[cfg(target_arch = "wasm32")]
pub(crate) fn blocks_simd128(
    dp: &mut [i32],
    src: Option<&[i32]>,
    w: usize,
    v: i32,
    lo: usize,
    hi: usize,
    keep: Option<&mut [u64]>,
) {
    check_blocks(dp, src, w, lo, hi, keep.as_deref());
    let (row, from, bits) = pointers(dp, src, keep);
    // SAFETY: the bounds were checked above. A wasm module is validated as
    // a whole before it runs: an engine without SIMD128 refuses to load it,
    // so this code only ever runs where the feature exists.
    unsafe { simd128_groups(row, from, w, v, lo, hi, bits) }
}

/// # Safety
/// The preconditions of [`Blocks`], with `dp`, `src` and `keep` (null:
/// none) valid for them.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
#[allow(clippy::cast_ptr_alignment)] // only unaligned loads and stores
unsafe fn simd128_groups(
    dp: *mut i32,
    src: *const i32,
    w: usize,
    v: i32,
    lo: usize,
    hi: usize,
    keep: *mut u16,
) {
    use core::arch::wasm32::{i32x4_add, i32x4_bitmask, i32x4_gt, i32x4_max, i32x4_splat, v128};
    let add = i32x4_splat(v);
    // wasm is little-endian: the keep bits of group g are u16 number g of
    // the row. One group per step keeps few vectors live (V8 spills when a
    // whole word is unrolled).
    let mut group = hi + 1;
    while group > lo {
        group -= 1;
        // SAFETY: the cells of groups lo..=hi are in bounds, and their
        // sources `w` below are at index >= 16 lo - w >= 0.
        unsafe {
            let d = dp.add(group * 16).cast::<v128>();
            let s = src.add(group * 16 - w).cast::<v128>();
            let mut mask = 0u32;
            for j in (0..4).rev() {
                // Vectors top down, each one's loads before its store: see
                // the module docs for why this equals the descending loop.
                let with = i32x4_add(s.add(j).read_unaligned(), add);
                let old = d.add(j).read_unaligned();
                d.add(j).write_unaligned(i32x4_max(with, old));
                mask |= u32::from(i32x4_bitmask(i32x4_gt(with, old))) << (4 * j);
            }
            if !keep.is_null() {
                #[allow(clippy::cast_possible_truncation)] // 16 bits
                keep.add(group).write(mask as u16);
            }
        }
    }
}

/// AVX2 [`Blocks`] for `i32`: two vectors of eight cells per group. Only
/// returned by [`i32_blocks`] when the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
pub(crate) fn blocks_avx2(
    dp: &mut [i32],
    src: Option<&[i32]>,
    w: usize,
    v: i32,
    lo: usize,
    hi: usize,
    keep: Option<&mut [u64]>,
) {
    check_blocks(dp, src, w, lo, hi, keep.as_deref());
    assert!(std::arch::is_x86_feature_detected!("avx2"));
    let (row, from, bits) = pointers(dp, src, keep);
    // SAFETY: bounds checked above, AVX2 detected.
    unsafe { avx2_groups(row, from, w, v, lo, hi, bits) }
}

/// # Safety
/// The CPU has AVX2; the preconditions of [`Blocks`], with `dp`, `src`
/// and `keep` (null: none) valid for them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::cast_ptr_alignment)] // only unaligned loads and stores
unsafe fn avx2_groups(
    dp: *mut i32,
    src: *const i32,
    w: usize,
    v: i32,
    lo: usize,
    hi: usize,
    keep: *mut u16,
) {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_max_epi32, _mm256_set1_epi32,
        _mm256_storeu_si256,
    };
    let add = _mm256_set1_epi32(v);
    // x86 is little-endian: the keep bits of group g are u16 number g.
    // Loads and stores are unaligned (`loadu` / `storeu`).
    let mut group = hi + 1;
    while group > lo {
        group -= 1;
        // SAFETY: as in `simd128_groups`.
        unsafe {
            let d = dp.add(group * 16).cast::<__m256i>();
            let s = src.add(group * 16 - w).cast::<__m256i>();
            let with_hi = _mm256_add_epi32(_mm256_loadu_si256(s.add(1)), add);
            let old_hi = _mm256_loadu_si256(d.add(1));
            _mm256_storeu_si256(d.add(1), _mm256_max_epi32(with_hi, old_hi));
            let with_lo = _mm256_add_epi32(_mm256_loadu_si256(s), add);
            let old_lo = _mm256_loadu_si256(d);
            _mm256_storeu_si256(d, _mm256_max_epi32(with_lo, old_lo));
            if !keep.is_null() {
                let mask = movemask(with_lo, old_lo) | movemask(with_hi, old_hi) << 8;
                keep.add(group).write(mask);
            }
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
