//! Slices instances read from standard input with the crate's grouped
//! strategies (`Groups::slice`) and prints what it selects. The package's
//! agreement test (`pkg/test/groups-agreement.test.mjs`) runs it beside the
//! npm package on the same random instances: the brute-force oracles live in
//! `tests/groups.rs`, once; this checks that the package and the crate agree.
//!
//! Input, per instance: a line `strategy mode target n`, then `n` lines
//! `tokens score kind label deps` (`label` and `deps` are `-` when absent;
//! `deps` is comma-separated indexes). Strategies: `greedy`, `packer` (skip
//! limit 2), `knapsack` (bucket 1), `knapsack-100`, `exact`, and
//! `count-knapsack` / `exact-count` with `tool` required 1 and capped at 2.
//! Output, one line per instance: `ok selected|codes|repaired` or
//! `err code field`.
use std::io::{self, BufRead, Write};

use ctxpack::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, DependencyMode,
    ExactCountConstrainedSlice, ExactKnapsackSlice, GreedyPacker, GroupedStrategy, Groups, Item,
    KnapsackSlice, ScarcityBehavior,
};

fn strategy(name: &str) -> GroupedStrategy {
    let tool = || vec![CountQuotaEntry::new("tool", 1, 2)];
    match name {
        "greedy" => GroupedStrategy::Greedy,
        "packer" => GroupedStrategy::Packer(GreedyPacker::new(2)),
        "knapsack" => GroupedStrategy::Knapsack(KnapsackSlice::new(1).expect("bucket 1")),
        "knapsack-100" => GroupedStrategy::Knapsack(KnapsackSlice::default()),
        "exact" => GroupedStrategy::Exact(ExactKnapsackSlice::new()),
        "count-knapsack" => GroupedStrategy::CountKnapsack(
            CountConstrainedKnapsackSlice::new(
                tool(),
                KnapsackSlice::new(1).expect("bucket 1"),
                ScarcityBehavior::Degrade,
            )
            .expect("valid entries"),
        ),
        "exact-count" => GroupedStrategy::ExactCount(
            ExactCountConstrainedSlice::new(tool(), ScarcityBehavior::Degrade)
                .expect("valid entries"),
        ),
        other => panic!("unknown strategy {other}"),
    }
}

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines().map(|l| l.expect("stdin"));
    let mut out = io::BufWriter::new(io::stdout().lock());
    while let Some(head) = lines.next() {
        let head: Vec<&str> = head.split_whitespace().collect();
        let [name, mode, target, n] = head[..] else {
            panic!("bad instance header")
        };
        let n: usize = n.parse().expect("n");
        let mut kinds = Vec::with_capacity(n);
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let line = lines.next().expect("item line");
            let f: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            let tokens: i64 = f[0].parse().expect("tokens");
            let score: f64 = f[1].parse().expect("score");
            kinds.push(f[2].clone());
            let label = (f[3] != "-").then(|| f[3].clone());
            let deps: Vec<usize> = if f[4] == "-" {
                Vec::new()
            } else {
                f[4].split(',').map(|d| d.parse().expect("dep")).collect()
            };
            rows.push((tokens, score, label, deps));
        }
        let items: Vec<Item<'_>> = rows
            .iter()
            .zip(&kinds)
            .map(|((tokens, score, _, _), kind)| Item::new(*tokens, *score).with_kind(kind))
            .collect();
        let mut groups = Groups::from_labels(rows.iter().map(|r| r.2.clone()));
        let mut result = Ok(());
        for (i, r) in rows.iter().enumerate() {
            match groups.clone().depends_on(i, r.3.iter().copied()) {
                Ok(g) => groups = g,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let mode = if mode == "require" {
            DependencyMode::Require
        } else {
            DependencyMode::Ignore
        };
        let sliced = result.and_then(|()| {
            groups.with_mode(mode).slice(
                &strategy(name),
                &items,
                &Budget::new(target.parse().expect("target")),
            )
        });
        match sliced {
            Ok(s) => {
                let join = |v: Vec<String>| v.join(",");
                let selected = join(
                    s.selection
                        .selected
                        .iter()
                        .map(ToString::to_string)
                        .collect(),
                );
                let codes = join(
                    s.selection
                        .decisions
                        .iter()
                        .map(|d| d.code().to_owned())
                        .collect(),
                );
                let repaired = match s.repaired {
                    None => "-",
                    Some(true) => "1",
                    Some(false) => "0",
                };
                writeln!(out, "ok {selected}|{codes}|{repaired}").expect("stdout");
            }
            Err(e) => {
                writeln!(out, "err {} {}", e.code(), e.field().unwrap_or("-")).expect("stdout");
            }
        }
    }
}
