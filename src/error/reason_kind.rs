//! The stable names of the [`ErrorReason`] kinds (what the wasm boundary
//! sends as `reasonKind`), and a sample of each for the tests that check
//! every binding writes each kind's sentence.

use super::ErrorReason;

impl ErrorReason {
    /// Every kind [`kind`](Self::kind) can return, once each.
    ///
    /// ```
    /// use ctxpack_core::ErrorReason;
    /// assert!(ErrorReason::KINDS.contains(&ErrorReason::Required.kind()));
    /// ```
    pub const KINDS: [&'static str; 35] = [
        "required",
        "unreadable",
        "unknown",
        "expected",
        "range",
        "atLeast",
        "atMost",
        "below",
        "indexOfAnother",
        "outOfRange",
        "notSupported",
        "bytes",
        "notIncreasing",
        "kindId",
        "groupTokens",
        "sumPast",
        "tooManyOptions",
        "keptPosition",
        "noOpensUser",
        "indexOutOfRange",
        "describes",
        "lengths",
        "entries",
        "perItem",
        "depOffsets",
        "textEnd",
        "statsTruncated",
        "statsMatch",
        "vectorLength",
        "notFinite",
        "scoresPerText",
        "score",
        "oneOf",
        "takes",
        "phrase",
    ];

    /// The reason's stable kind, in camelCase (the npm package's
    /// `reasonKind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::Unreadable => "unreadable",
            Self::Unknown { .. } => "unknown",
            Self::Expected { .. } => "expected",
            Self::Range { .. } => "range",
            Self::AtLeast { .. } => "atLeast",
            Self::AtMost { .. } => "atMost",
            Self::Below { .. } => "below",
            Self::IndexOfAnother { .. } => "indexOfAnother",
            Self::OutOfRange { .. } => "outOfRange",
            Self::NotSupported { .. } => "notSupported",
            Self::Bytes { .. } => "bytes",
            Self::NotIncreasing { .. } => "notIncreasing",
            Self::KindId { .. } => "kindId",
            Self::GroupTokens { .. } => "groupTokens",
            Self::SumPast { .. } => "sumPast",
            Self::TooManyOptions { .. } => "tooManyOptions",
            Self::KeptPosition { .. } => "keptPosition",
            Self::NoOpensUser { .. } => "noOpensUser",
            Self::IndexOutOfRange { .. } => "indexOutOfRange",
            Self::Describes { .. } => "describes",
            Self::Lengths { .. } => "lengths",
            Self::Entries { .. } => "entries",
            Self::PerItem { .. } => "perItem",
            Self::DepOffsets { .. } => "depOffsets",
            Self::TextEnd { .. } => "textEnd",
            Self::StatsTruncated { .. } => "statsTruncated",
            Self::StatsMatch { .. } => "statsMatch",
            Self::VectorLength { .. } => "vectorLength",
            Self::NotFinite { .. } => "notFinite",
            Self::ScoresPerText { .. } => "scoresPerText",
            Self::Score { .. } => "score",
            Self::OneOf { .. } => "oneOf",
            Self::Takes { .. } => "takes",
            Self::Phrase(_) => "phrase",
        }
    }

    /// Samples of every kind, each of its forms (a value given or not, the
    /// bounds named or not), for the tests that compare each binding's
    /// sentence with `Display`'s.
    #[doc(hidden)]
    #[allow(clippy::too_many_lines)] // one sample per form
    pub fn samples() -> Vec<ErrorReason> {
        use ErrorReason as R;
        vec![
            R::Required,
            R::Unreadable,
            R::Unknown {
                what: "a known option",
                known: vec!["targetTokens", "maxTokens"],
            },
            R::Expected {
                expected: "a string".into(),
                got: Some("a number".into()),
            },
            R::Expected {
                expected: "'degrade' or 'throw'".into(),
                got: None,
            },
            R::Range {
                what: "an integer",
                min: 0.0,
                max: 9_007_199_254_740_991.0,
                max_by_name: true,
                got: Some("-1".into()),
            },
            R::Range {
                what: "a whole number",
                min: 1.0,
                max: 9_007_199_254_740_991.0,
                max_by_name: false,
                got: None,
            },
            R::AtLeast {
                than: Some("targetTokens"),
                min: 100,
                got: 50,
            },
            R::AtLeast {
                than: None,
                min: 0,
                got: -3,
            },
            R::AtMost {
                than: "the item's value",
                max: 0.5,
                got: 0.75,
            },
            R::Below {
                what: "a unit id",
                limit: 4,
                got: 9,
            },
            R::IndexOfAnother { got: 12, len: 5 },
            R::OutOfRange { len: 5 },
            R::NotSupported {
                what: "'require'",
                plural: false,
                by: "budget simulation (only groups are)",
            },
            R::NotSupported {
                what: "(alternative versions of items)",
                plural: true,
                by: "the count-constrained strategies",
            },
            R::Bytes {
                want: 16,
                got: 3,
                at_least: true,
            },
            R::Bytes {
                want: 16,
                got: 32,
                at_least: false,
            },
            R::NotIncreasing { got: 3, after: 7 },
            R::KindId {
                id: 4,
                kind_names: 2,
            },
            R::GroupTokens {
                members: 3,
                tokens: Some(5_000_000_000),
                limit: 4_294_967_295,
            },
            R::GroupTokens {
                members: 3,
                tokens: None,
                limit: 4_294_967_295,
            },
            R::SumPast {
                limit: 4_294_967_295,
            },
            R::TooManyOptions { max: 4096 },
            R::KeptPosition { position: 8 },
            R::NoOpensUser {
                unit_id: 6,
                flags: 2,
            },
            R::IndexOutOfRange {
                what: "seed",
                at: 9,
                len: 3,
            },
            R::Describes {
                what: "groups",
                describes: 4,
                got: 5,
            },
            R::Lengths {
                what: "tokens, scores and kinds",
                must: "have the same length",
                lengths: [1, 2, 3],
            },
            R::Entries {
                what: "positions",
                want: 4,
                got: 3,
            },
            R::PerItem {
                what: "groupOf",
                or_empty: true,
                got: 2,
                items: 3,
            },
            R::PerItem {
                what: "pinned",
                or_empty: false,
                got: 2,
                items: 3,
            },
            R::DepOffsets {
                want: 4,
                targets: 2,
            },
            R::TextEnd {
                text: 1,
                end: 3,
                from: 5,
                len: 10,
            },
            R::StatsTruncated { text: 2, len: 7 },
            R::StatsMatch {
                text: 1,
                entry: 2,
                terms: 5,
                term: 7,
                count: 1,
            },
            R::VectorLength { dim: 3, got: 7 },
            R::NotFinite {
                vector: None,
                number: 2,
            },
            R::NotFinite {
                vector: Some(1),
                number: 2,
            },
            R::ScoresPerText {
                lexical: 2,
                caller: 3,
                texts: 4,
            },
            R::Score {
                list: "lexical",
                at: 1,
            },
            R::OneOf {
                what: "slicer",
                names: vec!["greedy", "knapsack"],
                length: 5,
            },
            R::Takes {
                what: "sliceNumeric",
                expected: "'greedy' or 'packer'",
                got: "a string".into(),
            },
            R::Phrase("has a second stub"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorReason;

    #[test]
    fn every_kind_is_listed_once_and_sampled() {
        let mut sampled: Vec<&str> = ErrorReason::samples()
            .iter()
            .map(ErrorReason::kind)
            .collect();
        sampled.sort_unstable();
        sampled.dedup();
        let mut listed = ErrorReason::KINDS.to_vec();
        listed.sort_unstable();
        let before = listed.len();
        listed.dedup();
        assert_eq!(listed.len(), before, "a kind listed twice");
        assert_eq!(sampled, listed);
    }
}
