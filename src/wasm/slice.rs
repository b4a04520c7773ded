//! `solveSlice`, the one columnar slice (groups, dependencies and versions
//! included: the core decides which path solves it); `sliceObjects`, one
//! slice of fragment objects; and `sliceNumeric`, the planner's columnar
//! slice with its options as numbers.

use js_sys::{Array, JsString};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::decode::{columnar_items, decode_fragment, kind_names_from_js, Decoded};
use super::encode::{result_object, slice_out, to_js, With};
use super::errors::{to_js_error, with_naming, Refused};
use super::groups::{grouped, Structure};
use super::options::{
    max_consecutive_skips, parse_options, strategy_of, target_tokens, walk_of, Mode, Options,
};
use super::variants::variants;
use crate::error::js_number;
use crate::{Budget, CtxpackError, DependencyMode, ErrorReason, Item};

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

/// The one slice of the slicer functions, `sliceColumns` and the planner:
/// items as columns (`tokens`, `scores`, `kinds` into `kindNames`), their
/// groups and dependencies (`groupOf`, `depOffsets`, `depTargets`, as in
/// `groupUnits`; all empty: none), `origin` (how errors name items, empty:
/// the identity), their alternative versions (`varClass`, `varTokens`,
/// `varScores`, as in `docs/variants.md`; all empty: none) and the
/// options. The core decides how it is solved: without structure or
/// versions by the slicer alone, and the answer is a plain slice's
/// (`selected`, `reasons`, totals, `shortfalls`, `exact`, plus `repaired:
/// false` for a knapsack strategy under `dependencies: 'require'`); with
/// groups or dependencies through the units, adding `groupReasons`,
/// `unitOf`, `unitCount` and `repaired`; with versions also `version`
/// (per item: 0 the item, `k` its `k`-th version, `0xFFFFFFFF` out).
///
/// # Errors
/// A `CtxpackError` JS error: a bad option; arrays of different lengths
/// or of the wrong shape, a kind id outside `kindNames`, a NaN or infinite
/// score (`INVALID_INPUT`, `INVALID_FIELD`, `INVALID_SCORE`); what the
/// strategy refuses of the groups, dependencies and versions (see
/// `groupUnits`); the strategy's own.
#[wasm_bindgen(js_name = solveSlice)]
#[allow(clippy::needless_pass_by_value, clippy::too_many_arguments)] // the JS calling convention
pub fn solve_slice(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: Vec<JsString>,
    group_of: Option<Vec<u32>>,
    dep_offsets: Option<Vec<u32>>,
    dep_targets: Option<Vec<u32>>,
    origin: Option<Vec<u32>>,
    var_class: Option<Vec<u32>>,
    var_tokens: Option<Vec<u32>>,
    var_scores: Option<Vec<f64>>,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    // Optional, so that a call without structure passes nothing for them: an
    // empty array still costs an allocation in the core per column.
    let group_of = group_of.as_deref().unwrap_or_default();
    let dep_offsets = dep_offsets.as_deref().unwrap_or_default();
    let dep_targets = dep_targets.as_deref().unwrap_or_default();
    let origin = origin.as_deref().unwrap_or_default();
    let var_class = var_class.as_deref().unwrap_or_default();
    let var_tokens = var_tokens.as_deref().unwrap_or_default();
    let var_scores = var_scores.as_deref().unwrap_or_default();
    let structure = Structure::new(group_of, dep_offsets, dep_targets, origin);
    let kind_names = kind_names_from_js(&kind_names);
    let versions = (var_class, var_tokens, var_scores);
    let plain = group_of.is_empty() && dep_offsets.is_empty() && dep_targets.is_empty();
    let some_version = !(var_class.is_empty() && var_tokens.is_empty() && var_scores.is_empty());
    with_naming(&options, Mode::GroupedSlice, origin, |o| {
        let columns = (tokens, scores, kinds, &kind_names[..]);
        if some_version {
            variants(slicer, columns, &structure, versions, o)
        } else if plain {
            let items = columnar_items(tokens, scores, kinds, &kind_names)?;
            let strategy = strategy_of(slicer, o)?;
            let selection = strategy
                .slicer()
                .slice(&items, &o.budget.unwrap_or(Budget::new(0)))?;
            // Under required dependencies a knapsack strategy says it
            // repaired nothing, as it does with dependencies to honour.
            if o.dependencies == DependencyMode::Require && !strategy.is_walk() {
                return Ok(to_js(&With {
                    slice: slice_out(&selection),
                    extra: Repaired { repaired: false },
                }));
            }
            Ok(result_object(&selection))
        } else {
            grouped(slicer, columns, &structure, o)
        }
    })
}

/// What a plain slice adds under required dependencies: `repaired`.
#[derive(Serialize)]
struct Repaired {
    repaired: bool,
}

/// The columns of the items: tokens, scores, kind ids, kind names.
pub(super) type ItemColumns<'a> = (&'a [u32], &'a [f64], &'a [u32], &'a [String]);

/// `solveSlice` for `'greedy'` and `'packer'` with the options as
/// numbers (`targetTokens`, `maxConsecutiveSkips`), answering only the
/// selection and the reasons, packed in one array: the number `k` of
/// selected items, the `k` selected indexes in output order, then one
/// reason code per item. For the planner's small calls, where building
/// and reading option and result objects across the boundary cost more
/// than the slice itself.
///
/// # Errors
/// As `solveSlice`; `INVALID_INPUT` for any other slicer.
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
            // Described, never shown: a caller's string.
            reason: ErrorReason::Takes {
                what: "sliceNumeric",
                expected: "'greedy' or 'packer'",
                got: format!("a string of length {}", slicer.encode_utf16().count()),
            },
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
