//! `ExactCountConstrainedSlice`: the optimum under per-kind require and cap
//! counts, by a DP over capacity with a count dimension per constrained
//! kind.
//!
//! See [`ExactCountConstrainedSlice`] for the problem and the DP.

use super::exact_count_finish::{counts_bind, finish, Input};
use super::exact_count_plan::Plan;
use crate::exact::value_of;
use crate::{
    check_scores, Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError,
    ExactKnapsackSlice, ExactReport, ExclusionReason, Item, KnapsackSlice, ScarcityBehavior,
    Selection, Slicer, Solver, DEFAULT_MAX_TABLE_BYTES,
};

/// The default limit on DP cells (item × count × capacity cell updates) of
/// [`ExactCountConstrainedSlice`]: 2^27, a few hundred milliseconds at most.
pub const DEFAULT_MAX_CELLS: u64 = 1 << 27;

/// The exact optimum under per-kind require and cap counts: the same
/// [`CountQuotaEntry`] list, validation and [`ScarcityBehavior`] as
/// [`CountConstrainedKnapsackSlice`], solved to optimality instead of in
/// three greedy phases (the DP is described below).
///
/// * **Precision.** By default the bucket size is chosen per call: 1 (exact
///   at token precision) when the DP fits the cell and byte limits, else the
///   smallest size found that fits (about `cells / limit`); the result says
///   which ([`Solver::Exact`] or [`Solver::Bucketed`]).
///   [`with_bucket_size`](Self::with_bucket_size) fixes it instead. When no
///   count can bind (no entries, caps at least each kind's candidates,
///   requirements only of kinds without candidates), the automatic mode
///   solves the plain 0/1 knapsack with [`ExactKnapsackSlice`] instead, at
///   token precision far past this DP's limits, and reports its solver.
/// * **Budget.** The selection always fits `budget.target_tokens`. No items,
///   or a target of 0 or less, is an empty selection with no shortfall, even
///   under `Throw`: the heuristic's (and its spec's) early return.
/// * **Infeasible requirements**: `Throw` fails, `Degrade` minimises the
///   total shortfall first (see the module docs); either way the budget holds.
/// * **Decisions.** Unconstrained zero-token items are always included
///   ([`InclusionReason::ZeroTokens`](crate::InclusionReason::ZeroTokens)); selected items of a kind with a
///   requirement are [`InclusionReason::Required`](crate::InclusionReason::Required) up to `require_count`
///   (the highest scores first), the rest [`InclusionReason::Scored`](crate::InclusionReason::Scored).
///   Left out: [`ExclusionReason::CountCapExceeded`] when the item's kind is
///   at its cap in the result (or the item was dominated by `cap` others),
///   [`ExclusionReason::BudgetExceeded`] when it cannot fit alone,
///   [`ExclusionReason::NotInOptimalSet`] otherwise, plus `negative_tokens`
///   and `no_budget` as every slicer.
/// * **Output order**: zero-token items, then the other selected items, each
///   in input order.
/// * **The gap.** Unless turned off with
///   [`without_heuristic`](Self::without_heuristic), each call also runs the
///   three-phase [`CountConstrainedKnapsackSlice`] on the same input (with
///   [`KnapsackSlice::default`] unless set with
///   [`with_heuristic`](Self::with_heuristic)) and reports its value in
///   [`ExactReport::heuristic_value`] beside [`ExactReport::value`].
///
/// ```
/// use ctxpack_core::{Budget, CountQuotaEntry, ExactCountConstrainedSlice, Item, ScarcityBehavior,
///    Slicer, Solver};
/// let items = [
///    Item::new(900, 0.9).with_kind("doc"), // the heuristic commits the best doc first
///    Item::new(300, 0.8).with_kind("doc"),
///    Item::new(300, 0.7).with_kind("msg"),
///    Item::new(300, 0.7).with_kind("msg"),
/// ];
/// let slice = ExactCountConstrainedSlice::new(
///    vec![CountQuotaEntry::new("doc", 1, 2)],
///    ScarcityBehavior::Degrade,
/// )?;
/// let s = slice.slice(&items, &Budget::new(1000))?;
/// assert_eq!(s.selected, [1, 2, 3]);
/// assert_eq!(s.decisions[1].code(), "required");
/// let report = s.exact.unwrap();
/// assert_eq!(report.solver, Solver::Exact);
/// assert_eq!((report.value, report.heuristic_value), (22_000, Some(9_000)));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
///
/// # The problem
///
/// Maximise the total scaled value `Σ max(0, floor(score × 10000))` of a
/// selection whose token counts fit `budget.target_tokens` and in which every
/// kind with a [`CountQuotaEntry`] has at most `cap_count` items and at least
/// `require_count` (when that is possible at all, see below). Kinds compare
/// ASCII case-insensitively.
///
/// # The DP
///
/// Token counts are measured in buckets of `bucket_size` tokens (rounded up;
/// the target rounded down), so that every selection that fits in buckets
/// fits in tokens; with a bucket of 1 the optimum is exact at token
/// precision. `F[c]` is the best value with at most `c` buckets.
///
/// 1. **Free items** (unconstrained kinds, and constrained kinds whose counts
///    cannot bind) run the plain 0/1 knapsack recurrence on `F`.
/// 2. **Each constrained kind** in entry order runs a DP over (items of the
///    kind taken, capacity): `G[q][c]` starts as `F` for `q = 0`, every item
///    of the kind moves `G[q − 1][c − w]` to `G[q][c]`, and the kind closes
///    with `F[c] = max G[q][c]` over the allowed `q`. When the cap cannot
///    bind (no more items than the cap, or the `cap + 1` lightest do not fit
///    together) the count only has to reach the requirement, so `q`
///    saturates there: `G[r]` means "at least `r`"; with no requirement
///    either, the kind's items are free items.
/// 3. **Dominance.** Before its DP a capped kind drops every item that at
///    least `cap` other items of the kind dominate (no more buckets, no less
///    value; among equals the earlier in input order dominates): an optimal
///    selection never needs it, since one of those `cap` items is always
///    free to replace it. With random data a kind keeps a few times `cap`
///    items, whatever its size.
/// 4. The selection is rebuilt from keep bits (one per item, count and
///    capacity cell), from the smallest capacity that reaches the optimum:
///    among optimal selections, one with the fewest buckets.
///
/// # Requirements that cannot be met
///
/// The exact slice never exceeds the budget (unlike the seed heuristic,
/// whose phase 1 commits required items whatever their size). When a kind
/// has fewer candidates than `require_count`, or the required items cannot
/// all fit the budget together:
///
/// * [`ScarcityBehavior::Throw`] fails, with
///   [`CtxpackError::CountRequirementShortfall`] (the heuristic's error and
///   message) when a kind has too few candidates, and with
///   [`CtxpackError::CountRequirementOverBudget`] when there are enough but
///   the lightest way to meet every requirement does not fit.
/// * [`ScarcityBehavior::Degrade`] first minimises the total shortfall
///   `Σ max(0, require_count − taken)` over the kinds, then maximises the
///   value among the selections with that shortfall, and reports every kind
///   left short as a [`Shortfall`](crate::Shortfall).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactCountConstrainedSlice {
    heuristic: CountConstrainedKnapsackSlice,
    compare: bool,
    bucket_size: Option<i64>,
    cell_limit: u64,
    table_bytes: u64,
}

impl ExactCountConstrainedSlice {
    /// Validates the entries as [`CountConstrainedKnapsackSlice::new`] does
    /// and builds the slice (automatic bucket size, [`DEFAULT_MAX_CELLS`],
    /// [`DEFAULT_MAX_TABLE_BYTES`], heuristic comparison on).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidCountEntry`] when an entry has
    /// `require_count > cap_count` or two entries name the same kind.
    ///
    /// ```
    /// use ctxpack_core::{CountQuotaEntry, ExactCountConstrainedSlice, ScarcityBehavior};
    /// let err = ExactCountConstrainedSlice::new(
    ///     vec![CountQuotaEntry::new("tool", 2, 1)],
    ///     ScarcityBehavior::Degrade,
    /// ).unwrap_err();
    /// assert_eq!(err.code(), "INVALID_COUNT_ENTRY");
    /// ```
    pub fn new(
        entries: Vec<CountQuotaEntry>,
        scarcity: ScarcityBehavior,
    ) -> Result<Self, CtxpackError> {
        Ok(ExactCountConstrainedSlice {
            heuristic: CountConstrainedKnapsackSlice::new(
                entries,
                KnapsackSlice::default(),
                scarcity,
            )?,
            compare: true,
            bucket_size: None,
            cell_limit: DEFAULT_MAX_CELLS,
            table_bytes: DEFAULT_MAX_TABLE_BYTES,
        })
    }

    /// The same slice with a fixed bucket size: the optimum over token
    /// counts rounded up to multiples of `bucket_size` (the target rounded
    /// down). Past the limits the slice then fails with
    /// [`CtxpackError::TableTooLarge`] rather than coarsen.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidBucketSize`] when `bucket_size <= 0`.
    ///
    /// ```
    /// use ctxpack_core::{Budget, ExactCountConstrainedSlice, Item, ScarcityBehavior, Slicer, Solver};
    /// let slice = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_bucket_size(10)?;
    /// let s = slice.slice(&[Item::new(15, 0.5), Item::new(5, 0.4)], &Budget::new(20))?;
    /// assert_eq!(s.selected, [0]); // 15 tokens count as 20; 5 more no longer fit
    /// assert_eq!(s.exact.unwrap().solver, Solver::Bucketed { bucket_size: 10 });
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn with_bucket_size(self, bucket_size: i64) -> Result<Self, CtxpackError> {
        if bucket_size <= 0 {
            return Err(CtxpackError::InvalidBucketSize { value: bucket_size });
        }
        Ok(ExactCountConstrainedSlice {
            bucket_size: Some(bucket_size),
            ..self
        })
    }

    /// The same slice with another limit on DP cells (the deterministic work
    /// counter).
    ///
    /// ```
    /// use ctxpack_core::{
    ///     Budget, CountQuotaEntry, ExactCountConstrainedSlice, Item, ScarcityBehavior, Slicer, Solver,
    /// };
    /// let one_note = vec![CountQuotaEntry::new("note", 1, 1)];
    /// let slice = ExactCountConstrainedSlice::new(one_note, ScarcityBehavior::Degrade)?
    ///     .with_max_cells(1000);
    /// let mut items = vec![Item::new(7, 0.5); 50];
    /// items.push(Item::new(9, 0.1).with_kind("note"));
    /// let s = slice.slice(&items, &Budget::new(100))?;
    /// assert!(matches!(s.exact.unwrap().solver, Solver::Bucketed { .. }));
    /// assert!(s.exact.unwrap().work <= 1000);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    #[must_use]
    pub fn with_max_cells(self, max_cells: u64) -> Self {
        ExactCountConstrainedSlice {
            cell_limit: max_cells,
            ..self
        }
    }

    /// The same slice with another limit, in bytes, on the keep bits and
    /// value rows.
    ///
    /// ```
    /// use ctxpack_core::{CountQuotaEntry, ExactCountConstrainedSlice, ScarcityBehavior};
    /// let s = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_max_table_bytes(1 << 20);
    /// assert_eq!(s.max_table_bytes(), 1 << 20);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    #[must_use]
    pub fn with_max_table_bytes(self, max_table_bytes: u64) -> Self {
        ExactCountConstrainedSlice {
            table_bytes: max_table_bytes,
            ..self
        }
    }

    /// The same slice comparing against the heuristic with `knapsack` as its
    /// phase 2.
    ///
    /// ```
    /// use ctxpack_core::{ExactCountConstrainedSlice, KnapsackSlice, ScarcityBehavior};
    /// let s = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_heuristic(KnapsackSlice::new(10)?);
    /// assert_eq!(s.heuristic().map(|h| h.knapsack().bucket_size()), Some(10));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    #[must_use]
    pub fn with_heuristic(self, knapsack: KnapsackSlice) -> Self {
        let heuristic = CountConstrainedKnapsackSlice::new(
            self.heuristic.entries().to_vec(),
            knapsack,
            self.heuristic.scarcity(),
        )
        .unwrap_or(self.heuristic); // the entries were validated already
        ExactCountConstrainedSlice {
            heuristic,
            compare: true,
            ..self
        }
    }

    /// The same slice without the heuristic run
    /// ([`ExactReport::heuristic_value`] is then `None`).
    ///
    /// ```
    /// use ctxpack_core::{Budget, ExactCountConstrainedSlice, Item, ScarcityBehavior, Slicer};
    /// let s = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?.without_heuristic();
    /// let r = s.slice(&[Item::new(5, 0.5)], &Budget::new(10))?;
    /// assert_eq!(r.exact.unwrap().heuristic_value, None);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    #[must_use]
    pub fn without_heuristic(self) -> Self {
        ExactCountConstrainedSlice {
            compare: false,
            ..self
        }
    }

    /// The count entries.
    pub fn entries(&self) -> &[CountQuotaEntry] {
        self.heuristic.entries()
    }

    /// The scarcity behaviour.
    pub const fn scarcity(&self) -> ScarcityBehavior {
        self.heuristic.scarcity()
    }

    /// The fixed bucket size, or `None` when chosen per call.
    pub const fn bucket_size(&self) -> Option<i64> {
        self.bucket_size
    }

    /// The limit on DP cells.
    pub const fn max_cells(&self) -> u64 {
        self.cell_limit
    }

    /// The limit on table bytes.
    pub const fn max_table_bytes(&self) -> u64 {
        self.table_bytes
    }

    /// The heuristic run beside the exact one, if any.
    pub const fn heuristic(&self) -> Option<&CountConstrainedKnapsackSlice> {
        if self.compare {
            Some(&self.heuristic)
        } else {
            None
        }
    }

    /// Runs the heuristic (when on) and records its value.
    fn compare_heuristic(&self, items: &[Item<'_>], budget: &Budget, report: &mut ExactReport) {
        if self.compare {
            if let Ok(h) = self.heuristic.slice(items, budget) {
                report.heuristic_value = Some(value_of(items, &h.selected));
                report.heuristic_over_budget = h.over_budget;
            }
        }
    }

    /// The plan for `bucket`, or the smallest-found bucket whose plan fits
    /// the limits (automatic mode).
    fn choose_plan(&self, input: &Input<'_>, target: i64) -> Result<Plan, CtxpackError> {
        if let Some(bucket) = self.bucket_size {
            let plan = Plan::build(input, target, bucket);
            return plan.check(self.cell_limit, self.table_bytes).map(|()| plan);
        }
        let mut bucket: i64 = 1;
        loop {
            let plan = Plan::build(input, target, bucket);
            let (cells, bytes) = plan.cost();
            if cells <= u128::from(self.cell_limit) && bytes <= u128::from(self.table_bytes) {
                return Ok(plan);
            }
            if bucket >= target {
                // The coarsest bucket: only the limits can help.
                return plan
                    .check(self.cell_limit, self.table_bytes)
                    .map(|()| plan)
                    .map_err(CtxpackError::without_bucket_advice);
            }
            // Cost is about proportional to 1 / bucket: jump there.
            let ratio = (cells.div_ceil(u128::from(self.cell_limit.max(1))))
                .max(bytes.div_ceil(u128::from(self.table_bytes.max(1))));
            let next = u128::try_from(bucket).unwrap_or(1).saturating_mul(ratio);
            let next = i64::try_from(next).unwrap_or(i64::MAX);
            bucket = next.max(bucket.saturating_add(1)).min(target);
        }
    }
}

impl Slicer for ExactCountConstrainedSlice {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        let target = budget.target_tokens();
        if items.is_empty() || target <= 0 {
            // As the heuristic: nothing, and no shortfall.
            let mut s = Selection::none(items, ExclusionReason::NoBudget);
            let mut report = ExactReport::new(Solver::Exact, 0);
            self.compare_heuristic(items, budget, &mut report);
            s.exact = Some(report);
            return Ok(s);
        }
        let entries = self.entries();
        let input = Input {
            items,
            entry_of: crate::count_constrained::entry_of_items(self.entries(), items),
            entries,
        };
        // Too few candidates: the heuristic's error, word for word.
        if self.scarcity() == ScarcityBehavior::Throw {
            let pool = input.candidates_per_entry();
            for (e, entry) in entries.iter().enumerate() {
                if pool[e] < entry.require_count {
                    return Err(CtxpackError::CountRequirementShortfall {
                        index: e,
                        kind: entry.kind.clone(),
                        satisfied: pool[e],
                        required: entry.require_count,
                    });
                }
            }
        }
        if self.bucket_size.is_none() && !counts_bind(&input) {
            return self.unconstrained(&input, budget);
        }
        let plan = self.choose_plan(&input, target)?;
        if self.scarcity() == ScarcityBehavior::Throw && !plan.requirements_met {
            return Err(CtxpackError::CountRequirementOverBudget {
                required_tokens: plan.required_tokens,
                target_tokens: target,
                bucket_size: plan.bucket,
            });
        }
        let solved = plan.solve();
        let mut s = finish(&input, budget, plan.bucket, &plan.dominated, &solved.taken);
        let mut report = ExactReport::new(
            if plan.bucket == 1 {
                Solver::Exact
            } else {
                Solver::Bucketed {
                    bucket_size: plan.bucket,
                }
            },
            value_of(items, &s.selected),
        );
        report.work = solved.cells;
        if self.bucket_size.is_none() && plan.bucket > 1 {
            // A guard forced buckets, and coarse buckets can lose to the
            // heuristic by far (59 % of its value at n = 20k): run it
            // whatever `compare` says, and return the better plan.
            if let Some(better) = self.heuristic_if_better(items, budget, &s, &mut report) {
                return Ok(better);
            }
        } else {
            self.compare_heuristic(items, budget, &mut report);
        }
        s.exact = Some(report);
        Ok(s)
    }
}

impl ExactCountConstrainedSlice {
    /// No count can bind (see [`counts_bind`]): the problem is the plain 0/1
    /// knapsack, which [`ExactKnapsackSlice`] solves at token precision far
    /// past the count DP's table limits (whose buckets lost 38 % of the value
    /// at n = 100k and 95 % at 1M). Its selection, with this slice's
    /// decisions, order and shortfalls (a required kind without candidates).
    fn unconstrained(&self, input: &Input<'_>, budget: &Budget) -> Result<Selection, CtxpackError> {
        let items = input.items;
        let solved = ExactKnapsackSlice::new()
            .with_max_table_bytes(self.table_bytes)
            .slice(items, budget)?;
        let mut s = finish(input, budget, 1, &[], &solved.selected);
        let mut report = solved
            .exact
            .unwrap_or_else(|| ExactReport::new(Solver::Exact, 0));
        report.value = value_of(items, &s.selected);
        report.heuristic_value = None;
        report.heuristic_over_budget = false;
        self.compare_heuristic(items, budget, &mut report);
        s.exact = Some(report);
        Ok(s)
    }

    /// The heuristic's selection when it beats the bucketed DP's `exact`
    /// (a smaller total shortfall, else a higher value; never over the
    /// budget), with [`Solver::Heuristic`]; `None` otherwise, with the
    /// heuristic's value recorded in `report`.
    fn heuristic_if_better(
        &self,
        items: &[Item<'_>],
        budget: &Budget,
        exact: &Selection,
        report: &mut ExactReport,
    ) -> Option<Selection> {
        let mut h = self.heuristic.slice(items, budget).ok()?;
        let value = value_of(items, &h.selected);
        report.heuristic_value = Some(value);
        report.heuristic_over_budget = h.over_budget;
        // Summed in u128: each shortfall may be near `usize::MAX` (a caller's
        // `require` count), and their sum must not wrap.
        let short = |s: &Selection| -> u128 {
            s.shortfalls
                .iter()
                .map(|f| f.required_count.saturating_sub(f.satisfied_count) as u128)
                .sum()
        };
        let better =
            (short(&h), std::cmp::Reverse(value)) < (short(exact), std::cmp::Reverse(report.value));
        if h.over_budget || !better {
            return None;
        }
        let Solver::Bucketed { bucket_size } = report.solver else {
            return None;
        };
        // This slice's output order: zero-token items, then the others, each
        // in input order.
        let mut chosen = vec![false; items.len()];
        for &i in &h.selected {
            chosen[i] = true;
        }
        let zero = |i: &usize| items[*i].tokens == 0;
        h.selected = (0..items.len())
            .filter(|&i| chosen[i] && zero(&i))
            .chain((0..items.len()).filter(|&i| chosen[i] && !zero(&i)))
            .collect();
        h.exact = Some(ExactReport {
            solver: Solver::Heuristic { bucket_size },
            value,
            ..*report
        });
        Some(h)
    }
}
