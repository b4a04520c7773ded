//! `solveSlice`'s slice with alternative versions of the items (the multiple-choice
//! knapsack, decided by the core's [`Variants`]) under groups and
//! dependencies; this file only reads the arrays and writes the answer.
//!
//! Versions come as columns, one row per alternative version:
//! `varClass[k]` is the item it belongs to, `varTokens[k]` its tokens,
//! `varScores[k]` its score; an item's versions keep their order (numbered
//! from 1, the item itself being 0).

use js_sys::{Uint32Array, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::decode::columnar_items;
use super::encode::{slice_out, to_js, With};
use super::groups::{units_out, GroupedOut, Structure};
use super::options::{strategy_of, Options};
use super::slice::ItemColumns;
use crate::{Budget, CtxpackError, Decision, Variants};

/// `version`'s "not selected".
const NONE: u32 = u32::MAX;

/// The slice with alternative versions of `solveSlice`: everything its
/// grouped slice returns, plus `version: Uint32Array` (per item, the
/// version selected: 0 the item itself, `k` its `k`-th alternative;
/// `0xFFFFFFFF` when left out).
///
/// # Errors
/// As the grouped slice; `INVALID_INPUT` for variant columns of different
/// lengths; `INVALID_FIELD` (field `variants`, the item) for a class out
/// of range or a group past 256 undominated combinations;
/// `INVALID_OPTION` (option `variants`) with a count-constrained strategy.
pub(super) fn variants(
    slicer: &str,
    (tokens, scores, kinds, kind_names): ItemColumns<'_>,
    structure: &Structure<'_>,
    (class, var_tokens, var_scores): (&[u32], &[u32], &[f64]),
    options: &Options,
) -> Result<JsValue, CtxpackError> {
    let items = columnar_items(tokens, scores, kinds, kind_names)?;
    let strategy = strategy_of(slicer, options)?;
    let units = structure.groups(items.len(), options.dependencies)?.units();
    let class: Vec<usize> = class.iter().map(|&c| c as usize).collect();
    let var_tokens: Vec<i64> = var_tokens.iter().map(|&t| i64::from(t)).collect();
    let variants = Variants::from_columns(items.len(), &class, &var_tokens, var_scores)?;
    let budget = options.budget.unwrap_or(Budget::new(0));
    let s = variants.slice_within(&strategy, &items, &units, &budget, i64::from(u32::MAX))?;
    let group_reasons: Vec<u8> = s
        .group_reasons
        .iter()
        .map(|r| r.map_or(u8::MAX, |r| Decision::Excluded(r).id()))
        .collect();
    let version: Vec<u32> = s
        .version
        .iter()
        .map(|v| v.map_or(NONE, |v| u32::try_from(v).unwrap_or(NONE)))
        .collect();
    Ok(to_js(&With {
        slice: slice_out(&s.selection),
        extra: VariantsOut {
            grouped: GroupedOut {
                group_reasons: Uint8Array::from(&group_reasons[..]),
                units: units_out(&units),
                repaired: s.repaired,
            },
            version: Uint32Array::from(&version[..]),
        },
    }))
}

/// What the slice with versions adds to a slice's result: the grouped slice's, and the versions.
#[derive(Serialize)]
struct VariantsOut {
    #[serde(flatten)]
    grouped: GroupedOut,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    version: Uint32Array,
}
