//! `GreedyPacker::slice_lazy`: the packer asks for a count only when its
//! walk reaches an item (docs/specs/greedy-knapsack-packer.md: "After 3 consecutive
//! skips, iteration stops (prevents O(n) wasted token counting)"), selects
//! exactly as `Slicer::slice` does, and stops at the first counting error.
#![cfg(not(target_arch = "wasm32"))] // proptest is a native dev-dependency

use std::cell::RefCell;

use ctxpack_core::{
    Budget, CtxpackError, Decision, ExclusionReason, GreedyPacker, Item, LazySelection, Slicer,
};
use proptest::prelude::*;

/// Runs `slice_lazy` over `tokens` (scores 1.0, 0.9, …) and records which
/// counts were asked for.
fn lazy(limit: u32, tokens: &[i64], budget: i64) -> (LazySelection, Vec<usize>) {
    let scores: Vec<f64> = (0..tokens.len()).map(score).collect();
    let mut asked = Vec::new();
    let s = GreedyPacker::new(limit)
        .slice_lazy(&scores, &Budget::new(budget), |i| {
            asked.push(i);
            Ok::<_, CtxpackError>(tokens[i])
        })
        .unwrap();
    (s, asked)
}

#[allow(clippy::cast_precision_loss)]
fn score(i: usize) -> f64 {
    1.0 - i as f64 / 1000.0
}

#[test]
fn counts_only_what_the_walk_reaches() {
    // Budget 100: 90 fits; 20, 30, 40 are three misses in a row; 5 is never counted.
    let (s, asked) = lazy(3, &[90, 20, 30, 40, 5], 100);
    assert_eq!(asked, [0, 1, 2, 3]);
    assert_eq!(s.counted, 4);
    assert_eq!(s.selection.selected, [0]);
    assert_eq!(
        s.selection.decisions[4],
        Decision::Excluded(ExclusionReason::SkipLimitReached)
    );
    assert_eq!(s.selection.excluded_count(), 4);
    assert!(s.selection.budget_reached);
}

#[test]
fn a_fit_resets_the_miss_count_so_the_walk_counts_further() {
    let (s, asked) = lazy(2, &[60, 50, 10, 50, 50, 1, 1], 100);
    // 60 fits, 50 misses, 10 fits (reset), 50 and 50 miss twice: stop before the 1s.
    assert_eq!(asked, [0, 1, 2, 3, 4]);
    assert_eq!(s.selection.selected, [0, 2]);
    assert_eq!(s.selection.total_tokens, 70);
}

#[test]
fn no_limit_counts_everything_once_in_order() {
    let tokens: Vec<i64> = (0..50).map(|i| 10 + i % 7).collect();
    let (s, asked) = lazy(0, &tokens, 100);
    assert_eq!(asked, (0..50).collect::<Vec<_>>());
    assert_eq!(s.counted, 50);
}

#[test]
fn a_budget_of_zero_or_less_and_an_empty_input_count_nothing() {
    for budget in [0, -10] {
        let (s, asked) = lazy(3, &[1, 2, -3], budget);
        assert!(asked.is_empty());
        assert_eq!(s.counted, 0);
        assert!(s.selection.selected.is_empty() && !s.selection.budget_reached);
        // Never counted, so the negative count is not known: no_budget for all.
        assert_eq!(
            s.selection.decisions,
            [Decision::Excluded(ExclusionReason::NoBudget); 3]
        );
    }
    let (s, asked) = lazy(3, &[], 100);
    assert!(asked.is_empty() && s.selection.decisions.is_empty());
}

#[test]
fn negative_counts_are_excluded_and_are_not_misses() {
    let (s, asked) = lazy(2, &[100, 10, -5, 10, 7], 100);
    // 100 fits; 10 misses; -5 is excluded (not a miss); 10 misses: stop.
    assert_eq!(asked, [0, 1, 2, 3]);
    assert_eq!(
        s.selection.decisions[2],
        Decision::Excluded(ExclusionReason::NegativeTokens)
    );
    assert_eq!(
        s.selection.decisions[4],
        Decision::Excluded(ExclusionReason::SkipLimitReached)
    );
}

#[test]
fn totals_are_those_of_the_counted_selection() {
    let (s, _) = lazy(3, &[40, 70, 30, 50], 100);
    assert_eq!(s.selection.selected, [0, 2]);
    assert_eq!(s.selection.total_tokens, 70);
    assert!((s.selection.total_score - (score(0) + score(2))).abs() < 1e-12);
    assert!(!s.selection.over_budget);
}

#[test]
fn the_first_counting_error_stops_the_walk_and_comes_back() {
    let asked = RefCell::new(Vec::new());
    let err = GreedyPacker::new(0)
        .slice_lazy(&[0.9, 0.8, 0.7, 0.6], &Budget::new(100), |i| {
            asked.borrow_mut().push(i);
            if i == 2 {
                Err(CtxpackError::InvalidField {
                    field: "tokens".into(),
                    index: Some(i),
                    reason: "could not be counted".into(),
                })
            } else {
                Ok(10)
            }
        })
        .unwrap_err();
    assert_eq!((err.code(), err.index()), ("INVALID_FIELD", Some(2)));
    assert_eq!(*asked.borrow(), [0, 1, 2]);
}

/// A caller's own error type: anything `CtxpackError` converts into.
#[derive(Debug, PartialEq)]
enum CountError {
    Core(&'static str),
    Tokenizer(String),
}

impl From<CtxpackError> for CountError {
    fn from(e: CtxpackError) -> Self {
        CountError::Core(e.code())
    }
}

#[test]
fn works_with_the_callers_own_error_type() {
    let err = GreedyPacker::default()
        .slice_lazy(&[0.5, 0.4], &Budget::new(100), |i| {
            if i == 1 {
                Err(CountError::Tokenizer("vocabulary missing".into()))
            } else {
                Ok(1)
            }
        })
        .unwrap_err();
    assert_eq!(err, CountError::Tokenizer("vocabulary missing".into()));
}

#[test]
fn invalid_scores_are_refused_before_anything_is_counted() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut asked = 0;
        let err = GreedyPacker::default()
            .slice_lazy(&[0.5, bad, 0.1], &Budget::new(100), |_| {
                asked += 1;
                Ok::<_, CountError>(1)
            })
            .unwrap_err();
        assert_eq!(err, CountError::Core("INVALID_SCORE"));
        assert_eq!(asked, 0);
    }
}

fn tokens() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(
        prop_oneof![8 => 0i64..120, 1 => -20i64..0, 1 => Just(i64::MAX)],
        0..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// `slice_lazy` is `slice` with the counts asked for on the way: the
    /// same selection and totals, every reached item decided alike, a
    /// prefix of the items counted, each once, and nothing past the point
    /// where the walk stopped.
    #[test]
    fn lazy_equals_eager_and_counts_a_prefix(
        tokens in tokens(),
        limit in 0u32..5,
        budget in -5i64..400,
    ) {
        let items: Vec<Item<'_>> = tokens.iter().enumerate().map(|(i, &t)| Item::new(t, score(i))).collect();
        let eager = GreedyPacker::new(limit).slice(&items, &Budget::new(budget)).unwrap();
        let (lazy, asked) = lazy(limit, &tokens, budget);
        prop_assert_eq!(&asked, &(0..lazy.counted).collect::<Vec<_>>());
        prop_assert_eq!(&lazy.selection.selected, &eager.selected);
        prop_assert_eq!(lazy.selection.total_tokens, eager.total_tokens);
        prop_assert_eq!(lazy.selection.total_score.to_bits(), eager.total_score.to_bits());
        prop_assert_eq!(lazy.selection.budget_reached, eager.budget_reached);
        for (i, (l, e)) in lazy.selection.decisions.iter().zip(&eager.decisions).enumerate() {
            if i < lazy.counted || tokens[i] >= 0 {
                prop_assert_eq!(l, e, "item {}", i);
            } else {
                // Never counted: the eager packer knows the count is negative, the lazy one does not.
                prop_assert_eq!(*e, Decision::Excluded(ExclusionReason::NegativeTokens));
            }
        }
        // Where the walk stopped early, the rest were never counted.
        if lazy.counted < tokens.len() {
            prop_assert!(budget <= 0 || limit > 0);
            prop_assert!(lazy.selection.decisions[lazy.counted..].iter().all(|d| matches!(
                d,
                Decision::Excluded(ExclusionReason::SkipLimitReached | ExclusionReason::NoBudget)
            )));
        }
    }
}
