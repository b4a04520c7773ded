//! docs/specs/count-constrained-knapsack-slice.md: the five conformance vector
//! outlines, every edge-case row, the validation rules and D180/D181 (the spec's
//! numbered normative rules: the phase 2 re-sort and the phase 3 counts).

use ctxpack_core::{
    Budget, CountConstrainedKnapsackSlice, CountEntryProblem, CountQuotaEntry, CtxpackError,
    Decision, ExclusionReason, InclusionReason, Item, KnapsackSlice, ScarcityBehavior, Selection,
    Shortfall, Slicer,
};

fn ccks(
    entries: Vec<CountQuotaEntry>,
    bucket: i64,
    scarcity: ScarcityBehavior,
) -> CountConstrainedKnapsackSlice {
    CountConstrainedKnapsackSlice::new(entries, KnapsackSlice::new(bucket).unwrap(), scarcity)
        .unwrap()
}

fn run(slice: &CountConstrainedKnapsackSlice, items: &[Item<'_>], target: i64) -> Selection {
    slice.slice(items, &Budget::new(target)).unwrap()
}

fn cap_exclusions(s: &Selection) -> usize {
    s.decisions
        .iter()
        .filter(|d| **d == Decision::Excluded(ExclusionReason::CountCapExceeded))
        .count()
}

#[test]
fn conformance_1_baseline_require_2_knapsack_selects_residual() {
    let items = [
        Item::new(100, 0.9).with_kind("tool"), // tool-a
        Item::new(100, 0.7).with_kind("tool"), // tool-b
        Item::new(100, 0.5).with_kind("msg"),  // msg-x
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 2, 4)],
            100,
            ScarcityBehavior::Degrade,
        ),
        &items,
        1000,
    );
    assert_eq!(s.selected, [0, 1, 2]);
    assert_eq!(
        s.decisions[0],
        Decision::Included(InclusionReason::Required)
    );
    assert_eq!(
        s.decisions[1],
        Decision::Included(InclusionReason::Required)
    );
    assert_eq!(s.decisions[2], Decision::Included(InclusionReason::Scored));
    assert!(s.shortfalls.is_empty());
    assert_eq!(cap_exclusions(&s), 0);
}

#[test]
fn conformance_2_cap_exclusion_after_phase2_resort() {
    let items = [
        Item::new(100, 0.9).with_kind("tool"), // tool-a
        Item::new(100, 0.8).with_kind("tool"), // tool-b
        Item::new(100, 0.7).with_kind("tool"), // tool-c
        Item::new(100, 0.6).with_kind("tool"), // tool-d
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 1, 2)],
            100,
            ScarcityBehavior::Degrade,
        ),
        &items,
        600,
    );
    assert_eq!(s.selected, [0, 1]);
    assert_eq!(cap_exclusions(&s), 2);
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
    assert_eq!(
        s.decisions[3],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
    assert!(s.shortfalls.is_empty());
}

#[test]
fn conformance_3_scarcity_degrade_records_shortfall() {
    let items = [Item::new(100, 0.9).with_kind("tool")];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 3, 5)],
            100,
            ScarcityBehavior::Degrade,
        ),
        &items,
        500,
    );
    assert_eq!(s.selected, [0]);
    assert_eq!(
        s.shortfalls,
        [Shortfall {
            kind: "tool".into(),
            required_count: 3,
            satisfied_count: 1
        }]
    );
    assert_eq!(cap_exclusions(&s), 0);
}

#[test]
fn conformance_4_tag_non_exclusivity_two_kinds_independent() {
    let items = [
        Item::new(100, 0.9).with_kind("tool"),   // item-tool
        Item::new(100, 0.8).with_kind("memory"), // item-memory
        Item::new(100, 0.5).with_kind("tool"),   // item-extra
    ];
    let entries = vec![
        CountQuotaEntry::new("tool", 1, 4),
        CountQuotaEntry::new("memory", 1, 4),
    ];
    let s = run(&ccks(entries, 100, ScarcityBehavior::Degrade), &items, 1000);
    assert_eq!(s.selected, [0, 1, 2]);
    assert_eq!(s.decisions[2], Decision::Included(InclusionReason::Scored));
    assert!(s.shortfalls.is_empty());
    assert_eq!(cap_exclusions(&s), 0);
}

#[test]
fn conformance_5_require_and_cap_knapsack_picks_msgs_from_residual() {
    let items = [
        Item::new(100, 0.9).with_kind("tool"), // tool-a
        Item::new(100, 0.7).with_kind("tool"), // tool-b
        Item::new(50, 0.8).with_kind("msg"),   // msg-s
        Item::new(150, 0.6).with_kind("msg"),  // msg-m
        Item::new(200, 0.4).with_kind("msg"),  // msg-l
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 2, 2)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        1000,
    );
    // Phase 1 in score order, then phase 2 re-sorted by score.
    assert_eq!(s.selected, [0, 1, 2, 3, 4]);
    assert!(s.shortfalls.is_empty());
    assert_eq!(cap_exclusions(&s), 0);
}

#[test]
fn edge_empty_scored_items_gives_empty_list() {
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 1, 1)],
            100,
            ScarcityBehavior::Throw,
        ),
        &[],
        100,
    );
    assert!(s.selected.is_empty() && s.shortfalls.is_empty());
}

#[test]
fn edge_target_tokens_zero_or_negative_gives_empty_list() {
    let items = [Item::new(0, 0.9).with_kind("tool")];
    for target in [0, -5] {
        let s = run(
            &ccks(
                vec![CountQuotaEntry::new("tool", 1, 1)],
                100,
                ScarcityBehavior::Throw,
            ),
            &items,
            target,
        );
        assert!(s.selected.is_empty());
        assert_eq!(s.decisions, [Decision::Excluded(ExclusionReason::NoBudget)]);
    }
}

#[test]
fn edge_no_entries_runs_unconstrained_knapsack() {
    let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
    let plain = KnapsackSlice::new(1)
        .unwrap()
        .slice(&items, &Budget::new(100))
        .unwrap();
    let s = run(&ccks(vec![], 1, ScarcityBehavior::Degrade), &items, 100);
    let mut expected = plain.selected.clone();
    expected.sort_by(|&a, &b| items[b].score.total_cmp(&items[a].score));
    assert_eq!(s.selected, expected); // the knapsack's set, re-sorted by score (D180)
}

#[test]
fn edge_require_equals_cap_commits_exactly_and_adds_no_more() {
    let items = [
        Item::new(10, 0.5).with_kind("doc"),
        Item::new(10, 0.9).with_kind("doc"),
        Item::new(10, 0.7).with_kind("doc"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("doc", 2, 2)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [1, 2]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
}

#[test]
fn edge_require_zero_cap_positive_commits_nothing_and_caps_phase2() {
    let items = [
        Item::new(10, 0.5).with_kind("doc"),
        Item::new(10, 0.9).with_kind("doc"),
        Item::new(10, 0.7).with_kind("doc"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("doc", 0, 1)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [1]);
    assert!(s
        .decisions
        .iter()
        .all(|d| *d != Decision::Included(InclusionReason::Required)));
}

#[test]
fn edge_fewer_candidates_than_require_throw_uses_spec_message() {
    let items = [
        Item::new(10, 0.5).with_kind("tool"),
        Item::new(10, 0.5).with_kind("msg"),
    ];
    let err = ccks(
        vec![CountQuotaEntry::new("tool", 3, 3)],
        1,
        ScarcityBehavior::Throw,
    )
    .slice(&items, &Budget::new(100))
    .unwrap_err();
    assert_eq!(err.code(), "COUNT_REQUIREMENT_SHORTFALL");
    assert_eq!(
        err.to_string(),
        "CountConstrainedKnapsackSlice: candidate pool for the kind of entries[0] has 1 items but RequireCount is 3."
    );
}

#[test]
fn edge_required_kind_absent_records_shortfall_of_zero() {
    let items = [Item::new(10, 0.5).with_kind("msg")];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("memory", 1, 2)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [0]);
    assert_eq!(
        s.shortfalls,
        [Shortfall {
            kind: "memory".into(),
            required_count: 1,
            satisfied_count: 0
        }]
    );
}

#[test]
fn edge_phase1_exhausts_budget_phase2_selects_nothing_and_overrun_is_reported() {
    let items = [
        Item::new(300, 0.2).with_kind("sys"),
        Item::new(10, 0.9).with_kind("msg"),
        Item::new(0, 0.9).with_kind("msg"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("sys", 1, 1)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        250,
    );
    assert_eq!(s.selected, [0]);
    assert!(s.over_budget);
    assert_eq!(s.overrun_tokens, 50);
    assert_eq!(s.total_tokens, 300);
    // Residual target 0: the spec's knapsack selects nothing, zero-token items included.
    assert_eq!(
        s.decisions[1],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
}

#[test]
fn edge_table_too_large_propagates_from_knapsack() {
    let items = vec![Item::new(1, 0.5).with_kind("msg"); 2000];
    let slice = CountConstrainedKnapsackSlice::new(
        vec![],
        KnapsackSlice::new(1).unwrap().with_max_table_bytes(4096),
        ScarcityBehavior::Degrade,
    )
    .unwrap();
    assert_eq!(
        slice
            .slice(&items, &Budget::new(100_000))
            .unwrap_err()
            .code(),
        "TABLE_TOO_LARGE"
    );
}

#[test]
fn validation_require_above_cap_rejected() {
    let err = CountConstrainedKnapsackSlice::new(
        vec![
            CountQuotaEntry::new("a", 0, 1),
            CountQuotaEntry::new("b", 3, 2),
        ],
        KnapsackSlice::default(),
        ScarcityBehavior::Degrade,
    )
    .unwrap_err();
    assert_eq!(
        err,
        CtxpackError::InvalidCountEntry {
            index: 1,
            kind: "b".into(),
            problem: CountEntryProblem::RequireOverCap {
                require_count: 3,
                cap_count: 2
            }
        }
    );
    assert_eq!(
        err.to_string(),
        "entries[1]: require_count 3 must not exceed cap_count 2"
    );
}

#[test]
fn validation_cap_zero_with_positive_require_rejected() {
    let err = CountConstrainedKnapsackSlice::new(
        vec![CountQuotaEntry::new("a", 1, 0)],
        KnapsackSlice::default(),
        ScarcityBehavior::Degrade,
    )
    .unwrap_err();
    assert_eq!(err.code(), "INVALID_COUNT_ENTRY");
    assert!(err.to_string().contains("cap_count 0 with require_count 1"));
}

#[test]
fn validation_cap_zero_require_zero_allowed_and_excludes_the_kind() {
    let items = [
        Item::new(10, 0.9).with_kind("x"),
        Item::new(10, 0.1).with_kind("y"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("x", 0, 0)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
}

#[test]
fn choice_duplicate_kinds_case_insensitive_rejected() {
    let err = CountConstrainedKnapsackSlice::new(
        vec![
            CountQuotaEntry::new("Tool", 0, 1),
            CountQuotaEntry::new("tool", 0, 2),
        ],
        KnapsackSlice::default(),
        ScarcityBehavior::Degrade,
    )
    .unwrap_err();
    assert_eq!(err.code(), "INVALID_COUNT_ENTRY");
    assert!(err.to_string().starts_with("entries[1]"), "{err}");
    assert!(matches!(
        err,
        CtxpackError::InvalidCountEntry {
            problem: CountEntryProblem::DuplicateKind { first: 0 },
            ..
        }
    ));
}

#[test]
fn kinds_compare_case_insensitively_in_partitioning_and_caps() {
    let items = [
        Item::new(10, 0.9).with_kind("TOOL"),
        Item::new(10, 0.8).with_kind("tool"),
        Item::new(10, 0.7).with_kind("Tool"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tOoL", 1, 2)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [0, 1]);
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
}

#[test]
fn d180_phase2_output_resorted_by_score_before_caps() {
    // The knapsack reconstructs from the last candidate, so without the
    // re-sort the 0.1 item would come first and take the only cap slot.
    let items = [
        Item::new(10, 0.9).with_kind("doc"),
        Item::new(10, 0.5).with_kind("msg"),
        Item::new(10, 0.1).with_kind("doc"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("doc", 0, 1)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [0, 1]);
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
}

#[test]
fn d180_resort_is_stable_equal_scores_keep_knapsack_order() {
    let items = [Item::new(10, 0.5), Item::new(10, 0.5), Item::new(10, 0.5)];
    let s = run(&ccks(vec![], 1, ScarcityBehavior::Degrade), &items, 100);
    assert_eq!(s.selected, [2, 1, 0]); // reconstruction order survives a stable sort
}

#[test]
fn d181_phase3_counts_start_from_phase1() {
    // require 1 cap 1: phase 1 commits one; phase 3 must not add another.
    let items = [
        Item::new(10, 0.9).with_kind("doc"),
        Item::new(10, 0.8).with_kind("doc"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("doc", 1, 1)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [0]);
    assert_eq!(
        s.decisions[1],
        Decision::Excluded(ExclusionReason::CountCapExceeded)
    );
}

#[test]
fn phase1_commits_in_entry_order_top_scores_first_ties_by_input_order() {
    let items = [
        Item::new(10, 0.5).with_kind("b"),
        Item::new(10, 0.7).with_kind("a"),
        Item::new(10, 0.7).with_kind("b"),
        Item::new(10, 0.9).with_kind("a"),
        Item::new(10, 0.7).with_kind("b"),
    ];
    let entries = vec![
        CountQuotaEntry::new("b", 2, 5),
        CountQuotaEntry::new("a", 1, 5),
    ];
    let s = run(&ccks(entries, 1, ScarcityBehavior::Degrade), &items, 20);
    assert_eq!(s.selected, [2, 4, 3]);
    assert!(s.over_budget);
    assert_eq!(s.overrun_tokens, 10);
}

#[test]
fn choice_negative_token_items_excluded_before_phase1() {
    let items = [
        Item::new(-10, 0.9).with_kind("tool"),
        Item::new(10, 0.5).with_kind("tool"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 1, 1)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::NegativeTokens)
    );
}

#[test]
fn residual_budget_is_capped_by_max_tokens() {
    // Equal target and max here; the residual budget never exceeds max_tokens.
    let items = [Item::new(50, 0.9).with_kind("a"), Item::new(60, 0.8)];
    let slice = ccks(
        vec![CountQuotaEntry::new("a", 1, 1)],
        1,
        ScarcityBehavior::Degrade,
    );
    let s = slice
        .slice(&items, &Budget::with_max(100, 100).unwrap())
        .unwrap();
    assert_eq!(s.selected, [0]);
    assert_eq!(
        s.decisions[1],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
}

#[test]
fn negative_zero_score_ties_with_zero_in_phase1_by_input_order() {
    let items = [
        Item::new(10, -0.0).with_kind("tool"),
        Item::new(10, 0.0).with_kind("tool"),
    ];
    let s = run(
        &ccks(
            vec![CountQuotaEntry::new("tool", 1, 1)],
            1,
            ScarcityBehavior::Degrade,
        ),
        &items,
        100,
    );
    assert_eq!(s.selected, [0]);
}
