//! The DP of [`ExactCountConstrainedSlice`](crate::ExactCountConstrainedSlice)
//! over one constrained kind: its cells (plain `i32` values in blocks of 64
//! that vectorise, `i64`, or lexicographic shortfall-then-value) and the
//! row update with a count dimension. The plan that calls it is in
//! `exact_count.rs`.

use super::exact_count_plan::KindPlan;
use crate::dp::keep::KeepTable;

/// The DP of one constrained kind on top of `f`. Keep rows of item `t`
/// start at `row_base + t × rows_per_item`: row `q − 1` for the move
/// `q − 1 → q`, and (saturating kinds) row `qmax` for `qmax → qmax`.
/// Returns the new `f`, the count chosen at each capacity, and the cells.
pub(super) fn run_kind<C: Cell>(
    f: &[C],
    kind: &KindPlan,
    columns: usize,
    keep: &mut KeepTable,
    row_base: usize,
) -> (Vec<C>, Vec<u32>, u64) {
    let qmax = kind.qmax;
    let per_item = kind.rows_per_item();
    let mut g = vec![C::NEG; (qmax + 1) * columns];
    g[..columns].copy_from_slice(f);
    let mut cells: u64 = 0;
    for (t, row) in kind.rows.iter().enumerate() {
        let (w, p) = (row.w, row.p);
        let base = row_base + t * per_item;
        let reach = qmax.min(t + 1);
        let span = (columns - w.min(columns)) as u64;
        for q in (1..=reach).rev() {
            let (lower, upper) = g.split_at_mut(q * columns);
            let from = &lower[(q - 1) * columns..];
            let to = &mut upper[..columns];
            if kind.saturating && q == qmax {
                // q = qmax means "at least qmax": also qmax → qmax.
                for c in (w..columns).rev() {
                    let below = from[c - w].plus(p);
                    let same = to[c - w].plus(p);
                    if below.beats(to[c]) && !same.beats(below) {
                        to[c] = below;
                        keep.set(base + q - 1, c);
                    } else if same.beats(to[c]) {
                        to[c] = same;
                        keep.set(base + qmax, c);
                    }
                }
                cells += 2 * span;
            } else {
                C::row(from, to, w, p, keep.row_mut(base + q - 1));
                cells += span;
            }
        }
    }
    // Close: the best allowed count at each capacity.
    let lowest = if C::PENALISED {
        0
    } else {
        kind.require.min(qmax)
    };
    let mut next: Vec<C> = g[lowest * columns..(lowest + 1) * columns]
        .iter()
        .map(|v| v.short(kind.require.saturating_sub(lowest)))
        .collect();
    let mut chosen = vec![u32::try_from(lowest).unwrap_or(u32::MAX); columns];
    for q in lowest + 1..=qmax {
        let row = &g[q * columns..(q + 1) * columns];
        let short = kind.require.saturating_sub(q);
        for c in 0..columns {
            let v = row[c].short(short);
            if v.beats(next[c]) {
                next[c] = v;
                chosen[c] = u32::try_from(q).unwrap_or(u32::MAX);
            }
        }
    }
    cells += ((qmax + 1) * columns) as u64;
    (next, chosen, cells)
}

/// A DP cell: a plain value when every requirement can be met (infeasible
/// cells are negative), or (shortfall, value) compared lexicographically.
pub(super) trait Cell: Copy {
    /// An unreachable cell.
    const NEG: Self;
    /// Whether shortfalls are allowed (and penalised) at a kind's close.
    const PENALISED: bool;
    fn value(v: i64) -> Self;
    /// The cell with one more item of value `p` (unreachable stays so).
    fn plus(self, p: i64) -> Self;
    /// Strictly better.
    fn beats(self, other: Self) -> bool;
    /// The cell with `n` more items of shortfall.
    fn short(self, n: usize) -> Self;
    fn feasible(self) -> bool;

    /// One item over a row: `to[c] = max(to[c], from[c − w] + p)` for
    /// `c >= w`, setting the keep bit where strictly better.
    fn row(from: &[Self], to: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        for c in w..to.len() {
            let with = from[c - w].plus(p);
            if with.beats(to[c]) {
                to[c] = with;
                keep[c >> 6] |= 1 << (c & 63);
            }
        }
    }

    /// The same within one row (the 0/1 recurrence: descending `c`).
    fn row_in_place(dp: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        for c in (w..dp.len()).rev() {
            let with = dp[c - w].plus(p);
            if with.beats(dp[c]) {
                dp[c] = with;
                keep[c >> 6] |= 1 << (c & 63);
            }
        }
    }
}

/// Plain 32-bit values, used when the sum of every value fits: then no sum
/// overflows and the results equal the `i64` ones. Rows run in blocks of 64
/// cells (one keep word) that the compiler can vectorise.
impl Cell for i32 {
    const NEG: Self = -1;
    const PENALISED: bool = false;
    fn value(v: i64) -> Self {
        i32::try_from(v).unwrap_or(i32::MAX)
    }
    fn plus(self, p: i64) -> Self {
        if self < 0 {
            self
        } else {
            self.wrapping_add(Self::value(p))
        }
    }
    fn beats(self, other: Self) -> bool {
        self > other
    }
    fn short(self, _: usize) -> Self {
        self
    }
    fn feasible(self) -> bool {
        self >= 0
    }

    fn row(from: &[Self], to: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        let columns = to.len();
        if w >= columns {
            return;
        }
        let p = Self::value(p);
        let first = w.div_ceil(64) * 64; // the first whole block at or above w
        let whole_end = columns / 64 * 64;
        for c in w..first.min(columns) {
            update_cell(from[c - w], &mut to[c], p, keep, c);
        }
        let mut start = first;
        while start + 64 <= whole_end {
            let src: &[i32; 64] = from[start - w..start - w + 64]
                .try_into()
                .unwrap_or(&[0; 64]);
            if let Ok(dst) = <&mut [i32; 64]>::try_from(&mut to[start..start + 64]) {
                keep[start / 64] |= block(src, dst, p);
            }
            start += 64;
        }
        for c in whole_end.max(first)..columns {
            update_cell(from[c - w], &mut to[c], p, keep, c);
        }
    }

    fn row_in_place(dp: &mut [Self], w: usize, p: i64, keep: &mut [u64]) {
        let columns = dp.len();
        if w >= columns {
            return;
        }
        let p = Self::value(p);
        let first = w.div_ceil(64) * 64;
        let whole_end = columns / 64 * 64;
        // Top down: cells above the whole blocks, the blocks (each one's
        // loads before its stores), then the cells below them.
        for c in (whole_end.max(first)..columns).rev() {
            let src = dp[c - w];
            update_cell(src, &mut dp[c], p, keep, c);
        }
        let mut start = whole_end;
        while start >= first + 64 {
            start -= 64;
            let mut src = [0i32; 64];
            src.copy_from_slice(&dp[start - w..start - w + 64]);
            if let Ok(dst) = <&mut [i32; 64]>::try_from(&mut dp[start..start + 64]) {
                keep[start / 64] |= block(&src, dst, p);
            }
        }
        for c in (w..first.min(columns)).rev() {
            let src = dp[c - w];
            update_cell(src, &mut dp[c], p, keep, c);
        }
    }
}

/// One cell of an `i32` row.
fn update_cell(src: i32, dst: &mut i32, p: i32, keep: &mut [u64], c: usize) {
    let with = src.plus(i64::from(p));
    if with > *dst {
        *dst = with;
        keep[c >> 6] |= 1 << (c & 63);
    }
}

/// 64 cells of an `i32` row; returns their keep bits. Branch-free, in
/// groups of four (the width of a 128-bit vector: the compiler turns each
/// group's mask into one compare and move-mask), and a negative
/// (unreachable) source stays negative. In wasm it is compiled with SIMD128
/// (as the knapsack kernel: an engine without it refuses the module).
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
fn block(src: &[i32; 64], dst: &mut [i32; 64], p: i32) -> u64 {
    let mut mask = 0u64;
    for g in 0..16 {
        let mut bits = 0u64;
        for l in 0..4 {
            let k = g * 4 + l;
            let s = src[k];
            let with = s.wrapping_add(p & !(s >> 31));
            let d = dst[k];
            bits |= u64::from(with > d) << l;
            dst[k] = d.max(with);
        }
        mask |= bits << (g * 4);
    }
    mask
}

impl Cell for i64 {
    const NEG: Self = -1;
    const PENALISED: bool = false;
    fn value(v: i64) -> Self {
        v
    }
    fn plus(self, p: i64) -> Self {
        if self < 0 {
            self
        } else {
            self.saturating_add(p)
        }
    }
    fn beats(self, other: Self) -> bool {
        self > other
    }
    fn short(self, _: usize) -> Self {
        self
    }
    fn feasible(self) -> bool {
        self >= 0
    }
}

/// Total shortfall (fewer is better), then value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lex {
    short: u64,
    value: i64,
}

impl Cell for Lex {
    const NEG: Self = Lex {
        short: u64::MAX,
        value: 0,
    };
    const PENALISED: bool = true;
    fn value(v: i64) -> Self {
        Lex { short: 0, value: v }
    }
    fn plus(self, p: i64) -> Self {
        if self.short == u64::MAX {
            self
        } else {
            Lex {
                short: self.short,
                value: self.value.saturating_add(p),
            }
        }
    }
    fn beats(self, other: Self) -> bool {
        self.short < other.short || (self.short == other.short && self.value > other.value)
    }
    fn short(self, n: usize) -> Self {
        if self.short == u64::MAX {
            self
        } else {
            Lex {
                short: self.short.saturating_add(n as u64).min(u64::MAX - 1),
                value: self.value,
            }
        }
    }
    fn feasible(self) -> bool {
        self.short != u64::MAX
    }
}
