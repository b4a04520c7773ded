//! docs/specs/greedy-knapsack-packer.md: its acceptance criteria and the seed code's
//! edge cases, by name.

use ctxpack_core::{
    Budget, Decision, ExclusionReason, GreedyPacker, InclusionReason, Item, Slicer,
};

fn pack(limit: u32, items: &[Item<'_>], budget: i64) -> ctxpack_core::Selection {
    GreedyPacker::new(limit)
        .slice(items, &Budget::new(budget))
        .unwrap()
}

#[test]
fn acceptance_includes_all_memories_that_fit() {
    let items = [Item::new(10, 0.9), Item::new(20, 0.8), Item::new(30, 0.7)];
    let s = pack(3, &items, 60);
    assert_eq!(s.selected, [0, 1, 2]);
    assert!(!s.budget_reached);
    assert_eq!(s.excluded_count(), 0);
}

#[test]
fn acceptance_skip_and_continue_large_item_does_not_stop_iteration() {
    let items = [Item::new(10, 0.9), Item::new(500, 0.8), Item::new(30, 0.7)];
    let s = pack(3, &items, 60);
    assert_eq!(s.selected, [0, 2]);
    assert_eq!(
        s.decisions[1],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
}

#[test]
fn acceptance_stops_after_three_consecutive_skips() {
    let items = [
        Item::new(90, 0.9),
        Item::new(20, 0.8),
        Item::new(30, 0.7),
        Item::new(40, 0.6),
        Item::new(5, 0.5),
    ];
    let s = pack(3, &items, 100);
    assert_eq!(s.selected, [0]);
    assert_eq!(
        s.decisions[4],
        Decision::Excluded(ExclusionReason::SkipLimitReached)
    );
    assert_eq!(s.excluded_count(), 4); // the seed's skipped_count counts the rest too
}

#[test]
fn acceptance_was_budget_reached_when_any_memory_skipped() {
    let s = pack(3, &[Item::new(10, 0.9), Item::new(95, 0.8)], 100);
    assert!(s.budget_reached);
}

#[test]
fn acceptance_total_tokens_matches_included() {
    let items = [Item::new(10, 0.5), Item::new(95, 0.4), Item::new(25, 0.25)];
    let s = pack(3, &items, 100);
    assert_eq!(s.total_tokens, 35);
    assert!((s.total_score - 0.75).abs() < 1e-12);
}

#[test]
fn skip_count_resets_after_a_fit() {
    let items = [
        Item::new(60, 0.9),
        Item::new(50, 0.8), // miss 1
        Item::new(50, 0.7), // miss 2
        Item::new(10, 0.6), // fits, reset
        Item::new(50, 0.5), // miss 1
        Item::new(50, 0.4), // miss 2
        Item::new(30, 0.3), // fits
    ];
    assert_eq!(pack(3, &items, 100).selected, [0, 3, 6]);
}

#[test]
fn zero_limit_never_stops() {
    let mut items = vec![Item::new(100, 0.9)];
    items.extend(std::iter::repeat(Item::new(50, 0.5)).take(100));
    items.push(Item::new(1, 0.1));
    let s = pack(0, &items, 101);
    assert_eq!(s.selected, [0, 101]);
}

#[test]
fn edge_budget_zero_or_negative_packs_nothing_and_budget_not_reached() {
    for b in [0, -1] {
        let s = pack(3, &[Item::new(0, 0.5), Item::new(1, 0.5)], b);
        assert!(s.selected.is_empty());
        assert_eq!(s.excluded_count(), 2);
        assert!(!s.budget_reached);
        assert_eq!(
            s.decisions,
            [Decision::Excluded(ExclusionReason::NoBudget); 2]
        );
    }
}

#[test]
fn edge_empty_input() {
    let s = pack(3, &[], 100);
    assert!(s.selected.is_empty() && !s.budget_reached);
}

#[test]
fn keeps_caller_order_no_sorting() {
    let items = [Item::new(10, 0.1), Item::new(10, 0.9)];
    assert_eq!(pack(3, &items, 100).selected, [0, 1]);
}

#[test]
fn exact_fit_is_included() {
    let s = pack(3, &[Item::new(40, 0.5), Item::new(60, 0.5)], 100);
    assert_eq!(s.selected, [0, 1]);
    assert_eq!(s.decisions[1], Decision::Included(InclusionReason::Scored));
}

#[test]
fn choice_negative_tokens_excluded_and_not_a_miss() {
    let items = [
        Item::new(100, 0.9),
        Item::new(10, 0.8), // miss 1
        Item::new(-5, 0.7), // excluded, not a miss
        Item::new(10, 0.6), // miss 2
        Item::new(-5, 0.5), // excluded
        Item::new(10, 0.4), // miss 3: stop
        Item::new(-5, 0.3), // still reported as negative
        Item::new(0, 0.2),  // never reached
    ];
    let s = pack(3, &items, 100);
    assert_eq!(s.selected, [0]);
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::NegativeTokens)
    );
    assert_eq!(
        s.decisions[6],
        Decision::Excluded(ExclusionReason::NegativeTokens)
    );
    assert_eq!(
        s.decisions[7],
        Decision::Excluded(ExclusionReason::SkipLimitReached)
    );
}
