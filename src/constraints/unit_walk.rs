//! The walk of greedy and the packer over units with dependencies: each
//! unit, in the walk's order, goes in together with the units it still
//! lacks when all of them fit; [`Blocks`] gathers them and remembers the
//! units that can never fit. The rounds of the knapsack strategies and the
//! expansion back to the items: `group_slice.rs`.

use super::group_slice::UnitOutcome;
use crate::dp::order::density_order;
use crate::{Decision, ExclusionReason, InclusionReason, Item, Units};

impl Units {
    /// Greedy (`greedy`) or the packer (skip limit `limit`, 0: never
    /// stop) over units with dependencies: each unit, in the walk's order,
    /// goes in with the dependencies it still lacks when all of them fit,
    /// else it is a miss.
    pub(super) fn walk(
        &self,
        units: &[Item<'_>],
        greedy: bool,
        limit: u32,
        target: i64,
    ) -> UnitOutcome {
        let c = units.len();
        let walk: Vec<usize> = if greedy {
            // GreedySlice's order.
            density_order(units)
        } else {
            (0..c).filter(|&u| units[u].tokens >= 0).collect()
        };
        let unreached = Decision::Excluded(if target > 0 {
            ExclusionReason::SkipLimitReached
        } else {
            ExclusionReason::NoBudget
        });
        let mut out = UnitOutcome {
            order: Vec::new(),
            in_sel: vec![false; c],
            unit_reason: units
                .iter()
                .map(|it| {
                    if it.tokens < 0 {
                        Decision::Excluded(ExclusionReason::NegativeTokens)
                    } else {
                        unreached
                    }
                })
                .collect(),
        };
        if target <= 0 {
            return out;
        }
        let mut blocks = Blocks {
            dead: units.iter().map(|it| it.tokens < 0).collect(),
            mark: vec![0; c],
            stamp: 0,
            block: Vec::new(),
            stack: Vec::new(),
        };
        let mut left = target;
        let mut misses = 0u32;
        for &u in &walk {
            if out.in_sel[u] {
                continue;
            }
            if let Some(need) = blocks.gather(&self.needs, units, &out.in_sel, u, left) {
                left -= need;
                misses = 0;
                for &v in &blocks.block {
                    out.in_sel[v] = true;
                    out.order.push(v);
                    out.unit_reason[v] = Decision::Included(if greedy && need == 0 {
                        InclusionReason::ZeroTokens
                    } else {
                        InclusionReason::Scored
                    });
                }
            } else {
                out.unit_reason[u] = Decision::Excluded(ExclusionReason::BudgetExceeded);
                misses = misses.saturating_add(1);
                if misses == limit {
                    break;
                }
            }
        }
        out
    }
}

/// The blocks of the walk: a unit and the dependencies it still lacks.
///
/// A unit whose block once missed never fits later: what it still lacks
/// shrinks only by units taken, and the budget left shrinks by at least as
/// much. So such a unit is dead, and so is every unit that needs it; a
/// block that reaches one misses at once. This keeps hostile graphs cheap:
/// one failed walk down a long chain kills every unit on it that cannot
/// fit, instead of walking the chain again from each of them.
struct Blocks {
    dead: Vec<bool>,
    mark: Vec<usize>,
    stamp: usize,
    /// The last block gathered, dependencies first.
    block: Vec<usize>,
    /// (unit, next dependency, `need` when it was pushed)
    stack: Vec<(usize, usize, i64)>,
}

impl Blocks {
    /// Gathers `u` and the units it lacks (not in `in_sel`), dependencies
    /// first (iterative post-order), into `self.block`; their tokens when
    /// they fit `left`, `None` (and abandoned at once) when they do not.
    fn gather(
        &mut self,
        needs: &[Vec<usize>],
        units: &[Item<'_>],
        in_sel: &[bool],
        u: usize,
        left: i64,
    ) -> Option<i64> {
        self.stamp += 1;
        self.block.clear();
        self.stack.clear();
        self.stack.push((u, 0, 0));
        self.mark[u] = self.stamp;
        let mut need: i64 = 0;
        if self.dead[u] {
            return None;
        }
        while let Some(&(x, e, at)) = self.stack.last() {
            if let Some(&v) = needs[x].get(e) {
                let top = self.stack.len() - 1;
                self.stack[top].1 = e + 1;
                if self.dead[v] {
                    // Every unit on the stack needs v.
                    for &(s, _, _) in &self.stack {
                        self.dead[s] = true;
                    }
                    return None;
                }
                if !in_sel[v] && self.mark[v] != self.stamp {
                    self.mark[v] = self.stamp;
                    self.stack.push((v, 0, need));
                }
                continue;
            }
            self.stack.pop();
            self.block.push(x);
            // Past i64::MAX the block is more than any budget (a saturated sum
            // could equal a budget of i64::MAX and pass).
            let (sum, overflowed) = match need.checked_add(units[x].tokens) {
                Some(sum) => (sum, false),
                None => (i64::MAX, true),
            };
            need = sum;
            if overflowed || need > left {
                // What was gathered since a unit was pushed is part of what
                // it lacks: when that alone is too much, it is dead.
                if need.saturating_sub(at) > left {
                    self.dead[x] = true;
                }
                for &(s, _, at) in &self.stack {
                    if need.saturating_sub(at).saturating_add(units[s].tokens) > left {
                        self.dead[s] = true;
                    }
                }
                return None;
            }
        }
        Some(need)
    }
}
