//! `solveProblem`: the message layer's one call into the core
//! ([`Problem::solve`](crate::Problem::solve)); this file only reads the
//! columns and writes the answer.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

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
/// Returns `[bytes, numbers]` (see [`packed`]), per budget in order:
/// `included` (1 or 0), `version` (0 the item, 1 its stub, 255 out),
/// `reasons` (ids of `problemReasonCodes`), `groupReasons` (255: none),
/// then `tokens`, `optimal` (`'exact'`: 1 proven optimal, 0 not; -1 for
/// the other strategies), `firstSolves` and `unmet`. Several budgets in
/// one call share the work
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
    let outs = p.solve_sizes(strategy, &budgets)?;
    Ok(packed(&outs).into())
}

/// The answers in two typed arrays, whatever the number of budgets: per
/// budget `4n` bytes (`included`, `version`, `reasons`, `groupReasons`,
/// `n` each) and four numbers (`tokens`, `optimal` as 1, 0 or -1 for
/// none, `firstSolves`, `unmet` as 1 or 0). An object per budget with
/// four arrays in it cost a session's fifteen-size cut of 22 messages a
/// fifth of its solve.
fn packed(outs: &[Outcome]) -> js_sys::Array {
    let n = outs.first().map_or(0, |o| o.included.len());
    let mut bytes = Vec::with_capacity(outs.len() * 4 * n);
    let mut numbers = Vec::with_capacity(outs.len() * 4);
    for out in outs {
        bytes.extend(out.included.iter().map(|&k| u8::from(k)));
        bytes.extend(out.version.iter().map(|v| v.unwrap_or(NONE)));
        bytes.extend(out.reasons.iter().map(|r| r.id()));
        bytes.extend(
            out.group_reasons
                .iter()
                .map(|r| r.map_or(NONE, Decision::id)),
        );
        #[allow(clippy::cast_precision_loss)] // token sums far below 2^53
        numbers.push(out.tokens as f64);
        numbers.push(out.optimal.map_or(-1.0, |o| f64::from(u8::from(o))));
        numbers.push(f64::from(out.first_solves));
        numbers.push(f64::from(u8::from(out.unmet)));
    }
    js_sys::Array::of2(
        &Uint8Array::from(&bytes[..]),
        &js_sys::Float64Array::from(&numbers[..]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use js_sys::Reflect;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn get(o: &JsValue, key: &str) -> JsValue {
        Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// One budget's answer, read back from [`packed`]'s two arrays.
    struct Answer {
        included: Vec<u8>,
        version: Vec<u8>,
        reasons: Vec<u8>,
        tokens: f64,
        /// 1, 0, or -1 for none, as sent.
        optimal: i8,
        unmet: bool,
    }

    fn answers(packed: &JsValue, n: usize) -> Vec<Answer> {
        let parts = js_sys::Array::from(packed);
        let bytes = Uint8Array::new(&parts.get(0)).to_vec();
        let numbers = js_sys::Float64Array::new(&parts.get(1)).to_vec();
        assert_eq!(bytes.len(), numbers.len() * n);
        numbers
            .chunks(4)
            .zip(bytes.chunks(4 * n.max(1)))
            .map(|(m, b)| Answer {
                included: b[..n].to_vec(),
                version: b[n..2 * n].to_vec(),
                reasons: b[2 * n..3 * n].to_vec(),
                tokens: m[0],
                #[allow(clippy::cast_possible_truncation)] // 1, 0 or -1
                optimal: m[1] as i8,
                unmet: m[3] != 0.0,
            })
            .collect()
    }

    /// The answers at `budgets`, user 0, assistant 1, user 2, assistant 3.
    fn ranked_at(budgets: &[f64], values: Vec<f64>) -> Result<Vec<Answer>, JsValue> {
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
        .map(|a| answers(&a, 4))
    }

    /// The answer at one budget.
    fn ranked(budget: f64, values: Vec<f64>) -> Result<Answer, JsValue> {
        ranked_at(&[budget], values).map(|mut a| a.remove(0))
    }

    #[wasm_bindgen_test]
    fn one_call_answers_at_each_budget_in_order() {
        let values = vec![0.1, 0.9, 0.1, 0.8];
        let all = ranked_at(&[80.0, 0.0, 140.0], values.clone()).unwrap();
        assert_eq!(all.len(), 3);
        for (out, budget) in all.iter().zip([80.0, 0.0, 140.0]) {
            let one = ranked(budget, values.clone()).unwrap();
            assert_eq!(out.included, one.included);
            assert_eq!(out.version, one.version);
            assert_eq!(out.reasons, one.reasons);
            assert_eq!(out.tokens.to_bits(), one.tokens.to_bits());
        }
        assert!(ranked_at(&[], values).unwrap().is_empty());
    }

    #[wasm_bindgen_test]
    fn the_columns_go_in_and_the_answer_comes_out() {
        let out = ranked(80.0, vec![0.1, 0.9, 0.1, 0.8]).unwrap();
        assert_eq!(out.included, [0, 0, 1, 1]);
        let codes = problem_reason_codes();
        let reasons: Vec<&str> = out
            .reasons
            .iter()
            .map(|&r| codes[usize::from(r)].as_str())
            .collect();
        assert_eq!(
            reasons,
            ["budget_exceeded", "first_not_user", "scored", "scored"]
        );
        assert_eq!(out.tokens.to_bits(), 70f64.to_bits());
        assert_eq!(out.optimal, -1);
        assert!(!out.unmet);
    }

    #[wasm_bindgen_test]
    fn bad_columns_are_ctxpack_errors() {
        fn code<T>(r: Result<T, JsValue>) -> Option<String> {
            r.err().and_then(|e| get(&e, "code").as_string())
        }
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
