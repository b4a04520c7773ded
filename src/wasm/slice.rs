//! `sliceColumnar` and `sliceObjects`: one slice, without groups; and
//! `sliceNumeric`, the planner's columnar slice with its options as numbers.

use js_sys::{Array, JsString};
use wasm_bindgen::prelude::*;

use super::decode::{columnar_items, decode_fragment, kind_names_from_js, Decoded};
use super::encode::result_object;
use super::errors::{to_js_error, Refused};
use super::options::{
    max_consecutive_skips, parse_options, strategy_of, target_tokens, walk_of, Mode, Options,
};
use crate::error::js_number;
use crate::{Budget, CtxpackError, Item};

pub(super) fn run(
    slicer: &str,
    items: &[Item<'_>],
    options: &Options,
) -> Result<JsValue, CtxpackError> {
    let budget = options.budget.unwrap_or(Budget::new(0));
    let selection = strategy_of(slicer, options)?
        .slicer()
        .slice(items, &budget)?;
    Ok(result_object(&selection))
}

/// The columnar fast path.
///
/// # Errors
/// A `CtxpackError` JS error for arrays of different lengths, a kind id
/// outside `kindNames`, a NaN or infinite score, or a bad option.
#[wasm_bindgen(js_name = sliceColumnar)]
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec and JsValue
pub fn slice_columnar(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: Vec<JsString>,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let kind_names = kind_names_from_js(&kind_names);
    columnar(slicer, tokens, scores, kinds, &kind_names, &options).map_err(|e| to_js_error(&e))
}

pub(super) fn columnar(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: &[String],
    options: &JsValue,
) -> Result<JsValue, CtxpackError> {
    let options = parse_options(options, Mode::Slice)?;
    let items = columnar_items(tokens, scores, kinds, kind_names)?;
    run(slicer, &items, &options)
}

/// `sliceColumnar` for `'greedy'` and `'packer'` with the options as
/// numbers (`targetTokens`, `maxConsecutiveSkips`), answering only the
/// selection and the reasons, packed in one array: the number `k` of
/// selected items, the `k` selected indexes in output order, then one
/// reason code per item. For the planner's small calls, where building
/// and reading option and result objects across the boundary cost more
/// than the slice itself.
///
/// # Errors
/// As `sliceColumnar`; `INVALID_INPUT` for any other slicer.
#[wasm_bindgen(js_name = sliceNumeric)]
pub fn slice_numeric(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    target_tokens: f64,
    max_consecutive_skips: f64,
) -> Result<Vec<u32>, JsValue> {
    numeric(slicer, tokens, scores, target_tokens, max_consecutive_skips)
        .map_err(|e| to_js_error(&e))
}

fn numeric(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    target: f64,
    skips: f64,
) -> Result<Vec<u32>, CtxpackError> {
    let target = target_tokens(Some(target), || js_number(target))?;
    let skips = max_consecutive_skips(Some(skips), || js_number(skips))?;
    let Some(strategy) = walk_of(slicer, skips) else {
        return Err(CtxpackError::InvalidInput {
            reason: format!("sliceNumeric takes 'greedy' or 'packer', got '{slicer}'"),
        });
    };
    let items = columnar_items(tokens, scores, &[], &[])?;
    let selection = strategy.slicer().slice(&items, &Budget::new(target))?;
    let to_u32 = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(1 + selection.selected.len() + items.len());
    out.push(to_u32(selection.selected.len()));
    out.extend(selection.selected.iter().map(|&i| to_u32(i)));
    out.extend(selection.decisions.iter().map(|d| u32::from(d.id())));
    Ok(out)
}

/// The object path: fragments as plain objects.
///
/// # Errors
/// A `CtxpackError` JS error naming the field and the index of the first
/// bad fragment, or the bad option.
#[wasm_bindgen(js_name = sliceObjects)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn slice_objects(slicer: &str, items: &JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    objects(slicer, items, &options).map_err(Refused::into_js)
}

/// The fragments' reader through serde-wasm-bindgen, for `make bench`'s
/// side-by-side measurement only (see `bench/serde-fragments.mjs`).
#[cfg(feature = "serde-fragments")]
#[wasm_bindgen(js_name = sliceObjectsSerde)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn slice_objects_serde(
    slicer: &str,
    items: &JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    objects_with(
        slicer,
        items,
        &options,
        super::decode::decode_fragment_serde,
    )
    .map_err(Refused::into_js)
}

// Fragments are read through four structural getters, not serde-wasm-bindgen:
// `make bench` measures both side by side (bench/RESULTS.md, "The object
// path"): serde-wasm-bindgen took 50–84 % longer per object than the getters
// in every run on the shared 2-core machine (n = 100k: 0.66 against 1.20 µs
// on a quiet one), far past the 10 % it may cost.
// Serde also reads without `catch`, so a throwing getter would escape as a
// raw exception instead of INVALID_INPUT with its cause.
pub(super) fn objects(
    slicer: &str,
    items: &JsValue,
    options: &JsValue,
) -> Result<JsValue, Refused> {
    objects_with(slicer, items, options, decode_fragment)
}

fn objects_with(
    slicer: &str,
    items: &JsValue,
    options: &JsValue,
    decode: fn(usize, &JsValue) -> Result<Decoded, Refused>,
) -> Result<JsValue, Refused> {
    let options = parse_options(options, Mode::Slice)?;
    if !Array::is_array(items) {
        return Err(CtxpackError::InvalidInput {
            reason: "items must be an array".into(),
        }
        .into());
    }
    let array: &Array = items.unchecked_ref();
    let decoded = array
        .iter()
        .enumerate()
        .map(|(i, v)| decode(i, &v))
        .collect::<Result<Vec<_>, Refused>>()?;
    let items: Vec<Item<'_>> = decoded
        .iter()
        .map(|d| Item {
            tokens: d.tokens,
            score: d.score,
            kind: &d.kind,
        })
        .collect();
    Ok(run(slicer, &items, &options)?)
}
