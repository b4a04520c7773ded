//! Why a budget, an option, a field or an input was refused
//! ([`ErrorReason`]): the shapes the crate's refusals take, their values as
//! fields, so that each binding writes the sentence itself (the npm package
//! in `pkg/src/error-text.ts`) and nobody parses a message.

use std::borrow::Cow;
use std::fmt;

use super::js_number;

/// The largest integer a JS number holds exactly (written `2^53 - 1`).
const SAFE: f64 = 9_007_199_254_740_991.0;

/// Why a budget, an option, a field or an input was refused: the reason of
/// [`CtxpackError::InvalidBudget`](super::CtxpackError::InvalidBudget),
/// [`InvalidOption`](super::CtxpackError::InvalidOption),
/// [`InvalidField`](super::CtxpackError::InvalidField),
/// [`InvalidInput`](super::CtxpackError::InvalidInput) and
/// [`CountEntryShape`](super::CtxpackError::CountEntryShape).
///
/// Its `Display` is the sentence's tail after the subject the error names
/// (`must be a string, got a number` after `items[3].id`); under
/// `InvalidInput`, which names no subject, the whole sentence. Values
/// (numbers, lengths, a value described as `a string` or `missing`) are
/// fields; the fixed phrases are `&'static str`. No reason carries a
/// caller's string content.
///
/// ```
/// use ctxpack_core::{Budget, CtxpackError, ErrorReason};
///
/// let err = Budget::with_max(100, 50).unwrap_err();
/// let CtxpackError::InvalidBudget { reason, .. } = &err else { panic!("{err}") };
/// assert_eq!(reason, &ErrorReason::AtLeast { than: Some("target_tokens"), min: 100, got: 50 });
/// assert_eq!(reason.kind(), "atLeast");
/// assert_eq!(err.to_string(), "budget.max_tokens must be at least target_tokens (100), got 50");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorReason {
    /// `is required`.
    Required,
    /// `could not be read` (a getter or a Proxy trap threw).
    Unreadable,
    /// `is not {what} (known: {known})`: a key the object does not take.
    Unknown {
        /// What the key is not (`a known option`).
        what: &'static str,
        /// The keys it takes.
        known: Vec<&'static str>,
    },
    /// `must be {expected}`, then `, got {got}` when the value is given.
    Expected {
        /// What the field takes (`a string`, `'degrade' or 'throw'`).
        expected: Cow<'static, str>,
        /// The value, described (`a number`, `missing`, a number as JS
        /// prints it).
        got: Option<String>,
    },
    /// `must be {what} from {min} to {max}`, then `, got {got}` when the
    /// value is given.
    Range {
        /// What the field takes (`an integer`, `a whole number`).
        what: &'static str,
        /// The least value.
        min: f64,
        /// The largest value.
        max: f64,
        /// Whether a `max` of 2^53 − 1 is written `2^53 - 1` (else as a
        /// number, `9007199254740991`).
        max_by_name: bool,
        /// The value, described.
        got: Option<String>,
    },
    /// `must be at least {min}, got {got}`, or `must be at least {than}
    /// ({min}), got {got}`.
    AtLeast {
        /// What sets the least value (`target_tokens`).
        than: Option<&'static str>,
        /// The least value.
        min: i64,
        /// The value.
        got: i64,
    },
    /// `must be at most {than} ({max}), got {got}`.
    AtMost {
        /// What sets the largest value (`the item's value`).
        than: &'static str,
        /// The largest value.
        max: f64,
        /// The value.
        got: f64,
    },
    /// `must be {what} below {limit}, got {got}`.
    Below {
        /// What the field takes (`a unit id`).
        what: &'static str,
        /// The bound, excluded.
        limit: usize,
        /// The value.
        got: u64,
    },
    /// `must be the index of another item, got {got} (there are {len}
    /// items)`.
    IndexOfAnother {
        /// The index given.
        got: usize,
        /// How many items there are.
        len: usize,
    },
    /// `is out of range: there are {len} items`.
    OutOfRange {
        /// How many items there are.
        len: usize,
    },
    /// `{what} is not supported by {by}` (`are` when `plural`).
    NotSupported {
        /// What is not supported (`'require'`).
        what: &'static str,
        /// Whether `what` is plural.
        plural: bool,
        /// What does not support it (`budget simulation (only groups are)`).
        by: &'static str,
    },
    /// `must hold at least {want} bytes, got {got} bytes`, or `must derive
    /// a key of {want} bytes, got {got} bytes`.
    Bytes {
        /// The bytes wanted.
        want: usize,
        /// The bytes given.
        got: usize,
        /// Whether `want` is a least size (a secret) rather than an exact
        /// one (a derived key).
        at_least: bool,
    },
    /// `must increase strictly, got {got} after {after}`.
    NotIncreasing {
        /// The value.
        got: u64,
        /// The value before it.
        after: u64,
    },
    /// `is kind id {id}, but there are {kind_names} kind names`.
    KindId {
        /// The kind id.
        id: u64,
        /// How many kind names there are.
        kind_names: usize,
    },
    /// `is in a group of {members} items totalling {tokens} tokens, over
    /// {limit}`, or (`tokens: None`) `… totalling more than {limit} tokens`.
    GroupTokens {
        /// How many items the group holds.
        members: usize,
        /// The group's tokens; `None` when they overflow `limit`.
        tokens: Option<i64>,
        /// The most tokens a group may hold.
        limit: i64,
    },
    /// `tokens sum past {limit}`.
    SumPast {
        /// The most tokens the sum may reach.
        limit: i64,
    },
    /// `the group's combinations of versions keep more than {max} options`.
    TooManyOptions {
        /// The most options a group may keep.
        max: usize,
    },
    /// `position {position} is also an item's`.
    KeptPosition {
        /// The position.
        position: u64,
    },
    /// `unit {unit_id} has no opens-user flag (there are {flags})`.
    NoOpensUser {
        /// The unit.
        unit_id: u64,
        /// How many flags there are.
        flags: usize,
    },
    /// `{what} {at} is out of range for {len} items`.
    IndexOutOfRange {
        /// What the index names (`seed`, `index`).
        what: &'static str,
        /// The index.
        at: usize,
        /// How many items there are.
        len: usize,
    },
    /// `the {what} describe {describes} items, got {got} items`.
    Describes {
        /// What describes the items (`groups`, `variants`).
        what: &'static str,
        /// How many items they describe.
        describes: usize,
        /// How many items were given.
        got: usize,
    },
    /// `{what} must {must}, got {a}, {b} and {c}`: columns of unequal
    /// lengths.
    Lengths {
        /// The columns (`tokens, scores and kinds`).
        what: &'static str,
        /// What they must have (`have the same length`).
        must: &'static str,
        /// Their lengths.
        lengths: [usize; 3],
    },
    /// `{what} must have {want} entries, got {got}`.
    Entries {
        /// The list.
        what: &'static str,
        /// The entries it must have.
        want: usize,
        /// The entries it has.
        got: usize,
    },
    /// `{what} must have one entry per item, got {got} for {items} items`
    /// (`must be empty or have one entry…` when `or_empty`).
    PerItem {
        /// The list.
        what: &'static str,
        /// Whether an empty list is taken too.
        or_empty: bool,
        /// The entries it has.
        got: usize,
        /// How many items there are.
        items: usize,
    },
    /// `depOffsets must be empty or {want} non-decreasing offsets from 0 to
    /// depTargets.length ({targets})`.
    DepOffsets {
        /// The offsets wanted (items + 1).
        want: usize,
        /// `depTargets.length`.
        targets: usize,
    },
    /// `texts[{text}]: ends[{text}] = {end} must be at least {from}, at
    /// most {len} and end a UTF-8 text`.
    TextEnd {
        /// The text.
        text: usize,
        /// Its end.
        end: usize,
        /// The previous text's end.
        from: usize,
        /// The bytes' length.
        len: usize,
    },
    /// `stats end inside text {text}: each text is its length, its number of
    /// matches m, then m (term, count) pairs; got {len} numbers`.
    StatsTruncated {
        /// The text.
        text: usize,
        /// How many numbers were given.
        len: usize,
    },
    /// `stats[{text}] match {entry}: term numbers must be strictly
    /// ascending and below terms = {terms}, counts above 0; got term
    /// {term}, count {count}`.
    StatsMatch {
        /// The text.
        text: usize,
        /// The match.
        entry: usize,
        /// How many terms there are.
        terms: usize,
        /// The match's term.
        term: usize,
        /// The match's count.
        count: u64,
    },
    /// `the texts' vectors must be whole vectors of the query vector's
    /// length ({dim}, at least 1), got {got} numbers`.
    VectorLength {
        /// The query vector's length.
        dim: usize,
        /// How many numbers the texts' vectors hold.
        got: usize,
    },
    /// `the query vector's number {number} must be finite`, or `vector
    /// {vector}'s number {number} must be finite`.
    NotFinite {
        /// The text's vector; `None`: the query's.
        vector: Option<usize>,
        /// The number's position in its vector.
        number: usize,
    },
    /// `lexical ({lexical}) and caller ({caller}) scores must be one per
    /// text ({texts})`.
    ScoresPerText {
        /// How many lexical scores.
        lexical: usize,
        /// How many caller scores.
        caller: usize,
        /// How many texts.
        texts: usize,
    },
    /// `{list} score {at} must be a finite number of at least 0`.
    Score {
        /// The list (`lexical`, `caller`).
        list: &'static str,
        /// The score's position.
        at: usize,
    },
    /// `{what} must be one of {names}, got a string of length {length}`:
    /// a name outside a list (the name described, never shown).
    OneOf {
        /// What the name names (`slicer`).
        what: &'static str,
        /// The names taken.
        names: Vec<&'static str>,
        /// The name's length in UTF-16 code units.
        length: usize,
    },
    /// `{what} takes {expected}, got {got}`.
    Takes {
        /// What takes it (`sliceNumeric`).
        what: &'static str,
        /// What it takes.
        expected: &'static str,
        /// What it got, described.
        got: String,
    },
    /// A fixed phrase with no values (`has a second stub`, `items must be
    /// an array`); what `"…".into()` makes.
    Phrase(&'static str),
}

impl From<&'static str> for ErrorReason {
    fn from(phrase: &'static str) -> Self {
        ErrorReason::Phrase(phrase)
    }
}

/// `, got {got}` when there is a value.
fn got(f: &mut fmt::Formatter<'_>, got: Option<&String>) -> fmt::Result {
    match got {
        Some(got) => write!(f, ", got {got}"),
        None => Ok(()),
    }
}

impl fmt::Display for ErrorReason {
    #[allow(clippy::too_many_lines)] // one arm per kind
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Required => f.write_str("is required"),
            Self::Unreadable => f.write_str("could not be read"),
            Self::Unknown { what, known } => {
                write!(f, "is not {what} (known: {})", known.join(", "))
            }
            Self::Expected { expected, got: g } => {
                write!(f, "must be {expected}")?;
                got(f, g.as_ref())
            }
            Self::Range {
                what,
                min,
                max,
                max_by_name,
                got: g,
            } => {
                let max = if *max_by_name && *max == SAFE {
                    "2^53 - 1".into()
                } else {
                    js_number(*max)
                };
                write!(f, "must be {what} from {} to {max}", js_number(*min))?;
                got(f, g.as_ref())
            }
            Self::AtLeast {
                than: Some(than),
                min,
                got,
            } => write!(f, "must be at least {than} ({min}), got {got}"),
            Self::AtLeast {
                than: None,
                min,
                got,
            } => write!(f, "must be at least {min}, got {got}"),
            Self::AtMost { than, max, got } => write!(
                f,
                "must be at most {than} ({}), got {}",
                js_number(*max),
                js_number(*got)
            ),
            Self::Below { what, limit, got } => {
                write!(f, "must be {what} below {limit}, got {got}")
            }
            Self::IndexOfAnother { got, len } => write!(
                f,
                "must be the index of another item, got {got} (there are {len} items)"
            ),
            Self::OutOfRange { len } => write!(f, "is out of range: there are {len} items"),
            Self::NotSupported { what, plural, by } => {
                let verb = if *plural { "are" } else { "is" };
                write!(f, "{what} {verb} not supported by {by}")
            }
            Self::Bytes {
                want,
                got,
                at_least: true,
            } => write!(f, "must hold at least {want} bytes, got {got} bytes"),
            Self::Bytes { want, got, .. } => {
                write!(f, "must derive a key of {want} bytes, got {got} bytes")
            }
            Self::NotIncreasing { got, after } => {
                write!(f, "must increase strictly, got {got} after {after}")
            }
            Self::KindId { id, kind_names } => {
                write!(f, "is kind id {id}, but there are {kind_names} kind names")
            }
            Self::GroupTokens {
                members,
                tokens: Some(tokens),
                limit,
            } => write!(
                f,
                "is in a group of {members} items totalling {tokens} tokens, over {limit}"
            ),
            Self::GroupTokens {
                members, limit, ..
            } => write!(
                f,
                "is in a group of {members} items totalling more than {limit} tokens"
            ),
            Self::SumPast { limit } => write!(f, "tokens sum past {limit}"),
            Self::TooManyOptions { max } => write!(
                f,
                "the group's combinations of versions keep more than {max} options"
            ),
            Self::KeptPosition { position } => write!(f, "position {position} is also an item's"),
            Self::NoOpensUser { unit_id, flags } => {
                write!(f, "unit {unit_id} has no opens-user flag (there are {flags})")
            }
            Self::IndexOutOfRange { what, at, len } => {
                write!(f, "{what} {at} is out of range for {len} items")
            }
            Self::Describes {
                what,
                describes,
                got,
            } => write!(f, "the {what} describe {describes} items, got {got} items"),
            Self::Lengths {
                what,
                must,
                lengths: [a, b, c],
            } => write!(f, "{what} must {must}, got {a}, {b} and {c}"),
            Self::Entries { what, want, got } => {
                write!(f, "{what} must have {want} entries, got {got}")
            }
            Self::PerItem {
                what,
                or_empty,
                got,
                items,
            } => {
                let or_empty = if *or_empty { "be empty or " } else { "" };
                write!(
                    f,
                    "{what} must {or_empty}have one entry per item, got {got} for {items} items"
                )
            }
            Self::DepOffsets { want, targets } => write!(
                f,
                "depOffsets must be empty or {want} non-decreasing offsets from 0 to depTargets.length ({targets})"
            ),
            Self::TextEnd {
                text,
                end,
                from,
                len,
            } => write!(
                f,
                "texts[{text}]: ends[{text}] = {end} must be at least {from}, at most {len} and end a UTF-8 text"
            ),
            Self::StatsTruncated { text, len } => write!(
                f,
                "stats end inside text {text}: each text is its length, its number of matches m, then m (term, count) pairs; got {len} numbers"
            ),
            Self::StatsMatch {
                text,
                entry,
                terms,
                term,
                count,
            } => write!(
                f,
                "stats[{text}] match {entry}: term numbers must be strictly ascending and below terms = {terms}, counts above 0; got term {term}, count {count}"
            ),
            Self::VectorLength { dim, got } => write!(
                f,
                "the texts' vectors must be whole vectors of the query vector's length ({dim}, at least 1), got {got} numbers"
            ),
            Self::NotFinite {
                vector: None,
                number,
            } => write!(f, "the query vector's number {number} must be finite"),
            Self::NotFinite {
                vector: Some(vector),
                number,
            } => write!(f, "vector {vector}'s number {number} must be finite"),
            Self::ScoresPerText {
                lexical,
                caller,
                texts,
            } => write!(
                f,
                "lexical ({lexical}) and caller ({caller}) scores must be one per text ({texts})"
            ),
            Self::Score { list, at } => {
                write!(f, "{list} score {at} must be a finite number of at least 0")
            }
            Self::OneOf {
                what,
                names,
                length,
            } => {
                let names: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                write!(
                    f,
                    "{what} must be one of {}, got a string of length {length}",
                    names.join(", ")
                )
            }
            Self::Takes {
                what,
                expected,
                got,
            } => write!(f, "{what} takes {expected}, got {got}"),
            Self::Phrase(phrase) => f.write_str(phrase),
        }
    }
}
