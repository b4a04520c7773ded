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

    /// The sentences, frozen: the package's test checks its own against
    /// these (`errorReasonSamples()`), and each is in the shape of a message
    /// the crate wrote before reasons were structured (issue 26).
    #[test]
    fn every_sample_reads_as_the_crate_always_wrote_it() {
        let text: Vec<String> = ErrorReason::samples()
            .iter()
            .map(ToString::to_string)
            .collect();
        let want = [
            "is required",
            "could not be read",
            "is not a known option (known: targetTokens, maxTokens)",
            "must be a string, got a number",
            "must be 'degrade' or 'throw'",
            "must be an integer from 0 to 2^53 - 1, got -1",
            "must be a whole number from 1 to 9007199254740991",
            "must be at least targetTokens (100), got 50",
            "must be at least 0, got -3",
            "must be at most the item's value (0.5), got 0.75",
            "must be a unit id below 4, got 9",
            "must be the index of another item, got 12 (there are 5 items)",
            "is out of range: there are 5 items",
            "'require' is not supported by budget simulation (only groups are)",
            "(alternative versions of items) are not supported by the count-constrained strategies",
            "must hold at least 16 bytes, got 3 bytes",
            "must derive a key of 16 bytes, got 32 bytes",
            "must increase strictly, got 3 after 7",
            "is kind id 4, but there are 2 kind names",
            "is in a group of 3 items totalling 5000000000 tokens, over 4294967295",
            "is in a group of 3 items totalling more than 4294967295 tokens",
            "tokens sum past 4294967295",
            "the group's combinations of versions keep more than 4096 options",
            "position 8 is also an item's",
            "unit 6 has no opens-user flag (there are 2)",
            "seed 9 is out of range for 3 items",
            "the groups describe 4 items, got 5 items",
            "tokens, scores and kinds must have the same length, got 1, 2 and 3",
            "positions must have 4 entries, got 3",
            "groupOf must be empty or have one entry per item, got 2 for 3 items",
            "pinned must have one entry per item, got 2 for 3 items",
            "depOffsets must be empty or 4 non-decreasing offsets from 0 to depTargets.length (2)",
            "texts[1]: ends[1] = 3 must be at least 5, at most 10 and end a UTF-8 text",
            "stats end inside text 2: each text is its length, its number of matches m, then m (term, count) pairs; got 7 numbers",
            "stats[1] match 2: term numbers must be strictly ascending and below terms = 5, counts above 0; got term 7, count 1",
            "the texts' vectors must be whole vectors of the query vector's length (3, at least 1), got 7 numbers",
            "the query vector's number 2 must be finite",
            "vector 1's number 2 must be finite",
            "lexical (2) and caller (3) scores must be one per text (4)",
            "lexical score 1 must be a finite number of at least 0",
            "slicer must be one of 'greedy', 'knapsack', got a string of length 5",
            "sliceNumeric takes 'greedy' or 'packer', got a string",
            "has a second stub",
        ];
        assert_eq!(text, want);
    }
}
