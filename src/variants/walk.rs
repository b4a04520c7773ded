//! Greedy and the packer over classes: each class, when the walk reaches
//! it, takes its best option (highest score, then fewest tokens) among
//! those that fit what is left.

use super::classes::Class;
use crate::dp::order::density;
use crate::{ExclusionReason, Item};

/// Walks the classes of `pool`: greedy (`skip_limit: None`) by the density
/// of each class in full, densest first, ties by position in `pool`; the
/// packer (`Some(limit)`) in `pool` order, stopping after `limit`
/// consecutive misses (0: never). Returns the chosen `(class, option)` in
/// walk order; sets `reasons` of the classes left out.
pub(crate) fn walk(
    classes: &[Class],
    pool: &[usize],
    target: i64,
    skip_limit: Option<u32>,
    reasons: &mut [ExclusionReason],
) -> Vec<(usize, usize)> {
    let order = if skip_limit.is_none() {
        density_walk(classes, pool)
    } else {
        pool.to_vec()
    };
    let mut left = target;
    let mut misses = 0u32;
    let mut chosen = Vec::new();
    for (step, &c) in order.iter().enumerate() {
        if classes[c].negative {
            reasons[c] = ExclusionReason::NegativeTokens;
            continue;
        }
        if let Some(k) = best_option(&classes[c], left) {
            left -= classes[c].options[k].tokens;
            misses = 0;
            chosen.push((c, k));
            continue;
        }
        reasons[c] = ExclusionReason::BudgetExceeded;
        misses += 1;
        if skip_limit.is_some_and(|limit| limit > 0 && misses >= limit) {
            for &rest in &order[step + 1..] {
                reasons[rest] = if classes[rest].negative {
                    ExclusionReason::NegativeTokens
                } else {
                    ExclusionReason::SkipLimitReached
                };
            }
            break;
        }
    }
    chosen
}

/// The class's best option that fits `left` tokens: the highest score,
/// then the fewest tokens; `None` when none fits. The walks' one rule for
/// choosing a version (problem/walk.rs takes it too).
pub(crate) fn best_option(class: &Class, left: i64) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (k, o) in class.options.iter().enumerate() {
        // Options are in token order: a strictly better score wins.
        if o.tokens <= left && best.map_or(true, |b| o.score > class.options[b].score) {
            best = Some(k);
        }
    }
    best
}

/// Greedy's walk over the classes of `pool`: by the density of each class
/// in full, densest first, ties by position in `pool`.
pub(crate) fn density_walk(classes: &[Class], pool: &[usize]) -> Vec<usize> {
    let dens: Vec<f64> = pool
        .iter()
        .map(|&c| density(&Item::new(classes[c].full.0, classes[c].full.1)))
        .collect();
    let mut idx: Vec<usize> = (0..pool.len()).collect();
    crate::sort::sort_indexes_by(&mut idx, |a, b| dens[b].total_cmp(&dens[a]).then(a.cmp(&b)));
    idx.into_iter().map(|k| pool[k]).collect()
}
