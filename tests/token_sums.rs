//! Token counts whose sums pass `i64::MAX`: every walk must see that such a
//! sum fits no budget (a saturated sum equals a budget of `i64::MAX`), and
//! the totals of a selection that commits them anyway (count requirements)
//! saturate instead of wrapping. Found by a review that ran these with
//! overflow checks on: the packer and the grouped walk panicked in debug
//! builds and selected past the budget in release builds.

use ctxpack_core::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, DependencyMode, GreedyPacker,
    GreedySlice, GroupedStrategy, Groups, Item, KnapsackSlice, ScarcityBehavior, Slicer,
};

/// Half of `i64::MAX`, rounded up: two of them sum past it.
const HALF: i64 = i64::MAX / 2 + 1;

#[test]
fn packer_two_items_summing_past_i64_max_at_the_largest_budget() {
    let items = [Item::new(HALF, 0.9), Item::new(HALF, 0.8)];
    for limit in [0, 3] {
        let s = GreedyPacker::new(limit)
            .slice(&items, &Budget::new(i64::MAX))
            .unwrap();
        assert_eq!(s.selected, [0], "limit {limit}");
        assert_eq!(s.total_tokens, HALF);
        assert!(s.budget_reached);
    }
    // GreedySlice already compared against what is left.
    let g = GreedySlice.slice(&items, &Budget::new(i64::MAX)).unwrap();
    assert_eq!(g.selected, [0]);
}

#[test]
fn grouped_walk_a_dependency_summing_past_i64_max() {
    // Item 1 needs item 0; together they pass i64::MAX, so 1 cannot go in.
    let items = [Item::new(HALF, 0.1), Item::new(HALF, 0.9)];
    let groups = Groups::new(2)
        .depends_on(1, [0])
        .unwrap()
        .with_mode(DependencyMode::Require);
    for (name, strategy) in [
        ("greedy", GroupedStrategy::Greedy),
        ("packer", GroupedStrategy::Packer(GreedyPacker::default())),
    ] {
        let s = groups
            .slice(&strategy, &items, &Budget::new(i64::MAX))
            .unwrap()
            .selection;
        assert_eq!(
            s.selected,
            [0],
            "{name}: item 0 alone fits, 1 with it does not"
        );
        assert_eq!(s.total_tokens, HALF, "{name}");
    }
}

#[test]
fn count_requirements_committing_past_i64_max_saturate_the_totals() {
    let items = [
        Item::new(HALF, 0.5).with_kind("a"),
        Item::new(HALF, 0.4).with_kind("a"),
    ];
    let slice = CountConstrainedKnapsackSlice::new(
        vec![CountQuotaEntry::new("a", 2, 2)],
        KnapsackSlice::default(),
        ScarcityBehavior::Degrade,
    )
    .unwrap();
    let s = slice.slice(&items, &Budget::new(10)).unwrap();
    assert_eq!(s.selected.len(), 2, "both required items are committed");
    assert_eq!(s.total_tokens, i64::MAX);
    assert_eq!(s.overrun_tokens, i64::MAX - 10);
    assert!(s.over_budget);
}
