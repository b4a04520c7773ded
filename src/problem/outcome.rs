//! The answer of [`Problem::solve`](crate::Problem::solve): per item, in or
//! out, the version, the reason, the unit's reason.

use crate::{Decision, ExclusionReason, VariantSelection};

/// Why an item is in or out: a slicer's [`Decision`], or the rule on the
/// first message.
///
/// ```
/// use ctxpack_core::{Decision, ExclusionReason, Reason};
/// assert_eq!(Reason::FirstNotUser.code(), "first_not_user");
/// assert_eq!(Reason::FirstNotUser.id(), 11);
/// let r = Reason::Slicer(Decision::Excluded(ExclusionReason::BudgetExceeded));
/// assert_eq!((r.code(), r.id()), ("budget_exceeded", 4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The strategy's own decision (the slicers' codes).
    Slicer(Decision),
    /// Left out because the unit would open the request with something
    /// other than a user message (Anthropic).
    FirstNotUser,
}

impl Reason {
    /// [`Reason::FirstNotUser`]'s id: the first after the decisions'.
    #[allow(clippy::cast_possible_truncation)] // 11
    pub const FIRST_NOT_USER_ID: u8 = Decision::ALL.len() as u8;

    /// The stable snake-case code.
    pub const fn code(self) -> &'static str {
        match self {
            Reason::Slicer(d) => d.code(),
            Reason::FirstNotUser => "first_not_user",
        }
    }

    /// A small stable number: [`Decision::id`], or
    /// [`FIRST_NOT_USER_ID`](Self::FIRST_NOT_USER_ID).
    pub fn id(self) -> u8 {
        match self {
            Reason::Slicer(d) => d.id(),
            Reason::FirstNotUser => Self::FIRST_NOT_USER_ID,
        }
    }

    /// Whether the item is in.
    pub const fn is_included(self) -> bool {
        matches!(self, Reason::Slicer(Decision::Included(_)))
    }
}

/// What [`Problem::solve`](crate::Problem::solve) decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Per item: whether it is in.
    pub included: Vec<bool>,
    /// Per item: the version in (0 the item, 1 its stub), `None` when out.
    pub version: Vec<Option<u8>>,
    /// Per item: why.
    pub reasons: Vec<Reason>,
    /// Per item left out as `group_excluded`: its unit's own reason.
    pub group_reasons: Vec<Option<Decision>>,
    /// The tokens of the versions in.
    pub tokens: u64,
    /// `'exact'`: whether the answer is proven optimal (under the rule);
    /// `None` for the other strategies.
    pub optimal: Option<bool>,
    /// Solves the rule's search ran past the first (`first.rs`).
    pub first_solves: u32,
    /// The first kept-for-sure message is not a user message and no user
    /// unit before it fits: no request keeps the rule (the message layer's
    /// `INVALID_MESSAGES`). The rest of the outcome is then meaningless.
    pub unmet: bool,
}

impl Outcome {
    /// The items' answer from a selection over them.
    pub(crate) fn of(s: &VariantSelection) -> Self {
        let d = &s.selection.decisions;
        Outcome {
            included: d.iter().map(|d| d.is_included()).collect(),
            version: s
                .version
                .iter()
                .map(|v| v.map(|v| u8::try_from(v).unwrap_or(u8::MAX)))
                .collect(),
            reasons: d.iter().map(|&d| Reason::Slicer(d)).collect(),
            group_reasons: s
                .group_reasons
                .iter()
                .map(|r| r.map(Decision::Excluded))
                .collect(),
            tokens: u64::try_from(s.selection.total_tokens).unwrap_or(0),
            optimal: None,
            first_solves: 0,
            unmet: false,
        }
    }

    /// Marks item `i` as left out by the rule, unless the strategy never
    /// reached it or had no budget at all.
    pub(crate) fn first_not_user(&mut self, i: usize) {
        let keep = matches!(
            self.reasons[i],
            Reason::Slicer(Decision::Excluded(
                ExclusionReason::SkipLimitReached | ExclusionReason::NoBudget
            ))
        );
        if !keep && !self.included[i] {
            self.reasons[i] = Reason::FirstNotUser;
            self.group_reasons[i] = None;
        }
    }
}
