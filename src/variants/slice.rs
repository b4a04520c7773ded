//! The multiple-choice slice: the strategies over the classes, required
//! dependencies in rounds, and the answer expanded to the items.

use super::classes::{classes, Class, Variants};
use super::{mcknap, mckp, walk};
use crate::{
    check_scores, Budget, CtxpackError, Decision, DependencyMode, ErrorReason, ExactReport,
    ExclusionReason, GroupedStrategy, Groups, InclusionReason, Item, Selection, Units,
};

/// The answer of [`Variants::slice`]: the selection over the items (its
/// totals over the versions chosen), the version each item went in with,
/// and, as for groups, the groups' own reasons and whether the rounds of
/// required dependencies had to repair.
///
/// ```
/// use ctxpack_core::{Budget, ExactKnapsackSlice, Groups, GroupedStrategy, Item, Variants};
/// let items = [Item::new(900, 0.9), Item::new(600, 0.8)];
/// let variants = Variants::new(2).add(0, 300, 0.5)?;
/// let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
/// let s = variants.slice(&exact, &items, &Groups::new(2), &Budget::new(1_000))?;
/// // Both fit only with item 0 shortened: 0.5 + 0.8 beats 0.9 alone.
/// assert_eq!((s.version.as_slice(), s.selection.total_tokens), (&[Some(1), Some(0)][..], 900));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct VariantSelection {
    /// The selection over the items; `total_tokens` and `total_score` are
    /// the chosen versions'.
    pub selection: Selection,
    /// Per item, the version selected (0: the item itself), `None` when
    /// the item is left out.
    pub version: Vec<Option<usize>>,
    /// Per item: for [`ExclusionReason::GroupExcluded`], the unit's own
    /// reason; `None` otherwise.
    pub group_reasons: Vec<Option<ExclusionReason>>,
    /// Under [`DependencyMode::Require`] with dependencies: whether the
    /// first selection had to drop units; `None` otherwise.
    pub repaired: Option<bool>,
}

impl Variants {
    /// Selects at most one version of each item under `groups` (a group
    /// goes in whole, each member in some version; a dependency needs the
    /// item in any version) with `strategy`: the walks take each unit's
    /// best option that fits when they reach it, `Knapsack` solves the
    /// bucketed multiple-choice knapsack, `Exact` the exact one. The rules
    /// in full: `docs/variants.md`.
    ///
    /// Without any alternative version this is [`Groups::slice`], every
    /// selected item at version 0.
    ///
    /// ```
    /// use ctxpack_core::{Budget, GroupedStrategy, Groups, Item, Variants};
    /// // A long tool result (item 1) with a summary (version 1) and a stub (version 2).
    /// let items = [Item::new(400, 0.9), Item::new(5_000, 0.8)];
    /// let variants = Variants::new(2).add(1, 800, 0.6)?.add(1, 40, 0.2)?;
    /// let s = variants.slice(&GroupedStrategy::Greedy, &items, &Groups::new(2), &Budget::new(1_500))?;
    /// // The walk takes item 0, then the best version of item 1 that still fits: the summary.
    /// assert_eq!(s.version, [Some(0), Some(1)]);
    /// assert_eq!(s.selection.total_tokens, 1_200);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] when `variants`, `groups` and
    /// `items` differ in length; [`CtxpackError::InvalidScore`];
    /// [`CtxpackError::InvalidOption`] (option `variants`) for a
    /// count-constrained strategy with alternative versions;
    /// [`CtxpackError::InvalidField`] for a group past [`MAX_OPTIONS`](crate::MAX_OPTIONS)
    /// options or past `i64::MAX` tokens; the strategy's own errors.
    pub fn slice(
        &self,
        strategy: &GroupedStrategy,
        items: &[Item<'_>],
        groups: &Groups,
        budget: &Budget,
    ) -> Result<VariantSelection, CtxpackError> {
        self.slice_within(strategy, items, &groups.units(), budget, i64::MAX)
    }

    /// [`slice`](Self::slice) over built units, refusing combinations
    /// whose tokens sum past `limit` (the wasm boundary's counts are
    /// `u32`).
    pub(crate) fn slice_within(
        &self,
        strategy: &GroupedStrategy,
        items: &[Item<'_>],
        units: &Units,
        budget: &Budget,
        limit: i64,
    ) -> Result<VariantSelection, CtxpackError> {
        units.check_len(items)?;
        check_scores(items)?;
        if (0..self.len()).all(|i| self.versions(i).is_empty()) && self.len() == items.len() {
            let g = units.slice_within(strategy, items, budget, limit)?;
            let version = g
                .selection
                .decisions
                .iter()
                .map(|d| d.is_included().then_some(0))
                .collect();
            return Ok(VariantSelection {
                selection: g.selection,
                version,
                group_reasons: g.group_reasons,
                repaired: g.repaired,
            });
        }
        if matches!(
            strategy,
            GroupedStrategy::CountKnapsack(_) | GroupedStrategy::ExactCount(_)
        ) {
            return Err(CtxpackError::InvalidOption {
                option: "variants".into(),
                reason: ErrorReason::NotSupported {
                    what: "(alternative versions of items)",
                    plural: true,
                    by: "the count-constrained strategies, which count items, not versions",
                },
            });
        }
        let classes = classes(units, items, self, limit)?;
        let target = budget.target_tokens();
        let mut reasons = vec![ExclusionReason::NoBudget; classes.len()];
        let mut chosen: Vec<(usize, usize)> = Vec::new();
        let mut exact = None;
        let mut repaired = None;
        if target > 0 {
            let all: Vec<usize> = (0..classes.len()).collect();
            let (first, report) = solve(strategy, &classes, &all, target, &mut reasons)?;
            chosen = first;
            exact = report;
            if units.mode() == DependencyMode::Require && units.has_dependencies() {
                repaired = Some(rounds(
                    strategy,
                    &classes,
                    units,
                    target,
                    &mut chosen,
                    &mut reasons,
                )?);
            }
        } else {
            if matches!(strategy, GroupedStrategy::Exact(_)) {
                exact = Some(ExactReport::new(crate::Solver::Exact, 0));
            }
            for (c, class) in classes.iter().enumerate() {
                if class.negative {
                    reasons[c] = ExclusionReason::NegativeTokens;
                }
            }
        }
        if let Some(report) = exact.as_mut() {
            report.value = mcknap::value(&classes, &chosen);
        }
        Ok(self.expand(
            items, units, &classes, budget, &chosen, &reasons, exact, repaired,
        ))
    }

    /// The chosen `(class, option)` pairs as the items' answer: versions,
    /// decisions (a left-out unit's members take its reason in `reasons`,
    /// or `group_excluded`), totals over the versions chosen.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn expand(
        &self,
        items: &[Item<'_>],
        units: &Units,
        classes: &[Class],
        budget: &Budget,
        chosen: &[(usize, usize)],
        reasons: &[ExclusionReason],
        exact: Option<ExactReport>,
        repaired: Option<bool>,
    ) -> VariantSelection {
        let n = items.len();
        let mut version = vec![None; n];
        let mut decisions = vec![Decision::Excluded(ExclusionReason::NotInOptimalSet); n];
        let mut group_reasons = vec![None; n];
        let mut selected = Vec::new();
        let mut taken = vec![false; classes.len()];
        for &(c, k) in chosen {
            taken[c] = true;
            for (m, &i) in units.members()[c].iter().enumerate() {
                let v = classes[c].options[k].picks[m] as usize;
                version[i] = Some(v);
                let zero = self.version(items, i, v).0 == 0;
                decisions[i] = Decision::Included(if zero {
                    InclusionReason::ZeroTokens
                } else {
                    InclusionReason::Scored
                });
                selected.push(i);
            }
        }
        let target = budget.target_tokens();
        for (c, members) in units.members().iter().enumerate() {
            if taken[c] {
                continue;
            }
            let reason = reasons[c];
            for &i in members {
                let smallest = (0..=self.versions(i).len())
                    .map(|v| self.version(items, i, v).0)
                    .min()
                    .unwrap_or(0);
                decisions[i] = Decision::Excluded(if items[i].tokens < 0 {
                    ExclusionReason::NegativeTokens
                } else if members.len() == 1
                    || matches!(
                        reason,
                        ExclusionReason::DependencyExcluded | ExclusionReason::SkipLimitReached
                    )
                {
                    reason
                } else if target <= 0 {
                    ExclusionReason::NoBudget
                } else if smallest > target {
                    ExclusionReason::BudgetExceeded
                } else {
                    group_reasons[i] = Some(reason);
                    ExclusionReason::GroupExcluded
                });
            }
        }
        // Totals over the chosen versions.
        let chosen_items: Vec<Item<'_>> = (0..n)
            .map(|i| {
                let (tokens, score) = self.version(items, i, version[i].unwrap_or(0));
                Item {
                    tokens,
                    score,
                    kind: items[i].kind,
                }
            })
            .collect();
        let mut selection =
            Selection::finish(&chosen_items, budget, selected, decisions, Vec::new());
        selection.exact = exact;
        VariantSelection {
            selection,
            version,
            group_reasons,
            repaired,
        }
    }
}

/// The chosen `(class, option)` pairs and the exact report.
pub(crate) type Solved = (Vec<(usize, usize)>, Option<ExactReport>);

/// The strategy over the classes of `pool` with `target` tokens.
pub(crate) fn solve(
    strategy: &GroupedStrategy,
    classes: &[Class],
    pool: &[usize],
    target: i64,
    reasons: &mut [ExclusionReason],
) -> Result<Solved, CtxpackError> {
    Ok(match strategy {
        GroupedStrategy::Greedy => (walk::walk(classes, pool, target, None, reasons), None),
        GroupedStrategy::Packer(p) => (
            walk::walk(
                classes,
                pool,
                target,
                Some(p.max_consecutive_skips),
                reasons,
            ),
            None,
        ),
        GroupedStrategy::Knapsack(k) => (
            mckp::solve(
                classes,
                pool,
                target,
                k.bucket_size(),
                k.max_table_bytes(),
                reasons,
            )?,
            None,
        ),
        GroupedStrategy::Exact(e) => {
            let (chosen, report) = mcknap::solve(classes, pool, target, e, reasons)?;
            (chosen, Some(report))
        }
        // Refused before any class is built.
        GroupedStrategy::CountKnapsack(_) | GroupedStrategy::ExactCount(_) => (Vec::new(), None),
    })
}

/// Required dependencies, for every strategy: *repair* (drop chosen units
/// that lack a dependency, until none does), then *extend* (the strategy
/// again, with the tokens left, over the units not chosen whose
/// dependencies are all in) until a round adds nothing. Returns whether
/// the repair dropped anything.
fn rounds(
    strategy: &GroupedStrategy,
    classes: &[Class],
    units: &Units,
    target: i64,
    chosen: &mut Vec<(usize, usize)>,
    reasons: &mut [ExclusionReason],
) -> Result<bool, CtxpackError> {
    let needs = units.needs();
    let c = classes.len();
    let mut option: Vec<Option<usize>> = vec![None; c];
    for &(u, k) in chosen.iter() {
        option[u] = Some(k);
    }
    let mut repaired = false;
    loop {
        let lacking: Vec<usize> = (0..c)
            .filter(|&u| option[u].is_some() && needs[u].iter().any(|&v| option[v].is_none()))
            .collect();
        if lacking.is_empty() {
            break;
        }
        for u in lacking {
            option[u] = None;
            reasons[u] = ExclusionReason::DependencyExcluded;
        }
        repaired = true;
    }
    loop {
        let used: i64 = (0..c)
            .filter_map(|u| option[u].map(|k| classes[u].options[k].tokens))
            .sum();
        let ready: Vec<usize> = (0..c)
            .filter(|&u| option[u].is_none() && needs[u].iter().all(|&v| option[v].is_some()))
            .collect();
        if ready.is_empty() || used >= target {
            break;
        }
        let (added, _) = solve(strategy, classes, &ready, target - used, reasons)?;
        if added.is_empty() {
            break;
        }
        for (u, k) in added {
            option[u] = Some(k);
        }
    }
    for u in 0..c {
        if option[u].is_none() && needs[u].iter().any(|&v| option[v].is_none()) {
            reasons[u] = ExclusionReason::DependencyExcluded;
        }
    }
    chosen.retain(|&(u, k)| option[u] == Some(k));
    let kept: Vec<bool> = {
        let mut k = vec![false; c];
        for &(u, _) in chosen.iter() {
            k[u] = true;
        }
        k
    };
    for u in 0..c {
        if let Some(k) = option[u] {
            if !kept[u] {
                chosen.push((u, k));
            }
        }
    }
    Ok(repaired)
}
