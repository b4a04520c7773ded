//! The greedy walk's order, shared by `GreedySlice`, the budget simulation
//! and the grouped walk: value density `score / tokens` descending,
//! zero-token items first, ties by position.

use crate::Item;

/// The spec's value density: `f64::MAX` for zero-token items; `-0.0`
/// folded into `0.0` so that it ties with `0.0`.
#[allow(clippy::cast_precision_loss)] // token counts beyond 2^53 are not meaningful
pub(crate) fn density(item: &Item<'_>) -> f64 {
    if item.tokens == 0 {
        f64::MAX
    } else {
        item.score / item.tokens as f64 + 0.0
    }
}

/// The indexes of the items with non-negative tokens, densest first, ties
/// by index (`total_cmp`: deterministic for every float). `GreedySlice`
/// inlines the same sort over its pairs: sharing this function moved its
/// code enough to cost the knapsack bench 15% (code layout), see
/// `slicers/greedy.rs`.
pub(crate) fn density_order(items: &[Item<'_>]) -> Vec<usize> {
    let mut order: Vec<(f64, usize)> = items
        .iter()
        .enumerate()
        .filter(|(_, it)| it.tokens >= 0)
        .map(|(i, it)| (density(it), i))
        .collect();
    order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    order.into_iter().map(|(_, i)| i).collect()
}
