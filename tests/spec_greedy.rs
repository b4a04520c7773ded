//! Every edge-case row and conformance note of docs/specs/greedy-slice.md, by name.

use ctxpack_core::{Budget, Decision, ExclusionReason, GreedySlice, InclusionReason, Item, Slicer};

fn slice(items: &[Item<'_>], target: i64) -> ctxpack_core::Selection {
    GreedySlice.slice(items, &Budget::new(target)).unwrap()
}

#[test]
fn edge_empty_scored_items_gives_empty_list() {
    let s = slice(&[], 100);
    assert!(s.selected.is_empty() && s.decisions.is_empty());
}

#[test]
fn edge_target_tokens_zero_or_negative_gives_empty_list() {
    let items = [Item::new(0, 0.5), Item::new(10, 0.5)];
    for target in [0, -1, i64::MIN] {
        let s = slice(&items, target);
        assert!(s.selected.is_empty(), "target {target}");
        assert_eq!(
            s.decisions,
            [Decision::Excluded(ExclusionReason::NoBudget); 2]
        );
        assert!(!s.budget_reached);
    }
}

#[test]
fn edge_all_items_zero_token_all_selected() {
    let items = [Item::new(0, 0.1), Item::new(0, 0.9), Item::new(0, 0.5)];
    let s = slice(&items, 1);
    assert_eq!(s.selected, [0, 1, 2]);
    assert!(s
        .decisions
        .iter()
        .all(|d| *d == Decision::Included(InclusionReason::ZeroTokens)));
}

#[test]
fn edge_single_item_fits_is_selected() {
    assert_eq!(slice(&[Item::new(100, 0.3)], 100).selected, [0]);
}

#[test]
fn edge_single_item_exceeds_budget_gives_only_zero_token_items() {
    let s = slice(&[Item::new(101, 0.9), Item::new(0, 0.0)], 100);
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
    assert!(s.budget_reached);
}

#[test]
fn edge_all_items_exceed_budget_individually_gives_only_zero_token_items() {
    let items = [
        Item::new(0, 0.2),
        Item::new(500, 0.9),
        Item::new(0, 0.1),
        Item::new(200, 0.8),
    ];
    assert_eq!(slice(&items, 100).selected, [0, 2]);
}

#[test]
fn edge_all_items_fit_all_selected() {
    let items = [Item::new(10, 0.1), Item::new(20, 0.9), Item::new(30, 0.5)];
    let s = slice(&items, 60);
    let mut sel = s.selected.clone();
    sel.sort_unstable();
    assert_eq!(sel, [0, 1, 2]);
    assert_eq!(s.total_tokens, 60);
}

#[test]
fn conformance_equal_density_prefers_lower_index() {
    // A (density 0.5, index 0) must precede B (density 0.5, index 3).
    let items = [
        Item::new(2, 1.0),
        Item::new(1, 0.1),
        Item::new(1, 0.2),
        Item::new(4, 2.0),
    ];
    let s = slice(&items, 100);
    assert_eq!(s.selected, [0, 3, 2, 1]);
}

#[test]
fn conformance_zero_token_order_ignores_score() {
    let items = [Item::new(0, 0.3), Item::new(0, 0.9), Item::new(0, 0.1)];
    assert_eq!(slice(&items, 50).selected, [0, 1, 2]);
}

#[test]
fn conformance_zero_token_items_sort_first_whatever_the_scores() {
    let items = [Item::new(1, 1.0), Item::new(0, 0.0)];
    assert_eq!(slice(&items, 10).selected, [1, 0]);
}

#[test]
fn conformance_skip_not_defer_single_pass() {
    // densities: 0 (0.02), 1 (0.0125), 2 (0.01). Item 1 does not fit after 0;
    // item 2 still does: skipped, not deferred, and no backtracking.
    let items = [Item::new(50, 1.0), Item::new(80, 1.0), Item::new(30, 0.3)];
    let s = slice(&items, 100);
    assert_eq!(s.selected, [0, 2]);
    assert_eq!(
        s.decisions[1],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
}

#[test]
fn conformance_output_is_density_order_not_input_order() {
    let items = [Item::new(100, 0.1), Item::new(10, 0.5), Item::new(10, 0.9)];
    assert_eq!(slice(&items, 1000).selected, [2, 1, 0]);
}

#[test]
fn conformance_equal_density_budget_drops_last_in_input_order() {
    let items = [Item::new(30, 0.6), Item::new(30, 0.6), Item::new(30, 0.6)];
    assert_eq!(slice(&items, 60).selected, [0, 1]);
}

#[test]
fn choice_negative_tokens_are_excluded() {
    let items = [Item::new(-50, 0.9), Item::new(100, 0.5)];
    let s = slice(&items, 100);
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::NegativeTokens)
    );
}

#[test]
fn scores_outside_unit_interval_are_used_as_given() {
    let items = [Item::new(10, -1.0), Item::new(10, 5.0)];
    assert_eq!(slice(&items, 10).selected, [1]);
}

#[test]
fn nan_and_infinite_scores_are_refused_with_index() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let items = [Item::new(1, 0.5), Item::new(1, 0.5), Item::new(1, bad)];
        let err = GreedySlice.slice(&items, &Budget::new(10)).unwrap_err();
        assert_eq!(err.code(), "INVALID_SCORE");
        assert!(err.to_string().starts_with("items[2].score"), "{err}");
    }
}

#[test]
fn negative_zero_score_ties_with_zero_by_index() {
    let items = [Item::new(10, -0.0), Item::new(10, 0.0)];
    assert_eq!(slice(&items, 10).selected, [0]);
}
