//! The options object of every entry point that takes one, deserialised
//! through serde into one typed struct ([`RawOptions`]: each field its type,
//! limits and default), so that every refusal names its option; unknown keys
//! are refused. What no type says (an option required by one entry point,
//! `maxTokens` at least `targetTokens`, the count entries' consistency) is
//! checked after. The numeric entry (`sliceNumeric`) takes two of them as
//! numbers, checked by the same bounds ([`target_tokens`],
//! [`max_consecutive_skips`]).

use js_sys::{Array, Object};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::de::{from_js, Error as DeError, Whole, SAFE};
use super::decode::expected;
use super::strategies::{simulated, strategy, Engine};
use super::MAX_SAFE_INTEGER;
use crate::{
    Budget, BudgetSimulation, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError,
    DependencyMode, ErrorReason, ExactCountConstrainedSlice, ExactKnapsackSlice, GreedyPacker,
    GroupedStrategy, KnapsackSlice, ScarcityBehavior, Strategy,
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

/// Which entry point the options belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// A slice: `targetTokens` required.
    Slice,
    /// `solveSlice`: a slice, plus `dependencies` and `noun`.
    GroupedSlice,
    /// `groupUnits`: as `solveSlice`, but `targetTokens` optional (the
    /// units are built before tokens are counted).
    Units,
    /// `budgetCurve`: `maxBudget` required.
    Curve,
    /// `minBudgetFor`: `maxBudget` optional.
    MinBudget,
}

pub(super) fn invalid_option(option: &str, reason: ErrorReason) -> CtxpackError {
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
        return Err(invalid_option(what, expected("an object", obj)));
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
                ErrorReason::Unknown {
                    what: "a known option",
                    known: known.to_vec(),
                },
            ));
        };
        present.push(name);
    }
    Ok(present)
}

/// `maxConsecutiveSkips`' bound: the packer counts misses in a `u32`.
const U32: u64 = u32::MAX as u64;

/// The options object as it crosses the boundary: one typed struct for
/// every entry point (which keys each accepts: [`Mode`]), deserialised in
/// one call ([`from_js`]), each field refused by its type with its name, what
/// it takes and what it got (described, never shown).
///
/// `deny_unknown_fields` states the intent, but the deserializer reads a
/// struct by its own field names and never sees other keys: unknown keys
/// are refused first, by name, by [`known_keys`] (`Object.keys`), which
/// also says which fields to read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "an object")]
struct RawOptions {
    target_tokens: Option<Whole<0, SAFE>>,
    max_tokens: Option<Whole<0, SAFE>>,
    max_budget: Option<Whole<0, SAFE>>,
    bucket_size: Option<BucketSize>,
    /// At least 1: a limit of 0 would refuse every table.
    max_table_bytes: Option<Whole<1, SAFE>>,
    entries: Option<Entries>,
    scarcity: Option<Scarcity>,
    max_consecutive_skips: Option<Whole<0, U32>>,
    max_states: Option<Whole<0, SAFE>>,
    max_work: Option<Whole<0, SAFE>>,
    max_cells: Option<Whole<1, SAFE>>,
    compare_heuristic: Option<bool>,
    dependencies: Option<Dependencies>,
    noun: Option<Noun>,
}

/// `bucketSize`: any integer (the knapsack refuses one below 1 with
/// `INVALID_BUCKET_SIZE`, as does [`refusal`] anything else).
struct BucketSize(i64);

impl<'de> Deserialize<'de> for BucketSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = BucketSize;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a positive integer")
            }
            #[allow(clippy::cast_possible_truncation)] // a safe integer
            fn visit_f64<E: serde::de::Error>(self, b: f64) -> Result<BucketSize, E> {
                if b.fract() == 0.0 && b.abs() <= MAX_SAFE_INTEGER {
                    Ok(BucketSize(b as i64))
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Other(""), &self))
                }
            }
        }
        d.deserialize_f64(V)
    }
}

/// `entries`: the count entries.
struct Entries(Vec<CountQuotaEntry>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of { kind, requireCount, capCount }")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(e) = seq.next_element::<RawEntry>()? {
                    let count = |v: Whole<0, SAFE>| usize::try_from(v.0).unwrap_or(usize::MAX);
                    entries.push(CountQuotaEntry::new(
                        e.kind,
                        count(e.require_count),
                        count(e.cap_count),
                    ));
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_seq(V)
    }
}

/// One count entry; every field required. The kind keeps JS's code units
/// (lone surrogates are distinct kinds, as in JS).
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an object { kind, requireCount, capCount }"
)]
struct RawEntry {
    kind: String,
    require_count: Whole<0, SAFE>,
    cap_count: Whole<0, SAFE>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase", expecting = "'degrade' or 'throw'")]
enum Scarcity {
    Degrade,
    Throw,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase", expecting = "'ignore' or 'require'")]
enum Dependencies {
    Ignore,
    Require,
}

/// `noun`: the name errors give the list (`candidates[7]…`), a short
/// identifier so that messages never carry arbitrary caller text.
struct Noun(String);

impl<'de> Deserialize<'de> for Noun {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const EXPECTED: &str = "an identifier of at most 32 characters";
        let s = String::deserialize(d).map_err(|_| {
            serde::de::Error::invalid_value(serde::de::Unexpected::Other(""), &EXPECTED)
        })?;
        let ok = !s.is_empty()
            && s.len() <= 32
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_$.".contains(&b));
        if ok {
            Ok(Noun(s))
        } else {
            Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Other(""),
                &EXPECTED,
            ))
        }
    }
}

/// The one place a deserialisation error becomes a [`CtxpackError`]: the
/// option's path, what it takes, what it got. The count entries' problems
/// are `INVALID_COUNT_ENTRY`, as their consistency's are.
fn refusal(e: DeError) -> CtxpackError {
    let (path, reason) = match e {
        // The bucket size's own code, whatever is wrong with it.
        DeError::Invalid { path, got, .. } if path == "bucketSize" => {
            return CtxpackError::BucketSizeNotInteger { got }
        }
        DeError::Invalid {
            path,
            expected,
            got,
        } => (
            path,
            ErrorReason::Expected {
                expected: expected.into(),
                got: Some(got),
            },
        ),
        DeError::Missing { path } => (path, ErrorReason::Required),
        DeError::Unknown { path, known } => {
            let what = if path.starts_with("entries") {
                "a field of a count entry"
            } else {
                "a known option"
            };
            (
                path,
                ErrorReason::Unknown {
                    what,
                    known: known.to_vec(),
                },
            )
        }
        DeError::Unreadable { path } => (path, ErrorReason::Unreadable),
        DeError::Bare { expected } => (
            String::new(),
            ErrorReason::Expected {
                expected: expected.into(),
                got: None,
            },
        ),
        DeError::MissingField(field) => (field.to_owned(), ErrorReason::Required),
    };
    match count_entry_path(&path) {
        Some((index, member)) => CtxpackError::CountEntryShape {
            index,
            member: member.to_owned(),
            reason,
        },
        None => invalid_option(&path, reason),
    }
}

/// `entries`, `entries[k]` or `entries[k].member` (the paths [`from_js`]
/// writes under the count entries) as the entry's index and member.
fn count_entry_path(path: &str) -> Option<(Option<usize>, &str)> {
    let rest = path.strip_prefix("entries")?;
    if rest.is_empty() {
        return Some((None, ""));
    }
    let (digits, member) = rest.strip_prefix('[')?.split_once(']')?;
    let index = digits.parse().ok()?;
    match member {
        "" => Some((Some(index), "")),
        _ => Some((Some(index), member.strip_prefix('.')?)),
    }
}

/// A whole number in `[min, max]` (`None`: not a number, described by
/// `got`): the numeric entry points' check of their integer options, in
/// the words of [`Whole`]'s.
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
            ErrorReason::Range {
                what: "an integer",
                min,
                max,
                max_by_name: true,
                got: Some(got()),
            },
        )),
    }
}

/// `targetTokens` on the numeric entry.
pub(super) fn target_tokens(
    n: Option<f64>,
    got: impl FnOnce() -> String,
) -> Result<i64, CtxpackError> {
    whole_number(n, "targetTokens", 0.0, MAX_SAFE_INTEGER, got)
}

/// `maxConsecutiveSkips` (the packer's stop; 0: none) on the numeric entry.
pub(super) fn max_consecutive_skips(
    n: Option<f64>,
    got: impl FnOnce() -> String,
) -> Result<u32, CtxpackError> {
    whole_number(n, "maxConsecutiveSkips", 0.0, f64::from(u32::MAX), got)
        .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

#[allow(clippy::cast_possible_wrap)] // at most 2^53 - 1
fn int(w: Whole<0, SAFE>) -> i64 {
    w.0 as i64
}

/// `targetTokens` and `maxTokens` of a slice, or `maxBudget` of a
/// simulation: which is required depends on the entry point.
fn parse_budget(o: &RawOptions, mode: Mode) -> Result<(Option<Budget>, Option<i64>), CtxpackError> {
    if matches!(mode, Mode::Curve | Mode::MinBudget) {
        let m = o.max_budget.map(int);
        if mode == Mode::Curve && m.is_none() {
            return Err(invalid_option("maxBudget", ErrorReason::Required));
        }
        return Ok((None, m));
    }
    let target = match o.target_tokens {
        Some(t) => int(t),
        None if mode == Mode::Units => return Ok((None, None)),
        None => return Err(invalid_option("targetTokens", ErrorReason::Required)),
    };
    let budget = match o.max_tokens.map(int) {
        None => Budget::new(target),
        Some(max) if max < target => {
            return Err(CtxpackError::InvalidBudget {
                field: "maxTokens",
                reason: ErrorReason::AtLeast {
                    than: Some("targetTokens"),
                    min: target,
                    got: max,
                },
            })
        }
        Some(max) => Budget::with_max(target, max)?,
    };
    Ok((Some(budget), None))
}

pub(super) fn parse_options(options: &JsValue, mode: Mode) -> Result<Options, CtxpackError> {
    let known: Vec<&str> = match mode {
        Mode::Slice => OPTION_KEYS.to_vec(),
        Mode::GroupedSlice | Mode::Units => [&OPTION_KEYS[..], &GROUP_KEYS].concat(),
        Mode::Curve | Mode::MinBudget => [&SIMULATION_KEYS[..], &GROUP_KEYS].concat(),
    };
    let present = known_keys(options, &known, "")?;
    let o: RawOptions = from_js(options, &present).map_err(refusal)?;
    let (budget, max_budget) = parse_budget(&o, mode)?;
    let bucket_size = o.bucket_size.map(|b| b.0);
    let mut knapsack = match bucket_size {
        None => KnapsackSlice::default(),
        Some(b) => KnapsackSlice::new(b)?,
    };
    let max_table_bytes = o.max_table_bytes.map(|w| w.0);
    if let Some(limit) = max_table_bytes {
        knapsack = knapsack.with_max_table_bytes(limit);
    }
    Ok(Options {
        dependencies: match o.dependencies {
            None | Some(Dependencies::Ignore) => DependencyMode::Ignore,
            Some(Dependencies::Require) => DependencyMode::Require,
        },
        noun: o.noun.map_or_else(|| "items".into(), |n| n.0),
        budget,
        max_budget,
        knapsack,
        bucket_size,
        max_table_bytes,
        entries: o.entries.map(|e| e.0).unwrap_or_default(),
        scarcity: match o.scarcity {
            None | Some(Scarcity::Degrade) => ScarcityBehavior::Degrade,
            Some(Scarcity::Throw) => ScarcityBehavior::Throw,
        },
        max_consecutive_skips: o
            .max_consecutive_skips
            .map_or(crate::DEFAULT_MAX_CONSECUTIVE_SKIPS, |w| {
                u32::try_from(w.0).unwrap_or(u32::MAX)
            }),
        max_states: o
            .max_states
            .map(|w| usize::try_from(w.0).unwrap_or(usize::MAX)),
        max_work: o.max_work.map(|w| w.0),
        max_cells: o.max_cells.map(|w| w.0),
        compare_heuristic: o.compare_heuristic.unwrap_or(true),
    })
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
