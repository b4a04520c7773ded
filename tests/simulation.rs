//! Budget simulation (`src/simulation.rs`) against per-budget reruns: every
//! point of every curve, the first and stable budgets of every item, and
//! the slack difference, on thousands of small random instances and every
//! strategy; plus the guards and the documented shapes.

mod common;

use common::{Rng, ScoreMode};
use ctxpack_core::{
    Budget, BudgetSimulation, CtxpackError, ExactKnapsackSlice, GreedyPacker, Item, KnapsackSlice,
    MinBudget, Selection, Strategy,
};

#[allow(clippy::cast_possible_truncation)] // `as` saturates, as the crate's
fn scaled(score: f64) -> i64 {
    ((score * 10_000.0).floor() as i64).max(0)
}

fn value(items: &[Item<'_>], s: &Selection) -> i64 {
    s.selected
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(scaled(items[i].score)))
}

/// A small instance: up to 12 items, token counts up to `max_tokens`, some
/// zero, some repeated (ties), some scores negative.
fn instance(rng: &mut Rng, max_tokens: i64) -> Vec<Item<'static>> {
    let n = rng.range_usize(0, 12);
    let mode = ScoreMode::random(rng);
    let mut items: Vec<Item<'static>> = Vec::with_capacity(n);
    for _ in 0..n {
        if !items.is_empty() && rng.chance(1, 6) {
            let twin = *rng.pick(&items);
            items.push(twin);
            continue;
        }
        let mut score = common::score(rng, mode);
        if rng.chance(1, 12) {
            score = -score;
        }
        items.push(Item::new(common::tokens(rng, max_tokens), score));
    }
    items
}

fn strategies(rng: &mut Rng) -> Vec<Strategy> {
    vec![
        Strategy::Greedy,
        Strategy::Packer(GreedyPacker::new(
            u32::try_from(rng.below(5)).expect("small"),
        )),
        Strategy::Knapsack(KnapsackSlice::new(rng.range(1, 12)).expect("positive")),
        Strategy::Exact(ExactKnapsackSlice::new()),
    ]
}

fn run(strategy: Strategy, items: &[Item<'_>], t: i64) -> Selection {
    strategy
        .slicer()
        .slice(items, &Budget::new(t))
        .expect("small instances never fail")
}

/// What a scan of per-budget reruns over `0..=ceiling` says.
fn scanned(
    strategy: Strategy,
    items: &[Item<'_>],
    index: usize,
    ceiling: i64,
) -> (Option<i64>, Option<i64>) {
    let selected: Vec<bool> = (0..=ceiling)
        .map(|t| run(strategy, items, t).decisions[index].is_included())
        .collect();
    let first = selected
        .iter()
        .position(|&s| s)
        .map(|t| i64::try_from(t).expect("small"));
    let stable = if selected[selected.len() - 1] {
        let last_out = selected
            .iter()
            .rposition(|&s| !s)
            .expect("budget 0 selects nothing");
        Some(i64::try_from(last_out + 1).expect("small"))
    } else {
        None
    };
    (first, stable)
}

#[test]
fn every_curve_point_equals_a_rerun() {
    let mut rng = Rng::new(0x5101);
    for case in 0..1000 {
        let items = instance(&mut rng, 40);
        let max_budget = rng.range(0, 200);
        for strategy in strategies(&mut rng) {
            let curve = BudgetSimulation::new(strategy)
                .curve(&items, max_budget)
                .unwrap_or_else(|e| panic!("case {case} {strategy:?}: {e}"));
            assert_eq!(curve.len(), usize::try_from(max_budget + 1).expect("small"));
            for (t, &point) in curve.iter().enumerate() {
                let t = i64::try_from(t).expect("small");
                let s = run(strategy, &items, t);
                assert_eq!(
                    point,
                    value(&items, &s),
                    "case {case} {strategy:?} budget {t}: {items:?}"
                );
            }
        }
    }
}

#[test]
fn knapsack_and_greedy_curves_never_fall_and_the_packer_can() {
    let mut rng = Rng::new(0x5102);
    let mut packer_fell = false;
    for _ in 0..800 {
        let items = instance(&mut rng, 40);
        for strategy in strategies(&mut rng) {
            let curve = BudgetSimulation::new(strategy)
                .curve(&items, 150)
                .expect("small");
            let falls = curve.windows(2).skip(1).any(|w| w[1] < w[0]);
            match strategy {
                Strategy::Packer(_) => packer_fell |= falls,
                _ => assert!(!falls, "{strategy:?} fell: {items:?}"),
            }
        }
    }
    assert!(packer_fell, "no instance showed the packer's curve falling");
}

#[test]
fn min_budget_for_every_item_equals_a_scan_of_reruns() {
    let mut rng = Rng::new(0x5103);
    let mut seen_gap = false;
    for case in 0..400 {
        let items = instance(&mut rng, 30);
        for strategy in strategies(&mut rng) {
            let sim = BudgetSimulation::new(strategy);
            for index in 0..items.len() {
                // The default ceiling: the saturation budget.
                let m = sim
                    .min_budget_for(&items, index, None)
                    .unwrap_or_else(|e| panic!("case {case} {strategy:?}: {e}"));
                let label = format!("case {case} {strategy:?} item {index}: {m:?} {items:?}");
                assert!(m.saturation >= 1 && m.ceiling == m.saturation, "{label}");
                let (first, stable) = scanned(strategy, &items, index, m.ceiling + 3);
                assert_eq!((m.first, m.stable_from), (first, stable), "{label}");
                seen_gap |= matches!((m.first, m.stable_from), (Some(f), Some(s)) if f < s - 1);
                // A smaller ceiling limits the scan.
                let ceiling = rng.range(0, m.ceiling);
                let m = sim
                    .min_budget_for(&items, index, Some(ceiling))
                    .expect("small");
                assert_eq!(m.ceiling, ceiling);
                assert_eq!(
                    (m.first, m.stable_from),
                    scanned(strategy, &items, index, ceiling),
                    "{label} ceiling {ceiling}"
                );
            }
        }
    }
    assert!(seen_gap, "no item was in, then out, then in again");
}

#[test]
fn dropped_under_slack_is_the_difference_of_two_reruns() {
    let mut rng = Rng::new(0x5104);
    for _ in 0..1000 {
        let items = instance(&mut rng, 60);
        let target = rng.range(0, 300);
        let slack = rng.range(0, 320);
        for strategy in strategies(&mut rng) {
            let d = BudgetSimulation::new(strategy)
                .dropped_under_slack(&items, &Budget::new(target), slack)
                .expect("small");
            let at = run(strategy, &items, target);
            let under = run(strategy, &items, (target - slack).max(0));
            assert_eq!(
                (d.budget, d.shrunk_budget),
                (target, (target - slack).max(0))
            );
            let dropped: Vec<usize> = at
                .selected
                .iter()
                .copied()
                .filter(|i| !under.selected.contains(i))
                .collect();
            let added: Vec<usize> = under
                .selected
                .iter()
                .copied()
                .filter(|i| !at.selected.contains(i))
                .collect();
            assert_eq!((d.dropped, d.added), (dropped, added));
            assert_eq!(d.value, (value(&items, &at), value(&items, &under)));
        }
    }
}

#[test]
fn walks_answer_without_a_ceiling_on_larger_instances() {
    // 300 items, budgets to 30 000: the curve against reruns at sampled
    // budgets, and min_budget_for against a full scan for a few items.
    let mut rng = Rng::new(0x5105);
    let items: Vec<Item<'static>> = (0..300)
        .map(|_| Item::new(rng.range(1, 400), rng.unit()))
        .collect();
    for strategy in [Strategy::Greedy, Strategy::Packer(GreedyPacker::new(3))] {
        let sim = BudgetSimulation::new(strategy);
        let curve = sim.curve(&items, 30_000).expect("within the guards");
        for _ in 0..300 {
            let t = rng.range(0, 30_000);
            let s = run(strategy, &items, t);
            assert_eq!(
                curve[usize::try_from(t).expect("small")],
                value(&items, &s),
                "{strategy:?} {t}"
            );
        }
        for index in [0, 17, 150, 299] {
            let m = sim
                .min_budget_for(&items, index, Some(12_000))
                .expect("within the guards");
            assert_eq!(
                (m.first, m.stable_from),
                scanned(strategy, &items, index, 12_000),
                "{strategy:?} {index}"
            );
        }
    }
}

#[test]
fn zero_token_negative_and_worthless_items() {
    let items = [
        Item::new(0, 0.3),
        Item::new(-5, 0.9),
        Item::new(10, 0.0),
        Item::new(10, -0.4),
        Item::new(20, 0.5),
    ];
    for strategy in [
        Strategy::Greedy,
        Strategy::Packer(GreedyPacker::new(0)),
        Strategy::Knapsack(KnapsackSlice::new(1).expect("positive")),
        Strategy::Exact(ExactKnapsackSlice::new()),
    ] {
        let sim = BudgetSimulation::new(strategy);
        let zero = sim.min_budget_for(&items, 0, None).expect("small");
        assert_eq!(
            (zero.first, zero.stable_from),
            (Some(1), Some(1)),
            "{strategy:?}"
        );
        let negative = sim.min_budget_for(&items, 1, None).expect("small");
        assert_eq!(
            (negative.first, negative.stable_from),
            (None, None),
            "{strategy:?}"
        );
        let curve = sim.curve(&items, 60).expect("small");
        assert_eq!(
            (curve[0], curve[1], curve[60]),
            (0, 3_000, 8_000),
            "{strategy:?}"
        );
        let worthless = sim.min_budget_for(&items, 2, None).expect("small");
        match strategy {
            // The walks take what fits, worth something or not.
            Strategy::Greedy | Strategy::Packer(_) => assert!(worthless.first.is_some()),
            _ => assert_eq!(worthless.first, None, "{strategy:?}"),
        }
    }
}

#[test]
fn negative_ceilings_and_indexes_out_of_range_are_refused() {
    let items = [Item::new(10, 0.5)];
    let sim = BudgetSimulation::new(Strategy::Greedy);
    assert_eq!(
        sim.min_budget_for(&items, 1, None).unwrap_err().code(),
        "INVALID_INPUT"
    );
    let e = sim.min_budget_for(&items, 0, Some(-1)).unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_OPTION", Some("maxBudget")));
    let e = sim
        .dropped_under_slack(&items, &Budget::new(10), -1)
        .unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_OPTION", Some("slack")));
    assert_eq!(sim.curve(&items, -1).expect("empty"), Vec::<i64>::new());
    let e = sim.curve(&[Item::new(1, f64::NAN)], 5).unwrap_err();
    assert_eq!(e.code(), "INVALID_SCORE");
}

#[test]
fn the_guards_refuse_instead_of_running_long() {
    let items: Vec<Item<'static>> = (0..50).map(|i| Item::new(100 + i, 0.5)).collect();
    let tight = |s: Strategy| BudgetSimulation::new(s).with_max_cells(1000);
    for strategy in [
        Strategy::Greedy,
        Strategy::Packer(GreedyPacker::new(3)),
        Strategy::Exact(ExactKnapsackSlice::new()),
    ] {
        let e = tight(strategy).curve(&items, 10_000).unwrap_err();
        assert!(
            matches!(e, CtxpackError::TableTooLarge { .. }),
            "{strategy:?}: {e}"
        );
        let e = tight(strategy)
            .min_budget_for(&items, 49, None)
            .unwrap_err();
        assert!(
            matches!(e, CtxpackError::TableTooLarge { .. }),
            "{strategy:?}: {e}"
        );
    }
    let k = Strategy::Knapsack(KnapsackSlice::new(1).expect("positive"));
    let e = tight(k).min_budget_for(&items, 49, None).unwrap_err();
    assert!(matches!(e, CtxpackError::TableTooLarge { .. }), "{e}");
    // Curves are 8 bytes per budget, counted with the DP's own memory.
    let e = BudgetSimulation::new(Strategy::Greedy)
        .with_max_table_bytes(8_000_000)
        .curve(&items, 1_000_000)
        .unwrap_err();
    assert!(matches!(e, CtxpackError::TableTooLarge { .. }), "{e}");
    BudgetSimulation::new(Strategy::Greedy)
        .with_max_table_bytes(8_100_000)
        .curve(&items, 1_000_000)
        .expect("a million budgets and a small DP fit");
}

#[test]
fn a_realistic_walk_curve_is_cheap() {
    // 10 000 items of about 300 tokens, budgets to 128 000: the greedy
    // curve's DP has far fewer cells than items × budgets.
    let mut rng = Rng::new(0x5106);
    let items: Vec<Item<'static>> = (0..10_000)
        .map(|_| Item::new(rng.range(20, 900), rng.unit()))
        .collect();
    let sim = BudgetSimulation::new(Strategy::Greedy).with_max_cells(10_000 * 1_000);
    let curve = sim.curve(&items, 128_000).expect("within 10 M cells");
    for t in [0, 1, 999, 64_000, 128_000] {
        let s = run(Strategy::Greedy, &items, t);
        assert_eq!(
            curve[usize::try_from(t).expect("small")],
            value(&items, &s),
            "{t}"
        );
    }
    let m: MinBudget = sim
        .min_budget_for(&items, 1234, None)
        .expect("within 10 M cells");
    assert!(m.stable_from.is_some());
}
