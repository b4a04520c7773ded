//! Oracle tests: `KnapsackSlice` against brute force over every subset, and
//! `GreedyPacker` against a direct transcription of the seed's Python
//! packer (docs/specs/greedy-knapsack-packer.md).
#![cfg(not(target_arch = "wasm32"))] // native dev-dependencies (cupel, proptest)

mod common;

use common::{Rng, ScoreMode};
use ctxpack_core::{
    Budget, Decision, ExclusionReason, GreedyPacker, Item, KnapsackSlice, Slicer as _,
};

/// The knapsack spec's value: `max(0, floor(score × 10000))`.
#[allow(clippy::cast_possible_truncation)] // scores here are small
fn scaled(score: f64) -> i64 {
    ((score * 10_000.0).floor() as i64).max(0)
}

/// The best total value over all subsets of the positive-token items whose
/// weights `ceil(tokens / bucket)` sum to at most `floor(target / bucket)`.
fn brute_force_best(items: &[Item<'_>], target: i64, bucket: i64) -> i64 {
    if target <= 0 {
        return 0;
    }
    let capacity = target / bucket;
    let (weights, values): (Vec<i64>, Vec<i64>) = items
        .iter()
        .filter(|it| it.tokens > 0)
        .map(|it| ((it.tokens + bucket - 1) / bucket, scaled(it.score)))
        .unzip();
    let subsets = 1usize << weights.len();
    // Sums of every subset, each from the subset without its lowest item.
    let mut weight = vec![0i64; subsets];
    let mut value = vec![0i64; subsets];
    let mut best = 0;
    for mask in 1..subsets {
        let low = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        weight[mask] = weight[rest] + weights[low];
        value[mask] = value[rest] + values[low];
        if weight[mask] <= capacity {
            best = best.max(value[mask]);
        }
    }
    best
}

fn random_knapsack_items(rng: &mut Rng) -> Vec<Item<'static>> {
    let n = if rng.chance(3, 4) {
        rng.range_usize(10, 14)
    } else {
        rng.range_usize(0, 14)
    };
    let mode = ScoreMode::random(rng);
    let max_tokens = *rng.pick(&[600, 200, 60]);
    (0..n)
        .map(|_| {
            let tokens = if rng.chance(1, 20) {
                -rng.range(1, 50) // excluded by every slicer
            } else {
                common::tokens(rng, max_tokens)
            };
            let score = match rng.below(20) {
                0 => -rng.unit(), // clamped to value 0
                1 => 1.0 + rng.unit(),
                _ => common::score(rng, mode),
            };
            Item::new(tokens, score)
        })
        .collect()
}

fn check_knapsack_against_brute_force(seed: u64, bucket: i64) {
    let mut rng = Rng::new(seed);
    let items = random_knapsack_items(&mut rng);
    let total: i64 = items.iter().map(|it| it.tokens.max(0)).sum();
    // Targets around the interesting range: below, near and above the total.
    let target = match rng.below(8) {
        0 => rng.range(-50, 0),
        1 => total + rng.range(0, 100),
        _ => rng.range(1, (total * 3 / 4).max(1)),
    };
    let context = format!("seed {seed:#x}, bucket {bucket}, target {target}: {items:?}");
    let s = KnapsackSlice::new(bucket)
        .unwrap()
        .slice(&items, &Budget::new(target))
        .unwrap_or_else(|e| panic!("{context}: {e}"));

    let value: i64 = s
        .selected
        .iter()
        .filter(|&&i| items[i].tokens > 0)
        .map(|&i| scaled(items[i].score))
        .sum();
    assert_eq!(value, brute_force_best(&items, target, bucket), "{context}");
    if target <= 0 {
        assert!(s.selected.is_empty(), "{context}");
        return;
    }
    assert!(s.total_tokens <= target, "{context}");
    let weight: i64 = s
        .selected
        .iter()
        .map(|&i| (items[i].tokens + bucket - 1) / bucket)
        .sum();
    assert!(weight <= target / bucket, "{context}");
    for (i, it) in items.iter().enumerate() {
        let chosen = s.selected.contains(&i);
        match it.tokens {
            t if t < 0 => assert!(!chosen, "{context}: negative {i}"),
            0 => assert!(chosen, "{context}: zero-token {i}"),
            _ => {}
        }
    }
}

#[test]
fn knapsack_bucket_1_is_optimal() {
    for k in 0..2_500 {
        check_knapsack_against_brute_force(0x0AC1_E000 + k, 1);
    }
}

/// With a bucket above 1 the DP is optimal for the discretised problem
/// (ceil weights, floor capacity).
#[test]
fn knapsack_is_optimal_for_the_discretised_problem() {
    for k in 0..1_200 {
        let bucket = [7, 50, 100][usize::try_from(k % 3).unwrap()];
        check_knapsack_against_brute_force(0xD15C_0000 + k, bucket);
    }
}

/// The seed's `PackedMemories`.
#[derive(Debug, PartialEq)]
struct Packed {
    memories: Vec<usize>,
    total_tokens: i64,
    total_score: f64,
    skipped_count: usize,
    was_budget_reached: bool,
    /// The index at which the walk broke off, if it did (not in the seed;
    /// used to check the decisions).
    stopped_at: Option<usize>,
}

/// `GreedyKnapsackPacker.pack`, transcribed line by line, with
/// `MAX_CONSECUTIVE_SKIPS` a parameter (`0` = never stop) and the token
/// counts given. `total_score` is left unrounded (the seed applies
/// `round(…, 6)` for display).
fn seed_pack(tokens: &[i64], scores: &[f64], token_budget: i64, max_skips: usize) -> Packed {
    if token_budget <= 0 || tokens.is_empty() {
        return Packed {
            memories: vec![],
            total_tokens: 0,
            total_score: 0.0,
            skipped_count: tokens.len(),
            was_budget_reached: false,
            stopped_at: None,
        };
    }
    let mut packed = Vec::new();
    let mut tokens_used = 0;
    let mut total_score = 0.0;
    let mut consecutive_skips = 0;
    let mut skipped_count = 0;
    let mut was_budget_reached = false;
    let mut stopped_at = None;
    for (i, (&memory_tokens, &score)) in tokens.iter().zip(scores).enumerate() {
        if tokens_used + memory_tokens <= token_budget {
            packed.push(i);
            tokens_used += memory_tokens;
            total_score += score;
            consecutive_skips = 0;
        } else {
            skipped_count += 1;
            consecutive_skips += 1;
            was_budget_reached = true;
            if max_skips != 0 && consecutive_skips >= max_skips {
                skipped_count += tokens.len() - packed.len() - skipped_count;
                stopped_at = Some(i);
                break;
            }
        }
    }
    Packed {
        memories: packed,
        total_tokens: tokens_used,
        total_score,
        skipped_count,
        was_budget_reached,
        stopped_at,
    }
}

#[test]
#[allow(clippy::float_cmp)] // the score sums must agree to the last bit
fn packer_matches_seed_transcription() {
    let (mut stopped, mut budget_reached, mut no_budget) = (0, 0, 0);
    for k in 0..3_000u64 {
        let seed = 0x9AC4_E800 + k;
        let mut rng = Rng::new(seed);
        let n = rng.range_usize(0, 40);
        let mode = ScoreMode::random(&mut rng);
        let max_tokens = *rng.pick(&[600, 600, 200, 50]);
        // The seed packs non-negative token counts; ctxpack's exclusion of
        // negative ones is outside the seed (see tests/properties.rs).
        let mut items: Vec<Item> = (0..n)
            .map(|_| {
                Item::new(
                    common::tokens(&mut rng, max_tokens),
                    common::score(&mut rng, mode),
                )
            })
            .collect();
        if rng.chance(1, 2) {
            // As the scorer hands them over: score descending.
            items.sort_by(|a, b| b.score.total_cmp(&a.score));
        }
        let budget = if rng.chance(1, 15) {
            rng.range(-100, 0)
        } else {
            common::target(&mut rng)
        };
        let max_skips = rng.range_usize(0, 4);

        let tokens: Vec<i64> = items.iter().map(|it| it.tokens).collect();
        let scores: Vec<f64> = items.iter().map(|it| it.score).collect();
        let want = seed_pack(&tokens, &scores, budget, max_skips);
        let packer = GreedyPacker::new(u32::try_from(max_skips).unwrap());
        let got = packer.slice(&items, &Budget::new(budget)).unwrap();
        let context = format!("seed {seed:#x}, budget {budget}, max_skips {max_skips}: {items:?}");

        assert_eq!(got.selected, want.memories, "{context}");
        assert_eq!(got.total_tokens, want.total_tokens, "{context}");
        // Same additions in the same order: equal to the last bit (the
        // seed's round(…, 6) is display only).
        assert_eq!(got.total_score, want.total_score, "{context}");
        assert_eq!(got.excluded_count(), want.skipped_count, "{context}");
        assert_eq!(got.budget_reached, want.was_budget_reached, "{context}");
        assert!(!got.over_budget && got.overrun_tokens == 0, "{context}");

        // The reasons agree with where the seed's walk was.
        for (i, d) in got.decisions.iter().enumerate() {
            let expected = if want.memories.contains(&i) {
                continue;
            } else if budget <= 0 {
                ExclusionReason::NoBudget
            } else if want.stopped_at.is_some_and(|s| i > s) {
                ExclusionReason::SkipLimitReached
            } else {
                ExclusionReason::BudgetExceeded
            };
            assert_eq!(*d, Decision::Excluded(expected), "{context}: item {i}");
        }

        stopped += usize::from(want.stopped_at.is_some());
        budget_reached += usize::from(want.was_budget_reached);
        no_budget += usize::from(budget <= 0 && n > 0);
    }
    assert!(
        stopped > 300 && budget_reached > 1_000 && no_budget > 100,
        "{stopped} {budget_reached} {no_budget}"
    );
}
