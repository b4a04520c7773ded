//! Budget simulation: what a strategy does at every budget, computed once
//! instead of once per budget.
//!
//! See [`BudgetSimulation`] for the three questions it answers and how.

use super::per_budget::{exact_membership, knapsack_membership, Walk};
use crate::dp::guard::too_large;
use crate::exact::value_of;
use crate::knapsack::scaled_value;
use crate::TableLimit;
use crate::{
    check_scores, Budget, CtxpackError, ErrorReason, ExactKnapsackSlice, GreedyPacker, GreedySlice,
    Item, KnapsackSlice, Slicer, DEFAULT_MAX_TABLE_BYTES,
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
/// use ctxpack_core::{GreedySlice, Slicer, Strategy};
/// let s = Strategy::Greedy;
/// assert_eq!(s.slicer().slice(&[], &ctxpack_core::Budget::new(10))?.selected, Vec::<usize>::new());
/// # Ok::<(), ctxpack_core::CtxpackError>(())
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
    pub(super) const fn unanswered(ceiling: i64, saturation: i64) -> Self {
        MinBudget {
            first: None,
            stable_from: None,
            ceiling,
            saturation,
        }
    }

    /// A zero-token item is in at every positive budget (and out at 0, the
    /// specs' edge case), for every strategy.
    pub(super) const fn zero_tokens(mut self) -> Self {
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
/// use ctxpack_core::{BudgetSimulation, Budget, Item, Strategy};
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
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BudgetSimulation {
    strategy: Strategy,
    cells: u64,
    bytes: u64,
}

impl BudgetSimulation {
    /// A simulation of `strategy` with the default guards.
    ///
    /// ```
    /// use ctxpack_core::{BudgetSimulation, Item, Strategy};
    /// let items = [Item::new(30, 0.9), Item::new(50, 0.5)];
    /// let curve = BudgetSimulation::new(Strategy::Greedy).curve(&items, 80)?;
    /// // The value (score × 10000) the greedy slice reaches at each budget 0..=80.
    /// assert_eq!((curve[29], curve[30], curve[79], curve[80]), (0, 9_000, 9_000, 14_000));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
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
    /// use ctxpack_core::{BudgetSimulation, GreedyPacker, Item, Strategy};
    /// // The packer's curve can fall: at 100 the first item fills the budget.
    /// let items = [Item::new(100, 0.1), Item::new(50, 0.5), Item::new(49, 0.5)];
    /// let curve = BudgetSimulation::new(Strategy::Packer(GreedyPacker::new(3))).curve(&items, 100)?;
    /// assert_eq!((curve[99], curve[100]), (10_000, 1_000));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
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
    /// use ctxpack_core::{BudgetSimulation, Item, KnapsackSlice, Strategy};
    /// let items = [Item::new(60, 0.6), Item::new(40, 0.45), Item::new(50, 0.5)];
    /// let sim = BudgetSimulation::new(Strategy::Knapsack(KnapsackSlice::new(10)?));
    /// let m = sim.min_budget_for(&items, 1, None)?;
    /// // In alone at 40..49, with item 2 or item 0 at 90..109, out otherwise, in from 150 on.
    /// assert_eq!((m.first, m.stable_from, m.saturation), (Some(40), Some(150), 150));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
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
                reason: ErrorReason::IndexOutOfRange {
                    what: "index",
                    at: index,
                    len: items.len(),
                },
            });
        }
        if let Some(m) = max_budget.filter(|&m| m < 0) {
            return Err(CtxpackError::InvalidOption {
                option: "maxBudget".into(),
                reason: ErrorReason::Expected {
                    expected: "a non-negative integer".into(),
                    got: Some(m.to_string()),
                },
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
                reason: ErrorReason::Expected {
                    expected: "a non-negative integer".into(),
                    got: Some(slack.to_string()),
                },
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
pub(super) fn guard(
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
pub(super) fn curve_len(max_budget: i64, max_bytes: u64) -> Result<usize, CtxpackError> {
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
