//! `groupUnits`, `pinClosure` and `solveSlice`'s grouped slice: groups and
//! dependencies around any slicer, decided by the core ([`Units`]); this file only
//! reads the arrays and writes the answer.
//!
//! Groups come as one group index per item (`groupOf`, `0xFFFFFFFF`: none),
//! dependencies as CSR arrays (item `i` depends on
//! `depTargets[depOffsets[i]..depOffsets[i + 1]]`), both empty for none; a
//! target `0xFFFFFFFF` names no item (an id outside the call) and is
//! skipped, kept only so that errors name the caller's position.
//! `origin[i]` (empty: the identity) is item `i`'s index in the caller's
//! list, and `options.noun` the list's name: both only name items in
//! errors.

use js_sys::{JsString, Uint32Array, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::decode::{columnar_items, kind_names_from_js, kinds_of};
use super::encode::{index_f64, slice_out, to_js, With};
use super::errors::with_naming;
use super::options::{strategy_of, Mode, Options};
use super::slice::ItemColumns;
use crate::{Budget, CtxpackError, Decision, DependencyMode, ErrorReason, Groups, Item, Units};

/// `groupOf`'s "no group".
const NO_GROUP: u32 = u32::MAX;

/// The groups and dependencies as the caller gave them.
pub(super) struct Structure<'a> {
    pub(super) group_of: &'a [u32],
    pub(super) dep_offsets: &'a [u32],
    pub(super) dep_targets: &'a [u32],
    pub(super) origin: &'a [u32],
}

fn shape_error(reason: ErrorReason) -> CtxpackError {
    CtxpackError::InvalidInput { reason }
}

/// Refuses an optional per-item array of another length.
fn per_item(name: &'static str, len: usize, n: usize) -> Result<(), CtxpackError> {
    if len == 0 || len == n {
        Ok(())
    } else {
        Err(shape_error(ErrorReason::PerItem {
            what: name,
            or_empty: true,
            got: len,
            items: n,
        }))
    }
}

impl<'a> Structure<'a> {
    /// The arrays as an entry point received them.
    pub(super) fn new(
        group_of: &'a [u32],
        dep_offsets: &'a [u32],
        dep_targets: &'a [u32],
        origin: &'a [u32],
    ) -> Self {
        Structure {
            group_of,
            dep_offsets,
            dep_targets,
            origin,
        }
    }

    /// Groups without dependencies (the simulation).
    pub(super) fn groups_only(group_of: &'a [u32], origin: &'a [u32]) -> Self {
        Self::new(group_of, &[], &[], origin)
    }

    /// The constraints over `n` items: the arrays' shapes checked here,
    /// every index by [`Groups`] (a self-dependency or a target out of
    /// range is `INVALID_FIELD` naming the item).
    pub(super) fn groups(&self, n: usize, mode: DependencyMode) -> Result<Groups, CtxpackError> {
        per_item("groupOf", self.group_of.len(), n)?;
        per_item("origin", self.origin.len(), n)?;
        let mut groups = if self.group_of.is_empty() {
            Groups::new(n)
        } else {
            Groups::from_labels(self.group_of.iter().map(|&g| (g != NO_GROUP).then_some(g)))
        };
        let offsets = self.dep_offsets;
        if offsets.is_empty() {
            if !self.dep_targets.is_empty() {
                return Err(shape_error(
                    "depTargets must be empty when depOffsets is".into(),
                ));
            }
            return Ok(groups.with_mode(mode));
        }
        let well_formed = offsets.len() == n + 1
            && offsets[0] == 0
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets[n] as usize == self.dep_targets.len();
        if !well_formed {
            return Err(shape_error(ErrorReason::DepOffsets {
                want: n + 1,
                targets: self.dep_targets.len(),
            }));
        }
        for (i, w) in offsets.windows(2).enumerate() {
            if w[0] < w[1] {
                let targets = &self.dep_targets[w[0] as usize..w[1] as usize];
                // Targets that name no item keep their place: errors name
                // the caller's position.
                let named = targets
                    .iter()
                    .enumerate()
                    .filter(|&(_, &t)| t != NO_TARGET)
                    .map(|(k, &t)| (k, t as usize));
                groups = groups.depends_on_at(i, named)?;
            }
        }
        Ok(groups.with_mode(mode))
    }
}

/// `depTargets`' "names no item".
const NO_TARGET: u32 = u32::MAX;

/// The units as `groupUnits` and `solveSlice` report them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UnitsOut {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    unit_of: Uint32Array,
    unit_count: f64,
}

pub(super) fn units_out(units: &Units) -> UnitsOut {
    let unit_of: Vec<u32> = units.unit_of().iter().map(|&u| to_u32(u)).collect();
    UnitsOut {
        unit_of: Uint32Array::from(&unit_of[..]),
        unit_count: index_f64(units.len()),
    }
}

/// `groupUnits`' answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UnitMapOut {
    #[serde(flatten)]
    units: UnitsOut,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    unit_size: Uint32Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    needs_other: Uint8Array,
}

/// What `solveSlice`'s grouped slice adds to a slice's result.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GroupedOut {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub(super) group_reasons: Uint8Array,
    #[serde(flatten)]
    pub(super) units: UnitsOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) repaired: Option<bool>,
}

fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The units of the items before their tokens are counted, refusing early
/// what the strategy would refuse: `{ unitOf: Uint32Array, unitCount,
/// unitSize: Uint32Array, needsOther: Uint8Array }`. Units are numbered by
/// their first member in item order; `needsOther[u]` is 1 when unit `u`
/// depends on another (`dependencies: 'require'`). The number of items is
/// the length of the first non-empty array among `kinds`, `groupOf`,
/// `origin` and `depOffsets` (less one); the others must agree. Options:
/// those of `solveSlice` (`targetTokens` optional).
///
/// # Errors
/// A `CtxpackError` JS error: `INVALID_OPTION` for `dependencies:
/// 'require'` with a count-constrained strategy (field `dependencies`) or
/// a unit of several items holding a kind with a count entry (field
/// `group`, the item); `INVALID_FIELD` for a self-dependency or a target
/// out of range (field `dependencies[k]`); `INVALID_INPUT` for arrays of
/// the wrong shape; a bad option.
#[wasm_bindgen(js_name = groupUnits)]
#[allow(clippy::needless_pass_by_value, clippy::too_many_arguments)] // the JS calling convention
pub fn group_units(
    slicer: &str,
    kinds: &[u32],
    kind_names: Vec<JsString>,
    group_of: &[u32],
    dep_offsets: &[u32],
    dep_targets: &[u32],
    origin: &[u32],
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let structure = Structure::new(group_of, dep_offsets, dep_targets, origin);
    let kind_names = kind_names_from_js(&kind_names);
    with_naming(&options, Mode::Units, origin, |o| {
        units_of(slicer, kinds, &kind_names, &structure, o)
    })
}

fn units_of(
    slicer: &str,
    kinds: &[u32],
    kind_names: &[String],
    structure: &Structure<'_>,
    options: &Options,
) -> Result<JsValue, CtxpackError> {
    let n = [
        kinds.len(),
        structure.group_of.len(),
        structure.origin.len(),
        structure.dep_offsets.len().saturating_sub(1),
    ]
    .into_iter()
    .find(|&len| len > 0)
    .unwrap_or(0);
    per_item("kinds", kinds.len(), n)?;
    let strategy = strategy_of(slicer, options)?;
    let units = structure.groups(n, options.dependencies)?.units();
    // Tokens are not counted yet: zero, so that only the structure and the
    // kinds can be refused.
    let items: Vec<Item<'_>> = kinds_of(kinds, kind_names, n)?
        .into_iter()
        .map(|kind| Item {
            tokens: 0,
            score: 0.0,
            kind,
        })
        .collect();
    units.admit(&strategy, &items, i64::from(u32::MAX))?;
    let sizes: Vec<u32> = units.members().iter().map(|m| to_u32(m.len())).collect();
    let needs: Vec<u8> = units
        .needs()
        .iter()
        .map(|ns| u8::from(!ns.is_empty()))
        .collect();
    Ok(to_js(&UnitMapOut {
        units: units_out(&units),
        unit_size: Uint32Array::from(&sizes[..]),
        needs_other: Uint8Array::from(&needs[..]),
    }))
}

/// What pinning items pins ([`Units::closure`]): per item, 1 when it is
/// pinned or must go in with a pinned item (its unit and, under
/// `dependencies: 'require'`, every unit a pinned unit needs,
/// transitively), else 0. `pinned` has one entry per item (nonzero:
/// pinned); `groupOf`, `depOffsets` and `depTargets` are as in
/// `groupUnits`, and the number of items is the length of the first
/// non-empty one among them (less one for `depOffsets`), else `pinned`'s.
/// Options: `dependencies` and `noun` (no reordering: `noun[i]` is item
/// `i`).
///
/// # Errors
/// A `CtxpackError` JS error: `INVALID_FIELD` for a self-dependency or a
/// target out of range (field `dependencies[k]`); `INVALID_INPUT` for
/// arrays of the wrong shape (`pinned` of another length included); a bad
/// option.
#[wasm_bindgen(js_name = pinClosure)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention
pub fn pin_closure(
    group_of: &[u32],
    dep_offsets: &[u32],
    dep_targets: &[u32],
    pinned: &[u8],
    options: JsValue,
) -> Result<Vec<u8>, JsValue> {
    let structure = Structure::new(group_of, dep_offsets, dep_targets, &[]);
    with_naming(&options, Mode::Units, &[], |o| {
        let n = [group_of.len(), dep_offsets.len().saturating_sub(1)]
            .into_iter()
            .find(|&len| len > 0)
            .unwrap_or(pinned.len());
        if pinned.len() != n {
            return Err(shape_error(ErrorReason::PerItem {
                what: "pinned",
                or_empty: false,
                got: pinned.len(),
                items: n,
            }));
        }
        let units = structure.groups(n, o.dependencies)?.units();
        let seeds = (0..n).filter(|&i| pinned[i] != 0);
        Ok(units.closure(seeds)?.into_iter().map(u8::from).collect())
    })
}

/// The slice under groups and dependencies of `solveSlice`: a plain
/// slice's answer over the items (`reasons` with codes 9 `group_excluded`
/// and 10 `dependency_excluded`), plus `groupReasons: Uint8Array` (per
/// item: the unit's own reason for a `group_excluded` member, 255
/// otherwise), `unitOf`, `unitCount` and `repaired` (knapsack strategies
/// under `dependencies: 'require'`: whether the first selection had to
/// drop units; absent otherwise).
///
/// # Errors
/// As `groupUnits`, and a plain slice's; `INVALID_FIELD` (field `group`,
/// the unit's first member) when a unit's tokens sum past 4294967295.
pub(super) fn grouped(
    slicer: &str,
    (tokens, scores, kinds, kind_names): ItemColumns<'_>,
    structure: &Structure<'_>,
    options: &Options,
) -> Result<JsValue, CtxpackError> {
    let items = columnar_items(tokens, scores, kinds, kind_names)?;
    let strategy = strategy_of(slicer, options)?;
    let units = structure.groups(items.len(), options.dependencies)?.units();
    let budget = options.budget.unwrap_or(Budget::new(0));
    let g = units.slice_within(&strategy, &items, &budget, i64::from(u32::MAX))?;
    let group_reasons: Vec<u8> = g
        .group_reasons
        .iter()
        .map(|r| r.map_or(u8::MAX, |r| Decision::Excluded(r).id()))
        .collect();
    Ok(to_js(&With {
        slice: slice_out(&g.selection),
        extra: GroupedOut {
            group_reasons: Uint8Array::from(&group_reasons[..]),
            units: units_out(&units),
            repaired: g.repaired,
        },
    }))
}
