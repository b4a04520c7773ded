//! What the two agreement examples (`grouped_slice`, `variant_slice`)
//! share: the strategy names, the instance line fields and the answer
//! lines that `pkg/test/*-agreement.test.mjs` compare with the package.

use std::io::{self, BufRead, Write};

use ctxpack_core::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError, DependencyMode,
    ExactCountConstrainedSlice, ExactKnapsackSlice, GreedyPacker, GroupedStrategy, KnapsackSlice,
    ScarcityBehavior, Selection,
};

/// The strategy an instance names: `greedy`, `packer` (skip limit 2),
/// `knapsack` (bucket 1), `knapsack-100`, `exact`, and `count-knapsack` /
/// `exact-count` with `entries`.
pub fn strategy(name: &str, entries: &[CountQuotaEntry]) -> GroupedStrategy {
    match name {
        "greedy" => GroupedStrategy::Greedy,
        "packer" => GroupedStrategy::Packer(GreedyPacker::new(2)),
        "knapsack" => GroupedStrategy::Knapsack(KnapsackSlice::new(1).expect("bucket 1")),
        "knapsack-100" => GroupedStrategy::Knapsack(KnapsackSlice::default()),
        "exact" => GroupedStrategy::Exact(ExactKnapsackSlice::new()),
        "count-knapsack" => GroupedStrategy::CountKnapsack(
            CountConstrainedKnapsackSlice::new(
                entries.to_vec(),
                KnapsackSlice::new(1).expect("bucket 1"),
                ScarcityBehavior::Degrade,
            )
            .expect("valid entries"),
        ),
        "exact-count" => GroupedStrategy::ExactCount(
            ExactCountConstrainedSlice::new(entries.to_vec(), ScarcityBehavior::Degrade)
                .expect("valid entries"),
        ),
        other => panic!("unknown strategy {other}"),
    }
}

/// An instance's header line, `strategy mode target n`, read.
pub struct Header<'a> {
    /// The strategy's name ([`strategy`]).
    pub name: &'a str,
    pub mode: DependencyMode,
    pub budget: Budget,
    /// The number of item lines that follow.
    pub n: usize,
}

/// Reads instances from standard input and writes, one line each, what
/// `answer` says of each: it gets the header and reads the `n` item lines.
pub fn serve(mut answer: impl FnMut(&Header<'_>, &mut dyn Iterator<Item = String>) -> String) {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines().map(|l| l.expect("stdin"));
    let mut out = io::BufWriter::new(io::stdout().lock());
    while let Some(head) = lines.next() {
        let f: Vec<&str> = head.split_whitespace().collect();
        let [name, word, target, n] = f[..] else {
            panic!("bad instance header")
        };
        let header = Header {
            name,
            mode: mode(word),
            budget: Budget::new(target.parse().expect("target")),
            n: n.parse().expect("n"),
        };
        let line = answer(&header, &mut lines);
        writeln!(out, "{line}").expect("stdout");
    }
}

/// The header's mode: `require`, else ignore.
fn mode(word: &str) -> DependencyMode {
    if word == "require" {
        DependencyMode::Require
    } else {
        DependencyMode::Ignore
    }
}

/// A comma-separated field, `-` for none.
pub fn list(field: &str) -> Vec<&str> {
    if field == "-" {
        Vec::new()
    } else {
        field.split(',').collect()
    }
}

/// A dependency field: comma-separated item indexes, `-` for none.
pub fn deps(field: &str) -> Vec<usize> {
    list(field)
        .iter()
        .map(|d| d.parse().expect("dep"))
        .collect()
}

/// `selected|codes`: the selected indexes and every item's reason code.
pub fn selection(s: &Selection) -> String {
    let selected: Vec<String> = s.selected.iter().map(ToString::to_string).collect();
    let codes: Vec<&str> = s.decisions.iter().map(|d| d.code()).collect();
    format!("{}|{}", selected.join(","), codes.join(","))
}

/// `repaired` as a field: `-` when not said, `1` or `0`.
pub fn repaired(flag: Option<bool>) -> &'static str {
    match flag {
        None => "-",
        Some(true) => "1",
        Some(false) => "0",
    }
}

/// The answer line of a refusal.
pub fn refusal(e: &CtxpackError) -> String {
    format!("err {} {}", e.code(), e.field().unwrap_or("-"))
}
