//! Alternative versions (`Variants`, the multiple-choice knapsack): the
//! exact strategy against the optimum (brute force over every choice for
//! small instances, a plain DP over token counts for up to 12 items of up
//! to 3 versions), the bucketed one against the bucketed DP written
//! plainly, and properties every strategy keeps under groups, dependencies
//! and budgets (at most one version per item, groups whole, dependencies
//! closed, the budget held).
#![cfg(not(target_arch = "wasm32"))] // native dev-dependencies (proptest)
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::needless_range_loop,
    clippy::many_single_char_names,
    clippy::items_after_statements
)] // small test instances

mod common;

use common::Rng;
use ctxpack_core::{
    Budget, CountConstrainedKnapsackSlice, DependencyMode, ExactKnapsackSlice, ExclusionReason,
    FallbackReason, GreedyPacker, GroupedStrategy, Groups, Item, KnapsackSlice, Solver,
    VariantSelection, Variants,
};
use proptest::prelude::*;

fn scaled(score: f64) -> i64 {
    ((score * 10_000.0).floor() as i64).max(0)
}

/// A random instance: `n` items of 1 to 3 versions (tokens up to 60,
/// a palette of scores for ties), and a target.
fn instance(rng: &mut Rng, n: usize) -> (Vec<Item<'static>>, Variants, i64) {
    let score = |rng: &mut Rng| {
        if rng.chance(1, 2) {
            *rng.pick(&[0.0, 0.1, 0.25, 0.5, 0.9])
        } else {
            rng.unit()
        }
    };
    let items: Vec<Item<'static>> = (0..n)
        .map(|_| Item::new(rng.range(0, 60), score(rng)))
        .collect();
    let mut variants = Variants::new(n);
    for i in 0..n {
        for _ in 0..rng.index(3) {
            variants = variants.add(i, rng.range(0, 60), score(rng)).unwrap();
        }
    }
    let target = rng.range(0, 250);
    (items, variants, target)
}

/// Every version of item `i`: (tokens, score).
fn versions(items: &[Item<'_>], v: &Variants, i: usize) -> Vec<(i64, f64)> {
    let mut all = vec![(items[i].tokens, items[i].score)];
    all.extend_from_slice(v.versions(i));
    all
}

/// The optimum by a plain DP over exact token counts: `best[c]` over the
/// items so far, each item taken in at most one version.
fn optimum(items: &[Item<'_>], v: &Variants, target: i64) -> i64 {
    let cap = target.max(0) as usize;
    let mut best = vec![0i64; cap + 1];
    for i in 0..items.len() {
        let old = best.clone();
        for (t, s) in versions(items, v, i) {
            let t = t as usize;
            for c in t..=cap {
                best[c] = best[c].max(old[c - t] + scaled(s));
            }
        }
    }
    best[cap]
}

/// The optimum by enumerating every choice (small `n` only).
fn brute_force(items: &[Item<'_>], v: &Variants, target: i64) -> i64 {
    fn go(i: usize, all: &[Vec<(i64, f64)>], left: i64, value: i64, best: &mut i64) {
        if i == all.len() {
            *best = (*best).max(value);
            return;
        }
        go(i + 1, all, left, value, best);
        for &(t, s) in &all[i] {
            if t <= left {
                go(i + 1, all, left - t, value + scaled(s), best);
            }
        }
    }
    let all: Vec<_> = (0..items.len()).map(|i| versions(items, v, i)).collect();
    let mut best = 0;
    if target > 0 {
        go(0, &all, target, 0, &mut best);
    }
    best
}

fn value(items: &[Item<'_>], v: &Variants, s: &VariantSelection) -> i64 {
    (0..items.len())
        .filter_map(|i| s.version[i].map(|k| scaled(versions(items, v, i)[k].1)))
        .sum()
}

/// The structural promises of every slice: a version for exactly the
/// selected items, each selected once, the totals over those versions.
fn check_shape(items: &[Item<'_>], v: &Variants, s: &VariantSelection, target: i64, name: &str) {
    let mut seen = vec![false; items.len()];
    for &i in &s.selection.selected {
        assert!(!seen[i], "{name}: item {i} selected twice");
        seen[i] = true;
    }
    let mut tokens = 0;
    for i in 0..items.len() {
        assert_eq!(s.version[i].is_some(), seen[i], "{name}: item {i}");
        assert_eq!(
            s.selection.decisions[i].is_included(),
            seen[i],
            "{name}: item {i}"
        );
        if let Some(k) = s.version[i] {
            tokens += versions(items, v, i)[k].0;
        }
    }
    assert_eq!(s.selection.total_tokens, tokens, "{name}");
    assert!(
        target <= 0 || tokens <= target,
        "{name}: {tokens} over {target}"
    );
}

fn strategies() -> Vec<(&'static str, GroupedStrategy)> {
    vec![
        ("greedy", GroupedStrategy::Greedy),
        ("packer", GroupedStrategy::Packer(GreedyPacker::new(2))),
        (
            "knapsack-1",
            GroupedStrategy::Knapsack(KnapsackSlice::new(1).unwrap()),
        ),
        (
            "knapsack-7",
            GroupedStrategy::Knapsack(KnapsackSlice::new(7).unwrap()),
        ),
        ("exact", GroupedStrategy::Exact(ExactKnapsackSlice::new())),
    ]
}

#[test]
fn exact_equals_brute_force_on_small_instances() {
    let mut rng = Rng::new(0x6D63_6B70);
    let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
    for case in 0..3_000 {
        let n = 1 + rng.index(7);
        let (items, v, target) = instance(&mut rng, n);
        let s = v
            .slice(&exact, &items, &Groups::new(n), &Budget::new(target))
            .unwrap();
        check_shape(&items, &v, &s, target, "exact");
        let want = brute_force(&items, &v, target);
        assert_eq!(value(&items, &v, &s), want, "case {case}");
        assert_eq!(s.selection.exact.unwrap().value, want, "case {case}");
    }
}

#[test]
fn exact_equals_the_optimum_up_to_twelve_items() {
    let mut rng = Rng::new(0x0C1A_55E5);
    let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
    for case in 0..3_000 {
        let n = 1 + rng.index(12);
        let (items, v, target) = instance(&mut rng, n);
        let s = v
            .slice(&exact, &items, &Groups::new(n), &Budget::new(target))
            .unwrap();
        check_shape(&items, &v, &s, target, "exact");
        assert_eq!(
            value(&items, &v, &s),
            optimum(&items, &v, target.max(0)),
            "case {case}"
        );
        assert_eq!(s.selection.exact.unwrap().solver, Solver::Exact);
    }
}

/// The bucketed multiple-choice DP written plainly: a full table of
/// `best[i][c]` (classes in input order, each version tried in order and
/// kept only when strictly better), the choice read back from the last
/// class: the same selection as the knapsack strategy.
#[test]
fn bucketed_equals_the_plain_bucketed_dp() {
    let mut rng = Rng::new(0xB0C4_E7ED);
    for case in 0..2_000 {
        let n = 1 + rng.index(12);
        let (items, v, target) = instance(&mut rng, n);
        let bucket = *rng.pick(&[1i64, 3, 10]);
        let s = v
            .slice(
                &GroupedStrategy::Knapsack(KnapsackSlice::new(bucket).unwrap()),
                &items,
                &Groups::new(n),
                &Budget::new(target),
            )
            .unwrap();
        check_shape(&items, &v, &s, target, "knapsack");
        if target <= 0 {
            assert!(s.selection.selected.is_empty());
            continue;
        }
        let cap = (target / bucket) as usize;
        let w = |t: i64| {
            if t == 0 {
                0
            } else {
                ((t - 1) / bucket + 1) as usize
            }
        };
        // Per item: the best zero-weight version is taken for free; the
        // others count above it.
        let mut table = vec![vec![0i64; cap + 1]; n + 1];
        let mut pick = vec![vec![None; cap + 1]; n];
        let mut base = vec![None; n];
        for i in 0..n {
            let all = versions(&items, &v, i);
            let mut floor = 0;
            for (k, &(t, s)) in all.iter().enumerate() {
                if t == 0 && (base[i].is_none() || scaled(s) > floor) {
                    base[i] = Some(k);
                    floor = scaled(s);
                }
            }
            // The undominated versions as the core keeps them (fewer tokens,
            // then higher score first).
            let mut order: Vec<usize> = (0..all.len()).collect();
            order.sort_by(|&a, &b| {
                all[a]
                    .0
                    .cmp(&all[b].0)
                    .then(all[b].1.total_cmp(&all[a].1))
                    .then(a.cmp(&b))
            });
            let mut kept: Vec<usize> = Vec::new();
            for k in order {
                if !kept.iter().any(|&j| all[j].1 >= all[k].1) {
                    kept.push(k);
                }
            }
            for c in 0..=cap {
                let mut best = table[i][c];
                for &k in &kept {
                    let (t, s) = all[k];
                    if w(t) >= 1 && w(t) <= c && scaled(s) > floor {
                        let with = table[i][c - w(t)] + scaled(s) - floor;
                        if with > best {
                            best = with;
                            pick[i][c] = Some(k);
                        }
                    }
                }
                table[i + 1][c] = best;
            }
        }
        let mut c = cap;
        let mut want = vec![None; n];
        for i in (0..n).rev() {
            if let Some(k) = pick[i][c] {
                want[i] = Some(k);
                c -= w(versions(&items, &v, i)[k].0);
            } else {
                want[i] = base[i];
            }
        }
        // Classes whose every version is too heavy never enter the DP.
        assert_eq!(s.version, want, "case {case}, bucket {bucket}");
    }
}

#[test]
fn every_strategy_takes_at_most_one_version_within_the_budget() {
    let mut rng = Rng::new(0x0E_0E_0E);
    for case in 0..1_500 {
        let n = 1 + rng.index(12);
        let (items, v, target) = instance(&mut rng, n);
        let best = optimum(&items, &v, target.max(0));
        for (name, strategy) in strategies() {
            let s = v
                .slice(&strategy, &items, &Groups::new(n), &Budget::new(target))
                .unwrap();
            check_shape(&items, &v, &s, target, name);
            assert!(value(&items, &v, &s) <= best, "case {case}, {name}");
        }
    }
}

/// A long tool result with a summary and a stub, as docs/variants.md shows.
#[test]
fn a_tool_result_shortens_to_its_summary_then_its_stub() {
    let items = [
        Item::new(4_210, 0.9),
        Item::new(1_500, 0.7),
        Item::new(800, 0.6),
    ];
    let v = Variants::new(3)
        .add(0, 350, 0.6)
        .unwrap()
        .add(0, 12, 0.2)
        .unwrap();
    let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
    let at = |target| {
        v.slice(&exact, &items, &Groups::new(3), &Budget::new(target))
            .unwrap()
            .version
    };
    assert_eq!(at(10_000), [Some(0), Some(0), Some(0)]);
    assert_eq!(at(2_700), [Some(1), Some(0), Some(0)]);
    assert_eq!(at(2_400), [Some(2), Some(0), Some(0)]);
    assert_eq!(at(11), [None, None, None]);
}

#[test]
fn without_variants_it_is_the_grouped_slice() {
    let items = [Item::new(60, 0.5), Item::new(30, 0.4), Item::new(50, 0.6)];
    let groups = Groups::new(3).group([0, 1]).unwrap();
    for (name, strategy) in strategies() {
        let s = Variants::new(3)
            .slice(&strategy, &items, &groups, &Budget::new(80))
            .unwrap();
        let g = groups.slice(&strategy, &items, &Budget::new(80)).unwrap();
        assert_eq!(s.selection, g.selection, "{name}");
        assert_eq!(s.version, [None, None, Some(0)], "{name}");
    }
}

#[test]
fn count_constrained_strategies_refuse_variants() {
    let items = [Item::new(60, 0.5)];
    let v = Variants::new(1).add(0, 10, 0.1).unwrap();
    let count = GroupedStrategy::CountKnapsack(
        CountConstrainedKnapsackSlice::new(
            vec![],
            KnapsackSlice::default(),
            ctxpack_core::ScarcityBehavior::Degrade,
        )
        .unwrap(),
    );
    let err = v
        .slice(&count, &items, &Groups::new(1), &Budget::new(80))
        .unwrap_err();
    assert_eq!(
        (err.code(), err.field()),
        ("INVALID_OPTION", Some("variants"))
    );
}

#[test]
fn a_group_goes_in_whole_each_member_in_some_version() {
    // A tool call (40) and its result (900, summary 100): at 200 tokens the
    // pair goes in with the summary.
    let items = [
        Item::new(40, 0.5),
        Item::new(900, 0.9),
        Item::new(150, 0.05),
    ];
    let v = Variants::new(3).add(1, 100, 0.5).unwrap();
    let groups = Groups::new(3).group([0, 1]).unwrap();
    for (name, strategy) in strategies() {
        let s = v
            .slice(&strategy, &items, &groups, &Budget::new(200))
            .unwrap();
        assert_eq!(s.version[..2], [Some(0), Some(1)], "{name}");
        let walk = matches!(
            strategy,
            GroupedStrategy::Greedy | GroupedStrategy::Packer(_)
        );
        let why = if walk {
            "budget_exceeded"
        } else {
            "not_in_optimal_set"
        };
        assert_eq!(s.selection.decisions[2].code(), why, "{name}");
    }
}

#[test]
fn a_dependency_needs_the_item_in_any_version() {
    // Item 1 needs item 0, which fits only as its stub.
    let items = [Item::new(500, 0.2), Item::new(80, 0.9)];
    let v = Variants::new(2).add(0, 10, 0.05).unwrap();
    let groups = Groups::new(2)
        .depends_on(1, [0])
        .unwrap()
        .with_mode(DependencyMode::Require);
    for (name, strategy) in strategies() {
        let s = v
            .slice(&strategy, &items, &groups, &Budget::new(100))
            .unwrap();
        assert_eq!(s.version, [Some(1), Some(0)], "{name}");
    }
}

#[test]
fn the_exact_strategy_reports_its_fallback() {
    let mut rng = Rng::new(7);
    let (items, v, _) = instance(&mut rng, 12);
    let tight = GroupedStrategy::Exact(ExactKnapsackSlice::new().with_max_work(1));
    let s = v
        .slice(&tight, &items, &Groups::new(12), &Budget::new(100))
        .unwrap();
    let solver = s.selection.exact.unwrap().solver;
    assert!(
        matches!(
            solver,
            Solver::Exact
                | Solver::BucketedFallback {
                    reason: FallbackReason::WorkLimit,
                    ..
                }
        ),
        "{solver:?}"
    );
    check_shape(&items, &v, &s, 100, "fallback");
}

#[test]
fn bad_variants_are_refused_naming_the_item() {
    let err = Variants::new(2).add(1, 5, f64::NAN).unwrap_err();
    assert_eq!(
        (err.code(), err.field(), err.index()),
        ("INVALID_FIELD", Some("variants[0].score"), Some(1))
    );
    let err = Variants::from_columns(2, &[0, 1], &[1], &[0.1, 0.2]).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    let v = Variants::new(3);
    let err = v
        .slice(
            &GroupedStrategy::Greedy,
            &[Item::new(1, 0.1)],
            &Groups::new(1),
            &Budget::new(5),
        )
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
}

#[test]
fn a_budget_of_zero_selects_nothing() {
    let items = [Item::new(0, 0.5), Item::new(-3, 0.5)];
    let v = Variants::new(2).add(0, 3, 0.6).unwrap();
    for (name, strategy) in strategies() {
        let s = v
            .slice(&strategy, &items, &Groups::new(2), &Budget::new(0))
            .unwrap();
        let codes: Vec<_> = s.selection.decisions.iter().map(|d| d.code()).collect();
        assert_eq!(codes, ["no_budget", "negative_tokens"], "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Variants × groups × dependencies × budgets: every strategy keeps
    /// groups whole, honours required dependencies, holds the budget and
    /// takes at most one version per item; the exact strategy without
    /// dependencies is optimal over the grouped problem.
    #[test]
    fn variants_groups_dependencies_budgets(
        seed in any::<u64>(),
        n in 1usize..10,
        labels in proptest::collection::vec(proptest::option::of(0u8..3), 10),
        deps in proptest::collection::vec((0usize..10, 0usize..10), 0..6),
        require in any::<bool>(),
    ) {
        let mut rng = Rng::new(seed);
        let (items, v, target) = instance(&mut rng, n);
        let mut groups = Groups::from_labels(labels[..n].iter().copied());
        for &(a, b) in &deps {
            if a < n && b < n && a != b {
                groups = groups.depends_on(a, [b]).unwrap();
            }
        }
        let mode = if require { DependencyMode::Require } else { DependencyMode::Ignore };
        let groups = groups.with_mode(mode);
        let units = groups.units();
        for (name, strategy) in strategies() {
            let s = v.slice(&strategy, &items, &groups, &Budget::new(target)).unwrap();
            check_shape(&items, &v, &s, target, name);
            for members in units.members() {
                let inn = members.iter().filter(|&&i| s.version[i].is_some()).count();
                prop_assert!(inn == 0 || inn == members.len(), "{} splits a group", name);
            }
            if require {
                for &(a, b) in &deps {
                    if a < n && b < n && a != b && s.version[a].is_some() {
                        prop_assert!(s.version[b].is_some(), "{}: {} in without {}", name, a, b);
                    }
                }
            }
            if name == "exact" && !require {
                // Brute force over each unit's combinations.
                let mut best = 0i64;
                let classes: Vec<Vec<(i64, i64)>> = units.members().iter().map(|m| {
                    let mut opts = vec![(0i64, 0i64)];
                    for &i in m {
                        let mut next = Vec::new();
                        for &(t, val) in &opts {
                            for (vt, vs) in versions(&items, &v, i) {
                                next.push((t + vt, val + scaled(vs)));
                            }
                        }
                        opts = next;
                    }
                    opts
                }).collect();
                fn go(i: usize, cl: &[Vec<(i64, i64)>], left: i64, val: i64, best: &mut i64) {
                    if i == cl.len() { *best = (*best).max(val); return; }
                    go(i + 1, cl, left, val, best);
                    for &(t, x) in &cl[i] { if t <= left { go(i + 1, cl, left - t, val + x, best); } }
                }
                if target > 0 && !items.iter().any(|it| it.tokens < 0) {
                    go(0, &classes, target, 0, &mut best);
                    prop_assert_eq!(value(&items, &v, &s), best);
                }
            }
        }
    }
}

#[test]
fn an_excluded_group_member_says_why() {
    let items = [Item::new(300, 0.5), Item::new(30, 0.4)];
    let v = Variants::new(2).add(0, 200, 0.3).unwrap();
    let groups = Groups::new(2).group([0, 1]).unwrap();
    let s = v
        .slice(&GroupedStrategy::Greedy, &items, &groups, &Budget::new(220))
        .unwrap();
    assert_eq!(s.selection.decisions[0].code(), "group_excluded");
    assert_eq!(s.group_reasons[0], Some(ExclusionReason::BudgetExceeded));
}

/// Extreme counts and scores: an error or a selection within the budget,
/// never a panic (sums past `i64::MAX`, scores near `f64::MAX`, values
/// past the exact search's range).
#[test]
fn extreme_values_do_not_panic() {
    let big = [i64::MAX, i64::MAX / 2, 1 << 40, 4_294_967_295, 0, 1];
    let scores = [f64::MAX, -f64::MAX, 1e300, 1e15, 0.0, -1.0, 0.5];
    let mut rng = Rng::new(0xE7);
    for case in 0..150 {
        let n = 1 + rng.index(6);
        let items: Vec<Item<'static>> = (0..n)
            .map(|_| Item::new(*rng.pick(&big), *rng.pick(&scores)))
            .collect();
        let mut v = Variants::new(n);
        for i in 0..n {
            for _ in 0..rng.index(3) {
                v = v.add(i, *rng.pick(&big), *rng.pick(&scores)).unwrap();
            }
        }
        let target = *rng.pick(&[0, 1, 1 << 50, i64::MAX]);
        let groups = if rng.chance(1, 2) {
            Groups::new(n)
        } else {
            Groups::new(n).group(0..n).unwrap()
        };
        for (name, strategy) in strategies() {
            match v.slice(&strategy, &items, &groups, &Budget::new(target)) {
                Ok(s) => check_shape(&items, &v, &s, target, name),
                Err(e) => assert!(
                    ["INVALID_FIELD", "TABLE_TOO_LARGE"].contains(&e.code()),
                    "case {case}, {name}: {e}"
                ),
            }
        }
    }
}
