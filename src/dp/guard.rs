//! The size guard of every knapsack DP: what its tables cost and the one
//! `TABLE_TOO_LARGE` error they raise past a limit.

use crate::{CtxpackError, TableLimit};

/// Bytes of a keep table of `rows` rows over `columns` cells: one bit per
/// cell, each row padded to whole 64-bit words.
pub(crate) fn keep_bytes(rows: u128, columns: u128) -> u128 {
    rows * columns.div_ceil(64) * 8
}

/// [`CtxpackError::TableTooLarge`] for a DP of `rows` rows over `columns`
/// cells (capacity `columns − 1`), clamping what exceeds `u64`.
pub(crate) fn too_large(
    rows: usize,
    columns: u128,
    cells: u128,
    bytes: u128,
    limit: u64,
    unit: TableLimit,
) -> CtxpackError {
    let clamp = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
    CtxpackError::TableTooLarge {
        candidates: rows,
        capacity: clamp(columns.saturating_sub(1)),
        cells: clamp(cells),
        bytes: clamp(bytes),
        limit,
        unit,
        bucket_helps: true,
    }
}
