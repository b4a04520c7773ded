//! `GreedySlice`: value-density greedy fill (docs/specs/greedy-slice.md).

use crate::dp::order::density;
use crate::{
    check_scores, Budget, CtxpackError, Decision, ExclusionReason, InclusionReason, Item,
    Selection, Slicer,
};

/// Selects items by value density (score per token), filling the budget from
/// the densest item down, exactly as docs/specs/greedy-slice.md specifies:
///
/// * density = `score / tokens`; a zero-token item has density `f64::MAX`
///   and is always included;
/// * the order is density descending, ties by original index ascending (the
///   deterministic tie-break contract), compared with `total_cmp` by numeric
///   value (`-0.0` ties with `0.0`);
/// * an item that does not fit what is left is skipped, never deferred;
/// * the output is in that iteration order.
///
/// Negative-token items, which the spec does not expect, are excluded with
/// [`ExclusionReason::NegativeTokens`] (they would otherwise *add* budget).
///
/// ```
/// use ctxpack_core::{Budget, GreedySlice, Item, Slicer};
/// let items = [
///     Item::new(100, 0.9), // density 0.009
///     Item::new(10, 0.5),  // density 0.05
///     Item::new(50, 0.6),  // density 0.012
/// ];
/// let s = GreedySlice.slice(&items, &Budget::new(70)).unwrap();
/// assert_eq!(s.selected, [1, 2]); // densest first; item 0 no longer fits
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GreedySlice;

impl Slicer for GreedySlice {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        if items.is_empty() || budget.target_tokens() <= 0 {
            return Ok(Selection::none(items, ExclusionReason::NoBudget));
        }

        let mut order: Vec<(f64, usize)> = items
            .iter()
            .enumerate()
            .filter(|(_, it)| it.tokens >= 0)
            .map(|(i, it)| (density(it), i))
            .collect();
        // dp::order::density_order's sort, inline: as a shared call it
        // shifted the code layout and cost the knapsack bench 15%.
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

        let mut decisions = vec![Decision::Excluded(ExclusionReason::NegativeTokens); items.len()];
        let mut selected = Vec::new();
        let mut remaining = budget.target_tokens();
        for &(_, i) in &order {
            let tokens = items[i].tokens;
            decisions[i] = if tokens == 0 {
                selected.push(i);
                Decision::Included(InclusionReason::ZeroTokens)
            } else if tokens <= remaining {
                selected.push(i);
                remaining -= tokens;
                Decision::Included(InclusionReason::Scored)
            } else {
                Decision::Excluded(ExclusionReason::BudgetExceeded)
            };
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
