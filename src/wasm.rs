//! The wasm-bindgen boundary: converts and validates, then calls the core.
//!
//! Two ways in, with the same selections:
//! * `sliceColumnar`: token counts as `Uint32Array`, scores as
//!   `Float64Array`, kind ids as `Uint32Array` into a list of kind names;
//! * `sliceObjects`: an array of fragment objects `{ id, cost_tokens,
//!   score?, kind? }`, of which only those four properties are read (a
//!   fragment's `content` is never copied into wasm).
//!
//! Both return a plain object (`selected` as `Uint32Array`, `reasons` as
//! `Uint8Array` of [`Decision::id`]s, totals, shortfalls); nothing returned
//! holds wasm memory, so nothing needs `.free()`. Every error becomes a JS
//! `Error` with `name = "CtxpackError"`, `code`, `field` and `index`, in
//! [`to_js_error`] only.

use js_sys::{Array, Object, Reflect, Uint32Array, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError, Decision, GreedyPacker,
    GreedySlice, Item, KnapsackSlice, ScarcityBehavior, Selection, Slicer,
};

/// Largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The one place a [`CtxpackError`] becomes a JS value.
fn to_js_error(err: &CtxpackError) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    js.set_name("CtxpackError");
    let obj: &JsValue = js.as_ref();
    set(obj, "code", &JsValue::from_str(err.code()));
    if let Some(field) = err.field() {
        set(obj, "field", &JsValue::from_str(field));
    }
    if let Some(index) = err.index() {
        set(obj, "index", &JsValue::from(index_f64(index)));
    }
    js.into()
}

fn set(obj: &JsValue, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object or Error cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

#[allow(clippy::cast_precision_loss)] // indexes and counts stay far below 2^53
fn index_f64(i: usize) -> f64 {
    i as f64
}

#[allow(clippy::cast_precision_loss)]
fn i64_f64(i: i64) -> f64 {
    i as f64
}

/// The options object of both entry points.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    target_tokens: f64,
    max_tokens: Option<f64>,
    bucket_size: Option<f64>,
    max_table_bytes: Option<f64>,
    entries: Option<Vec<EntryIn>>,
    scarcity: Option<String>,
    max_consecutive_skips: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EntryIn {
    kind: String,
    require_count: f64,
    cap_count: f64,
}

/// A whole number in `[min, 2^53 - 1]`, or an error naming the option.
#[allow(clippy::cast_possible_truncation)] // checked to be a safe integer first
fn whole(value: f64, min: f64, option: &str) -> Result<i64, CtxpackError> {
    if value.is_finite() && value.fract() == 0.0 && value >= min && value <= MAX_SAFE_INTEGER {
        Ok(value as i64)
    } else {
        Err(CtxpackError::InvalidOption {
            option: option.to_owned(),
            reason: format!("must be an integer from {min} to 2^53 - 1, got {value}"),
        })
    }
}

fn count(value: f64, option: &str) -> Result<usize, CtxpackError> {
    whole(value, 0.0, option).and_then(|v| {
        usize::try_from(v).map_err(|_| CtxpackError::InvalidOption {
            option: option.to_owned(),
            reason: format!("is too large, got {value}"),
        })
    })
}

fn parse_options(options: JsValue) -> Result<Options, CtxpackError> {
    serde_wasm_bindgen::from_value(options).map_err(|e| CtxpackError::InvalidOption {
        option: String::new(),
        reason: e.to_string(),
    })
}

fn budget_of(o: &Options) -> Result<Budget, CtxpackError> {
    let target = whole(o.target_tokens, 0.0, "targetTokens")?;
    match o.max_tokens {
        None => Ok(Budget::new(target)),
        Some(max) => Budget::with_max(target, whole(max, 0.0, "maxTokens")?),
    }
}

fn knapsack_of(o: &Options) -> Result<KnapsackSlice, CtxpackError> {
    let bucket = match o.bucket_size {
        None => crate::DEFAULT_BUCKET_SIZE,
        Some(b) if b.is_finite() && b.fract() == 0.0 => whole(b, f64::MIN, "bucketSize")?,
        Some(b) => {
            return Err(CtxpackError::InvalidOption {
                option: "bucketSize".into(),
                reason: format!("must be a positive integer, got {b}"),
            })
        }
    };
    let mut slice = KnapsackSlice::new(bucket)?;
    if let Some(limit) = o.max_table_bytes {
        slice = slice.with_max_table_bytes(whole(limit, 0.0, "maxTableBytes")?.unsigned_abs());
    }
    Ok(slice)
}

fn slicer_of(name: &str, o: &Options) -> Result<Box<dyn Slicer>, CtxpackError> {
    Ok(match name {
        "greedy" => Box::new(GreedySlice),
        "knapsack" => Box::new(knapsack_of(o)?),
        "count-knapsack" => {
            let entries = o
                .entries
                .iter()
                .flatten()
                .enumerate()
                .map(|(i, e)| {
                    Ok(CountQuotaEntry::new(
                        e.kind.clone(),
                        count(e.require_count, &format!("entries[{i}].requireCount"))?,
                        count(e.cap_count, &format!("entries[{i}].capCount"))?,
                    ))
                })
                .collect::<Result<Vec<_>, CtxpackError>>()?;
            let scarcity = match o.scarcity.as_deref() {
                None | Some("degrade") => ScarcityBehavior::Degrade,
                Some("throw") => ScarcityBehavior::Throw,
                Some(other) => {
                    return Err(CtxpackError::InvalidOption {
                        option: "scarcity".into(),
                        reason: format!("must be 'degrade' or 'throw', got '{other}'"),
                    })
                }
            };
            Box::new(CountConstrainedKnapsackSlice::new(
                entries,
                knapsack_of(o)?,
                scarcity,
            )?)
        }
        "packer" => {
            let skips = match o.max_consecutive_skips {
                None => crate::DEFAULT_MAX_CONSECUTIVE_SKIPS,
                Some(v) => u32::try_from(whole(v, 0.0, "maxConsecutiveSkips")?).map_err(|_| {
                    CtxpackError::InvalidOption {
                        option: "maxConsecutiveSkips".into(),
                        reason: format!("must be at most 4294967295, got {v}"),
                    }
                })?,
            };
            Box::new(GreedyPacker::new(skips))
        }
        other => {
            return Err(CtxpackError::InvalidOption {
                option: "slicer".into(),
                reason: format!(
                    "must be 'greedy', 'knapsack', 'count-knapsack' or 'packer', got '{other}'"
                ),
            })
        }
    })
}

fn run(slicer: &str, items: &[Item<'_>], options: &Options) -> Result<JsValue, CtxpackError> {
    let budget = budget_of(options)?;
    let selection = slicer_of(slicer, options)?.slice(items, &budget)?;
    Ok(result_object(&selection))
}

fn result_object(s: &Selection) -> JsValue {
    let obj: JsValue = Object::new().into();
    let selected: Vec<u32> = s
        .selected
        .iter()
        .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    let reasons: Vec<u8> = s.decisions.iter().map(|d| d.id()).collect();
    set(&obj, "selected", &Uint32Array::from(&selected[..]).into());
    set(&obj, "reasons", &Uint8Array::from(&reasons[..]).into());
    set(&obj, "totalTokens", &JsValue::from(i64_f64(s.total_tokens)));
    set(&obj, "totalScore", &JsValue::from(s.total_score));
    set(&obj, "overBudget", &JsValue::from(s.over_budget));
    set(
        &obj,
        "overrunTokens",
        &JsValue::from(i64_f64(s.overrun_tokens)),
    );
    set(&obj, "budgetReached", &JsValue::from(s.budget_reached));
    set(
        &obj,
        "skippedCount",
        &JsValue::from(index_f64(s.excluded_count())),
    );
    let shortfalls = Array::new();
    for sf in &s.shortfalls {
        let o: JsValue = Object::new().into();
        set(&o, "kind", &JsValue::from_str(&sf.kind));
        set(
            &o,
            "requiredCount",
            &JsValue::from(index_f64(sf.required_count)),
        );
        set(
            &o,
            "satisfiedCount",
            &JsValue::from(index_f64(sf.satisfied_count)),
        );
        shortfalls.push(&o);
    }
    set(&obj, "shortfalls", &shortfalls.into());
    obj
}

/// The reason codes, indexed by the numbers in a result's `reasons`.
#[wasm_bindgen(js_name = decisionCodes)]
pub fn decision_codes() -> Vec<String> {
    Decision::ALL.iter().map(|d| d.code().to_owned()).collect()
}

/// The columnar fast path.
///
/// # Errors
/// A `CtxpackError` JS error for arrays of different lengths, a kind id
/// outside `kindNames`, a NaN or infinite score, or a bad option.
#[wasm_bindgen(js_name = sliceColumnar)]
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec
pub fn slice_columnar(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: Vec<String>,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    columnar(slicer, tokens, scores, kinds, &kind_names, options).map_err(|e| to_js_error(&e))
}

fn columnar(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: &[String],
    options: JsValue,
) -> Result<JsValue, CtxpackError> {
    let options = parse_options(options)?;
    if scores.len() != tokens.len() || !(kinds.is_empty() || kinds.len() == tokens.len()) {
        return Err(CtxpackError::InvalidInput {
            reason: format!(
                "tokens, scores and kinds must have the same length, got {}, {} and {}",
                tokens.len(),
                scores.len(),
                kinds.len()
            ),
        });
    }
    let items = (0..tokens.len())
        .map(|i| {
            let kind = match kinds.get(i) {
                None => "",
                Some(&k) => kind_names
                    .get(k as usize)
                    .ok_or_else(|| CtxpackError::InvalidField {
                        field: "kind".into(),
                        index: Some(i),
                        reason: format!(
                            "is kind id {k}, but there are {} kind names",
                            kind_names.len()
                        ),
                    })?
                    .as_str(),
            };
            Ok(Item {
                tokens: i64::from(tokens[i]),
                score: scores[i],
                kind,
            })
        })
        .collect::<Result<Vec<_>, CtxpackError>>()?;
    run(slicer, &items, &options)
}

/// The object path: fragments as plain objects.
///
/// # Errors
/// A `CtxpackError` JS error naming the field and the index of the first
/// bad fragment, or the bad option.
#[wasm_bindgen(js_name = sliceObjects)]
pub fn slice_objects(slicer: &str, items: &JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    objects(slicer, items, options).map_err(|e| to_js_error(&e))
}

struct Decoded {
    tokens: i64,
    score: f64,
    kind: String,
}

fn objects(slicer: &str, items: &JsValue, options: JsValue) -> Result<JsValue, CtxpackError> {
    let options = parse_options(options)?;
    if !Array::is_array(items) {
        return Err(CtxpackError::InvalidInput {
            reason: "items must be an array".into(),
        });
    }
    let array: &Array = items.unchecked_ref();
    let decoded = array
        .iter()
        .enumerate()
        .map(|(i, v)| decode_fragment(i, &v))
        .collect::<Result<Vec<_>, CtxpackError>>()?;
    let items: Vec<Item<'_>> = decoded
        .iter()
        .map(|d| Item {
            tokens: d.tokens,
            score: d.score,
            kind: &d.kind,
        })
        .collect();
    run(slicer, &items, &options)
}

fn field_error(field: &str, index: usize, reason: String) -> CtxpackError {
    CtxpackError::InvalidField {
        field: field.into(),
        index: Some(index),
        reason,
    }
}

fn describe(v: &JsValue) -> String {
    if v.is_undefined() {
        "missing".into()
    } else if v.is_null() {
        "null".into()
    } else if let Some(n) = v.as_f64() {
        format!("{n}")
    } else {
        format!("a {}", v.js_typeof().as_string().unwrap_or_default())
    }
}

fn decode_fragment(i: usize, v: &JsValue) -> Result<Decoded, CtxpackError> {
    if !v.is_object() || v.is_null() {
        return Err(CtxpackError::InvalidField {
            field: String::new(),
            index: Some(i),
            reason: format!("must be an object, got {}", describe(v)),
        });
    }
    let get = |key: &str| Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    let id = get("id");
    if id.as_string().is_none() {
        return Err(field_error(
            "id",
            i,
            format!("must be a string, got {}", describe(&id)),
        ));
    }
    let raw_tokens = get("cost_tokens");
    let tokens = match raw_tokens.as_f64() {
        Some(t) if t.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&t) => {
            #[allow(clippy::cast_possible_truncation)] // checked above
            let t = t as i64;
            t
        }
        _ => {
            return Err(field_error(
                "cost_tokens",
                i,
                format!(
                    "must be an integer from 0 to 4294967295, got {}",
                    describe(&raw_tokens)
                ),
            ))
        }
    };
    let raw_score = get("score");
    let score = if raw_score.is_undefined() {
        0.0
    } else {
        raw_score.as_f64().ok_or_else(|| {
            field_error(
                "score",
                i,
                format!("must be a number, got {}", describe(&raw_score)),
            )
        })?
    };
    let raw_kind = get("kind");
    let kind = if raw_kind.is_undefined() {
        String::new()
    } else {
        raw_kind.as_string().ok_or_else(|| {
            field_error(
                "kind",
                i,
                format!("must be a string, got {}", describe(&raw_kind)),
            )
        })?
    };
    Ok(Decoded {
        tokens,
        score,
        kind,
    })
}
