//! Every edge-case row and conformance note of docs/specs/knapsack-slice.md, by name,
//! plus the bitset table guard.

use ctxpack_core::{
    Budget, CtxpackError, Decision, ExclusionReason, InclusionReason, Item, KnapsackSlice,
    Selection, Slicer,
};

fn slice(bucket: i64, items: &[Item<'_>], target: i64) -> Selection {
    KnapsackSlice::new(bucket)
        .unwrap()
        .slice(items, &Budget::new(target))
        .unwrap()
}

#[test]
fn edge_empty_scored_items_gives_empty_list() {
    assert!(slice(100, &[], 1000).selected.is_empty());
}

#[test]
fn edge_target_tokens_zero_or_negative_gives_empty_list() {
    let items = [Item::new(0, 1.0), Item::new(50, 1.0)];
    for target in [0, -100] {
        let s = slice(1, &items, target);
        assert!(s.selected.is_empty());
        assert_eq!(
            s.decisions,
            [Decision::Excluded(ExclusionReason::NoBudget); 2]
        );
    }
}

#[test]
fn edge_all_items_zero_token_all_selected() {
    let items = [Item::new(0, 0.1), Item::new(0, 0.2)];
    assert_eq!(slice(100, &items, 100).selected, [0, 1]);
}

#[test]
fn edge_capacity_zero_after_discretization_gives_only_zero_token_items() {
    // floor(99 / 100) = 0.
    let items = [Item::new(10, 0.9), Item::new(0, 0.1), Item::new(0, 0.2)];
    let s = slice(100, &items, 99);
    assert_eq!(s.selected, [1, 2]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
}

#[test]
fn edge_all_items_exceed_discretized_capacity_gives_only_zero_token_items() {
    // capacity floor(250/100) = 2; weights ceil(201/100) = 3.
    let items = [Item::new(201, 0.9), Item::new(0, 0.5), Item::new(300, 0.8)];
    let s = slice(100, &items, 250);
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::BudgetExceeded)
    );
}

#[test]
fn edge_single_candidate_fits_with_zero_token_items() {
    let items = [Item::new(100, 0.5), Item::new(0, 0.0)];
    let s = slice(100, &items, 100);
    assert_eq!(s.selected, [1, 0]);
    assert_eq!(s.decisions[0], Decision::Included(InclusionReason::Scored));
    assert_eq!(
        s.decisions[1],
        Decision::Included(InclusionReason::ZeroTokens)
    );
}

#[test]
fn conformance_zero_token_items_first_then_reconstruction_order() {
    let items = [
        Item::new(10, 0.5),
        Item::new(0, 0.1),
        Item::new(10, 0.6),
        Item::new(0, 0.2),
        Item::new(10, 0.7),
    ];
    // All fit; reconstruction walks candidates from last to first.
    assert_eq!(slice(1, &items, 30).selected, [1, 3, 4, 2, 0]);
}

#[test]
fn conformance_negative_tokens_excluded_from_dp() {
    let items = [Item::new(-10, 1.0), Item::new(10, 0.5)];
    let s = slice(1, &items, 10);
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::NegativeTokens)
    );
}

#[test]
fn discretization_ceil_weights_floor_capacity_never_exceed_budget() {
    // bucket 100: weights ceil(150/100)=2 each, capacity floor(399/100)=3.
    // Only one fits in the discretized problem although both fit in 399 real tokens.
    let items = [Item::new(150, 0.5), Item::new(150, 0.6)];
    let s = slice(100, &items, 399);
    assert_eq!(s.selected, [1]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::NotInOptimalSet)
    );
}

#[test]
fn score_scaling_floor_times_10000_clamped_at_zero() {
    // 0.00009 scales to 0 and a negative score clamps to 0: value-0 items are
    // never chosen (strict improvement), even with room to spare.
    let items = [
        Item::new(10, 0.000_09),
        Item::new(10, -0.5),
        Item::new(10, 0.0001),
    ];
    let s = slice(1, &items, 100);
    assert_eq!(s.selected, [2]);
    assert_eq!(
        s.decisions[0],
        Decision::Excluded(ExclusionReason::NotInOptimalSet)
    );
    assert_eq!(
        s.decisions[1],
        Decision::Excluded(ExclusionReason::NotInOptimalSet)
    );
}

#[test]
fn optimal_beats_greedy_density() {
    let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
    let s = slice(1, &items, 100);
    assert_eq!(s.selected, [1, 0]);
    assert_eq!(
        s.decisions[2],
        Decision::Excluded(ExclusionReason::NotInOptimalSet)
    );
}

#[test]
fn strict_improvement_keeps_earlier_item_on_ties() {
    // Two equal items, room for one: the DP only replaces on a strict gain,
    // so the first candidate is kept.
    let items = [Item::new(10, 0.5), Item::new(10, 0.5)];
    assert_eq!(slice(1, &items, 10).selected, [0]);
}

#[test]
fn bucket_size_must_be_positive() {
    for b in [0, -1, i64::MIN] {
        let err = KnapsackSlice::new(b).unwrap_err();
        assert_eq!(err, CtxpackError::InvalidBucketSize { value: b });
        assert_eq!(err.code(), "INVALID_BUCKET_SIZE");
    }
    assert_eq!(KnapsackSlice::default().bucket_size(), 100);
}

#[test]
fn table_too_large_states_candidates_capacity_cells_and_bytes() {
    let items = vec![Item::new(1, 0.5); 1001];
    let err = KnapsackSlice::new(1)
        .unwrap()
        .with_max_table_bytes(64 << 10)
        .slice(&items, &Budget::new(50_000))
        .expect_err("a 128 KiB table is over a 64 KiB limit");
    // Capacity is capped at the sum of weights (1001), an exact reduction.
    let columns: u64 = 1002;
    let bytes = 1001 * columns.div_ceil(64) * 8 + columns * 8;
    assert_eq!(
        err,
        CtxpackError::TableTooLarge {
            candidates: 1001,
            capacity: 1001,
            cells: 1001 * columns,
            bytes,
            limit: 64 << 10,
            unit: ctxpack_core::TableLimit::Bytes,
            bucket_helps: true,
        }
    );
    assert!(bytes > 64 << 10);
    let msg = err.to_string();
    for part in [
        "1001 candidates",
        "capacity 1001",
        "1003002 cells",
        &format!("{bytes} bytes"),
    ] {
        assert!(msg.contains(part), "{msg} lacks {part}");
    }
}

#[test]
fn table_uses_one_bit_per_cell() {
    // 8,000 rows x 8,001 columns = 64 M cells: 8 MB as bits (64 MB as bytes).
    let items: Vec<Item<'_>> = (0..8000).map(|i| Item::new(1 + i % 3, 0.5)).collect();
    let s = KnapsackSlice::new(1)
        .unwrap()
        .with_max_table_bytes(9 << 20)
        .slice(&items, &Budget::new(8000));
    assert!(s.is_ok());
}

#[test]
fn huge_capacity_is_refused_not_allocated() {
    let items = [Item::new(i64::MAX / 2, 0.5), Item::new(i64::MAX / 2, 0.5)];
    let err = KnapsackSlice::new(1)
        .unwrap()
        .slice(&items, &Budget::new(i64::MAX))
        .unwrap_err();
    assert_eq!(err.code(), "TABLE_TOO_LARGE");
}

#[test]
fn huge_scores_saturate_instead_of_overflowing() {
    // Both huge items scale to i64::MAX; once saturated a second one adds
    // nothing, so the strict-improvement DP keeps only the first.
    let items = [Item::new(1, 1e300), Item::new(1, 1e300), Item::new(1, 0.5)];
    let s = slice(1, &items, 3);
    assert_eq!(s.selected, [0]);
}

/// Past the platform's address space no option helps: the message names
/// that limit and advises only a coarser bucket or a smaller budget.
#[test]
fn table_past_the_address_space_names_it_and_no_option() {
    let err = ctxpack_core::CtxpackError::TableTooLarge {
        candidates: 1500,
        capacity: 1 << 31,
        cells: 3_221_225_473_500,
        bytes: 419_833_065_192,
        limit: u64::from(u32::MAX),
        unit: ctxpack_core::TableLimit::Addressable,
        bucket_helps: true,
    };
    assert_eq!(err.code(), "TABLE_TOO_LARGE");
    let text = err.to_string();
    assert!(
        text.ends_with("419833065192 bytes, more than the 4294967295 bytes this platform can address; raise bucket_size or lower the budget"),
        "{text}"
    );
}
