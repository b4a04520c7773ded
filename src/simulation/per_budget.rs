//! The engines of the budget simulation: for each strategy, its value or
//! its membership at every budget in one pass: the walks (greedy, the
//! packer), the knapsack's DP rows, and the exact strategy's sweep. The
//! questions they answer are in `simulate.rs`. The knapsack rows are the
//! shared row update (`dp::row`); the walks' steps are not (a walk takes
//! every item that fits: an assignment, not the better of two).

use super::simulate::{curve_len, guard, MinBudget, Strategy};
use crate::dp::guard::{keep_bytes, too_large};
use crate::dp::keep::KeepTable;
use crate::dp::order::density_order;
use crate::dp::row;
use crate::knapsack::scaled_value;
use crate::TableLimit;
use crate::{Budget, CtxpackError, ExactKnapsackSlice, Item, KnapsackSlice, Slicer};

// ---------------------------------------------------------------------------
// The walks: greedy (density order, never stops) and the packer (your
// order, stops after its skip limit).

/// The items a walk visits, in its order: non-negative token counts only
/// (both walks exclude the others without counting them as misses).
pub(super) struct Walk {
    tokens: Vec<i64>,
    values: Vec<i64>,
    idx: Vec<usize>,
    /// Consecutive misses that stop the walk; 0: never.
    limit: usize,
    /// `prefix[k]`: tokens of the first `k` items (saturating).
    prefix: Vec<i64>,
    /// `gain[k]`: value of the first `k` items (saturating).
    gain: Vec<i64>,
}

/// The cell type of a walk DP: a value, or whether the item is reached and
/// taken.
trait Outcome: Copy + Default {
    fn take(self, value: i64) -> Self;
}

impl Outcome for i64 {
    fn take(self, value: i64) -> i64 {
        self.saturating_add(value)
    }
}

impl Outcome for bool {
    fn take(self, _: i64) -> bool {
        self
    }
}

impl Walk {
    pub(super) fn new(strategy: Strategy, items: &[Item<'_>], values: &[i64]) -> Walk {
        let (order, limit) = if let Strategy::Packer(p) = strategy {
            let order: Vec<usize> = (0..items.len()).filter(|&i| items[i].tokens >= 0).collect();
            (
                order,
                usize::try_from(p.max_consecutive_skips).unwrap_or(usize::MAX),
            )
        } else {
            // GreedySlice's order.
            (density_order(items), 0)
        };
        let m = order.len();
        // A limit above the number of items never stops the walk.
        let limit = if limit > m { 0 } else { limit };
        let tokens: Vec<i64> = order.iter().map(|&i| items[i].tokens).collect();
        let values: Vec<i64> = order.iter().map(|&i| values[i]).collect();
        let mut prefix = Vec::with_capacity(m + 1);
        let mut gain = Vec::with_capacity(m + 1);
        prefix.push(0i64);
        gain.push(0i64);
        for k in 0..m {
            prefix.push(prefix[k].saturating_add(tokens[k]));
            gain.push(gain[k].saturating_add(values[k]));
        }
        Walk {
            tokens,
            values,
            idx: order,
            limit,
            prefix,
            gain,
        }
    }

    pub(super) fn saturation(&self) -> i64 {
        self.prefix[self.tokens.len()].max(1)
    }

    /// DP states per leftover: the consecutive misses so far.
    pub(super) fn states(&self) -> usize {
        self.limit.max(1)
    }

    /// The state after the miss that ends a prefix, or `None` when that
    /// miss stops the walk.
    pub(super) fn after_first_miss(&self) -> Option<usize> {
        match self.limit {
            0 => Some(0),
            1 => None,
            _ => Some(1),
        }
    }

    /// The leftovers (columns) the DP needs for the prefixes that break at
    /// items `0..k_end` within `ceiling`: the largest `min(tokens_k,
    /// ceiling − P_k + 1)`.
    pub(super) fn columns(&self, k_end: usize, ceiling: i64) -> usize {
        (0..k_end)
            .map(|k| self.tokens[k].min((ceiling - self.prefix[k]).saturating_add(1)))
            .max()
            .map_or(0, |c| usize::try_from(c.max(0)).unwrap_or(usize::MAX))
    }

    /// Prefixes that break within `0..=ceiling`: `k` with `P_k <= ceiling`.
    pub(super) fn breaks_within(&self, ceiling: i64, up_to: usize) -> usize {
        self.prefix[..up_to].partition_point(|&p| p <= ceiling)
    }

    /// `g` (the outcome from item `j + 1` on, per state and leftover)
    /// becomes the outcome from item `j` on. Not the knapsack row update
    /// (`dp::row`): a walk takes every item that fits, so a leftover's
    /// outcome is assigned from `r − w`, never the better of two.
    fn step<T: Outcome>(&self, j: usize, g: &mut Vec<T>, tmp: &mut Vec<T>, cols: usize) {
        let (w, v) = (self.tokens[j], self.values[j]);
        let fits = usize::try_from(w).ok().filter(|&w| w < cols);
        if self.limit == 0 {
            // One state: in place, leftovers descending (each reads a
            // smaller one, not yet updated).
            if let Some(w) = fits {
                for r in (w..cols).rev() {
                    g[r] = g[r - w].take(v);
                }
            }
            return;
        }
        let states = self.limit;
        for s in 0..states {
            let row = &mut tmp[s * cols..(s + 1) * cols];
            for (r, cell) in row.iter_mut().enumerate() {
                *cell = match fits {
                    Some(w) if r >= w => g[r - w].take(v),
                    _ if s + 1 == states => T::default(),
                    _ => g[(s + 1) * cols + r],
                };
            }
        }
        std::mem::swap(g, tmp);
    }

    /// The value curve over `0..=max_budget`.
    pub(super) fn curve(
        &self,
        max_budget: i64,
        max_cells: u64,
        max_bytes: u64,
    ) -> Result<Vec<i64>, CtxpackError> {
        let len = curve_len(max_budget, max_bytes)?;
        let m = self.tokens.len();
        let k_end = self.breaks_within(max_budget, m);
        let cols = self.columns(k_end, max_budget);
        let after = self.after_first_miss();
        let states = if after.is_some() { self.states() } else { 0 };
        let rows = m.saturating_sub(1);
        let dp_bytes = (states * cols) as u128 * 8 * if self.limit > 0 { 2 } else { 1 };
        guard(
            rows,
            (states * cols) as u128,
            dp_bytes + len as u128 * 8,
            max_cells,
            max_bytes,
        )?;
        let mut out = vec![0i64; len];
        let mut g = vec![0i64; states * cols];
        let mut tmp = if self.limit > 0 {
            g.clone()
        } else {
            Vec::new()
        };
        // g is the outcome from item j on; segment k = j − 1 reads it.
        for j in (1..=m).rev() {
            let k = j - 1;
            if k < k_end && self.tokens[k] > 0 {
                let width = self.tokens[k].min((max_budget - self.prefix[k]).saturating_add(1));
                for r in 0..usize::try_from(width).unwrap_or(0) {
                    let t = self.prefix[k] + wide(r);
                    if t > 0 {
                        let rest = after.map_or(0, |s| g[s * cols + r]);
                        out[usize::try_from(t).unwrap_or(0)] = self.gain[k].saturating_add(rest);
                    }
                }
            }
            if j >= 2 && after.is_some() && cols > 0 && k_end > 0 {
                self.step(j - 1, &mut g, &mut tmp, cols);
            }
        }
        // From the sum of all tokens on, everything is taken.
        if self.prefix[m] <= max_budget {
            for t in self.prefix[m].max(1)..=max_budget {
                out[usize::try_from(t).unwrap_or(0)] = self.gain[m];
            }
        }
        Ok(out)
    }

    /// Where the walk takes the item of input index `index`.
    pub(super) fn membership(
        &self,
        index: usize,
        ceiling: i64,
        max_cells: u64,
        max_bytes: u64,
    ) -> Result<MinBudget, CtxpackError> {
        let saturation = self.saturation();
        let never = MinBudget {
            first: None,
            stable_from: None,
            ceiling,
            saturation,
        };
        let Some(p) = self.idx.iter().position(|&i| i == index) else {
            return Ok(never); // negative tokens: never walked
        };
        let k_end = self.breaks_within(ceiling, p);
        let cols = self.columns(k_end, ceiling);
        let after = self.after_first_miss();
        let states = self.states();
        let dp_bytes = (states * cols) as u128 * if self.limit > 0 { 2 } else { 1 };
        guard(p, (states * cols) as u128, dp_bytes, max_cells, max_bytes)?;
        let mut first: Option<i64> = None;
        let mut last_out: i64 = 0; // budget 0 selects nothing
        let mut at_ceiling = false;
        let mut see = |t: i64, sel: bool| {
            if t <= 0 || t > ceiling {
                return;
            }
            if sel {
                first = Some(first.map_or(t, |f| f.min(t)));
            } else {
                last_out = last_out.max(t);
            }
            if t == ceiling {
                at_ceiling = sel;
            }
        };
        // From item p on: taken iff it fits the leftover.
        let w_p = self.tokens[p];
        let mut g: Vec<bool> = (0..states * cols)
            .map(|c| i64::try_from(c % cols.max(1)).unwrap_or(i64::MAX) >= w_p)
            .collect();
        let mut tmp = if self.limit > 0 {
            g.clone()
        } else {
            Vec::new()
        };
        for j in (1..=p).rev() {
            let k = j - 1;
            if k < k_end && self.tokens[k] > 0 {
                let width = self.tokens[k].min((ceiling - self.prefix[k]).saturating_add(1));
                for r in 0..usize::try_from(width).unwrap_or(0) {
                    let sel = after.is_some_and(|s| g[s * cols + r]);
                    see(self.prefix[k] + wide(r), sel);
                }
            }
            if j >= 2 && after.is_some() && cols > 0 && k_end > 0 {
                self.step(j - 1, &mut g, &mut tmp, cols);
            }
        }
        // Budgets [P_p, P_{p+1}): item p is the miss.
        let (lo, hi) = (self.prefix[p], self.prefix[p + 1]);
        if hi > lo && lo <= ceiling {
            see((hi - 1).min(ceiling), false);
        }
        // From P_{p+1} on, items 0..=p all fit.
        if hi <= ceiling {
            see(hi.max(1), true);
            see(ceiling, true);
        }
        Ok(MinBudget {
            first,
            stable_from: at_ceiling.then_some(last_out + 1),
            ceiling,
            saturation,
        })
    }
}

/// A position as a token count (positions stay far below 2^63).
fn wide(x: usize) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

// ---------------------------------------------------------------------------
// The knapsack: its keep table up to the ceiling, traced from every
// capacity at once.

pub(super) fn knapsack_membership(
    items: &[Item<'_>],
    k: KnapsackSlice,
    index: usize,
    max_budget: Option<i64>,
    max_cells: u64,
) -> Result<MinBudget, CtxpackError> {
    let b = k.bucket_size();
    let weight = |t: i64| (t - 1) / b + 1;
    let rows_all: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].tokens > 0 && scaled_value(items[i].score) > 0)
        .collect();
    let saturation = rows_all
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(weight(items[i].tokens)))
        .saturating_mul(b)
        .max(1);
    let ceiling = max_budget.unwrap_or(saturation);
    let it = items[index];
    let mut answer = MinBudget::unanswered(ceiling, saturation);
    if it.tokens == 0 {
        return Ok(answer.zero_tokens());
    }
    let capacity = ceiling / b;
    if it.tokens < 0 || scaled_value(it.score) == 0 || weight(it.tokens) > capacity {
        return Ok(answer);
    }
    let rows: Vec<(usize, usize, i64)> = rows_all
        .iter()
        .filter(|&&i| weight(items[i].tokens) <= capacity)
        .map(|&i| {
            let w = usize::try_from(weight(items[i].tokens)).unwrap_or(usize::MAX);
            (i, w, scaled_value(items[i].score))
        })
        .collect();
    let own = rows.iter().position(|r| r.0 == index).unwrap_or(0);
    let columns = u128::try_from(capacity).unwrap_or(0) + 1;
    let kept_rows = rows.len() - own;
    let bytes = keep_bytes(kept_rows as u128, columns) + columns * 16;
    guard(rows.len(), columns, bytes, max_cells, k.max_table_bytes())?;
    let Ok(cols) = usize::try_from(columns) else {
        return Err(too_large(
            rows.len(),
            columns,
            0,
            bytes,
            k.max_table_bytes(),
            TableLimit::Bytes,
        ));
    };
    // The spec's DP: keep[r][c] = dp[c − w] + v > dp[c], descending c.
    let mut dp = vec![0i64; cols];
    let mut keep = KeepTable::new(kept_rows, cols);
    for (r, &(_, w, v)) in rows.iter().enumerate() {
        let kept = r.checked_sub(own).map(|k| keep.row_mut(k));
        row::in_place(&mut dp, w, v, kept);
    }
    let kept = |r: usize, c: usize| keep.get(r - own, c);
    // Reconstruction from every capacity: the rows after `own`, last first.
    let mut cur: Vec<usize> = (0..cols).collect();
    for r in (own + 1..rows.len()).rev() {
        let w = rows[r].1;
        for c in &mut cur {
            if kept(r, *c) {
                *c -= w;
            }
        }
    }
    let mut last_out: i64 = 0;
    let mut at_ceiling = false;
    for (c, &rest) in cur.iter().enumerate() {
        let sel = kept(own, rest);
        let lo = (wide(c) * b).max(1);
        let hi = (wide(c) * b).saturating_add(b - 1).min(ceiling);
        if lo > hi {
            continue;
        }
        if sel {
            answer.first = Some(answer.first.map_or(lo, |f| f.min(lo)));
        } else {
            last_out = last_out.max(hi);
        }
        if hi == ceiling {
            at_ceiling = sel;
        }
    }
    answer.stable_from = at_ceiling.then_some(last_out + 1);
    Ok(answer)
}

// ---------------------------------------------------------------------------
// The exact slice: a DP without the item, and reruns where optima tie.

pub(super) fn exact_membership(
    items: &[Item<'_>],
    e: ExactKnapsackSlice,
    index: usize,
    max_budget: Option<i64>,
    max_cells: u64,
    max_bytes: u64,
) -> Result<MinBudget, CtxpackError> {
    let saturation = items
        .iter()
        .filter(|it| it.tokens > 0 && scaled_value(it.score) > 0)
        .fold(0i64, |a, it| a.saturating_add(it.tokens))
        .max(1);
    let ceiling = max_budget.unwrap_or(saturation);
    let it = items[index];
    let mut answer = MinBudget::unanswered(ceiling, saturation);
    if it.tokens == 0 {
        return Ok(answer.zero_tokens());
    }
    let own = scaled_value(it.score);
    if it.tokens < 0 || own == 0 || it.tokens > ceiling {
        return Ok(answer);
    }
    let rows: Vec<(usize, i64)> = items
        .iter()
        .enumerate()
        .filter(|&(i, x)| i != index && x.tokens > 0 && x.tokens <= ceiling)
        .filter_map(|(_, x)| {
            let v = scaled_value(x.score);
            (v > 0).then(|| (usize::try_from(x.tokens).unwrap_or(usize::MAX), v))
        })
        .collect();
    let columns = u128::try_from(ceiling).unwrap_or(0) + 1;
    guard(rows.len(), columns, columns * 8, max_cells, max_bytes)?;
    let cols = usize::try_from(columns).map_err(|_| {
        too_large(
            rows.len(),
            columns,
            0,
            columns * 8,
            max_bytes,
            TableLimit::Bytes,
        )
    })?;
    let mut dp = vec![0i64; cols];
    for &(w, v) in &rows {
        row::in_place(&mut dp, w, v, None);
    }
    let w_own = usize::try_from(it.tokens).unwrap_or(usize::MAX);
    // Reruns where optimal selections tie on the item, charged n cells each.
    let mut budget_left = u128::from(max_cells).saturating_sub(rows.len() as u128 * columns);
    let n = items.len().max(1) as u128;
    let mut selected = |t: usize| -> Result<bool, CtxpackError> {
        if t < w_own {
            return Ok(false);
        }
        let with = dp[t - w_own].saturating_add(own);
        if with != dp[t] {
            return Ok(with > dp[t]);
        }
        if budget_left < n {
            return Err(too_large(
                rows.len(),
                columns,
                u128::from(max_cells) + 1,
                0,
                max_cells,
                TableLimit::Cells,
            ));
        }
        budget_left -= n;
        let target = i64::try_from(t).unwrap_or(i64::MAX);
        let s = e.slice(items, &Budget::new(target))?;
        Ok(s.decisions[index].is_included())
    };
    // First: ascending.
    for t in w_own.max(1)..cols {
        if selected(t)? {
            answer.first = i64::try_from(t).ok();
            break;
        }
    }
    if answer.first.is_none() {
        return Ok(answer);
    }
    // Stable: descending from the ceiling.
    let mut t = cols - 1;
    if !selected(t)? {
        return Ok(answer);
    }
    while t > 1 && selected(t - 1)? {
        t -= 1;
    }
    answer.stable_from = i64::try_from(t).ok();
    Ok(answer)
}
