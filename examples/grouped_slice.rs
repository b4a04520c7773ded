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
use ctxpack_core::{CountQuotaEntry, Groups, Item};

mod agreement;

fn main() {
    let tool = [CountQuotaEntry::new("tool", 1, 2)];
    agreement::serve(|h, lines| {
        let mut kinds = Vec::with_capacity(h.n);
        let mut rows = Vec::with_capacity(h.n);
        for _ in 0..h.n {
            let line = lines.next().expect("item line");
            let f: Vec<&str> = line.split_whitespace().collect();
            let tokens: i64 = f[0].parse().expect("tokens");
            let score: f64 = f[1].parse().expect("score");
            kinds.push(f[2].to_owned());
            let label = (f[3] != "-").then(|| f[3].to_owned());
            rows.push((tokens, score, label, agreement::deps(f[4])));
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
        let sliced = result.and_then(|()| {
            groups
                .with_mode(h.mode)
                .slice(&agreement::strategy(h.name, &tool), &items, &h.budget)
        });
        match sliced {
            Ok(s) => format!(
                "ok {}|{}",
                agreement::selection(&s.selection),
                agreement::repaired(s.repaired)
            ),
            Err(e) => agreement::refusal(&e),
        }
    });
}
