//! The input of a multiple-choice slice and the classes the strategies
//! choose in.

use crate::knapsack::scaled_value;
use crate::{CtxpackError, ErrorReason, Item, Units};

/// The most options a class keeps (the undominated combinations of its
/// members' versions); a group past it is refused.
pub const MAX_OPTIONS: usize = 256;

/// Alternative versions of items: each item's own tokens and score are
/// its version 0 (the full one); [`add`](Self::add) appends versions 1, 2,
/// … (a summary, a stub). At most one version of an item is selected.
///
/// ```
/// use ctxpack_core::{Budget, Groups, GroupedStrategy, Item, Variants};
/// // A 4,000-token tool result, its 300-token summary and a 12-token stub.
/// let items = [Item::new(4_000, 0.9), Item::new(500, 0.5)];
/// let variants = Variants::new(2).add(0, 300, 0.6)?.add(0, 12, 0.1)?;
/// let s = variants.slice(&GroupedStrategy::Greedy, &items, &Groups::new(2), &Budget::new(1_000))?;
/// assert_eq!(s.version, [Some(1), Some(0)]); // the summary, and item 1 in full
/// assert_eq!(s.selection.total_tokens, 800);
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Variants {
    /// Per item, its versions after the first: `(tokens, score)`.
    versions: Vec<Vec<(i64, f64)>>,
}

impl Variants {
    /// No alternative versions for `len` items.
    pub fn new(len: usize) -> Self {
        Variants {
            versions: vec![Vec::new(); len],
        }
    }

    /// Versions given as columns: version `k` belongs to item `class[k]`,
    /// costs `tokens[k]` and is worth `scores[k]`; an item's versions keep
    /// their order in the columns (numbered from 1).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidInput`] for columns of different lengths;
    /// as [`add`](Self::add) for a bad row.
    ///
    /// ```
    /// use ctxpack_core::Variants;
    /// let v = Variants::from_columns(2, &[1, 0, 1], &[10, 20, 5], &[0.5, 0.4, 0.1])?;
    /// assert_eq!((v.versions(0), v.versions(1)), (&[(20, 0.4)][..], &[(10, 0.5), (5, 0.1)][..]));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn from_columns(
        len: usize,
        class: &[usize],
        tokens: &[i64],
        scores: &[f64],
    ) -> Result<Self, CtxpackError> {
        if class.len() != tokens.len() || class.len() != scores.len() {
            return Err(CtxpackError::InvalidInput {
                reason: ErrorReason::Lengths {
                    what: "the variant columns",
                    must: "have equal lengths",
                    lengths: [class.len(), tokens.len(), scores.len()],
                },
            });
        }
        let mut v = Variants::new(len);
        for k in 0..class.len() {
            v = v.add(class[k], tokens[k], scores[k])?;
        }
        Ok(v)
    }

    /// The same variants with one more version of item `item`.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidField`] naming the item: field `variants`
    /// when `item` is out of range, `variants[k].tokens` for negative
    /// tokens, `variants[k].score` for a NaN or infinite score.
    ///
    /// ```
    /// use ctxpack_core::Variants;
    /// let err = Variants::new(1).add(0, 5, 0.1)?.add(0, -1, 0.1).unwrap_err();
    /// assert_eq!((err.field(), err.index()), (Some("variants[1].tokens"), Some(0)));
    /// assert_eq!(Variants::new(1).add(1, 5, 0.1).unwrap_err().code(), "INVALID_FIELD");
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn add(mut self, item: usize, tokens: i64, score: f64) -> Result<Self, CtxpackError> {
        let n = self.versions.len();
        let Some(list) = self.versions.get_mut(item) else {
            return Err(CtxpackError::InvalidField {
                field: "variants".into(),
                index: Some(item),
                reason: ErrorReason::OutOfRange { len: n },
            });
        };
        let k = list.len();
        if tokens < 0 {
            return Err(CtxpackError::InvalidField {
                field: format!("variants[{k}].tokens"),
                index: Some(item),
                reason: ErrorReason::AtLeast {
                    than: None,
                    min: 0,
                    got: tokens,
                },
            });
        }
        if !score.is_finite() {
            return Err(CtxpackError::InvalidField {
                field: format!("variants[{k}].score"),
                index: Some(item),
                reason: ErrorReason::Expected {
                    expected: "a finite number".into(),
                    got: Some(crate::error::js_number(score)),
                },
            });
        }
        list.push((tokens, score));
        Ok(self)
    }

    /// The number of items described.
    pub fn len(&self) -> usize {
        self.versions.len()
    }

    /// Whether no item is described.
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }

    /// Item `item`'s versions after its own (an empty list when out of
    /// range).
    pub fn versions(&self, item: usize) -> &[(i64, f64)] {
        self.versions.get(item).map_or(&[], Vec::as_slice)
    }

    /// Item `item`'s version `v` (0: the item itself).
    pub(crate) fn version(&self, items: &[Item<'_>], item: usize, v: usize) -> (i64, f64) {
        match v {
            0 => (items[item].tokens, items[item].score),
            _ => self.versions[item][v - 1],
        }
    }
}

/// One way to take a class: a version per member.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Opt {
    pub(crate) tokens: i64,
    /// The walks' score: the members' scores summed.
    pub(crate) score: f64,
    /// The knapsack value: the members' scaled values summed (saturating).
    pub(crate) value: i64,
    /// Per member (in member order), its version.
    pub(crate) picks: Vec<u32>,
}

/// A unit's choices: its options, none dominated (no other has at most its
/// tokens and at least its score and value), in order of tokens, then
/// descending score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Class {
    pub(crate) options: Vec<Opt>,
    /// The all-full combination, which the greedy walk orders by.
    pub(crate) full: (i64, f64),
    /// A member has negative tokens: the class is never taken.
    pub(crate) negative: bool,
}

/// The classes of `units`: each unit's options, the undominated sums of
/// one version per member.
///
/// # Errors
/// [`CtxpackError::InvalidInput`] when `variants` does not describe the
/// items; [`CtxpackError::InvalidField`] (field `group`, the unit's first
/// member) when a combination's tokens sum past `limit`, field `variants`
/// when a unit keeps more than [`MAX_OPTIONS`] options.
pub(crate) fn classes(
    units: &Units,
    items: &[Item<'_>],
    variants: &Variants,
    limit: i64,
) -> Result<Vec<Class>, CtxpackError> {
    if variants.len() != items.len() {
        return Err(CtxpackError::InvalidInput {
            reason: ErrorReason::Describes {
                what: "variants",
                describes: variants.len(),
                got: items.len(),
            },
        });
    }
    units
        .members()
        .iter()
        .map(|members| class_of(members, items, variants, limit))
        .collect()
}

fn class_of(
    members: &[usize],
    items: &[Item<'_>],
    variants: &Variants,
    limit: i64,
) -> Result<Class, CtxpackError> {
    let first = members[0];
    let overflow = || CtxpackError::InvalidField {
        field: "group".into(),
        index: Some(first),
        reason: ErrorReason::SumPast { limit },
    };
    let negative = members.iter().any(|&i| items[i].tokens < 0);
    let mut full = (0i64, 0f64);
    let mut options = vec![Opt {
        tokens: 0,
        score: 0.0,
        value: 0,
        picks: Vec::new(),
    }];
    for &i in members {
        let own = items[i].tokens.max(0);
        full.0 = full
            .0
            .checked_add(own)
            .filter(|&t| t <= limit)
            .ok_or_else(overflow)?;
        full.1 += items[i].score;
        let count = 1 + variants.versions(i).len();
        let mut next = Vec::with_capacity(options.len() * count);
        for o in &options {
            for v in 0..count {
                let (t, s) = variants.version(items, i, v);
                let tokens = o.tokens.checked_add(t.max(0)).filter(|&t| t <= limit);
                let mut picks = o.picks.clone();
                picks.push(u32::try_from(v).unwrap_or(u32::MAX));
                next.push(Opt {
                    tokens: tokens.ok_or_else(overflow)?,
                    score: o.score + s,
                    value: o.value.saturating_add(scaled_value(s)),
                    picks,
                });
            }
        }
        options = undominated(next);
        if options.len() > MAX_OPTIONS {
            return Err(CtxpackError::InvalidField {
                field: "variants".into(),
                index: Some(first),
                reason: ErrorReason::TooManyOptions { max: MAX_OPTIONS },
            });
        }
    }
    Ok(Class {
        options,
        full,
        negative,
    })
}

/// The options no other option dominates, by tokens, then descending
/// score, then descending value, then picks (deterministic).
fn undominated(mut options: Vec<Opt>) -> Vec<Opt> {
    crate::sort::sort_stable_by(&mut options, |a, b| {
        a.tokens
            .cmp(&b.tokens)
            .then(b.score.total_cmp(&a.score))
            .then(b.value.cmp(&a.value))
            .then(a.picks.cmp(&b.picks))
    });
    let mut kept: Vec<Opt> = Vec::with_capacity(options.len());
    for o in options {
        // Every kept option has at most `o`'s tokens.
        let dominated = kept
            .iter()
            .any(|k| k.score.total_cmp(&o.score).is_ge() && k.value >= o.value);
        if !dominated {
            kept.push(o);
        }
    }
    kept
}
