//! Tests of the knapsack kernel (`kernel.rs`): the blocked row updates
//! against the spec's loop, saturation, and the guard.

use super::{fill, reconstruct, solve, Blocks, Cell, Layout};
use crate::dp::blocks::blocks_portable;
use crate::dp::testing::Rng;

/// docs/specs/knapsack-slice.md's steps 4 and 5 verbatim: one `bool` per cell,
/// `i64` values added with saturation, the in-place descending loop.
fn reference(weights: &[usize], values: &[i64], capacity: usize) -> (Vec<Vec<bool>>, Vec<usize>) {
    let mut dp = vec![0i64; capacity + 1];
    let mut keep = vec![vec![false; capacity + 1]; weights.len()];
    for (i, (&dw, &dv)) in weights.iter().zip(values).enumerate() {
        for w in (dw..=capacity).rev() {
            let with = dp[w - dw].saturating_add(dv);
            if with > dp[w] {
                dp[w] = with;
                keep[i][w] = true;
            }
        }
    }
    let mut chosen = Vec::new();
    let mut remaining = capacity;
    for i in (0..weights.len()).rev() {
        if keep[i][remaining] {
            chosen.push(i);
            remaining -= weights[i];
        }
    }
    (keep, chosen)
}

/// A random instance: many ties (a small palette of values) or none,
/// weights from 1 to well past 64, capacities around multiples of 64.
fn instance(rng: &mut Rng) -> (Vec<usize>, Vec<i64>, usize) {
    let capacity = match rng.below(4) {
        0 => 1 + rng.below(70),
        1 => 64 * (1 + rng.below(6)) + rng.below(3) - 1,
        _ => 1 + rng.below(700),
    };
    let n = 1 + rng.below(if capacity > 300 { 40 } else { 80 });
    let max_weight = match rng.below(3) {
        0 => 4,
        1 => 70,
        _ => capacity,
    }
    .min(capacity);
    let palette = rng.below(2) == 0;
    let weights = (0..n).map(|_| 1 + rng.below(max_weight)).collect();
    let values = (0..n)
        .map(|_| {
            let v = if palette {
                [1, 2, 5, 10, 10_000][rng.below(5)]
            } else {
                1 + rng.below(10_000)
            };
            i64::try_from(v).unwrap()
        })
        .collect();
    (weights, values, capacity)
}

fn table<V: Cell>(
    weights: &[usize],
    values: &[V],
    capacity: usize,
    blocks: Blocks<V>,
) -> (Vec<Vec<bool>>, Vec<usize>) {
    let layout = Layout::check(weights.len(), i64::try_from(capacity).unwrap(), u64::MAX).unwrap();
    let mut bits = layout.keep_table().unwrap();
    fill(
        weights,
        values,
        &layout,
        &mut bits,
        layout.value_row().unwrap(),
        blocks,
    );
    let wpr = layout.words_per_row;
    let keep = (0..weights.len())
        .map(|r| {
            (0..=capacity)
                .map(|w| bits[r * wpr + w / 64] >> (w % 64) & 1 == 1)
                .collect()
        })
        .collect();
    (keep, reconstruct(weights, &layout, &bits))
}

fn kernels() -> Vec<(&'static str, Blocks<i32>)> {
    #[allow(unused_mut)] // no SIMD kernel on other targets
    let mut k: Vec<(&'static str, Blocks<i32>)> = vec![("portable", blocks_portable::<i32>)];
    #[cfg(target_arch = "wasm32")]
    k.push(("simd128", crate::dp::blocks::blocks_simd128));
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        k.push(("avx2", crate::dp::blocks::blocks_avx2));
    }
    k
}

/// Every keep bit of every kernel, and of the `i64` path, equals the
/// spec's loop.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_keep_bit_matches_the_spec_loop() {
    let mut rng = Rng(0x4B4E_4150);
    for case in 0..1_500 {
        let (weights, values, capacity) = instance(&mut rng);
        let expected = reference(&weights, &values, capacity);
        let v32: Vec<i32> = values.iter().map(|&v| i32::try_from(v).unwrap()).collect();
        for (name, blocks) in kernels() {
            assert_eq!(
                table(&weights, &v32, capacity, blocks),
                expected,
                "case {case}, {name}"
            );
        }
        assert_eq!(
            table(&weights, &values, capacity, blocks_portable::<i64>),
            expected,
            "case {case}, i64"
        );
        assert_eq!(
            solve(
                &weights,
                &values,
                i64::try_from(capacity).unwrap(),
                u64::MAX
            )
            .unwrap(),
            expected.1
        );
    }
}

/// Saturated sums (values near `i64::MAX`) take the `i64` path and still
/// match, including above the prefix weight sum where nothing is kept once
/// the total has saturated.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn saturating_values_match_the_spec_loop() {
    let mut rng = Rng(0x5A7);
    for case in 0..400 {
        let (weights, mut values, capacity) = instance(&mut rng);
        for v in &mut values {
            *v = match rng.below(4) {
                0 => i64::MAX,
                1 => i64::MAX / 3,
                2 => 3_000_000_000,
                _ => *v,
            };
        }
        let expected = reference(&weights, &values, capacity);
        assert_eq!(
            table(&weights, &values, capacity, blocks_portable::<i64>),
            expected,
            "case {case}"
        );
        assert_eq!(
            solve(
                &weights,
                &values,
                i64::try_from(capacity).unwrap(),
                u64::MAX
            )
            .unwrap(),
            expected.1
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_guard_counts_bits_and_an_eight_byte_value_row() {
    // 3 rows × 2 words × 8 + 65 × 8 = 568 bytes.
    assert!(solve(&[1, 1, 1], &[1, 1, 1], 64, 568).is_ok());
    let err = solve(&[1, 1, 1], &[1, 1, 1], 64, 567).unwrap_err();
    assert_eq!(err.code(), "TABLE_TOO_LARGE");
}
