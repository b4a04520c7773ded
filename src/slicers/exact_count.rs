//! `ExactCountConstrainedSlice`: the optimum under per-kind require and cap
//! counts, by a DP over capacity with a count dimension per constrained
//! kind.
//!
//! See [`ExactCountConstrainedSlice`] for the problem and the DP.

use std::collections::BinaryHeap;

use crate::dp::keep::KeepTable;
use crate::exact::value_of;
use crate::knapsack::scaled_value;
use crate::{
    check_scores, Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError, Decision,
    ExactReport, ExclusionReason, InclusionReason, Item, KnapsackSlice, ScarcityBehavior,
    Selection, Shortfall, Slicer, Solver, DEFAULT_MAX_TABLE_BYTES,
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
///   [`with_bucket_size`](Self::with_bucket_size) fixes it instead.
/// * **Budget.** The selection always fits `budget.target_tokens`.
/// * **Infeasible requirements**: `Throw` fails, `Degrade` minimises the
///   total shortfall first (see the module docs); either way the budget holds.
/// * **Decisions.** Unconstrained zero-token items are always included
///   ([`InclusionReason::ZeroTokens`]); selected items of a kind with a
///   requirement are [`InclusionReason::Required`] up to `require_count`
///   (the highest scores first), the rest [`InclusionReason::Scored`].
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
/// use ctxpack::{Budget, CountQuotaEntry, ExactCountConstrainedSlice, Item, ScarcityBehavior,
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
/// # Ok::<(), ctxpack::CtxpackError>(())
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
///   left short as a [`Shortfall`].
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
    /// use ctxpack::{CountQuotaEntry, ExactCountConstrainedSlice, ScarcityBehavior};
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
    /// use ctxpack::{Budget, ExactCountConstrainedSlice, Item, ScarcityBehavior, Slicer, Solver};
    /// let slice = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_bucket_size(10)?;
    /// let s = slice.slice(&[Item::new(15, 0.5), Item::new(5, 0.4)], &Budget::new(20))?;
    /// assert_eq!(s.selected, [0]); // 15 tokens count as 20; 5 more no longer fit
    /// assert_eq!(s.exact.unwrap().solver, Solver::Bucketed { bucket_size: 10 });
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::{Budget, ExactCountConstrainedSlice, Item, ScarcityBehavior, Slicer, Solver};
    /// let slice = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_max_cells(1000);
    /// let items = vec![Item::new(7, 0.5); 50];
    /// let s = slice.slice(&items, &Budget::new(100))?;
    /// assert!(matches!(s.exact.unwrap().solver, Solver::Bucketed { .. }));
    /// assert!(s.exact.unwrap().work <= 1000);
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::{CountQuotaEntry, ExactCountConstrainedSlice, ScarcityBehavior};
    /// let s = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_max_table_bytes(1 << 20);
    /// assert_eq!(s.max_table_bytes(), 1 << 20);
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::{ExactCountConstrainedSlice, KnapsackSlice, ScarcityBehavior};
    /// let s = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?
    ///     .with_heuristic(KnapsackSlice::new(10)?);
    /// assert_eq!(s.heuristic().map(|h| h.knapsack().bucket_size()), Some(10));
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::{Budget, ExactCountConstrainedSlice, Item, ScarcityBehavior, Slicer};
    /// let s = ExactCountConstrainedSlice::new(vec![], ScarcityBehavior::Degrade)?.without_heuristic();
    /// let r = s.slice(&[Item::new(5, 0.5)], &Budget::new(10))?;
    /// assert_eq!(r.exact.unwrap().heuristic_value, None);
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
            let mut pool = vec![0usize; entries.len()];
            for (i, it) in items.iter().enumerate() {
                if let (Some(e), true) = (input.entry_of[i], it.tokens >= 0) {
                    pool[e] += 1;
                }
            }
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
        let plan = self.choose_plan(&input, target)?;
        if self.scarcity() == ScarcityBehavior::Throw && !plan.requirements_met {
            return Err(CtxpackError::CountRequirementOverBudget {
                required_tokens: plan.required_tokens,
                target_tokens: target,
                bucket_size: plan.bucket,
            });
        }
        let solved = plan.solve();
        let mut s = finish(&input, budget, &plan, &solved.taken);
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
        let short = |s: &Selection| -> usize {
            s.shortfalls
                .iter()
                .map(|f| f.required_count - f.satisfied_count)
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

/// The input with each item's entry.
struct Input<'a> {
    items: &'a [Item<'a>],
    entry_of: Vec<Option<usize>>,
    entries: &'a [CountQuotaEntry],
}

/// One DP row item: input index, buckets, value.
#[derive(Debug, Clone, Copy)]
struct Row {
    index: usize,
    w: usize,
    p: i64,
}

/// How a constrained kind runs.
#[derive(Debug, Clone)]
struct KindPlan {
    rows: Vec<Row>,
    /// Count rows above 0: the cap when it binds, else the requirement (at
    /// most the number of the kind's items that fit together).
    qmax: usize,
    /// `q = qmax` means "at least qmax" (the cap cannot bind).
    saturating: bool,
    /// The requirement the DP enforces (`min(require, candidates that fit)`).
    require: usize,
}

impl KindPlan {
    /// Keep-bit rows per item.
    fn rows_per_item(&self) -> usize {
        self.qmax + usize::from(self.saturating)
    }
}

/// The DP for one bucket size.
#[derive(Debug, Clone)]
struct Plan {
    bucket: i64,
    capacity: usize,
    free: Vec<Row>,
    kinds: Vec<KindPlan>,
    /// Items dropped by dominance (left out for their kind's cap).
    dominated: Vec<usize>,
    /// Whether the enforced requirements (capped at the candidates that fit
    /// alone) can all be met within the capacity: plain value cells.
    hard: bool,
    /// Whether every configured requirement can be met.
    requirements_met: bool,
    /// Tokens (rounded up to buckets) the lightest way to meet every
    /// requirement needs.
    required_tokens: i64,
}

impl Plan {
    fn build(input: &Input<'_>, target: i64, bucket: i64) -> Plan {
        let capacity = target / bucket;
        let to_usize = |w: i64| usize::try_from(w).unwrap_or(usize::MAX);
        let mut free = Vec::new();
        let mut per_kind: Vec<Vec<Row>> = vec![Vec::new(); input.entries.len()];
        // Bucketed sizes of every candidate of a required kind, fitting or not.
        let mut pools: Vec<Vec<i64>> = vec![Vec::new(); input.entries.len()];
        for (i, it) in input.items.iter().enumerate() {
            if it.tokens < 0 {
                continue;
            }
            let w = buckets(it.tokens, bucket);
            let p = scaled_value(it.score);
            match input.entry_of[i] {
                None if it.tokens == 0 || p == 0 || w > capacity => {}
                None => free.push(Row {
                    index: i,
                    w: to_usize(w),
                    p,
                }),
                Some(e) => {
                    let required = input.entries[e].require_count > 0;
                    if required {
                        pools[e].push(w);
                    }
                    if w <= capacity && (p > 0 || required) {
                        per_kind[e].push(Row {
                            index: i,
                            w: to_usize(w),
                            p,
                        });
                    }
                }
            }
        }
        // The lightest way to meet every requirement, over all candidates.
        let mut required_buckets: i64 = 0;
        for (e, pool) in pools.iter_mut().enumerate() {
            required_buckets =
                required_buckets.saturating_add(lightest(pool, input.entries[e].require_count));
        }
        let mut kinds = Vec::new();
        let mut dominated = Vec::new();
        let mut all_met = true;
        let mut hard_buckets: i64 = 0;
        for (e, mut rows) in per_kind.into_iter().enumerate() {
            let entry = &input.entries[e];
            let require = entry.require_count.min(rows.len());
            all_met &= require == entry.require_count;
            if require > 0 {
                let mut sizes: Vec<i64> = rows
                    .iter()
                    .map(|r| i64::try_from(r.w).unwrap_or(i64::MAX))
                    .collect();
                hard_buckets = hard_buckets.saturating_add(lightest(&mut sizes, require));
            }
            if rows.len() > entry.cap_count {
                rows = drop_dominated(rows, entry.cap_count, &mut dominated);
            }
            // How many items of the kind fit together at most: the cap binds
            // only below that, and no count above it is ever reached.
            let fit = fitting_count(&rows, capacity);
            if entry.cap_count < fit {
                kinds.push(KindPlan {
                    rows,
                    qmax: entry.cap_count,
                    saturating: false,
                    require,
                });
            } else if require == 0 {
                // Unconstrained in effect; value-0 rows were kept only for
                // requirements.
                free.extend(rows.into_iter().filter(|r| r.p > 0));
            } else {
                kinds.push(KindPlan {
                    rows,
                    qmax: require.min(fit),
                    saturating: true,
                    require,
                });
            }
        }
        // Exact: no selection weighs more than all rows together.
        let total: usize = free
            .iter()
            .chain(kinds.iter().flat_map(|k| k.rows.iter()))
            .fold(0usize, |a, r| a.saturating_add(r.w));
        let hard = hard_buckets <= capacity;
        let capacity = to_usize(capacity).min(total);
        Plan {
            bucket,
            capacity,
            free,
            kinds,
            dominated,
            hard,
            requirements_met: all_met && hard,
            required_tokens: required_buckets.saturating_mul(bucket),
        }
    }

    /// DP cells (an upper bound of the work counter) and table bytes.
    fn cost(&self) -> (u128, u128) {
        let columns = self.capacity as u128 + 1;
        let mut keep_rows = self.free.len() as u128;
        let mut cells = keep_rows * columns;
        let mut widest = 0u128;
        for k in &self.kinds {
            let per_item = k.rows_per_item() as u128;
            keep_rows += k.rows.len() as u128 * per_item;
            cells += k.rows.len() as u128 * per_item * columns + (k.qmax as u128 + 1) * columns;
            widest = widest.max(k.qmax as u128 + 1);
        }
        let value_bytes = if self.hard { 8 } else { 16 };
        let bytes = crate::dp::guard::keep_bytes(keep_rows, columns)
            + columns * 8
            + widest * columns * value_bytes
            + self.kinds.len() as u128 * columns * 4;
        (cells, bytes)
    }

    fn check(&self, cell_limit: u64, byte_limit: u64) -> Result<(), CtxpackError> {
        let (cells, bytes) = self.cost();
        if cells <= u128::from(cell_limit) && bytes <= u128::from(byte_limit) {
            return Ok(());
        }
        let rows = self.free.len() + self.kinds.iter().map(|k| k.rows.len()).sum::<usize>();
        Err(CtxpackError::TableTooLarge {
            candidates: rows,
            capacity: self.capacity as u64,
            cells: u64::try_from(cells).unwrap_or(u64::MAX),
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            limit: if bytes > u128::from(byte_limit) {
                byte_limit
            } else {
                cell_limit
            },
            unit: if bytes > u128::from(byte_limit) {
                crate::TableLimit::Bytes
            } else {
                crate::TableLimit::Cells
            },
            bucket_helps: true,
        })
    }

    fn solve(&self) -> Solved {
        if self.hard {
            // 32-bit cells when no sum of values can overflow them.
            let total = self
                .free
                .iter()
                .chain(self.kinds.iter().flat_map(|k| k.rows.iter()))
                .fold(0i64, |a, r| a.saturating_add(r.p));
            let solved = if total < i64::from(i32::MAX) {
                self.run::<i32>()
            } else {
                self.run::<i64>()
            };
            if let Some(s) = solved {
                return s;
            }
        }
        // Degrade: least total shortfall first, then the most value.
        self.run::<Lex>().unwrap_or_else(|| Solved {
            taken: Vec::new(),
            cells: 0,
        })
    }

    /// Runs the DP with cells of type `C`; `None` when no cell is feasible
    /// (cannot happen for `Lex`).
    fn run<C: Cell>(&self) -> Option<Solved> {
        let columns = self.capacity + 1;
        let keep_rows = self.free.len()
            + self
                .kinds
                .iter()
                .map(|k| k.rows.len() * k.rows_per_item())
                .sum::<usize>();
        // The guard (`check`) has bounded the table.
        let mut keep = KeepTable::new(keep_rows, columns);
        let mut cells: u64 = 0;
        // 1. Free items.
        let mut f = vec![C::value(0); columns];
        for (r, row) in self.free.iter().enumerate() {
            C::row_in_place(&mut f, row.w, row.p, keep.row_mut(r));
            cells += (columns - row.w.min(columns)) as u64;
        }
        // 2. Each constrained kind.
        let mut row_base = self.free.len();
        let mut argq: Vec<Vec<u32>> = Vec::with_capacity(self.kinds.len());
        for kind in &self.kinds {
            let (next, chosen, used) = run_kind(&f, kind, columns, &mut keep, row_base);
            f = next;
            argq.push(chosen);
            cells += used;
            row_base += kind.rows.len() * kind.rows_per_item();
        }
        // 3. The smallest capacity that reaches the optimum.
        let mut best = 0;
        for c in 1..columns {
            if f[c].beats(f[best]) {
                best = c;
            }
        }
        if !f[best].feasible() {
            return None;
        }
        // 4. Rebuild.
        let mut taken = Vec::new();
        let mut c = best;
        for (k, kind) in self.kinds.iter().enumerate().rev() {
            row_base -= kind.rows.len() * kind.rows_per_item();
            let mut q = argq[k][c] as usize;
            let per_item = kind.rows_per_item();
            for (t, row) in kind.rows.iter().enumerate().rev() {
                let base = row_base + t * per_item;
                if kind.saturating && q == kind.qmax && keep.get(base + kind.qmax, c) {
                    taken.push(row.index); // stays at "at least qmax"
                    c -= row.w;
                } else if q >= 1 && keep.get(base + q - 1, c) {
                    taken.push(row.index);
                    c -= row.w;
                    q -= 1;
                }
            }
            debug_assert_eq!(q, 0);
        }
        for (r, row) in self.free.iter().enumerate().rev() {
            if keep.get(r, c) {
                taken.push(row.index);
                c -= row.w;
            }
        }
        Some(Solved { taken, cells })
    }
}

struct Solved {
    taken: Vec<usize>,
    cells: u64,
}

/// The DP of one constrained kind on top of `f`. Keep rows of item `t`
/// start at `row_base + t × rows_per_item`: row `q − 1` for the move
/// `q − 1 → q`, and (saturating kinds) row `qmax` for `qmax → qmax`.
/// Returns the new `f`, the count chosen at each capacity, and the cells.
fn run_kind<C: Cell>(
    f: &[C],
    kind: &KindPlan,
    columns: usize,
    keep: &mut KeepTable,
    row_base: usize,
) -> (Vec<C>, Vec<u32>, u64) {
    let qmax = kind.qmax;
    let per_item = kind.rows_per_item();
    let mut g = vec![C::NEG; (qmax + 1) * columns];
    g[..columns].copy_from_slice(f);
    let mut cells: u64 = 0;
    for (t, row) in kind.rows.iter().enumerate() {
        let (w, p) = (row.w, row.p);
        let base = row_base + t * per_item;
        let reach = qmax.min(t + 1);
        let span = (columns - w.min(columns)) as u64;
        for q in (1..=reach).rev() {
            let (lower, upper) = g.split_at_mut(q * columns);
            let from = &lower[(q - 1) * columns..];
            let to = &mut upper[..columns];
            if kind.saturating && q == qmax {
                // q = qmax means "at least qmax": also qmax → qmax.
                for c in (w..columns).rev() {
                    let below = from[c - w].plus(p);
                    let same = to[c - w].plus(p);
                    if below.beats(to[c]) && !same.beats(below) {
                        to[c] = below;
                        keep.set(base + q - 1, c);
                    } else if same.beats(to[c]) {
                        to[c] = same;
                        keep.set(base + qmax, c);
                    }
                }
                cells += 2 * span;
            } else {
                C::row(from, to, w, p, keep.row_mut(base + q - 1));
                cells += span;
            }
        }
    }
    // Close: the best allowed count at each capacity.
    let lowest = if C::PENALISED {
        0
    } else {
        kind.require.min(qmax)
    };
    let mut next: Vec<C> = g[lowest * columns..(lowest + 1) * columns]
        .iter()
        .map(|v| v.short(kind.require.saturating_sub(lowest)))
        .collect();
    let mut chosen = vec![u32::try_from(lowest).unwrap_or(u32::MAX); columns];
    for q in lowest + 1..=qmax {
        let row = &g[q * columns..(q + 1) * columns];
        let short = kind.require.saturating_sub(q);
        for c in 0..columns {
            let v = row[c].short(short);
            if v.beats(next[c]) {
                next[c] = v;
                chosen[c] = u32::try_from(q).unwrap_or(u32::MAX);
            }
        }
    }
    cells += ((qmax + 1) * columns) as u64;
    (next, chosen, cells)
}

/// A DP cell: a plain value when every requirement can be met (infeasible
/// cells are negative), or (shortfall, value) compared lexicographically.
trait Cell: Copy {
    /// An unreachable cell.
    const NEG: Self;
    /// Whether shortfalls are allowed (and penalised) at a kind's close.
    const PENALISED: bool;
    fn value(v: i64) -> Self;
    /// The cell with one more item of value `p` (unreachable stays so).
    fn plus(self, p: i64) -> Self;
    /// Strictly better.
    fn beats(self, other: Self) -> bool;
    /// The cell with `n` more items of shortfall.
    fn short(self, n: usize) -> Self;
    fn feasible(self) -> bool;

    /// One item over a row: `to[c] = max(to[c], from[c − w] + p)` for
    /// `c >= w`, setting the keep bit where strictly better.
    fn row(from: &[Self], to: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        for c in w..to.len() {
            let with = from[c - w].plus(p);
            if with.beats(to[c]) {
                to[c] = with;
                keep[c >> 6] |= 1 << (c & 63);
            }
        }
    }

    /// The same within one row (the 0/1 recurrence: descending `c`).
    fn row_in_place(dp: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        for c in (w..dp.len()).rev() {
            let with = dp[c - w].plus(p);
            if with.beats(dp[c]) {
                dp[c] = with;
                keep[c >> 6] |= 1 << (c & 63);
            }
        }
    }
}

/// Plain 32-bit values, used when the sum of every value fits: then no sum
/// overflows and the results equal the `i64` ones. Rows run in blocks of 64
/// cells (one keep word) that the compiler can vectorise.
impl Cell for i32 {
    const NEG: Self = -1;
    const PENALISED: bool = false;
    fn value(v: i64) -> Self {
        i32::try_from(v).unwrap_or(i32::MAX)
    }
    fn plus(self, p: i64) -> Self {
        if self < 0 {
            self
        } else {
            self.wrapping_add(Self::value(p))
        }
    }
    fn beats(self, other: Self) -> bool {
        self > other
    }
    fn short(self, _: usize) -> Self {
        self
    }
    fn feasible(self) -> bool {
        self >= 0
    }

    fn row(from: &[Self], to: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        let columns = to.len();
        if w >= columns {
            return;
        }
        let p = Self::value(p);
        let first = w.div_ceil(64) * 64; // the first whole block at or above w
        let whole_end = columns / 64 * 64;
        for c in w..first.min(columns) {
            update_cell(from[c - w], &mut to[c], p, keep, c);
        }
        let mut start = first;
        while start + 64 <= whole_end {
            let src: &[i32; 64] = from[start - w..start - w + 64]
                .try_into()
                .unwrap_or(&[0; 64]);
            if let Ok(dst) = <&mut [i32; 64]>::try_from(&mut to[start..start + 64]) {
                keep[start / 64] |= block(src, dst, p);
            }
            start += 64;
        }
        for c in whole_end.max(first)..columns {
            update_cell(from[c - w], &mut to[c], p, keep, c);
        }
    }

    fn row_in_place(dp: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        let columns = dp.len();
        if w >= columns {
            return;
        }
        let p = Self::value(p);
        let first = w.div_ceil(64) * 64;
        let whole_end = columns / 64 * 64;
        // Top down: cells above the whole blocks, the blocks (each one's
        // loads before its stores), then the cells below them.
        for c in (whole_end.max(first)..columns).rev() {
            let src = dp[c - w];
            update_cell(src, &mut dp[c], p, keep, c);
        }
        let mut start = whole_end;
        while start >= first + 64 {
            start -= 64;
            let mut src = [0i32; 64];
            src.copy_from_slice(&dp[start - w..start - w + 64]);
            if let Ok(dst) = <&mut [i32; 64]>::try_from(&mut dp[start..start + 64]) {
                keep[start / 64] |= block(&src, dst, p);
            }
        }
        for c in (w..first.min(columns)).rev() {
            let src = dp[c - w];
            update_cell(src, &mut dp[c], p, keep, c);
        }
    }
}

/// One cell of an `i32` row.
fn update_cell(src: i32, dst: &mut i32, p: i32, keep: &mut [u64], c: usize) {
    let with = src.plus(i64::from(p));
    if with > *dst {
        *dst = with;
        keep[c >> 6] |= 1 << (c & 63);
    }
}

/// 64 cells of an `i32` row; returns their keep bits. Branch-free, in
/// groups of four (the width of a 128-bit vector: the compiler turns each
/// group's mask into one compare and move-mask), and a negative
/// (unreachable) source stays negative. In wasm it is compiled with SIMD128
/// (as the knapsack kernel: an engine without it refuses the module).
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
fn block(src: &[i32; 64], dst: &mut [i32; 64], p: i32) -> u64 {
    let mut mask = 0u64;
    for g in 0..16 {
        let mut bits = 0u64;
        for l in 0..4 {
            let k = g * 4 + l;
            let s = src[k];
            let with = s.wrapping_add(p & !(s >> 31));
            let d = dst[k];
            bits |= u64::from(with > d) << l;
            dst[k] = d.max(with);
        }
        mask |= bits << (g * 4);
    }
    mask
}

impl Cell for i64 {
    const NEG: Self = -1;
    const PENALISED: bool = false;
    fn value(v: i64) -> Self {
        v
    }
    fn plus(self, p: i64) -> Self {
        if self < 0 {
            self
        } else {
            self.saturating_add(p)
        }
    }
    fn beats(self, other: Self) -> bool {
        self > other
    }
    fn short(self, _: usize) -> Self {
        self
    }
    fn feasible(self) -> bool {
        self >= 0
    }
}

/// Total shortfall (fewer is better), then value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lex {
    short: u64,
    value: i64,
}

impl Cell for Lex {
    const NEG: Self = Lex {
        short: u64::MAX,
        value: 0,
    };
    const PENALISED: bool = true;
    fn value(v: i64) -> Self {
        Lex { short: 0, value: v }
    }
    fn plus(self, p: i64) -> Self {
        if self.short == u64::MAX {
            self
        } else {
            Lex {
                short: self.short,
                value: self.value.saturating_add(p),
            }
        }
    }
    fn beats(self, other: Self) -> bool {
        self.short < other.short || (self.short == other.short && self.value > other.value)
    }
    fn short(self, n: usize) -> Self {
        if self.short == u64::MAX {
            self
        } else {
            Lex {
                short: self.short.saturating_add(n as u64).min(u64::MAX - 1),
                value: self.value,
            }
        }
    }
    fn feasible(self) -> bool {
        self.short != u64::MAX
    }
}

/// Drops every row that at least `cap` other rows dominate (no more
/// buckets, no less value; among equal rows the earlier one dominates),
/// pushing its input index on `dropped`. Keeps the input order of the rest.
fn drop_dominated(rows: Vec<Row>, cap: usize, dropped: &mut Vec<usize>) -> Vec<Row> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        rows[a]
            .w
            .cmp(&rows[b].w)
            .then(rows[b].p.cmp(&rows[a].p))
            .then(rows[a].index.cmp(&rows[b].index))
    });
    // The `cap` largest values among the rows before (a min-heap): a row is
    // dominated by at least `cap` of them when the smallest is no less.
    let mut top: BinaryHeap<std::cmp::Reverse<i64>> = BinaryHeap::with_capacity(cap + 1);
    let mut keep = vec![true; rows.len()];
    for &r in &order {
        let p = rows[r].p;
        if top.len() >= cap && top.peek().map_or(true, |m| m.0 >= p) {
            keep[r] = false;
            dropped.push(rows[r].index);
        }
        if cap > 0 {
            top.push(std::cmp::Reverse(p));
            if top.len() > cap {
                top.pop();
            }
        }
    }
    rows.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// `ceil(tokens / bucket)` for `tokens >= 0`, without overflow.
const fn buckets(tokens: i64, bucket: i64) -> i64 {
    if tokens == 0 {
        0
    } else {
        (tokens - 1) / bucket + 1
    }
}

/// The sum of the `count` smallest sizes (all of them when fewer),
/// saturating.
fn lightest(sizes: &mut [i64], count: usize) -> i64 {
    let count = count.min(sizes.len());
    if count == 0 {
        return 0;
    }
    sizes.select_nth_unstable(count - 1);
    sizes[..count].iter().fold(0, |a, &w| a.saturating_add(w))
}

/// The most rows whose buckets fit `capacity` together (the lightest ones).
fn fitting_count(rows: &[Row], capacity: i64) -> usize {
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.w).collect();
    crate::sort::sort_indexes_by(&mut sizes, |a, b| a.cmp(&b));
    let capacity = usize::try_from(capacity).unwrap_or(0);
    let mut used = 0usize;
    sizes
        .iter()
        .take_while(|&&w| {
            used = used.saturating_add(w);
            used <= capacity
        })
        .count()
}

/// The selection and decisions from the taken rows.
fn finish(input: &Input<'_>, budget: &Budget, plan: &Plan, taken: &[usize]) -> Selection {
    let items = input.items;
    let entries = input.entries;
    let mut decisions = vec![Decision::Excluded(ExclusionReason::NotInOptimalSet); items.len()];
    let mut chosen = vec![false; items.len()];
    for &i in taken {
        chosen[i] = true;
    }
    let mut count = vec![0usize; entries.len()];
    let mut by_kind: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    for (i, it) in items.iter().enumerate() {
        let unconstrained_zero = it.tokens == 0 && input.entry_of[i].is_none();
        if unconstrained_zero {
            chosen[i] = true;
        }
        decisions[i] = if it.tokens < 0 {
            Decision::Excluded(ExclusionReason::NegativeTokens)
        } else if unconstrained_zero {
            Decision::Included(InclusionReason::ZeroTokens)
        } else if chosen[i] {
            if let Some(e) = input.entry_of[i] {
                count[e] += 1;
                by_kind[e].push(i);
            }
            Decision::Included(InclusionReason::Scored)
        } else if buckets(it.tokens, plan.bucket) > budget.target_tokens() / plan.bucket {
            Decision::Excluded(ExclusionReason::BudgetExceeded)
        } else {
            Decision::Excluded(ExclusionReason::NotInOptimalSet)
        };
    }
    for &i in &plan.dominated {
        decisions[i] = Decision::Excluded(ExclusionReason::CountCapExceeded);
    }
    let mut shortfalls = Vec::new();
    for (e, entry) in entries.iter().enumerate() {
        // The best-scoring selected items of a required kind are "required".
        let kind = &mut by_kind[e];
        crate::sort::sort_indexes_by(kind, |a, b| {
            (items[b].score + 0.0).total_cmp(&(items[a].score + 0.0))
        });
        for &i in kind.iter().take(entry.require_count) {
            decisions[i] = Decision::Included(InclusionReason::Required);
        }
        if count[e] < entry.require_count {
            shortfalls.push(Shortfall {
                kind: entry.kind.clone(),
                required_count: entry.require_count,
                satisfied_count: count[e],
            });
        }
    }
    for (i, d) in decisions.iter_mut().enumerate() {
        if let (Some(e), Decision::Excluded(ExclusionReason::NotInOptimalSet)) =
            (input.entry_of[i], *d)
        {
            if count[e] >= entries[e].cap_count {
                *d = Decision::Excluded(ExclusionReason::CountCapExceeded);
            }
        }
    }
    let mut selected: Vec<usize> = (0..items.len()).filter(|&i| chosen[i]).collect();
    crate::sort::sort_indexes_by(&mut selected, |a, b| {
        (items[a].tokens != 0, a).cmp(&(items[b].tokens != 0, b))
    });
    Selection::finish(items, budget, selected, decisions, shortfalls)
}
