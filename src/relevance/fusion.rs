//! The caller's relevance and how it combines with BM25.
//!
//! A caller gives relevance in one of two forms: per-text scores (any
//! finite number ≥ 0, higher is more relevant), or vectors from an
//! embedding model, from which [`cosine_relevance`] makes scores: the
//! cosine of each text's vector with the query's, negative cosines as 0.
//!
//! [`fuse`] then combines them with the lexical (BM25) scores of the same
//! texts. Only the texts that compete (`competing[i]`) take part; the others
//! get 0. Two rules, both giving values in `[0, 1]` whose highest is 1
//! (unless every score is 0):
//!
//! ```text
//! weighted:  f(i) = (1 − w) · lex(i) / max lex  +  w · caller(i) / max caller
//! rrf:       f(i) = (1 − w) / (k + rank_lex(i))  +  w / (k + rank_caller(i))
//! ```
//!
//! each then divided by its own highest value. `w` is the caller's weight
//! (0: BM25 alone, 1: the caller's relevance alone); a rank is 1-based
//! among the competing texts with a score above 0, by score descending and
//! position ascending on ties; a text whose score is 0 in a list gets
//! nothing from that list. `k` is RRF's constant ([`RRF_K`], 60 as in
//! Cormack et al. 2009).
//!
//! All arithmetic is `f64` in a fixed order, so every platform gives the
//! same bits. Vectors are taken as `f32` (what embedding APIs return) and
//! widened.
//!
//! ```
//! use ctxpack_core::relevance::fusion::{cosine_relevance, fuse, Fusion};
//!
//! // The query's vector, then two texts of dimension 2.
//! let caller = cosine_relevance(&[1.0, 0.0], &[1.0, 0.0, 0.0, 1.0]).unwrap();
//! assert_eq!(caller, [1.0, 0.0]);
//! let lexical = [0.0, 4.0];
//! let fused = fuse(&lexical, &caller, &[true, true], Fusion::Weighted { weight: 0.5 }).unwrap();
//! assert_eq!(fused, [1.0, 1.0]);
//! ```

use crate::{CtxpackError, ErrorReason};

/// RRF's constant: a rank `r` weighs `1 / (RRF_K + r)`.
pub const RRF_K: f64 = 60.0;

/// How [`fuse`] combines the two lists (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fusion {
    /// Weighted sum of max-normalised scores; `weight` is the caller's share.
    Weighted {
        /// The caller's share, 0 to 1.
        weight: f64,
    },
    /// Reciprocal rank fusion with constant `k`; `weight` is the caller's share.
    Rrf {
        /// The caller's share, 0 to 1.
        weight: f64,
        /// RRF's constant (above 0).
        k: f64,
    },
}

/// The relevance of each text from its vector: `max(0, cos(query, text))`.
/// `docs` holds the texts' vectors one after another, each of
/// `query.len()` numbers. A zero vector (the query's or a text's) has
/// relevance 0.
///
/// # Errors
/// [`CtxpackError::InvalidInput`] when the query's vector is empty,
/// `docs.len()` is not a multiple of its length, or a number is not
/// finite.
///
/// ```
/// use ctxpack_core::relevance::fusion::cosine_relevance;
/// let r = cosine_relevance(&[3.0, 4.0], &[6.0, 8.0, -3.0, -4.0, 0.0, 0.0]).unwrap();
/// assert_eq!(r, [1.0, 0.0, 0.0]);
/// assert!(cosine_relevance(&[1.0, 0.0], &[1.0, 0.0, 1.0]).is_err());
/// assert!(cosine_relevance(&[f32::NAN], &[1.0]).is_err());
/// ```
pub fn cosine_relevance(query: &[f32], docs: &[f32]) -> Result<Vec<f64>, CtxpackError> {
    let dim = query.len();
    if dim == 0 || docs.len() % dim != 0 {
        return Err(invalid(ErrorReason::VectorLength {
            dim,
            got: docs.len(),
        }));
    }
    if let Some(i) = query.iter().position(|x| !x.is_finite()) {
        return Err(invalid(ErrorReason::NotFinite {
            vector: None,
            number: i,
        }));
    }
    if let Some(i) = docs.iter().position(|x| !x.is_finite()) {
        return Err(invalid(ErrorReason::NotFinite {
            vector: Some(i / dim),
            number: i % dim,
        }));
    }
    let q_norm = norm(query);
    Ok(docs
        .chunks_exact(dim)
        .map(|d| {
            let d_norm = norm(d);
            if q_norm == 0.0 || d_norm == 0.0 {
                return 0.0;
            }
            let dot = query
                .iter()
                .zip(d)
                .fold(0.0, |s, (&a, &b)| s + f64::from(a) * f64::from(b));
            (dot / (q_norm * d_norm)).clamp(0.0, 1.0)
        })
        .collect())
}

/// The Euclidean norm, summed in order.
fn norm(v: &[f32]) -> f64 {
    v.iter()
        .fold(0.0, |s, &x| s + f64::from(x) * f64::from(x))
        .sqrt()
}

/// Combines `lexical` and `caller` scores of the same texts by `fusion`
/// (see the module documentation). Texts that do not compete get 0.
///
/// # Errors
/// [`CtxpackError::InvalidInput`] when the three slices differ in length,
/// a score is not finite or below 0, or the weight is not in `[0, 1]`
/// (`k` not finite and above 0).
///
/// ```
/// use ctxpack_core::relevance::fusion::{fuse, Fusion, RRF_K};
/// let lexical = [2.0, 1.0, 0.0];
/// let caller = [0.0, 1.0, 3.0];
/// let all = [true, true, true];
/// // The caller's relevance alone, and BM25 alone.
/// assert_eq!(fuse(&lexical, &caller, &all, Fusion::Weighted { weight: 1.0 }).unwrap(), [0.0, 1.0 / 3.0, 1.0]);
/// assert_eq!(fuse(&lexical, &caller, &all, Fusion::Weighted { weight: 0.0 }).unwrap(), [1.0, 0.5, 0.0]);
/// // Ranks: lexical 1, 2, –; caller –, 2, 1. The middle text is second in both.
/// let rrf = fuse(&lexical, &caller, &all, Fusion::Rrf { weight: 0.5, k: RRF_K }).unwrap();
/// assert!(rrf[1] == 1.0 && rrf[0] < 1.0 && rrf[0] == rrf[2]);
/// ```
pub fn fuse(
    lexical: &[f64],
    caller: &[f64],
    competing: &[bool],
    fusion: Fusion,
) -> Result<Vec<f64>, CtxpackError> {
    let n = competing.len();
    if lexical.len() != n || caller.len() != n {
        return Err(invalid(ErrorReason::ScoresPerText {
            lexical: lexical.len(),
            caller: caller.len(),
            texts: n,
        }));
    }
    for (name, list) in [("lexical", lexical), ("caller", caller)] {
        if let Some(i) = list.iter().position(|x| !x.is_finite() || *x < 0.0) {
            return Err(invalid(ErrorReason::Score { list: name, at: i }));
        }
    }
    let (weight, k) = match fusion {
        Fusion::Weighted { weight } => (weight, None),
        Fusion::Rrf { weight, k } => (weight, Some(k)),
    };
    if !(0.0..=1.0).contains(&weight) {
        return Err(invalid("the caller's weight must be from 0 to 1".into()));
    }
    let mut fused = vec![0.0; n];
    match k {
        None => {
            let (ml, mc) = (max_of(lexical, competing), max_of(caller, competing));
            for i in (0..n).filter(|&i| competing[i]) {
                let l = if ml > 0.0 { lexical[i] / ml } else { 0.0 };
                let c = if mc > 0.0 { caller[i] / mc } else { 0.0 };
                fused[i] = (1.0 - weight) * l + weight * c;
            }
        }
        Some(k) => {
            if !(k.is_finite() && k > 0.0) {
                return Err(invalid("RRF's k must be a finite number above 0".into()));
            }
            for (list, share) in [(lexical, 1.0 - weight), (caller, weight)] {
                for (rank, i) in ranks(list, competing).into_iter().enumerate() {
                    fused[i] += share / (k + to_f64(rank + 1));
                }
            }
        }
    }
    let top = max_of(&fused, competing);
    if top > 0.0 {
        for x in &mut fused {
            *x = (*x / top).min(1.0);
        }
    }
    Ok(fused)
}

/// The highest of `list` among the competing texts (0 when none is above 0).
fn max_of(list: &[f64], competing: &[bool]) -> f64 {
    list.iter()
        .zip(competing)
        .filter(|(_, &c)| c)
        .fold(0.0, |m, (&x, _)| if x > m { x } else { m })
}

/// The competing texts with a score above 0, best first (position ascending on ties).
fn ranks(list: &[f64], competing: &[bool]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..list.len())
        .filter(|&i| competing[i] && list[i] > 0.0)
        .collect();
    order.sort_by(|&a, &b| list[b].total_cmp(&list[a]).then(a.cmp(&b)));
    order
}

fn invalid(reason: ErrorReason) -> CtxpackError {
    CtxpackError::InvalidInput { reason }
}

#[allow(clippy::cast_precision_loss)]
fn to_f64(n: usize) -> f64 {
    n as f64
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point: x / max is exactly 1 at the max, 0 stays 0
mod tests {
    use super::*;

    #[test]
    fn cosine_is_scale_free_and_clamped() {
        let r = cosine_relevance(&[1.0, 1.0], &[2.0, 2.0, 1.0, 0.0, -1.0, -1.0]).unwrap();
        assert!((r[0] - 1.0).abs() < 1e-12);
        assert!((r[1] - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-7);
        assert_eq!(r[2], 0.0);
    }

    #[test]
    fn zero_vectors_have_no_relevance() {
        assert_eq!(cosine_relevance(&[0.0, 0.0], &[1.0, 0.0]).unwrap(), [0.0]);
        assert_eq!(cosine_relevance(&[1.0, 0.0], &[0.0, 0.0]).unwrap(), [0.0]);
        assert_eq!(cosine_relevance(&[1.0], &[]).unwrap(), Vec::<f64>::new());
    }

    #[test]
    fn bad_vectors_are_refused_naming_the_place() {
        let e = cosine_relevance(&[1.0, 0.0], &[1.0, 0.0, 0.0, f32::INFINITY]).unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT");
        assert!(e.to_string().contains("vector 1's number 1"));
        assert!(cosine_relevance(&[], &[]).is_err());
    }

    #[test]
    fn non_competing_texts_get_nothing_and_set_no_maximum() {
        let f = fuse(
            &[10.0, 1.0, 2.0],
            &[5.0, 1.0, 0.5],
            &[false, true, true],
            Fusion::Weighted { weight: 0.5 },
        )
        .unwrap();
        assert_eq!(f[0], 0.0);
        // 1: 0.5·0.5 + 0.5·1 = 0.75; 2: 0.5·1 + 0.5·0.5 = 0.75: equal, both the top.
        assert_eq!(f[1], 1.0);
        assert_eq!(f[2], 1.0);
    }

    #[test]
    fn all_zero_stays_zero() {
        let all = [true, true];
        for fusion in [
            Fusion::Weighted { weight: 0.3 },
            Fusion::Rrf {
                weight: 0.3,
                k: RRF_K,
            },
        ] {
            assert_eq!(
                fuse(&[0.0, 0.0], &[0.0, 0.0], &all, fusion).unwrap(),
                [0.0, 0.0]
            );
        }
    }

    #[test]
    fn caller_alone_follows_the_caller() {
        let f = fuse(
            &[3.0, 2.0, 1.0],
            &[1.0, 2.0, 3.0],
            &[true; 3],
            Fusion::Rrf {
                weight: 1.0,
                k: RRF_K,
            },
        )
        .unwrap();
        assert!(f[2] > f[1] && f[1] > f[0]);
        assert_eq!(f[2], 1.0);
    }

    #[test]
    fn rrf_ties_break_by_position() {
        let f = fuse(
            &[1.0, 1.0],
            &[0.0, 0.0],
            &[true, true],
            Fusion::Rrf {
                weight: 0.0,
                k: RRF_K,
            },
        )
        .unwrap();
        assert_eq!(f[0], 1.0);
        assert!(f[1] < 1.0);
    }

    #[test]
    fn bad_inputs_are_refused() {
        let all = [true, true];
        let w = Fusion::Weighted { weight: 0.5 };
        assert!(fuse(&[1.0], &[1.0, 1.0], &all, w).is_err());
        assert!(fuse(&[1.0, f64::NAN], &[1.0, 1.0], &all, w).is_err());
        assert!(fuse(&[1.0, 1.0], &[1.0, -1.0], &all, w).is_err());
        assert!(fuse(
            &[1.0, 1.0],
            &[1.0, 1.0],
            &all,
            Fusion::Weighted { weight: 1.5 }
        )
        .is_err());
        assert!(fuse(
            &[1.0, 1.0],
            &[1.0, 1.0],
            &all,
            Fusion::Rrf {
                weight: 0.5,
                k: 0.0
            }
        )
        .is_err());
    }

    #[test]
    fn same_input_same_bits() {
        let lex: Vec<f64> = (0..50).map(|i| f64::from(i % 7) * 0.37).collect();
        let cal: Vec<f64> = (0..50).map(|i| f64::from((i * 13) % 11) * 0.11).collect();
        let all = vec![true; 50];
        let a = fuse(&lex, &cal, &all, Fusion::Weighted { weight: 0.4 }).unwrap();
        let b = fuse(&lex, &cal, &all, Fusion::Weighted { weight: 0.4 }).unwrap();
        assert_eq!(
            a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert!(a.iter().all(|x| (0.0..=1.0).contains(x)));
    }
}
