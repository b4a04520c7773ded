//! The DP plan of [`ExactCountConstrainedSlice`](crate::ExactCountConstrainedSlice)
//! for one bucket size: the rows of each constrained kind and of the rest,
//! dominated rows dropped, the guards, and the solve that chains the kinds'
//! DPs (their cells: `exact_count_dp.rs`). What the slice promises and how
//! it falls back are in `exact_count.rs`.

use std::collections::BinaryHeap;

use super::exact_count_dp::{run_kind, CountCell, Lex, Wide};
use super::exact_count_finish::Input;
use crate::dp::keep::KeepTable;
use crate::dp::row;
use crate::knapsack::scaled_value;
use crate::CtxpackError;

/// One DP row item: input index, buckets, value.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    pub(super) index: usize,
    pub(super) w: usize,
    pub(super) p: i64,
}

/// How a constrained kind runs.
#[derive(Debug, Clone)]
pub(super) struct KindPlan {
    pub(super) rows: Vec<Row>,
    /// Count rows above 0: the cap when it binds, else the requirement (at
    /// most the number of the kind's items that fit together).
    pub(super) qmax: usize,
    /// `q = qmax` means "at least qmax" (the cap cannot bind).
    pub(super) saturating: bool,
    /// The requirement the DP enforces (`min(require, candidates that fit)`).
    pub(super) require: usize,
}

impl KindPlan {
    /// Keep-bit rows per item.
    pub(super) fn rows_per_item(&self) -> usize {
        self.qmax + usize::from(self.saturating)
    }
}

/// The DP for one bucket size.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub(super) bucket: i64,
    pub(super) capacity: usize,
    pub(super) free: Vec<Row>,
    pub(super) kinds: Vec<KindPlan>,
    /// Items dropped by dominance (left out for their kind's cap).
    pub(super) dominated: Vec<usize>,
    /// Whether the enforced requirements (capped at the candidates that fit
    /// alone) can all be met within the capacity: plain value cells.
    pub(super) hard: bool,
    /// Whether every configured requirement can be met.
    pub(super) requirements_met: bool,
    /// Tokens (rounded up to buckets) the lightest way to meet every
    /// requirement needs.
    pub(super) required_tokens: i64,
}

impl Plan {
    pub(super) fn build(input: &Input<'_>, target: i64, bucket: i64) -> Plan {
        let capacity = target / bucket;
        let to_usize = |w: i64| usize::try_from(w).unwrap_or(usize::MAX);
        let mut free = Vec::new();
        let mut per_kind: Vec<Vec<Row>> = vec![Vec::new(); input.entries.len()];
        // Bucketed sizes of every candidate of a required kind, fitting or not.
        let mut pools: Vec<Vec<i64>> = vec![Vec::new(); input.entries.len()];
        for (i, it) in input.items.iter().enumerate() {
            if it.tokens < 0 {
                continue;
            }
            let w = buckets(it.tokens, bucket);
            let p = scaled_value(it.score);
            match input.entry_of[i] {
                None if it.tokens == 0 || p == 0 || w > capacity => {}
                None => free.push(Row {
                    index: i,
                    w: to_usize(w),
                    p,
                }),
                Some(e) => {
                    let required = input.entries[e].require_count > 0;
                    if required {
                        pools[e].push(w);
                    }
                    if w <= capacity && (p > 0 || required) {
                        per_kind[e].push(Row {
                            index: i,
                            w: to_usize(w),
                            p,
                        });
                    }
                }
            }
        }
        // The lightest way to meet every requirement, over all candidates.
        let mut required_buckets: i64 = 0;
        for (e, pool) in pools.iter().enumerate() {
            required_buckets =
                required_buckets.saturating_add(lightest(pool, input.entries[e].require_count));
        }
        let mut kinds = Vec::new();
        let mut dominated = Vec::new();
        let mut all_met = true;
        let mut hard_buckets: i64 = 0;
        for (e, mut rows) in per_kind.into_iter().enumerate() {
            let entry = &input.entries[e];
            let require = entry.require_count.min(rows.len());
            all_met &= require == entry.require_count;
            if require > 0 {
                let sizes: Vec<i64> = rows
                    .iter()
                    .map(|r| i64::try_from(r.w).unwrap_or(i64::MAX))
                    .collect();
                hard_buckets = hard_buckets.saturating_add(lightest(&sizes, require));
            }
            if rows.len() > entry.cap_count {
                rows = drop_dominated(rows, entry.cap_count, &mut dominated);
            }
            // How many items of the kind fit together at most: the cap binds
            // only below that, and no count above it is ever reached.
            let fit = fitting_count(&rows, capacity);
            if entry.cap_count < fit {
                kinds.push(KindPlan {
                    rows,
                    qmax: entry.cap_count,
                    saturating: false,
                    require,
                });
            } else if require == 0 {
                // Unconstrained in effect; value-0 rows were kept only for
                // requirements.
                free.extend(rows.into_iter().filter(|r| r.p > 0));
            } else {
                kinds.push(KindPlan {
                    rows,
                    qmax: require.min(fit),
                    saturating: true,
                    require,
                });
            }
        }
        // Exact: no selection weighs more than all rows together.
        let total: usize = free
            .iter()
            .chain(kinds.iter().flat_map(|k| k.rows.iter()))
            .fold(0usize, |a, r| a.saturating_add(r.w));
        let hard = hard_buckets <= capacity;
        let capacity = to_usize(capacity).min(total);
        Plan {
            bucket,
            capacity,
            free,
            kinds,
            dominated,
            hard,
            requirements_met: all_met && hard,
            required_tokens: required_buckets.saturating_mul(bucket),
        }
    }

    /// DP cells (an upper bound of the work counter) and table bytes.
    pub(super) fn cost(&self) -> (u128, u128) {
        let columns = self.capacity as u128 + 1;
        let mut keep_rows = self.free.len() as u128;
        let mut cells = keep_rows * columns;
        let mut widest = 0u128;
        for k in &self.kinds {
            let per_item = k.rows_per_item() as u128;
            keep_rows += k.rows.len() as u128 * per_item;
            cells += k.rows.len() as u128 * per_item * columns + (k.qmax as u128 + 1) * columns;
            widest = widest.max(k.qmax as u128 + 1);
        }
        let value_bytes = if self.hard { 8 } else { 16 };
        let bytes = crate::dp::guard::keep_bytes(keep_rows, columns)
            + columns * 8
            + widest * columns * value_bytes
            + self.kinds.len() as u128 * columns * 4;
        (cells, bytes)
    }

    pub(super) fn check(&self, cell_limit: u64, byte_limit: u64) -> Result<(), CtxpackError> {
        let (cells, bytes) = self.cost();
        if cells <= u128::from(cell_limit) && bytes <= u128::from(byte_limit) {
            return Ok(());
        }
        let rows = self.free.len() + self.kinds.iter().map(|k| k.rows.len()).sum::<usize>();
        Err(CtxpackError::TableTooLarge {
            candidates: rows,
            capacity: self.capacity as u64,
            cells: u64::try_from(cells).unwrap_or(u64::MAX),
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            limit: if bytes > u128::from(byte_limit) {
                byte_limit
            } else {
                cell_limit
            },
            unit: if bytes > u128::from(byte_limit) {
                crate::TableLimit::Bytes
            } else {
                crate::TableLimit::Cells
            },
            bucket_helps: true,
        })
    }

    pub(super) fn solve(&self) -> Solved {
        if self.hard {
            // 32-bit cells when no sum of values can overflow them.
            let total = self
                .free
                .iter()
                .chain(self.kinds.iter().flat_map(|k| k.rows.iter()))
                .fold(0i64, |a, r| a.saturating_add(r.p));
            let solved = if total < i64::from(i32::MAX) {
                self.run::<i32>()
            } else {
                self.run::<Wide>()
            };
            if let Some(s) = solved {
                return s;
            }
        }
        // Degrade: least total shortfall first, then the most value.
        self.run::<Lex>().unwrap_or_else(|| Solved {
            taken: Vec::new(),
            cells: 0,
        })
    }

    /// Runs the DP with cells of type `C`; `None` when no cell is feasible
    /// (cannot happen for `Lex`).
    fn run<C: CountCell>(&self) -> Option<Solved> {
        let columns = self.capacity + 1;
        let keep_rows = self.free.len()
            + self
                .kinds
                .iter()
                .map(|k| k.rows.len() * k.rows_per_item())
                .sum::<usize>();
        // The guard (`check`) has bounded the table.
        let mut keep = KeepTable::new(keep_rows, columns);
        let mut cells: u64 = 0;
        // 1. Free items.
        let mut f = vec![C::ZERO; columns];
        for (r, item) in self.free.iter().enumerate() {
            row::in_place(&mut f, item.w, C::value(item.p), Some(keep.row_mut(r)));
            cells += (columns - item.w.min(columns)) as u64;
        }
        // 2. Each constrained kind.
        let mut row_base = self.free.len();
        let mut argq: Vec<Vec<u32>> = Vec::with_capacity(self.kinds.len());
        for kind in &self.kinds {
            let (next, chosen, used) = run_kind(&f, kind, columns, &mut keep, row_base);
            f = next;
            argq.push(chosen);
            cells += used;
            row_base += kind.rows.len() * kind.rows_per_item();
        }
        // 3. The smallest capacity that reaches the optimum.
        let mut best = 0;
        for c in 1..columns {
            if f[c].beats(f[best]) {
                best = c;
            }
        }
        if !f[best].feasible() {
            return None;
        }
        // 4. Rebuild.
        let mut taken = Vec::new();
        let mut c = best;
        for (k, kind) in self.kinds.iter().enumerate().rev() {
            row_base -= kind.rows.len() * kind.rows_per_item();
            let mut q = argq[k][c] as usize;
            let per_item = kind.rows_per_item();
            for (t, row) in kind.rows.iter().enumerate().rev() {
                let base = row_base + t * per_item;
                if kind.saturating && q == kind.qmax && keep.get(base + kind.qmax, c) {
                    taken.push(row.index); // stays at "at least qmax"
                    c -= row.w;
                } else if q >= 1 && keep.get(base + q - 1, c) {
                    taken.push(row.index);
                    c -= row.w;
                    q -= 1;
                }
            }
            debug_assert_eq!(q, 0);
        }
        for (r, row) in self.free.iter().enumerate().rev() {
            if keep.get(r, c) {
                taken.push(row.index);
                c -= row.w;
            }
        }
        Some(Solved { taken, cells })
    }
}

pub(super) struct Solved {
    pub(super) taken: Vec<usize>,
    pub(super) cells: u64,
}

/// Drops every row that at least `cap` other rows dominate (no more
/// buckets, no less value; among equal rows the earlier one dominates),
/// pushing its input index on `dropped`. Keeps the input order of the rest.
fn drop_dominated(rows: Vec<Row>, cap: usize, dropped: &mut Vec<usize>) -> Vec<Row> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // The shared index sort (a total order: ties by input index, so the
    // same order as any sort): `sort_unstable_by` here compiled 17 KB of
    // wasm of its own.
    crate::sort::sort_indexes_by(&mut order, |a, b| {
        rows[a]
            .w
            .cmp(&rows[b].w)
            .then(rows[b].p.cmp(&rows[a].p))
            .then(rows[a].index.cmp(&rows[b].index))
    });
    // The `cap` largest values among the rows before (a min-heap): a row is
    // dominated by at least `cap` of them when the smallest is no less.
    let mut top: BinaryHeap<std::cmp::Reverse<i64>> = BinaryHeap::with_capacity(cap + 1);
    let mut keep = vec![true; rows.len()];
    for &r in &order {
        let p = rows[r].p;
        if top.len() >= cap && top.peek().map_or(true, |m| m.0 >= p) {
            keep[r] = false;
            dropped.push(rows[r].index);
        }
        if cap > 0 {
            top.push(std::cmp::Reverse(p));
            if top.len() > cap {
                top.pop();
            }
        }
    }
    rows.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// `ceil(tokens / bucket)` for `tokens >= 0`, without overflow.
pub(super) const fn buckets(tokens: i64, bucket: i64) -> i64 {
    if tokens == 0 {
        0
    } else {
        (tokens - 1) / bucket + 1
    }
}

/// The sum of the `count` smallest sizes (all of them when fewer),
/// saturating.
fn lightest(sizes: &[i64], count: usize) -> i64 {
    let count = count.min(sizes.len());
    if count == 0 {
        return 0;
    }
    // Through the shared index sort rather than `select_nth_unstable`
    // (about 5 KB of wasm of its own): the sum of the `count` smallest does
    // not depend on how ties are ordered.
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    crate::sort::sort_indexes_by(&mut order, |a, b| sizes[a].cmp(&sizes[b]));
    order[..count]
        .iter()
        .fold(0, |a, &i| a.saturating_add(sizes[i]))
}

/// The most rows whose buckets fit `capacity` together (the lightest ones).
fn fitting_count(rows: &[Row], capacity: i64) -> usize {
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.w).collect();
    crate::sort::sort_indexes_by(&mut sizes, |a, b| a.cmp(&b));
    let capacity = usize::try_from(capacity).unwrap_or(0);
    let mut used = 0usize;
    sizes
        .iter()
        .take_while(|&&w| {
            used = used.saturating_add(w);
            used <= capacity
        })
        .count()
}
