//! `sliceVariants`: alternative versions of the items (the multiple-choice
//! knapsack, decided by the core's [`Variants`]) under groups and
//! dependencies; this file only reads the arrays and writes the answer.
//!
//! Versions come as columns, one row per alternative version:
//! `varClass[k]` is the item it belongs to, `varTokens[k]` its tokens,
//! `varScores[k]` its score; an item's versions keep their order (numbered
//! from 1, the item itself being 0).

use js_sys::{JsString, Uint32Array, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::decode::{columnar_items, kind_names_from_js};
use super::encode::{slice_out, to_js, With};
use super::errors::with_naming;
use super::groups::{units_out, GroupedOut, Structure};
use super::options::{strategy_of, Mode, Options};
use crate::{Budget, CtxpackError, Decision, Variants};

/// `version`'s "not selected".
const NONE: u32 = u32::MAX;

/// A slice with alternative versions: everything `sliceGrouped` returns,
/// plus `version: Uint32Array` (per item, the version selected: 0 the item
/// itself, `k` its `k`-th alternative; `0xFFFFFFFF` when left out).
/// Options: `sliceGrouped`'s.
///
/// # Errors
/// As `sliceGrouped`; `INVALID_INPUT` for variant columns of different
/// lengths; `INVALID_FIELD` (field `variants`, the item) for a class out
/// of range or a group past 256 undominated combinations;
/// `INVALID_OPTION` (option `variants`) with a count-constrained strategy.
#[wasm_bindgen(js_name = sliceVariants)]
#[allow(clippy::needless_pass_by_value, clippy::too_many_arguments)] // the JS calling convention
pub fn slice_variants(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: Vec<JsString>,
    group_of: &[u32],
    dep_offsets: &[u32],
    dep_targets: &[u32],
    origin: &[u32],
    var_class: &[u32],
    var_tokens: &[u32],
    var_scores: &[f64],
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let structure = Structure::new(group_of, dep_offsets, dep_targets, origin);
    let kind_names = kind_names_from_js(&kind_names);
    with_naming(&options, Mode::GroupedSlice, origin, |o| {
        let columns = (var_class, var_tokens, var_scores);
        variants(
            slicer,
            tokens,
            scores,
            kinds,
            &kind_names,
            &structure,
            columns,
            o,
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn variants(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: &[String],
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

/// What `sliceVariants` adds to a slice's result: `sliceGrouped`'s, and the versions.
#[derive(Serialize)]
struct VariantsOut {
    #[serde(flatten)]
    grouped: GroupedOut,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    version: Uint32Array,
}
