//! The slicers' input: scored items and a token budget.

use crate::{CtxpackError, ErrorReason};

/// One candidate for the context window: its token cost, its relevance
/// score and its kind.
///
/// This is the specs' `ScoredItem` reduced to what a slicer reads. Items
/// are passed as a slice; a slicer answers with indexes into it, so any
/// payload (ids, text) stays with the caller.
///
/// * `tokens` may be negative: every slicer excludes such an item with
///   [`ExclusionReason::NegativeTokens`](crate::ExclusionReason::NegativeTokens),
///   as the knapsack spec asks ("they SHOULD be excluded").
/// * `score` must be finite; a NaN or infinite score is refused with
///   [`CtxpackError::InvalidScore`]. Finite scores outside `[0, 1]` are
///   accepted and used as the specs use them (the knapsack clamps negative
///   values to 0).
/// * `kind` matters only to [`CountConstrainedKnapsackSlice`](crate::CountConstrainedKnapsackSlice),
///   which compares kinds ASCII case-insensitively. The default kind is `""`.
///
/// ```
/// use ctxpack_core::Item;
/// let tool = Item::new(120, 0.8).with_kind("tool");
/// assert_eq!((tool.tokens, tool.score, tool.kind), (120, 0.8, "tool"));
/// assert_eq!(Item::new(5, 0.1).kind, "");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item<'a> {
    /// Token cost of the item.
    pub tokens: i64,
    /// Relevance score, usually in `[0, 1]`.
    pub score: f64,
    /// The item's kind (for count constraints).
    pub kind: &'a str,
}

impl Item<'static> {
    /// An item of kind `""`.
    pub const fn new(tokens: i64, score: f64) -> Self {
        Item {
            tokens,
            score,
            kind: "",
        }
    }
}

impl Item<'_> {
    /// The same item with the given kind.
    #[must_use]
    pub const fn with_kind(self, kind: &str) -> Item<'_> {
        Item {
            tokens: self.tokens,
            score: self.score,
            kind,
        }
    }
}

/// The token budget of a slice: the specs' `ContextBudget` reduced to what
/// the slicers read.
///
/// `target_tokens` is what the slicers fill; `max_tokens` (at least the
/// target) is the hard ceiling that
/// [`CountConstrainedKnapsackSlice`](crate::CountConstrainedKnapsackSlice) applies to its
/// residual budget. A target of zero or less is allowed and selects nothing,
/// as every spec's edge-case table says.
///
/// ```
/// use ctxpack_core::Budget;
/// let b = Budget::new(4000);
/// assert_eq!((b.target_tokens(), b.max_tokens()), (4000, 4000));
/// let b = Budget::with_max(3000, 4000).unwrap();
/// assert_eq!(b.max_tokens(), 4000);
/// assert_eq!(Budget::with_max(5000, 4000).unwrap_err().code(), "INVALID_BUDGET");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    target_tokens: i64,
    max_tokens: i64,
}

impl Budget {
    /// A budget whose maximum equals its target.
    pub const fn new(target_tokens: i64) -> Self {
        Budget {
            target_tokens,
            max_tokens: target_tokens,
        }
    }

    /// A budget with a separate hard maximum.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidBudget`] when `max_tokens < target_tokens`.
    pub fn with_max(target_tokens: i64, max_tokens: i64) -> Result<Self, CtxpackError> {
        if max_tokens < target_tokens {
            return Err(CtxpackError::InvalidBudget {
                field: "max_tokens",
                reason: ErrorReason::AtLeast {
                    than: Some("target_tokens"),
                    min: target_tokens,
                    got: max_tokens,
                },
            });
        }
        Ok(Budget {
            target_tokens,
            max_tokens,
        })
    }

    /// The number of tokens the slicers fill.
    pub const fn target_tokens(&self) -> i64 {
        self.target_tokens
    }

    /// The hard ceiling.
    pub const fn max_tokens(&self) -> i64 {
        self.max_tokens
    }
}

/// Refuses NaN and infinite scores, naming the first offending index.
pub(crate) fn check_scores(items: &[Item<'_>]) -> Result<(), CtxpackError> {
    match items.iter().position(|it| !it.score.is_finite()) {
        Some(index) => Err(CtxpackError::InvalidScore {
            index,
            value: items[index].score,
        }),
        None => Ok(()),
    }
}
