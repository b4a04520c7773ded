//! An [`ErrorReason`] as the fields of a JS error: `reasonKind` (its
//! [`kind`](ErrorReason::kind)) and the variant's fields in camelCase,
//! numbers as numbers (the package prints them as JS does), the fixed
//! phrases as strings, lists as arrays. The package writes the sentence from
//! them (pkg/src/error-text.ts, `REASON_TEXT`); what each kind sets is
//! documented on its `ReasonFields`.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::encode::{i64_f64, index_f64, set};
use super::errors::to_js_error;
use crate::{CtxpackError, ErrorReason};

#[allow(clippy::cast_precision_loss)] // ids and positions, far below 2^53
fn u64_f64(v: u64) -> f64 {
    v as f64
}

fn strings(list: &[&'static str]) -> Array {
    list.iter().map(|s| JsValue::from_str(s)).collect()
}

/// Sets `reason`'s fields on the JS error `obj`.
#[allow(clippy::too_many_lines)] // one arm per kind
pub(super) fn set_reason(obj: &JsValue, reason: &ErrorReason) {
    let num = |key: &str, v: f64| set(obj, key, &JsValue::from(v));
    let idx = |key: &str, v: usize| num(key, index_f64(v));
    let text = |key: &str, v: &str| set(obj, key, &JsValue::from_str(v));
    let flag = |key: &str, v: bool| set(obj, key, &JsValue::from_bool(v));
    text("reasonKind", reason.kind());
    match reason {
        ErrorReason::Required | ErrorReason::Unreadable => {}
        ErrorReason::Unknown { what, known } => {
            text("what", what);
            set(obj, "known", &strings(known));
        }
        ErrorReason::Expected { expected, got } => {
            text("expected", expected);
            if let Some(got) = got {
                text("got", got);
            }
        }
        ErrorReason::Range {
            what,
            min,
            max,
            max_by_name,
            got,
        } => {
            text("what", what);
            num("min", *min);
            num("max", *max);
            flag("maxByName", *max_by_name);
            if let Some(got) = got {
                text("got", got);
            }
        }
        ErrorReason::AtLeast { than, min, got } => {
            if let Some(than) = than {
                text("than", than);
            }
            num("min", i64_f64(*min));
            num("got", i64_f64(*got));
        }
        ErrorReason::AtMost { than, max, got } => {
            text("than", than);
            num("max", *max);
            num("got", *got);
        }
        ErrorReason::Below { what, limit, got } => {
            text("what", what);
            idx("limit", *limit);
            num("got", u64_f64(*got));
        }
        ErrorReason::IndexOfAnother { got, len } => {
            idx("got", *got);
            idx("len", *len);
        }
        ErrorReason::OutOfRange { len } => idx("len", *len),
        ErrorReason::NotSupported { what, plural, by } => {
            text("what", what);
            flag("plural", *plural);
            text("by", by);
        }
        ErrorReason::Bytes {
            want,
            got,
            at_least,
        } => {
            idx("want", *want);
            idx("got", *got);
            flag("atLeast", *at_least);
        }
        ErrorReason::NotIncreasing { got, after } => {
            num("got", u64_f64(*got));
            num("after", u64_f64(*after));
        }
        ErrorReason::KindId { id, kind_names } => {
            num("id", u64_f64(*id));
            idx("kindNames", *kind_names);
        }
        ErrorReason::GroupTokens {
            members,
            tokens,
            limit,
        } => {
            idx("members", *members);
            if let Some(tokens) = tokens {
                num("tokens", i64_f64(*tokens));
            }
            num("limit", i64_f64(*limit));
        }
        ErrorReason::SumPast { limit } => num("limit", i64_f64(*limit)),
        ErrorReason::TooManyOptions { max } => idx("max", *max),
        ErrorReason::KeptPosition { position } => num("position", u64_f64(*position)),
        ErrorReason::NoOpensUser { unit_id, flags } => {
            num("unitId", u64_f64(*unit_id));
            idx("flags", *flags);
        }
        ErrorReason::IndexOutOfRange { what, at, len } => {
            text("what", what);
            idx("at", *at);
            idx("len", *len);
        }
        ErrorReason::Describes {
            what,
            describes,
            got,
        } => {
            text("what", what);
            idx("describes", *describes);
            idx("got", *got);
        }
        ErrorReason::Lengths {
            what,
            must,
            lengths,
        } => {
            text("what", what);
            text("must", must);
            let lengths: Array = lengths
                .iter()
                .map(|&l| JsValue::from(index_f64(l)))
                .collect();
            set(obj, "lengths", &lengths);
        }
        ErrorReason::Entries { what, want, got } => {
            text("what", what);
            idx("want", *want);
            idx("got", *got);
        }
        ErrorReason::PerItem {
            what,
            or_empty,
            got,
            items,
        } => {
            text("what", what);
            flag("orEmpty", *or_empty);
            idx("got", *got);
            idx("items", *items);
        }
        ErrorReason::DepOffsets { want, targets } => {
            idx("want", *want);
            idx("targets", *targets);
        }
        ErrorReason::TextEnd {
            text: at,
            end,
            from,
            len,
        } => {
            idx("text", *at);
            idx("end", *end);
            idx("from", *from);
            idx("len", *len);
        }
        ErrorReason::StatsTruncated { text: at, len } => {
            idx("text", *at);
            idx("len", *len);
        }
        ErrorReason::StatsMatch {
            text: at,
            entry,
            terms,
            term,
            count,
        } => {
            idx("text", *at);
            idx("entry", *entry);
            idx("terms", *terms);
            idx("term", *term);
            num("count", u64_f64(*count));
        }
        ErrorReason::VectorLength { dim, got } => {
            idx("dim", *dim);
            idx("got", *got);
        }
        ErrorReason::NotFinite { vector, number } => {
            if let Some(vector) = vector {
                idx("vector", *vector);
            }
            idx("number", *number);
        }
        ErrorReason::ScoresPerText {
            lexical,
            caller,
            texts,
        } => {
            idx("lexical", *lexical);
            idx("caller", *caller);
            idx("texts", *texts);
        }
        ErrorReason::Score { list, at } => {
            text("list", list);
            idx("at", *at);
        }
        ErrorReason::OneOf {
            what,
            names,
            length,
        } => {
            text("what", what);
            set(obj, "names", &strings(names));
            idx("length", *length);
        }
        ErrorReason::Takes {
            what,
            expected,
            got,
        } => {
            text("what", what);
            text("expected", expected);
            text("got", got);
        }
        ErrorReason::Phrase(phrase) => text("phrase", phrase),
    }
}

/// Every reason kind the core can send (`ErrorReason::KINDS`).
#[wasm_bindgen(js_name = errorReasonKinds)]
pub fn error_reason_kinds() -> Vec<String> {
    ErrorReason::KINDS.iter().map(|&k| k.to_owned()).collect()
}

/// Per sample of each reason kind, an `INVALID_OPTION` error (option
/// `maxCells`: the reason as a tail) and an `INVALID_INPUT` one (the reason
/// as the whole sentence), as JS errors whose `message` is the core's own
/// sentence: the package's test checks that its sentence from the fields is
/// the same.
#[wasm_bindgen(js_name = errorReasonSamples)]
pub fn error_reason_samples() -> Array {
    ErrorReason::samples()
        .into_iter()
        .flat_map(|reason| {
            [
                CtxpackError::InvalidOption {
                    option: "maxCells".into(),
                    reason: reason.clone(),
                },
                CtxpackError::InvalidInput { reason },
            ]
        })
        .map(|err| to_js_error(&err))
        .collect()
}
