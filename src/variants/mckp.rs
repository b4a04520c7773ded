//! The bucketed multiple-choice knapsack: token counts rounded up to
//! multiples of the bucket size, the target rounded down, one DP row per
//! class (`dp::row::class_row`), one keep row per version.

use super::classes::Class;
use crate::dp::guard::{keep_bytes, too_large};
use crate::dp::keep::KeepTable;
use crate::dp::row::class_row;
use crate::{CtxpackError, ExclusionReason, TableLimit};

/// A class as the DP sees it: the option it takes at no weight (its best
/// zero-weight option, if any) and its other options that can improve on
/// it, as `(weight, value above the base, option)`.
pub(crate) struct Row {
    pub(crate) class: usize,
    pub(crate) base: Option<(usize, i64)>,
    pub(crate) versions: Vec<(i64, i64, usize)>,
}

/// The rows of the classes of `pool` under `weight` (tokens to DP weight)
/// and `capacity`: classes with a negative member, or with no option of
/// weight at most `capacity`, get their reason in `reasons` and no row.
pub(crate) fn rows(
    classes: &[Class],
    pool: &[usize],
    capacity: i64,
    weight: impl Fn(i64) -> i64,
    reasons: &mut [ExclusionReason],
) -> Vec<Row> {
    let mut rows = Vec::with_capacity(pool.len());
    for &c in pool {
        let class = &classes[c];
        if class.negative {
            reasons[c] = ExclusionReason::NegativeTokens;
            continue;
        }
        if class.options.iter().all(|o| weight(o.tokens) > capacity) {
            reasons[c] = ExclusionReason::BudgetExceeded;
            continue;
        }
        reasons[c] = ExclusionReason::NotInOptimalSet;
        let mut base: Option<(usize, i64)> = None;
        for (k, o) in class.options.iter().enumerate() {
            if weight(o.tokens) == 0 && base.map_or(true, |(_, v)| o.value > v) {
                base = Some((k, o.value));
            }
        }
        let floor = base.map_or(0, |(_, v)| v);
        let versions = class
            .options
            .iter()
            .enumerate()
            .filter_map(|(k, o)| {
                let w = weight(o.tokens);
                (w >= 1 && w <= capacity && o.value > floor).then_some((w, o.value - floor, k))
            })
            .collect();
        rows.push(Row {
            class: c,
            base,
            versions,
        });
    }
    rows
}

/// Solves the bucketed multiple-choice knapsack over `pool`'s classes:
/// the chosen `(class, option)` in `pool` order; the others' reasons set
/// (`not_in_optimal_set`, `budget_exceeded` when no option's rounded
/// weight fits).
///
/// # Errors
/// [`CtxpackError::TableTooLarge`] when the keep table (a row per version)
/// and the value row would exceed `max_table_bytes`.
pub(crate) fn solve(
    classes: &[Class],
    pool: &[usize],
    target: i64,
    bucket: i64,
    max_table_bytes: u64,
    reasons: &mut [ExclusionReason],
) -> Result<Vec<(usize, usize)>, CtxpackError> {
    let capacity = target / bucket;
    let weight = |t: i64| if t <= 0 { 0 } else { (t - 1) / bucket + 1 };
    let rows = rows(classes, pool, capacity, weight, reasons);
    // Above the sum of every class's heaviest version nothing changes.
    let heaviest: i64 = rows
        .iter()
        .map(|r| r.versions.iter().map(|v| v.0).max().unwrap_or(0))
        .fold(0, i64::saturating_add);
    let capacity = capacity.min(heaviest);
    let version_rows: usize = rows.iter().map(|r| r.versions.len()).sum();
    let columns = u128::try_from(capacity).unwrap_or(0) + 1;
    let bytes = keep_bytes(version_rows as u128, columns) + columns * 8;
    let cells = version_rows as u128 * columns;
    let guard = || {
        too_large(
            version_rows,
            columns,
            cells,
            bytes,
            max_table_bytes,
            TableLimit::Bytes,
        )
    };
    if bytes > u128::from(max_table_bytes) {
        return Err(guard());
    }
    let columns = usize::try_from(columns).map_err(|_| guard())?;
    let mut dp = vec![0i64; columns];
    let mut keep = KeepTable::new(version_rows, columns);
    let mut first = 0;
    let mut firsts = Vec::with_capacity(rows.len());
    let mut dims: Vec<(usize, i64)> = Vec::new();
    for r in &rows {
        firsts.push(first);
        dims.clear();
        // Every weight is in 1..=capacity (checked by `rows`).
        dims.extend(
            r.versions
                .iter()
                .map(|&(w, v, _)| (usize::try_from(w).unwrap_or(usize::MAX), v)),
        );
        let n = dims.len();
        class_row(&mut dp, &dims, Some(keep.rows_mut(first, n)));
        first += n;
    }
    let mut remaining = columns - 1;
    let mut chosen = Vec::new();
    for (r, &first) in rows.iter().zip(&firsts).rev() {
        let taken = (0..r.versions.len())
            .rev()
            .find(|&j| keep.get(first + j, remaining));
        let option = match taken {
            Some(j) => {
                remaining -= usize::try_from(r.versions[j].0).unwrap_or(0);
                Some(r.versions[j].2)
            }
            None => r.base.map(|(k, _)| k),
        };
        if let Some(k) = option {
            chosen.push((r.class, k));
        }
    }
    chosen.reverse();
    Ok(chosen)
}
