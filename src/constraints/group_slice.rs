//! Slicing under groups and dependencies: the strategies, the rounds (the
//! knapsack strategies), then the answer expanded back to the items. The
//! walk of greedy and the packer: `unit_walk.rs`.

use crate::exact::value_of;
use crate::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError, Decision, DependencyMode,
    ErrorReason, ExactCountConstrainedSlice, ExactKnapsackSlice, ExactReport, ExclusionReason,
    GreedyPacker, GreedySlice, Groups, InclusionReason, Item, KnapsackSlice, Selection, Shortfall,
    Slicer, Strategy, UnitScore, Units,
};

/// A strategy that slices under [`Groups`]: every slicer of the crate,
/// with its configuration.
///
/// ```
/// use ctxpack_core::{GreedyPacker, GroupedStrategy, Strategy, UnitScore};
/// let s = GroupedStrategy::from(Strategy::Packer(GreedyPacker::new(2)));
/// assert_eq!(s, GroupedStrategy::Packer(GreedyPacker::new(2)));
/// assert_eq!(s.unit_score(), UnitScore::Sum);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum GroupedStrategy {
    /// [`GreedySlice`].
    Greedy,
    /// [`GreedyPacker`], with its skip limit.
    Packer(GreedyPacker),
    /// [`KnapsackSlice`], with its bucket size and table limit.
    Knapsack(KnapsackSlice),
    /// [`ExactKnapsackSlice`], with its guards.
    Exact(ExactKnapsackSlice),
    /// [`CountConstrainedKnapsackSlice`]: refuses a unit of several items
    /// holding a kind with a count entry, and dependencies under
    /// [`DependencyMode::Require`].
    CountKnapsack(CountConstrainedKnapsackSlice),
    /// [`ExactCountConstrainedSlice`]: refuses what
    /// [`CountKnapsack`](Self::CountKnapsack) refuses.
    ExactCount(ExactCountConstrainedSlice),
}

impl From<Strategy> for GroupedStrategy {
    fn from(s: Strategy) -> Self {
        match s {
            Strategy::Greedy => GroupedStrategy::Greedy,
            Strategy::Knapsack(k) => GroupedStrategy::Knapsack(k),
            Strategy::Exact(e) => GroupedStrategy::Exact(e),
            Strategy::Packer(p) => GroupedStrategy::Packer(p),
        }
    }
}

impl GroupedStrategy {
    /// The slicer itself.
    pub fn slicer(&self) -> &dyn Slicer {
        match self {
            GroupedStrategy::Greedy => &GreedySlice,
            GroupedStrategy::Packer(p) => p,
            GroupedStrategy::Knapsack(k) => k,
            GroupedStrategy::Exact(e) => e,
            GroupedStrategy::CountKnapsack(c) => c,
            GroupedStrategy::ExactCount(c) => c,
        }
    }

    /// The score the strategy's units get: the sum for the walks, the
    /// exact value for the knapsack strategies.
    pub const fn unit_score(&self) -> UnitScore {
        if self.is_walk() {
            UnitScore::Sum
        } else {
            UnitScore::Value
        }
    }

    pub(crate) const fn is_walk(&self) -> bool {
        matches!(self, GroupedStrategy::Greedy | GroupedStrategy::Packer(_))
    }

    fn count_entries(&self) -> Option<&[CountQuotaEntry]> {
        match self {
            GroupedStrategy::CountKnapsack(c) => Some(c.entries()),
            GroupedStrategy::ExactCount(c) => Some(c.entries()),
            _ => None,
        }
    }
}

/// The answer of a grouped slice: a [`Selection`] over the items, the
/// groups' own reasons, and whether the rounds had to repair.
///
/// * `selection.selected` holds item indexes: the units in the strategy's
///   output order, each unit's members in input order. Totals, `exact`
///   (its `value` over the items) and `budget_reached` are over the items.
/// * A member of a selected unit gets the unit's reason. A unit left out
///   because a dependency is not selected gets
///   [`ExclusionReason::DependencyExcluded`] (all its members), unless the
///   packer stopped before it ([`ExclusionReason::SkipLimitReached`]). A member
///   of a unit of several items the strategy left out gets
///   [`ExclusionReason::NoBudget`] at a target of 0 or less,
///   [`ExclusionReason::BudgetExceeded`] when it could not fit the budget
///   even alone, and otherwise [`ExclusionReason::GroupExcluded`], with
///   the unit's own reason in `group_reasons`. A negative-token item is
///   always [`ExclusionReason::NegativeTokens`] (and its unit is left out).
///
/// ```
/// use ctxpack_core::{Budget, ExclusionReason, Groups, GroupedStrategy, Item, KnapsackSlice};
/// let items = [Item::new(60, 0.5), Item::new(30, 0.4), Item::new(50, 0.6)];
/// let knapsack = GroupedStrategy::Knapsack(KnapsackSlice::new(1)?);
/// let s = Groups::new(3).group([0, 1])?.slice(&knapsack, &items, &Budget::new(80))?;
/// assert_eq!(s.selection.selected, [2]); // the group needs 90 tokens
/// assert_eq!(s.selection.decisions[1].code(), "group_excluded");
/// assert_eq!(s.group_reasons[1], Some(ExclusionReason::BudgetExceeded));
/// assert_eq!((s.selection.total_tokens, s.repaired), (50, None));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedSelection {
    /// The selection over the items.
    pub selection: Selection,
    /// Per item: for [`ExclusionReason::GroupExcluded`], the unit's own
    /// reason; `None` otherwise.
    pub group_reasons: Vec<Option<ExclusionReason>>,
    /// The knapsack strategies (count-constrained included) under
    /// [`DependencyMode::Require`]: whether the first selection had to
    /// drop units (`false`: it is optimal under the dependencies too).
    /// `None` for the walks and under [`DependencyMode::Ignore`].
    pub repaired: Option<bool>,
}

impl Groups {
    /// Slices `items` under these constraints with `strategy`
    /// ([`Units::slice`] on [`units`](Self::units)).
    ///
    /// # Errors
    /// As [`Units::slice`].
    ///
    /// ```
    /// use ctxpack_core::{Budget, Groups, GroupedStrategy, Item};
    /// let items = [Item::new(40, 0.9), Item::new(40, 0.1), Item::new(30, 0.3)];
    /// let s = Groups::new(3).group([0, 1])?.slice(&GroupedStrategy::Greedy, &items, &Budget::new(100))?;
    /// assert_eq!(s.selection.selected, [0, 1]); // the pair (density 0.0125) goes before item 2 (0.01)
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn slice(
        &self,
        strategy: &GroupedStrategy,
        items: &[Item<'_>],
        budget: &Budget,
    ) -> Result<GroupedSelection, CtxpackError> {
        self.units().slice(strategy, items, budget)
    }
}

/// What a slice of the units decided.
pub(super) struct UnitOutcome {
    /// Selected units in output order.
    pub(super) order: Vec<usize>,
    pub(super) in_sel: Vec<bool>,
    /// The strategy's last reason for each unit.
    pub(super) unit_reason: Vec<Decision>,
}

impl Units {
    /// Slices `items` with `strategy`, each unit as one item
    /// ([`Units::items`] with the strategy's [`UnitScore`]), and expands
    /// the answer to the items (see [`GroupedSelection`]).
    ///
    /// Under [`DependencyMode::Require`], when some unit depends on
    /// another: greedy and the packer walk the units, taking each with the
    /// dependencies it still lacks when all of them fit; the knapsack
    /// strategies select, *repair* (drop what lacks a dependency) and
    /// *extend* (select again among the units whose dependencies are in)
    /// until nothing changes, `repaired: Some(false)` meaning the first
    /// selection stood and is optimal under the dependencies too; the
    /// count-constrained strategies refuse them. The rules in full, with
    /// the decisions and refusals: `docs/groups.md`.
    ///
    /// Every result honours every dependency and fits the budget (but for
    /// the count-constrained knapsack's documented overrun).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] when `items` is not as long as the
    /// groups; [`CtxpackError::InvalidScore`]; [`CtxpackError::InvalidField`]
    /// (field `group`) when a unit's tokens sum past `i64::MAX`;
    /// [`CtxpackError::InvalidOption`] from the count-constrained
    /// strategies: field `dependencies` under [`DependencyMode::Require`]
    /// with dependencies, field `group` for a unit of several items holding
    /// a kind with a count entry (ASCII case-insensitive); the slicer's own
    /// errors.
    ///
    /// ```
    /// use ctxpack_core::{Budget, DependencyMode, ExactKnapsackSlice, Groups, GroupedStrategy, Item};
    /// // a and b need each other; c is alone.
    /// let items = [Item::new(50, 0.9), Item::new(50, 0.1), Item::new(60, 0.5)];
    /// let units = Groups::new(3).depends_on(0, [1])?.depends_on(1, [0])?
    ///     .with_mode(DependencyMode::Require).units();
    /// let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
    /// let s = units.slice(&exact, &items, &Budget::new(100))?;
    /// assert_eq!((s.selection.selected.as_slice(), s.repaired), (&[0, 1][..], Some(false)));
    /// let tight = units.slice(&exact, &items, &Budget::new(90))?;
    /// assert_eq!(tight.selection.selected, [2]);
    /// assert_eq!(tight.selection.decisions[0].code(), "group_excluded");
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn slice(
        &self,
        strategy: &GroupedStrategy,
        items: &[Item<'_>],
        budget: &Budget,
    ) -> Result<GroupedSelection, CtxpackError> {
        self.slice_within(strategy, items, budget, i64::MAX)
    }

    /// What `strategy` refuses of these units before anything is counted
    /// or sliced: required dependencies for the count-constrained
    /// strategies, then per unit a token sum past `limit` and a counted
    /// kind in a unit of several items. Returns the units' tokens.
    pub(crate) fn admit(
        &self,
        strategy: &GroupedStrategy,
        items: &[Item<'_>],
        limit: i64,
    ) -> Result<Vec<i64>, CtxpackError> {
        let entries = strategy.count_entries();
        if self.requires() && entries.is_some() {
            return Err(CtxpackError::InvalidOption {
                option: "dependencies".into(),
                reason: ErrorReason::NotSupported {
                    what: "'require'",
                    plural: false,
                    by: "the count-constrained strategies",
                },
            });
        }
        self.unit_tokens(items, limit, entries)
    }

    /// Whether dependencies constrain the slice: required, and some unit
    /// depends on another.
    fn requires(&self) -> bool {
        self.mode == DependencyMode::Require && self.has_dependencies()
    }

    /// [`slice`](Self::slice), refusing units whose tokens sum past
    /// `limit` (the wasm boundary's token counts are `u32`).
    pub(crate) fn slice_within(
        &self,
        strategy: &GroupedStrategy,
        items: &[Item<'_>],
        budget: &Budget,
        limit: i64,
    ) -> Result<GroupedSelection, CtxpackError> {
        self.check_len(items)?;
        crate::check_scores(items)?;
        let require = self.requires();
        let tokens = self.admit(strategy, items, limit)?;
        let units = self.unit_items(items, strategy.unit_score(), &tokens);
        if require && strategy.is_walk() {
            let limit = match strategy {
                GroupedStrategy::Packer(p) => p.max_consecutive_skips,
                _ => 0,
            };
            let greedy = matches!(strategy, GroupedStrategy::Greedy);
            let outcome = self.walk(&units, greedy, limit, budget.target_tokens());
            return Ok(self.expand(items, budget, &outcome, None, Vec::new(), None));
        }
        let slicer = strategy.slicer();
        let first = slicer.slice(&units, budget)?;
        let mut outcome = UnitOutcome {
            in_sel: vec![false; units.len()],
            order: first.selected,
            unit_reason: first.decisions,
        };
        for &u in &outcome.order {
            outcome.in_sel[u] = true;
        }
        let repaired = if require {
            Some(self.rounds(slicer, &units, budget, &mut outcome)?)
        } else {
            (self.mode == DependencyMode::Require && !strategy.is_walk()).then_some(false)
        };
        Ok(self.expand(
            items,
            budget,
            &outcome,
            first.exact,
            first.shortfalls,
            repaired,
        ))
    }

    /// Whether unit `u` has a dependency outside the selection.
    fn missing(&self, u: usize, in_sel: &[bool]) -> bool {
        self.needs[u].iter().any(|&v| !in_sel[v])
    }

    /// Repair, then extend (see [`slice`](Self::slice)); returns whether
    /// the repair dropped anything.
    fn rounds(
        &self,
        slicer: &dyn Slicer,
        units: &[Item<'_>],
        budget: &Budget,
        out: &mut UnitOutcome,
    ) -> Result<bool, CtxpackError> {
        let c = units.len();
        // Repair: drop selected units with a dependency outside the
        // selection, until none is left.
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); c];
        for (u, ns) in self.needs.iter().enumerate() {
            for &v in ns {
                dependents[v].push(u);
            }
        }
        let mut repaired = false;
        let mut queue: Vec<usize> = out
            .order
            .iter()
            .copied()
            .filter(|&u| self.missing(u, &out.in_sel))
            .collect();
        while let Some(u) = queue.pop() {
            if !out.in_sel[u] || !self.missing(u, &out.in_sel) {
                continue;
            }
            out.in_sel[u] = false;
            repaired = true;
            queue.extend(dependents[u].iter().copied().filter(|&w| out.in_sel[w]));
        }
        let in_sel = &mut out.in_sel;
        out.order.retain(|&u| in_sel[u]);
        // Extend: the units whose dependencies are all in, with the budget
        // left.
        let target = budget.target_tokens();
        let mut used = out
            .order
            .iter()
            .fold(0i64, |acc, &u| acc.saturating_add(units[u].tokens));
        if target <= 0 {
            return Ok(repaired);
        }
        // Readiness is kept incrementally (how many dependencies each unit
        // still lacks), so a long chain costs one step per round, not a
        // scan of every unit.
        let mut lacking: Vec<usize> = self
            .needs
            .iter()
            .map(|ns| ns.iter().filter(|&&v| !out.in_sel[v]).count())
            .collect();
        let mut ready: Vec<usize> = (0..c)
            .filter(|&u| !out.in_sel[u] && lacking[u] == 0)
            .collect();
        while !ready.is_empty() {
            let left = target - used;
            let added: Vec<usize> = if left <= 0 {
                // Nothing to slice, but zero-token units always fit.
                for &u in &ready {
                    out.unit_reason[u] = match units[u].tokens {
                        0 => Decision::Included(InclusionReason::ZeroTokens),
                        t if t < 0 => Decision::Excluded(ExclusionReason::NegativeTokens),
                        _ => Decision::Excluded(ExclusionReason::BudgetExceeded),
                    };
                }
                ready
                    .iter()
                    .copied()
                    .filter(|&u| units[u].tokens == 0)
                    .collect()
            } else {
                let pool: Vec<Item<'_>> = ready.iter().map(|&u| units[u]).collect();
                let ceiling = budget.max_tokens().saturating_sub(used);
                let r = slicer.slice(&pool, &Budget::with_max(left, left.max(ceiling))?)?;
                for (k, d) in r.decisions.iter().enumerate() {
                    out.unit_reason[ready[k]] = *d;
                }
                r.selected.iter().map(|&k| ready[k]).collect()
            };
            if added.is_empty() {
                break;
            }
            let mut fresh = Vec::new();
            for u in added {
                out.in_sel[u] = true;
                out.order.push(u);
                used = used.saturating_add(units[u].tokens);
                for &w in &dependents[u] {
                    lacking[w] -= 1;
                    if lacking[w] == 0 && !out.in_sel[w] {
                        fresh.push(w);
                    }
                }
            }
            // The pool stays in unit order, as the slicers break ties by
            // position.
            let in_sel = &out.in_sel;
            ready.retain(|&u| !in_sel[u]);
            ready.extend(fresh);
            ready.sort_unstable();
        }
        Ok(repaired)
    }

    /// The units' outcome as the items' (see [`GroupedSelection`]).
    fn expand(
        &self,
        items: &[Item<'_>],
        budget: &Budget,
        out: &UnitOutcome,
        exact: Option<ExactReport>,
        shortfalls: Vec<Shortfall>,
        repaired: Option<bool>,
    ) -> GroupedSelection {
        let target = budget.target_tokens();
        let mut decisions = vec![Decision::Excluded(ExclusionReason::NoBudget); items.len()];
        let mut group_reasons = vec![None; items.len()];
        for (u, m) in self.members.iter().enumerate() {
            let selected = out.in_sel[u];
            let mut r = out.unit_reason[u];
            if !selected && r.is_included() {
                // Dropped by the repair; no round took it back.
                r = Decision::Excluded(ExclusionReason::BudgetExceeded);
            }
            // A unit the packer never reached says so, whatever its
            // dependencies.
            if !selected
                && r != Decision::Excluded(ExclusionReason::SkipLimitReached)
                && self.missing(u, &out.in_sel)
            {
                r = Decision::Excluded(ExclusionReason::DependencyExcluded);
            }
            for &i in m {
                decisions[i] = if items[i].tokens < 0 {
                    Decision::Excluded(ExclusionReason::NegativeTokens)
                } else if selected
                    || m.len() == 1
                    || r == Decision::Excluded(ExclusionReason::DependencyExcluded)
                {
                    r
                } else if target <= 0 {
                    Decision::Excluded(ExclusionReason::NoBudget)
                } else if items[i].tokens > target {
                    Decision::Excluded(ExclusionReason::BudgetExceeded)
                } else {
                    if let Decision::Excluded(reason) = r {
                        group_reasons[i] = Some(reason);
                    }
                    Decision::Excluded(ExclusionReason::GroupExcluded)
                };
            }
        }
        let selected: Vec<usize> = out
            .order
            .iter()
            .flat_map(|&u| self.members[u].iter().copied())
            .collect();
        let mut selection = Selection::finish(items, budget, selected, decisions, shortfalls);
        selection.exact = exact.map(|mut e| {
            e.value = value_of(items, &selection.selected);
            e
        });
        GroupedSelection {
            selection,
            group_reasons,
            repaired,
        }
    }
}
