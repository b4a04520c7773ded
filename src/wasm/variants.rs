//! `sliceVariants`: alternative versions of the items (the multiple-choice
//! knapsack, decided by the core's [`Variants`]) under groups and
//! dependencies; this file only reads the arrays and writes the answer.
//!
//! Versions come as columns, one row per alternative version:
//! `varClass[k]` is the item it belongs to, `varTokens[k]` its tokens,
//! `varScores[k]` its score; an item's versions keep their order (numbered
//! from 1, the item itself being 0).

use js_sys::{Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;

use super::decode::columnar_items;
use super::encode::{result_object, set};
use super::errors::with_naming;
use super::groups::{set_units, Structure};
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
    kind_names: Vec<String>,
    group_of: &[u32],
    dep_offsets: &[u32],
    dep_targets: &[u32],
    origin: &[u32],
    var_class: &[u32],
    var_tokens: &[u32],
    var_scores: &[f64],
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let structure = Structure {
        group_of,
        dep_offsets,
        dep_targets,
        origin,
    };
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
    let obj = result_object(&s.selection);
    let group_reasons: Vec<u8> = s
        .group_reasons
        .iter()
        .map(|r| r.map_or(u8::MAX, |r| Decision::Excluded(r).id()))
        .collect();
    set(
        &obj,
        "groupReasons",
        &Uint8Array::from(&group_reasons[..]).into(),
    );
    let version: Vec<u32> = s
        .version
        .iter()
        .map(|v| v.map_or(NONE, |v| u32::try_from(v).unwrap_or(NONE)))
        .collect();
    set(&obj, "version", &Uint32Array::from(&version[..]).into());
    set_units(&obj, &units);
    if let Some(repaired) = s.repaired {
        set(&obj, "repaired", &JsValue::from(repaired));
    }
    Ok(obj)
}
