//! `budgetCurve` and `minBudgetFor`: the budget simulation, with groups
//! built here from `groupOf`.

use js_sys::Float64Array;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::decode::columnar_items;
use super::encode::{i64_f64, to_js};
use super::errors::with_naming;
use super::groups::Structure;
use super::options::{simulation_of, Mode, Options};
use crate::{CtxpackError, DependencyMode, Item, MinBudget, Units};

/// The simulation's items (columnar, no kinds) and their units: `None`
/// when there are no groups and dependencies are ignored (the plain
/// simulation), else the core's units, which also refuse `'require'`.
fn simulation_items<'a>(
    tokens: &[u32],
    scores: &[f64],
    structure: &Structure<'_>,
    options: &Options,
) -> Result<(Vec<Item<'a>>, Option<Units>), CtxpackError> {
    let items = columnar_items(tokens, scores, &[], &[])?;
    if structure.group_of.is_empty() && options.dependencies == DependencyMode::Ignore {
        per_item_origin(structure, items.len())?;
        return Ok((items, None));
    }
    let units = structure.groups(items.len(), options.dependencies)?.units();
    Ok((items, Some(units)))
}

/// `origin` is checked even when there are no groups.
fn per_item_origin(structure: &Structure<'_>, n: usize) -> Result<(), CtxpackError> {
    structure.groups(n, DependencyMode::Ignore).map(|_| ())
}

/// Budget simulation: the total scaled value the strategy selects at every
/// budget `0..=options.maxBudget` (`BudgetSimulation::curve`), as a
/// `Float64Array` of integers. `groupOf` (empty, or one group index per
/// item, `0xFFFFFFFF` for none) merges items into units whose value is
/// their members' sum; `origin` (empty: the identity) names items in
/// errors, with `options.noun`. Options: `maxBudget` (required), the
/// strategy's own (`bucketSize`, `maxTableBytes`, `maxStates`, `maxWork`,
/// `maxConsecutiveSkips`), `maxCells` (the simulation's cell limit),
/// `dependencies` (`'require'` is refused) and `noun`.
///
/// # Errors
/// A `CtxpackError` JS error: `NOT_MONOTONIC` for `count-knapsack` and
/// `exact-count`, `TABLE_TOO_LARGE` past the guards, `INVALID_SCORE`,
/// `INVALID_INPUT` for arrays of the wrong length, or a bad option.
#[wasm_bindgen(js_name = budgetCurve)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn budget_curve(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    group_of: &[u32],
    origin: &[u32],
    options: JsValue,
) -> Result<Float64Array, JsValue> {
    let structure = Structure::groups_only(group_of, origin);
    with_naming(&options, Mode::Curve, origin, |o| {
        curve(slicer, tokens, scores, &structure, o)
    })
}

fn curve(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    structure: &Structure<'_>,
    options: &Options,
) -> Result<Float64Array, CtxpackError> {
    let sim = simulation_of(slicer, options)?;
    let (items, units) = simulation_items(tokens, scores, structure, options)?;
    let max_budget = options.max_budget.unwrap_or(0);
    let curve = match units {
        Some(units) => units.curve(&sim, &items, max_budget)?,
        None => sim.curve(&items, max_budget)?,
    };
    let points: Vec<f64> = curve.into_iter().map(i64_f64).collect();
    Ok(Float64Array::from(&points[..]))
}

/// `minBudgetFor`'s answer (`None`: `null`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MinBudgetOut {
    first: Option<f64>,
    stable_from: Option<f64>,
    ceiling: f64,
    saturation: f64,
}

/// Budget simulation: where, between 0 and `options.maxBudget` (default:
/// the saturation budget), the strategy selects item `index` (an item
/// index; with groups, its unit) (`BudgetSimulation::min_budget_for`):
/// `{ first, stableFrom, ceiling, saturation }`, `first` and `stableFrom`
/// `null` when there is none. Arguments as [`budget_curve`].
///
/// # Errors
/// As [`budget_curve`], and `INVALID_INPUT` for an index out of range.
#[wasm_bindgen(js_name = minBudgetFor)]
#[allow(clippy::needless_pass_by_value)] // the JS calling convention hands over ownership
pub fn min_budget_for(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    group_of: &[u32],
    origin: &[u32],
    index: u32,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let structure = Structure::groups_only(group_of, origin);
    with_naming(&options, Mode::MinBudget, origin, |o| {
        min_budget(slicer, tokens, scores, &structure, index, o)
    })
}

fn min_budget(
    slicer: &str,
    tokens: &[u32],
    scores: &[f64],
    structure: &Structure<'_>,
    index: u32,
    options: &Options,
) -> Result<JsValue, CtxpackError> {
    let sim = simulation_of(slicer, options)?;
    let (items, units) = simulation_items(tokens, scores, structure, options)?;
    let index = usize::try_from(index).unwrap_or(usize::MAX);
    let m: MinBudget = match units {
        Some(units) => units.min_budget_for(&sim, &items, index, options.max_budget)?,
        None => sim.min_budget_for(&items, index, options.max_budget)?,
    };
    Ok(to_js(&MinBudgetOut {
        first: m.first.map(i64_f64),
        stable_from: m.stable_from.map(i64_f64),
        ceiling: i64_f64(m.ceiling),
        saturation: i64_f64(m.saturation),
    }))
}
