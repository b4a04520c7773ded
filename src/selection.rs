//! The slicers' answer: what was selected, and why each item was or was not.

/// Why an item is in the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InclusionReason {
    /// Chosen by the slicer's own rule (density order, knapsack optimum,
    /// packer walk).
    Scored,
    /// A zero-token item: always included (greedy and knapsack specs).
    ZeroTokens,
    /// Committed in phase 1 of the count-constrained knapsack to meet a
    /// kind's `require_count`.
    Required,
}

/// Why an item is not in the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExclusionReason {
    /// `budget.target_tokens <= 0`: the specs select nothing at all.
    NoBudget,
    /// The item did not fit in what was left of the budget when the slicer
    /// reached it (greedy, packer), or its discretised weight exceeds the
    /// knapsack capacity, or required items used the whole budget.
    BudgetExceeded,
    /// The item fits on its own, but the knapsack optimum is a combination
    /// that leaves it out.
    NotInOptimalSet,
    /// Selected by the knapsack phase, then dropped because its kind had
    /// reached its `cap_count`.
    CountCapExceeded,
    /// The item has a negative token count.
    NegativeTokens,
    /// The packer stopped after `max_consecutive_skips` consecutive misses
    /// before it reached this item.
    SkipLimitReached,
    /// Grouped slicing ([`Groups`](crate::Groups)): the item fits the budget
    /// on its own, but the group it must go in with was left out; the
    /// group's own reason is in
    /// [`GroupedSelection::group_reasons`](crate::GroupedSelection::group_reasons).
    GroupExcluded,
    /// Grouped slicing with [`DependencyMode::Require`](crate::DependencyMode::Require):
    /// an item it depends on is not selected.
    DependencyExcluded,
}

/// The verdict on one input item.
///
/// ```
/// use ctxpack_core::{Decision, InclusionReason};
/// let d = Decision::Included(InclusionReason::Scored);
/// assert!(d.is_included());
/// assert_eq!(d.code(), "scored");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The item is in the selection.
    Included(InclusionReason),
    /// The item is not in the selection.
    Excluded(ExclusionReason),
}

impl Decision {
    /// Every decision, in the order of their numeric [`id`](Decision::id)s.
    pub const ALL: [Decision; 11] = [
        Decision::Included(InclusionReason::Scored),
        Decision::Included(InclusionReason::ZeroTokens),
        Decision::Included(InclusionReason::Required),
        Decision::Excluded(ExclusionReason::NoBudget),
        Decision::Excluded(ExclusionReason::BudgetExceeded),
        Decision::Excluded(ExclusionReason::NotInOptimalSet),
        Decision::Excluded(ExclusionReason::CountCapExceeded),
        Decision::Excluded(ExclusionReason::NegativeTokens),
        Decision::Excluded(ExclusionReason::SkipLimitReached),
        Decision::Excluded(ExclusionReason::GroupExcluded),
        Decision::Excluded(ExclusionReason::DependencyExcluded),
    ];

    /// Whether the item is in the selection.
    pub const fn is_included(self) -> bool {
        matches!(self, Decision::Included(_))
    }

    /// The stable snake-case code of the reason, as the npm package reports
    /// it (`"scored"`, `"budget_exceeded"`, …).
    ///
    /// ```
    /// use ctxpack_core::Decision;
    /// let codes: Vec<_> = Decision::ALL.iter().map(|d| d.code()).collect();
    /// assert_eq!(codes, ["scored", "zero_tokens", "required", "no_budget", "budget_exceeded",
    ///     "not_in_optimal_set", "count_cap_exceeded", "negative_tokens", "skip_limit_reached",
    ///     "group_excluded", "dependency_excluded"]);
    /// ```
    pub const fn code(self) -> &'static str {
        match self {
            Decision::Included(InclusionReason::Scored) => "scored",
            Decision::Included(InclusionReason::ZeroTokens) => "zero_tokens",
            Decision::Included(InclusionReason::Required) => "required",
            Decision::Excluded(ExclusionReason::NoBudget) => "no_budget",
            Decision::Excluded(ExclusionReason::BudgetExceeded) => "budget_exceeded",
            Decision::Excluded(ExclusionReason::NotInOptimalSet) => "not_in_optimal_set",
            Decision::Excluded(ExclusionReason::CountCapExceeded) => "count_cap_exceeded",
            Decision::Excluded(ExclusionReason::NegativeTokens) => "negative_tokens",
            Decision::Excluded(ExclusionReason::SkipLimitReached) => "skip_limit_reached",
            Decision::Excluded(ExclusionReason::GroupExcluded) => "group_excluded",
            Decision::Excluded(ExclusionReason::DependencyExcluded) => "dependency_excluded",
        }
    }

    /// A small stable number for the reason (its position in
    /// [`Decision::ALL`]), used on the columnar wasm path.
    ///
    /// ```
    /// use ctxpack_core::Decision;
    /// for (i, d) in Decision::ALL.iter().enumerate() {
    ///     assert_eq!(usize::from(d.id()), i);
    /// }
    /// ```
    pub fn id(self) -> u8 {
        match self {
            Decision::Included(InclusionReason::Scored) => 0,
            Decision::Included(InclusionReason::ZeroTokens) => 1,
            Decision::Included(InclusionReason::Required) => 2,
            Decision::Excluded(ExclusionReason::NoBudget) => 3,
            Decision::Excluded(ExclusionReason::BudgetExceeded) => 4,
            Decision::Excluded(ExclusionReason::NotInOptimalSet) => 5,
            Decision::Excluded(ExclusionReason::CountCapExceeded) => 6,
            Decision::Excluded(ExclusionReason::NegativeTokens) => 7,
            Decision::Excluded(ExclusionReason::SkipLimitReached) => 8,
            Decision::Excluded(ExclusionReason::GroupExcluded) => 9,
            Decision::Excluded(ExclusionReason::DependencyExcluded) => 10,
        }
    }
}

/// A kind whose `require_count` could not be met
/// (`ScarcityBehavior::Degrade`): the spec's `CountRequirementShortfall`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortfall {
    /// The kind, as written in its count entry.
    pub kind: String,
    /// The configured `require_count`.
    pub required_count: usize,
    /// How many items were committed.
    pub satisfied_count: usize,
}

/// The result of one slice: the selection in the spec's output order and a
/// decision for every input item.
///
/// ```
/// use ctxpack_core::{Budget, Decision, ExclusionReason, GreedySlice, Item, Slicer};
/// let items = [Item::new(60, 0.9), Item::new(60, 0.8), Item::new(0, 0.1)];
/// let s = GreedySlice.slice(&items, &Budget::new(100)).unwrap();
/// assert_eq!(s.selected, [2, 0]); // zero-token first, then by density
/// assert_eq!(s.decisions[1], Decision::Excluded(ExclusionReason::BudgetExceeded));
/// assert_eq!((s.total_tokens, s.excluded_count()), (60, 1));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Indexes of the selected items, in the slicer's output order.
    pub selected: Vec<usize>,
    /// One decision per input item, indexed like the input.
    pub decisions: Vec<Decision>,
    /// Sum of the selected items' tokens, saturating at `i64::MAX` (only the
    /// count-constrained slicers, which commit required items whatever
    /// their size, can select more).
    pub total_tokens: i64,
    /// Sum of the selected items' scores, added in output order.
    pub total_score: f64,
    /// Kinds whose `require_count` was not met (count-constrained only).
    pub shortfalls: Vec<Shortfall>,
    /// Whether the selection exceeds `budget.target_tokens`. Only the
    /// count-constrained knapsack can do that: its phase 1 commits required
    /// items whatever their size, as the spec says.
    pub over_budget: bool,
    /// By how many tokens the selection exceeds the target (0 when within).
    pub overrun_tokens: i64,
    /// Whether any item was left out because it did not fit (the packer's
    /// `was_budget_reached`; reported by every slicer).
    pub budget_reached: bool,
    /// What an exact slice ([`ExactKnapsackSlice`](crate::ExactKnapsackSlice),
    /// [`ExactCountConstrainedSlice`](crate::ExactCountConstrainedSlice))
    /// reports: how it solved, the value, the heuristic's value. `None` for
    /// the seed slicers.
    pub exact: Option<crate::ExactReport>,
}

impl Selection {
    /// Builds the totals from the selection and the decisions.
    pub(crate) fn finish(
        items: &[crate::Item<'_>],
        budget: &crate::Budget,
        selected: Vec<usize>,
        decisions: Vec<Decision>,
        shortfalls: Vec<Shortfall>,
    ) -> Selection {
        // Saturating: the count-constrained slicers commit required items
        // whatever their size, whose tokens may sum past i64::MAX.
        let total_tokens = selected
            .iter()
            .fold(0i64, |sum, &i| sum.saturating_add(items[i].tokens));
        let total_score = selected.iter().map(|&i| items[i].score).sum::<f64>();
        let overrun_tokens = if budget.target_tokens() > 0 {
            total_tokens.saturating_sub(budget.target_tokens()).max(0)
        } else {
            0
        };
        let budget_reached = decisions.iter().any(|d| {
            matches!(
                d,
                Decision::Excluded(
                    ExclusionReason::BudgetExceeded
                        | ExclusionReason::NotInOptimalSet
                        | ExclusionReason::SkipLimitReached
                        | ExclusionReason::GroupExcluded
                )
            )
        });
        Selection {
            selected,
            decisions,
            total_tokens,
            total_score,
            shortfalls,
            over_budget: overrun_tokens > 0,
            overrun_tokens,
            budget_reached,
            exact: None,
        }
    }

    /// A selection of nothing, every item excluded for `reason` (negative
    /// token items keep their own reason).
    pub(crate) fn none(items: &[crate::Item<'_>], reason: ExclusionReason) -> Selection {
        let decisions = items
            .iter()
            .map(|it| {
                Decision::Excluded(if it.tokens < 0 {
                    ExclusionReason::NegativeTokens
                } else {
                    reason
                })
            })
            .collect();
        Selection::finish(
            items,
            &crate::Budget::new(0),
            Vec::new(),
            decisions,
            Vec::new(),
        )
    }

    /// How many items were left out (the packer's `skipped_count`).
    pub fn excluded_count(&self) -> usize {
        self.decisions.len() - self.selected.len()
    }
}
