//! `ExactKnapsackSlice`: the 0/1 knapsack optimum at token precision, by an
//! expanding-core dynamic programme in the manner of Pisinger's minknap
//! ("A minimal algorithm for the 0-1 knapsack problem", Operations Research
//! 45, 1997). The report the exact slices attach to their [`Selection`] is
//! in `exact_report.rs`.
//!
//! See [`ExactKnapsackSlice`] for the algorithm.

use crate::knapsack::scaled_value;
use crate::{
    check_scores, Budget, CtxpackError, Decision, ExclusionReason, InclusionReason, Item,
    KnapsackSlice, Selection, Slicer, DEFAULT_MAX_TABLE_BYTES,
};

pub(crate) use super::exact_report::value_of;
pub use super::exact_report::{ExactReport, FallbackReason, Solver};
use super::minknap::{Abort, Cand, Limits, Minknap};

/// The default limit on the number of DP states alive at once (each takes
/// 32 bytes, twice: about 16 MiB at the limit).
pub const DEFAULT_MAX_STATES: usize = 1 << 18;

/// The default limit on the work counter: state operations (two per state
/// and core item) of [`ExactKnapsackSlice`], DP cells of the exact
/// count-constrained slice.
pub const DEFAULT_MAX_WORK: u64 = 1 << 26;

/// Selects the subset of items with the largest total scaled score
/// (`max(0, floor(score × 10000))`, the values of [`KnapsackSlice`]) whose
/// real token counts fit `budget.target_tokens` — no buckets.
///
/// * Zero-token items are always included
///   ([`InclusionReason::ZeroTokens`]), negative-token items excluded
///   ([`ExclusionReason::NegativeTokens`]), items larger than the target
///   excluded with [`ExclusionReason::BudgetExceeded`], and a target of 0 or
///   less selects nothing ([`ExclusionReason::NoBudget`]), as
///   [`KnapsackSlice`] does.
/// * The other items are [`InclusionReason::Scored`] when in the optimum and
///   [`ExclusionReason::NotInOptimalSet`] otherwise (items of value 0 are
///   never selected).
/// * Output order: the zero-token items, then the selected items, each in
///   input order.
/// * Among selections of equal value the result is the one the search
///   reaches first: a function of the items and the target only (stable
///   across runs and platforms), but no further preference is promised.
///
/// The algorithm (below) is an expanding-core DP around the greedy break
/// item with dominance and Dantzig-bound pruning, after Pisinger's minknap.
/// On token-like data (thousands of items, budgets of 10^5–10^6 tokens) it
/// keeps a few hundred states over a core of tens of items.
///
/// Two guards bound it: the number of DP states alive at once
/// ([`DEFAULT_MAX_STATES`]) and a deterministic work counter of state
/// operations ([`DEFAULT_MAX_WORK`]) — not wall time, so results are
/// reproducible. Past either guard (or when values or the target leave the
/// exact arithmetic's range, see [`FallbackReason::ValueRange`]) the
/// slice falls back to the bucketed [`KnapsackSlice`] DP with the smallest
/// bucket size whose table fits `max_table_bytes` and whose cell count fits
/// `max_work`, and says so in [`ExactReport::solver`]. The fallback's
/// decisions and selection are [`KnapsackSlice`]'s, reordered as above.
///
/// ```
/// use ctxpack_core::{Budget, ExactKnapsackSlice, Item, KnapsackSlice, Slicer};
/// // Three items of 101 tokens fit 303 tokens exactly.
/// let items = [Item::new(101, 0.5), Item::new(101, 0.5), Item::new(101, 0.5), Item::new(300, 0.9)];
/// let budget = Budget::new(303);
/// let exact = ExactKnapsackSlice::default().slice(&items, &budget)?;
/// assert_eq!(exact.selected, [0, 1, 2]);
/// assert_eq!(exact.exact.unwrap().value, 15_000);
/// // Bucketed, each 101 takes 2 of the 3 buckets: the knapsack settles for 0.9.
/// assert_eq!(KnapsackSlice::default().slice(&items, &budget)?.selected, [3]);
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
///
/// # Algorithm
///
/// Candidates (positive tokens, at most the target, value above 0) are
/// ordered by efficiency `value / tokens` — lazily: a quickselect-style
/// partition finds the *break item* `b` (the first item, in efficiency
/// order, that no longer fits after all more efficient ones), and leaves the
/// items on either side as unsorted intervals on two stacks, the intervals
/// nearest to `b` on top. The *break solution* (every item before `b`) is the
/// first incumbent.
///
/// The core `[s, t]` then grows around `b`, one item at a time, alternately
/// to the right (item `t`: may be *added* to the break solution) and to the
/// left (item `s`: may be *removed*). The DP holds a list of states
/// `(tokens, value)`, each a modification of the break solution on the core
/// items, sorted by tokens with strictly increasing values: every step
/// merges the list with its copy shifted by the new item and drops
/// *dominated* states (no fewer tokens and no more value than another).
/// A state is also dropped when its *Dantzig-style upper bound* cannot beat
/// the incumbent: a state within the budget can at best fill its slack at
/// the efficiency of the next item on the right; a state over the budget
/// must shed its excess at no less than the efficiency of the next item on
/// the left. When an interval is first reached it is *reduced* with the
/// break item's efficiency: an item whose best possible outcome (forced in,
/// or forced out) cannot beat the incumbent keeps its break-solution value
/// and never enters the core; the rest of the interval is sorted. The
/// search ends when no state is left; the incumbent is optimal.
///
/// Each state carries the core decisions of the current epoch of 64 steps in
/// one word; at each epoch boundary the words are moved into a persistent
/// history (a node per state and epoch, linked to the previous one), so the
/// optimal set is rebuilt exactly with memory of about one word per 64
/// state operations.
///
/// All arithmetic is exact: token sums stay below 2^62 (the capacity is at
/// most 2^60 and over-budget states that could never come back are
/// dropped), values below 2^62, and the bounds compare in `i128` by
/// cross-multiplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExactKnapsackSlice {
    states: usize,
    work: u64,
    table_bytes: u64,
}

impl Default for ExactKnapsackSlice {
    /// [`DEFAULT_MAX_STATES`], [`DEFAULT_MAX_WORK`] and, for the fallback,
    /// [`DEFAULT_MAX_TABLE_BYTES`].
    fn default() -> Self {
        Self::new()
    }
}

impl ExactKnapsackSlice {
    /// The slice with the default guards.
    ///
    /// ```
    /// use ctxpack_core::{ExactKnapsackSlice, DEFAULT_MAX_STATES, DEFAULT_MAX_WORK};
    /// let s = ExactKnapsackSlice::new();
    /// assert_eq!((s.max_states(), s.max_work()), (DEFAULT_MAX_STATES, DEFAULT_MAX_WORK));
    /// ```
    pub const fn new() -> Self {
        ExactKnapsackSlice {
            states: DEFAULT_MAX_STATES,
            work: DEFAULT_MAX_WORK,
            table_bytes: DEFAULT_MAX_TABLE_BYTES,
        }
    }

    /// The same slice with another limit on the DP states alive at once.
    ///
    /// ```
    /// use ctxpack_core::{Budget, ExactKnapsackSlice, FallbackReason, Item, Slicer, Solver};
    /// let items: Vec<_> = (1..40).map(|t| Item::new(t * 7 % 31 + 1, f64::from(t as u32 % 13) / 13.0)).collect();
    /// let s = ExactKnapsackSlice::new().with_max_states(1).slice(&items, &Budget::new(150))?;
    /// assert!(matches!(s.exact.unwrap().solver,
    ///     Solver::BucketedFallback { bucket_size: 1, reason: FallbackReason::StateLimit }));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    #[must_use]
    pub const fn with_max_states(self, max_states: usize) -> Self {
        ExactKnapsackSlice {
            states: max_states,
            ..self
        }
    }

    /// The same slice with another limit on the work counter (also the
    /// fallback DP's cell limit).
    ///
    /// ```
    /// use ctxpack_core::{Budget, ExactKnapsackSlice, FallbackReason, Item, Slicer, Solver};
    /// let items: Vec<_> = (1..40).map(|t| Item::new(t * 7 % 31 + 1, f64::from(t as u32 % 13) / 13.0)).collect();
    /// let s = ExactKnapsackSlice::new().with_max_work(10).slice(&items, &Budget::new(150))?;
    /// assert!(matches!(s.exact.unwrap().solver,
    ///     Solver::BucketedFallback { reason: FallbackReason::WorkLimit, .. }));
    /// assert!(s.total_tokens <= 150);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    #[must_use]
    pub const fn with_max_work(self, max_work: u64) -> Self {
        ExactKnapsackSlice {
            work: max_work,
            ..self
        }
    }

    /// The same slice with another table limit (bytes) for the fallback DP.
    ///
    /// ```
    /// use ctxpack_core::ExactKnapsackSlice;
    /// assert_eq!(ExactKnapsackSlice::new().with_max_table_bytes(1 << 20).max_table_bytes(), 1 << 20);
    /// ```
    #[must_use]
    pub const fn with_max_table_bytes(self, max_table_bytes: u64) -> Self {
        ExactKnapsackSlice {
            table_bytes: max_table_bytes,
            ..self
        }
    }

    /// The limit on DP states alive at once.
    pub const fn max_states(&self) -> usize {
        self.states
    }

    /// The limit on the work counter.
    pub const fn max_work(&self) -> u64 {
        self.work
    }

    /// The fallback DP's table limit in bytes.
    pub const fn max_table_bytes(&self) -> u64 {
        self.table_bytes
    }

    /// The bucketed DP in place of the exact search.
    fn fallback(
        &self,
        items: &[Item<'_>],
        budget: &Budget,
        rows: u64,
        reason: FallbackReason,
        work: u64,
        peak_states: usize,
    ) -> Result<Selection, CtxpackError> {
        let bucket_size =
            fallback_bucket(rows, budget.target_tokens(), self.table_bytes, self.work);
        // The bucket is this slice's choice, not the caller's: only the limit can help.
        let mut s = KnapsackSlice::new(bucket_size)?
            .with_max_table_bytes(self.table_bytes)
            .slice(items, budget)
            .map_err(CtxpackError::without_bucket_advice)?;
        // Zero-token items first, then the rest in input order.
        crate::sort::sort_indexes_by(&mut s.selected, |a, b| {
            (items[a].tokens != 0, a).cmp(&(items[b].tokens != 0, b))
        });
        s.total_score = s.selected.iter().map(|&i| items[i].score).sum();
        let mut report = ExactReport::new(
            Solver::BucketedFallback {
                bucket_size,
                reason,
            },
            value_of(items, &s.selected),
        );
        report.work = work;
        report.peak_states = peak_states;
        s.exact = Some(report);
        Ok(s)
    }
}

/// The smallest bucket size whose [`KnapsackSlice`] table for `rows` rows
/// fits `max_bytes` and `max_cells` (or `target` when none does).
pub(crate) fn fallback_bucket(rows: u64, target: i64, max_bytes: u64, max_cells: u64) -> i64 {
    let fits = |bucket: i64| {
        let columns = u128::try_from(target / bucket).unwrap_or(0) + 1;
        let rows = u128::from(rows);
        let bytes = rows * columns.div_ceil(64) * 8 + columns * 8;
        bytes <= u128::from(max_bytes) && rows * columns <= u128::from(max_cells)
    };
    let (mut lo, mut hi) = (1i64, target.max(1));
    if fits(lo) {
        return lo;
    }
    if !fits(hi) {
        return hi;
    }
    // fits(hi) and !fits(lo): the table only shrinks as the bucket grows.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Largest capacity the exact search takes (state token sums stay below
/// 2^62).
const MAX_EXACT_CAPACITY: i64 = 1 << 60;
/// Largest sum of candidate values the exact search takes.
const MAX_EXACT_VALUE_SUM: i64 = 1 << 62;

impl Slicer for ExactKnapsackSlice {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        let target = budget.target_tokens();
        if items.is_empty() || target <= 0 {
            let mut s = Selection::none(items, ExclusionReason::NoBudget);
            s.exact = Some(ExactReport::new(Solver::Exact, 0));
            return Ok(s);
        }
        let mut decisions = vec![Decision::Excluded(ExclusionReason::NotInOptimalSet); items.len()];
        let mut zero = Vec::new();
        let mut cands = Vec::new();
        let mut weight_sum: i128 = 0;
        let mut value_sum: i128 = 0;
        for (i, it) in items.iter().enumerate() {
            let p = scaled_value(it.score);
            match it.tokens {
                t if t < 0 => decisions[i] = Decision::Excluded(ExclusionReason::NegativeTokens),
                0 => {
                    decisions[i] = Decision::Included(InclusionReason::ZeroTokens);
                    zero.push(i);
                }
                t if t > target => {
                    decisions[i] = Decision::Excluded(ExclusionReason::BudgetExceeded);
                }
                _ if p == 0 => {}
                t => {
                    weight_sum += i128::from(t);
                    value_sum += i128::from(p);
                    cands.push(Cand { w: t, p, idx: i });
                }
            }
        }
        let (chosen, work, peak_states) = if weight_sum <= i128::from(target) {
            (cands.iter().map(|c| c.idx).collect::<Vec<_>>(), 0, 0)
        } else if target > MAX_EXACT_CAPACITY || value_sum > i128::from(MAX_EXACT_VALUE_SUM) {
            let rows = cands.len() as u64;
            return self.fallback(items, budget, rows, FallbackReason::ValueRange, 0, 0);
        } else {
            let rows = cands.len() as u64;
            let limits = Limits {
                max_states: self.states,
                max_work: self.work,
            };
            match Minknap::solve(cands, target, limits) {
                Ok(out) => (out.chosen, out.work, out.peak_states),
                Err(stop) => {
                    let reason = match stop.abort {
                        Abort::States => FallbackReason::StateLimit,
                        Abort::Work => FallbackReason::WorkLimit,
                    };
                    return self.fallback(items, budget, rows, reason, stop.work, stop.peak_states);
                }
            }
        };
        for &i in &chosen {
            decisions[i] = Decision::Included(InclusionReason::Scored);
        }
        // In input order: read back from the decisions (no sort to compile).
        let chosen: Vec<usize> = (0..items.len())
            .filter(|&i| decisions[i] == Decision::Included(InclusionReason::Scored))
            .collect();
        let mut selected = zero;
        selected.extend_from_slice(&chosen);
        let mut report = ExactReport::new(Solver::Exact, value_of(items, &selected));
        report.work = work;
        report.peak_states = peak_states;
        let mut s = Selection::finish(items, budget, selected, decisions, Vec::new());
        s.exact = Some(report);
        Ok(s)
    }
}
