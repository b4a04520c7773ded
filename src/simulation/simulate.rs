//! Budget simulation: what a strategy does at every budget, computed once
//! instead of once per budget.
//!
//! See [`BudgetSimulation`] for the three questions it answers and how.

use crate::dp::guard::{keep_bytes, too_large};
use crate::dp::keep::KeepTable;
use crate::dp::order::density_order;
use crate::dp::row::{keep_row_i64, max_row_i64};
use crate::exact::value_of;
use crate::knapsack::scaled_value;
use crate::TableLimit;
use crate::{
    check_scores, Budget, CtxpackError, ExactKnapsackSlice, GreedyPacker, GreedySlice, Item,
    KnapsackSlice, Slicer, DEFAULT_MAX_TABLE_BYTES,
};

/// The default limit on the cells (DP states × budgets) of one simulation:
/// 2^28, well under a second natively.
pub const DEFAULT_MAX_SIMULATION_CELLS: u64 = 1 << 28;

/// A strategy whose behaviour over budgets can be simulated: every slicer
/// but the count-constrained ones, whose selection is not monotonic in the
/// budget (their names are refused at the npm boundary with
/// [`CtxpackError::NotMonotonic`]).
///
/// ```
/// use ctxpack::{GreedySlice, Slicer, Strategy};
/// let s = Strategy::Greedy;
/// assert_eq!(s.slicer().slice(&[], &ctxpack::Budget::new(10))?.selected, Vec::<usize>::new());
/// # Ok::<(), ctxpack::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// [`GreedySlice`].
    Greedy,
    /// [`KnapsackSlice`], with its bucket size and table limit.
    Knapsack(KnapsackSlice),
    /// [`ExactKnapsackSlice`], with its guards.
    Exact(ExactKnapsackSlice),
    /// [`GreedyPacker`], with its skip limit.
    Packer(GreedyPacker),
}

impl Strategy {
    /// The slicer itself.
    pub fn slicer(&self) -> &dyn Slicer {
        match self {
            Strategy::Greedy => &GreedySlice,
            Strategy::Knapsack(k) => k,
            Strategy::Exact(e) => e,
            Strategy::Packer(p) => p,
        }
    }
}

/// The answer of [`BudgetSimulation::min_budget_for`]: where, between 0 and
/// `ceiling`, the strategy selects one item.
///
/// No strategy is monotonic per item: a larger budget can let an earlier
/// item in that pushes this one out (greedy, packer), or change the optimal
/// combination (knapsack). So there are two numbers: the first budget at
/// which the item is in, and the budget from which it stays in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MinBudget {
    /// The smallest budget in `0..=ceiling` at which the strategy selects
    /// the item; `None` when it selects it at none.
    pub first: Option<i64>,
    /// The smallest budget `b` such that the strategy selects the item at
    /// every budget in `b..=ceiling`; `None` when it does not select it at
    /// `ceiling`. When `ceiling >= saturation` this holds for every budget
    /// from `b` on.
    pub stable_from: Option<i64>,
    /// The largest budget examined.
    pub ceiling: i64,
    /// A budget from which the selection no longer changes: everything the
    /// strategy can select fits (the sum of the candidates' tokens; for the
    /// knapsack, of their bucketed tokens). At least 1.
    pub saturation: i64,
}

impl MinBudget {
    /// No budget found yet, over `0..=ceiling`.
    const fn unanswered(ceiling: i64, saturation: i64) -> Self {
        MinBudget {
            first: None,
            stable_from: None,
            ceiling,
            saturation,
        }
    }

    /// A zero-token item is in at every positive budget (and out at 0, the
    /// specs' edge case), for every strategy.
    const fn zero_tokens(mut self) -> Self {
        if self.ceiling >= 1 {
            self.first = Some(1);
            self.stable_from = Some(1);
        }
        self
    }
}

/// The answer of [`BudgetSimulation::dropped_under_slack`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlackDiff {
    /// The budget's target.
    pub budget: i64,
    /// The target less the slack (at least 0).
    pub shrunk_budget: i64,
    /// Items selected at `budget` but not at `shrunk_budget`, in the
    /// strategy's output order at `budget`.
    pub dropped: Vec<usize>,
    /// Items selected at `shrunk_budget` but not at `budget` (the
    /// strategies are not monotonic per item), in the output order at
    /// `shrunk_budget`.
    pub added: Vec<usize>,
    /// Total scaled value at `budget` and at `shrunk_budget`.
    pub value: (i64, i64),
}

/// Budget simulation for one [`Strategy`]: the value at every budget from 0
/// to a ceiling ([`curve`](Self::curve)), the budgets at which one item gets
/// in ([`min_budget_for`](Self::min_budget_for)), and the items that drop
/// out when the budget shrinks by a slack
/// ([`dropped_under_slack`](Self::dropped_under_slack)).
///
/// **The measure** is the one [`KnapsackSlice`] maximises, for every
/// strategy: the total scaled value `Σ max(0, floor(score × 10000))` of the
/// selection (zero-token items included, saturating at `i64::MAX`). It is
/// exact integer arithmetic, so every point of a curve equals the value of
/// a separate run at that budget, bit for bit, and the curves of different
/// strategies compare directly (the total score is about `value / 10000`).
///
/// **Monotonicity.** The value curves of the knapsack strategies are
/// non-decreasing from budget 1 on (optimal values over growing feasible
/// sets), and so is greedy's: when a larger budget first changes the walk,
/// it takes an item it skipped before and then has no tokens left, and what
/// the smaller budget took instead is less dense. The packer's curve can
/// fall (a larger budget lets in an early item that fills the budget and
/// starts the skip count). No strategy is monotonic *per item*, hence the
/// two answers of [`MinBudget`].
///
/// **How.**
/// * Greedy and the packer are walks (density order, or your order, taking
///   what fits, the packer stopping after its skip limit). With prefix sums
///   `P_k` of the walk's tokens, at any budget `t` in `[P_k, P_{k+1})` the
///   walk takes items `0..k`, misses item `k`, and continues with `t − P_k`
///   tokens left, less than item `k`'s count. So the curve needs the walk's
///   outcome from each item on only for small leftovers: one backward DP
///   over `(item, leftover, consecutive misses)`, with leftovers up to the
///   largest count among the items a prefix breaks at. Cells: items ×
///   that count × the skip limit (1 for greedy), far fewer than items ×
///   budgets. The same DP over booleans answers `min_budget_for` without a
///   ceiling.
/// * The knapsack's curve is its DP's last value row
///   ([`KnapsackSlice::budget_curve`]); the exact slice's is the same DP at
///   token precision ([`ExactKnapsackSlice::budget_curve`], guarded here by
///   `max_cells`). For `min_budget_for`, the knapsack's keep table up to the
///   ceiling is traced back from every capacity at once, so the answer is
///   exactly the slice's own selection, ties included; the exact slice's
///   is read from a DP without the item (is the item in every optimal
///   selection, in some, or in none?), and the slice itself is run at the
///   budgets where optimal selections disagree on the item.
///
/// **Guards.** Every DP is limited to `max_cells` cells
/// ([`DEFAULT_MAX_SIMULATION_CELLS`]) and its memory, curves included, to
/// `max_table_bytes` ([`DEFAULT_MAX_TABLE_BYTES`]; the knapsack's own limit
/// for its curve and keep table); past them the call fails with
/// [`CtxpackError::TableTooLarge`] rather than run long.
///
/// ```
/// use ctxpack::{BudgetSimulation, Budget, Item, Strategy};
/// // Density order: item 2, item 1, item 0.
/// let items = [Item::new(60, 0.5), Item::new(80, 0.8), Item::new(10, 0.2)];
/// let sim = BudgetSimulation::new(Strategy::Greedy);
/// let curve = sim.curve(&items, 150)?;
/// assert_eq!((curve[9], curve[10], curve[70], curve[90], curve[150]), (0, 2_000, 7_000, 10_000, 15_000));
/// let m = sim.min_budget_for(&items, 0, None)?;
/// // Item 0 is in at 70..89 (item 1 does not fit yet), out at 90..149, in from 150 on.
/// assert_eq!((m.first, m.stable_from, m.saturation), (Some(70), Some(150), 150));
/// let slack = sim.dropped_under_slack(&items, &Budget::new(150), 70)?;
/// assert_eq!((slack.dropped, slack.added), (vec![1], vec![]));
/// # Ok::<(), ctxpack::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BudgetSimulation {
    strategy: Strategy,
    cells: u64,
    bytes: u64,
}

impl BudgetSimulation {
    /// A simulation of `strategy` with the default guards.
    pub const fn new(strategy: Strategy) -> Self {
        BudgetSimulation {
            strategy,
            cells: DEFAULT_MAX_SIMULATION_CELLS,
            bytes: DEFAULT_MAX_TABLE_BYTES,
        }
    }

    /// The same simulation with another cell limit.
    #[must_use]
    pub const fn with_max_cells(self, max_cells: u64) -> Self {
        BudgetSimulation {
            cells: max_cells,
            ..self
        }
    }

    /// The same simulation with another memory limit, in bytes, for the
    /// walks' and the exact slice's tables and curves (the knapsack's come
    /// from its own `max_table_bytes`).
    #[must_use]
    pub const fn with_max_table_bytes(self, max_table_bytes: u64) -> Self {
        BudgetSimulation {
            bytes: max_table_bytes,
            ..self
        }
    }

    /// The strategy simulated.
    pub const fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The cell limit.
    pub const fn max_cells(&self) -> u64 {
        self.cells
    }

    /// The memory limit in bytes.
    pub const fn max_table_bytes(&self) -> u64 {
        self.bytes
    }

    /// The total scaled value of the strategy's selection at every budget
    /// `0..=max_budget` (empty when `max_budget < 0`): `curve[t]` equals
    /// the value of `strategy.slicer().slice(items, &Budget::new(t))`. For
    /// the exact slice, the optimum at token precision (what it selects
    /// whenever it solves exactly rather than fall back to buckets).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidScore`] for a NaN or infinite score;
    /// [`CtxpackError::TableTooLarge`] past the guards.
    ///
    /// ```
    /// use ctxpack::{BudgetSimulation, GreedyPacker, Item, Strategy};
    /// // The packer's curve can fall: at 100 the first item fills the budget.
    /// let items = [Item::new(100, 0.1), Item::new(50, 0.5), Item::new(49, 0.5)];
    /// let curve = BudgetSimulation::new(Strategy::Packer(GreedyPacker::new(3))).curve(&items, 100)?;
    /// assert_eq!((curve[99], curve[100]), (10_000, 1_000));
    /// # Ok::<(), ctxpack::CtxpackError>(())
    /// ```
    pub fn curve(&self, items: &[Item<'_>], max_budget: i64) -> Result<Vec<i64>, CtxpackError> {
        check_scores(items)?;
        let values: Vec<i64> = items.iter().map(|it| scaled_value(it.score)).collect();
        self.curve_valued(items, &values, max_budget)
    }

    /// [`curve`](Self::curve) with the walks' values given per item instead
    /// of read from the scores (merged groups: the walk orders by the
    /// group's total score, the value is the sum of its members' values).
    /// The knapsack strategies read the scores only.
    pub(crate) fn curve_valued(
        &self,
        items: &[Item<'_>],
        values: &[i64],
        max_budget: i64,
    ) -> Result<Vec<i64>, CtxpackError> {
        check_scores(items)?;
        if max_budget < 0 {
            return Ok(Vec::new());
        }
        match self.strategy {
            Strategy::Knapsack(k) => k.budget_curve(items, max_budget),
            Strategy::Exact(e) => e
                .with_max_work(self.cells)
                .with_max_table_bytes(self.bytes)
                .budget_curve(items, max_budget),
            Strategy::Greedy | Strategy::Packer(_) => {
                let walk = Walk::new(self.strategy, items, values);
                walk.curve(max_budget, self.cells, self.bytes)
            }
        }
    }

    /// Where, between budget 0 and `max_budget` (by default the
    /// saturation budget, after which nothing changes), the strategy
    /// selects item `index`: the first budget at which it does and the
    /// budget from which it always does (see [`MinBudget`]). Budget 0
    /// selects nothing.
    ///
    /// Exactly the strategy's own selection at each budget, with one
    /// proviso for the exact slice: budgets at which its search would give
    /// up and fall back to buckets are answered for the optimum.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidScore`]; [`CtxpackError::InvalidInput`] when
    /// `index` is out of range; [`CtxpackError::InvalidOption`] when
    /// `max_budget` is negative; [`CtxpackError::TableTooLarge`] past the
    /// guards (lower `max_budget` for the knapsack strategies).
    ///
    /// ```
    /// use ctxpack::{BudgetSimulation, Item, KnapsackSlice, Strategy};
    /// let items = [Item::new(60, 0.6), Item::new(40, 0.45), Item::new(50, 0.5)];
    /// let sim = BudgetSimulation::new(Strategy::Knapsack(KnapsackSlice::new(10)?));
    /// let m = sim.min_budget_for(&items, 1, None)?;
    /// // In alone at 40..49, with item 2 or item 0 at 90..109, out otherwise, in from 150 on.
    /// assert_eq!((m.first, m.stable_from, m.saturation), (Some(40), Some(150), 150));
    /// # Ok::<(), ctxpack::CtxpackError>(())
    /// ```
    pub fn min_budget_for(
        &self,
        items: &[Item<'_>],
        index: usize,
        max_budget: Option<i64>,
    ) -> Result<MinBudget, CtxpackError> {
        check_scores(items)?;
        let values: Vec<i64> = items.iter().map(|it| scaled_value(it.score)).collect();
        self.min_budget_valued(items, &values, index, max_budget)
    }

    /// [`min_budget_for`](Self::min_budget_for) with the walks' values given
    /// per item (see [`curve_valued`](Self::curve_valued)).
    pub(crate) fn min_budget_valued(
        &self,
        items: &[Item<'_>],
        values: &[i64],
        index: usize,
        max_budget: Option<i64>,
    ) -> Result<MinBudget, CtxpackError> {
        check_scores(items)?;
        if index >= items.len() {
            return Err(CtxpackError::InvalidInput {
                reason: format!("index {index} is out of range for {} items", items.len()),
            });
        }
        if let Some(m) = max_budget.filter(|&m| m < 0) {
            return Err(CtxpackError::InvalidOption {
                option: "maxBudget".into(),
                reason: format!("must be a non-negative integer, got {m}"),
            });
        }
        match self.strategy {
            Strategy::Greedy | Strategy::Packer(_) => {
                let walk = Walk::new(self.strategy, items, values);
                let ceiling = max_budget.unwrap_or(walk.saturation());
                walk.membership(index, ceiling, self.cells, self.bytes)
            }
            Strategy::Knapsack(k) => knapsack_membership(items, k, index, max_budget, self.cells),
            Strategy::Exact(e) => {
                exact_membership(items, e, index, max_budget, self.cells, self.bytes)
            }
        }
    }

    /// The items the strategy drops when the budget's target shrinks by
    /// `slack` tokens (to at least 0; `max_tokens` shrinks with it): the
    /// difference of its two selections, both ways.
    ///
    /// # Errors
    /// The strategy's own errors; [`CtxpackError::InvalidOption`] for a
    /// negative slack.
    pub fn dropped_under_slack(
        &self,
        items: &[Item<'_>],
        budget: &Budget,
        slack: i64,
    ) -> Result<SlackDiff, CtxpackError> {
        if slack < 0 {
            return Err(CtxpackError::InvalidOption {
                option: "slack".into(),
                reason: format!("must be a non-negative integer, got {slack}"),
            });
        }
        let shrunk_target = budget.target_tokens().saturating_sub(slack).max(0);
        let shrunk_max = budget.max_tokens().saturating_sub(slack).max(shrunk_target);
        let shrunk = Budget::with_max(shrunk_target, shrunk_max)?;
        let slicer = self.strategy.slicer();
        let at = slicer.slice(items, budget)?;
        let under = slicer.slice(items, &shrunk)?;
        let mut in_under = vec![false; items.len()];
        for &i in &under.selected {
            in_under[i] = true;
        }
        let mut in_at = vec![false; items.len()];
        for &i in &at.selected {
            in_at[i] = true;
        }
        Ok(SlackDiff {
            budget: budget.target_tokens(),
            shrunk_budget: shrunk_target,
            dropped: at
                .selected
                .iter()
                .copied()
                .filter(|&i| !in_under[i])
                .collect(),
            added: under
                .selected
                .iter()
                .copied()
                .filter(|&i| !in_at[i])
                .collect(),
            value: (
                value_of(items, &at.selected),
                value_of(items, &under.selected),
            ),
        })
    }
}

/// Checks a DP of `rows × columns` cells and `bytes` bytes against the
/// guards.
fn guard(
    rows: usize,
    columns: u128,
    bytes: u128,
    max_cells: u64,
    max_bytes: u64,
) -> Result<(), CtxpackError> {
    let cells = rows as u128 * columns;
    if cells > u128::from(max_cells) {
        return Err(too_large(
            rows,
            columns,
            cells,
            bytes,
            max_cells,
            TableLimit::Cells,
        ));
    }
    if bytes > u128::from(max_bytes) {
        return Err(too_large(
            rows,
            columns,
            cells,
            bytes,
            max_bytes,
            TableLimit::Bytes,
        ));
    }
    Ok(())
}

/// The number of budgets `0..=max_budget` as a length, guarded by bytes.
fn curve_len(max_budget: i64, max_bytes: u64) -> Result<usize, CtxpackError> {
    let budgets = u128::try_from(max_budget).unwrap_or(0) + 1;
    let bytes = budgets * 8;
    if bytes > u128::from(max_bytes) {
        return Err(too_large(
            0,
            budgets,
            0,
            bytes,
            max_bytes,
            TableLimit::Bytes,
        ));
    }
    usize::try_from(budgets)
        .map_err(|_| too_large(0, budgets, 0, bytes, max_bytes, TableLimit::Bytes))
}

// ---------------------------------------------------------------------------
// The walks: greedy (density order, never stops) and the packer (your
// order, stops after its skip limit).

/// The items a walk visits, in its order: non-negative token counts only
/// (both walks exclude the others without counting them as misses).
struct Walk {
    tokens: Vec<i64>,
    values: Vec<i64>,
    idx: Vec<usize>,
    /// Consecutive misses that stop the walk; 0: never.
    limit: usize,
    /// `prefix[k]`: tokens of the first `k` items (saturating).
    prefix: Vec<i64>,
    /// `gain[k]`: value of the first `k` items (saturating).
    gain: Vec<i64>,
}

/// The cell type of a walk DP: a value, or whether the item is reached and
/// taken.
trait Outcome: Copy + Default {
    fn take(self, value: i64) -> Self;
}

impl Outcome for i64 {
    fn take(self, value: i64) -> i64 {
        self.saturating_add(value)
    }
}

impl Outcome for bool {
    fn take(self, _: i64) -> bool {
        self
    }
}

impl Walk {
    fn new(strategy: Strategy, items: &[Item<'_>], values: &[i64]) -> Walk {
        let (order, limit) = if let Strategy::Packer(p) = strategy {
            let order: Vec<usize> = (0..items.len()).filter(|&i| items[i].tokens >= 0).collect();
            (
                order,
                usize::try_from(p.max_consecutive_skips).unwrap_or(usize::MAX),
            )
        } else {
            // GreedySlice's order.
            (density_order(items), 0)
        };
        let m = order.len();
        // A limit above the number of items never stops the walk.
        let limit = if limit > m { 0 } else { limit };
        let tokens: Vec<i64> = order.iter().map(|&i| items[i].tokens).collect();
        let values: Vec<i64> = order.iter().map(|&i| values[i]).collect();
        let mut prefix = Vec::with_capacity(m + 1);
        let mut gain = Vec::with_capacity(m + 1);
        prefix.push(0i64);
        gain.push(0i64);
        for k in 0..m {
            prefix.push(prefix[k].saturating_add(tokens[k]));
            gain.push(gain[k].saturating_add(values[k]));
        }
        Walk {
            tokens,
            values,
            idx: order,
            limit,
            prefix,
            gain,
        }
    }

    fn saturation(&self) -> i64 {
        self.prefix[self.tokens.len()].max(1)
    }

    /// DP states per leftover: the consecutive misses so far.
    fn states(&self) -> usize {
        self.limit.max(1)
    }

    /// The state after the miss that ends a prefix, or `None` when that
    /// miss stops the walk.
    fn after_first_miss(&self) -> Option<usize> {
        match self.limit {
            0 => Some(0),
            1 => None,
            _ => Some(1),
        }
    }

    /// The leftovers (columns) the DP needs for the prefixes that break at
    /// items `0..k_end` within `ceiling`: the largest `min(tokens_k,
    /// ceiling − P_k + 1)`.
    fn columns(&self, k_end: usize, ceiling: i64) -> usize {
        (0..k_end)
            .map(|k| self.tokens[k].min((ceiling - self.prefix[k]).saturating_add(1)))
            .max()
            .map_or(0, |c| usize::try_from(c.max(0)).unwrap_or(usize::MAX))
    }

    /// Prefixes that break within `0..=ceiling`: `k` with `P_k <= ceiling`.
    fn breaks_within(&self, ceiling: i64, up_to: usize) -> usize {
        self.prefix[..up_to].partition_point(|&p| p <= ceiling)
    }

    /// `g` (the outcome from item `j + 1` on, per state and leftover)
    /// becomes the outcome from item `j` on.
    fn step<T: Outcome>(&self, j: usize, g: &mut Vec<T>, tmp: &mut Vec<T>, cols: usize) {
        let (w, v) = (self.tokens[j], self.values[j]);
        let fits = usize::try_from(w).ok().filter(|&w| w < cols);
        if self.limit == 0 {
            // One state: in place, leftovers descending (each reads a
            // smaller one, not yet updated).
            if let Some(w) = fits {
                for r in (w..cols).rev() {
                    g[r] = g[r - w].take(v);
                }
            }
            return;
        }
        let states = self.limit;
        for s in 0..states {
            let row = &mut tmp[s * cols..(s + 1) * cols];
            for (r, cell) in row.iter_mut().enumerate() {
                *cell = match fits {
                    Some(w) if r >= w => g[r - w].take(v),
                    _ if s + 1 == states => T::default(),
                    _ => g[(s + 1) * cols + r],
                };
            }
        }
        std::mem::swap(g, tmp);
    }

    /// The value curve over `0..=max_budget`.
    fn curve(
        &self,
        max_budget: i64,
        max_cells: u64,
        max_bytes: u64,
    ) -> Result<Vec<i64>, CtxpackError> {
        let len = curve_len(max_budget, max_bytes)?;
        let m = self.tokens.len();
        let k_end = self.breaks_within(max_budget, m);
        let cols = self.columns(k_end, max_budget);
        let after = self.after_first_miss();
        let states = if after.is_some() { self.states() } else { 0 };
        let rows = m.saturating_sub(1);
        let dp_bytes = (states * cols) as u128 * 8 * if self.limit > 0 { 2 } else { 1 };
        guard(
            rows,
            (states * cols) as u128,
            dp_bytes + len as u128 * 8,
            max_cells,
            max_bytes,
        )?;
        let mut out = vec![0i64; len];
        let mut g = vec![0i64; states * cols];
        let mut tmp = if self.limit > 0 {
            g.clone()
        } else {
            Vec::new()
        };
        // g is the outcome from item j on; segment k = j − 1 reads it.
        for j in (1..=m).rev() {
            let k = j - 1;
            if k < k_end && self.tokens[k] > 0 {
                let width = self.tokens[k].min((max_budget - self.prefix[k]).saturating_add(1));
                for r in 0..usize::try_from(width).unwrap_or(0) {
                    let t = self.prefix[k] + wide(r);
                    if t > 0 {
                        let rest = after.map_or(0, |s| g[s * cols + r]);
                        out[usize::try_from(t).unwrap_or(0)] = self.gain[k].saturating_add(rest);
                    }
                }
            }
            if j >= 2 && after.is_some() && cols > 0 && k_end > 0 {
                self.step(j - 1, &mut g, &mut tmp, cols);
            }
        }
        // From the sum of all tokens on, everything is taken.
        if self.prefix[m] <= max_budget {
            for t in self.prefix[m].max(1)..=max_budget {
                out[usize::try_from(t).unwrap_or(0)] = self.gain[m];
            }
        }
        Ok(out)
    }

    /// Where the walk takes the item of input index `index`.
    fn membership(
        &self,
        index: usize,
        ceiling: i64,
        max_cells: u64,
        max_bytes: u64,
    ) -> Result<MinBudget, CtxpackError> {
        let saturation = self.saturation();
        let never = MinBudget {
            first: None,
            stable_from: None,
            ceiling,
            saturation,
        };
        let Some(p) = self.idx.iter().position(|&i| i == index) else {
            return Ok(never); // negative tokens: never walked
        };
        let k_end = self.breaks_within(ceiling, p);
        let cols = self.columns(k_end, ceiling);
        let after = self.after_first_miss();
        let states = self.states();
        let dp_bytes = (states * cols) as u128 * if self.limit > 0 { 2 } else { 1 };
        guard(p, (states * cols) as u128, dp_bytes, max_cells, max_bytes)?;
        let mut first: Option<i64> = None;
        let mut last_out: i64 = 0; // budget 0 selects nothing
        let mut at_ceiling = false;
        let mut see = |t: i64, sel: bool| {
            if t <= 0 || t > ceiling {
                return;
            }
            if sel {
                first = Some(first.map_or(t, |f| f.min(t)));
            } else {
                last_out = last_out.max(t);
            }
            if t == ceiling {
                at_ceiling = sel;
            }
        };
        // From item p on: taken iff it fits the leftover.
        let w_p = self.tokens[p];
        let mut g: Vec<bool> = (0..states * cols)
            .map(|c| i64::try_from(c % cols.max(1)).unwrap_or(i64::MAX) >= w_p)
            .collect();
        let mut tmp = if self.limit > 0 {
            g.clone()
        } else {
            Vec::new()
        };
        for j in (1..=p).rev() {
            let k = j - 1;
            if k < k_end && self.tokens[k] > 0 {
                let width = self.tokens[k].min((ceiling - self.prefix[k]).saturating_add(1));
                for r in 0..usize::try_from(width).unwrap_or(0) {
                    let sel = after.is_some_and(|s| g[s * cols + r]);
                    see(self.prefix[k] + wide(r), sel);
                }
            }
            if j >= 2 && after.is_some() && cols > 0 && k_end > 0 {
                self.step(j - 1, &mut g, &mut tmp, cols);
            }
        }
        // Budgets [P_p, P_{p+1}): item p is the miss.
        let (lo, hi) = (self.prefix[p], self.prefix[p + 1]);
        if hi > lo && lo <= ceiling {
            see((hi - 1).min(ceiling), false);
        }
        // From P_{p+1} on, items 0..=p all fit.
        if hi <= ceiling {
            see(hi.max(1), true);
            see(ceiling, true);
        }
        Ok(MinBudget {
            first,
            stable_from: at_ceiling.then_some(last_out + 1),
            ceiling,
            saturation,
        })
    }
}

/// A position as a token count (positions stay far below 2^63).
fn wide(x: usize) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

// ---------------------------------------------------------------------------
// The knapsack: its keep table up to the ceiling, traced from every
// capacity at once.

fn knapsack_membership(
    items: &[Item<'_>],
    k: KnapsackSlice,
    index: usize,
    max_budget: Option<i64>,
    max_cells: u64,
) -> Result<MinBudget, CtxpackError> {
    let b = k.bucket_size();
    let weight = |t: i64| (t - 1) / b + 1;
    let rows_all: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].tokens > 0 && scaled_value(items[i].score) > 0)
        .collect();
    let saturation = rows_all
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(weight(items[i].tokens)))
        .saturating_mul(b)
        .max(1);
    let ceiling = max_budget.unwrap_or(saturation);
    let it = items[index];
    let mut answer = MinBudget::unanswered(ceiling, saturation);
    if it.tokens == 0 {
        return Ok(answer.zero_tokens());
    }
    let capacity = ceiling / b;
    if it.tokens < 0 || scaled_value(it.score) == 0 || weight(it.tokens) > capacity {
        return Ok(answer);
    }
    let rows: Vec<(usize, usize, i64)> = rows_all
        .iter()
        .filter(|&&i| weight(items[i].tokens) <= capacity)
        .map(|&i| {
            let w = usize::try_from(weight(items[i].tokens)).unwrap_or(usize::MAX);
            (i, w, scaled_value(items[i].score))
        })
        .collect();
    let own = rows.iter().position(|r| r.0 == index).unwrap_or(0);
    let columns = u128::try_from(capacity).unwrap_or(0) + 1;
    let kept_rows = rows.len() - own;
    let bytes = keep_bytes(kept_rows as u128, columns) + columns * 16;
    guard(rows.len(), columns, bytes, max_cells, k.max_table_bytes())?;
    let Ok(cols) = usize::try_from(columns) else {
        return Err(too_large(
            rows.len(),
            columns,
            0,
            bytes,
            k.max_table_bytes(),
            TableLimit::Bytes,
        ));
    };
    // The spec's DP: keep[r][c] = dp[c − w] + v > dp[c], descending c.
    let mut dp = vec![0i64; cols];
    let mut keep = KeepTable::new(kept_rows, cols);
    for (r, &(_, w, v)) in rows.iter().enumerate() {
        let kept = r.checked_sub(own).map(|k| keep.row_mut(k));
        keep_row_i64(&mut dp, w, v, kept);
    }
    let kept = |r: usize, c: usize| keep.get(r - own, c);
    // Reconstruction from every capacity: the rows after `own`, last first.
    let mut cur: Vec<usize> = (0..cols).collect();
    for r in (own + 1..rows.len()).rev() {
        let w = rows[r].1;
        for c in &mut cur {
            if kept(r, *c) {
                *c -= w;
            }
        }
    }
    let mut last_out: i64 = 0;
    let mut at_ceiling = false;
    for (c, &rest) in cur.iter().enumerate() {
        let sel = kept(own, rest);
        let lo = (wide(c) * b).max(1);
        let hi = (wide(c) * b).saturating_add(b - 1).min(ceiling);
        if lo > hi {
            continue;
        }
        if sel {
            answer.first = Some(answer.first.map_or(lo, |f| f.min(lo)));
        } else {
            last_out = last_out.max(hi);
        }
        if hi == ceiling {
            at_ceiling = sel;
        }
    }
    answer.stable_from = at_ceiling.then_some(last_out + 1);
    Ok(answer)
}

// ---------------------------------------------------------------------------
// The exact slice: a DP without the item, and reruns where optima tie.

fn exact_membership(
    items: &[Item<'_>],
    e: ExactKnapsackSlice,
    index: usize,
    max_budget: Option<i64>,
    max_cells: u64,
    max_bytes: u64,
) -> Result<MinBudget, CtxpackError> {
    let saturation = items
        .iter()
        .filter(|it| it.tokens > 0 && scaled_value(it.score) > 0)
        .fold(0i64, |a, it| a.saturating_add(it.tokens))
        .max(1);
    let ceiling = max_budget.unwrap_or(saturation);
    let it = items[index];
    let mut answer = MinBudget::unanswered(ceiling, saturation);
    if it.tokens == 0 {
        return Ok(answer.zero_tokens());
    }
    let own = scaled_value(it.score);
    if it.tokens < 0 || own == 0 || it.tokens > ceiling {
        return Ok(answer);
    }
    let rows: Vec<(usize, i64)> = items
        .iter()
        .enumerate()
        .filter(|&(i, x)| i != index && x.tokens > 0 && x.tokens <= ceiling)
        .filter_map(|(_, x)| {
            let v = scaled_value(x.score);
            (v > 0).then(|| (usize::try_from(x.tokens).unwrap_or(usize::MAX), v))
        })
        .collect();
    let columns = u128::try_from(ceiling).unwrap_or(0) + 1;
    guard(rows.len(), columns, columns * 8, max_cells, max_bytes)?;
    let cols = usize::try_from(columns).map_err(|_| {
        too_large(
            rows.len(),
            columns,
            0,
            columns * 8,
            max_bytes,
            TableLimit::Bytes,
        )
    })?;
    let mut dp = vec![0i64; cols];
    for &(w, v) in &rows {
        max_row_i64(&mut dp, w, v);
    }
    let w_own = usize::try_from(it.tokens).unwrap_or(usize::MAX);
    // Reruns where optimal selections tie on the item, charged n cells each.
    let mut budget_left = u128::from(max_cells).saturating_sub(rows.len() as u128 * columns);
    let n = items.len().max(1) as u128;
    let mut selected = |t: usize| -> Result<bool, CtxpackError> {
        if t < w_own {
            return Ok(false);
        }
        let with = dp[t - w_own].saturating_add(own);
        if with != dp[t] {
            return Ok(with > dp[t]);
        }
        if budget_left < n {
            return Err(too_large(
                rows.len(),
                columns,
                u128::from(max_cells) + 1,
                0,
                max_cells,
                TableLimit::Cells,
            ));
        }
        budget_left -= n;
        let target = i64::try_from(t).unwrap_or(i64::MAX);
        let s = e.slice(items, &Budget::new(target))?;
        Ok(s.decisions[index].is_included())
    };
    // First: ascending.
    for t in w_own.max(1)..cols {
        if selected(t)? {
            answer.first = i64::try_from(t).ok();
            break;
        }
    }
    if answer.first.is_none() {
        return Ok(answer);
    }
    // Stable: descending from the ceiling.
    let mut t = cols - 1;
    if !selected(t)? {
        return Ok(answer);
    }
    while t > 1 && selected(t - 1)? {
        t -= 1;
    }
    answer.stable_from = i64::try_from(t).ok();
    Ok(answer)
}
