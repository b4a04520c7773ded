//! [`Problem::solve`]: the strategy over the units, through the crate's
//! own slicers ([`Variants`], [`Units`]): without the rule on the first
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
    Budget, CtxpackError, ExclusionReason, GroupedStrategy, Item, Solver, Units, Variants,
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
        let prepared = self.prepare(strategy, &[self.room()])?;
        self.solve_prepared(strategy, &prepared, self.room())
    }

    /// [`solve`](Self::solve) at each of `budgets` in place of the
    /// problem's own, in one call: the items, units and order by value are
    /// made once and only the walk (or search) runs per budget. A session
    /// weighs a cut at fifteen sizes; at 10,000 messages the sizes took
    /// 100 ms when each was a solve of its own.
    ///
    /// # Errors
    /// As [`solve`](Self::solve).
    ///
    /// ```
    /// use ctxpack_core::{Problem, ProblemStrategy};
    /// let p = Problem::new(100, vec![30, 40, 30, 40], vec![0.1, 0.9, 0.2, 0.8], vec![0, 1, 2, 3])?;
    /// let fills = p.solve_sizes(ProblemStrategy::Ranked, &[40, 80, 140])?;
    /// for (fill, budget) in fills.iter().zip([40, 80, 140]) {
    ///     let one = Problem::new(budget, vec![30, 40, 30, 40], vec![0.1, 0.9, 0.2, 0.8], vec![0, 1, 2, 3])?;
    ///     assert_eq!(fill, &one.solve(ProblemStrategy::Ranked)?);
    /// }
    /// assert_eq!(fills[1].included, [false, true, false, true]);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn solve_sizes(
        &self,
        strategy: ProblemStrategy,
        budgets: &[u64],
    ) -> Result<Vec<Outcome>, CtxpackError> {
        let rooms: Vec<i64> = budgets.iter().map(|&b| self.room_of(b)).collect();
        let prepared = self.prepare(strategy, &rooms)?;
        rooms
            .iter()
            .map(|&room| self.solve_prepared(strategy, &prepared, room))
            .collect()
    }

    /// What every budget's solve shares: the items, their units, and (for
    /// `'ranked'` and `'packer'`, when some budget cannot take everything)
    /// the items by value.
    fn prepare(&self, strategy: ProblemStrategy, rooms: &[i64]) -> Result<Prepared, CtxpackError> {
        let (items, variants) = self.items(strategy)?;
        let units = Units::from_ids(self.units.iter().map(|&u| u as usize), self.len());
        let total = items.iter().fold(0i64, |a, it| a.saturating_add(it.tokens));
        let ranks = matches!(strategy, ProblemStrategy::Ranked | ProblemStrategy::Packer)
            && rooms.iter().any(|&room| total > room);
        let ranked = if !ranks {
            None
        } else if self.first_user {
            Some(Ranked {
                order: self.ranked_items(),
                walked: None,
            })
        } else {
            let order = self.ranked_items();
            let walked = self.walked(&order, &items, &variants)?;
            Some(Ranked {
                order,
                walked: Some(walked),
            })
        };
        Ok(Prepared {
            items,
            variants,
            units,
            total,
            ranked,
        })
    }

    fn solve_prepared(
        &self,
        strategy: ProblemStrategy,
        p: &Prepared,
        room: i64,
    ) -> Result<Outcome, CtxpackError> {
        if self.first_user {
            self.led(strategy, p, room)
        } else {
            Self::plain(strategy, p, room)
        }
    }

    /// Without the rule: the slicers' answer (`'ranked'` and `'packer'`:
    /// the packer over the items by value, highest first, ties newest
    /// first).
    fn plain(strategy: ProblemStrategy, p: &Prepared, room: i64) -> Result<Outcome, CtxpackError> {
        let budget = Budget::new(room);
        // Everything fits: greedy says so in one pass; the knapsack's buckets
        // could not (each size rounded up, a fitting set can look too big).
        let fits = p.total <= room;
        let grouped = if fits {
            GroupedStrategy::Greedy
        } else {
            strategy.grouped()
        };
        let walked = p
            .ranked
            .as_ref()
            .and_then(|r| r.walked.as_ref().map(|w| (r, w)));
        let mut out = match walked {
            Some((ranked, walked)) if !fits => {
                ranked_plain(&grouped, &ranked.order, walked, &budget)?
            }
            _ => {
                let s = p
                    .variants
                    .slice_within(&grouped, &p.items, &p.units, &budget, i64::MAX)?;
                let mut out = Outcome::of(&s);
                out.optimal = s.selection.exact.map(|e| e.solver == Solver::Exact);
                out
            }
        };
        if strategy == ProblemStrategy::Exact {
            out.optimal = Some(fits || out.optimal == Some(true));
        }
        Ok(out)
    }

    /// The items of `'ranked'` and `'packer'` without the rule, reordered
    /// by value (`order`), with their stubs and units.
    fn walked(
        &self,
        order: &[usize],
        items: &[Item<'static>],
        variants: &Variants,
    ) -> Result<Walk, CtxpackError> {
        let items: Vec<Item<'static>> = order.iter().map(|&i| items[i]).collect();
        let (mut class, mut tokens, mut scores) = (Vec::new(), Vec::new(), Vec::new());
        for (k, &i) in order.iter().enumerate() {
            for &(t, s) in variants.versions(i) {
                class.push(k);
                tokens.push(t);
                scores.push(s);
            }
        }
        let variants = Variants::from_columns(items.len(), &class, &tokens, &scores)?;
        let units = Units::from_ids(order.iter().map(|&i| self.units[i] as usize), self.len());
        Ok(Walk {
            items,
            variants,
            units,
        })
    }

    /// The items by value, highest first, ties newest first.
    fn ranked_items(&self) -> Vec<usize> {
        // Each value as an integer in `total_cmp`'s order, beside its index:
        // the pairs are distinct, so the unstable sort's order is the one
        // order, and it compares in place (a third of a 10,000-message cut
        // went to the comparator called through the shared stable sort).
        let mut keyed: Vec<(i64, usize)> = self
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| (total_order_key(*v), i))
            .collect();
        keyed.sort_unstable_by(|a, b| b.cmp(a));
        keyed.into_iter().map(|(_, i)| i).collect()
    }

    /// Under the rule: the units as classes, the assistant units that can
    /// never go in left out, then the search or the walk.
    fn led(
        &self,
        strategy: ProblemStrategy,
        p: &Prepared,
        room: i64,
    ) -> Result<Outcome, CtxpackError> {
        let (items, variants, units) = (&p.items, &p.variants, &p.units);
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
                    let order = match &p.ranked {
                        Some(r) => ranked_classes(&r.order, units, &alive),
                        None => ranked_classes(&self.ranked_items(), units, &alive),
                    };
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
}

/// The walk of `'ranked'` and `'packer'` without the rule: the packer over
/// the items by value, the answer in input order.
fn ranked_plain(
    packer: &GroupedStrategy,
    order: &[usize],
    walked: &Walk,
    budget: &Budget,
) -> Result<Outcome, CtxpackError> {
    let s = walked
        .variants
        .slice_within(packer, &walked.items, &walked.units, budget, i64::MAX)?;
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

/// The classes in the order `'ranked'` walks them: each unit where its
/// most valuable item comes in `order` (the items by value); only those
/// `alive`.
fn ranked_classes(order: &[usize], units: &Units, alive: &[bool]) -> Vec<usize> {
    let mut seen = vec![false; units.len()];
    let mut out = Vec::with_capacity(units.len());
    for &i in order {
        let c = units.unit_of()[i];
        if !seen[c] && alive[c] {
            seen[c] = true;
            out.push(c);
        }
    }
    out
}

/// `v` as an integer that orders as [`f64::total_cmp`] orders floats (its
/// own definition).
#[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)] // bit patterns
fn total_order_key(v: f64) -> i64 {
    let bits = v.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// What each budget's solve of one problem shares.
struct Prepared {
    items: Vec<Item<'static>>,
    variants: Variants,
    units: Units,
    /// The items' tokens, summed.
    total: i64,
    /// `'ranked'` and `'packer'`, when some budget cannot take everything.
    ranked: Option<Ranked>,
}

/// The items by value, highest first (ties newest first), and without the
/// rule the items reordered so.
struct Ranked {
    order: Vec<usize>,
    walked: Option<Walk>,
}

/// Items, their stubs and units in the order of a walk.
struct Walk {
    items: Vec<Item<'static>>,
    variants: Variants,
    units: Units,
}

/// A walk's answer as `(chosen, held back, unmet)`.
impl From<Walked> for (Vec<(usize, usize)>, Vec<usize>, bool) {
    fn from(w: Walked) -> Self {
        (w.chosen, w.held, w.unmet)
    }
}

#[cfg(test)]
mod tests {
    use super::total_order_key;

    #[test]
    fn the_key_orders_as_total_cmp() {
        let vs = [
            -1.0,
            -0.0,
            0.0,
            f64::MIN_POSITIVE / 2.0,
            f64::MIN_POSITIVE,
            1e-300,
            0.1,
            0.5,
            0.500_000_000_000_000_1,
            1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for a in vs {
            for b in vs {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a} {b}"
                );
            }
        }
    }
}
