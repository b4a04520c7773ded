//! `ExactKnapsackSlice`: brute force on every subset for n <= 16, the
//! bucket-1 `KnapsackSlice` (a plain DP at token precision) as the oracle
//! on larger instances, never worse than `KnapsackSlice` (any bucket) or
//! `GreedySlice`, properties on arbitrary input, the guards and the
//! fallback, and a realistic 10k-item instance within the guards.
#![cfg(not(target_arch = "wasm32"))] // native dev-dependencies (proptest)

mod common;

use common::{Rng, ScoreMode};
use ctxpack_core::{
    Budget, CtxpackError, Decision, ExactKnapsackSlice, ExclusionReason, FallbackReason,
    GreedySlice, InclusionReason, Item, KnapsackSlice, Selection, Slicer as _, Solver,
};
use proptest::prelude::*;

/// The knapsack spec's value: `max(0, floor(score × 10000))`, saturating.
#[allow(clippy::cast_possible_truncation)] // `as` saturates, as the crate's
fn scaled(score: f64) -> i64 {
    ((score * 10_000.0).floor() as i64).max(0)
}

fn value(items: &[Item<'_>], s: &Selection) -> i64 {
    s.selected
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(scaled(items[i].score)))
}

/// The best total value over every subset of the non-negative-token items
/// whose tokens sum to at most `target` (zero-token items are free).
fn brute_force(items: &[Item<'_>], target: i64) -> i64 {
    if target <= 0 {
        return 0;
    }
    let free: i64 = items
        .iter()
        .filter(|it| it.tokens == 0)
        .map(|it| scaled(it.score))
        .sum();
    let (weights, values): (Vec<i64>, Vec<i64>) = items
        .iter()
        .filter(|it| it.tokens > 0)
        .map(|it| (it.tokens, scaled(it.score)))
        .unzip();
    let subsets = 1usize << weights.len();
    let mut weight = vec![0i64; subsets];
    let mut val = vec![0i64; subsets];
    let mut best = 0;
    for mask in 1..subsets {
        let low = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        weight[mask] = weight[rest] + weights[low];
        val[mask] = val[rest] + values[low];
        if weight[mask] <= target {
            best = best.max(val[mask]);
        }
    }
    best + free
}

/// Everything a selection of the exact slice must satisfy, whatever the
/// solver: decisions consistent with `selected`, the output order, the
/// budget, the reasons of excluded items, and the report's value.
fn check_shape(items: &[Item<'_>], budget: &Budget, s: &Selection) {
    let target = budget.target_tokens();
    assert_eq!(s.decisions.len(), items.len());
    let mut seen = vec![false; items.len()];
    for &i in &s.selected {
        assert!(!seen[i], "index {i} twice");
        seen[i] = true;
    }
    for (i, d) in s.decisions.iter().enumerate() {
        assert_eq!(d.is_included(), seen[i], "decision of item {i}: {d:?}");
        let it = items[i];
        if it.tokens < 0 {
            assert_eq!(*d, Decision::Excluded(ExclusionReason::NegativeTokens));
        } else if target <= 0 {
            assert_eq!(*d, Decision::Excluded(ExclusionReason::NoBudget));
        } else if it.tokens == 0 {
            assert_eq!(*d, Decision::Included(InclusionReason::ZeroTokens));
        } else if it.tokens > target {
            assert_eq!(*d, Decision::Excluded(ExclusionReason::BudgetExceeded));
        }
    }
    // Output order: zero-token items, then the rest, each in input order.
    let keys: Vec<(bool, usize)> = s
        .selected
        .iter()
        .map(|&i| (items[i].tokens != 0, i))
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "order {:?}",
        s.selected
    );
    let tokens: i64 = s.selected.iter().map(|&i| items[i].tokens).sum();
    assert_eq!(s.total_tokens, tokens);
    assert!(
        target <= 0 || tokens <= target,
        "{tokens} tokens over {target}"
    );
    assert!(!s.over_budget);
    let report = s.exact.expect("the exact slice reports");
    assert_eq!(report.value, value(items, s));
}

fn random_items(rng: &mut Rng, n: usize, max_tokens: i64) -> Vec<Item<'static>> {
    let mode = ScoreMode::random(rng);
    (0..n)
        .map(|_| {
            let tokens = if rng.chance(1, 25) {
                -rng.range(1, 50)
            } else {
                common::tokens(rng, max_tokens)
            };
            Item::new(tokens, common::score(rng, mode))
        })
        .collect()
}

#[test]
fn agrees_with_brute_force_on_small_instances() {
    let slice = ExactKnapsackSlice::new();
    let mut exact_runs = 0;
    for seed in 0..6000u64 {
        let mut rng = Rng::new(seed);
        let n = rng.range_usize(0, 16);
        let max_tokens = *rng.pick(&[600, 200, 60, 10]);
        let items = random_items(&mut rng, n, max_tokens);
        let target = if rng.chance(1, 4) {
            common::target(&mut rng)
        } else {
            // Up to the total: the hard region is around half of it.
            let total: i64 = items.iter().map(|it| it.tokens.max(0)).sum();
            rng.range(0, total.max(1))
        };
        let budget = Budget::new(target);
        let s = slice.slice(&items, &budget).unwrap();
        check_shape(&items, &budget, &s);
        let report = s.exact.unwrap();
        assert_eq!(report.solver, Solver::Exact, "seed {seed}");
        assert_eq!(
            report.value,
            brute_force(&items, target),
            "seed {seed}: {items:?} target {target}"
        );
        exact_runs += 1;
    }
    assert_eq!(exact_runs, 6000);
}

#[test]
fn agrees_with_the_bucket_one_dp_on_larger_instances() {
    // KnapsackSlice with bucket 1 is a plain DP at token precision: its
    // value is the optimum.
    let slice = ExactKnapsackSlice::new();
    let dp = KnapsackSlice::new(1).unwrap();
    for seed in 0..1500u64 {
        let mut rng = Rng::new(1_000_000 + seed);
        let n = rng.range_usize(17, 300);
        let max_tokens = *rng.pick(&[600, 200, 60, 3000]);
        let mut items = random_items(&mut rng, n, max_tokens);
        if rng.chance(1, 4) {
            // Strongly correlated values: the hard case for bounds.
            for it in &mut items {
                if it.tokens > 0 {
                    it.score =
                        (f64::from(u32::try_from(it.tokens.min(1000)).unwrap()) + 100.0) / 2000.0;
                }
            }
        }
        let total: i64 = items.iter().map(|it| it.tokens.max(0)).sum();
        let target = rng.range(0, (total / 2).clamp(1, 20_000));
        let budget = Budget::new(target);
        let s = slice.slice(&items, &budget).unwrap();
        check_shape(&items, &budget, &s);
        assert_eq!(s.exact.unwrap().solver, Solver::Exact, "seed {seed}");
        let best = dp.slice(&items, &budget).unwrap();
        assert_eq!(s.exact.unwrap().value, value(&items, &best), "seed {seed}");
    }
}

#[test]
fn never_loses_to_knapsack_or_greedy() {
    let slice = ExactKnapsackSlice::new();
    for seed in 0..1500u64 {
        let mut rng = Rng::new(2_000_000 + seed);
        let n = rng.range_usize(0, 120);
        let max_tokens = *rng.pick(&[600, 200, 60, 2500]);
        let items = random_items(&mut rng, n, max_tokens);
        let target = common::target(&mut rng) * rng.range(1, 5);
        let budget = Budget::new(target);
        let s = slice.slice(&items, &budget).unwrap();
        check_shape(&items, &budget, &s);
        let v = s.exact.unwrap().value;
        let greedy = GreedySlice.slice(&items, &budget).unwrap();
        assert!(v >= value(&items, &greedy), "seed {seed}: greedy wins");
        for bucket in [1, 2, 7, 50, 100, 333] {
            let k = KnapsackSlice::new(bucket)
                .unwrap()
                .slice(&items, &budget)
                .unwrap();
            assert!(v >= value(&items, &k), "seed {seed}: bucket {bucket} wins");
        }
    }
}

#[test]
fn edge_cases() {
    let slice = ExactKnapsackSlice::new();
    // Empty input, zero and negative targets.
    let s = slice.slice(&[], &Budget::new(100)).unwrap();
    assert!(s.selected.is_empty());
    let items = [Item::new(0, 0.5), Item::new(10, 0.5), Item::new(-3, 0.9)];
    for target in [0, -5] {
        let s = slice.slice(&items, &Budget::new(target)).unwrap();
        assert!(s.selected.is_empty());
        assert_eq!(s.decisions[0].code(), "no_budget");
        assert_eq!(s.decisions[2].code(), "negative_tokens");
    }
    // Everything fits: all valued items in input order after zero-token ones.
    let items = [
        Item::new(5, 0.1),
        Item::new(0, 0.0),
        Item::new(7, 0.0),
        Item::new(3, 0.2),
    ];
    let s = slice.slice(&items, &Budget::new(100)).unwrap();
    assert_eq!(s.selected, [1, 0, 3]);
    assert_eq!(s.decisions[2].code(), "not_in_optimal_set"); // value 0
                                                             // Too large on its own.
    let s = slice
        .slice(&[Item::new(101, 1.0)], &Budget::new(100))
        .unwrap();
    assert_eq!(s.decisions[0].code(), "budget_exceeded");
    // NaN refused with its index.
    let err = slice
        .slice(
            &[Item::new(1, 0.1), Item::new(1, f64::NAN)],
            &Budget::new(10),
        )
        .unwrap_err();
    assert!(matches!(err, CtxpackError::InvalidScore { index: 1, .. }));
}

#[test]
fn extreme_values_do_not_panic() {
    let slice = ExactKnapsackSlice::new();
    let huge = [
        Item::new(i64::MAX, 1.0),
        Item::new(i64::MAX / 2, 0.5),
        Item::new(i64::MAX / 2, 0.7),
        Item::new(1, 1e300),
        Item::new(2, -1e300),
        Item::new(i64::MAX / 3, 1e15),
    ];
    for target in [1, 2, 3, i64::MAX / 2, i64::MAX - 1, i64::MAX] {
        let budget = Budget::new(target);
        match slice.slice(&huge, &budget) {
            Ok(s) => check_shape(&huge, &budget, &s),
            Err(e) => assert_eq!(e.code(), "TABLE_TOO_LARGE"),
        }
    }
    // Values past the exact range fall back, still within the budget.
    let items = vec![Item::new(3, 1e15); 40];
    let s = slice.slice(&items, &Budget::new(50)).unwrap();
    check_shape(&items, &Budget::new(50), &s);
    assert!(matches!(
        s.exact.unwrap().solver,
        Solver::BucketedFallback {
            reason: FallbackReason::ValueRange,
            ..
        }
    ));
    // Large scores inside the range stay exact.
    let items: Vec<_> = (1..30u32)
        .map(|t| Item::new(i64::from(t), 1e9 + f64::from(t)))
        .collect();
    let s = slice.slice(&items, &Budget::new(100)).unwrap();
    assert_eq!(s.exact.unwrap().solver, Solver::Exact);
    let dp = KnapsackSlice::new(1)
        .unwrap()
        .slice(&items, &Budget::new(100))
        .unwrap();
    assert_eq!(s.exact.unwrap().value, value(&items, &dp));
}

#[test]
fn guards_fall_back_to_the_bucketed_dp_and_say_so() {
    // Strongly correlated values (score grows with tokens): many states.
    let mut rng = Rng::new(7);
    let items: Vec<_> = (0..400)
        .map(|_| {
            let t = rng.range(100, 600);
            Item::new(t, (f64::from(u32::try_from(t).unwrap()) + 100.0) / 2000.0)
        })
        .collect();
    let budget = Budget::new(40_001);
    let exact = ExactKnapsackSlice::new().slice(&items, &budget).unwrap();
    let report = exact.exact.unwrap();
    assert_eq!(report.solver, Solver::Exact);
    assert!(
        report.work > 5_000 && report.peak_states > 100,
        "{report:?}"
    );

    let s = ExactKnapsackSlice::new()
        .with_max_states(2)
        .slice(&items, &budget)
        .unwrap();
    check_shape(&items, &budget, &s);
    let Solver::BucketedFallback {
        bucket_size,
        reason,
    } = s.exact.unwrap().solver
    else {
        panic!("expected a fallback");
    };
    assert_eq!(reason, FallbackReason::StateLimit);
    // The fallback's selection is KnapsackSlice's with that bucket.
    let k = KnapsackSlice::new(bucket_size)
        .unwrap()
        .slice(&items, &budget)
        .unwrap();
    let mut ks = k.selected.clone();
    ks.sort_by_key(|&i| (items[i].tokens != 0, i));
    assert_eq!(s.selected, ks);
    assert_eq!(s.decisions, k.decisions);

    // A work limit: the fallback's bucket makes its cells fit it too.
    let s = ExactKnapsackSlice::new()
        .with_max_work(5_000)
        .slice(&items, &budget)
        .unwrap();
    check_shape(&items, &budget, &s);
    let Solver::BucketedFallback {
        bucket_size,
        reason,
    } = s.exact.unwrap().solver
    else {
        panic!("expected a fallback");
    };
    assert_eq!(reason, FallbackReason::WorkLimit);
    assert!(400 * (40_001 / bucket_size + 1) <= 5_000);
    assert!(400 * (40_001 / (bucket_size - 1) + 1) > 5_000);

    // The same guards give the same answer every time.
    let again = ExactKnapsackSlice::new()
        .with_max_work(5_000)
        .slice(&items, &budget)
        .unwrap();
    assert_eq!(again, s);
}

/// A standard normal sample (Box–Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = rng.unit().max(1e-300);
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Token-like instance: log-normal token counts with median ~300, scores
/// uniform in [0, 1], a few zero-token items.
#[allow(clippy::cast_possible_truncation)] // bounded by the clamp
pub fn realistic(seed: u64, n: usize) -> Vec<Item<'static>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let tokens = if rng.chance(1, 200) {
                0
            } else {
                (300.0 * (0.9 * normal(&mut rng)).exp())
                    .round()
                    .clamp(1.0, 50_000.0) as i64
            };
            Item::new(tokens, rng.unit())
        })
        .collect()
}

#[test]
fn realistic_10k_items_at_128k_tokens_solve_exactly_within_the_guards() {
    for seed in 0..3 {
        let items = realistic(seed, 10_000);
        let budget = Budget::new(128_000);
        let s = ExactKnapsackSlice::new().slice(&items, &budget).unwrap();
        check_shape(&items, &budget, &s);
        let report = s.exact.unwrap();
        assert_eq!(report.solver, Solver::Exact, "seed {seed}");
        // Far inside the default guards.
        assert!(
            report.work < ctxpack_core::DEFAULT_MAX_WORK / 20,
            "work {}",
            report.work
        );
        assert!(
            report.peak_states < ctxpack_core::DEFAULT_MAX_STATES / 20,
            "states {}",
            report.peak_states
        );
        let k = KnapsackSlice::default().slice(&items, &budget).unwrap();
        let g = GreedySlice.slice(&items, &budget).unwrap();
        assert!(report.value >= value(&items, &k).max(value(&items, &g)));
    }
}

#[test]
fn realistic_100k_items_at_1m_tokens_solve_exactly_within_the_guards() {
    let items = realistic(42, 100_000);
    let budget = Budget::new(1_000_000);
    let s = ExactKnapsackSlice::new().slice(&items, &budget).unwrap();
    check_shape(&items, &budget, &s);
    let report = s.exact.unwrap();
    assert_eq!(report.solver, Solver::Exact);
    assert!(
        report.work < ctxpack_core::DEFAULT_MAX_WORK / 4,
        "work {}",
        report.work
    );
    let g = GreedySlice.slice(&items, &budget).unwrap();
    assert!(report.value >= value(&items, &g));
}

fn prop_items() -> impl Strategy<Value = Vec<Item<'static>>> {
    let tokens = prop_oneof![
        1 => Just(0i64),
        1 => -100i64..0,
        2 => 1i64..30,
        6 => 1i64..600,
    ];
    let score = prop_oneof![
        6 => 0.0f64..=1.0,
        1 => -5.0f64..5.0,
        1 => prop::sample::select(vec![0.0, -0.0, 0.25, 0.5, 1.0]),
    ];
    prop::collection::vec((tokens, score), 0..60)
        .prop_map(|v| v.into_iter().map(|(t, s)| Item::new(t, s)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn fits_the_budget_and_is_deterministic(items in prop_items(), target in -10i64..8000) {
        let budget = Budget::new(target);
        let s = ExactKnapsackSlice::new().slice(&items, &budget).unwrap();
        check_shape(&items, &budget, &s);
        prop_assert_eq!(s.exact.unwrap().solver, Solver::Exact);
        prop_assert_eq!(&ExactKnapsackSlice::new().slice(&items, &budget).unwrap(), &s);
        // Optimal: the bucket-1 DP finds no better value.
        let dp = KnapsackSlice::new(1).unwrap().slice(&items, &budget).unwrap();
        prop_assert_eq!(s.exact.unwrap().value, value(&items, &dp));
    }

    #[test]
    fn a_larger_budget_never_gives_less(items in prop_items(), target in 0i64..5000, extra in 0i64..2000) {
        let a = ExactKnapsackSlice::new().slice(&items, &Budget::new(target)).unwrap();
        let b = ExactKnapsackSlice::new().slice(&items, &Budget::new(target + extra)).unwrap();
        prop_assert!(b.exact.unwrap().value >= a.exact.unwrap().value);
    }
}

/// Native timings (`cargo test --release --test exact -- --ignored --nocapture`).
#[test]
#[ignore = "timing report, not a check"]
fn timing() {
    for (n, target, seeds) in [(10_000usize, 128_000i64, 20u64), (100_000, 1_000_000, 5)] {
        let mut times = Vec::new();
        for seed in 0..seeds {
            let items = realistic(seed, n);
            let start = std::time::Instant::now();
            let s = ExactKnapsackSlice::new()
                .slice(&items, &Budget::new(target))
                .unwrap();
            times.push(start.elapsed().as_secs_f64() * 1e3);
            let r = s.exact.unwrap();
            println!(
                "n={n} target={target} seed={seed}: {:.3} ms, work {}, peak {}, {:?}",
                times[times.len() - 1],
                r.work,
                r.peak_states,
                r.solver
            );
        }
        times.sort_by(f64::total_cmp);
        println!(
            "n={n} target={target}: median {:.3} ms, max {:.3} ms",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    // Strongly correlated values (score grows with tokens): the hard case.
    for (n, target) in [(10_000usize, 128_000i64), (100_000, 1_000_000)] {
        let mut rng = Rng::new(1);
        let items: Vec<_> = (0..n)
            .map(|_| {
                let t = rng.range(100, 1000);
                Item::new(t, (f64::from(u32::try_from(t).unwrap()) + 100.0) / 2000.0)
            })
            .collect();
        let start = std::time::Instant::now();
        let s = ExactKnapsackSlice::new()
            .slice(&items, &Budget::new(target))
            .unwrap();
        let r = s.exact.unwrap();
        println!(
            "correlated n={n} target={target}: {:.3} ms, work {}, peak {}, {:?}",
            start.elapsed().as_secs_f64() * 1e3,
            r.work,
            r.peak_states,
            r.solver
        );
    }
}

#[test]
fn budget_curves_equal_a_rerun_at_every_budget() {
    for seed in 0..60u64 {
        let mut rng = Rng::new(5_000_000 + seed);
        let n = rng.range_usize(0, 25);
        let max_tokens = *rng.pick(&[600, 60]);
        let items = random_items(&mut rng, n, max_tokens);
        let max_budget = rng.range(0, 1500);
        let exact = ExactKnapsackSlice::new();
        let curve = exact.budget_curve(&items, max_budget).unwrap();
        assert_eq!(curve.len(), usize::try_from(max_budget).unwrap() + 1);
        for (t, &v) in (0i64..).zip(&curve) {
            let s = exact.slice(&items, &Budget::new(t)).unwrap();
            assert_eq!(v, s.exact.unwrap().value, "seed {seed} exact at {t}");
        }
        for bucket in [1, 7, 100] {
            let k = KnapsackSlice::new(bucket).unwrap();
            let curve = k.budget_curve(&items, max_budget).unwrap();
            for (t, &v) in (0i64..).zip(&curve) {
                let s = k.slice(&items, &Budget::new(t)).unwrap();
                assert_eq!(v, value(&items, &s), "seed {seed} bucket {bucket} at {t}");
            }
        }
        assert!(curve.windows(2).skip(1).all(|w| w[0] <= w[1]));
    }
    // A negative ceiling has no budgets; the guards refuse what is too large.
    let items = vec![Item::new(3, 0.5); 100];
    assert!(ExactKnapsackSlice::new()
        .budget_curve(&items, -1)
        .unwrap()
        .is_empty());
    let err = ExactKnapsackSlice::new()
        .with_max_work(1000)
        .budget_curve(&items, 1000)
        .unwrap_err();
    assert_eq!(err.code(), "TABLE_TOO_LARGE");
    let err = KnapsackSlice::new(1)
        .unwrap()
        .with_max_table_bytes(1000)
        .budget_curve(&items, 1000)
        .unwrap_err();
    assert_eq!(err.code(), "TABLE_TOO_LARGE");
}

/// Issue 17: the exact slice chooses its fallback's bucket itself, so its
/// `TABLE_TOO_LARGE` advises only the limit, never a bucket size it has no
/// option for.
#[test]
fn the_fallback_table_error_advises_only_the_limit() {
    let items: Vec<Item<'static>> = (0..40).map(|i| Item::new(50 + i, 0.5)).collect();
    let err = ExactKnapsackSlice::new()
        .with_max_states(1)
        .with_max_table_bytes(64)
        .slice(&items, &Budget::new(1000))
        .unwrap_err();
    assert_eq!(err.code(), "TABLE_TOO_LARGE");
    let msg = err.to_string();
    assert!(
        msg.ends_with("over the limit of 64 bytes; raise max_table_bytes"),
        "{msg}"
    );
    let err = KnapsackSlice::new(1)
        .unwrap()
        .with_max_table_bytes(64)
        .slice(&items, &Budget::new(1000))
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("; raise bucket_size or max_table_bytes"),
        "{err}"
    );
}
