//! Tests of the shared row update (`row.rs`): in place and from another
//! row, with and without keep bits, for each cell type and block form,
//! against the plain 0/1 loop on random rows; and the class row with one
//! version against the 0/1 update.

use super::{class_row, update};
use crate::dp::blocks::{blocks_portable, Blocks};
use crate::dp::cell::Cell;
use crate::dp::test_rng::Rng;

/// The plain loop: `dp[c] = max(dp[c], src[c − w] + v)` for descending
/// `c >= w`, `src` the row itself (read as it was before the update) or
/// `from`; the keep bit where strictly better.
fn plain<V: Cell>(dp: &[V], from: Option<&[V]>, w: usize, v: V) -> (Vec<V>, Vec<bool>) {
    let before = dp.to_vec();
    let src = from.unwrap_or(&before);
    let mut out = before.clone();
    let mut keep = vec![false; dp.len()];
    for c in (w..dp.len()).rev() {
        let with = src[c - w].plus(v);
        if with.beats(before[c]) {
            out[c] = with;
            keep[c] = true;
        }
    }
    (out, keep)
}

/// Runs `update` with `blocks` on random rows (lengths on and off
/// multiples of 16, weights from 0 to past the length) and compares values
/// and keep bits with the plain loop, in place and from another row.
fn check<V: Cell + PartialEq + std::fmt::Debug>(
    name: &str,
    blocks: Option<Blocks<V>>,
    mut cell: impl FnMut(&mut Rng) -> V,
    mut gain: impl FnMut(&mut Rng) -> V,
) {
    let mut rng = Rng(0x524F_5753);
    for case in 0..2_000 {
        let len = match rng.below(3) {
            0 => rng.below(20),
            1 => 16 * (1 + rng.below(8)) + rng.below(3) - 1,
            _ => rng.below(300),
        };
        let w = match rng.below(3) {
            0 => rng.below(17),
            _ => rng.below(len + 2),
        };
        let v = gain(&mut rng);
        let dp: Vec<V> = (0..len).map(|_| cell(&mut rng)).collect();
        let from: Vec<V> = (0..len).map(|_| cell(&mut rng)).collect();
        for src in [None, Some(&from[..])] {
            if src.is_none() && w == 0 {
                continue; // in place needs w >= 1
            }
            let (want, want_keep) = plain(&dp, src, w, v);
            let mut got = dp.clone();
            let mut keep = vec![0u64; len.div_ceil(64)];
            update(blocks, &mut got, src, w, v, Some(&mut keep));
            let got_keep: Vec<bool> = (0..len)
                .map(|c| keep[c / 64] >> (c % 64) & 1 == 1)
                .collect();
            let form = if src.is_some() {
                "from a row"
            } else {
                "in place"
            };
            assert_eq!(got, want, "{name}, case {case}, {form}");
            assert_eq!(got_keep, want_keep, "{name}, case {case}, {form}: keep");
            let mut bare = dp.clone();
            update(blocks, &mut bare, src, w, v, None);
            assert_eq!(bare, want, "{name}, case {case}, {form}, no keep");
        }
    }
}

/// Reachable `i32` cells, unreachable ones (`NEG` plus a small sum, as the
/// exact count-constrained DP leaves them) and ties.
fn i32_cell(rng: &mut Rng) -> i32 {
    match rng.below(4) {
        0 => i32::NEG + i32::try_from(rng.below(1_000)).unwrap(),
        1 => i32::try_from(rng.below(8)).unwrap(),
        _ => i32::try_from(rng.below(1_000_000)).unwrap(),
    }
}

fn i32_gain(rng: &mut Rng) -> i32 {
    i32::try_from(rng.below(100_000)).unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_i32_block_form_equals_the_plain_loop() {
    check(
        "i32 portable",
        Some(blocks_portable::<i32>),
        i32_cell,
        i32_gain,
    );
    check("i32 fastest", i32::blocks(), i32_cell, i32_gain);
}

/// `i64` cells: unreachable (`-1`, kept as they are), ties, and sums that
/// saturate at `i64::MAX`.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_i64_row_equals_the_plain_loop_and_saturates() {
    let cell = |rng: &mut Rng| match rng.below(5) {
        0 => i64::NEG,
        1 => i64::MAX - i64::try_from(rng.below(3)).unwrap(),
        2 => i64::try_from(rng.below(8)).unwrap(),
        _ => i64::try_from(rng.below(1_000_000)).unwrap(),
    };
    let gain = |rng: &mut Rng| match rng.below(3) {
        0 => i64::MAX / 2,
        _ => i64::try_from(rng.below(100_000)).unwrap(),
    };
    check("i64", i64::blocks(), cell, gain);
    check("i64 cell by cell", None, cell, gain);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn unreachable_cells_stay_unreachable() {
    assert!(i32::NEG.plus(i32::MAX).beats(i32::NEG));
    assert!(i32::NEG.plus(i32::MAX) < 0);
    assert_eq!(i64::NEG.plus(i64::MAX), i64::NEG);
    assert!(0i32.beats(i32::NEG.plus(i32::MAX)) && 0i64.beats(i64::NEG));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_class_of_one_version_is_the_0_1_update() {
    let mut rng = Rng(0xC1A5);
    for case in 0..500 {
        let len = rng.below(200);
        let w = 1 + rng.below(len + 1);
        let v = i64::try_from(rng.below(1_000)).unwrap();
        let dp: Vec<i64> = (0..len)
            .map(|_| i64::try_from(rng.below(5_000)).unwrap())
            .collect();
        let (want, want_keep) = plain(&dp, None, w, v);
        let mut got = dp.clone();
        let mut keep = vec![0u64; len.div_ceil(64)];
        class_row(&mut got, &[(w, v)], Some(&mut keep));
        let got_keep: Vec<bool> = (0..len)
            .map(|c| keep[c / 64] >> (c % 64) & 1 == 1)
            .collect();
        assert_eq!((got, got_keep), (want, want_keep), "case {case}");
    }
}
