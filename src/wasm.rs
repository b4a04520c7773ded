//! The wasm-bindgen boundary: converts and validates, then calls the core.
//!
//! Two ways in, with the same selections:
//! * `sliceColumnar`: token counts as `Uint32Array`, scores as
//!   `Float64Array`, kind ids as `Uint32Array` into a list of kind names;
//! * `sliceObjects`: an array of fragment objects `{ id, cost_tokens,
//!   score?, kind? }`, of which only those four properties are read (a
//!   fragment's `content` is never copied into wasm).
//!
//! `budgetCurve` and `minBudgetFor` answer the budget simulation
//! ([`BudgetSimulation`]) on columns, for the strategies that are
//! monotonic in the budget.
//!
//! A third, `packLazy`, runs the packer with the counts asked for one at a
//! time through a JS callback, only for the items the walk reaches
//! ([`GreedyPacker::slice_lazy`]); errors the callback throws come back
//! unchanged.
//!
//! The slices return a plain object (`selected` as `Uint32Array`, `reasons`
//! as `Uint8Array` of [`Decision::id`]s, totals, shortfalls, and `exact`:
//! the [`ExactReport`] of `'exact'` and `'exact-count'`, `null` for the
//! seed slicers); `budgetCurve` a `Float64Array`. Nothing returned holds
//! wasm memory, so nothing needs `.free()`. Every error becomes a JS
//! `Error` with `name = "CtxpackError"`, `code`, `field` and `index`, in
//! [`to_js_error`] only.

use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::{
    Budget, BudgetSimulation, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError,
    Decision, ExactCountConstrainedSlice, ExactKnapsackSlice, ExactReport, FallbackReason,
    GreedyPacker, GreedySlice, Item, KnapsackSlice, MinBudget, ScarcityBehavior, Selection, Slicer,
    Solver, Strategy,
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

/// The options of every entry point, read property by property so that
/// every refusal names its option, and unknown keys are refused.
struct Options {
    /// The budget (`targetTokens`, `maxTokens`); `None` for the
    /// simulation entry points, which take `maxBudget` instead.
    budget: Option<Budget>,
    /// `maxBudget` of the simulation entry points.
    max_budget: Option<i64>,
    knapsack: KnapsackSlice,
    /// `bucketSize` as given (the exact count-constrained slice's fixed
    /// bucket when set).
    bucket_size: Option<i64>,
    max_table_bytes: Option<u64>,
    entries: Vec<CountQuotaEntry>,
    scarcity: ScarcityBehavior,
    max_consecutive_skips: u32,
    max_states: Option<usize>,
    max_work: Option<u64>,
    max_cells: Option<u64>,
    compare_heuristic: bool,
}

const OPTION_KEYS: [&str; 11] = [
    "targetTokens",
    "maxTokens",
    "bucketSize",
    "maxTableBytes",
    "entries",
    "scarcity",
    "maxConsecutiveSkips",
    "maxStates",
    "maxWork",
    "maxCells",
    "compareHeuristic",
];
/// The simulation entry points: no budget (they span budgets), no count
/// options (count-constrained strategies are refused).
const SIMULATION_KEYS: [&str; 7] = [
    "maxBudget",
    "bucketSize",
    "maxTableBytes",
    "maxConsecutiveSkips",
    "maxStates",
    "maxWork",
    "maxCells",
];
const ENTRY_KEYS: [&str; 3] = ["kind", "requireCount", "capCount"];

/// Which entry point the options belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A slice: `targetTokens` required.
    Slice,
    /// `budgetCurve`: `maxBudget` required.
    Curve,
    /// `minBudgetFor`: `maxBudget` optional.
    MinBudget,
}

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

/// `targetTokens` and `maxTokens` of a slice, or `maxBudget` of a
/// simulation.
fn parse_budget(
    options: &JsValue,
    mode: Mode,
) -> Result<(Option<Budget>, Option<i64>), CtxpackError> {
    if mode != Mode::Slice {
        let m = whole(options, "maxBudget", "maxBudget", 0.0, MAX_SAFE_INTEGER)?;
        if mode == Mode::Curve && m.is_none() {
            return Err(invalid_option("maxBudget", "is required".into()));
        }
        return Ok((None, m));
    }
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
    Ok((Some(budget), None))
}

fn parse_scarcity(options: &JsValue) -> Result<ScarcityBehavior, CtxpackError> {
    let scarcity_raw = property(options, "scarcity");
    match scarcity_raw.as_string().as_deref() {
        _ if scarcity_raw.is_undefined() => Ok(ScarcityBehavior::Degrade),
        Some("degrade") => Ok(ScarcityBehavior::Degrade),
        Some("throw") => Ok(ScarcityBehavior::Throw),
        _ => Err(invalid_option(
            "scarcity",
            format!(
                "must be 'degrade' or 'throw', got {}",
                match scarcity_raw.as_string() {
                    Some(text) if text.len() <= 32 => format!("'{text}'"),
                    _ => describe(&scarcity_raw),
                }
            ),
        )),
    }
}

fn parse_options(options: &JsValue, mode: Mode) -> Result<Options, CtxpackError> {
    if mode == Mode::Slice {
        known_keys(options, &OPTION_KEYS, "")?;
    } else {
        known_keys(options, &SIMULATION_KEYS, "")?;
    }
    let (budget, max_budget) = parse_budget(options, mode)?;
    let bucket_raw = property(options, "bucketSize");
    let (mut knapsack, bucket_size) = match bucket_raw.as_f64() {
        _ if bucket_raw.is_undefined() => (KnapsackSlice::default(), None),
        Some(b) if b.fract() == 0.0 && b.abs() <= MAX_SAFE_INTEGER => {
            #[allow(clippy::cast_possible_truncation)] // a safe integer
            let b = b as i64;
            (KnapsackSlice::new(b)?, Some(b))
        }
        _ => {
            return Err(invalid_option(
                "bucketSize",
                format!("must be a positive integer, got {}", describe(&bucket_raw)),
            ))
        }
    };
    let max_table_bytes = whole(
        options,
        "maxTableBytes",
        "maxTableBytes",
        0.0,
        MAX_SAFE_INTEGER,
    )?
    .map(i64::unsigned_abs);
    if let Some(limit) = max_table_bytes {
        knapsack = knapsack.with_max_table_bytes(limit);
    }
    let entries = parse_entries(&property(options, "entries"))?;
    let scarcity = parse_scarcity(options)?;
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
    let limit = |key: &str| -> Result<Option<u64>, CtxpackError> {
        Ok(whole(options, key, key, 0.0, MAX_SAFE_INTEGER)?.map(i64::unsigned_abs))
    };
    let max_states = limit("maxStates")?.map(|v| usize::try_from(v).unwrap_or(usize::MAX));
    let max_work = limit("maxWork")?;
    let max_cells = limit("maxCells")?;
    let heuristic_raw = property(options, "compareHeuristic");
    let compare_heuristic = if heuristic_raw.is_undefined() {
        true
    } else {
        heuristic_raw.as_bool().ok_or_else(|| {
            invalid_option(
                "compareHeuristic",
                format!("must be a boolean, got {}", describe(&heuristic_raw)),
            )
        })?
    };
    Ok(Options {
        budget,
        max_budget,
        knapsack,
        bucket_size,
        max_table_bytes,
        entries,
        scarcity,
        max_consecutive_skips,
        max_states,
        max_work,
        max_cells,
        compare_heuristic,
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

const SLICER_NAMES: &str =
    "'greedy', 'knapsack', 'count-knapsack', 'packer', 'exact' or 'exact-count'";

fn unknown_slicer(name: &str) -> CtxpackError {
    CtxpackError::InvalidInput {
        reason: format!("slicer must be {SLICER_NAMES}, got '{name}'"),
    }
}

fn exact_of(o: &Options) -> ExactKnapsackSlice {
    let mut e = ExactKnapsackSlice::new();
    if let Some(v) = o.max_states {
        e = e.with_max_states(v);
    }
    if let Some(v) = o.max_work {
        e = e.with_max_work(v);
    }
    if let Some(v) = o.max_table_bytes {
        e = e.with_max_table_bytes(v);
    }
    e
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
        "exact" => Box::new(exact_of(o)),
        "exact-count" => {
            let mut s = ExactCountConstrainedSlice::new(o.entries.clone(), o.scarcity)?;
            if let Some(b) = o.bucket_size {
                s = s.with_bucket_size(b)?;
            }
            if let Some(v) = o.max_cells {
                s = s.with_max_cells(v);
            }
            if let Some(v) = o.max_table_bytes {
                s = s.with_max_table_bytes(v);
            }
            if !o.compare_heuristic {
                s = s.without_heuristic();
            }
            Box::new(s)
        }
        other => return Err(unknown_slicer(other)),
    })
}

/// The simulated strategy of a slicer name; the count-constrained ones are
/// not monotonic in the budget.
fn simulation_of(name: &str, o: &Options) -> Result<BudgetSimulation, CtxpackError> {
    let strategy = match name {
        "greedy" => Strategy::Greedy,
        "knapsack" => Strategy::Knapsack(o.knapsack),
        "exact" => Strategy::Exact(exact_of(o)),
        "packer" => Strategy::Packer(GreedyPacker::new(o.max_consecutive_skips)),
        "count-knapsack" | "exact-count" => {
            return Err(CtxpackError::NotMonotonic {
                slicer: name.to_owned(),
            })
        }
        other => return Err(unknown_slicer(other)),
    };
    let mut sim = BudgetSimulation::new(strategy);
    if let Some(v) = o.max_cells {
        sim = sim.with_max_cells(v);
    }
    if let Some(v) = o.max_table_bytes {
        sim = sim.with_max_table_bytes(v);
    }
    Ok(sim)
}

fn run(slicer: &str, items: &[Item<'_>], options: &Options) -> Result<JsValue, CtxpackError> {
    let budget = options.budget.unwrap_or(Budget::new(0));
    let selection = slicer_of(slicer, options)?.slice(items, &budget)?;
    Ok(result_object(&selection))
}

/// The exact report as a plain object; `null` for the seed slicers.
fn exact_object(report: Option<&ExactReport>) -> JsValue {
    let Some(r) = report else {
        return JsValue::NULL;
    };
    let obj: JsValue = Object::new().into();
    let (solver, bucket, reason) = match r.solver {
        Solver::Exact => ("exact", None, None),
        Solver::Bucketed { bucket_size } => ("bucketed", Some(bucket_size), None),
        Solver::BucketedFallback {
            bucket_size,
            reason,
        } => ("bucketed-fallback", Some(bucket_size), Some(reason)),
    };
    set(&obj, "solver", &JsValue::from_str(solver));
    if let Some(b) = bucket {
        set(&obj, "bucketSize", &JsValue::from(i64_f64(b)));
    }
    if let Some(reason) = reason {
        let reason = match reason {
            FallbackReason::StateLimit => "state-limit",
            FallbackReason::WorkLimit => "work-limit",
            FallbackReason::ValueRange => "value-range",
        };
        set(&obj, "fallbackReason", &JsValue::from_str(reason));
    }
    set(&obj, "value", &JsValue::from(i64_f64(r.value)));
    set(
        &obj,
        "heuristicValue",
        &r.heuristic_value
            .map_or(JsValue::NULL, |v| JsValue::from(i64_f64(v))),
    );
    set(
        &obj,
        "heuristicOverBudget",
        &JsValue::from(r.heuristic_over_budget),
    );
    #[allow(clippy::cast_precision_loss)] // a work counter; exact below 2^53
    let work = r.work as f64;
    set(&obj, "work", &JsValue::from(work));
    set(&obj, "peakStates", &JsValue::from(index_f64(r.peak_states)));
    obj
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
    set(&obj, "exact", &exact_object(s.exact.as_ref()));
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
    let options = parse_options(options, Mode::Slice)?;
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
    let options = parse_options(options, Mode::Slice)?;
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

#[wasm_bindgen]
extern "C" {
    /// A fragment object as the object path reads it: four plain property
    /// reads (`obj.id`, …), compiled into the glue with their names, so no
    /// key crosses the boundary.
    type Fragment;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn id(this: &Fragment) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn cost_tokens(this: &Fragment) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn score(this: &Fragment) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn kind(this: &Fragment) -> Result<JsValue, JsValue>;
}

fn decode_fragment(i: usize, v: &JsValue) -> Result<Decoded, CtxpackError> {
    if !v.is_object() || v.is_null() {
        return Err(CtxpackError::InvalidField {
            field: String::new(),
            index: Some(i),
            reason: format!("must be an object, got {}", describe(v)),
        });
    }
    let f: &Fragment = v.unchecked_ref();
    let id = f.id().unwrap_or(JsValue::UNDEFINED);
    if !id.is_string() {
        return Err(field_error(
            "id",
            i,
            format!("must be a string, got {}", describe(&id)),
        ));
    }
    let raw_tokens = f.cost_tokens().unwrap_or(JsValue::UNDEFINED);
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
    let raw_score = f.score().unwrap_or(JsValue::UNDEFINED);
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
    let raw_kind = f.kind().unwrap_or(JsValue::UNDEFINED);
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
    let options = parse_options(options, Mode::Slice)?;
    let packer = GreedyPacker::new(options.max_consecutive_skips);
    let budget = options.budget.unwrap_or(Budget::new(0));
    let result = packer.slice_lazy(scores, &budget, |i| {
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

/// The items of the simulation entry points (columnar, no kinds), and the
/// walks' per-item values when given (`values` empty: read from the
/// scores).
fn simulation_items(
    tokens: &[u32],
    scores: &[f64],
    values: &[f64],
) -> Result<(Vec<Item<'static>>, Option<Vec<i64>>), CtxpackError> {
    if scores.len() != tokens.len() || !(values.is_empty() || values.len() == tokens.len()) {
        return Err(CtxpackError::InvalidInput {
            reason: format!(
                "tokens, scores and values must have the same length, got {}, {} and {}",
                tokens.len(),
                scores.len(),
                values.len()
            ),
        });
    }
    let items = tokens
        .iter()
        .zip(scores)
        .map(|(&t, &s)| Item::new(i64::from(t), s))
        .collect();
    if values.is_empty() {
        return Ok((items, None));
    }
    let values = values
        .iter()
        .enumerate()
        .map(|(i, &v)| match v {
            v if v.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&v) => {
                #[allow(clippy::cast_possible_truncation)] // a safe integer
                let v = v as i64;
                Ok(v)
            }
            _ => Err(field_error(
                "value",
                i,
                format!(
                    "must be an integer from 0 to 2^53 - 1, got {}",
                    js_number(v)
                ),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((items, Some(values)))
}

/// Budget simulation: the total scaled value the strategy selects at every
/// budget `0..=options.maxBudget` (`BudgetSimulation::curve`), as a
/// `Float64Array` of integers. `values` (empty, or one non-negative
/// integer per item) gives the walks' values when they are not the
/// scores' (merged groups). Options: `maxBudget` (required) and the
/// strategy's own (`bucketSize`, `maxTableBytes`, `maxStates`, `maxWork`,
/// `maxConsecutiveSkips`), and `maxCells`, the simulation's cell limit.
///
/// # Errors
/// A `CtxpackError` JS error: `NOT_MONOTONIC` for `count-knapsack` and
/// `exact-count`, `TABLE_TOO_LARGE` past the guards, `INVALID_SCORE`, or a
/// bad option.
#[wasm_bindgen(js_name = budgetCurve)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn budget_curve(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    values: &[f64],
    options: JsValue,
) -> Result<Float64Array, JsValue> {
    curve(slicer, tokens, scores, values, &options).map_err(|e| to_js_error(&e))
}

fn curve(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    values: &[f64],
    options: &JsValue,
) -> Result<Float64Array, CtxpackError> {
    let options = parse_options(options, Mode::Curve)?;
    let sim = simulation_of(slicer, &options)?;
    let (items, values) = simulation_items(tokens, scores, values)?;
    let max_budget = options.max_budget.unwrap_or(0);
    let curve = match values {
        Some(v) => sim.curve_valued(&items, &v, max_budget)?,
        None => sim.curve(&items, max_budget)?,
    };
    let points: Vec<f64> = curve.into_iter().map(i64_f64).collect();
    Ok(Float64Array::from(&points[..]))
}

/// Budget simulation: where, between 0 and `options.maxBudget` (default:
/// the saturation budget), the strategy selects item `index`
/// (`BudgetSimulation::min_budget_for`): `{ first, stableFrom, ceiling,
/// saturation }`, `first` and `stableFrom` `null` when there is none.
/// Arguments as [`budget_curve`].
///
/// # Errors
/// As [`budget_curve`], and `INVALID_INPUT` for an index out of range.
#[wasm_bindgen(js_name = minBudgetFor)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn min_budget_for(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    values: &[f64],
    index: u32,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    min_budget(slicer, tokens, scores, values, index, &options).map_err(|e| to_js_error(&e))
}

fn min_budget(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    values: &[f64],
    index: u32,
    options: &JsValue,
) -> Result<JsValue, CtxpackError> {
    let options = parse_options(options, Mode::MinBudget)?;
    let sim = simulation_of(slicer, &options)?;
    let (items, values) = simulation_items(tokens, scores, values)?;
    let index = usize::try_from(index).unwrap_or(usize::MAX);
    let m: MinBudget = match values {
        Some(v) => sim.min_budget_valued(&items, &v, index, options.max_budget)?,
        None => sim.min_budget_for(&items, index, options.max_budget)?,
    };
    let obj: JsValue = Object::new().into();
    let opt = |v: Option<i64>| v.map_or(JsValue::NULL, |v| JsValue::from(i64_f64(v)));
    set(&obj, "first", &opt(m.first));
    set(&obj, "stableFrom", &opt(m.stable_from));
    set(&obj, "ceiling", &JsValue::from(i64_f64(m.ceiling)));
    set(&obj, "saturation", &JsValue::from(i64_f64(m.saturation)));
    Ok(obj)
}
