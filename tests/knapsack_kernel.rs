//! `KnapsackSlice` against docs/specs/knapsack-slice.md written out plainly: every
//! candidate a row (no rows left out, no capacity cap), one `bool` per cell,
//! `i64` values added with saturation, the in-place descending loop and the
//! reverse reconstruction.
//!
//! The fast kernel (32-bit values, SIMD blocks, in-place blocks, the fill
//! above the prefix weight sum, rows left out, the capacity cap) must give
//! the same selection, in the same order, on thousands of random instances:
//! many ties, zero and negative scores, huge scores (the `i64` path, and
//! saturation at `i64::MAX`), zero and negative token counts, capacities on
//! and off multiples of 64 and 16. Runs natively and, with
//! `wasm-bindgen-test-runner`, in wasm (the SIMD128 kernel).

mod common;

use common::{Rng, ScoreMode};
use ctxpack_core::{
    Budget, Decision, ExclusionReason, InclusionReason, Item, KnapsackSlice, Slicer,
};

/// The spec's `KNAPSACK-SLICE`, returning indexes in output order.
fn reference(items: &[Item<'_>], target: i64, bucket: i64) -> Vec<usize> {
    if items.is_empty() || target <= 0 {
        return Vec::new();
    }
    let mut result: Vec<usize> = Vec::new();
    let mut candidates = Vec::new();
    for (i, it) in items.iter().enumerate() {
        if it.tokens == 0 {
            result.push(i);
        } else if it.tokens > 0 {
            candidates.push(i);
        }
    }
    if candidates.is_empty() {
        return result;
    }
    let capacity = usize::try_from(target / bucket).expect("small capacity");
    if capacity == 0 {
        return result;
    }
    #[allow(clippy::cast_possible_truncation)] // `as` saturates, as the crate does
    let values: Vec<i64> = candidates
        .iter()
        .map(|&i| ((items[i].score * 10_000.0).floor() as i64).max(0))
        .collect();
    let weights: Vec<usize> = candidates
        .iter()
        .map(|&i| usize::try_from((items[i].tokens + bucket - 1) / bucket).expect("fits"))
        .collect();
    let mut dp = vec![0i64; capacity + 1];
    let mut keep = vec![vec![false; capacity + 1]; candidates.len()];
    for i in 0..candidates.len() {
        let (dw, dv) = (weights[i], values[i]);
        if dw > capacity {
            continue; // the loop `capacity downto dw` is empty
        }
        for w in (dw..=capacity).rev() {
            let with = dp[w - dw].saturating_add(dv);
            if with > dp[w] {
                dp[w] = with;
                keep[i][w] = true;
            }
        }
    }
    let mut remaining = capacity;
    for i in (0..candidates.len()).rev() {
        if keep[i][remaining] {
            result.push(candidates[i]);
            remaining -= weights[i];
        }
    }
    result
}

/// A score for the instance: mostly the common generators, plus the
/// extremes the kernel must handle.
fn score(rng: &mut Rng, mode: ScoreMode, huge: bool) -> f64 {
    match rng.below(if huge { 4 } else { 12 }) {
        0 => *rng.pick(&[0.0, -0.0, -0.5, 0.000_05, 0.999_99]),
        1 if huge => *rng.pick(&[1e6, 3e8, 1e12, 9.2e14, 1e15, 1e300, f64::MAX]),
        _ => common::score(rng, mode),
    }
}

struct Instance {
    items: Vec<Item<'static>>,
    target: i64,
    bucket: i64,
}

fn instance(rng: &mut Rng) -> Instance {
    let large = rng.chance(1, 12);
    let n = if large {
        rng.range_usize(100, 400)
    } else {
        rng.range_usize(0, 60)
    };
    let bucket = *rng.pick(&[1, 1, 1, 2, 3, 7, 16, 50, 100]);
    // Capacities around multiples of 64 and 16, and anywhere.
    let capacity = match rng.below(4) {
        0 => 64 * rng.range(0, 12) + rng.range(-1, 1),
        1 => 16 * rng.range(0, 40) + rng.range(-1, 1),
        _ if large => rng.range(0, 6_000),
        _ => rng.range(0, 900),
    }
    .max(0);
    let target = capacity * bucket + rng.range(0, bucket - 1);
    let mode = ScoreMode::random(rng);
    let huge = rng.chance(1, 6);
    // Token scales: tiny weights (many rows reach the capacity early) or
    // weights spread up to the capacity and past it.
    let max_tokens = match rng.below(3) {
        0 => 5 * bucket,
        1 => 70 * bucket,
        _ => (capacity * bucket).max(1) * 5 / 4,
    };
    let items = (0..n)
        .map(|_| {
            let tokens = match rng.below(16) {
                0 => 0,
                1 => -rng.range(1, 50),
                _ => rng.range(1, max_tokens.max(1)),
            };
            Item::new(tokens, score(rng, mode, huge))
        })
        .collect();
    Instance {
        items,
        target,
        bucket,
    }
}

/// The decisions the crate documents, given the selection.
fn expected_decision(it: &Item<'_>, target: i64, bucket: i64, selected: bool) -> Decision {
    match it.tokens {
        t if t < 0 => Decision::Excluded(ExclusionReason::NegativeTokens),
        _ if target <= 0 => Decision::Excluded(ExclusionReason::NoBudget),
        0 => Decision::Included(InclusionReason::ZeroTokens),
        _ if selected => Decision::Included(InclusionReason::Scored),
        t if (t + bucket - 1) / bucket > target / bucket => {
            Decision::Excluded(ExclusionReason::BudgetExceeded)
        }
        _ => Decision::Excluded(ExclusionReason::NotInOptimalSet),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn kernel_selects_exactly_as_the_plain_spec() {
    let mut large = 0;
    let mut huge = 0;
    let mut selected_some = 0;
    for k in 0..3_000u64 {
        let seed = 0x4B45_524E_0000 + k;
        let mut rng = Rng::new(seed);
        let inst = instance(&mut rng);
        let expected = reference(&inst.items, inst.target, inst.bucket);
        let got = KnapsackSlice::new(inst.bucket)
            .expect("positive bucket")
            .with_max_table_bytes(u64::MAX)
            .slice(&inst.items, &Budget::new(inst.target))
            .expect("valid input");
        assert_eq!(
            got.selected, expected,
            "seed {seed:#x}: target {}, bucket {}, items {:?}",
            inst.target, inst.bucket, inst.items
        );
        for (i, it) in inst.items.iter().enumerate() {
            let want = expected_decision(it, inst.target, inst.bucket, expected.contains(&i));
            assert_eq!(got.decisions[i], want, "seed {seed:#x}, item {i}");
        }
        large += usize::from(inst.items.len() >= 100);
        huge += usize::from(inst.items.iter().any(|it| it.score >= 1e6));
        selected_some += usize::from(expected.len() > 1);
    }
    // The generator reaches what it is meant to.
    assert!(
        large > 150 && huge > 300 && selected_some > 1_500,
        "{large} {huge} {selected_some}"
    );
}

/// Long rows of tiny items: most of each row lies above the prefix weight
/// sum, and every value ties.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ties_everywhere_above_the_prefix_sum() {
    for (n, target) in [
        (1, 64),
        (63, 63),
        (64, 64),
        (65, 65),
        (200, 1_000),
        (300, 4_097),
    ] {
        for score in [0.5, 1.0, 1e15, 1e300] {
            let items: Vec<Item<'static>> = (0..n)
                .map(|i| Item::new(1 + i64::from(i % 3 == 0), score))
                .collect();
            let got = KnapsackSlice::new(1)
                .expect("positive bucket")
                .slice(&items, &Budget::new(target))
                .expect("valid input");
            assert_eq!(
                got.selected,
                reference(&items, target, 1),
                "n {n}, target {target}, score {score}"
            );
        }
    }
}
