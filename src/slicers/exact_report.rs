//! What the exact slices ([`ExactKnapsackSlice`](crate::ExactKnapsackSlice),
//! [`ExactCountConstrainedSlice`](crate::ExactCountConstrainedSlice)) report
//! beside their [`Selection`](crate::Selection): the solver that answered,
//! why it fell back, the value reached.

use crate::knapsack::scaled_value;
use crate::Item;

/// How an exact slice reached its answer.
///
/// ```
/// use ctxpack_core::{Budget, ExactKnapsackSlice, Item, Slicer, Solver};
/// let s = ExactKnapsackSlice::default().slice(&[Item::new(10, 0.5)], &Budget::new(100))?;
/// assert_eq!(s.exact.unwrap().solver, Solver::Exact);
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Solver {
    /// The optimum at token precision.
    Exact,
    /// The optimum for token counts rounded up to multiples of
    /// `bucket_size` and the target rounded down (every such selection fits
    /// the real target).
    Bucketed {
        /// The bucket size used.
        bucket_size: i64,
    },
    /// The exact search gave up (`reason`); the bucketed
    /// [`KnapsackSlice`](crate::KnapsackSlice) DP answered with `bucket_size`, the smallest whose
    /// table fits the limits. The selection fits the budget but may not be
    /// optimal.
    BucketedFallback {
        /// The bucket size of the fallback DP.
        bucket_size: i64,
        /// Which guard stopped the exact search.
        reason: FallbackReason,
    },
    /// The count-constrained DP's cell or byte guard forced buckets of
    /// `bucket_size` tokens, and the three-phase heuristic
    /// ([`CountConstrainedKnapsackSlice`](crate::CountConstrainedKnapsackSlice))
    /// on the same input did better (a smaller total shortfall, else a
    /// higher value, within the budget): its selection is returned, so
    /// that the exact slice never returns less than the heuristic it is
    /// offered against. Not optimal.
    Heuristic {
        /// The bucket size the guard forced on the DP.
        bucket_size: i64,
    },
}

/// Why [`ExactKnapsackSlice`](crate::ExactKnapsackSlice) fell back to the bucketed DP.
///
/// ```
/// use ctxpack_core::{Budget, ExactKnapsackSlice, FallbackReason, Item, Slicer, Solver};
/// // Scores this large make the values sum beyond the exact range.
/// let items = vec![Item::new(3, 1e15), Item::new(2, 1e15), Item::new(2, 1e15)];
/// let s = ExactKnapsackSlice::default().slice(&items, &Budget::new(4))?;
/// assert!(matches!(s.exact.unwrap().solver,
///    Solver::BucketedFallback { reason: FallbackReason::ValueRange, .. }));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FallbackReason {
    /// More DP states alive at once than `max_states`.
    StateLimit,
    /// The work counter passed `max_work`.
    WorkLimit,
    /// The candidates' scaled values sum beyond 2^62, or the target is above
    /// 2^60 tokens while not everything fits: outside the exact
    /// arithmetic's range.
    ValueRange,
}

/// What an exact slice reports beside its [`Selection`](crate::Selection) (in
/// [`Selection::exact`](crate::Selection::exact)).
///
/// `value` is the selection's total scaled value, `Σ max(0, floor(score ×
/// 10000))` over the selected items (zero-token items included), added with
/// saturation at `i64::MAX` — the quantity [`KnapsackSlice`](crate::KnapsackSlice) maximises.
///
/// ```
/// use ctxpack_core::{Budget, ExactKnapsackSlice, Item, Slicer};
/// let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
/// let s = ExactKnapsackSlice::default().slice(&items, &Budget::new(100))?;
/// let report = s.exact.unwrap();
/// assert_eq!(report.value, 10_000);
/// assert_eq!(report.heuristic_value, None); // only the count-constrained slice compares
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExactReport {
    /// How the answer was reached.
    pub solver: Solver,
    /// The selection's total scaled value.
    pub value: i64,
    /// The same total for the seed heuristic's selection on the same input
    /// (the exact count-constrained slice runs
    /// [`CountConstrainedKnapsackSlice`](crate::CountConstrainedKnapsackSlice));
    /// `None` when not computed or when the heuristic failed.
    pub heuristic_value: Option<i64>,
    /// Whether the heuristic's selection exceeds the target (its phase 1
    /// ignores sizes), which makes its value not comparable.
    pub heuristic_over_budget: bool,
    /// The deterministic work counter (state operations, or DP cells).
    pub work: u64,
    /// The most DP states alive at once (0 for the count-constrained DP).
    pub peak_states: usize,
}

impl ExactReport {
    pub(crate) const fn new(solver: Solver, value: i64) -> Self {
        ExactReport {
            solver,
            value,
            heuristic_value: None,
            heuristic_over_budget: false,
            work: 0,
            peak_states: 0,
        }
    }
}

/// The total scaled value of `selected`, with saturation.
pub(crate) fn value_of(items: &[Item<'_>], selected: &[usize]) -> i64 {
    selected.iter().fold(0i64, |acc, &i| {
        acc.saturating_add(scaled_value(items[i].score))
    })
}
