//! `packLazy`: the packer with token counts asked for one at a time.

use wasm_bindgen::prelude::*;

use super::decode::{describe, field_error};
use super::encode::{index_f64, slice_out, to_js, With};
use super::errors::to_js_error;
use super::options::{parse_options, Mode};
use crate::{Budget, CtxpackError, ErrorReason, GreedyPacker};

/// What `packLazy` adds to a slice's result.
#[derive(serde::Serialize)]
struct Counted {
    counted: f64,
}

/// Why [`pack_lazy`] failed: the core refused, or the count callback threw.
pub(super) enum LazyError {
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
/// `maxConsecutiveSkips`, …). The result is that of `solveSlice` for
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

pub(super) fn lazy(
    scores: &[f64],
    options: &JsValue,
    count: &js_sys::Function,
) -> Result<JsValue, LazyError> {
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
                ErrorReason::Range {
                    what: "counted as an integer",
                    min: 0.0,
                    max: f64::from(u32::MAX),
                    max_by_name: true,
                    got: Some(describe(&v)),
                },
            ))),
        }
    })?;
    Ok(to_js(&With {
        slice: slice_out(&result.selection),
        extra: Counted {
            counted: index_f64(result.counted),
        },
    }))
}
