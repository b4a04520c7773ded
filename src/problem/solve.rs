//! [`Problem::solve`]: the strategy over the units, through the crate's
//! own slicers ([`Variants`], [`Groups`]): without the rule on the first
//! message exactly as the slicers answer; with it, over the units as
//! classes, by the search of `first.rs` or the walk of `walk.rs`.

use super::first::solve_first;
use super::input::{Problem, ProblemStrategy};
use super::lead::Lead;
use super::outcome::Outcome;
use super::walk::{lead_walk, Walked};
use crate::variants::classes::classes;
use crate::variants::walk::density_walk;
use crate::{
    Budget, CtxpackError, ExclusionReason, GroupedStrategy, Groups, Item, Solver, Units, Variants,
};

impl Problem {
    /// Selects items under the budget with `strategy`, units whole, each
    /// item in full, as its stub, or not at all, and (with
    /// [`with_first_user`](Self::with_first_user)) under the rule on the
    /// first message. Every strategy keeps every item that can go in when
    /// they all fit.
    ///
    /// # Errors
    /// The strategy's own ([`CtxpackError::TableTooLarge`] from the bucketed
    /// knapsack); [`CtxpackError::InvalidField`] (field `variants`) for a
    /// unit whose stubs make more than [`MAX_OPTIONS`](crate::MAX_OPTIONS)
    /// undominated combinations.
    ///
    /// ```
    /// use ctxpack_core::{Problem, ProblemStrategy};
    /// // Two assistant units (1, 3) and two user units (0, 2); only 80 tokens.
    /// let p = Problem::new(80, vec![30, 40, 30, 40], vec![0.1, 0.9, 0.1, 0.8], vec![0, 1, 2, 3])?
    ///     .with_first_user(vec![true, false, true, false])?;
    /// for s in ProblemStrategy::ALL {
    ///     let out = p.solve(s)?;
    ///     let first = out.included.iter().position(|&k| k);
    ///     assert!(!matches!(first, Some(1 | 3)), "{}", s.name()); // no assistant unit opens
    ///     assert!(out.tokens <= 80);
    /// }
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn solve(&self, strategy: ProblemStrategy) -> Result<Outcome, CtxpackError> {
        let (items, variants) = self.items(strategy)?;
        let units = Groups::from_labels(self.units.iter().map(|&u| Some(u))).units();
        if self.first_user {
            self.led(strategy, &items, &variants, &units)
        } else {
            self.plain(strategy, &items, &variants, &units)
        }
    }

    /// Without the rule: the slicers' answer (`'ranked'` and `'packer'`:
    /// the packer over the items by value, highest first, ties newest
    /// first).
    fn plain(
        &self,
        strategy: ProblemStrategy,
        items: &[Item<'_>],
        variants: &Variants,
        units: &Units,
    ) -> Result<Outcome, CtxpackError> {
        let room = self.room();
        let budget = Budget::new(room);
        let total = items.iter().fold(0i64, |a, it| a.saturating_add(it.tokens));
        // Everything fits: greedy says so in one pass; the knapsack's buckets
        // could not (each size rounded up, a fitting set can look too big).
        let fits = total <= room;
        let grouped = if fits {
            GroupedStrategy::Greedy
        } else {
            strategy.grouped()
        };
        let mut out =
            if !fits && matches!(strategy, ProblemStrategy::Ranked | ProblemStrategy::Packer) {
                self.ranked_plain(&grouped, items, variants, &budget)?
            } else {
                let s = variants.slice_within(&grouped, items, units, &budget, i64::MAX)?;
                let mut out = Outcome::of(&s);
                out.optimal = s.selection.exact.map(|e| e.solver == Solver::Exact);
                out
            };
        if strategy == ProblemStrategy::Exact {
            out.optimal = Some(fits || out.optimal == Some(true));
        }
        Ok(out)
    }

    /// The walk of `'ranked'` and `'packer'` without the rule: the items
    /// reordered by value, the packer over them, the answer in input order.
    fn ranked_plain(
        &self,
        packer: &GroupedStrategy,
        items: &[Item<'_>],
        variants: &Variants,
        budget: &Budget,
    ) -> Result<Outcome, CtxpackError> {
        let order = self.ranked_items();
        let walked: Vec<Item<'_>> = order.iter().map(|&i| items[i]).collect();
        let (mut class, mut tokens, mut scores) = (Vec::new(), Vec::new(), Vec::new());
        for (k, &i) in order.iter().enumerate() {
            for &(t, s) in variants.versions(i) {
                class.push(k);
                tokens.push(t);
                scores.push(s);
            }
        }
        let v = Variants::from_columns(walked.len(), &class, &tokens, &scores)?;
        let units = Groups::from_labels(order.iter().map(|&i| Some(self.units[i]))).units();
        let s = v.slice_within(packer, &walked, &units, budget, i64::MAX)?;
        let at = Outcome::of(&s);
        let mut out = at.clone();
        for (k, &i) in order.iter().enumerate() {
            out.included[i] = at.included[k];
            out.version[i] = at.version[k];
            out.reasons[i] = at.reasons[k];
            out.group_reasons[i] = at.group_reasons[k];
        }
        Ok(out)
    }

    /// The items by value, highest first, ties newest first.
    fn ranked_items(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.len()).collect();
        crate::sort::sort_indexes_by(&mut order, |a, b| {
            self.values[b].total_cmp(&self.values[a]).then(b.cmp(&a))
        });
        order
    }

    /// Under the rule: the units as classes, the assistant units that can
    /// never go in left out, then the search or the walk.
    fn led(
        &self,
        strategy: ProblemStrategy,
        items: &[Item<'_>],
        variants: &Variants,
        units: &Units,
    ) -> Result<Outcome, CtxpackError> {
        let room = self.room();
        let mut classes = classes(units, items, variants, i64::MAX)?;
        let lead = Lead::new(
            units,
            &self.positions,
            &self.units,
            &self.opens_user,
            self.kept_first,
        );
        let alive = lead.alive();
        let pool: Vec<usize> = (0..classes.len()).filter(|&c| alive[c]).collect();
        let total = pool
            .iter()
            .fold(0i64, |a, &c| a.saturating_add(classes[c].full.0));
        let mut reasons = vec![ExclusionReason::NotInOptimalSet; classes.len()];
        let (mut optimal, mut solves) = (strategy == ProblemStrategy::Exact, 0);
        let walk = |order: &[usize], limit: Option<u32>, reasons: &mut [ExclusionReason]| {
            lead_walk(&classes, order, room, limit, &lead, reasons)
        };
        let (chosen, mut held, unmet) = if room <= 0 {
            reasons.fill(ExclusionReason::NoBudget);
            (Vec::new(), Vec::new(), lead.needs_user_before().is_some())
        } else if total <= room {
            // Everything that can go in fits: the walk takes it all.
            walk(&density_walk(&classes, &pool), None, &mut reasons).into()
        } else {
            match strategy {
                ProblemStrategy::Exact | ProblemStrategy::Knapsack => {
                    let s = solve_first(&strategy.grouped(), &mut classes, &lead, &alive, room)?;
                    solves = s.solves;
                    if s.unmet {
                        // The bucketed sizes (the knapsack, the exact one's
                        // fallback) may fit no user unit where real sizes do:
                        // the walk then finds one when there is one.
                        optimal = false;
                        let order = density_walk(&classes, &pool);
                        lead_walk(&classes, &order, room, None, &lead, &mut reasons).into()
                    } else {
                        reasons = s.reasons;
                        optimal &= s.optimal;
                        // Held back: the assistant units of the answer without
                        // the rule that would open the request.
                        let first = lead.first_kept(s.chosen.iter().map(|&(c, _)| c));
                        let mut taken = vec![false; classes.len()];
                        for &(c, _) in &s.chosen {
                            taken[c] = true;
                        }
                        let held = s
                            .root
                            .into_iter()
                            .filter(|&c| !taken[c] && !lead.user[c] && lead.pos[c] < first)
                            .collect();
                        (s.chosen, held, false)
                    }
                }
                ProblemStrategy::Greedy => {
                    walk(&density_walk(&classes, &pool), None, &mut reasons).into()
                }
                ProblemStrategy::Ranked | ProblemStrategy::Packer => {
                    let order = self.ranked_classes(units, &alive);
                    let limit = match strategy.grouped() {
                        GroupedStrategy::Packer(p) => Some(p.max_consecutive_skips),
                        _ => None,
                    };
                    walk(&order, limit, &mut reasons).into()
                }
            }
        };
        let s = variants.expand(
            items,
            units,
            &classes,
            &Budget::new(room),
            &chosen,
            &reasons,
            None,
            None,
        );
        let mut out = Outcome::of(&s);
        out.optimal = (strategy == ProblemStrategy::Exact).then_some(optimal);
        out.first_solves = solves;
        out.unmet = unmet;
        // The rule's own reason: for the units it held back, and for those
        // it never lets in (an assistant unit before every user unit).
        held.extend((0..classes.len()).filter(|&c| !alive[c]));
        for c in held {
            for &i in &units.members()[c] {
                out.first_not_user(i);
            }
        }
        Ok(out)
    }

    /// The classes in the order `'ranked'` walks them: each unit where its
    /// most valuable item comes in [`ranked_items`](Self::ranked_items);
    /// only those `alive`.
    fn ranked_classes(&self, units: &Units, alive: &[bool]) -> Vec<usize> {
        let mut seen = vec![false; units.len()];
        let mut order = Vec::with_capacity(units.len());
        for i in self.ranked_items() {
            let c = units.unit_of()[i];
            if !seen[c] && alive[c] {
                seen[c] = true;
                order.push(c);
            }
        }
        order
    }
}

/// A walk's answer as `(chosen, held back, unmet)`.
impl From<Walked> for (Vec<(usize, usize)>, Vec<usize>, bool) {
    fn from(w: Walked) -> Self {
        (w.chosen, w.held, w.unmet)
    }
}
