//! What `ExactCountConstrainedSlice` (`exact_count.rs`) answers from what it
//! took: its input with each item's count entry, whether a count can bind
//! at all, and the selection with every decision, reason and shortfall.

use super::exact_count_plan::buckets;
use crate::{
    Budget, CountQuotaEntry, Decision, ExclusionReason, InclusionReason, Item, Selection, Shortfall,
};

/// The input with each item's entry.
pub(super) struct Input<'a> {
    pub(super) items: &'a [Item<'a>],
    pub(super) entry_of: Vec<Option<usize>>,
    pub(super) entries: &'a [CountQuotaEntry],
}

impl Input<'_> {
    /// Per entry, its kind's candidates (items of that kind without
    /// negative tokens).
    pub(super) fn candidates_per_entry(&self) -> Vec<usize> {
        let mut pool = vec![0usize; self.entries.len()];
        for (i, it) in self.items.iter().enumerate() {
            if let (Some(e), true) = (self.entry_of[i], it.tokens >= 0) {
                pool[e] += 1;
            }
        }
        pool
    }
}

/// Whether a count can change the optimum: a cap below the kind's candidates,
/// or a requirement some candidate could meet. Otherwise (no entries, caps at
/// least the candidates, requirements of kinds without candidates, which are
/// shortfalls whatever is chosen) the plain knapsack's optimum is this one.
pub(super) fn counts_bind(input: &Input<'_>) -> bool {
    let pool = input.candidates_per_entry();
    input
        .entries
        .iter()
        .zip(&pool)
        .any(|(entry, &p)| entry.cap_count < p || (entry.require_count > 0 && p > 0))
}

/// The selection and decisions from the taken rows, counted in buckets of
/// `bucket` tokens; `dominated` are the items the plan left out for their cap.
pub(super) fn finish(
    input: &Input<'_>,
    budget: &Budget,
    bucket: i64,
    dominated: &[usize],
    taken: &[usize],
) -> Selection {
    let items = input.items;
    let entries = input.entries;
    let mut decisions = vec![Decision::Excluded(ExclusionReason::NotInOptimalSet); items.len()];
    let mut chosen = vec![false; items.len()];
    for &i in taken {
        chosen[i] = true;
    }
    let mut count = vec![0usize; entries.len()];
    let mut by_kind: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    for (i, it) in items.iter().enumerate() {
        let unconstrained_zero = it.tokens == 0 && input.entry_of[i].is_none();
        if unconstrained_zero {
            chosen[i] = true;
        }
        decisions[i] = if it.tokens < 0 {
            Decision::Excluded(ExclusionReason::NegativeTokens)
        } else if unconstrained_zero {
            Decision::Included(InclusionReason::ZeroTokens)
        } else if chosen[i] {
            if let Some(e) = input.entry_of[i] {
                count[e] += 1;
                by_kind[e].push(i);
            }
            Decision::Included(InclusionReason::Scored)
        } else if buckets(it.tokens, bucket) > budget.target_tokens() / bucket {
            Decision::Excluded(ExclusionReason::BudgetExceeded)
        } else {
            Decision::Excluded(ExclusionReason::NotInOptimalSet)
        };
    }
    for &i in dominated {
        decisions[i] = Decision::Excluded(ExclusionReason::CountCapExceeded);
    }
    let mut shortfalls = Vec::new();
    for (e, entry) in entries.iter().enumerate() {
        // The best-scoring selected items of a required kind are "required".
        let kind = &mut by_kind[e];
        crate::sort::sort_indexes_by(kind, |a, b| {
            (items[b].score + 0.0).total_cmp(&(items[a].score + 0.0))
        });
        for &i in kind.iter().take(entry.require_count) {
            decisions[i] = Decision::Included(InclusionReason::Required);
        }
        if count[e] < entry.require_count {
            shortfalls.push(Shortfall {
                kind: entry.kind.clone(),
                required_count: entry.require_count,
                satisfied_count: count[e],
            });
        }
    }
    for (i, d) in decisions.iter_mut().enumerate() {
        if let (Some(e), Decision::Excluded(ExclusionReason::NotInOptimalSet)) =
            (input.entry_of[i], *d)
        {
            if count[e] >= entries[e].cap_count {
                *d = Decision::Excluded(ExclusionReason::CountCapExceeded);
            }
        }
    }
    let mut selected: Vec<usize> = (0..items.len()).filter(|&i| chosen[i]).collect();
    crate::sort::sort_indexes_by(&mut selected, |a, b| {
        (items[a].tokens != 0, a).cmp(&(items[b].tokens != 0, b))
    });
    Selection::finish(items, budget, selected, decisions, shortfalls)
}
