//! The DP of [`ExactCountConstrainedSlice`](crate::ExactCountConstrainedSlice)
//! over one constrained kind: what its cells add to `dp::cell::Cell`
//! (plain `i32` or `i64` values, or lexicographic shortfall-then-value) and
//! the DP with a count dimension, whose move `q − 1 → q` is the shared row
//! update (`dp::row::from_row`). Two loops here are not that update: the
//! move of a saturating kind at `qmax` reads two rows (`qmax − 1` and
//! `qmax` itself) and chooses between them, and the close picks the best
//! count per capacity. The plan that calls it is in `exact_count.rs`.

use super::exact_count_plan::KindPlan;
use crate::dp::cell::Cell;
use crate::dp::keep::KeepTable;
use crate::dp::row;

/// The DP of one constrained kind on top of `f`. Keep rows of item `t`
/// start at `row_base + t × rows_per_item`: row `q − 1` for the move
/// `q − 1 → q`, and (saturating kinds) row `qmax` for `qmax → qmax`.
/// Returns the new `f`, the count chosen at each capacity, and the cells.
pub(super) fn run_kind<C: CountCell>(
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
    for (t, item) in kind.rows.iter().enumerate() {
        let (w, p) = (item.w, C::value(item.p));
        let base = row_base + t * per_item;
        let reach = qmax.min(t + 1);
        let span = (columns - w.min(columns)) as u64;
        for q in (1..=reach).rev() {
            let (lower, upper) = g.split_at_mut(q * columns);
            let from = &lower[(q - 1) * columns..];
            let to = &mut upper[..columns];
            if kind.saturating && q == qmax {
                // q = qmax means "at least qmax": also qmax → qmax, from
                // two source rows at once (not the 0/1 row update).
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
                row::from_row(from, to, w, p, keep.row_mut(base + q - 1));
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

/// What the count dimension adds to a DP cell ([`Cell`]): an unreachable
/// value (fewer than `q` items fit), and the shortfall when a requirement
/// may go unmet.
pub(super) trait CountCell: Cell {
    /// An unreachable cell: `plus` keeps it unreachable and every reachable
    /// cell beats it.
    const NEG: Self;
    /// Whether shortfalls are allowed (and penalised) at a kind's close.
    const PENALISED: bool;
    /// The cell with `n` more items of shortfall.
    fn short(self, n: usize) -> Self;
    fn feasible(self) -> bool;
}

/// Plain 32-bit values, used when the sum of every value fits: the results
/// equal the `i64` ones. `NEG` plus any sum of values stays negative (see
/// [`Cell`] for `i32`), so `plus` needs no test.
impl CountCell for i32 {
    const NEG: Self = i32::MIN;
    const PENALISED: bool = false;
    fn short(self, _: usize) -> Self {
        self
    }
    fn feasible(self) -> bool {
        self >= 0
    }
}

/// A plain value when the sums may not fit an `i32`: negative is
/// unreachable and stays so (sums saturate, so unlike `i32` the sign alone
/// cannot keep it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Wide(i64);

impl Cell for Wide {
    const ZERO: Self = Wide(0);
    fn value(v: i64) -> Self {
        Wide(v)
    }
    #[inline]
    fn plus(self, gain: Self) -> Self {
        if self.0 < 0 {
            self
        } else {
            Wide(self.0.saturating_add(gain.0))
        }
    }
    #[inline]
    fn beats(self, other: Self) -> bool {
        self.0 > other.0
    }
}

impl CountCell for Wide {
    const NEG: Self = Wide(-1);
    const PENALISED: bool = false;
    fn short(self, _: usize) -> Self {
        self
    }
    fn feasible(self) -> bool {
        self.0 >= 0
    }
}

/// Total shortfall (fewer is better), then value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lex {
    short: u64,
    value: i64,
}

impl Cell for Lex {
    const ZERO: Self = Lex { short: 0, value: 0 };
    fn value(v: i64) -> Self {
        Lex { short: 0, value: v }
    }
    fn plus(self, gain: Self) -> Self {
        if self.short == u64::MAX {
            self
        } else {
            Lex {
                short: self.short,
                value: self.value.saturating_add(gain.value),
            }
        }
    }
    fn beats(self, other: Self) -> bool {
        self.short < other.short || (self.short == other.short && self.value > other.value)
    }
}

impl CountCell for Lex {
    const NEG: Self = Lex {
        short: u64::MAX,
        value: 0,
    };
    const PENALISED: bool = true;
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

#[cfg(test)]
#[path = "exact_count_dp_tests.rs"]
mod tests;
