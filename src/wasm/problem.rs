//! `solveProblem`: the message layer's one call into the core
//! ([`Problem::solve`](crate::Problem::solve)); this file only reads the
//! columns and writes the answer.

use js_sys::Uint8Array;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::encode::to_js;
use super::errors::to_js_error;
use super::MAX_SAFE_INTEGER;
use crate::error::js_number;
use crate::{CtxpackError, Decision, ErrorReason, Outcome, Problem, ProblemStrategy, Reason};

/// `version`'s and `groupReasons`' "none".
const NONE: u8 = u8::MAX;

/// Solves a problem given in columns at each of `budgets`: per item `sizes` (tokens, overhead
/// included), `values` (in [0, 1]), `units` (unit ids below the number of
/// items), `positions` (strictly increasing); stubs as three columns
/// (`stubItems[k]`'s stub has `stubSizes[k]` tokens and is worth
/// `stubValues[k]`); `opensUser[u]` (1 or 0) per unit id, with
/// `firstUser` the rule that the first kept message opens a user unit; the
/// kept-for-sure messages' tokens, positions and user flags.
///
/// Returns per budget, in order, `{ included: Uint8Array, version:
/// Uint8Array` (0 the item, 1 its stub, 255 out) `, reasons: Uint8Array`
/// (ids of `problemReasonCodes`) `, groupReasons: Uint8Array` (255: none)
/// `, tokens, optimal` (`'exact'`: proven optimal; else `null`)
/// `, firstSolves, unmet }`. Several budgets in one call share the work
/// ([`Problem::solve_sizes`](crate::Problem::solve_sizes)).
///
/// # Errors
/// `INVALID_OPTION` (option `slicer`) for an unknown strategy;
/// `INVALID_BUDGET` for a budget or kept tokens that are not whole numbers
/// from 0 to 2^53 − 1; the problem's own (`INVALID_INPUT`, `INVALID_FIELD`).
#[wasm_bindgen(js_name = solveProblem)]
#[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)] // the JS calling convention
pub fn solve_problem(
    strategy: &str,
    budgets: &[f64],
    sizes: Vec<u32>,
    values: Vec<f64>,
    units: Vec<u32>,
    positions: Vec<u32>,
    stub_items: &[u32],
    stub_sizes: &[u32],
    stub_values: &[f64],
    opens_user: &[u8],
    first_user: bool,
    kept_tokens: f64,
    kept_positions: &[u32],
    kept_user: &[u8],
) -> Result<JsValue, JsValue> {
    let columns = Columns {
        sizes,
        values,
        units,
        positions,
        stubs: (stub_items, stub_sizes, stub_values),
        opens_user,
        first_user,
        kept: (kept_tokens, kept_positions, kept_user),
    };
    solve(strategy, budgets, columns).map_err(|e| to_js_error(&e))
}

/// The reason codes of `solveProblem`'s `reasons`, by id: the decisions',
/// then `first_not_user`.
#[wasm_bindgen(js_name = problemReasonCodes)]
pub fn problem_reason_codes() -> Vec<String> {
    Decision::ALL
        .iter()
        .map(|&d| Reason::Slicer(d))
        .chain([Reason::FirstNotUser])
        .map(|r| r.code().to_owned())
        .collect()
}

struct Columns<'a> {
    sizes: Vec<u32>,
    values: Vec<f64>,
    units: Vec<u32>,
    positions: Vec<u32>,
    stubs: (&'a [u32], &'a [u32], &'a [f64]),
    opens_user: &'a [u8],
    first_user: bool,
    kept: (f64, &'a [u32], &'a [u8]),
}

fn tokens(n: f64, field: &'static str) -> Result<u64, CtxpackError> {
    if n.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&n) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked above
        return Ok(n as u64);
    }
    Err(CtxpackError::InvalidBudget {
        field,
        reason: ErrorReason::Range {
            what: "a whole number",
            min: 0.0,
            max: MAX_SAFE_INTEGER,
            max_by_name: true,
            got: Some(js_number(n)),
        },
    })
}

fn solve(strategy: &str, budgets: &[f64], c: Columns<'_>) -> Result<JsValue, CtxpackError> {
    let Some(strategy) = ProblemStrategy::from_name(strategy) else {
        return Err(CtxpackError::InvalidOption {
            option: "slicer".into(),
            // Described, never shown: a caller's string.
            reason: ErrorReason::Expected {
                expected: "'exact', 'knapsack', 'greedy', 'ranked' or 'packer'".into(),
                got: Some(format!(
                    "a string of length {}",
                    strategy.encode_utf16().count()
                )),
            },
        });
    };
    let budgets = budgets
        .iter()
        .map(|&b| tokens(b, "target_tokens"))
        .collect::<Result<Vec<u64>, _>>()?;
    let kept_tokens = tokens(c.kept.0, "kept_tokens")?;
    let kept_user: Vec<bool> = c.kept.2.iter().map(|&u| u != 0).collect();
    let mut p = Problem::new(0, c.sizes, c.values, c.units)?
        .with_positions(c.positions)?
        .with_stubs(c.stubs.0, c.stubs.1, c.stubs.2)?
        .with_kept(kept_tokens, c.kept.1, &kept_user)?;
    if c.first_user {
        p = p.with_first_user(c.opens_user.iter().map(|&u| u != 0).collect())?;
    }
    let outs: Vec<ProblemOut> = p
        .solve_sizes(strategy, &budgets)?
        .iter()
        .map(ProblemOut::of)
        .collect();
    Ok(to_js(&outs))
}

impl ProblemOut {
    fn of(out: &Outcome) -> ProblemOut {
        let included: Vec<u8> = out.included.iter().map(|&k| u8::from(k)).collect();
        let version: Vec<u8> = out.version.iter().map(|v| v.unwrap_or(NONE)).collect();
        let reasons: Vec<u8> = out.reasons.iter().map(|r| r.id()).collect();
        let group_reasons: Vec<u8> = out
            .group_reasons
            .iter()
            .map(|r| r.map_or(NONE, Decision::id))
            .collect();
        #[allow(clippy::cast_precision_loss)] // token sums far below 2^53
        let total = out.tokens as f64;
        ProblemOut {
            included: Uint8Array::from(&included[..]),
            version: Uint8Array::from(&version[..]),
            reasons: Uint8Array::from(&reasons[..]),
            group_reasons: Uint8Array::from(&group_reasons[..]),
            tokens: total,
            optimal: out.optimal,
            first_solves: out.first_solves,
            unmet: out.unmet,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProblemOut {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    included: Uint8Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    version: Uint8Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    reasons: Uint8Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    group_reasons: Uint8Array,
    tokens: f64,
    optimal: Option<bool>,
    first_solves: u32,
    unmet: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use js_sys::Reflect;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn get(o: &JsValue, key: &str) -> JsValue {
        Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// The answers at `budgets`, user 0, assistant 1, user 2, assistant 3.
    fn ranked_at(budgets: &[f64], values: Vec<f64>) -> Result<Vec<JsValue>, JsValue> {
        solve_problem(
            "ranked",
            budgets,
            vec![30, 40, 30, 40],
            values,
            vec![0, 1, 2, 3],
            vec![0, 1, 2, 3],
            &[],
            &[],
            &[],
            &[1, 0, 1, 0],
            true,
            0.0,
            &[],
            &[],
        )
        .map(|a| js_sys::Array::from(&a).to_vec())
    }

    /// The answer at one budget.
    fn ranked(budget: f64, values: Vec<f64>) -> Result<JsValue, JsValue> {
        ranked_at(&[budget], values).map(|mut a| a.remove(0))
    }

    #[wasm_bindgen_test]
    fn one_call_answers_at_each_budget_in_order() {
        let values = vec![0.1, 0.9, 0.1, 0.8];
        let all = ranked_at(&[80.0, 0.0, 140.0], values.clone()).unwrap();
        assert_eq!(all.len(), 3);
        for (out, budget) in all.iter().zip([80.0, 0.0, 140.0]) {
            let one = ranked(budget, values.clone()).unwrap();
            for key in ["included", "version", "reasons"] {
                assert_eq!(
                    Uint8Array::new(&get(out, key)).to_vec(),
                    Uint8Array::new(&get(&one, key)).to_vec()
                );
            }
        }
        assert!(ranked_at(&[], values).unwrap().is_empty());
    }

    #[wasm_bindgen_test]
    fn the_columns_go_in_and_the_answer_comes_out() {
        let out = ranked(80.0, vec![0.1, 0.9, 0.1, 0.8]).unwrap();
        assert_eq!(
            Uint8Array::new(&get(&out, "included")).to_vec(),
            [0, 0, 1, 1]
        );
        let codes = problem_reason_codes();
        let reasons: Vec<&str> = Uint8Array::new(&get(&out, "reasons"))
            .to_vec()
            .iter()
            .map(|&r| codes[usize::from(r)].as_str())
            .collect();
        assert_eq!(
            reasons,
            ["budget_exceeded", "first_not_user", "scored", "scored"]
        );
        assert_eq!(get(&out, "tokens").as_f64(), Some(70.0));
        assert!(get(&out, "optimal").is_null());
        assert_eq!(get(&out, "unmet").as_bool(), Some(false));
    }

    #[wasm_bindgen_test]
    fn bad_columns_are_ctxpack_errors() {
        let code = |r: Result<JsValue, JsValue>| get(&r.unwrap_err(), "code").as_string();
        assert_eq!(
            code(ranked(-1.0, vec![0.1; 4])).as_deref(),
            Some("INVALID_BUDGET")
        );
        assert_eq!(
            code(ranked(80.0, vec![0.1, 2.0, 0.1, 0.1])).as_deref(),
            Some("INVALID_FIELD")
        );
        assert_eq!(
            code(ranked(80.0, vec![0.1])).as_deref(),
            Some("INVALID_INPUT")
        );
        let acs = solve_problem(
            "acs",
            &[1.0],
            vec![],
            vec![],
            vec![],
            vec![],
            &[],
            &[],
            &[],
            &[],
            false,
            0.0,
            &[],
            &[],
        );
        assert_eq!(code(acs).as_deref(), Some("INVALID_OPTION"));
    }
}
