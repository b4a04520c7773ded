//! The input: a [`Problem`] in columns, and the [`ProblemStrategy`] that
//! solves it.

use crate::{
    CtxpackError, ErrorReason, ExactKnapsackSlice, GreedyPacker, GroupedStrategy, Item,
    KnapsackSlice, Variants, SCORE_SCALE,
};

/// How a [`Problem`] is solved.
///
/// ```
/// use ctxpack_core::ProblemStrategy;
/// assert_eq!(ProblemStrategy::from_name("ranked"), Some(ProblemStrategy::Ranked));
/// assert_eq!(ProblemStrategy::Packer.name(), "packer");
/// assert_eq!(ProblemStrategy::from_name("acs"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemStrategy {
    /// The highest total value ([`ExactKnapsackSlice`]; the multiple-choice
    /// one with stubs).
    Exact,
    /// The bucketed knapsack ([`KnapsackSlice`]).
    Knapsack,
    /// By value per token, densest unit first.
    Greedy,
    /// By value, highest first (ties: newest first), each unit that still
    /// fits, to the end.
    Ranked,
    /// The walk of `Ranked`, stopping after the packer's default number of
    /// consecutive misses ([`crate::DEFAULT_MAX_CONSECUTIVE_SKIPS`]).
    Packer,
}

impl ProblemStrategy {
    /// Every strategy, in the order of their names in the npm package.
    pub const ALL: [ProblemStrategy; 5] = [
        ProblemStrategy::Exact,
        ProblemStrategy::Knapsack,
        ProblemStrategy::Greedy,
        ProblemStrategy::Ranked,
        ProblemStrategy::Packer,
    ];

    /// The strategy of a name (`'exact'`, `'knapsack'`, `'greedy'`,
    /// `'ranked'`, `'packer'`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The strategy's name.
    pub const fn name(self) -> &'static str {
        match self {
            ProblemStrategy::Exact => "exact",
            ProblemStrategy::Knapsack => "knapsack",
            ProblemStrategy::Greedy => "greedy",
            ProblemStrategy::Ranked => "ranked",
            ProblemStrategy::Packer => "packer",
        }
    }

    /// Whether the strategy maximises a sum of integer values (which floor
    /// `score × SCORE_SCALE`).
    pub(crate) const fn maximises(self) -> bool {
        matches!(self, ProblemStrategy::Exact | ProblemStrategy::Knapsack)
    }

    /// The crate's strategy that does the work.
    pub(crate) fn grouped(self) -> GroupedStrategy {
        match self {
            ProblemStrategy::Exact => GroupedStrategy::Exact(ExactKnapsackSlice::new()),
            ProblemStrategy::Knapsack => GroupedStrategy::Knapsack(KnapsackSlice::default()),
            ProblemStrategy::Greedy => GroupedStrategy::Greedy,
            // 0: never stop.
            ProblemStrategy::Ranked => GroupedStrategy::Packer(GreedyPacker {
                max_consecutive_skips: 0,
            }),
            ProblemStrategy::Packer => GroupedStrategy::Packer(GreedyPacker::default()),
        }
    }

    /// The score a value `v` in `[0, 1]` is given to the strategy. The
    /// value-maximising ones floor `score × SCORE_SCALE` to integers, so a
    /// low but positive value would be worth 0 to them and never kept,
    /// even with budget left: for them values are mapped onto
    /// `[1.5, SCORE_SCALE − 0.5] / SCORE_SCALE`, which keeps their order
    /// and makes every item worth at least one unit. The walks compare
    /// values as they are.
    ///
    /// ```
    /// use ctxpack_core::{ProblemStrategy, SCORE_SCALE};
    /// assert_eq!(ProblemStrategy::Ranked.score(0.0), 0.0);
    /// let low = ProblemStrategy::Exact.score(0.0);
    /// assert_eq!((low * SCORE_SCALE).floor(), 1.0);
    /// assert!(ProblemStrategy::Exact.score(1.0) < 1.0);
    /// ```
    pub fn score(self, v: f64) -> f64 {
        if self.maximises() {
            (1.5 + v * (SCORE_SCALE - 2.0)) / SCORE_SCALE
        } else {
            v
        }
    }
}

/// The first kept-for-sure message: its position, and whether it is a
/// user message.
pub(crate) type KeptFirst = Option<(u32, bool)>;

/// What to select, in columns: per item its size (tokens, overhead
/// included), value in `[0, 1]`, unit (items of one unit go in all or
/// none) and position (strictly increasing: the items come in conversation
/// order), and at most one stub (a shorter version: size and value); the
/// budget; what is already kept for sure (tokens taken and positions); and,
/// with [`with_first_user`](Self::with_first_user), the rule that the
/// first kept message must open a unit that opens with a user message
/// (Anthropic's requests start with one).
///
/// ```
/// use ctxpack_core::{Problem, ProblemStrategy};
/// // Messages 0-3: user, assistant, user, assistant; each its own unit.
/// let p = Problem::new(100, vec![60, 30, 40, 30], vec![0.1, 0.9, 0.3, 0.8], vec![0, 1, 2, 3])?
///     .with_first_user(vec![true, false, true, false])?;
/// let out = p.solve(ProblemStrategy::Exact)?;
/// // 1 and 3 are worth most, but 1 would open the request: 2 and 3 go in.
/// assert_eq!(out.included, [false, false, true, true]);
/// assert_eq!(out.reasons[1].code(), "first_not_user");
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub(crate) budget: u64,
    pub(crate) sizes: Vec<u32>,
    pub(crate) values: Vec<f64>,
    pub(crate) units: Vec<u32>,
    pub(crate) positions: Vec<u32>,
    /// Per item, its stub: `(size, value)`.
    pub(crate) stubs: Vec<Option<(u32, f64)>>,
    /// Per unit id: whether the unit opens with a user message; empty: no
    /// rule.
    pub(crate) opens_user: Vec<bool>,
    pub(crate) first_user: bool,
    pub(crate) kept_tokens: u64,
    pub(crate) kept_first: KeptFirst,
}

impl Problem {
    /// `budget` tokens for items with these sizes, values and unit ids
    /// (each below the number of items); positions `0, 1, …`; no stub,
    /// nothing kept for sure, no rule on the first message.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] for columns of different lengths,
    /// more than `u32::MAX` items; [`CtxpackError::InvalidField`] (field
    /// `values`, the item) for a value that is not a number in `[0, 1]`,
    /// (field `units`) for a unit id not below the number of items.
    ///
    /// ```
    /// use ctxpack_core::Problem;
    /// let err = Problem::new(10, vec![1, 2], vec![0.5, 1.5], vec![0, 1]).unwrap_err();
    /// assert_eq!((err.code(), err.field(), err.index()), ("INVALID_FIELD", Some("values"), Some(1)));
    /// assert_eq!(Problem::new(10, vec![1], vec![0.5], vec![1]).unwrap_err().field(), Some("units"));
    /// ```
    pub fn new(
        budget: u64,
        sizes: Vec<u32>,
        values: Vec<f64>,
        units: Vec<u32>,
    ) -> Result<Self, CtxpackError> {
        let n = sizes.len();
        if values.len() != n || units.len() != n || u32::try_from(n).is_err() {
            return Err(CtxpackError::InvalidInput {
                reason: ErrorReason::Lengths {
                    what: "sizes, values and units",
                    must: "have equal lengths (at most 2^32 - 1)",
                    lengths: [n, values.len(), units.len()],
                },
            });
        }
        check_values("values", &values, |i| i)?;
        if let Some(i) = units.iter().position(|&u| u as usize >= n) {
            return Err(field(
                "units",
                i,
                ErrorReason::Below {
                    what: "a unit id",
                    limit: n,
                    got: u64::from(units[i]),
                },
            ));
        }
        Ok(Problem {
            budget,
            positions: (0..n)
                .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect(),
            stubs: vec![None; n],
            sizes,
            values,
            units,
            opens_user: Vec::new(),
            first_user: false,
            kept_tokens: 0,
            kept_first: None,
        })
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Whether there is no item.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// The same problem with the items at these positions (the messages'
    /// indexes, which kept-for-sure positions are compared with).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] for a column of another length;
    /// [`CtxpackError::InvalidField`] (field `positions`) where they do
    /// not increase strictly.
    pub fn with_positions(mut self, positions: Vec<u32>) -> Result<Self, CtxpackError> {
        if positions.len() != self.len() {
            return Err(length("positions", positions.len(), self.len()));
        }
        if let Some(i) = (1..positions.len()).find(|&i| positions[i] <= positions[i - 1]) {
            return Err(field(
                "positions",
                i,
                ErrorReason::NotIncreasing {
                    got: u64::from(positions[i]),
                    after: u64::from(positions[i - 1]),
                },
            ));
        }
        self.positions = positions;
        Ok(self)
    }

    /// The same problem with stubs: item `items[k]` may go in as a stub
    /// of `sizes[k]` tokens worth `values[k]` instead (at most one per
    /// item).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] for columns of different lengths;
    /// [`CtxpackError::InvalidField`] (field `stubs`, the item) for an
    /// item out of range or given twice, (field `stubs.values`) for a value
    /// that is not a number in `[0, 1]` or is more than its item's value.
    ///
    /// ```
    /// use ctxpack_core::{Problem, ProblemStrategy};
    /// let p = Problem::new(60, vec![50, 100], vec![0.5, 0.9], vec![0, 1])?.with_stubs(&[1], &[10], &[0.3])?;
    /// let out = p.solve(ProblemStrategy::Exact)?;
    /// assert_eq!(out.version, [Some(0), Some(1)]); // item 1 as its stub
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn with_stubs(
        mut self,
        items: &[u32],
        sizes: &[u32],
        values: &[f64],
    ) -> Result<Self, CtxpackError> {
        if sizes.len() != items.len() || values.len() != items.len() {
            return Err(CtxpackError::InvalidInput {
                reason: ErrorReason::Lengths {
                    what: "the stub columns",
                    must: "have equal lengths",
                    lengths: [items.len(), sizes.len(), values.len()],
                },
            });
        }
        check_values("stubs.values", values, |k| items[k] as usize)?;
        for (k, &i) in items.iter().enumerate() {
            let own = self.values.get(i as usize).copied().unwrap_or(1.0);
            if values[k] > own {
                // A shorter version worth more than the item would make
                // "everything fits: keep everything in full" a loss.
                return Err(field(
                    "stubs.values",
                    i as usize,
                    ErrorReason::AtMost {
                        than: "the item's value",
                        max: own,
                        got: values[k],
                    },
                ));
            }
            match self.stubs.get_mut(i as usize) {
                Some(slot @ None) => *slot = Some((sizes[k], values[k])),
                Some(Some(_)) => {
                    return Err(field("stubs", i as usize, "has a second stub".into()));
                }
                None => {
                    let n = self.len();
                    return Err(field(
                        "stubs",
                        i as usize,
                        ErrorReason::OutOfRange { len: n },
                    ));
                }
            }
        }
        Ok(self)
    }

    /// The same problem with messages kept for sure (pinned, a session's
    /// prefix): the tokens they take from the budget, their positions and
    /// whether each is a user message. Only the first matters to the rule
    /// of [`with_first_user`](Self::with_first_user).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] for columns of different lengths;
    /// [`CtxpackError::InvalidField`] (field `kept`) for a position that
    /// is also an item's.
    pub fn with_kept(
        mut self,
        tokens: u64,
        positions: &[u32],
        user: &[bool],
    ) -> Result<Self, CtxpackError> {
        if positions.len() != user.len() {
            return Err(length("kept user flags", user.len(), positions.len()));
        }
        if let Some(k) = positions
            .iter()
            .position(|p| self.positions.binary_search(p).is_ok())
        {
            return Err(field(
                "kept",
                k,
                ErrorReason::KeptPosition {
                    position: u64::from(positions[k]),
                },
            ));
        }
        self.kept_tokens = tokens;
        self.kept_first = positions
            .iter()
            .zip(user)
            .min_by_key(|(&p, _)| p)
            .map(|(&p, &u)| (p, u));
        Ok(self)
    }

    /// The same problem under the rule that the first kept message (kept
    /// for sure or selected, in position order) opens a unit that opens
    /// with a user message; `opens_user[u]` says it of unit id `u`.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidField`] (field `units`, the item) when an
    /// item's unit id has no flag.
    pub fn with_first_user(mut self, opens_user: Vec<bool>) -> Result<Self, CtxpackError> {
        if let Some(i) = self
            .units
            .iter()
            .position(|&u| u as usize >= opens_user.len())
        {
            return Err(field(
                "units",
                i,
                ErrorReason::NoOpensUser {
                    unit_id: u64::from(self.units[i]),
                    flags: opens_user.len(),
                },
            ));
        }
        self.opens_user = opens_user;
        self.first_user = true;
        Ok(self)
    }

    /// What the items leave of the budget: the budget less what is kept
    /// for sure (at least 0).
    pub fn room(&self) -> i64 {
        self.room_of(self.budget)
    }

    /// The room `budget` leaves once what is kept for sure is taken.
    pub(crate) fn room_of(&self, budget: u64) -> i64 {
        i64::try_from(budget.saturating_sub(self.kept_tokens)).unwrap_or(i64::MAX)
    }

    /// The items as the strategy sees them, and their stubs.
    pub(crate) fn items(
        &self,
        strategy: ProblemStrategy,
    ) -> Result<(Vec<Item<'static>>, Variants), CtxpackError> {
        let items = self
            .sizes
            .iter()
            .zip(&self.values)
            .map(|(&t, &v)| Item::new(i64::from(t), strategy.score(v)))
            .collect();
        let (mut class, mut tokens, mut scores) = (Vec::new(), Vec::new(), Vec::new());
        for (i, stub) in self.stubs.iter().enumerate() {
            if let Some((t, v)) = *stub {
                class.push(i);
                tokens.push(i64::from(t));
                scores.push(strategy.score(v));
            }
        }
        let variants = Variants::from_columns(self.len(), &class, &tokens, &scores)?;
        Ok((items, variants))
    }
}

fn field(name: &str, index: usize, reason: ErrorReason) -> CtxpackError {
    CtxpackError::InvalidField {
        field: name.into(),
        index: Some(index),
        reason,
    }
}

fn length(name: &'static str, got: usize, want: usize) -> CtxpackError {
    CtxpackError::InvalidInput {
        reason: ErrorReason::Entries {
            what: name,
            want,
            got,
        },
    }
}

/// Values are numbers in `[0, 1]`: the lift of [`ProblemStrategy::score`]
/// keeps them in the strategies' range.
fn check_values(
    name: &str,
    values: &[f64],
    item: impl Fn(usize) -> usize,
) -> Result<(), CtxpackError> {
    match values.iter().position(|v| !(0.0..=1.0).contains(v)) {
        Some(k) => Err(field(
            name,
            item(k),
            ErrorReason::Range {
                what: "a number",
                min: 0.0,
                max: 1.0,
                max_by_name: true,
                got: Some(crate::error::js_number(values[k])),
            },
        )),
        None => Ok(()),
    }
}
