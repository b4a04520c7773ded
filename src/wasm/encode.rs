//! Results as plain JS objects, serialised through serde: typed arrays and
//! numbers, nothing that holds wasm memory (so nothing needs `.free()`).

use js_sys::{JsString, Reflect, Uint32Array, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{ExactReport, FallbackReason, Selection, Solver};

pub(super) fn set(obj: &JsValue, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object or Error cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

#[allow(clippy::cast_precision_loss)] // indexes and counts stay far below 2^53
pub(super) fn index_f64(i: usize) -> f64 {
    i as f64
}

#[allow(clippy::cast_precision_loss)]
pub(super) fn i64_f64(i: i64) -> f64 {
    i as f64
}

/// A kind back as the caller wrote it: the inverse of
/// [`kind_from_js`](super::decode::kind_from_js).
pub(super) fn kind_to_js(kind: &str) -> JsValue {
    if !kind.contains('\u{FFFD}') {
        return JsValue::from_str(kind);
    }
    let mut units: Vec<u16> = Vec::with_capacity(kind.len());
    let mut chars = kind.chars();
    while let Some(c) = chars.next() {
        if c != '\u{FFFD}' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
        } else if chars.next() == Some('1') {
            let unit = chars.by_ref().take(4).fold(0u16, |u, h| {
                (u << 4) | u16::try_from(h.to_digit(16).unwrap_or(0)).unwrap_or(0)
            });
            units.push(unit);
        } else {
            units.push(0xFFFD);
        }
    }
    JsString::from_char_code(&units).into()
}

/// Every result crosses as a plain object (`json_compatible`: no ES `Map`s,
/// `None` as `null`); typed arrays pass through as they are (`preserve`).
pub(super) fn to_js<T: Serialize>(value: &T) -> JsValue {
    // Serialising these structs cannot fail: no maps with non-string keys,
    // no numbers past 2^53 (all are f64).
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// The exact report; `null` for the seed slicers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ExactOut {
    solver: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bucket_size: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback_reason: Option<&'static str>,
    value: f64,
    heuristic_value: Option<f64>,
    heuristic_over_budget: bool,
    work: f64,
    peak_states: f64,
}

fn exact_out(r: &ExactReport) -> ExactOut {
    let (solver, bucket, reason) = match r.solver {
        Solver::Exact => ("exact", None, None),
        Solver::Bucketed { bucket_size } => ("bucketed", Some(bucket_size), None),
        Solver::Heuristic { bucket_size } => ("heuristic", Some(bucket_size), None),
        Solver::BucketedFallback {
            bucket_size,
            reason,
        } => ("bucketed-fallback", Some(bucket_size), Some(reason)),
    };
    #[allow(clippy::cast_precision_loss)] // a work counter; exact below 2^53
    let work = r.work as f64;
    ExactOut {
        solver,
        bucket_size: bucket.map(i64_f64),
        fallback_reason: reason.map(|reason| match reason {
            FallbackReason::StateLimit => "state-limit",
            FallbackReason::WorkLimit => "work-limit",
            FallbackReason::ValueRange => "value-range",
        }),
        value: i64_f64(r.value),
        heuristic_value: r.heuristic_value.map(i64_f64),
        heuristic_over_budget: r.heuristic_over_budget,
        work,
        peak_states: index_f64(r.peak_states),
    }
}

/// A kind whose `requireCount` was not met.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ShortfallOut {
    /// The caller's string, as written ([`kind_to_js`]).
    #[serde(with = "serde_wasm_bindgen::preserve")]
    kind: JsValue,
    required_count: f64,
    satisfied_count: f64,
}

/// A slice's result: the core's [`Selection`] in the package's words.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SliceOut {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    selected: Uint32Array,
    /// [`Decision::id`](crate::Decision::id)s, one per item.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    reasons: Uint8Array,
    total_tokens: f64,
    total_score: f64,
    over_budget: bool,
    overrun_tokens: f64,
    budget_reached: bool,
    skipped_count: f64,
    shortfalls: Vec<ShortfallOut>,
    exact: Option<ExactOut>,
}

pub(super) fn slice_out(s: &Selection) -> SliceOut {
    let selected: Vec<u32> = s
        .selected
        .iter()
        .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    let reasons: Vec<u8> = s.decisions.iter().map(|d| d.id()).collect();
    SliceOut {
        selected: Uint32Array::from(&selected[..]),
        reasons: Uint8Array::from(&reasons[..]),
        total_tokens: i64_f64(s.total_tokens),
        total_score: s.total_score,
        over_budget: s.over_budget,
        overrun_tokens: i64_f64(s.overrun_tokens),
        budget_reached: s.budget_reached,
        skipped_count: index_f64(s.excluded_count()),
        shortfalls: s
            .shortfalls
            .iter()
            .map(|sf| ShortfallOut {
                kind: kind_to_js(&sf.kind),
                required_count: index_f64(sf.required_count),
                satisfied_count: index_f64(sf.satisfied_count),
            })
            .collect(),
        exact: s.exact.as_ref().map(exact_out),
    }
}

/// A slice's result with what one entry point adds (`counted`, the groups').
#[derive(Serialize)]
pub(super) struct With<E: Serialize> {
    #[serde(flatten)]
    pub(super) slice: SliceOut,
    #[serde(flatten)]
    pub(super) extra: E,
}

pub(super) fn result_object(s: &Selection) -> JsValue {
    to_js(&slice_out(s))
}
