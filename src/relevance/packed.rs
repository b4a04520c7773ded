//! Stats as they cross the wasm boundary: one array of `u32`, per text its
//! length in words, its number of matches `m`, then `m` pairs (term, count)
//! ([`pack_stats`], [`unpack_stats`]).

use super::TextStats;
use crate::{CtxpackError, ErrorReason};

/// Packs stats as one array of `u32`, the form they cross the wasm boundary
/// in: per text, its length in words, its number of matches `m`, then `m`
/// pairs (term, count).
///
/// ```
/// use ctxpack_core::relevance::{pack_stats, QueryTerms};
/// let q = QueryTerms::new("dog cat");
/// let stats = [q.stats("cat dog dog"), q.stats("none")];
/// assert_eq!(pack_stats(&stats), [3, 2, 0, 1, 1, 2, 1, 0]);
/// ```
#[must_use]
pub fn pack_stats(stats: &[TextStats]) -> Vec<u32> {
    let len = stats.iter().map(|s| 2 + 2 * s.matches.len()).sum();
    let mut out = Vec::with_capacity(len);
    for s in stats {
        out.push(s.words);
        out.push(u32::try_from(s.matches.len()).unwrap_or(u32::MAX));
        for &(t, c) in &s.matches {
            out.push(t);
            out.push(c);
        }
    }
    out
}

/// Reads what [`pack_stats`] wrote (from one call or several, concatenated).
/// Checks the shape only; [`super::bm25_from_stats`] checks the matches.
///
/// # Errors
/// [`CtxpackError::InvalidInput`] when `packed` ends inside a text's stats.
///
/// ```
/// use ctxpack_core::relevance::{pack_stats, unpack_stats, QueryTerms};
/// let q = QueryTerms::new("dog cat");
/// let stats = vec![q.stats("cat dog dog"), q.stats("none")];
/// assert_eq!(unpack_stats(&pack_stats(&stats)).unwrap(), stats);
/// assert!(unpack_stats(&[3, 2, 0, 1]).is_err());
/// ```
pub fn unpack_stats(packed: &[u32]) -> Result<Vec<TextStats>, CtxpackError> {
    let mut stats = Vec::new();
    let mut rest = packed;
    while let [words, m, tail @ ..] = rest {
        let m = *m as usize;
        let Some(pairs) = m.checked_mul(2).and_then(|len| tail.get(..len)) else {
            return Err(truncated(stats.len(), packed.len()));
        };
        stats.push(TextStats {
            words: *words,
            matches: pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
        });
        rest = &tail[pairs.len()..];
    }
    if rest.is_empty() {
        Ok(stats)
    } else {
        Err(truncated(stats.len(), packed.len()))
    }
}

/// The error of packed stats that end inside text `i`.
fn truncated(i: usize, len: usize) -> CtxpackError {
    CtxpackError::InvalidInput {
        reason: ErrorReason::StatsTruncated { text: i, len },
    }
}

/// Checks that `packed` holds whole texts' stats ([`unpack_stats`]' error).
pub(super) fn check_shape(packed: &[u32]) -> Result<(), CtxpackError> {
    let (mut rest, mut i) = (packed, 0);
    while let [_, m, tail @ ..] = rest {
        let Some(len) = (*m as usize)
            .checked_mul(2)
            .filter(|&len| len <= tail.len())
        else {
            return Err(truncated(i, packed.len()));
        };
        rest = &tail[len..];
        i += 1;
    }
    if rest.is_empty() {
        Ok(())
    } else {
        Err(truncated(i, packed.len()))
    }
}

/// The texts of stats [`check_shape`] accepted: each its length in words and
/// its matches, read in place.
pub(super) fn texts(
    packed: &[u32],
) -> impl Iterator<Item = (u32, impl Iterator<Item = (u32, u32)> + '_)> + '_ {
    let mut rest = packed;
    std::iter::from_fn(move || {
        let [words, m, tail @ ..] = rest else {
            return None;
        };
        let len = (*m as usize).saturating_mul(2).min(tail.len());
        let (pairs, after) = tail.split_at(len);
        rest = after;
        Some((*words, pairs.chunks_exact(2).map(|p| (p[0], p[1]))))
    })
}
