//! The units that [`Groups`](crate::Groups) form, as the slicers see them:
//! their members, what each needs, and each as one item (tokens summed, a
//! score per [`UnitScore`]). How they are formed, and the rules: `groups.rs`.

use std::hash::Hash;

use super::groups::DependencyMode;
use crate::knapsack::scaled_value;
use crate::{
    check_scores, BudgetSimulation, CountQuotaEntry, CtxpackError, ErrorReason, Item, MinBudget,
    Strategy,
};

/// Which score a unit of several items gets as an item (a single item
/// keeps its own).
///
/// ```
/// use ctxpack_core::{Groups, Item, UnitScore};
/// let items = [Item::new(10, 0.33333), Item::new(10, 0.33333)];
/// let units = Groups::from_labels([Some("g"), Some("g")]).units();
/// let walk = units.items(&items, UnitScore::Sum)?;
/// let knap = units.items(&items, UnitScore::Value)?;
/// assert_eq!((walk[0].tokens, walk[0].score), (20, 0.33333 + 0.33333));
/// assert_eq!(((knap[0].score * 10_000.0).floor(), units.values(&items)?[0]), (6666.0, 6666));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitScore {
    /// The sum of the members' scores, in member order (greedy, the
    /// packer); clamped to `±f64::MAX` rather than overflow.
    Sum,
    /// A score whose scaled value `max(0, floor(score × 10000))` is exactly
    /// the sum of the members' scaled values (the knapsack strategies).
    Value,
}

/// The units of a [`Groups`](crate::Groups): items merged into groups (and, under
/// [`DependencyMode::Require`], into dependency cycles). Unit `u`'s members
/// are in input order; units are ordered by their first member.
///
/// ```
/// use ctxpack_core::{DependencyMode, Groups};
/// let units = Groups::from_labels([None, Some("a"), None, Some("a")])
///     .depends_on(2, [3])?
///     .with_mode(DependencyMode::Require)
///     .units();
/// assert_eq!(units.members(), [vec![0], vec![1, 3], vec![2]]);
/// assert_eq!(units.unit_of(), [0, 1, 2, 1]);
/// assert_eq!(units.needs(), [vec![], vec![], vec![1]]);
/// assert!(units.is_grouped() && units.has_dependencies());
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Units {
    pub(crate) unit_of: Vec<usize>,
    pub(crate) members: Vec<Vec<usize>>,
    pub(crate) needs: Vec<Vec<usize>>,
    pub(crate) mode: DependencyMode,
}

impl Units {
    /// The number of units.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no units (no items).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Per item, its unit.
    pub fn unit_of(&self) -> &[usize] {
        &self.unit_of
    }

    /// Per unit, its members in input order.
    pub fn members(&self) -> &[Vec<usize>] {
        &self.members
    }

    /// Per unit, the units it depends on, ascending (a DAG: cycles are
    /// merged). Empty under [`DependencyMode::Ignore`].
    pub fn needs(&self) -> &[Vec<usize>] {
        &self.needs
    }

    /// How dependencies are treated.
    pub const fn mode(&self) -> DependencyMode {
        self.mode
    }

    /// The units of items labelled by small integers (each below `bound`),
    /// numbered by first appearance: what
    /// `Groups::from_labels(labels.map(Some)).units()` gives, without
    /// hashing (the message layer solves a 10,000-message problem at many
    /// sizes, and the map was a third of each solve).
    pub(crate) fn from_ids(labels: impl IntoIterator<Item = usize>, bound: usize) -> Units {
        let mut unit_of_label = vec![usize::MAX; bound];
        let mut unit_of = Vec::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (i, label) in labels.into_iter().enumerate() {
            let slot = &mut unit_of_label[label];
            if *slot == usize::MAX {
                *slot = members.len();
                members.push(Vec::new());
            }
            members[*slot].push(i);
            unit_of.push(*slot);
        }
        Units {
            needs: vec![Vec::new(); members.len()],
            unit_of,
            members,
            mode: DependencyMode::Ignore,
        }
    }

    /// Whether any unit has more than one member.
    pub fn is_grouped(&self) -> bool {
        self.members.len() < self.unit_of.len()
    }

    /// Whether any unit depends on another.
    pub fn has_dependencies(&self) -> bool {
        self.needs.iter().any(|ns| !ns.is_empty())
    }

    /// Per item, whether it must go in with the `seeds` (items): it is in
    /// a seed's unit or in a unit one of them [`needs`](Self::needs),
    /// transitively (so under [`DependencyMode::Ignore`], the seeds' units
    /// only). This is what pinning an item pins. One pass over the units
    /// and their needs, with an explicit stack: linear, never recursive.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] for a seed out of range.
    ///
    /// ```
    /// use ctxpack_core::{DependencyMode, Groups};
    /// // 0 and 1 are a group; 1 needs 2, 2 needs 3; 4 is on its own.
    /// let g = Groups::from_labels([Some("g"), Some("g"), None, None, None])
    ///     .depends_on(1, [2])?
    ///     .depends_on(2, [3])?;
    /// let ignored = g.units().closure([0])?;
    /// assert_eq!(ignored, [true, true, false, false, false]);
    /// let required = g.with_mode(DependencyMode::Require).units().closure([0])?;
    /// assert_eq!(required, [true, true, true, true, false]);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn closure(
        &self,
        seeds: impl IntoIterator<Item = usize>,
    ) -> Result<Vec<bool>, CtxpackError> {
        let mut reached = vec![false; self.members.len()];
        let mut stack = Vec::new();
        for i in seeds {
            let u = *self.unit_of.get(i).ok_or(CtxpackError::InvalidInput {
                reason: ErrorReason::IndexOutOfRange {
                    what: "seed",
                    at: i,
                    len: self.unit_of.len(),
                },
            })?;
            if !reached[u] {
                reached[u] = true;
                stack.push(u);
            }
        }
        while let Some(u) = stack.pop() {
            for &v in &self.needs[u] {
                if !reached[v] {
                    reached[v] = true;
                    stack.push(v);
                }
            }
        }
        Ok(self.unit_of.iter().map(|&u| reached[u]).collect())
    }

    /// Refuses items that are not the ones the units describe.
    pub(crate) fn check_len(&self, items: &[Item<'_>]) -> Result<(), CtxpackError> {
        if items.len() == self.unit_of.len() {
            Ok(())
        } else {
            Err(CtxpackError::InvalidInput {
                reason: ErrorReason::Describes {
                    what: "groups",
                    describes: self.unit_of.len(),
                    got: items.len(),
                },
            })
        }
    }

    /// The units as items, to slice or simulate: tokens are the members'
    /// sum, the score is `score`'s (a single member keeps its own), the
    /// kind is the first member's. A unit with a negative-token member has
    /// that member's (negative) count, so that every slicer excludes it.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] when `items` is not as long as the
    /// groups; [`CtxpackError::InvalidScore`]; [`CtxpackError::InvalidField`]
    /// (field `group`, the unit's first member) when a unit's tokens sum
    /// past `i64::MAX`.
    ///
    /// ```
    /// use ctxpack_core::{Groups, Item, UnitScore};
    /// let items = [Item::new(i64::MAX, 0.5), Item::new(1, 0.5)];
    /// let err = Groups::new(2).group([0, 1])?.units().items(&items, UnitScore::Sum).unwrap_err();
    /// assert_eq!((err.code(), err.field(), err.index()), ("INVALID_FIELD", Some("group"), Some(0)));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn items<'a>(
        &self,
        items: &[Item<'a>],
        score: UnitScore,
    ) -> Result<Vec<Item<'a>>, CtxpackError> {
        self.check_len(items)?;
        check_scores(items)?;
        let tokens = self.unit_tokens(items, i64::MAX, None)?;
        Ok(self.unit_items(items, score, &tokens))
    }

    /// Per unit, its tokens (see [`items`](Self::items)), refusing a unit
    /// of several members whose sum passes `limit` (the wasm boundary's is
    /// `u32::MAX`) and, given count `entries`, a unit of several members
    /// holding a kind of `entries` (the count-constrained strategies count
    /// items, not groups; kinds compared ASCII case-insensitively). Units
    /// are checked in order, each for its sum first.
    pub(crate) fn unit_tokens(
        &self,
        items: &[Item<'_>],
        limit: i64,
        entries: Option<&[CountQuotaEntry]>,
    ) -> Result<Vec<i64>, CtxpackError> {
        let counted = |i: usize| {
            entries.is_some_and(|es| {
                es.iter()
                    .any(|e| e.kind.eq_ignore_ascii_case(items[i].kind))
            })
        };
        let mut out = Vec::with_capacity(self.members.len());
        for m in &self.members {
            if m.len() == 1 {
                out.push(items[m[0]].tokens);
                continue;
            }
            let too_many = |reason: ErrorReason| CtxpackError::InvalidField {
                field: "group".into(),
                index: Some(m[0]),
                reason,
            };
            let tokens = if let Some(&i) = m.iter().find(|&&i| items[i].tokens < 0) {
                items[i].tokens
            } else {
                let sum = m
                    .iter()
                    .try_fold(0i64, |acc, &i| acc.checked_add(items[i].tokens))
                    .ok_or_else(|| {
                        too_many(ErrorReason::GroupTokens {
                            members: m.len(),
                            tokens: None,
                            limit: i64::MAX,
                        })
                    })?;
                if sum > limit {
                    return Err(too_many(ErrorReason::GroupTokens {
                        members: m.len(),
                        tokens: Some(sum),
                        limit,
                    }));
                }
                sum
            };
            if let Some(&at) = m.iter().find(|&&i| counted(i)) {
                return Err(CtxpackError::CountedKindInGroup {
                    index: at,
                    members: m.len(),
                });
            }
            out.push(tokens);
        }
        Ok(out)
    }

    /// The units as items with their `tokens` (from
    /// [`unit_tokens`](Self::unit_tokens)) and `score`'s scores.
    pub(crate) fn unit_items<'a>(
        &self,
        items: &[Item<'a>],
        score: UnitScore,
        tokens: &[i64],
    ) -> Vec<Item<'a>> {
        self.members
            .iter()
            .zip(tokens)
            .map(|(m, &tokens)| {
                let first = items[m[0]];
                if m.len() == 1 {
                    return first;
                }
                let score = match score {
                    UnitScore::Sum => m[1..]
                        .iter()
                        .fold(first.score, |s, &i| s + items[i].score)
                        .clamp(-f64::MAX, f64::MAX),
                    UnitScore::Value => score_of_value(member_value(items, m)),
                };
                Item {
                    tokens,
                    score,
                    kind: first.kind,
                }
            })
            .collect()
    }

    /// Per unit, the sum of its members' scaled values
    /// `max(0, floor(score × 10000))` (saturating): the value the budget
    /// simulation counts.
    ///
    /// # Errors
    /// As [`items`](Self::items), but for the token sums.
    pub fn values(&self, items: &[Item<'_>]) -> Result<Vec<i64>, CtxpackError> {
        self.check_len(items)?;
        check_scores(items)?;
        Ok(self
            .members
            .iter()
            .map(|m| member_value(items, m))
            .collect())
    }

    /// The simulation's input: the units as items for `sim`'s strategy and
    /// their values. Refuses [`DependencyMode::Require`].
    fn simulated<'a>(
        &self,
        sim: &BudgetSimulation,
        items: &[Item<'a>],
    ) -> Result<(Vec<Item<'a>>, Vec<i64>), CtxpackError> {
        if self.mode == DependencyMode::Require {
            return Err(CtxpackError::InvalidOption {
                option: "dependencies".into(),
                reason: ErrorReason::NotSupported {
                    what: "'require'",
                    plural: false,
                    by: "budget simulation (only groups are)",
                },
            });
        }
        let score = match sim.strategy() {
            Strategy::Greedy | Strategy::Packer(_) => UnitScore::Sum,
            Strategy::Knapsack(_) | Strategy::Exact(_) => UnitScore::Value,
        };
        Ok((self.items(items, score)?, self.values(items)?))
    }

    /// [`BudgetSimulation::curve`] over the units: the total scaled value
    /// of the grouped selection at every budget `0..=max_budget` (a group
    /// is one item whose value is its members' sum).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidOption`] (field `dependencies`) for units
    /// built under [`DependencyMode::Require`]; those of
    /// [`items`](Self::items) and of the simulation.
    ///
    /// ```
    /// use ctxpack_core::{BudgetSimulation, Groups, Item, Strategy};
    /// let items = [Item::new(60, 0.5), Item::new(80, 0.8), Item::new(10, 0.2)];
    /// let units = Groups::new(3).group([0, 2])?.units();
    /// let curve = units.curve(&BudgetSimulation::new(Strategy::Greedy), &items, 150)?;
    /// // Unit {0, 2} (70 tokens, 0.7) ties unit {1} on density and comes first.
    /// assert_eq!((curve[69], curve[70], curve[149], curve[150]), (0, 7_000, 7_000, 15_000));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn curve(
        &self,
        sim: &BudgetSimulation,
        items: &[Item<'_>],
        max_budget: i64,
    ) -> Result<Vec<i64>, CtxpackError> {
        let (units, values) = self.simulated(sim, items)?;
        sim.curve_valued(&units, &values, max_budget)
    }

    /// [`BudgetSimulation::min_budget_for`] over the units: where the
    /// grouped selection holds item `index` (that is, its unit).
    ///
    /// # Errors
    /// As [`curve`](Self::curve); [`CtxpackError::InvalidInput`] when
    /// `index` is out of range.
    ///
    /// ```
    /// use ctxpack_core::{BudgetSimulation, Groups, Item, KnapsackSlice, Strategy};
    /// let items = [Item::new(60, 0.6), Item::new(40, 0.45), Item::new(50, 0.5)];
    /// let units = Groups::new(3).group([1, 2])?.units();
    /// let sim = BudgetSimulation::new(Strategy::Knapsack(KnapsackSlice::new(10)?));
    /// let m = units.min_budget_for(&sim, &items, 2, None)?;
    /// assert_eq!((m.first, m.stable_from), (Some(90), Some(90)));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn min_budget_for(
        &self,
        sim: &BudgetSimulation,
        items: &[Item<'_>],
        index: usize,
        max_budget: Option<i64>,
    ) -> Result<MinBudget, CtxpackError> {
        let (units, values) = self.simulated(sim, items)?;
        let unit = *self.unit_of.get(index).ok_or(CtxpackError::InvalidInput {
            reason: ErrorReason::IndexOutOfRange {
                what: "index",
                at: index,
                len: items.len(),
            },
        })?;
        sim.min_budget_valued(&units, &values, unit, max_budget)
    }
}

/// The sum of the members' scaled values, saturating.
fn member_value(items: &[Item<'_>], members: &[usize]) -> i64 {
    members.iter().fold(0i64, |acc, &i| {
        acc.saturating_add(scaled_value(items[i].score))
    })
}

/// A score whose scaled value is exactly `v` (for `v` below 2^48, groups
/// whose scores sum to less than about 2.8e10; beyond, the nearest the
/// doubles allow): `(v + 0.5) / 10000`, stepped one ulp at
/// a time until it matches.
#[allow(clippy::cast_precision_loss)] // values beyond 2^53 are not meaningful
fn score_of_value(v: i64) -> f64 {
    if v <= 0 {
        return 0.0;
    }
    let mut s = (v as f64 + 0.5) / 10_000.0;
    for _ in 0..64 {
        let sv = scaled_value(s);
        if sv == v {
            break;
        }
        // s > 0: the next double up or down is one step of its bits.
        s = f64::from_bits(if sv < v {
            s.to_bits() + 1
        } else {
            s.to_bits() - 1
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_of_value_matches_the_scaled_value() {
        let mut v: i64 = 1;
        while v < 1 << 48 {
            for d in [0, 1, 2, 3, 7, 9999] {
                assert_eq!(scaled_value(score_of_value(v + d)), v + d, "{}", v + d);
            }
            v = v * 3 + 1;
        }
        assert_eq!(score_of_value(0).to_bits(), 0.0f64.to_bits());
    }
}
