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
use ctxpack_core::{Groups, Item, Variants};

mod agreement;

/// One instance's item lines: the items, their groups and dependencies,
/// their versions.
fn read(
    lines: &mut dyn Iterator<Item = String>,
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
        deps.push(agreement::deps(f[3]));
        versions.push(
            agreement::list(f[4])
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
    agreement::serve(|h, lines| {
        let (items, groups, variants) = read(lines, h.n);
        let strategy = agreement::strategy(h.name, &[]);
        match variants.slice(&strategy, &items, &groups.with_mode(h.mode), &h.budget) {
            Ok(s) => {
                let versions: Vec<String> = s
                    .version
                    .iter()
                    .map(|v| v.map_or("x".to_owned(), |v| v.to_string()))
                    .collect();
                format!(
                    "ok {}|{}|{}",
                    agreement::selection(&s.selection),
                    versions.join(","),
                    agreement::repaired(s.repaired)
                )
            }
            Err(e) => agreement::refusal(&e),
        }
    });
}
