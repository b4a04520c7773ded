//! `CountConstrainedKnapsackSlice`: per-kind require and cap counts around
//! the knapsack (docs/specs/count-constrained-knapsack-slice.md).

use std::collections::HashMap;

use crate::{
    check_scores, Budget, CountEntryProblem, CtxpackError, Decision, ExclusionReason,
    InclusionReason, Item, KnapsackSlice, Selection, Shortfall, Slicer,
};

/// What to do when a kind has fewer candidates than its `require_count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ScarcityBehavior {
    /// Commit what there is and report a [`Shortfall`] (the default).
    #[default]
    Degrade,
    /// Fail with [`CtxpackError::CountRequirementShortfall`].
    Throw,
}

/// The count constraints of one kind: the spec's `CountQuotaEntry`.
///
/// ```
/// use ctxpack_core::CountQuotaEntry;
/// let e = CountQuotaEntry::new("tool", 1, 3);
/// assert_eq!((e.kind.as_str(), e.require_count, e.cap_count), ("tool", 1, 3));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CountQuotaEntry {
    /// The kind constrained (compared ASCII case-insensitively).
    pub kind: String,
    /// Items of this kind committed in phase 1.
    pub require_count: usize,
    /// Most items of this kind in the result.
    pub cap_count: usize,
}

impl CountQuotaEntry {
    /// An entry; it is validated when the slice is built.
    pub fn new(kind: impl Into<String>, require_count: usize, cap_count: usize) -> Self {
        CountQuotaEntry {
            kind: kind.into(),
            require_count,
            cap_count,
        }
    }
}

/// Enforces minimum and maximum item counts per kind around a
/// [`KnapsackSlice`], in the three phases of
/// docs/specs/count-constrained-knapsack-slice.md:
///
/// 1. **Count-Satisfy**: for each entry with `require_count > 0`, in entry
///    order, commit the top `require_count` items of its kind by score
///    (stable: equal scores keep input order), whatever their size. Fewer
///    candidates than required is a [`Shortfall`] (`Degrade`) or an error
///    (`Throw`, with the spec's exact message).
/// 2. **Knapsack-Distribute**: the remaining items go to the knapsack with
///    `min(max(0, target − committed tokens), max_tokens)`; its output is
///    re-sorted by score descending, stably (the spec's normative rule
///    D180: the knapsack's output order is not score-descending).
/// 3. **Cap Enforcement**: in that order, an item whose kind has reached its
///    `cap_count` is excluded; the counts start from phase 1's (the spec's rule D181).
///
/// The result is the committed items followed by the phase 3 survivors.
/// Kinds compare ASCII case-insensitively everywhere. Because phase 1
/// ignores size, the selection can exceed the target: the result then has
/// `over_budget` set and the excess in `overrun_tokens`.
///
/// Choices where the spec is silent (each tested):
/// * two entries for the same kind (case-insensitively) are refused with
///   [`CtxpackError::InvalidCountEntry`], since phase 1 would otherwise
///   commit for both;
/// * negative-token items are excluded before phase 1
///   ([`ExclusionReason::NegativeTokens`]), as the pipeline's classification
///   does for every slicer.
///
/// ```
/// use ctxpack_core::{Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, Item, KnapsackSlice,
///     ScarcityBehavior, Slicer};
/// let items = [
///     Item::new(100, 0.9).with_kind("tool"),
///     Item::new(100, 0.8).with_kind("Tool"),
///     Item::new(100, 0.7).with_kind("tool"),
///     Item::new(100, 0.5).with_kind("msg"),
/// ];
/// let slice = CountConstrainedKnapsackSlice::new(
///     vec![CountQuotaEntry::new("TOOL", 1, 2)],
///     KnapsackSlice::default(),
///     ScarcityBehavior::Degrade,
/// ).unwrap();
/// let s = slice.slice(&items, &Budget::new(1000)).unwrap();
/// assert_eq!(s.selected, [0, 1, 3]); // tool 0 required; tool 2 over the cap of 2
/// assert_eq!(s.decisions[2].code(), "count_cap_exceeded");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountConstrainedKnapsackSlice {
    entries: Vec<CountQuotaEntry>,
    knapsack: KnapsackSlice,
    scarcity: ScarcityBehavior,
}

impl CountConstrainedKnapsackSlice {
    /// Validates the entries and builds the slice.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidCountEntry`] when an entry has
    /// `require_count > cap_count` (including a cap of 0 with a positive
    /// requirement), or when two entries name the same kind.
    ///
    /// ```
    /// use ctxpack_core::{CountConstrainedKnapsackSlice, CountQuotaEntry, KnapsackSlice, ScarcityBehavior};
    /// let err = CountConstrainedKnapsackSlice::new(
    ///     vec![CountQuotaEntry::new("doc", 0, 2), CountQuotaEntry::new("tool", 1, 0)],
    ///     KnapsackSlice::default(),
    ///     ScarcityBehavior::Degrade,
    /// ).unwrap_err();
    /// assert_eq!(err.code(), "INVALID_COUNT_ENTRY");
    /// assert_eq!(err.to_string(),
    ///     "entries[1]: cap_count 0 with require_count 1 can never be satisfied");
    /// ```
    pub fn new(
        entries: Vec<CountQuotaEntry>,
        knapsack: KnapsackSlice,
        scarcity: ScarcityBehavior,
    ) -> Result<Self, CtxpackError> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (index, e) in entries.iter().enumerate() {
            let invalid = |problem: CountEntryProblem| CtxpackError::InvalidCountEntry {
                index,
                kind: e.kind.clone(),
                problem,
            };
            if e.cap_count == 0 && e.require_count > 0 {
                return Err(invalid(CountEntryProblem::CapZero {
                    require_count: e.require_count,
                }));
            }
            if e.require_count > e.cap_count {
                return Err(invalid(CountEntryProblem::RequireOverCap {
                    require_count: e.require_count,
                    cap_count: e.cap_count,
                }));
            }
            if let Some(first) = seen.insert(e.kind.to_ascii_lowercase(), index) {
                return Err(invalid(CountEntryProblem::DuplicateKind { first }));
            }
        }
        Ok(CountConstrainedKnapsackSlice {
            entries,
            knapsack,
            scarcity,
        })
    }

    /// The count entries.
    pub fn entries(&self) -> &[CountQuotaEntry] {
        &self.entries
    }

    /// The phase 2 knapsack.
    pub const fn knapsack(&self) -> &KnapsackSlice {
        &self.knapsack
    }

    /// The scarcity behaviour.
    pub const fn scarcity(&self) -> ScarcityBehavior {
        self.scarcity
    }
}

impl Slicer for CountConstrainedKnapsackSlice {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        if items.is_empty() || budget.target_tokens() <= 0 {
            return Ok(Selection::none(items, ExclusionReason::NoBudget));
        }
        let entry_of = entry_of_items(&self.entries, items);
        let mut decisions = vec![Decision::Excluded(ExclusionReason::NegativeTokens); items.len()];

        // Phase 1: Count-Satisfy.
        let mut partitions: Vec<Vec<usize>> = vec![Vec::new(); self.entries.len()];
        for (i, it) in items.iter().enumerate() {
            if let (Some(e), true) = (entry_of[i], it.tokens >= 0) {
                if self.entries[e].require_count > 0 {
                    partitions[e].push(i);
                }
            }
        }
        let mut committed = Vec::new();
        let mut selected_count = vec![0usize; self.entries.len()];
        let mut pre_allocated: i64 = 0;
        let mut shortfalls = Vec::new();
        for (e, entry) in self.entries.iter().enumerate() {
            if entry.require_count == 0 {
                continue;
            }
            let partition = &mut partitions[e];
            crate::sort::sort_indexes_by(partition, |a, b| by_score_desc(items, a, b));
            let satisfied = partition.len().min(entry.require_count);
            for &i in &partition[..satisfied] {
                committed.push(i);
                decisions[i] = Decision::Included(InclusionReason::Required);
                pre_allocated = pre_allocated.saturating_add(items[i].tokens);
            }
            selected_count[e] = satisfied; // D181
            if satisfied < entry.require_count {
                match self.scarcity {
                    ScarcityBehavior::Throw => {
                        return Err(CtxpackError::CountRequirementShortfall {
                            index: e,
                            kind: entry.kind.clone(),
                            satisfied,
                            required: entry.require_count,
                        })
                    }
                    ScarcityBehavior::Degrade => shortfalls.push(Shortfall {
                        kind: entry.kind.clone(),
                        required_count: entry.require_count,
                        satisfied_count: satisfied,
                    }),
                }
            }
        }

        // Phase 2: Knapsack-Distribute.
        let residual: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].tokens >= 0 && !decisions[i].is_included())
            .collect();
        let residual_target = budget
            .target_tokens()
            .saturating_sub(pre_allocated)
            .max(0)
            .min(budget.max_tokens());
        let mut inner =
            self.knapsack
                .select_pool(items, &residual, residual_target, &mut decisions)?;
        crate::sort::sort_indexes_by(&mut inner, |a, b| by_score_desc(items, a, b)); // the spec's D180

        // Phase 3: Cap Enforcement.
        let mut selected = committed;
        for i in inner {
            match entry_of[i] {
                Some(e) if selected_count[e] >= self.entries[e].cap_count => {
                    decisions[i] = Decision::Excluded(ExclusionReason::CountCapExceeded);
                }
                Some(e) => {
                    selected_count[e] += 1;
                    selected.push(i);
                }
                None => selected.push(i),
            }
        }
        Ok(Selection::finish(
            items, budget, selected, decisions, shortfalls,
        ))
    }
}

/// Score descending by numeric value (`-0.0` equals `0.0`, unlike a bare
/// `total_cmp`), for stable sorts.
fn by_score_desc(items: &[Item<'_>], a: usize, b: usize) -> std::cmp::Ordering {
    (items[b].score + 0.0).total_cmp(&(items[a].score + 0.0))
}

/// The index of the entry that constrains each item's kind (ASCII
/// case-insensitively), `None` for unconstrained kinds. Shared with the
/// exact count-constrained slice so both read kinds alike.
pub(crate) fn entry_of_items(
    entries: &[CountQuotaEntry],
    items: &[Item<'_>],
) -> Vec<Option<usize>> {
    let by_kind: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.kind.to_ascii_lowercase(), i))
        .collect();
    let mut memo: HashMap<&str, Option<usize>> = HashMap::new();
    items
        .iter()
        .map(|it| {
            *memo
                .entry(it.kind)
                .or_insert_with(|| by_kind.get(&it.kind.to_ascii_lowercase()).copied())
        })
        .collect()
}
