//! `ExactKnapsackSlice`: the 0/1 knapsack optimum at token precision, by an
//! expanding-core dynamic programme in the manner of Pisinger's minknap
//! ("A minimal algorithm for the 0-1 knapsack problem", Operations Research
//! 45, 1997). Also the report types that the exact slices attach to their
//! [`Selection`].
//!
//! See [`ExactKnapsackSlice`] for the algorithm.

use crate::knapsack::scaled_value;
use crate::{
    check_scores, Budget, CtxpackError, Decision, ExclusionReason, InclusionReason, Item,
    KnapsackSlice, Selection, Slicer, DEFAULT_MAX_TABLE_BYTES,
};
use std::cmp::Ordering;

/// The default limit on the number of DP states alive at once (each takes
/// 32 bytes, twice: about 16 MiB at the limit).
pub const DEFAULT_MAX_STATES: usize = 1 << 18;

/// The default limit on the work counter: state operations (two per state
/// and core item) of [`ExactKnapsackSlice`], DP cells of the exact
/// count-constrained slice.
pub const DEFAULT_MAX_WORK: u64 = 1 << 26;

/// How an exact slice reached its answer.
///
/// ```
/// use ctxpack::{Budget, ExactKnapsackSlice, Item, Slicer, Solver};
/// let s = ExactKnapsackSlice::default().slice(&[Item::new(10, 0.5)], &Budget::new(100))?;
/// assert_eq!(s.exact.unwrap().solver, Solver::Exact);
/// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// [`KnapsackSlice`] DP answered with `bucket_size`, the smallest whose
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

/// Why [`ExactKnapsackSlice`] fell back to the bucketed DP.
///
/// ```
/// use ctxpack::{Budget, ExactKnapsackSlice, FallbackReason, Item, Slicer, Solver};
/// // Scores this large make the values sum beyond the exact range.
/// let items = vec![Item::new(3, 1e15), Item::new(2, 1e15), Item::new(2, 1e15)];
/// let s = ExactKnapsackSlice::default().slice(&items, &Budget::new(4))?;
/// assert!(matches!(s.exact.unwrap().solver,
///    Solver::BucketedFallback { reason: FallbackReason::ValueRange, .. }));
/// # Ok::<(), ctxpack::CtxpackError>(())
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

/// What an exact slice reports beside its [`Selection`] (in
/// [`Selection::exact`]).
///
/// `value` is the selection's total scaled value, `Σ max(0, floor(score ×
/// 10000))` over the selected items (zero-token items included), added with
/// saturation at `i64::MAX` — the quantity [`KnapsackSlice`] maximises.
///
/// ```
/// use ctxpack::{Budget, ExactKnapsackSlice, Item, Slicer};
/// let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
/// let s = ExactKnapsackSlice::default().slice(&items, &Budget::new(100))?;
/// let report = s.exact.unwrap();
/// assert_eq!(report.value, 10_000);
/// assert_eq!(report.heuristic_value, None); // only the count-constrained slice compares
/// # Ok::<(), ctxpack::CtxpackError>(())
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
/// use ctxpack::{Budget, ExactKnapsackSlice, Item, KnapsackSlice, Slicer};
/// // Three items of 101 tokens fit 303 tokens exactly.
/// let items = [Item::new(101, 0.5), Item::new(101, 0.5), Item::new(101, 0.5), Item::new(300, 0.9)];
/// let budget = Budget::new(303);
/// let exact = ExactKnapsackSlice::default().slice(&items, &budget)?;
/// assert_eq!(exact.selected, [0, 1, 2]);
/// assert_eq!(exact.exact.unwrap().value, 15_000);
/// // Bucketed, each 101 takes 2 of the 3 buckets: the knapsack settles for 0.9.
/// assert_eq!(KnapsackSlice::default().slice(&items, &budget)?.selected, [3]);
/// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::{ExactKnapsackSlice, DEFAULT_MAX_STATES, DEFAULT_MAX_WORK};
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
    /// use ctxpack::{Budget, ExactKnapsackSlice, FallbackReason, Item, Slicer, Solver};
    /// let items: Vec<_> = (1..40).map(|t| Item::new(t * 7 % 31 + 1, f64::from(t as u32 % 13) / 13.0)).collect();
    /// let s = ExactKnapsackSlice::new().with_max_states(1).slice(&items, &Budget::new(150))?;
    /// assert!(matches!(s.exact.unwrap().solver,
    ///     Solver::BucketedFallback { bucket_size: 1, reason: FallbackReason::StateLimit }));
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::{Budget, ExactKnapsackSlice, FallbackReason, Item, Slicer, Solver};
    /// let items: Vec<_> = (1..40).map(|t| Item::new(t * 7 % 31 + 1, f64::from(t as u32 % 13) / 13.0)).collect();
    /// let s = ExactKnapsackSlice::new().with_max_work(10).slice(&items, &Budget::new(150))?;
    /// assert!(matches!(s.exact.unwrap().solver,
    ///     Solver::BucketedFallback { reason: FallbackReason::WorkLimit, .. }));
    /// assert!(s.total_tokens <= 150);
    /// # Ok::<(), ctxpack::CtxpackError>(())
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
    /// use ctxpack::ExactKnapsackSlice;
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

// ---------------------------------------------------------------------------
// The expanding-core search.

/// A candidate: tokens, scaled value, index in the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cand {
    pub(crate) w: i64,
    pub(crate) p: i64,
    pub(crate) idx: usize,
}

/// Efficiency order: `p / w` descending (exact, by cross-multiplication),
/// then input index ascending, so that the order is total.
fn by_efficiency(a: &Cand, b: &Cand) -> Ordering {
    (i128::from(b.p) * i128::from(a.w))
        .cmp(&(i128::from(a.p) * i128::from(b.w)))
        .then(a.idx.cmp(&b.idx))
}

/// One DP state: tokens and value of the break solution modified on the
/// core items, this epoch's decisions (bit `k`: the `k`-th core item of the
/// epoch flipped), and its history node.
#[derive(Debug, Clone, Copy)]
struct State {
    w: i64,
    p: i64,
    bits: u64,
    hist: u32,
}

/// A history node: the decision word of one epoch and the node of the
/// epoch before.
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    bits: u64,
}

/// No history node (the first epoch).
const ROOT: u32 = u32::MAX;

/// A step's change to a state.
#[derive(Debug, Clone, Copy)]
struct Shift {
    w: i64,
    p: i64,
    bit: u64,
}

/// What the bounds of a step look at: the next item on each side, and the
/// most tokens a state may have and still shed its excess.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    right: Option<Cand>,
    left: Option<Cand>,
    over_limit: i64,
}

/// The incumbent: how to rebuild it.
#[derive(Debug, Clone, Copy)]
struct Incumbent {
    hist: u32,
    bits: u64,
    steps: usize,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_states: usize,
    pub(crate) max_work: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Abort {
    States,
    Work,
}

#[derive(Debug)]
pub(crate) struct Stopped {
    pub(crate) abort: Abort,
    pub(crate) work: u64,
    pub(crate) peak_states: usize,
}

#[derive(Debug)]
pub(crate) struct Solved {
    /// Input indexes of the optimal set (unordered).
    pub(crate) chosen: Vec<usize>,
    pub(crate) work: u64,
    pub(crate) peak_states: usize,
}

/// The search. Positions are indexes into `its`, which is permuted into
/// efficiency order as the core reaches each interval.
struct Minknap {
    its: Vec<Cand>,
    c: i64,
    /// The break item's position.
    b: usize,
    /// Tokens and value of the break solution (every position before `b`).
    wbar: i64,
    pbar: i64,
    /// Unsorted intervals `[from, to)` left and right of the sorted part,
    /// nearest to `b` on top.
    left_stack: Vec<(usize, usize)>,
    right_stack: Vec<(usize, usize)>,
    /// Right items still to process: `right_next..right_end`, in order.
    right_next: usize,
    right_end: usize,
    /// Left items still to process: `left_low..left_high`, from the top.
    left_low: usize,
    left_high: usize,
    /// Tokens the left items not yet processed (nor fixed) could shed.
    removable: i64,
    z: i64,
    incumbent: Incumbent,
    states: Vec<State>,
    spare: Vec<State>,
    arena: Vec<Node>,
    /// The position processed at each step.
    order: Vec<usize>,
    steps: usize,
    work: u64,
    peak_states: usize,
    limits: Limits,
}

impl Minknap {
    /// Solves the instance. Preconditions: every `w` in `1..=c`, every `p`
    /// positive, the weights sum above `c`, `c <= 2^60`, the values sum to
    /// at most 2^62.
    pub(crate) fn solve(its: Vec<Cand>, c: i64, limits: Limits) -> Result<Solved, Stopped> {
        let mut m = Minknap {
            its,
            c,
            b: 0,
            wbar: 0,
            pbar: 0,
            left_stack: Vec::new(),
            right_stack: Vec::new(),
            right_next: 0,
            right_end: 0,
            left_low: 0,
            left_high: 0,
            removable: 0,
            z: 0,
            incumbent: Incumbent {
                hist: ROOT,
                bits: 0,
                steps: 0,
            },
            states: Vec::new(),
            spare: Vec::new(),
            arena: Vec::new(),
            order: Vec::new(),
            steps: 0,
            work: 0,
            peak_states: 1,
            limits,
        };
        m.find_break();
        m.removable = m.wbar;
        m.z = m.pbar;
        m.states.push(State {
            w: m.wbar,
            p: m.pbar,
            bits: 0,
            hist: ROOT,
        });
        let stopped = |m: &Minknap, abort| Stopped {
            abort,
            work: m.work,
            peak_states: m.peak_states,
        };
        while !m.states.is_empty() {
            let mut progressed = false;
            if let Some(pos) = m.take_right() {
                m.step(pos, true).map_err(|a| stopped(&m, a))?;
                progressed = true;
            }
            if m.states.is_empty() {
                break;
            }
            if let Some(pos) = m.take_left() {
                m.step(pos, false).map_err(|a| stopped(&m, a))?;
                progressed = true;
            }
            if !progressed {
                break;
            }
        }
        Ok(Solved {
            chosen: m.rebuild(),
            work: m.work,
            peak_states: m.peak_states,
        })
    }

    /// Partitions `its` around the break item (quickselect on efficiency
    /// with a deterministic pseudo-random pivot), pushing the intervals it
    /// leaves on the stacks, and sorts the final small interval.
    fn find_break(&mut self) {
        let c = self.c;
        let (mut f, mut l) = (0usize, self.its.len());
        let mut ws: i64 = 0; // tokens of every position before f
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        loop {
            if l - f <= 16 {
                self.its[f..l].sort_unstable_by(by_efficiency);
                let mut b = f;
                while b + 1 < l && ws + self.its[b].w <= c {
                    ws += self.its[b].w;
                    b += 1;
                }
                self.b = b;
                self.left_low = f;
                self.left_high = b;
                self.right_next = b;
                self.right_end = l;
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pick = f + usize::try_from(seed % (l - f) as u64).unwrap_or(0);
            self.its.swap(pick, l - 1);
            let pivot = self.its[l - 1];
            let mut m = f;
            let mut wh: i64 = 0;
            for i in f..l - 1 {
                if by_efficiency(&self.its[i], &pivot) == Ordering::Less {
                    wh = wh.saturating_add(self.its[i].w);
                    self.its.swap(i, m);
                    m += 1;
                }
            }
            self.its.swap(m, l - 1);
            // Invariant: ws <= c < ws + (tokens of f..l). `wh` saturates;
            // every sum compared below is at most 2c once it passes.
            if ws.saturating_add(wh) > c {
                self.right_stack.push((m, l));
                l = m;
            } else if ws + wh + pivot.w > c {
                if f < m {
                    self.left_stack.push((f, m));
                }
                if m + 1 < l {
                    self.right_stack.push((m + 1, l));
                }
                self.b = m;
                self.left_low = m;
                self.left_high = m;
                self.right_next = m;
                self.right_end = m + 1;
                break;
            } else {
                ws += wh + pivot.w;
                self.left_stack.push((f, m + 1));
                f = m + 1;
            }
        }
        for it in &self.its[..self.b] {
            self.wbar += it.w;
            self.pbar += it.p;
        }
    }

    /// `floor(pbar ± p_j + (c − wbar ∓ w_j) · p_b / w_b) <= z`: forcing the
    /// item's flip cannot beat the incumbent. `sign` is +1 for a right item
    /// (forced in), −1 for a left item (forced out).
    fn cannot_improve(&self, j: usize, sign: i128) -> bool {
        let it = self.its[j];
        let brk = self.its[self.b];
        let profit = i128::from(self.pbar) + sign * i128::from(it.p) - i128::from(self.z) - 1;
        let slack = i128::from(self.c) - i128::from(self.wbar) - sign * i128::from(it.w);
        profit * i128::from(brk.w) + slack * i128::from(brk.p) < 0
    }

    /// The next right item, reducing and sorting the next interval when the
    /// current one is used up.
    fn peek_right(&mut self) -> Option<usize> {
        while self.right_next == self.right_end {
            let (from, to) = self.right_stack.pop()?;
            let mut keep = from;
            for j in from..to {
                if !self.cannot_improve(j, 1) {
                    self.its.swap(j, keep);
                    keep += 1;
                }
            }
            self.its[from..keep].sort_unstable_by(by_efficiency);
            self.right_next = from;
            self.right_end = keep;
        }
        Some(self.right_next)
    }

    fn take_right(&mut self) -> Option<usize> {
        let pos = self.peek_right()?;
        self.right_next += 1;
        Some(pos)
    }

    /// The next left item (the least efficient one left), reducing and
    /// sorting the next interval when the current one is used up.
    fn peek_left(&mut self) -> Option<usize> {
        while self.left_high == self.left_low {
            let (from, to) = self.left_stack.pop()?;
            let mut keep = to;
            for j in (from..to).rev() {
                if self.cannot_improve(j, -1) {
                    self.removable -= self.its[j].w; // fixed in: never shed
                } else {
                    keep -= 1;
                    self.its.swap(j, keep);
                }
            }
            self.its[keep..to].sort_unstable_by(by_efficiency);
            self.left_low = keep;
            self.left_high = to;
        }
        Some(self.left_high - 1)
    }

    fn take_left(&mut self) -> Option<usize> {
        let pos = self.peek_left()?;
        self.left_high -= 1;
        Some(pos)
    }

    /// One core step: the item at `pos` is added (right) or removed (left)
    /// in a copy of every state; the two lists merge with dominance and
    /// bound pruning.
    fn step(&mut self, pos: usize, add: bool) -> Result<(), Abort> {
        let slot = self.steps % 64;
        if slot == 0 && self.steps > 0 {
            self.new_epoch()?;
        }
        let item = self.its[pos];
        if !add {
            self.removable -= item.w;
        }
        self.order.push(pos);
        let shift = if add {
            Shift {
                w: item.w,
                p: item.p,
                bit: 1 << slot,
            }
        } else {
            Shift {
                w: -item.w,
                p: -item.p,
                bit: 1 << slot,
            }
        };
        let bounds = Bounds {
            right: self.peek_right().map(|j| self.its[j]),
            left: self.peek_left().map(|j| self.its[j]),
            over_limit: self.c.saturating_add(self.removable),
        };
        let old = std::mem::take(&mut self.states);
        let mut out = std::mem::take(&mut self.spare);
        self.merge(&old, shift, &bounds, &mut out);
        self.steps += 1;
        self.work = self.work.saturating_add(2 * old.len() as u64);
        self.peak_states = self.peak_states.max(out.len());
        self.spare = old;
        self.states = out;
        if self.states.len() > self.limits.max_states {
            return Err(Abort::States);
        }
        if self.work > self.limits.max_work {
            return Err(Abort::Work);
        }
        Ok(())
    }

    /// Moves every state's decision word into the history.
    fn new_epoch(&mut self) -> Result<(), Abort> {
        if self.arena.len() + self.states.len() >= ROOT as usize {
            return Err(Abort::Work);
        }
        for s in &mut self.states {
            self.arena.push(Node {
                parent: s.hist,
                bits: s.bits,
            });
            s.hist = u32::try_from(self.arena.len() - 1).unwrap_or(ROOT);
            s.bits = 0;
        }
        Ok(())
    }

    /// Merges `old` with its copy shifted by `shift` into `out`, in token
    /// order, keeping only undominated states whose bound can beat the
    /// incumbent, and updating the incumbent.
    fn merge(&mut self, old: &[State], shift: Shift, bounds: &Bounds, out: &mut Vec<State>) {
        out.clear();
        let len = old.len();
        let (mut i, mut j) = (0, 0);
        let mut last_p = i64::MIN;
        while i < len || j < len {
            let take_old = j == len
                || (i < len
                    && (old[i].w < old[j].w + shift.w
                        || (old[i].w == old[j].w + shift.w && old[i].p >= old[j].p + shift.p)));
            let s = if take_old {
                i += 1;
                old[i - 1]
            } else {
                j += 1;
                State {
                    w: old[j - 1].w + shift.w,
                    p: old[j - 1].p + shift.p,
                    bits: old[j - 1].bits | shift.bit,
                    hist: old[j - 1].hist,
                }
            };
            if s.p <= last_p {
                continue; // dominated
            }
            last_p = s.p;
            if s.w <= self.c && s.p > self.z {
                self.z = s.p;
                self.incumbent = Incumbent {
                    hist: s.hist,
                    bits: s.bits,
                    steps: self.steps + 1,
                };
            }
            if !self.hopeless(s, bounds) {
                out.push(s);
            }
        }
    }

    /// Whether the state's upper bound cannot beat the incumbent.
    fn hopeless(&self, s: State, bounds: &Bounds) -> bool {
        let gap = i128::from(s.p) - i128::from(self.z) - 1;
        if s.w <= self.c {
            // floor(p + (c − w) · p_r / w_r) <= z
            match bounds.right {
                Some(r) => gap * i128::from(r.w) + i128::from(self.c - s.w) * i128::from(r.p) < 0,
                None => gap < 0,
            }
        } else if s.w > bounds.over_limit {
            true // cannot shed enough
        } else {
            // floor(p − (w − c) · p_l / w_l) <= z
            match bounds.left {
                Some(l) => gap * i128::from(l.w) - i128::from(s.w - self.c) * i128::from(l.p) < 0,
                None => true,
            }
        }
    }

    /// The incumbent's input indexes: the break solution with the
    /// incumbent's recorded flips applied.
    fn rebuild(&self) -> Vec<usize> {
        let mut take = vec![false; self.its.len()];
        take[..self.b].fill(true);
        let inc = self.incumbent;
        if inc.steps > 0 {
            let mut epoch = (inc.steps - 1) / 64;
            let mut bits = inc.bits;
            let mut hist = inc.hist;
            loop {
                let mut word = bits;
                while word != 0 {
                    let k = word.trailing_zeros() as usize;
                    word &= word - 1;
                    let pos = self.order[epoch * 64 + k];
                    take[pos] = !take[pos];
                }
                if epoch == 0 || hist == ROOT {
                    break;
                }
                epoch -= 1;
                let node = self.arena[hist as usize];
                bits = node.bits;
                hist = node.parent;
            }
        }
        let chosen: Vec<usize> = (0..self.its.len())
            .filter(|&p| take[p])
            .map(|p| self.its[p].idx)
            .collect();
        debug_assert_eq!(
            (0..self.its.len())
                .filter(|&p| take[p])
                .map(|p| self.its[p].p)
                .sum::<i64>(),
            self.z
        );
        chosen
    }
}
