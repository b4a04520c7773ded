//! The strategies by name: the one table of what each name the package
//! accepts runs, which options it reads and what it promises. The boundary
//! builds its slicers from it, refuses simulation from it, and exports it
//! (`strategies()`) so that the package and the page read it rather than
//! write it again.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::encode::to_js;
use crate::{CtxpackError, ErrorReason};

/// A core slicer, which one or more names run.
#[derive(Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Engine {
    Greedy,
    Knapsack,
    CountKnapsack,
    Packer,
    Exact,
    ExactCount,
}

/// One strategy.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StrategySpec {
    pub(super) name: &'static str,
    /// The core slicer that runs it.
    pub(super) engine: Engine,
    /// The options it reads (as the slice entry points name them); any
    /// other slicer option is ignored by it.
    pub(super) options: &'static [&'static str],
    /// The packer's skip limit this name fixes (`ranked`: 0, a walk that
    /// never stops early); `None`: `maxConsecutiveSkips` or its default.
    pub(super) skip_limit: Option<u32>,
    /// Whether budget simulation models it: its selection stays within the
    /// budget and is the same function of it at every budget. The
    /// count-constrained ones are refused with `NOT_MONOTONIC`.
    pub(super) monotonic: bool,
    /// Whether it is optimal at token precision (the exact slices, which
    /// report `exact`).
    pub(super) exact: bool,
    /// Whether it picks its own bucket when `bucketSize` is not given
    /// (exact-count: token precision when the table fits).
    pub(super) own_bucket: bool,
}

const COUNT_OPTIONS: [&str; 4] = ["bucketSize", "maxTableBytes", "entries", "scarcity"];

/// Every strategy, in the order the package lists them.
pub(super) const STRATEGIES: [StrategySpec; 7] = [
    StrategySpec {
        name: "ranked",
        engine: Engine::Packer,
        options: &[],
        skip_limit: Some(0),
        monotonic: true,
        exact: false,
        own_bucket: false,
    },
    StrategySpec {
        name: "greedy",
        engine: Engine::Greedy,
        options: &[],
        skip_limit: None,
        monotonic: true,
        exact: false,
        own_bucket: false,
    },
    StrategySpec {
        name: "knapsack",
        engine: Engine::Knapsack,
        options: &["bucketSize", "maxTableBytes"],
        skip_limit: None,
        monotonic: true,
        exact: false,
        own_bucket: false,
    },
    StrategySpec {
        name: "count-knapsack",
        engine: Engine::CountKnapsack,
        options: &COUNT_OPTIONS,
        skip_limit: None,
        monotonic: false,
        exact: false,
        own_bucket: false,
    },
    StrategySpec {
        name: "packer",
        engine: Engine::Packer,
        options: &["maxConsecutiveSkips"],
        skip_limit: None,
        monotonic: true,
        exact: false,
        own_bucket: false,
    },
    StrategySpec {
        name: "exact",
        engine: Engine::Exact,
        options: &["maxStates", "maxWork", "maxTableBytes"],
        skip_limit: None,
        monotonic: true,
        exact: true,
        own_bucket: false,
    },
    StrategySpec {
        name: "exact-count",
        engine: Engine::ExactCount,
        options: &[
            "bucketSize",
            "maxTableBytes",
            "maxCells",
            "entries",
            "scarcity",
            "compareHeuristic",
        ],
        skip_limit: None,
        monotonic: false,
        exact: true,
        own_bucket: true,
    },
];

/// The strategy `name`, or `INVALID_INPUT` listing the names.
pub(super) fn strategy(name: &str) -> Result<&'static StrategySpec, CtxpackError> {
    STRATEGIES.iter().find(|s| s.name == name).ok_or_else(|| {
        CtxpackError::InvalidInput {
            // The name described, never shown: it is the caller's string.
            reason: ErrorReason::OneOf {
                what: "slicer",
                names: STRATEGIES.iter().map(|s| s.name).collect(),
                length: name.encode_utf16().count(),
            },
        }
    })
}

/// The strategy `name`, refused with `NOT_MONOTONIC` when simulation
/// cannot model it: the one place that refusal is decided.
pub(super) fn simulated(name: &str) -> Result<&'static StrategySpec, CtxpackError> {
    let s = strategy(name)?;
    if !s.monotonic {
        return Err(CtxpackError::NotMonotonic {
            slicer: name.to_owned(),
        });
    }
    Ok(s)
}

/// The strategy table (see [`StrategySpec`]), as plain objects.
#[wasm_bindgen]
pub fn strategies() -> JsValue {
    to_js(&STRATEGIES)
}

/// Refuses what budget simulation refuses of `slicer` (`NOT_MONOTONIC`,
/// an unknown name), for the entry points that simulate by rerunning
/// slices rather than through the core's simulation.
#[wasm_bindgen(js_name = checkSimulated)]
pub fn check_simulated(slicer: &str) -> Result<(), JsValue> {
    simulated(slicer)
        .map(|_| ())
        .map_err(|e| super::errors::to_js_error(&e))
}

/// Checks slicer options as every slice entry point reads them (see
/// `options.rs`), for a caller that holds them before it knows whether it
/// will slice: the planner, whose options are checked even when its
/// strategy ignores them.
#[wasm_bindgen(js_name = checkOptions)]
pub fn check_options(options: &JsValue) -> Result<(), JsValue> {
    super::options::parse_options(options, super::options::Mode::Units)
        .map(|_| ())
        .map_err(|e| super::errors::to_js_error(&e))
}

/// The options' defaults, by their names in the slice entry points.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Defaults {
    bucket_size: f64,
    max_consecutive_skips: u32,
    max_table_bytes: f64,
    max_states: f64,
    max_work: f64,
    /// exact-count's cell limit.
    max_cells: f64,
    /// The budget simulation's cell limit.
    simulation_max_cells: f64,
    /// BM25's term-frequency saturation (`relevance.k1`, [`crate::Bm25`]).
    bm25_k1: f64,
    /// BM25's length normalisation (`relevance.b`).
    bm25_b: f64,
}

/// The defaults the core applies when an option is absent, for the package
/// to show (and never to decide again).
#[wasm_bindgen(js_name = optionDefaults)]
#[allow(clippy::cast_precision_loss)] // powers of two far below 2^53
pub fn option_defaults() -> JsValue {
    to_js(&Defaults {
        bucket_size: crate::DEFAULT_BUCKET_SIZE as f64,
        max_consecutive_skips: crate::DEFAULT_MAX_CONSECUTIVE_SKIPS,
        max_table_bytes: crate::DEFAULT_MAX_TABLE_BYTES as f64,
        max_states: crate::DEFAULT_MAX_STATES as f64,
        max_work: crate::DEFAULT_MAX_WORK as f64,
        max_cells: crate::DEFAULT_MAX_CELLS as f64,
        simulation_max_cells: crate::DEFAULT_MAX_SIMULATION_CELLS as f64,
        bm25_k1: crate::relevance::Bm25::default().k1,
        bm25_b: crate::relevance::Bm25::default().b,
    })
}
