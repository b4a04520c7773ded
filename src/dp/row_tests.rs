//! Tests of the shared row update (`row.rs`): in place and from another
//! row, with and without keep bits, for each cell type and block form,
//! against the plain 0/1 loop on random rows; and the class row with one
//! version against the 0/1 update.

use super::class_row;
use crate::dp::blocks::blocks_portable;
use crate::dp::cell::Cell;
use crate::dp::testing::{check_rows as check, plain, Rng};

/// `i32` cells: large, small (ties) and negative ones (the exact
/// count-constrained DP's unreachable `i32::MIN` plus a small sum).
fn i32_cell(rng: &mut Rng) -> i32 {
    match rng.below(4) {
        0 => i32::MIN + i32::try_from(rng.below(1_000)).unwrap(),
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

/// `i64` cells: ties and sums that saturate at `i64::MAX`, cell by cell and
/// in the portable blocks.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_i64_row_equals_the_plain_loop_and_saturates() {
    let cell = |rng: &mut Rng| match rng.below(4) {
        0 => i64::MAX - i64::try_from(rng.below(3)).unwrap(),
        1 => i64::try_from(rng.below(8)).unwrap(),
        _ => i64::try_from(rng.below(1_000_000)).unwrap(),
    };
    let gain = |rng: &mut Rng| match rng.below(3) {
        0 => i64::MAX / 2,
        _ => i64::try_from(rng.below(100_000)).unwrap(),
    };
    check("i64 cell by cell", i64::blocks(), cell, gain);
    check("i64 portable", Some(blocks_portable::<i64>), cell, gain);
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
