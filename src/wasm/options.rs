//! The options object of every entry point that takes one, deserialised
//! through serde into one typed struct and checked field by field, so that
//! every refusal names its option; unknown keys are refused. The numeric
//! entry (`sliceNumeric`) takes two of them as numbers, checked by the same
//! functions ([`target_tokens`], [`max_consecutive_skips`]).

use js_sys::{Array, JsString, Object};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::de::{from_js, Js};
use super::decode::{describe, kind_from_js};
use super::strategies::{simulated, strategy, Engine};
use super::MAX_SAFE_INTEGER;
use crate::error::js_number;
use crate::{
    Budget, BudgetSimulation, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError,
    DependencyMode, ExactCountConstrainedSlice, ExactKnapsackSlice, GreedyPacker, GroupedStrategy,
    KnapsackSlice, ScarcityBehavior, Strategy,
};

/// The options of an entry point, checked: what [`RawOptions`] holds,
/// each refusal naming its option.
pub(super) struct Options {
    /// `dependencies` of the grouped entry points (default `'ignore'`).
    pub(super) dependencies: DependencyMode,
    /// `noun` of the grouped entry points: how errors name the list
    /// (default `items`).
    pub(super) noun: String,
    /// The budget (`targetTokens`, `maxTokens`); `None` for the
    /// simulation entry points, which take `maxBudget` instead.
    pub(super) budget: Option<Budget>,
    /// `maxBudget` of the simulation entry points.
    pub(super) max_budget: Option<i64>,
    pub(super) knapsack: KnapsackSlice,
    /// `bucketSize` as given (the exact count-constrained slice's fixed
    /// bucket when set).
    pub(super) bucket_size: Option<i64>,
    pub(super) max_table_bytes: Option<u64>,
    pub(super) entries: Vec<CountQuotaEntry>,
    pub(super) scarcity: ScarcityBehavior,
    pub(super) max_consecutive_skips: u32,
    pub(super) max_states: Option<usize>,
    pub(super) max_work: Option<u64>,
    pub(super) max_cells: Option<u64>,
    pub(super) compare_heuristic: bool,
}

pub(super) const OPTION_KEYS: [&str; 11] = [
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
pub(super) const SIMULATION_KEYS: [&str; 7] = [
    "maxBudget",
    "bucketSize",
    "maxTableBytes",
    "maxConsecutiveSkips",
    "maxStates",
    "maxWork",
    "maxCells",
];
/// What the grouped entry points (and the simulation) add.
pub(super) const GROUP_KEYS: [&str; 2] = ["dependencies", "noun"];
pub(super) const ENTRY_KEYS: [&str; 3] = ["kind", "requireCount", "capCount"];

/// Which entry point the options belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// A slice: `targetTokens` required.
    Slice,
    /// `sliceGrouped`: a slice, plus `dependencies` and `noun`.
    GroupedSlice,
    /// `groupUnits`: as `sliceGrouped`, but `targetTokens` optional (the
    /// units are built before tokens are counted).
    Units,
    /// `budgetCurve`: `maxBudget` required.
    Curve,
    /// `minBudgetFor`: `maxBudget` optional.
    MinBudget,
}

pub(super) fn invalid_option(option: &str, reason: String) -> CtxpackError {
    CtxpackError::InvalidOption {
        option: option.to_owned(),
        reason,
    }
}

/// Checks that `obj` is a plain object whose keys are all in `known`, and
/// returns the keys it has (as `known`'s names), for [`read`] to read only
/// those.
pub(super) fn known_keys(
    obj: &JsValue,
    known: &[&'static str],
    what: &str,
) -> Result<Vec<&'static str>, CtxpackError> {
    if !obj.is_object() || obj.is_null() || Array::is_array(obj) {
        return Err(invalid_option(
            what,
            format!("must be an object, got {}", describe(obj)),
        ));
    }
    let mut present = Vec::new();
    for key in Object::keys(obj.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        let Some(&name) = known.iter().find(|&&k| k == key) else {
            let name = if what.is_empty() {
                key
            } else {
                format!("{what}.{key}")
            };
            return Err(invalid_option(
                &name,
                format!("is not a known option (known: {})", known.join(", ")),
            ));
        };
        present.push(name);
    }
    Ok(present)
}

/// The options object as it crosses the boundary: one typed struct for
/// every entry point (which keys each accepts: [`Mode`]), deserialised in
/// one call ([`from_js`](super::de::from_js)). Each value is kept as the JS
/// value it is ([`Js`]) and checked below, so that every refusal names its
/// option and describes the value (never its content).
///
/// `deny_unknown_fields` states the intent, but the deserializer reads a
/// struct by its own field names and never sees other keys: unknown keys
/// are refused first, by name, by [`known_keys`] (`Object.keys`), which
/// also says which fields to read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOptions {
    #[serde(default)]
    target_tokens: Js,
    #[serde(default)]
    max_tokens: Js,
    #[serde(default)]
    max_budget: Js,
    #[serde(default)]
    bucket_size: Js,
    #[serde(default)]
    max_table_bytes: Js,
    #[serde(default)]
    entries: Js,
    #[serde(default)]
    scarcity: Js,
    #[serde(default)]
    max_consecutive_skips: Js,
    #[serde(default)]
    max_states: Js,
    #[serde(default)]
    max_work: Js,
    #[serde(default)]
    max_cells: Js,
    #[serde(default)]
    compare_heuristic: Js,
    #[serde(default)]
    dependencies: Js,
    #[serde(default)]
    noun: Js,
}

/// One count entry, as [`RawOptions`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawEntry {
    #[serde(default)]
    kind: Js,
    #[serde(default)]
    require_count: Js,
    #[serde(default)]
    cap_count: Js,
}

/// The one place a deserialisation error becomes a [`CtxpackError`]:
/// `what` names the object; serde's own message is dropped, since it can
/// quote the caller's value.
fn read<T: serde::de::DeserializeOwned>(
    value: &JsValue,
    present: &[&str],
    what: &str,
) -> Result<T, CtxpackError> {
    from_js(value, present)
        .map_err(|_| invalid_option(what, "could not be read as an object".into()))
}

/// An optional whole number in `[min, max]`.
pub(super) fn whole(
    v: &JsValue,
    name: &str,
    min: f64,
    max: f64,
) -> Result<Option<i64>, CtxpackError> {
    if v.is_undefined() {
        return Ok(None);
    }
    whole_number(v.as_f64(), name, min, max, || describe(v)).map(Some)
}

/// A whole number in `[min, max]` (`None`: not a number, described by
/// `got`): the one check of every integer option, given as a JS value or,
/// on the numeric entry points, as a number.
#[allow(clippy::cast_possible_truncation)] // checked to be a whole number in range first
pub(super) fn whole_number(
    n: Option<f64>,
    name: &str,
    min: f64,
    max: f64,
    got: impl FnOnce() -> String,
) -> Result<i64, CtxpackError> {
    match n {
        Some(n) if n.fract() == 0.0 && n >= min && n <= max => Ok(n as i64),
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
                got()
            ),
        )),
    }
}

/// `v` unless it is `undefined` (an absent option).
fn given(v: &JsValue) -> Option<&JsValue> {
    (!v.is_undefined()).then_some(v)
}

/// `targetTokens`, given as a JS value or, on the numeric entry, a number.
pub(super) fn target_tokens(
    n: Option<f64>,
    got: impl FnOnce() -> String,
) -> Result<i64, CtxpackError> {
    whole_number(n, "targetTokens", 0.0, MAX_SAFE_INTEGER, got)
}

/// `maxConsecutiveSkips` (the packer's stop; 0: none), given as a JS value
/// or, on the numeric entry, a number.
pub(super) fn max_consecutive_skips(
    n: Option<f64>,
    got: impl FnOnce() -> String,
) -> Result<u32, CtxpackError> {
    whole_number(n, "maxConsecutiveSkips", 0.0, f64::from(u32::MAX), got)
        .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// `targetTokens` and `maxTokens` of a slice, or `maxBudget` of a
/// simulation.
fn parse_budget(o: &RawOptions, mode: Mode) -> Result<(Option<Budget>, Option<i64>), CtxpackError> {
    if matches!(mode, Mode::Curve | Mode::MinBudget) {
        let m = whole(&o.max_budget.0, "maxBudget", 0.0, MAX_SAFE_INTEGER)?;
        if mode == Mode::Curve && m.is_none() {
            return Err(invalid_option("maxBudget", "is required".into()));
        }
        return Ok((None, m));
    }
    let target = match given(&o.target_tokens.0) {
        Some(v) => target_tokens(v.as_f64(), || describe(v))?,
        None if mode == Mode::Units => return Ok((None, None)),
        None => return Err(invalid_option("targetTokens", "is required".into())),
    };
    let budget = match whole(&o.max_tokens.0, "maxTokens", 0.0, MAX_SAFE_INTEGER)? {
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

/// `dependencies`: `'ignore'` (the default) or `'require'`.
fn parse_dependencies(raw: &JsValue) -> Result<DependencyMode, CtxpackError> {
    match raw.as_string().as_deref() {
        _ if raw.is_undefined() => Ok(DependencyMode::Ignore),
        Some("ignore") => Ok(DependencyMode::Ignore),
        Some("require") => Ok(DependencyMode::Require),
        _ => Err(invalid_option(
            "dependencies",
            format!("must be 'ignore' or 'require', got {}", quoted(raw)),
        )),
    }
}

/// `noun`: the name errors give the list (`candidates[7]…`), a short
/// identifier so that messages never carry arbitrary caller text.
fn parse_noun(raw: &JsValue) -> Result<String, CtxpackError> {
    if raw.is_undefined() {
        return Ok("items".into());
    }
    match raw.as_string() {
        Some(s)
            if !s.is_empty()
                && s.len() <= 32
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_$.".contains(&b)) =>
        {
            Ok(s)
        }
        _ => Err(invalid_option(
            "noun",
            format!(
                "must be an identifier of at most 32 characters, got {}",
                describe(raw)
            ),
        )),
    }
}

/// A short string option as given (quoted), anything else described.
fn quoted(raw: &JsValue) -> String {
    match raw.as_string() {
        Some(text) if text.len() <= 32 => format!("'{text}'"),
        _ => describe(raw),
    }
}

fn parse_scarcity(raw: &JsValue) -> Result<ScarcityBehavior, CtxpackError> {
    match raw.as_string().as_deref() {
        _ if raw.is_undefined() => Ok(ScarcityBehavior::Degrade),
        Some("degrade") => Ok(ScarcityBehavior::Degrade),
        Some("throw") => Ok(ScarcityBehavior::Throw),
        _ => Err(invalid_option(
            "scarcity",
            format!("must be 'degrade' or 'throw', got {}", quoted(raw)),
        )),
    }
}

pub(super) fn parse_options(options: &JsValue, mode: Mode) -> Result<Options, CtxpackError> {
    let known: Vec<&str> = match mode {
        Mode::Slice => OPTION_KEYS.to_vec(),
        Mode::GroupedSlice | Mode::Units => [&OPTION_KEYS[..], &GROUP_KEYS].concat(),
        Mode::Curve | Mode::MinBudget => [&SIMULATION_KEYS[..], &GROUP_KEYS].concat(),
    };
    let present = known_keys(options, &known, "")?;
    let o: RawOptions = read(options, &present, "")?;
    let (budget, max_budget) = parse_budget(&o, mode)?;
    let (mut knapsack, bucket_size) = match o.bucket_size.0.as_f64() {
        _ if o.bucket_size.0.is_undefined() => (KnapsackSlice::default(), None),
        Some(b) if b.fract() == 0.0 && b.abs() <= MAX_SAFE_INTEGER => {
            #[allow(clippy::cast_possible_truncation)] // a safe integer
            let b = b as i64;
            (KnapsackSlice::new(b)?, Some(b))
        }
        _ => {
            return Err(invalid_option(
                "bucketSize",
                format!(
                    "must be a positive integer, got {}",
                    describe(&o.bucket_size.0)
                ),
            ))
        }
    };
    let limit = |v: &JsValue, key: &str| -> Result<Option<u64>, CtxpackError> {
        Ok(whole(v, key, 0.0, MAX_SAFE_INTEGER)?.map(i64::unsigned_abs))
    };
    let max_table_bytes = limit(&o.max_table_bytes.0, "maxTableBytes")?;
    if let Some(limit) = max_table_bytes {
        knapsack = knapsack.with_max_table_bytes(limit);
    }
    let entries = parse_entries(&o.entries.0)?;
    let scarcity = parse_scarcity(&o.scarcity.0)?;
    let max_consecutive_skips = match given(&o.max_consecutive_skips.0) {
        None => crate::DEFAULT_MAX_CONSECUTIVE_SKIPS,
        Some(v) => max_consecutive_skips(v.as_f64(), || describe(v))?,
    };
    let max_states =
        limit(&o.max_states.0, "maxStates")?.map(|v| usize::try_from(v).unwrap_or(usize::MAX));
    let max_work = limit(&o.max_work.0, "maxWork")?;
    let max_cells = limit(&o.max_cells.0, "maxCells")?;
    let compare_heuristic = if o.compare_heuristic.0.is_undefined() {
        true
    } else {
        o.compare_heuristic.0.as_bool().ok_or_else(|| {
            invalid_option(
                "compareHeuristic",
                format!(
                    "must be a boolean, got {}",
                    describe(&o.compare_heuristic.0)
                ),
            )
        })?
    };
    Ok(Options {
        dependencies: parse_dependencies(&o.dependencies.0)?,
        noun: parse_noun(&o.noun.0)?,
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
            let present = known_keys(&e, &ENTRY_KEYS, &at)?;
            let e: RawEntry = read(&e, &present, &at)?;
            let Some(kind) = e.kind.0.dyn_ref::<JsString>().map(kind_from_js) else {
                return Err(invalid_option(
                    &format!("{at}.kind"),
                    format!("must be a string, got {}", describe(&e.kind.0)),
                ));
            };
            let count = |v: &JsValue, key: &str| -> Result<usize, CtxpackError> {
                let name = format!("{at}.{key}");
                whole(v, &name, 0.0, MAX_SAFE_INTEGER)?
                    .ok_or_else(|| invalid_option(&name, "is required".into()))
                    .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
            };
            Ok(CountQuotaEntry::new(
                kind,
                count(&e.require_count.0, "requireCount")?,
                count(&e.cap_count.0, "capCount")?,
            ))
        })
        .collect()
}

pub(super) fn exact_of(o: &Options) -> ExactKnapsackSlice {
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

/// The walks that need no table, the greedy slice and the packer (the
/// planner's numeric entry point); `None` for the other names.
pub(super) fn walk_of(name: &str, max_consecutive_skips: u32) -> Option<GroupedStrategy> {
    let s = strategy(name).ok()?;
    match s.engine {
        Engine::Greedy => Some(GroupedStrategy::Greedy),
        Engine::Packer => Some(GroupedStrategy::Packer(GreedyPacker::new(
            s.skip_limit.unwrap_or(max_consecutive_skips),
        ))),
        _ => None,
    }
}

/// The strategy a slicer name and the options make (every entry point
/// slices through it: `.slicer()` for the plain slices); the name's engine
/// and fixed settings come from [`STRATEGIES`](super::strategies::STRATEGIES).
pub(super) fn strategy_of(name: &str, o: &Options) -> Result<GroupedStrategy, CtxpackError> {
    let s = strategy(name)?;
    Ok(match s.engine {
        Engine::Greedy => GroupedStrategy::Greedy,
        Engine::Packer => GroupedStrategy::Packer(GreedyPacker::new(
            s.skip_limit.unwrap_or(o.max_consecutive_skips),
        )),
        Engine::Knapsack => GroupedStrategy::Knapsack(o.knapsack),
        Engine::CountKnapsack => GroupedStrategy::CountKnapsack(
            CountConstrainedKnapsackSlice::new(o.entries.clone(), o.knapsack, o.scarcity)?,
        ),
        Engine::Exact => GroupedStrategy::Exact(exact_of(o)),
        Engine::ExactCount => {
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
            GroupedStrategy::ExactCount(s)
        }
    })
}

/// The simulated strategy of a slicer name ([`simulated`] refuses the
/// ones simulation cannot model).
pub(super) fn simulation_of(name: &str, o: &Options) -> Result<BudgetSimulation, CtxpackError> {
    let s = simulated(name)?;
    let strategy = match s.engine {
        Engine::Greedy => Strategy::Greedy,
        Engine::Knapsack => Strategy::Knapsack(o.knapsack),
        Engine::Exact => Strategy::Exact(exact_of(o)),
        Engine::Packer => Strategy::Packer(GreedyPacker::new(
            s.skip_limit.unwrap_or(o.max_consecutive_skips),
        )),
        // Not monotonic: refused by `simulated`.
        Engine::CountKnapsack | Engine::ExactCount => {
            return Err(CtxpackError::NotMonotonic {
                slicer: name.to_owned(),
            })
        }
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
