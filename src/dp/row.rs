//! The 0/1 knapsack row update over a value row, in place: for descending
//! `c >= w`, `dp[c] = max(dp[c], dp[c − w] + v)` (descending, each cell
//! reads the previous row's value). The keep-table kernel with SIMD lives in
//! `kernel.rs`; these are the value-only and few-rows forms the budget
//! simulation uses.

/// The update with `i64` values, sums saturating.
pub(crate) fn max_row_i64(dp: &mut [i64], w: usize, v: i64) {
    for c in (w..dp.len()).rev() {
        dp[c] = dp[c].max(dp[c - w].saturating_add(v));
    }
}

/// The update with `i32` values whose sums cannot overflow (the caller
/// checks that the sum of all values fits), in chunks of 64 cells whose
/// sources are copied before any store, so that the compiler can
/// vectorise a chunk and the result equals the descending loop. `w >= 1`.
pub(crate) fn max_row_i32(dp: &mut [i32], w: usize, v: i32) {
    let mut end = dp.len();
    let mut src = [0i32; 64];
    while end > w {
        let start = end.saturating_sub(64).max(w);
        let len = end - start;
        src[..len].copy_from_slice(&dp[start - w..end - w]);
        for (d, &s) in dp[start..end].iter_mut().zip(&src[..len]) {
            *d = (*d).max(s + v);
        }
        end = start;
    }
}

/// [`max_row_i64`], recording in `keep` (one bit per cell, when given) the
/// cells where taking the item is strictly better: [`keep_class_row_i64`]
/// with one version.
pub(crate) fn keep_row_i64(dp: &mut [i64], w: usize, v: i64, keep: Option<&mut [u64]>) {
    keep_class_row_i64(dp, &[(w, v)], keep);
}

/// The multiple-choice row update: a class of versions `(w, v)` of which
/// at most one is taken, `dp[c] = max(dp[c], max_j dp[c − w_j] + v_j)`,
/// descending (each cell reads the previous row's values). `keep`, when
/// given, holds one row of bits per version (`versions.len()` rows of
/// equal length, contiguous): version `j`'s bit at `c` is set when it beat
/// every version before it there, so the last version whose bit is set is
/// the one taken. Every `w >= 1`.
pub(crate) fn keep_class_row_i64(
    dp: &mut [i64],
    versions: &[(usize, i64)],
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
            let with = dp[c - w].saturating_add(v);
            if with > best {
                best = with;
                if let Some(keep) = keep.as_deref_mut() {
                    keep[j * words + c / 64] |= 1 << (c % 64);
                }
            }
        }
        dp[c] = best;
    }
}
