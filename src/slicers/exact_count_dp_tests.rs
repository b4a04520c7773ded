//! The count DP's cells in the shared row update (`dp::row`): unreachable
//! cells among reachable ones, against the plain 0/1 loop, in place and
//! from another row, for each cell type; and unreachable stays so.

use super::{CountCell, Lex, Wide};
use crate::dp::cell::Cell;
use crate::dp::testing::{check_rows, Rng};

fn small(rng: &mut Rng, n: usize) -> i64 {
    i64::try_from(rng.below(n)).unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_count_cell_row_equals_the_plain_loop() {
    // i32: unreachable is NEG plus whatever sums reached it.
    check_rows(
        "i32",
        i32::blocks(),
        |rng| match rng.below(3) {
            0 => i32::NEG + i32::value(small(rng, 1_000)),
            _ => i32::value(small(rng, 1_000_000)),
        },
        |rng| i32::value(small(rng, 100_000)),
    );
    check_rows(
        "wide",
        Wide::blocks(),
        |rng| match rng.below(4) {
            0 => Wide::NEG,
            1 => Wide(i64::MAX - small(rng, 3)),
            _ => Wide(small(rng, 1_000_000)),
        },
        |rng| match rng.below(3) {
            0 => Wide(i64::MAX / 2),
            _ => Wide(small(rng, 100_000)),
        },
    );
    check_rows(
        "lex",
        Lex::blocks(),
        |rng| match rng.below(4) {
            0 => Lex::NEG,
            _ => Lex::value(small(rng, 1_000)).short(rng.below(3)),
        },
        |rng| Lex::value(small(rng, 1_000)),
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn unreachable_cells_stay_unreachable() {
    // i32: the largest sum the caller allows keeps NEG negative.
    let reached = i32::NEG.plus(i32::MAX);
    assert!(!reached.feasible() && i32::ZERO.beats(reached));
    let wide = Wide::NEG.plus(Wide(i64::MAX));
    assert!(!wide.feasible() && Wide::ZERO.beats(wide));
    let lex = Lex::NEG.plus(Lex::value(i64::MAX)).short(5);
    assert!(!lex.feasible() && Lex::ZERO.short(1_000).beats(lex));
    assert!(Wide(i64::MAX).plus(Wide(1)) == Wide(i64::MAX));
}
