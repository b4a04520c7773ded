//! The one error type of the crate; its sentences in `display.rs`.

mod display;
mod reason;
mod reason_kind;

pub(crate) use display::js_number;
pub use reason::ErrorReason;

use std::fmt;

/// Every way a slicer call can be refused.
///
/// Each variant has a stable, machine-readable [`code`](CtxpackError::code)
/// (the npm package exposes it as `CtxpackError.code`) and a message that
/// names the offending field and, for per-item problems, the item's index.
/// No variant ever carries item content.
///
/// ```
/// use ctxpack_core::{Budget, CtxpackError, GreedySlice, Item, Slicer};
///
/// let items = [Item::new(10, 0.5), Item::new(10, f64::NAN)];
/// let err = GreedySlice.slice(&items, &Budget::new(100)).unwrap_err();
/// assert_eq!(err.code(), "INVALID_SCORE");
/// assert_eq!(err.to_string(), "items[1].score must be a finite number, got NaN");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CtxpackError {
    /// An item's score is NaN or infinite.
    InvalidScore {
        /// Index of the item in the input.
        index: usize,
        /// The rejected value.
        value: f64,
    },
    /// A budget is not usable (for example `max_tokens < target_tokens`).
    InvalidBudget {
        /// The budget field at fault.
        field: &'static str,
        /// Why it was rejected.
        reason: ErrorReason,
    },
    /// A knapsack bucket size of zero or less.
    InvalidBucketSize {
        /// The rejected value.
        value: i64,
    },
    /// A bucket size given as something other than an integer (the wasm
    /// boundary's options); code `INVALID_BUCKET_SIZE`, as
    /// [`InvalidBucketSize`](Self::InvalidBucketSize).
    BucketSizeNotInteger {
        /// The value, described (never a caller's string).
        got: String,
    },
    /// A count entry that can never be satisfied or is ambiguous.
    InvalidCountEntry {
        /// Index of the entry in the entry list.
        index: usize,
        /// The entry's kind (never shown in the message).
        kind: String,
        /// Why it was rejected.
        problem: CountEntryProblem,
    },
    /// A count entry list, or an entry of it, of the wrong shape (read from
    /// an options object at the wasm boundary). Code `INVALID_COUNT_ENTRY`,
    /// as every count-entry problem: a caller catching that code sees them
    /// all, whichever front door read the entries.
    CountEntryShape {
        /// Index of the entry; `None` when the list itself is wrong.
        index: Option<usize>,
        /// The entry's field at fault (`kind`, `requireCount`, `capCount`,
        /// or a key no entry takes); empty for the entry as a whole.
        member: String,
        /// What the field takes and what it got (described, never shown).
        reason: ErrorReason,
    },
    /// The knapsack keep table would exceed the configured byte limit.
    TableTooLarge {
        /// Candidates that take part in the DP (one table row each).
        candidates: usize,
        /// Discretised capacity (the table has `capacity + 1` columns).
        capacity: u64,
        /// `candidates × (capacity + 1)`.
        cells: u64,
        /// Bytes the table would need (keep bits plus the value row).
        bytes: u64,
        /// The configured limit, in `unit`s.
        limit: u64,
        /// Which limit was exceeded: bytes (`max_table_bytes`) or DP cells
        /// (`max_cells`).
        unit: TableLimit,
        /// Whether a larger `bucket_size` can help: not when the slice
        /// chose its own coarsest bucket (the exact slices' fallbacks).
        bucket_helps: bool,
    },
    /// `ScarcityBehavior::Throw` and a kind had fewer candidates than its
    /// `require_count`. The message is the specification's, with the kind
    /// named by its entry (`the kind of entries[0]`): kinds are caller
    /// strings of any length and may carry content, so no message shows one.
    CountRequirementShortfall {
        /// Index of the kind's entry in the entry list.
        index: usize,
        /// The kind that was short, as written in its entry (never shown in
        /// the message).
        kind: String,
        /// How many candidates were committed.
        satisfied: usize,
        /// The configured `require_count`.
        required: usize,
    },
    /// `ScarcityBehavior::Throw` in the exact count-constrained slice, and
    /// every kind has enough candidates but the lightest way to meet every
    /// `require_count` does not fit the budget.
    CountRequirementOverBudget {
        /// Tokens that lightest way needs, each item's count rounded up to
        /// a multiple of `bucket_size`.
        required_tokens: i64,
        /// The budget's target.
        target_tokens: i64,
        /// The bucket size the slice used (1: exact token counts).
        bucket_size: i64,
    },
    /// Budget simulation (a curve, a minimum budget, a slack) was asked of
    /// a strategy whose selection is not monotonic in the budget: the
    /// count-constrained slices, whose selection can exceed the budget
    /// (required items) or lose value as the budget grows (fewer
    /// shortfalls first), so that a curve or a minimum budget would
    /// mislead.
    NotMonotonic {
        /// The strategy's name (`count-knapsack`, `exact-count`).
        slicer: String,
    },
    /// An option of a slicer or of the wasm boundary has the wrong type or
    /// value.
    InvalidOption {
        /// The option's name.
        option: String,
        /// Why it was rejected.
        reason: ErrorReason,
    },
    /// A field of an input item is missing or has the wrong type or value
    /// (used by the wasm boundary decoders).
    InvalidField {
        /// The field's name.
        field: String,
        /// Index of the item, when the field belongs to one.
        index: Option<usize>,
        /// Why it was rejected.
        reason: ErrorReason,
    },
    /// An item names itself among its dependencies. Code `INVALID_FIELD`;
    /// its own variant so that the index the message repeats is the
    /// item's, which the wasm boundary renumbers as the caller's.
    SelfDependency {
        /// Index of the item.
        index: usize,
        /// The dependency's position `k` in the item's list.
        dependency: usize,
        /// Its path, `dependencies[k]`.
        field: String,
    },
    /// A count-constrained strategy was given a group of several items
    /// holding an item whose kind has a count entry: the strategies count
    /// items, not groups. Code `INVALID_OPTION`, field `group`.
    CountedKindInGroup {
        /// Index of the item whose kind is counted.
        index: usize,
        /// How many items its group holds.
        members: usize,
    },
    /// A property of an input item could not be read: a getter or a Proxy
    /// trap threw, or a Proxy was revoked (the wasm boundary hands what was
    /// thrown to JS as the error's `cause`). Code `INVALID_INPUT`.
    Unreadable {
        /// The property.
        field: &'static str,
        /// Index of the item.
        index: usize,
    },
    /// The input as a whole has the wrong shape (for example not an array,
    /// or parallel arrays of different lengths).
    InvalidInput {
        /// What was wrong: the whole sentence.
        reason: ErrorReason,
    },
}

/// Why a count entry was rejected ([`CtxpackError::InvalidCountEntry`]):
/// carried as fields, so that each binding words it in its own names.
///
/// ```
/// use ctxpack_core::{CountConstrainedKnapsackSlice, CountEntryProblem, CountQuotaEntry, CtxpackError, KnapsackSlice, ScarcityBehavior};
/// let err = CountConstrainedKnapsackSlice::new(
///     vec![CountQuotaEntry::new("doc", 3, 2)],
///     KnapsackSlice::default(),
///     ScarcityBehavior::Degrade,
/// ).unwrap_err();
/// let CtxpackError::InvalidCountEntry { problem, .. } = err else { panic!("{err}") };
/// assert_eq!(problem, CountEntryProblem::RequireOverCap { require_count: 3, cap_count: 2 });
/// assert_eq!(problem.to_string(), "require_count 3 must not exceed cap_count 2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountEntryProblem {
    /// A cap of 0 with a positive requirement.
    CapZero {
        /// The entry's `require_count`.
        require_count: usize,
    },
    /// `require_count > cap_count`.
    RequireOverCap {
        /// The entry's `require_count`.
        require_count: usize,
        /// The entry's `cap_count`.
        cap_count: usize,
    },
    /// The kind (compared case-insensitively) is already constrained by an
    /// earlier entry.
    DuplicateKind {
        /// The earlier entry's index.
        first: usize,
    },
}

impl fmt::Display for CountEntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CapZero { require_count } => write!(
                f,
                "cap_count 0 with require_count {require_count} can never be satisfied"
            ),
            Self::RequireOverCap {
                require_count,
                cap_count,
            } => write!(
                f,
                "require_count {require_count} must not exceed cap_count {cap_count}"
            ),
            Self::DuplicateKind { first } => write!(
                f,
                "the kind is already constrained by entries[{first}] (kinds compare case-insensitively)"
            ),
        }
    }
}

/// Which guard a [`CtxpackError::TableTooLarge`] hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableLimit {
    /// The table's bytes (`max_table_bytes`).
    Bytes,
    /// The DP's cells (`max_cells` of the exact count-constrained slice and
    /// of the budget simulation).
    Cells,
    /// The bytes this platform can address (`usize`: 4 GiB on wasm32), which
    /// no option raises: the limit when a raised `max_table_bytes` allows
    /// more than that.
    Addressable,
}

impl TableLimit {
    /// The limit's unit and the builder option that raises it.
    pub const fn unit_and_option(self) -> (&'static str, &'static str) {
        match self {
            TableLimit::Bytes => ("bytes", "max_table_bytes"),
            TableLimit::Cells => ("cells", "max_cells"),
            TableLimit::Addressable => ("bytes", ""),
        }
    }
}

impl CtxpackError {
    /// The same error; a [`TableTooLarge`](Self::TableTooLarge) no longer
    /// advises a larger bucket (the slice chose its coarsest itself).
    pub(crate) fn without_bucket_advice(mut self) -> Self {
        if let Self::TableTooLarge { bucket_helps, .. } = &mut self {
            *bucket_helps = false;
        }
        self
    }

    /// Every stable code [`code`](Self::code) can return, once each.
    ///
    /// ```
    /// use ctxpack_core::CtxpackError;
    /// assert!(CtxpackError::CODES.contains(&"TABLE_TOO_LARGE"));
    /// ```
    pub const CODES: [&'static str; 11] = [
        "INVALID_SCORE",
        "INVALID_BUDGET",
        "INVALID_BUCKET_SIZE",
        "INVALID_COUNT_ENTRY",
        "TABLE_TOO_LARGE",
        "COUNT_REQUIREMENT_SHORTFALL",
        "COUNT_REQUIREMENT_OVER_BUDGET",
        "NOT_MONOTONIC",
        "INVALID_OPTION",
        "INVALID_FIELD",
        "INVALID_INPUT",
    ];

    /// The stable machine-readable code of this error.
    ///
    /// ```
    /// use ctxpack_core::KnapsackSlice;
    /// assert_eq!(KnapsackSlice::new(0).unwrap_err().code(), "INVALID_BUCKET_SIZE");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidScore { .. } => "INVALID_SCORE",
            Self::InvalidBudget { .. } => "INVALID_BUDGET",
            Self::InvalidBucketSize { .. } | Self::BucketSizeNotInteger { .. } => {
                "INVALID_BUCKET_SIZE"
            }
            Self::InvalidCountEntry { .. } | Self::CountEntryShape { .. } => "INVALID_COUNT_ENTRY",
            Self::TableTooLarge { .. } => "TABLE_TOO_LARGE",
            Self::CountRequirementShortfall { .. } => "COUNT_REQUIREMENT_SHORTFALL",
            Self::CountRequirementOverBudget { .. } => "COUNT_REQUIREMENT_OVER_BUDGET",
            Self::NotMonotonic { .. } => "NOT_MONOTONIC",
            Self::InvalidOption { .. } | Self::CountedKindInGroup { .. } => "INVALID_OPTION",
            Self::InvalidField { .. } | Self::SelfDependency { .. } => "INVALID_FIELD",
            Self::InvalidInput { .. } | Self::Unreadable { .. } => "INVALID_INPUT",
        }
    }
}

impl CtxpackError {
    /// The input field the error is about, when there is one; for
    /// [`TableTooLarge`](Self::TableTooLarge), the builder option that raises
    /// the limit it hit (`max_table_bytes`, `max_cells`).
    ///
    /// ```
    /// use ctxpack_core::{Budget, CtxpackError, Item, KnapsackSlice, Slicer};
    /// let e = CtxpackError::InvalidScore { index: 3, value: f64::NAN };
    /// assert_eq!((e.field(), e.index()), (Some("score"), Some(3)));
    /// let items = vec![Item::new(1, 0.5); 10_000];
    /// let big = KnapsackSlice::new(1)?.with_max_table_bytes(1024).slice(&items, &Budget::new(10_000));
    /// assert_eq!(big.unwrap_err().field(), Some("max_table_bytes"));
    /// # Ok::<(), CtxpackError>(())
    /// ```
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::InvalidScore { .. } => Some("score"),
            Self::InvalidBudget { field, .. } | Self::Unreadable { field, .. } => Some(field),
            Self::SelfDependency { field, .. } => Some(field),
            Self::InvalidBucketSize { .. } | Self::BucketSizeNotInteger { .. } => {
                Some("bucket_size")
            }
            Self::InvalidCountEntry { .. }
            | Self::CountEntryShape { .. }
            | Self::CountRequirementShortfall { .. } => Some("entries"),
            Self::NotMonotonic { .. } => Some("slicer"),
            // The builder option that raises the limit (none past the address space).
            Self::TableTooLarge { unit, .. } => match unit.unit_and_option().1 {
                "" => None,
                option => Some(option),
            },
            Self::CountedKindInGroup { .. } => Some("group"),
            Self::InvalidOption { option, .. } if !option.is_empty() => Some(option),
            Self::InvalidField { field, .. } if !field.is_empty() => Some(field),
            _ => None,
        }
    }

    /// Whether [`index`](Self::index) names an item of the input (and the
    /// message starts `items[index]`), rather than a count entry.
    pub fn names_item(&self) -> bool {
        matches!(
            self,
            Self::InvalidScore { .. }
                | Self::InvalidField { index: Some(_), .. }
                | Self::CountedKindInGroup { .. }
                | Self::SelfDependency { .. }
                | Self::Unreadable { .. }
        )
    }

    /// The index of the item or entry the error is about, when there is one.
    pub fn index(&self) -> Option<usize> {
        match self {
            Self::InvalidScore { index, .. }
            | Self::InvalidCountEntry { index, .. }
            | Self::CountRequirementShortfall { index, .. }
            | Self::CountedKindInGroup { index, .. }
            | Self::SelfDependency { index, .. }
            | Self::Unreadable { index, .. } => Some(*index),
            Self::InvalidField { index, .. } | Self::CountEntryShape { index, .. } => *index,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CtxpackError, ErrorReason};

    #[test]
    fn every_variant_has_a_listed_code() {
        let text = || String::from("x");
        let all = [
            CtxpackError::InvalidScore {
                index: 0,
                value: 0.0,
            },
            CtxpackError::InvalidBudget {
                field: "f",
                reason: ErrorReason::Required,
            },
            CtxpackError::InvalidBucketSize { value: 0 },
            CtxpackError::BucketSizeNotInteger { got: text() },
            CtxpackError::InvalidCountEntry {
                index: 0,
                kind: text(),
                problem: super::CountEntryProblem::DuplicateKind { first: 0 },
            },
            CtxpackError::CountEntryShape {
                index: None,
                member: text(),
                reason: ErrorReason::Required,
            },
            CtxpackError::TableTooLarge {
                candidates: 0,
                capacity: 0,
                cells: 0,
                bytes: 0,
                limit: 0,
                unit: super::TableLimit::Bytes,
                bucket_helps: true,
            },
            CtxpackError::CountRequirementShortfall {
                index: 0,
                kind: text(),
                satisfied: 0,
                required: 1,
            },
            CtxpackError::CountRequirementOverBudget {
                required_tokens: 1,
                target_tokens: 0,
                bucket_size: 1,
            },
            CtxpackError::NotMonotonic { slicer: text() },
            CtxpackError::InvalidOption {
                option: text(),
                reason: ErrorReason::Required,
            },
            CtxpackError::InvalidField {
                field: text(),
                index: None,
                reason: ErrorReason::Required,
            },
            CtxpackError::CountedKindInGroup {
                index: 0,
                members: 2,
            },
            CtxpackError::Unreadable {
                field: "kind",
                index: 0,
            },
            CtxpackError::SelfDependency {
                index: 0,
                dependency: 0,
                field: text(),
            },
            CtxpackError::InvalidInput {
                reason: ErrorReason::Required,
            },
        ];
        let mut codes: Vec<&str> = all.iter().map(CtxpackError::code).collect();
        codes.sort_unstable();
        codes.dedup();
        let mut listed = CtxpackError::CODES.to_vec();
        listed.sort_unstable();
        assert_eq!(codes, listed);
    }
}
