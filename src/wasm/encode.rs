//! Results as plain JS objects: typed arrays and numbers, nothing that
//! holds wasm memory (so nothing needs `.free()`).

use js_sys::{Array, JsString, Object, Reflect, Uint32Array, Uint8Array};
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

/// The exact report as a plain object; `null` for the seed slicers.
pub(super) fn exact_object(report: Option<&ExactReport>) -> JsValue {
    let Some(r) = report else {
        return JsValue::NULL;
    };
    let obj: JsValue = Object::new().into();
    let (solver, bucket, reason) = match r.solver {
        Solver::Exact => ("exact", None, None),
        Solver::Bucketed { bucket_size } => ("bucketed", Some(bucket_size), None),
        Solver::Heuristic { bucket_size } => ("heuristic", Some(bucket_size), None),
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

pub(super) fn result_object(s: &Selection) -> JsValue {
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
        set(&o, "kind", &kind_to_js(&sf.kind));
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
