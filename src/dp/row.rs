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
/// cells where taking the item is strictly better.
pub(crate) fn keep_row_i64(dp: &mut [i64], w: usize, v: i64, mut keep: Option<&mut [u64]>) {
    for c in (w..dp.len()).rev() {
        let with = dp[c - w].saturating_add(v);
        if with > dp[c] {
            dp[c] = with;
            if let Some(keep) = keep.as_deref_mut() {
                keep[c / 64] |= 1 << (c % 64);
            }
        }
    }
}
