//! `GreedyPacker`: the memory engine's skip-limited greedy packer
//! (docs/specs/greedy-knapsack-packer.md).

use std::convert::Infallible;

use crate::{
    check_scores, Budget, CtxpackError, Decision, ExclusionReason, InclusionReason, Item,
    Selection, Slicer,
};

/// The seed's `MAX_CONSECUTIVE_SKIPS`.
pub const DEFAULT_MAX_CONSECUTIVE_SKIPS: u32 = 3;

/// Walks the items in the caller's order (the seed expects score
/// descending) and takes each one that still fits, as
/// docs/specs/greedy-knapsack-packer.md specifies:
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
/// use ctxpack_core::{Budget, GreedyPacker, Item, Slicer};
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

/// What [`GreedyPacker::slice_lazy`] answers: the selection, and how far the
/// walk got.
#[derive(Debug, Clone, PartialEq)]
pub struct LazySelection {
    /// The selection, exactly as [`Slicer::slice`] would give it for the
    /// same counts, except that an item the walk never reached keeps
    /// `skip_limit_reached` (or `no_budget`) even when its count would have
    /// been negative: its count was never asked for.
    pub selection: Selection,
    /// How many counts were asked for: exactly items `0..counted`, each once,
    /// in order.
    pub counted: usize,
}

/// The walk shared by [`Slicer::slice`] and [`GreedyPacker::slice_lazy`].
struct Walk {
    selected: Vec<usize>,
    decisions: Vec<Decision>,
    /// Items `0..reached` were counted; the rest were never looked at.
    reached: usize,
}

impl GreedyPacker {
    /// The seed's walk over `n` items, asking `count(i)` for item `i`'s
    /// tokens only when it reaches it (the seed's `count_tokens` inside the
    /// loop). Items it never reaches are `SkipLimitReached`, or all are
    /// `NoBudget` when `target <= 0` or `n == 0` (nothing is counted then).
    fn walk<E>(
        self,
        n: usize,
        target: i64,
        mut count: impl FnMut(usize) -> Result<i64, E>,
    ) -> Result<Walk, E> {
        if n == 0 || target <= 0 {
            return Ok(Walk {
                selected: Vec::new(),
                decisions: vec![Decision::Excluded(ExclusionReason::NoBudget); n],
                reached: 0,
            });
        }
        let mut decisions = vec![Decision::Excluded(ExclusionReason::SkipLimitReached); n];
        let mut selected = Vec::new();
        let mut used: i64 = 0;
        let mut consecutive_skips = 0u32;
        let mut reached = 0;
        for (i, decision) in decisions.iter_mut().enumerate() {
            let tokens = count(i)?;
            reached = i + 1;
            if tokens < 0 {
                *decision = Decision::Excluded(ExclusionReason::NegativeTokens);
            } else if let Some(sum) = used.checked_add(tokens).filter(|&sum| sum <= target) {
                // Past i64::MAX it does not fit (a saturated sum would pass a
                // budget of i64::MAX).
                used = sum;
                selected.push(i);
                *decision = Decision::Included(InclusionReason::Scored);
                consecutive_skips = 0;
            } else {
                *decision = Decision::Excluded(ExclusionReason::BudgetExceeded);
                consecutive_skips = consecutive_skips.saturating_add(1);
                if consecutive_skips == self.max_consecutive_skips {
                    break;
                }
            }
        }
        Ok(Walk {
            selected,
            decisions,
            reached,
        })
    }

    /// The packer with counts asked for lazily, as the seed's packer counts
    /// each memory only when it reaches it: `count(i)` is called for item
    /// `i` (in order, once each) only when the walk gets there, so after
    /// the skip limit stops the walk the rest are never counted. Selects
    /// exactly as [`Slicer::slice`] does on items with those counts (the two
    /// share one walk).
    ///
    /// `scores` gives the number of items and their scores (for
    /// `total_score`); the scores are checked before anything is counted.
    /// A budget of zero or less counts nothing.
    ///
    /// ```
    /// use ctxpack_core::{Budget, GreedyPacker};
    /// let texts = ["a long memory …", "x", "another long one", "yet another", "y"];
    /// let mut asked = Vec::new();
    /// let lazy = GreedyPacker::new(2).slice_lazy(&[0.9, 0.8, 0.7, 0.6, 0.5], &Budget::new(5), |i| {
    ///     asked.push(i);
    ///     Ok::<_, ctxpack_core::CtxpackError>(i64::try_from(texts[i].len()).unwrap())
    /// })?;
    /// assert_eq!(lazy.selection.selected, [1]);
    /// assert_eq!((lazy.counted, asked), (4, vec![0, 1, 2, 3])); // item 4 was never counted
    /// assert_eq!(lazy.selection.decisions[4].code(), "skip_limit_reached");
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    ///
    /// # Errors
    /// [`CtxpackError::InvalidScore`] (converted into `E`) for a NaN or
    /// infinite score, before any count; the first error `count` returns,
    /// which stops the walk at once.
    pub fn slice_lazy<E: From<CtxpackError>>(
        &self,
        scores: &[f64],
        budget: &Budget,
        mut count: impl FnMut(usize) -> Result<i64, E>,
    ) -> Result<LazySelection, E> {
        if let Some(index) = scores.iter().position(|s| !s.is_finite()) {
            return Err(CtxpackError::InvalidScore {
                index,
                value: scores[index],
            }
            .into());
        }
        let mut tokens = vec![0i64; scores.len()];
        let walk = self.walk(scores.len(), budget.target_tokens(), |i| {
            let t = count(i)?;
            tokens[i] = t;
            Ok::<i64, E>(t)
        })?;
        let items: Vec<Item<'static>> = tokens
            .iter()
            .zip(scores)
            .map(|(&t, &s)| Item::new(t, s))
            .collect();
        Ok(LazySelection {
            selection: Selection::finish(&items, budget, walk.selected, walk.decisions, Vec::new()),
            counted: walk.reached,
        })
    }
}

impl Slicer for GreedyPacker {
    fn slice(&self, items: &[Item<'_>], budget: &Budget) -> Result<Selection, CtxpackError> {
        check_scores(items)?;
        let walk = self
            .walk(items.len(), budget.target_tokens(), |i| {
                Ok::<_, Infallible>(items[i].tokens)
            })
            .unwrap_or_else(|never| match never {});
        let mut decisions = walk.decisions;
        // The counts are all at hand here: an item the walk never reached
        // still reports a negative count as such.
        for (item, decision) in items[walk.reached..]
            .iter()
            .zip(&mut decisions[walk.reached..])
        {
            if item.tokens < 0 {
                *decision = Decision::Excluded(ExclusionReason::NegativeTokens);
            }
        }
        Ok(Selection::finish(
            items,
            budget,
            walk.selected,
            decisions,
            Vec::new(),
        ))
    }
}
