//! Budget curves: the value a knapsack strategy reaches at every budget
//! from 0 to a ceiling, in one DP pass.
//!
//! The 0/1 knapsack DP's value row *is* that curve: after every item,
//! `dp[c]` is the best value with at most `c` (bucketed) tokens. So one
//! value-only pass over the items (no keep table: memory is one row) gives
//! the answer of a separate run at every budget. The curve is
//! non-decreasing from budget 1 on; budget 0 selects nothing (the specs'
//! edge case), so `curve[0]` is 0 even when zero-token items would add
//! value at any positive budget.

use crate::dp::guard::{keep_bytes, too_large};
use crate::dp::row;
use crate::knapsack::scaled_value;
use crate::{check_scores, CtxpackError, ExactKnapsackSlice, Item, KnapsackSlice};

impl KnapsackSlice {
    /// The total scaled value (`Σ max(0, floor(score × 10000))`, zero-token
    /// items included, saturating) that this slice selects at every budget
    /// `0..=max_budget`: `curve[t]` equals the value of
    /// `self.slice(items, &Budget::new(t))`, for every `t`, from one DP pass.
    /// With a bucket size `b` the curve changes only at multiples of `b`.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidScore`] for a NaN or infinite score;
    /// [`CtxpackError::TableTooLarge`] when the slice itself would refuse
    /// `max_budget` (its keep table over `max_table_bytes`), or the curve
    /// (8 bytes per budget) would not fit `max_table_bytes`.
    ///
    /// ```
    /// use ctxpack_core::{Budget, Item, KnapsackSlice, Slicer};
    /// let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
    /// let slice = KnapsackSlice::new(10)?;
    /// let curve = slice.budget_curve(&items, 100)?;
    /// assert_eq!(curve.len(), 101);
    /// assert_eq!((curve[9], curve[10], curve[50], curve[100]), (0, 2_000, 6_000, 10_000));
    /// let s = slice.slice(&items, &Budget::new(73))?;
    /// assert_eq!(s.selected.iter().map(|&i| (items[i].score * 1e4) as i64).sum::<i64>(), curve[73]);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn budget_curve(
        &self,
        items: &[Item<'_>],
        max_budget: i64,
    ) -> Result<Vec<i64>, CtxpackError> {
        check_scores(items)?;
        curve(
            items,
            max_budget,
            self.bucket_size(),
            self.max_table_bytes(),
            None,
        )
    }
}

impl ExactKnapsackSlice {
    /// The optimal total scaled value at token precision at every budget
    /// `0..=max_budget` (`curve[t]` is the value of `self.slice(items,
    /// &Budget::new(t))` whenever that solves exactly), from one DP pass
    /// over the tokens: `items × max_budget` cells, guarded by `max_work`.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidScore`] for a NaN or infinite score;
    /// [`CtxpackError::TableTooLarge`] when the cells exceed `max_work` or
    /// the curve (8 bytes per budget) exceeds `max_table_bytes`.
    ///
    /// ```
    /// use ctxpack_core::{ExactKnapsackSlice, Item};
    /// let items = [Item::new(101, 0.5), Item::new(101, 0.5), Item::new(300, 0.9), Item::new(0, 0.1)];
    /// let curve = ExactKnapsackSlice::new().budget_curve(&items, 500)?;
    /// assert_eq!(curve[0], 0); // no budget, nothing selected
    /// assert_eq!(curve[1], 1_000); // the zero-token item
    /// assert_eq!((curve[202], curve[400], curve[401], curve[500]), (11_000, 11_000, 15_000, 15_000));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn budget_curve(
        &self,
        items: &[Item<'_>],
        max_budget: i64,
    ) -> Result<Vec<i64>, CtxpackError> {
        check_scores(items)?;
        curve(
            items,
            max_budget,
            1,
            self.max_table_bytes(),
            Some(self.max_work()),
        )
    }
}

/// The curve with bucket `bucket`: rows of the positive-valued items that
/// fit `max_budget`, guarded by a keep-table-equivalent byte limit (no
/// cell limit) or by `cell_limit`.
fn curve(
    items: &[Item<'_>],
    max_budget: i64,
    bucket: i64,
    byte_limit: u64,
    cell_limit: Option<u64>,
) -> Result<Vec<i64>, CtxpackError> {
    if max_budget < 0 {
        return Ok(Vec::new());
    }
    let capacity = max_budget / bucket;
    let mut zero_value: i64 = 0;
    let mut rows: Vec<(usize, i64)> = Vec::new();
    let mut weight_sum: i64 = 0;
    for it in items {
        let p = scaled_value(it.score);
        if it.tokens == 0 {
            zero_value = zero_value.saturating_add(p);
        } else if it.tokens > 0 && p > 0 {
            let w = (it.tokens - 1) / bucket + 1;
            if w <= capacity {
                weight_sum = weight_sum.saturating_add(w);
                rows.push((usize::try_from(w).unwrap_or(usize::MAX), p));
            }
        }
    }
    // Above the sum of all weights the row is flat.
    let columns = u128::try_from(capacity.min(weight_sum)).unwrap_or(0) + 1;
    let budgets = u128::try_from(max_budget).unwrap_or(0) + 1;
    let row_count = rows.len() as u128;
    let keep_bytes = keep_bytes(row_count, columns) + columns * 8;
    let bytes = budgets * 8 + columns * 8;
    let cells = row_count * columns;
    let over_bytes = bytes > u128::from(byte_limit)
        || (cell_limit.is_none() && keep_bytes > u128::from(byte_limit));
    let over_cells = cell_limit.is_some_and(|l| cells > u128::from(l));
    if over_bytes || over_cells {
        return Err(too_large(
            rows.len(),
            columns,
            cells,
            if cell_limit.is_none() {
                keep_bytes.max(bytes)
            } else {
                bytes
            },
            match cell_limit {
                Some(l) if over_cells => l,
                _ => byte_limit,
            },
            if over_cells {
                crate::TableLimit::Cells
            } else {
                crate::TableLimit::Bytes
            },
        ));
    }
    let (Ok(columns), Ok(budgets)) = (usize::try_from(columns), usize::try_from(budgets)) else {
        return Err(CtxpackError::TableTooLarge {
            candidates: rows.len(),
            capacity: u64::MAX,
            cells: u64::MAX,
            bytes: u64::MAX,
            limit: byte_limit,
            unit: crate::TableLimit::Bytes,
            bucket_helps: true,
        });
    };
    let total = rows.iter().fold(0i64, |a, r| a.saturating_add(r.1));
    let dp: Vec<i64> = if total < i64::from(i32::MAX) {
        let mut dp = vec![0i32; columns];
        for &(w, p) in &rows {
            row::in_place(&mut dp, w, i32::try_from(p).unwrap_or(i32::MAX), None);
        }
        dp.into_iter().map(i64::from).collect()
    } else {
        let mut dp = vec![0i64; columns];
        for &(w, p) in &rows {
            row::in_place(&mut dp, w, p, None);
        }
        dp
    };
    let bucket = usize::try_from(bucket).unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(budgets);
    out.push(0);
    for t in 1..budgets {
        let c = (t / bucket).min(columns - 1);
        out.push(dp[c].saturating_add(zero_value));
    }
    Ok(out)
}
