//! The 0/1 knapsack row update, once for every DP: for `c >= w`,
//! `dp[c] = max(dp[c], src[c − w] + v)` where `src` is the previous row,
//! either `dp` itself read in place with `c` descending (so each cell still
//! reads the previous row) or another row (`from`, the exact
//! count-constrained slice's count dimension), optionally setting the keep
//! bit of each cell where taking is strictly better. Whole 16-cell groups
//! run in the cell type's block form (`blocks.rs`), the cells around them
//! one by one. The multiple-choice form (a class of versions, at most one
//! taken) is [`class_row`].

use super::blocks::Blocks;
use super::cell::Cell;

/// In place: the row update of item `(w, v)` over `dp`, with keep bits
/// when `keep` (one zeroed bit per cell: the cells outside whole groups
/// only ever set bits) is given.
#[inline]
pub(crate) fn in_place<V: Cell>(dp: &mut [V], w: usize, v: V, keep: Option<&mut [u64]>) {
    update(V::blocks(), dp, None, w, v, keep);
}

/// From one row to the next: `to[c] = max(to[c], from[c − w] + v)`, with
/// keep bits (zeroed, as for [`in_place`]). `from` is as long as `to`.
#[inline]
pub(crate) fn from_row<V: Cell>(from: &[V], to: &mut [V], w: usize, v: V, keep: &mut [u64]) {
    update(V::blocks(), to, Some(from), w, v, Some(keep));
}

/// The row update with the given block form (the knapsack kernel's tests
/// pass each one; `None`: cell by cell). Cells above the last whole group,
/// the groups, then the cells below the first whole group: top down, as
/// in place requires.
///
/// Never inlined in wasm: one copy per cell type keeps the module small
/// (a call per row costs nothing beside the row). Natively the compiler
/// decides: inlined into the budget curve, the `i64` rows ran 20% faster.
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub(crate) fn update<V: Cell>(
    blocks: Option<Blocks<V>>,
    dp: &mut [V],
    src: Option<&[V]>,
    w: usize,
    v: V,
    mut keep: Option<&mut [u64]>,
) {
    let len = dp.len();
    if w >= len {
        return;
    }
    let lo = w.div_ceil(16); // the first group at or above w
    let whole = len / 16; // groups 0..whole are whole
    let Some(blocks) = blocks.filter(|_| lo < whole) else {
        cells(dp, src, w, v, keep, w, len);
        return;
    };
    cells(dp, src, w, v, keep.as_deref_mut(), whole * 16, len);
    blocks(dp, src, w, v, lo, whole - 1, keep.as_deref_mut());
    cells(dp, src, w, v, keep, w, lo * 16);
}

/// Cells `start..end` one at a time, descending; keep bits set with OR.
fn cells<V: Cell>(
    dp: &mut [V],
    src: Option<&[V]>,
    w: usize,
    v: V,
    mut keep: Option<&mut [u64]>,
    start: usize,
    end: usize,
) {
    for c in (start..end).rev() {
        let with = src.map_or(dp[c - w], |s| s[c - w]).plus(v);
        let old = dp[c];
        // Always stored: a max, not a branch, for the integers.
        dp[c] = with.better(old);
        if let Some(keep) = keep.as_deref_mut() {
            if with.beats(old) {
                keep[c / 64] |= 1 << (c % 64);
            }
        }
    }
}

/// The multiple-choice row update: a class of versions `(w, v)` of which
/// at most one is taken, `dp[c] = max(dp[c], max_j dp[c − w_j] + v_j)`,
/// descending (each cell reads the previous row's values). `keep`, when
/// given, holds one row of bits per version (`versions.len()` rows of
/// equal length, contiguous): version `j`'s bit at `c` is set when it beat
/// every version before it there, so the last version whose bit is set is
/// the one taken. Every `w >= 1`. With one version this is the 0/1 update.
pub(crate) fn class_row<V: Cell>(
    dp: &mut [V],
    versions: &[(usize, V)],
    mut keep: Option<&mut [u64]>,
) {
    let words = keep
        .as_deref()
        .map_or(0, |k| k.len() / versions.len().max(1));
    let Some(lightest) = versions.iter().map(|&(w, _)| w).min() else {
        return;
    };
    for c in (lightest..dp.len()).rev() {
        let mut best = dp[c];
        for (j, &(w, v)) in versions.iter().enumerate() {
            if w > c {
                continue;
            }
            let with = dp[c - w].plus(v);
            if with.beats(best) {
                best = with;
                if let Some(keep) = keep.as_deref_mut() {
                    keep[j * words + c / 64] |= 1 << (c % 64);
                }
            }
        }
        dp[c] = best;
    }
}

#[cfg(test)]
#[path = "row_tests.rs"]
mod tests;
