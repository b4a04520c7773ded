//! `KnapsackSlice`: bucketed 0/1 knapsack DP with a bitset keep table
//! (docs/specs/knapsack-slice.md).

use crate::{
    check_scores, dp::kernel as knapsack_dp, Budget, CtxpackError, Decision, ExclusionReason,
    InclusionReason, Item, Selection, Slicer,
};

/// The spec's default bucket size.
pub const DEFAULT_BUCKET_SIZE: i64 = 100;

/// The default limit on the knapsack table, in bytes (64 MiB: it fits in a
/// 128 MB edge isolate with room to spare).
pub const DEFAULT_MAX_TABLE_BYTES: u64 = 64 << 20;

/// Scores become integers with this factor (4 decimal digits), as the spec.
pub const SCORE_SCALE: f64 = 10_000.0;

/// Selects the subset of items with the largest total scaled score whose
/// bucketed token counts fit the bucketed budget, exactly as
/// docs/specs/knapsack-slice.md specifies:
///
/// * values are `max(0, floor(score × 10000))`;
/// * weights are `ceil(tokens / bucket_size)` and the capacity is
///   `floor(target_tokens / bucket_size)`, so every solution fits the real
///   budget;
/// * zero-token items are pre-filtered and always included, negative-token
///   items excluded;
/// * the DP runs over the candidates in input order with a strict `>`
///   improvement test, and the solution is reconstructed from the last
///   candidate to the first;
/// * the output is the zero-token items (input order) followed by the DP
///   selection in reconstruction order.
///
/// The keep table holds one bit per cell. Its size is guarded in bytes
/// ([`DEFAULT_MAX_TABLE_BYTES`] unless set with
/// [`with_max_table_bytes`](KnapsackSlice::with_max_table_bytes)); past the
/// limit the slice fails with [`CtxpackError::TableTooLarge`]. Rows that can
/// never set a keep bit (items whose weight exceeds the capacity, items of
/// value 0) are left out of the table, and the capacity is capped at the sum
/// of the remaining weights; neither changes the selection (see the crate
/// docs), both shrink the table.
///
/// Scaled values add with saturation at `i64::MAX`, so absurd scores (above
/// about 9 × 10^14) cannot overflow; they compare as equal once saturated.
///
/// The DP runs on 32-bit values whenever the sum of the scaled values fits,
/// with SIMD (SIMD128 in wasm, AVX2 natively where available), in place and
/// top down, and skips the cells above the running sum of weights, whose keep
/// bits are known; every keep bit it writes is the spec's loop's, so the
/// selection is the spec's (`tests/knapsack_kernel.rs` checks it against the
/// spec written out plainly).
///
/// ```
/// use ctxpack_core::{Budget, Item, KnapsackSlice, Slicer};
/// // Greedy by density takes the 10-token item first and then nothing else
/// // fits; the knapsack finds the better pair.
/// let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
/// let s = KnapsackSlice::new(10).unwrap().slice(&items, &Budget::new(100)).unwrap();
/// assert_eq!(s.selected, [1, 0]); // reconstruction order: last candidate first
/// assert_eq!(s.total_tokens, 100);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KnapsackSlice {
    bucket_size: i64,
    max_table_bytes: u64,
}

impl Default for KnapsackSlice {
    /// Bucket size 100 and a 64 MiB table limit.
    fn default() -> Self {
        KnapsackSlice {
            bucket_size: DEFAULT_BUCKET_SIZE,
            max_table_bytes: DEFAULT_MAX_TABLE_BYTES,
        }
    }
}

impl KnapsackSlice {
    /// A knapsack slice with the given bucket size and the default table
    /// limit.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidBucketSize`] when `bucket_size <= 0`.
    ///
    /// ```
    /// use ctxpack_core::KnapsackSlice;
    /// assert_eq!(KnapsackSlice::new(1).unwrap().bucket_size(), 1);
    /// assert_eq!(
    ///     KnapsackSlice::new(-3).unwrap_err().to_string(),
    ///     "bucket size must be a positive integer, got -3"
    /// );
    /// ```
    pub fn new(bucket_size: i64) -> Result<Self, CtxpackError> {
        if bucket_size <= 0 {
            return Err(CtxpackError::InvalidBucketSize { value: bucket_size });
        }
        Ok(KnapsackSlice {
            bucket_size,
            max_table_bytes: DEFAULT_MAX_TABLE_BYTES,
        })
    }

    /// The same slice with another table limit, in bytes.
    ///
    /// ```
    /// use ctxpack_core::{Budget, Item, KnapsackSlice, Slicer};
    /// let slice = KnapsackSlice::new(1).unwrap().with_max_table_bytes(1024);
    /// let items = vec![Item::new(1, 0.5); 100];
    /// let err = slice.slice(&items, &Budget::new(1000)).unwrap_err();
    /// assert_eq!(err.code(), "TABLE_TOO_LARGE");
    /// ```
    #[must_use]
    pub const fn with_max_table_bytes(self, max_table_bytes: u64) -> Self {
        KnapsackSlice {
            bucket_size: self.bucket_size,
            max_table_bytes,
        }
    }

    /// The bucket size.
    pub const fn bucket_size(&self) -> i64 {
        self.bucket_size
    }

    /// The table limit in bytes.
    pub const fn max_table_bytes(&self) -> u64 {
        self.max_table_bytes
    }

    /// Runs the spec's algorithm on the items of `pool` (indexes into
    /// `items`, in that order) with budget `target`, writes a decision for
    /// each pool item and returns the selection in output order.
    ///
    /// With `target <= 0` nothing is selected and the pool items are marked
    /// [`ExclusionReason::BudgetExceeded`]; callers that want
    /// [`ExclusionReason::NoBudget`] check first.
    pub(crate) fn select_pool(
        &self,
        items: &[Item<'_>],
        pool: &[usize],
        target: i64,
        decisions: &mut [Decision],
    ) -> Result<Vec<usize>, CtxpackError> {
        let mut selected = Vec::new();
        let mut candidates = Vec::new();
        for &i in pool {
            decisions[i] = match items[i].tokens {
                t if t < 0 => Decision::Excluded(ExclusionReason::NegativeTokens),
                _ if target <= 0 => Decision::Excluded(ExclusionReason::BudgetExceeded),
                0 => {
                    selected.push(i);
                    Decision::Included(InclusionReason::ZeroTokens)
                }
                _ => {
                    candidates.push(i);
                    Decision::Excluded(ExclusionReason::NotInOptimalSet)
                }
            };
        }
        if target <= 0 || candidates.is_empty() {
            return Ok(selected);
        }

        let capacity = target / self.bucket_size;
        // Rows of the DP: candidates that can ever set a keep bit.
        let mut rows: Vec<Row> = Vec::with_capacity(candidates.len());
        let mut weight_sum: i64 = 0;
        for &i in &candidates {
            let weight = div_ceil(items[i].tokens, self.bucket_size);
            let value = scaled_value(items[i].score);
            if weight > capacity {
                decisions[i] = Decision::Excluded(ExclusionReason::BudgetExceeded);
            } else if value > 0 {
                weight_sum = weight_sum.saturating_add(weight);
                rows.push(Row {
                    index: i,
                    weight: usize::try_from(weight).unwrap_or(usize::MAX),
                    value,
                });
            }
        }
        if rows.is_empty() {
            return Ok(selected);
        }
        // Exact: above the sum of all weights every row is kept anyway.
        let capacity = capacity.min(weight_sum);
        let weights: Vec<usize> = rows.iter().map(|row| row.weight).collect();
        let values: Vec<i64> = rows.iter().map(|row| row.value).collect();
        let chosen = knapsack_dp::solve(&weights, &values, capacity, self.max_table_bytes)?;
        for &r in &chosen {
            let i = rows[r].index;
            decisions[i] = Decision::Included(InclusionReason::Scored);
            selected.push(i);
        }
        Ok(selected)
    }
}

impl Slicer for KnapsackSlice {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        if items.is_empty() || budget.target_tokens() <= 0 {
            return Ok(Selection::none(items, ExclusionReason::NoBudget));
        }
        let pool: Vec<usize> = (0..items.len()).collect();
        let mut decisions = vec![Decision::Excluded(ExclusionReason::NotInOptimalSet); items.len()];
        let selected = self.select_pool(items, &pool, budget.target_tokens(), &mut decisions)?;
        Ok(Selection::finish(
            items,
            budget,
            selected,
            decisions,
            Vec::new(),
        ))
    }
}

/// `max(0, floor(score × 10000))`, saturating at `i64::MAX`.
#[allow(clippy::cast_possible_truncation)] // `as` saturates, which is the intent
pub(crate) fn scaled_value(score: f64) -> i64 {
    ((score * SCORE_SCALE).floor() as i64).max(0)
}

/// `ceil(a / b)` for `a > 0`, `b > 0`, without overflow.
const fn div_ceil(a: i64, b: i64) -> i64 {
    (a - 1) / b + 1
}

struct Row {
    index: usize,
    weight: usize,
    value: i64,
}
