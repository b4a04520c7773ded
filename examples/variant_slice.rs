//! Slices instances read from standard input with shorter versions of the
//! items (`Variants::slice`) and prints what it selects, and in which
//! version. The package's agreement test
//! (`pkg/test/variants-agreement.test.mjs`) runs it beside the npm package
//! on the same random instances: optimality against brute force is checked
//! once, in Rust (`tests/variants.rs`).
//!
//! Input, per instance: a line `strategy mode target n`, then `n` lines
//! `tokens score label deps versions` (`label`, `deps` and `versions` are
//! `-` when absent; `deps` is comma-separated indexes, `versions`
//! comma-separated `tokens:score`). Strategies: `greedy`, `packer` (skip
//! limit 2), `knapsack` (bucket 1), `knapsack-100`, `exact`, and
//! `count-knapsack` (which refuses versions). Output, one line per
//! instance: `ok selected|codes|versions|repaired` (`versions`: per item
//! the version selected, 0 the item itself, `x` none) or `err code field`.
use std::io::{self, BufRead, Write};

use ctxpack::{
    Budget, CountConstrainedKnapsackSlice, DependencyMode, ExactKnapsackSlice, GreedyPacker,
    GroupedStrategy, Groups, Item, KnapsackSlice, ScarcityBehavior, Variants,
};

fn strategy(name: &str) -> GroupedStrategy {
    match name {
        "greedy" => GroupedStrategy::Greedy,
        "packer" => GroupedStrategy::Packer(GreedyPacker::new(2)),
        "knapsack" => GroupedStrategy::Knapsack(KnapsackSlice::new(1).expect("bucket 1")),
        "knapsack-100" => GroupedStrategy::Knapsack(KnapsackSlice::default()),
        "exact" => GroupedStrategy::Exact(ExactKnapsackSlice::new()),
        "count-knapsack" => GroupedStrategy::CountKnapsack(
            CountConstrainedKnapsackSlice::new(
                Vec::new(),
                KnapsackSlice::new(1).expect("bucket 1"),
                ScarcityBehavior::Degrade,
            )
            .expect("no entries"),
        ),
        other => panic!("unknown strategy {other}"),
    }
}

/// One instance's item lines: the items, their groups and dependencies,
/// their versions.
fn read(
    lines: &mut impl Iterator<Item = String>,
    n: usize,
) -> (Vec<Item<'static>>, Groups, Variants) {
    let mut items = Vec::with_capacity(n);
    let mut labels = Vec::with_capacity(n);
    let mut deps = Vec::with_capacity(n);
    let mut versions = Vec::with_capacity(n);
    for _ in 0..n {
        let line = lines.next().expect("item line");
        let f: Vec<&str> = line.split_whitespace().collect();
        items.push(Item::new(
            f[0].parse().expect("tokens"),
            f[1].parse().expect("score"),
        ));
        labels.push((f[2] != "-").then(|| f[2].to_owned()));
        let list = |s: &str| -> Vec<String> {
            if s == "-" {
                Vec::new()
            } else {
                s.split(',').map(str::to_owned).collect()
            }
        };
        deps.push(
            list(f[3])
                .iter()
                .map(|d| d.parse().expect("dep"))
                .collect::<Vec<usize>>(),
        );
        versions.push(
            list(f[4])
                .iter()
                .map(|v| {
                    let (t, s) = v.split_once(':').expect("tokens:score");
                    (
                        t.parse::<i64>().expect("tokens"),
                        s.parse::<f64>().expect("score"),
                    )
                })
                .collect::<Vec<_>>(),
        );
    }
    let mut groups = Groups::from_labels(labels);
    for (i, d) in deps.into_iter().enumerate() {
        groups = groups.depends_on(i, d).expect("valid dependencies");
    }
    let mut variants = Variants::new(n);
    for (i, vs) in versions.into_iter().enumerate() {
        for (t, s) in vs {
            variants = variants.add(i, t, s).expect("valid version");
        }
    }
    (items, groups, variants)
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
        let (items, groups, variants) = read(&mut lines, n.parse().expect("n"));
        let mode = if mode == "require" {
            DependencyMode::Require
        } else {
            DependencyMode::Ignore
        };
        let budget = Budget::new(target.parse().expect("target"));
        match variants.slice(&strategy(name), &items, &groups.with_mode(mode), &budget) {
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
                let versions = join(
                    s.version
                        .iter()
                        .map(|v| v.map_or("x".to_owned(), |v| v.to_string()))
                        .collect(),
                );
                let repaired = match s.repaired {
                    None => "-",
                    Some(true) => "1",
                    Some(false) => "0",
                };
                writeln!(out, "ok {selected}|{codes}|{versions}|{repaired}").expect("stdout");
            }
            Err(e) => {
                writeln!(out, "err {} {}", e.code(), e.field().unwrap_or("-")).expect("stdout");
            }
        }
    }
}
