//! `GreedyPacker`: the memory engine's skip-limited greedy packer
//! (greedy-knapsack-packer.md).

use crate::{
    check_scores, Budget, CtxpackError, Decision, ExclusionReason, InclusionReason, Item,
    Selection, Slicer,
};

/// The seed's `MAX_CONSECUTIVE_SKIPS`.
pub const DEFAULT_MAX_CONSECUTIVE_SKIPS: u32 = 3;

/// Walks the items in the caller's order (the seed expects score
/// descending) and takes each one that still fits, as
/// greedy-knapsack-packer.md specifies:
///
/// * an item that does not fit is skipped and the walk continues
///   (skip-and-continue, not stop-at-first-miss);
/// * after `max_consecutive_skips` misses in a row the walk stops and the
///   rest are excluded with [`ExclusionReason::SkipLimitReached`];
///   `0` means never stop (this is the ACS planner's greedy walk);
/// * the selection keeps the caller's order.
///
/// The seed's figures map onto [`Selection`]: `total_tokens`,
/// `total_score` (the plain sum: the seed's `round(…, 6)` is left to the
/// display), `skipped_count` = [`Selection::excluded_count`] (every item not
/// packed, as the seed computes it), `was_budget_reached` =
/// [`Selection::budget_reached`]. A budget of zero or less packs nothing and
/// reports `budget_reached = false`, as the seed does. Negative-token items
/// are excluded ([`ExclusionReason::NegativeTokens`]) without counting as a
/// miss.
///
/// ```
/// use ctxpack::{Budget, GreedyPacker, Item, Slicer};
/// let items = [
///     Item::new(50, 0.9), // packed
///     Item::new(80, 0.8), // does not fit: miss 1
///     Item::new(70, 0.7), // miss 2
///     Item::new(10, 0.6), // fits: the miss count resets
///     Item::new(90, 0.5), // miss 1
///     Item::new(95, 0.4), // miss 2
///     Item::new(60, 0.3), // miss 3: the walk stops
///     Item::new(5, 0.2),  // never reached, although it would fit
/// ];
/// let s = GreedyPacker::default().slice(&items, &Budget::new(100)).unwrap();
/// assert_eq!(s.selected, [0, 3]);
/// assert_eq!(s.decisions[7].code(), "skip_limit_reached");
/// assert_eq!((s.total_tokens, s.excluded_count(), s.budget_reached), (60, 6, true));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GreedyPacker {
    /// Consecutive misses after which the walk stops; 0 never stops.
    pub max_consecutive_skips: u32,
}

impl Default for GreedyPacker {
    /// Stops after 3 consecutive misses, as the seed.
    fn default() -> Self {
        GreedyPacker {
            max_consecutive_skips: DEFAULT_MAX_CONSECUTIVE_SKIPS,
        }
    }
}

impl GreedyPacker {
    /// A packer with the given skip limit (0: never stop).
    pub const fn new(max_consecutive_skips: u32) -> Self {
        GreedyPacker {
            max_consecutive_skips,
        }
    }
}

impl Slicer for GreedyPacker {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        let target = budget.target_tokens();
        if items.is_empty() || target <= 0 {
            return Ok(Selection::none(items, ExclusionReason::NoBudget));
        }
        let mut decisions =
            vec![Decision::Excluded(ExclusionReason::SkipLimitReached); items.len()];
        let mut selected = Vec::new();
        let mut used: i64 = 0;
        let mut consecutive_skips = 0u32;
        for (i, item) in items.iter().enumerate() {
            if item.tokens < 0 {
                decisions[i] = Decision::Excluded(ExclusionReason::NegativeTokens);
            } else if used.saturating_add(item.tokens) <= target {
                used += item.tokens;
                selected.push(i);
                decisions[i] = Decision::Included(InclusionReason::Scored);
                consecutive_skips = 0;
            } else {
                decisions[i] = Decision::Excluded(ExclusionReason::BudgetExceeded);
                consecutive_skips = consecutive_skips.saturating_add(1);
                if consecutive_skips == self.max_consecutive_skips {
                    for (rest, decision) in items[i + 1..].iter().zip(&mut decisions[i + 1..]) {
                        if rest.tokens < 0 {
                            *decision = Decision::Excluded(ExclusionReason::NegativeTokens);
                        }
                    }
                    break;
                }
            }
        }
        Ok(Selection::finish(
            items,
            budget,
            selected,
            decisions,
            Vec::new(),
        ))
    }
}
