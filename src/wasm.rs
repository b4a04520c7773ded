//! The wasm-bindgen boundary: converts and validates, then calls the core.
//!
//! Two ways in, with the same selections:
//! * `sliceColumnar`: token counts as `Uint32Array`, scores as
//!   `Float64Array`, kind ids as `Uint32Array` into a list of kind names;
//! * `sliceObjects`: an array of fragment objects `{ id, cost_tokens,
//!   score?, kind? }`, of which only those four properties are read (a
//!   fragment's `content` is never copied into wasm).
//!
//! A third, `packLazy`, runs the packer with the counts asked for one at a
//! time through a JS callback, only for the items the walk reaches
//! ([`GreedyPacker::slice_lazy`]); errors the callback throws come back
//! unchanged.
//!
//! All return a plain object (`selected` as `Uint32Array`, `reasons` as
//! `Uint8Array` of [`Decision::id`]s, totals, shortfalls); nothing returned
//! holds wasm memory, so nothing needs `.free()`. Every error becomes a JS
//! `Error` with `name = "CtxpackError"`, `code`, `field` and `index`, in
//! [`to_js_error`] only.

use js_sys::{Array, Object, Reflect, Uint32Array, Uint8Array};
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
        // The core's own fields in the words JS callers use.
        let field = match err {
            CtxpackError::InvalidBucketSize { .. } => "bucketSize",
            _ => field,
        };
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

/// The options of both entry points, read property by property so that
/// every refusal names its option, and unknown keys are refused.
struct Options {
    budget: Budget,
    knapsack: KnapsackSlice,
    entries: Vec<CountQuotaEntry>,
    scarcity: ScarcityBehavior,
    max_consecutive_skips: u32,
}

const OPTION_KEYS: [&str; 7] = [
    "targetTokens",
    "maxTokens",
    "bucketSize",
    "maxTableBytes",
    "entries",
    "scarcity",
    "maxConsecutiveSkips",
];
const ENTRY_KEYS: [&str; 3] = ["kind", "requireCount", "capCount"];

fn invalid_option(option: &str, reason: String) -> CtxpackError {
    CtxpackError::InvalidOption {
        option: option.to_owned(),
        reason,
    }
}

use crate::error::js_number;

/// Checks that `obj` is a plain object whose keys are all in `known`.
fn known_keys(obj: &JsValue, known: &[&str], what: &str) -> Result<(), CtxpackError> {
    if !obj.is_object() || obj.is_null() || Array::is_array(obj) {
        return Err(invalid_option(
            what,
            format!("must be an object, got {}", describe(obj)),
        ));
    }
    for key in Object::keys(obj.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            let name = if what.is_empty() {
                key
            } else {
                format!("{what}.{key}")
            };
            return Err(invalid_option(
                &name,
                format!("is not a known option (known: {})", known.join(", ")),
            ));
        }
    }
    Ok(())
}

fn property(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// An optional whole number in `[min, max]`.
#[allow(clippy::cast_possible_truncation)] // checked to be a whole number in range first
fn whole(
    obj: &JsValue,
    key: &str,
    name: &str,
    min: f64,
    max: f64,
) -> Result<Option<i64>, CtxpackError> {
    let v = property(obj, key);
    if v.is_undefined() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.fract() == 0.0 && n >= min && n <= max => Ok(Some(n as i64)),
        _ => Err(invalid_option(
            name,
            format!(
                "must be an integer from {} to {}, got {}",
                js_number(min),
                if max == MAX_SAFE_INTEGER {
                    "2^53 - 1".into()
                } else {
                    js_number(max)
                },
                describe(&v)
            ),
        )),
    }
}

fn parse_options(options: &JsValue) -> Result<Options, CtxpackError> {
    known_keys(options, &OPTION_KEYS, "")?;
    let target = whole(
        options,
        "targetTokens",
        "targetTokens",
        0.0,
        MAX_SAFE_INTEGER,
    )?
    .ok_or_else(|| invalid_option("targetTokens", "is required".into()))?;
    let budget = match whole(options, "maxTokens", "maxTokens", 0.0, MAX_SAFE_INTEGER)? {
        None => Budget::new(target),
        Some(max) if max < target => {
            return Err(CtxpackError::InvalidBudget {
                field: "maxTokens",
                reason: format!("must be at least targetTokens ({target}), got {max}"),
            })
        }
        Some(max) => Budget::with_max(target, max)?,
    };
    let bucket_raw = property(options, "bucketSize");
    let mut knapsack = match bucket_raw.as_f64() {
        _ if bucket_raw.is_undefined() => KnapsackSlice::default(),
        Some(b) if b.fract() == 0.0 && b.abs() <= MAX_SAFE_INTEGER => {
            #[allow(clippy::cast_possible_truncation)] // a safe integer
            let b = b as i64;
            KnapsackSlice::new(b)?
        }
        _ => {
            return Err(invalid_option(
                "bucketSize",
                format!("must be a positive integer, got {}", describe(&bucket_raw)),
            ))
        }
    };
    if let Some(limit) = whole(
        options,
        "maxTableBytes",
        "maxTableBytes",
        0.0,
        MAX_SAFE_INTEGER,
    )? {
        knapsack = knapsack.with_max_table_bytes(limit.unsigned_abs());
    }
    let entries = parse_entries(&property(options, "entries"))?;
    let scarcity_raw = property(options, "scarcity");
    let scarcity = match scarcity_raw.as_string().as_deref() {
        _ if scarcity_raw.is_undefined() => ScarcityBehavior::Degrade,
        Some("degrade") => ScarcityBehavior::Degrade,
        Some("throw") => ScarcityBehavior::Throw,
        _ => {
            return Err(invalid_option(
                "scarcity",
                format!(
                    "must be 'degrade' or 'throw', got {}",
                    match scarcity_raw.as_string() {
                        Some(text) if text.len() <= 32 => format!("'{text}'"),
                        _ => describe(&scarcity_raw),
                    }
                ),
            ))
        }
    };
    let max_consecutive_skips = match whole(
        options,
        "maxConsecutiveSkips",
        "maxConsecutiveSkips",
        0.0,
        f64::from(u32::MAX),
    )? {
        None => crate::DEFAULT_MAX_CONSECUTIVE_SKIPS,
        Some(v) => u32::try_from(v).unwrap_or(u32::MAX),
    };
    Ok(Options {
        budget,
        knapsack,
        entries,
        scarcity,
        max_consecutive_skips,
    })
}

fn parse_entries(value: &JsValue) -> Result<Vec<CountQuotaEntry>, CtxpackError> {
    if value.is_undefined() {
        return Ok(Vec::new());
    }
    if !Array::is_array(value) {
        return Err(invalid_option(
            "entries",
            format!(
                "must be an array of {{ kind, requireCount, capCount }}, got {}",
                describe(value)
            ),
        ));
    }
    let array: &Array = value.unchecked_ref();
    array
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let at = format!("entries[{i}]");
            known_keys(&e, &ENTRY_KEYS, &at)?;
            let kind = property(&e, "kind");
            let Some(kind) = kind.as_string() else {
                return Err(invalid_option(
                    &format!("{at}.kind"),
                    format!("must be a string, got {}", describe(&kind)),
                ));
            };
            let count = |key: &str| -> Result<usize, CtxpackError> {
                let name = format!("{at}.{key}");
                whole(&e, key, &name, 0.0, MAX_SAFE_INTEGER)?
                    .ok_or_else(|| invalid_option(&name, "is required".into()))
                    .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
            };
            Ok(CountQuotaEntry::new(
                kind,
                count("requireCount")?,
                count("capCount")?,
            ))
        })
        .collect()
}

fn slicer_of(name: &str, o: &Options) -> Result<Box<dyn Slicer>, CtxpackError> {
    Ok(match name {
        "greedy" => Box::new(GreedySlice),
        "knapsack" => Box::new(o.knapsack),
        "count-knapsack" => Box::new(CountConstrainedKnapsackSlice::new(
            o.entries.clone(),
            o.knapsack,
            o.scarcity,
        )?),
        "packer" => Box::new(GreedyPacker::new(o.max_consecutive_skips)),
        other => {
            return Err(CtxpackError::InvalidInput {
                reason: format!(
                "slicer must be 'greedy', 'knapsack', 'count-knapsack' or 'packer', got '{other}'"
            ),
            })
        }
    })
}

fn run(slicer: &str, items: &[Item<'_>], options: &Options) -> Result<JsValue, CtxpackError> {
    let selection = slicer_of(slicer, options)?.slice(items, &options.budget)?;
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
#[allow(clippy::needless_pass_by_value)] // wasm-bindgen hands over an owned Vec and JsValue
pub fn slice_columnar(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: Vec<String>,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    columnar(slicer, tokens, scores, kinds, &kind_names, &options).map_err(|e| to_js_error(&e))
}

fn columnar(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: &[String],
    options: &JsValue,
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
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn slice_objects(slicer: &str, items: &JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    objects(slicer, items, &options).map_err(|e| to_js_error(&e))
}

struct Decoded {
    tokens: i64,
    score: f64,
    kind: String,
}

fn objects(slicer: &str, items: &JsValue, options: &JsValue) -> Result<JsValue, CtxpackError> {
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
        js_number(n)
    } else if Array::is_array(v) {
        "an array".into()
    } else {
        let ty = v.js_typeof().as_string().unwrap_or_default();
        let article = if ty.starts_with('o') { "an" } else { "a" };
        format!("{article} {ty}")
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

/// Why [`pack_lazy`] failed: the core refused, or the count callback threw.
enum LazyError {
    Core(CtxpackError),
    /// What the callback threw, handed back to JS unchanged.
    Thrown(JsValue),
}

impl From<CtxpackError> for LazyError {
    fn from(e: CtxpackError) -> Self {
        LazyError::Core(e)
    }
}

/// The packer with lazy counts: `count(i)` is called (with `this`
/// undefined) for item `i` only when the walk reaches it, in order and once
/// each, and must return its token count, an integer from 0 to
/// 4294967295. `scores` gives the number of items and their scores; the
/// options are those of the other entry points (`targetTokens`,
/// `maxConsecutiveSkips`, …). The result is that of `sliceColumnar` for
/// `'packer'`, plus `counted`: how many counts were asked for (items
/// `0..counted`).
///
/// # Errors
/// What `count` throws, unchanged (the walk stops at once); otherwise a
/// `CtxpackError` JS error for a bad option, a NaN or infinite score, or a
/// count that is not an integer from 0 to 4294967295 (`INVALID_FIELD`,
/// field `tokens`, with the item's index).
#[wasm_bindgen(js_name = packLazy)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn pack_lazy(
    scores: &[f64],
    options: JsValue,
    count: &js_sys::Function,
) -> Result<JsValue, JsValue> {
    lazy(scores, &options, count).map_err(|e| match e {
        LazyError::Core(e) => to_js_error(&e),
        LazyError::Thrown(v) => v,
    })
}

fn lazy(scores: &[f64], options: &JsValue, count: &js_sys::Function) -> Result<JsValue, LazyError> {
    let options = parse_options(options)?;
    let packer = GreedyPacker::new(options.max_consecutive_skips);
    let result = packer.slice_lazy(scores, &options.budget, |i| {
        let v = count
            .call1(&JsValue::UNDEFINED, &JsValue::from(index_f64(i)))
            .map_err(LazyError::Thrown)?;
        match v.as_f64() {
            Some(t) if t.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&t) => {
                #[allow(clippy::cast_possible_truncation)] // checked above
                let t = t as i64;
                Ok(t)
            }
            _ => Err(LazyError::Core(field_error(
                "tokens",
                i,
                format!(
                    "must be counted as an integer from 0 to 4294967295, got {}",
                    describe(&v)
                ),
            ))),
        }
    })?;
    let obj = result_object(&result.selection);
    set(&obj, "counted", &JsValue::from(index_f64(result.counted)));
    Ok(obj)
}
