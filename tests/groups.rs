//! Atomic groups and dependencies (`Groups`, `Units::slice`): named edge
//! cases, properties every strategy keeps (groups all in or all out,
//! dependencies closed under `Require`, the budget held, one consistent
//! decision per item), and oracles: brute force over every subset for the
//! knapsack strategies (optimal over the grouped problem; under `Require`,
//! optimal whenever `repaired` is false), and greedy and the packer against
//! a walk written here from the documentation.
#![cfg(not(target_arch = "wasm32"))] // native dev-dependencies (proptest)
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap,
    clippy::too_many_lines,
    clippy::items_after_statements,
    clippy::needless_range_loop
)] // small test instances

mod common;

use common::Rng;
use ctxpack_core::{
    Budget, BudgetSimulation, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError,
    Decision, DependencyMode, ExactCountConstrainedSlice, ExactKnapsackSlice, ExclusionReason,
    GreedyPacker, GreedySlice, GroupedSelection, GroupedStrategy, Groups, InclusionReason, Item,
    KnapsackSlice, ScarcityBehavior, Slicer, Strategy, UnitScore,
};
use proptest::prelude::*;

const KINDS: [&str; 4] = ["doc", "msg", "tool", "Tool"];

fn scaled(score: f64) -> i64 {
    #[allow(clippy::cast_possible_truncation)]
    let v = (score * 10_000.0).floor() as i64;
    v.max(0)
}

fn value_of(items: &[Item<'_>], selected: &[usize]) -> i64 {
    selected.iter().map(|&i| scaled(items[i].score)).sum()
}

fn tool_entries() -> Vec<CountQuotaEntry> {
    vec![CountQuotaEntry::new("tool", 1, 2)]
}

/// Every strategy, by name; the packer with a skip limit of 2.
fn strategies() -> Vec<(&'static str, GroupedStrategy)> {
    vec![
        ("greedy", GroupedStrategy::Greedy),
        ("packer", GroupedStrategy::Packer(GreedyPacker::new(2))),
        (
            "knapsack",
            GroupedStrategy::Knapsack(KnapsackSlice::new(1).unwrap()),
        ),
        (
            "knapsack-100",
            GroupedStrategy::Knapsack(KnapsackSlice::default()),
        ),
        ("exact", GroupedStrategy::Exact(ExactKnapsackSlice::new())),
        (
            "count-knapsack",
            GroupedStrategy::CountKnapsack(
                CountConstrainedKnapsackSlice::new(
                    tool_entries(),
                    KnapsackSlice::new(1).unwrap(),
                    ScarcityBehavior::Degrade,
                )
                .unwrap(),
            ),
        ),
        (
            "exact-count",
            GroupedStrategy::ExactCount(
                ExactCountConstrainedSlice::new(tool_entries(), ScarcityBehavior::Degrade).unwrap(),
            ),
        ),
    ]
}

fn is_counted(s: &GroupedStrategy) -> bool {
    matches!(
        s,
        GroupedStrategy::CountKnapsack(_) | GroupedStrategy::ExactCount(_)
    )
}

fn codes(s: &GroupedSelection) -> Vec<&'static str> {
    s.selection.decisions.iter().map(|d| d.code()).collect()
}

/// A random instance: items, one optional label each, dependencies.
#[derive(Debug, Clone)]
struct Instance {
    items: Vec<Item<'static>>,
    labels: Vec<Option<u8>>,
    deps: Vec<Vec<usize>>,
    target: i64,
}

impl Instance {
    fn random(rng: &mut Rng, max_n: usize, group_p: u64, dep_p: u64, negative: bool) -> Self {
        let n = rng.range_usize(0, max_n);
        let labels_n = (n / 2).max(1) as u64;
        let items = (0..n)
            .map(|_| {
                let tokens = if negative && rng.chance(1, 15) {
                    -rng.range(1, 20)
                } else if rng.chance(1, 10) {
                    0
                } else {
                    rng.range(1, 70)
                };
                let score = if rng.chance(1, 10) {
                    -0.25
                } else {
                    (rng.range(0, 10_000) as f64) / 10_000.0 + rng.unit() * 1e-4
                };
                Item::new(tokens, score).with_kind(KINDS[rng.index(KINDS.len())])
            })
            .collect();
        let labels = (0..n)
            .map(|_| rng.chance(group_p, 100).then(|| rng.below(labels_n) as u8))
            .collect();
        let deps = (0..n)
            .map(|i| {
                let mut d: Vec<usize> = (0..n)
                    .filter(|&j| j != i && rng.chance(dep_p, 100 * n.max(1) as u64))
                    .collect();
                d.sort_unstable();
                d
            })
            .collect();
        let target = rng.range(0, 300);
        Instance {
            items,
            labels,
            deps,
            target,
        }
    }

    fn groups(&self, mode: DependencyMode) -> Groups {
        let mut g = Groups::from_labels(self.labels.iter().copied());
        for (i, d) in self.deps.iter().enumerate() {
            g = g.depends_on(i, d.iter().copied()).unwrap();
        }
        g.with_mode(mode)
    }

    /// Whether no group holds a tool alongside another item (what the
    /// count strategies accept).
    fn countable(&self) -> bool {
        self.items.iter().enumerate().all(|(i, it)| {
            !it.kind.eq_ignore_ascii_case("tool")
                || self.labels[i].is_none()
                || self.labels.iter().filter(|&&l| l == self.labels[i]).count() == 1
        })
    }

    fn has_deps(&self) -> bool {
        self.deps.iter().any(|d| !d.is_empty())
    }
}

// ---------------------------------------------------------------------------
// Test-side units: groups by label, dependency cycles by reachability
// (Floyd–Warshall), independent of the crate's union-find and Tarjan.

struct Oracle {
    members: Vec<Vec<usize>>,
    unit_of: Vec<usize>,
    needs: Vec<Vec<usize>>,
}

fn oracle_units(inst: &Instance, require: bool) -> Oracle {
    let n = inst.items.len();
    // same[i][j]: i and j must go in together.
    let mut reach = vec![vec![false; n]; n];
    for i in 0..n {
        reach[i][i] = true;
        for j in 0..n {
            if inst.labels[i].is_some() && inst.labels[i] == inst.labels[j] {
                reach[i][j] = true;
            }
        }
        if require {
            for &j in &inst.deps[i] {
                reach[i][j] = true;
            }
        }
    }
    for k in 0..n {
        for i in 0..n {
            if reach[i][k] {
                for j in 0..n {
                    if reach[k][j] {
                        reach[i][j] = true;
                    }
                }
            }
        }
    }
    let mut unit_of = vec![usize::MAX; n];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        if unit_of[i] != usize::MAX {
            continue;
        }
        let u = members.len();
        let m: Vec<usize> = (i..n).filter(|&j| reach[i][j] && reach[j][i]).collect();
        for &j in &m {
            unit_of[j] = u;
        }
        members.push(m);
    }
    let mut needs = vec![Vec::new(); members.len()];
    if require {
        for i in 0..n {
            for &j in &inst.deps[i] {
                if unit_of[i] != unit_of[j] {
                    needs[unit_of[i]].push(unit_of[j]);
                }
            }
        }
        for ns in &mut needs {
            ns.sort_unstable();
            ns.dedup();
        }
    }
    Oracle {
        members,
        unit_of,
        needs,
    }
}

/// The best value over subsets of items that keep groups (and, when
/// `require`, dependencies) whole and fit `target`; 0 at a target of 0 or
/// less. Non-negative tokens only.
fn brute_force(inst: &Instance, require: bool) -> i64 {
    if inst.target <= 0 {
        return 0;
    }
    let o = oracle_units(inst, false); // groups only: dependencies as masks
    let c = o.members.len();
    let tokens: Vec<i64> = o
        .members
        .iter()
        .map(|m| m.iter().map(|&i| inst.items[i].tokens).sum())
        .collect();
    let values: Vec<i64> = o
        .members
        .iter()
        .map(|m| m.iter().map(|&i| scaled(inst.items[i].score)).sum())
        .collect();
    let need_mask: Vec<u32> = o
        .members
        .iter()
        .map(|m| {
            let mut mask = 0u32;
            if require {
                for &i in m {
                    for &j in &inst.deps[i] {
                        mask |= 1 << o.unit_of[j];
                    }
                }
            }
            mask
        })
        .collect();
    let size = 1usize << c;
    let mut t = vec![0i64; size];
    let mut v = vec![0i64; size];
    let mut need = vec![0u32; size];
    let mut best = 0;
    for mask in 1..size {
        let low = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        t[mask] = t[rest] + tokens[low];
        v[mask] = v[rest] + values[low];
        need[mask] = need[rest] | need_mask[low];
        if t[mask] <= inst.target && need[mask] & !(mask as u32) == 0 && v[mask] > best {
            best = v[mask];
        }
    }
    best
}

/// Greedy (`limit` 0) or the packer under `Require`, written from the
/// documentation: the units in the walk's order, each taken with the
/// dependencies it lacks (post-order, dependencies first) when all fit.
/// Returns the selected items and their reasons.
fn oracle_walk(inst: &Instance, greedy: bool, limit: u32) -> (Vec<usize>, Vec<Decision>) {
    let o = oracle_units(inst, true);
    let c = o.members.len();
    let tokens: Vec<i64> = o
        .members
        .iter()
        .map(|m| m.iter().map(|&i| inst.items[i].tokens).sum())
        .collect();
    let score: Vec<f64> = o
        .members
        .iter()
        .map(|m| m.iter().map(|&i| inst.items[i].score).sum())
        .collect();
    let mut order: Vec<usize> = (0..c).collect();
    if greedy {
        let density = |u: usize| {
            if tokens[u] == 0 {
                f64::MAX
            } else {
                score[u] / tokens[u] as f64 + 0.0
            }
        };
        order.sort_by(|&a, &b| density(b).total_cmp(&density(a)).then(a.cmp(&b)));
    }
    fn post(
        u: usize,
        needs: &[Vec<usize>],
        taken: &[bool],
        seen: &mut [bool],
        out: &mut Vec<usize>,
    ) {
        seen[u] = true;
        for &v in &needs[u] {
            if !taken[v] && !seen[v] {
                post(v, needs, taken, seen, out);
            }
        }
        out.push(u);
    }
    let mut taken = vec![false; c];
    let mut selected = Vec::new();
    let mut reasons = vec![None; inst.items.len()];
    if inst.target > 0 {
        let mut left = inst.target;
        let mut misses = 0;
        for &u in &order {
            if taken[u] {
                continue;
            }
            let mut block = Vec::new();
            post(u, &o.needs, &taken, &mut vec![false; c], &mut block);
            let need: i64 = block.iter().map(|&v| tokens[v]).sum();
            if need <= left {
                left -= need;
                misses = 0;
                for &v in &block {
                    taken[v] = true;
                    for &i in &o.members[v] {
                        selected.push(i);
                        reasons[i] = Some(Decision::Included(if greedy && need == 0 {
                            InclusionReason::ZeroTokens
                        } else {
                            InclusionReason::Scored
                        }));
                    }
                }
            } else {
                misses += 1;
                if misses == limit {
                    break;
                }
            }
        }
    }
    let reasons = reasons
        .into_iter()
        .map(|r| r.unwrap_or(Decision::Excluded(ExclusionReason::BudgetExceeded)))
        .collect();
    (selected, reasons)
}

// ---------------------------------------------------------------------------
// The invariants, checked on any instance.

fn check(
    name: &str,
    strategy: &GroupedStrategy,
    inst: &Instance,
    mode: DependencyMode,
    s: &GroupedSelection,
) -> Result<(), String> {
    let items = &inst.items;
    let n = items.len();
    let sel = &s.selection;
    let label = format!("{name} {mode:?} {inst:?}");
    let fail = |what: &str| Err(format!("{label}: {what}"));
    if sel.decisions.len() != n || s.group_reasons.len() != n {
        return fail("one decision per item");
    }
    let mut in_sel = vec![false; n];
    for &i in &sel.selected {
        if i >= n || in_sel[i] {
            return fail("an index twice or out of range");
        }
        in_sel[i] = true;
    }
    let require = mode == DependencyMode::Require;
    let o = oracle_units(inst, require);
    for (i, d) in sel.decisions.iter().enumerate() {
        if d.is_included() != in_sel[i] {
            return fail(&format!("item {i}: {d:?} but selected {}", in_sel[i]));
        }
        let gr = s.group_reasons[i];
        match d {
            Decision::Excluded(ExclusionReason::GroupExcluded) => {
                if o.members[o.unit_of[i]].len() < 2 {
                    return fail(&format!("item {i}: group_excluded alone"));
                }
                if items[i].tokens > inst.target || inst.target <= 0 {
                    return fail(&format!(
                        "item {i}: group_excluded but alone over the budget"
                    ));
                }
                if matches!(
                    gr,
                    None | Some(
                        ExclusionReason::GroupExcluded | ExclusionReason::DependencyExcluded
                    )
                ) {
                    return fail(&format!("item {i}: group reason {gr:?}"));
                }
            }
            Decision::Excluded(ExclusionReason::DependencyExcluded) => {
                let u = o.unit_of[i];
                let lacks = o.members[u].iter().any(|&j| {
                    inst.deps[j]
                        .iter()
                        .any(|&k| o.unit_of[k] != u && !in_sel[k])
                });
                if !require || !lacks || gr.is_some() {
                    return fail(&format!(
                        "item {i}: dependency_excluded, no missing dependency"
                    ));
                }
            }
            Decision::Excluded(ExclusionReason::NegativeTokens) if items[i].tokens >= 0 => {
                return fail(&format!("item {i}: negative_tokens"));
            }
            _ if gr.is_some() => return fail(&format!("item {i}: group reason {gr:?}")),
            _ => {}
        }
        if items[i].tokens < 0 && *d != Decision::Excluded(ExclusionReason::NegativeTokens) {
            return fail(&format!("item {i}: negative but {d:?}"));
        }
    }
    // Units (groups, and dependency cycles under Require): all or none.
    for m in &o.members {
        if m.iter().any(|&i| in_sel[i]) && !m.iter().all(|&i| in_sel[i]) {
            return fail(&format!("unit {m:?} split"));
        }
    }
    if require {
        for &i in &sel.selected {
            if let Some(&j) = inst.deps[i].iter().find(|&&j| !in_sel[j]) {
                return fail(&format!("{i} selected without {j}"));
            }
        }
    }
    let tokens: i64 = sel.selected.iter().map(|&i| items[i].tokens).sum();
    if tokens != sel.total_tokens {
        return fail("total_tokens");
    }
    if inst.target <= 0 && !sel.selected.is_empty() {
        return fail("selected at a target of 0");
    }
    let counted_overrun = matches!(strategy, GroupedStrategy::CountKnapsack(_));
    if tokens > inst.target.max(0) && !counted_overrun {
        return fail("over budget");
    }
    if sel.over_budget != (inst.target > 0 && tokens > inst.target) {
        return fail("over_budget");
    }
    let walk = matches!(
        strategy,
        GroupedStrategy::Greedy | GroupedStrategy::Packer(_)
    );
    if s.repaired.is_some() != (require && !walk) {
        return fail(&format!("repaired {:?}", s.repaired));
    }
    if let Some(e) = sel.exact {
        if e.value != value_of(items, &sel.selected) {
            return fail("exact.value");
        }
    }
    Ok(())
}

/// Runs `strategy`; the count strategies may refuse what the
/// documentation says they refuse, and only that.
fn run(
    name: &str,
    strategy: &GroupedStrategy,
    inst: &Instance,
    mode: DependencyMode,
) -> Result<Option<GroupedSelection>, String> {
    let groups = inst.groups(mode);
    match groups.slice(strategy, &inst.items, &Budget::new(inst.target)) {
        Ok(s) => check(name, strategy, inst, mode, &s).map(|()| Some(s)),
        Err(e) => {
            let units = groups.units();
            let expected = is_counted(strategy)
                && e.code() == "INVALID_OPTION"
                && ((e.field() == Some("dependencies")
                    && mode == DependencyMode::Require
                    && units.has_dependencies())
                    || (e.field() == Some("group") && !inst.countable())
                    || (e.field() == Some("group")
                        && mode == DependencyMode::Require
                        && inst.has_deps()));
            if expected {
                Ok(None)
            } else {
                Err(format!("{name} {mode:?} {inst:?}: {e}"))
            }
        }
    }
}

fn instance() -> impl proptest::strategy::Strategy<Value = (u64, bool)> {
    (any::<u64>(), any::<bool>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every strategy, both modes, on random instances with negative
    /// token counts and scores: the invariants of `check`.
    #[test]
    fn every_strategy_keeps_the_invariants((seed, require) in instance()) {
        let mut rng = Rng::new(seed);
        let inst = Instance::random(&mut rng, 12, 50, 30, true);
        let mode = if require { DependencyMode::Require } else { DependencyMode::Ignore };
        for (name, s) in strategies() {
            if let Err(e) = run(name, &s, &inst, mode) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    /// Deterministic: the same call twice gives the same answer.
    #[test]
    fn slicing_is_deterministic((seed, require) in instance()) {
        let mut rng = Rng::new(seed);
        let inst = Instance::random(&mut rng, 10, 50, 30, false);
        let mode = if require { DependencyMode::Require } else { DependencyMode::Ignore };
        let g = inst.groups(mode);
        for (_, s) in strategies() {
            let a = g.slice(&s, &inst.items, &Budget::new(inst.target));
            let b = g.slice(&s, &inst.items, &Budget::new(inst.target));
            prop_assert_eq!(a, b);
        }
    }
}

// ---------------------------------------------------------------------------
// Oracles

#[test]
fn knapsack_strategies_are_optimal_over_the_grouped_problem() {
    let mut rng = Rng::new(0x6701);
    let mut grouped = 0;
    for round in 0..1500 {
        let mut inst = Instance::random(&mut rng, 14, 60, 0, false);
        for it in &mut inst.items {
            it.kind = if it.kind.eq_ignore_ascii_case("tool") {
                "doc"
            } else {
                it.kind
            };
        }
        let best = brute_force(&inst, false);
        if inst.labels.iter().flatten().count() > 1 {
            grouped += 1;
        }
        for (name, s) in strategies() {
            if !matches!(name, "knapsack" | "exact" | "exact-count") {
                continue;
            }
            let r = run(name, &s, &inst, DependencyMode::Ignore)
                .unwrap()
                .unwrap();
            assert_eq!(
                value_of(&inst.items, &r.selection.selected),
                best,
                "{name} round {round}: {inst:?}"
            );
        }
    }
    assert!(grouped > 1000, "{grouped}");
}

#[test]
fn require_mode_is_optimal_when_not_repaired() {
    let mut rng = Rng::new(0x6702);
    let (mut unrepaired, mut repaired) = (0, 0);
    for round in 0..1500 {
        let inst = Instance::random(&mut rng, 14, 20, 40, false);
        let best = brute_force(&inst, true);
        for (name, s) in strategies() {
            let Some(r) =
                run(name, &s, &inst, DependencyMode::Require).unwrap_or_else(|e| panic!("{e}"))
            else {
                continue;
            };
            let value = value_of(&inst.items, &r.selection.selected);
            let label = format!("{name} round {round}: {inst:?}");
            if name != "count-knapsack" {
                assert!(value <= best, "{label}: above the optimum");
            }
            if matches!(name, "knapsack" | "exact") {
                if r.repaired == Some(false) {
                    unrepaired += 1;
                    assert_eq!(value, best, "{label}: not repaired, not optimal");
                } else {
                    repaired += 1;
                }
            }
        }
    }
    assert!(
        unrepaired > 1000 && repaired > 200,
        "{unrepaired} unrepaired, {repaired} repaired"
    );
}

#[test]
fn greedy_and_packer_walk_as_documented() {
    let mut rng = Rng::new(0x6703);
    let mut with_deps = 0;
    for round in 0..1500 {
        let inst = Instance::random(&mut rng, 14, 30, 40, false);
        if inst.has_deps() {
            with_deps += 1;
        }
        for (greedy, strategy, limit) in [
            (true, GroupedStrategy::Greedy, 0),
            (false, GroupedStrategy::Packer(GreedyPacker::new(2)), 2),
            (false, GroupedStrategy::Packer(GreedyPacker::new(0)), 0),
        ] {
            let r = run("walk", &strategy, &inst, DependencyMode::Require)
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap();
            let (selected, reasons) = oracle_walk(&inst, greedy, limit);
            let label = format!("round {round} greedy {greedy} limit {limit}: {inst:?}");
            assert_eq!(r.selection.selected, selected, "{label}");
            for &i in &selected {
                assert_eq!(r.selection.decisions[i], reasons[i], "{label}: item {i}");
            }
        }
    }
    assert!(with_deps > 1000, "{with_deps}");
}

/// The list with each group merged into one item at its first member's
/// place (for greedy and the packer: the sum of the scores).
fn merged(inst: &Instance) -> (Vec<Item<'static>>, Vec<Vec<usize>>) {
    let o = oracle_units(inst, false);
    let items = o
        .members
        .iter()
        .map(|m| {
            let tokens = m.iter().map(|&i| inst.items[i].tokens).sum();
            let score = m.iter().map(|&i| inst.items[i].score).sum();
            Item::new(tokens, score).with_kind(inst.items[m[0]].kind)
        })
        .collect();
    (items, o.members)
}

#[test]
fn ignored_dependencies_slice_as_the_merged_items() {
    let mut rng = Rng::new(0x6704);
    for round in 0..800 {
        let inst = Instance::random(&mut rng, 16, 60, 30, false);
        let (m, members) = merged(&inst);
        let budget = Budget::new(inst.target);
        let expand = |sel: &[usize]| -> Vec<usize> {
            sel.iter()
                .flat_map(|&u| members[u].iter().copied())
                .collect()
        };
        let slicers: [(&str, GroupedStrategy, Box<dyn Slicer>); 2] = [
            ("greedy", GroupedStrategy::Greedy, Box::new(GreedySlice)),
            (
                "packer",
                GroupedStrategy::Packer(GreedyPacker::new(2)),
                Box::new(GreedyPacker::new(2)),
            ),
        ];
        for (name, s, plain) in slicers {
            let r = run(name, &s, &inst, DependencyMode::Ignore)
                .unwrap()
                .unwrap();
            let p = plain.slice(&m, &budget).unwrap();
            assert_eq!(
                r.selection.selected,
                expand(&p.selected),
                "{name} round {round}"
            );
        }
    }
}

#[test]
fn without_constraints_every_strategy_slices_as_the_core() {
    let mut rng = Rng::new(0x6705);
    for round in 0..300 {
        let inst = Instance::random(&mut rng, 20, 0, 0, true);
        let budget = Budget::new(inst.target);
        for mode in [DependencyMode::Ignore, DependencyMode::Require] {
            let g = Groups::new(inst.items.len()).with_mode(mode);
            for (name, s) in strategies() {
                let r = g.slice(&s, &inst.items, &budget).unwrap();
                let p = s.slicer().slice(&inst.items, &budget).unwrap();
                assert_eq!(r.selection, p, "{name} round {round}");
                assert!(r.group_reasons.iter().all(Option::is_none));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Named edge cases

/// Every strategy but the bucketed knapsack (its buckets need budgets in
/// hundreds); the count strategies drop out when they refuse required
/// dependencies.
fn every(
    groups: &Groups,
    items: &[Item<'_>],
    target: i64,
) -> Vec<(&'static str, GroupedSelection)> {
    let refused = groups.mode() == DependencyMode::Require && groups.units().has_dependencies();
    strategies()
        .into_iter()
        .filter(|(name, s)| *name != "knapsack-100" && !(refused && is_counted(s)))
        .map(|(name, s)| (name, groups.slice(&s, items, &Budget::new(target)).unwrap()))
        .collect()
}

#[test]
fn empty_input() {
    for mode in [DependencyMode::Ignore, DependencyMode::Require] {
        for (name, s) in every(&Groups::new(0).with_mode(mode), &[], 100) {
            assert!(
                s.selection.selected.is_empty() && s.selection.decisions.is_empty(),
                "{name}"
            );
            assert_eq!(s.selection.total_tokens, 0);
        }
    }
    assert_eq!(Groups::from_labels(Vec::<Option<&str>>::new()).len(), 0);
}

#[test]
fn all_in_one_group() {
    let items = [Item::new(30, 0.2), Item::new(20, 0.9), Item::new(10, 0.1)];
    let g = Groups::from_labels([Some("g"); 3]);
    for (name, s) in every(&g, &items, 60) {
        assert_eq!(s.selection.selected, [0, 1, 2], "{name}");
        assert_eq!(codes(&s), ["scored"; 3], "{name}");
    }
    for (name, s) in every(&g, &items, 59) {
        assert!(s.selection.selected.is_empty(), "{name}");
        assert_eq!(codes(&s), ["group_excluded"; 3], "{name}");
        assert!(s.selection.budget_reached, "{name}");
    }
}

#[test]
fn group_larger_than_the_budget() {
    let items = [Item::new(50, 0.9), Item::new(400, 0.1), Item::new(100, 0.3)];
    let g = Groups::new(3).group([0, 1]).unwrap();
    for (name, s) in every(&g, &items, 200) {
        assert_eq!(s.selection.selected, [2], "{name}");
        assert_eq!(
            &codes(&s)[..2],
            ["group_excluded", "budget_exceeded"],
            "{name}"
        );
        assert_eq!(
            s.group_reasons[0],
            Some(ExclusionReason::BudgetExceeded),
            "{name}"
        );
        assert_eq!(s.group_reasons[1], None, "{name}");
    }
}

#[test]
fn zero_token_members() {
    let items = [Item::new(0, 0.5), Item::new(0, 0.1), Item::new(80, 0.3)];
    let zeros = Groups::new(3).group([0, 1]).unwrap();
    let greedy = zeros
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(50))
        .unwrap();
    assert_eq!(greedy.selection.selected, [0, 1]);
    assert_eq!(
        codes(&greedy),
        ["zero_tokens", "zero_tokens", "budget_exceeded"]
    );
    // A zero-token member of a group that does not fit is left out with it.
    let mixed = Groups::new(3).group([0, 2]).unwrap();
    for (name, s) in every(&mixed, &items, 50) {
        assert_eq!(s.selection.selected, [1], "{name}");
        assert_eq!(codes(&s)[0], "group_excluded", "{name}");
        assert_eq!(codes(&s)[2], "budget_exceeded", "{name}");
    }
}

#[test]
fn budget_zero() {
    let items = [
        Item::new(10, 0.5),
        Item::new(0, 0.1),
        Item::new(20, 0.3),
        Item::new(-5, 0.3),
    ];
    let g = Groups::new(4)
        .group([0, 1])
        .unwrap()
        .depends_on(2, [0])
        .unwrap()
        .with_mode(DependencyMode::Require);
    for target in [0, -10] {
        for (name, s) in every(&Groups::new(4).group([0, 1]).unwrap(), &items, target) {
            assert_eq!(
                codes(&s),
                ["no_budget", "no_budget", "no_budget", "negative_tokens"],
                "{name}"
            );
        }
        for (name, s) in every(&g.clone().depends_on(1, [3]).unwrap(), &items, target)
            .into_iter()
            .take(2)
        {
            assert_eq!(
                codes(&s),
                [
                    "dependency_excluded",
                    "dependency_excluded",
                    "dependency_excluded",
                    "negative_tokens"
                ],
                "{name}"
            );
        }
        let s = g
            .slice(
                &GroupedStrategy::Exact(ExactKnapsackSlice::new()),
                &items,
                &Budget::new(target),
            )
            .unwrap();
        assert_eq!(
            codes(&s),
            [
                "no_budget",
                "no_budget",
                "dependency_excluded",
                "negative_tokens"
            ]
        );
        assert_eq!(s.repaired, Some(false));
    }
}

#[test]
fn dependency_on_itself_and_out_of_range() {
    let err = Groups::new(3).depends_on(1, [0, 1]).unwrap_err();
    assert_eq!(
        (err.code(), err.field(), err.index()),
        ("INVALID_FIELD", Some("dependencies[1]"), Some(1))
    );
    let err = Groups::new(3).depends_on(1, [3]).unwrap_err();
    assert_eq!(
        (err.code(), err.field(), err.index()),
        ("INVALID_FIELD", Some("dependencies[0]"), Some(1))
    );
    assert_eq!(
        err.to_string(),
        "items[1].dependencies[0] must be the index of another item, got 3 (there are 3 items)"
    );
    let err = Groups::new(3).depends_on(3, [0]).unwrap_err();
    assert_eq!((err.field(), err.index()), (Some("dependencies"), Some(3)));
    let err = Groups::new(3).group([0, 5]).unwrap_err();
    assert_eq!(
        (err.code(), err.field(), err.index()),
        ("INVALID_FIELD", Some("group"), Some(5))
    );
    // Items and groups of different lengths.
    let err = Groups::new(2)
        .slice(
            &GroupedStrategy::Greedy,
            &[Item::new(1, 0.1)],
            &Budget::new(5),
        )
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
}

#[test]
fn dependency_cycle_goes_in_together() {
    let items = [
        Item::new(50, 0.9),
        Item::new(50, 0.1),
        Item::new(60, 0.5),
        Item::new(5, 0.01),
    ];
    let g = Groups::new(4)
        .depends_on(0, [1])
        .unwrap()
        .depends_on(1, [3])
        .unwrap()
        .depends_on(3, [0])
        .unwrap()
        .with_mode(DependencyMode::Require);
    assert_eq!(g.units().members(), [vec![0, 1, 3], vec![2]]);
    assert!(!g.units().has_dependencies());
    for (name, s) in every(&g, &items, 105) {
        assert_eq!(s.selection.selected, [0, 1, 3], "{name}");
    }
    for (name, s) in every(&g, &items, 100) {
        assert_eq!(s.selection.selected, [2], "{name}");
        assert_eq!(
            codes(&s),
            [
                "group_excluded",
                "group_excluded",
                "scored",
                "group_excluded"
            ],
            "{name}"
        );
    }
}

#[test]
fn dependency_chain_goes_in_dependencies_first() {
    // 0 needs 1 needs 2; 0 is by far the densest.
    let items = [
        Item::new(10, 0.9),
        Item::new(30, 0.2),
        Item::new(30, 0.1),
        Item::new(40, 0.3),
    ];
    let g = Groups::new(4)
        .depends_on(0, [1])
        .unwrap()
        .depends_on(1, [2])
        .unwrap()
        .with_mode(DependencyMode::Require);
    let greedy = g
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(70))
        .unwrap();
    assert_eq!(greedy.selection.selected, [2, 1, 0]);
    assert_eq!(codes(&greedy)[3], "budget_exceeded");
    let packer = g
        .slice(
            &GroupedStrategy::Packer(GreedyPacker::new(1)),
            &items,
            &Budget::new(69),
        )
        .unwrap();
    // 0 misses with its chain (70 tokens): the walk stops at once, before
    // it reaches 1 as a unit of its own; 1 says so, though it lacks 2.
    assert!(packer.selection.selected.is_empty());
    assert_eq!(
        codes(&packer),
        [
            "dependency_excluded",
            "skip_limit_reached",
            "skip_limit_reached",
            "skip_limit_reached"
        ]
    );
    // Ignored: the plain density walk.
    let ignored = g
        .with_mode(DependencyMode::Ignore)
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(70))
        .unwrap();
    assert_eq!(ignored.selection.selected, [0, 3]);
}

#[test]
fn knapsack_rounds_repair_then_extend() {
    // 0 needs 1. Without dependencies the optimum at 60 is {0, 2}: the
    // repair drops 0, the extension adds 3 (1 no longer fits). {0, 1}
    // would have been better: no optimality is claimed once repaired.
    let items = [
        Item::new(10, 0.9),
        Item::new(50, 0.05),
        Item::new(30, 0.3),
        Item::new(25, 0.25),
    ];
    let g = Groups::new(4)
        .depends_on(0, [1])
        .unwrap()
        .with_mode(DependencyMode::Require);
    for (name, s) in every(&g, &items, 60) {
        if name == "knapsack" || name == "exact" {
            let mut sel = s.selection.selected.clone();
            sel.sort_unstable();
            assert_eq!(sel, [2, 3], "{name}");
            assert_eq!(s.repaired, Some(true), "{name}");
            assert_eq!(
                codes(&s),
                ["dependency_excluded", "budget_exceeded", "scored", "scored"],
                "{name}"
            );
        }
    }
    // At 115 everything fits: the optimum honours the dependency.
    let s = g
        .slice(
            &GroupedStrategy::Exact(ExactKnapsackSlice::new()),
            &items,
            &Budget::new(115),
        )
        .unwrap();
    assert_eq!(
        (s.repaired, value_of(&items, &s.selection.selected)),
        (Some(false), 15_000)
    );
}

#[test]
fn count_strategy_refusals() {
    let items = [
        Item::new(10, 1.0).with_kind("Tool"),
        Item::new(10, 1.0).with_kind("msg"),
    ];
    let grouped = Groups::new(2).group([0, 1]).unwrap();
    for (name, s) in strategies() {
        let r = grouped.slice(&s, &items, &Budget::new(1000));
        if is_counted(&s) {
            let e = r.unwrap_err();
            assert_eq!(
                (e.code(), e.field()),
                ("INVALID_OPTION", Some("group")),
                "{name}"
            );
            assert!(e.to_string().contains("items[0]"), "{e}");
        } else {
            assert_eq!(r.unwrap().selection.selected, [0, 1], "{name}");
        }
    }
    // Unconstrained kinds may be grouped.
    let msgs = items.map(|it| it.with_kind("msg"));
    for (name, s) in every(&grouped, &msgs, 100) {
        assert_eq!(s.selection.selected, [0, 1], "{name}");
    }
    let deps = Groups::new(2).depends_on(0, [1]).unwrap();
    let required = deps.clone().with_mode(DependencyMode::Require);
    for (name, s) in strategies() {
        let r = required.slice(&s, &msgs, &Budget::new(1000));
        if is_counted(&s) {
            let e = r.unwrap_err();
            assert_eq!(
                (e.code(), e.field()),
                ("INVALID_OPTION", Some("dependencies")),
                "{name}"
            );
            assert_eq!(e.to_string(), "options.dependencies 'require' is not supported by the count-constrained strategies");
            assert_eq!(
                deps.slice(&s, &msgs, &Budget::new(1000))
                    .unwrap()
                    .selection
                    .selected
                    .len(),
                2
            );
        } else {
            assert_eq!(r.unwrap().selection.selected.len(), 2, "{name}");
        }
    }
}

#[test]
fn token_sum_overflow() {
    let items = [
        Item::new(5, 0.1),
        Item::new(i64::MAX - 1, 0.5),
        Item::new(2, 0.5),
    ];
    let g = Groups::new(3).group([2, 1]).unwrap();
    for (name, s) in strategies() {
        let e = g.slice(&s, &items, &Budget::new(100)).unwrap_err();
        assert_eq!(
            (e.code(), e.field(), e.index()),
            ("INVALID_FIELD", Some("group"), Some(1)),
            "{name}"
        );
    }
    // Just under: fine, and left out.
    let items = [
        Item::new(5, 0.1),
        Item::new(i64::MAX - 2, 0.5),
        Item::new(2, 0.5),
    ];
    for (name, s) in every(&g, &items, 100) {
        assert_eq!(s.selection.selected, [0], "{name}");
    }
}

#[test]
fn negative_tokens_in_a_group() {
    let items = [
        Item::new(-5, 0.9),
        Item::new(10, 0.5),
        Item::new(10, 0.3),
        Item::new(10, 0.2),
    ];
    let g = Groups::new(4)
        .group([0, 1])
        .unwrap()
        .depends_on(3, [1])
        .unwrap()
        .with_mode(DependencyMode::Require);
    for (name, s) in every(&g, &items, 100)
        .into_iter()
        .filter(|(n, _)| !n.contains("count"))
    {
        assert_eq!(s.selection.selected, [2], "{name}");
        assert_eq!(
            codes(&s),
            [
                "negative_tokens",
                "group_excluded",
                "scored",
                "dependency_excluded"
            ],
            "{name}"
        );
        assert_eq!(
            s.group_reasons[1],
            Some(ExclusionReason::NegativeTokens),
            "{name}"
        );
    }
}

#[test]
fn scores_are_finite_and_checked() {
    let items = [Item::new(5, 0.1), Item::new(5, f64::NAN)];
    let e = Groups::new(2)
        .group([0, 1])
        .unwrap()
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(10))
        .unwrap_err();
    assert_eq!((e.code(), e.index()), ("INVALID_SCORE", Some(1)));
    // Sums past f64::MAX clamp rather than fail.
    let items = [Item::new(5, f64::MAX), Item::new(5, f64::MAX)];
    let s = Groups::new(2)
        .group([0, 1])
        .unwrap()
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(10))
        .unwrap();
    assert_eq!(s.selection.selected, [0, 1]);
}

#[test]
fn new_decisions_come_last_with_the_typescript_codes() {
    let n = Decision::ALL.len();
    assert_eq!(Decision::ALL[n - 2].code(), "group_excluded");
    assert_eq!(Decision::ALL[n - 1].code(), "dependency_excluded");
    assert_eq!(Decision::ALL[8].code(), "skip_limit_reached");
    assert_eq!(
        Decision::Excluded(ExclusionReason::DependencyExcluded).id(),
        10
    );
}

#[test]
fn hostile_graphs_use_no_recursion() {
    let n = 100_000;
    let items: Vec<Item<'_>> = (0..n).map(|i| Item::new(1 + (i % 3) as i64, 0.5)).collect();
    // A chain: item i needs item i + 1.
    let mut chain = Groups::new(n);
    for i in 0..n - 1 {
        chain = chain.depends_on(i, [i + 1]).unwrap();
    }
    let chain = chain.with_mode(DependencyMode::Require);
    let s = chain
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(1000))
        .unwrap();
    assert!(s.selection.total_tokens <= 1000 && !s.selection.selected.is_empty());
    let s = chain
        .slice(
            &GroupedStrategy::Packer(GreedyPacker::new(0)),
            &items,
            &Budget::new(1000),
        )
        .unwrap();
    assert!(s.selection.total_tokens <= 1000);
    // A cycle: one unit.
    let cycle = chain.depends_on(n - 1, [0]).unwrap();
    assert_eq!(cycle.units().len(), 1);
    let s = cycle
        .slice(&GroupedStrategy::Greedy, &items, &Budget::new(1000))
        .unwrap();
    assert!(s.selection.selected.is_empty());
}

#[test]
fn simulation_over_units() {
    let items = [
        Item::new(60, 0.6),
        Item::new(40, 0.45),
        Item::new(50, 0.5),
        Item::new(10, 0.05),
    ];
    let units = Groups::from_labels([None, Some("g"), Some("g"), None]).units();
    for strategy in [
        Strategy::Greedy,
        Strategy::Packer(GreedyPacker::new(1)),
        Strategy::Knapsack(KnapsackSlice::new(1).unwrap()),
        Strategy::Exact(ExactKnapsackSlice::new()),
    ] {
        let sim = BudgetSimulation::new(strategy);
        let curve = units.curve(&sim, &items, 200).unwrap();
        let grouped = GroupedStrategy::from(strategy);
        for (t, &v) in curve.iter().enumerate() {
            let s = units
                .slice(&grouped, &items, &Budget::new(t as i64))
                .unwrap();
            assert_eq!(
                v,
                value_of(&items, &s.selection.selected),
                "{strategy:?} at {t}"
            );
        }
        for i in 0..items.len() {
            let m = units.min_budget_for(&sim, &items, i, Some(200)).unwrap();
            let first = (0..=200).find(|&t| {
                units
                    .slice(&grouped, &items, &Budget::new(t))
                    .unwrap()
                    .selection
                    .selected
                    .contains(&i)
            });
            assert_eq!(m.first, first, "{strategy:?} item {i}");
        }
    }
    assert_eq!(units.items(&items, UnitScore::Value).unwrap().len(), 3);
    let required = Groups::new(2).with_mode(DependencyMode::Require).units();
    let e = required
        .curve(&BudgetSimulation::new(Strategy::Greedy), &items[..2], 10)
        .unwrap_err();
    assert_eq!(
        (e.code(), e.field()),
        ("INVALID_OPTION", Some("dependencies"))
    );
    let e: CtxpackError = units
        .min_budget_for(&BudgetSimulation::new(Strategy::Greedy), &items, 4, None)
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_INPUT");
}

/// Long dependency chains (both directions) and a huge group slice in
/// linear or n·log n time under every strategy that takes them: a
/// quadratic walk, repair or extend would not finish. Printed timings only.
#[test]
fn long_chains_and_huge_groups_slice() {
    // Full size in release (`cargo test --release`); a fifth in debug
    // builds, still far past where a quadratic step shows.
    let scale = if cfg!(debug_assertions) { 5 } else { 1 };
    let n = 100_000 / scale;
    let items: Vec<Item<'static>> = (0..n)
        .map(|i| Item::new(1 + (i % 3) as i64, f64::from((i % 7) as u32) / 10.0))
        .collect();
    for forward in [true, false] {
        let mut groups = Groups::new(n);
        for i in 0..n - 1 {
            let (a, b) = if forward { (i, i + 1) } else { (i + 1, i) };
            groups = groups.depends_on(a, [b]).expect("edge");
        }
        let units = groups.with_mode(DependencyMode::Require).units();
        for (name, strategy) in strategies() {
            if is_counted(&strategy) || name == "exact" {
                continue;
            }
            for target in [0, 500, 60_000, 250_000] {
                let start = std::time::Instant::now();
                let s = match units.slice(&strategy, &items, &Budget::new(target)) {
                    Ok(s) => s,
                    // The knapsack's own guard, not the groups'.
                    Err(e) if e.code() == "TABLE_TOO_LARGE" => continue,
                    Err(e) => panic!("{name} {target}: {e}"),
                };
                assert!(s.selection.total_tokens <= target.max(0));
                eprintln!(
                    "chain forward={forward} {name} {target}: {:?}",
                    start.elapsed()
                );
            }
        }
    }
    let m = 1_000_000 / scale;
    let big: Vec<Item<'static>> = (0..m).map(|_| Item::new(1, 0.5)).collect();
    let start = std::time::Instant::now();
    let groups = Groups::from_labels((0..m).map(|_| Some(0u8)));
    let s = groups
        .slice(&GroupedStrategy::Greedy, &big, &Budget::new(2_000_000))
        .expect("slice");
    assert_eq!(s.selection.selected.len(), m);
    eprintln!("group of {m}: {:?}", start.elapsed());
}

// ---------------------------------------------------------------------------
// `Units::closure`: what pinning items pins.

/// Test-side closure: items reachable from the seeds over group partners
/// (both ways) and, when `require`, dependencies (one way).
fn oracle_closure(inst: &Instance, require: bool, seeds: &[usize]) -> Vec<bool> {
    let n = inst.items.len();
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = seeds.to_vec();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        for j in 0..n {
            let partner = inst.labels[i].is_some() && inst.labels[i] == inst.labels[j];
            if partner || (require && inst.deps[i].contains(&j)) {
                stack.push(j);
            }
        }
    }
    seen
}

#[test]
fn closure_matches_reachability_on_random_instances() {
    let mut rng = Rng::new(12);
    for _ in 0..2000 {
        let inst = Instance::random(&mut rng, 12, 40, 150, false);
        let n = inst.items.len();
        let seeds: Vec<usize> = (0..n).filter(|_| rng.chance(1, 5)).collect();
        for (mode, require) in [
            (DependencyMode::Ignore, false),
            (DependencyMode::Require, true),
        ] {
            let got = inst
                .groups(mode)
                .units()
                .closure(seeds.iter().copied())
                .unwrap();
            assert_eq!(
                got,
                oracle_closure(&inst, require, &seeds),
                "{inst:?} {seeds:?} {mode:?}"
            );
        }
    }
}

#[test]
fn closure_pulls_the_whole_group() {
    let units = Groups::from_labels([Some("g"), None, Some("g"), Some("h")]).units();
    assert_eq!(units.closure([2]).unwrap(), [true, false, true, false]);
    assert_eq!(units.closure([]).unwrap(), [false; 4]);
}

#[test]
fn closure_follows_a_chain_of_dependencies_transitively() {
    // 0 needs 1, 1 needs 2, 2 needs 3; 4 needs 0 (not pulled by 0).
    let units = Groups::new(5)
        .depends_on(0, [1])
        .and_then(|g| g.depends_on(1, [2]))
        .and_then(|g| g.depends_on(2, [3]))
        .and_then(|g| g.depends_on(4, [0]))
        .unwrap()
        .with_mode(DependencyMode::Require)
        .units();
    assert_eq!(units.closure([0]).unwrap(), [true, true, true, true, false]);
    assert_eq!(
        units.closure([2]).unwrap(),
        [false, false, true, true, false]
    );
}

#[test]
fn closure_of_a_cycle_is_the_cycle() {
    let units = Groups::new(4)
        .depends_on(0, [1])
        .and_then(|g| g.depends_on(1, [2]))
        .and_then(|g| g.depends_on(2, [0]))
        .unwrap()
        .with_mode(DependencyMode::Require)
        .units();
    assert_eq!(units.closure([1]).unwrap(), [true, true, true, false]);
}

#[test]
fn closure_under_ignore_does_not_follow_dependencies() {
    let units = Groups::from_labels([Some("g"), Some("g"), None])
        .depends_on(0, [2])
        .unwrap()
        .units();
    assert_eq!(units.mode(), DependencyMode::Ignore);
    assert_eq!(units.closure([0]).unwrap(), [true, true, false]);
}

#[test]
fn closure_pulls_the_group_of_a_group_members_dependency() {
    // 0 and 1 are group a; 1 needs 2; 2 and 3 are group b; 4 is apart.
    let units = Groups::from_labels([Some("a"), Some("a"), Some("b"), Some("b"), None])
        .depends_on(1, [2])
        .unwrap()
        .with_mode(DependencyMode::Require)
        .units();
    assert_eq!(units.closure([0]).unwrap(), [true, true, true, true, false]);
    // Not the other way: b does not need a.
    assert_eq!(
        units.closure([3]).unwrap(),
        [false, false, true, true, false]
    );
}

#[test]
fn closure_refuses_a_seed_out_of_range() {
    let err = Groups::new(2).units().closure([0, 2]).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
}

#[test]
fn closure_of_a_100k_chain_uses_no_recursion() {
    let n = 100_000;
    let mut chain = Groups::new(n);
    for i in 0..n - 1 {
        chain = chain.depends_on(i, [i + 1]).unwrap();
    }
    let units = chain.with_mode(DependencyMode::Require).units();
    assert!(units.closure([0]).unwrap().into_iter().all(|p| p));
    let tail = units.closure([n / 2]).unwrap();
    assert_eq!(tail.iter().filter(|&&p| p).count(), n - n / 2);
    assert!(!tail[n / 2 - 1] && tail[n - 1]);
}
