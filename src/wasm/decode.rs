//! Inputs read from JS: fragment objects, property by property, and the
//! descriptions of bad values (never their content).

use js_sys::{Array, JsString};
use wasm_bindgen::prelude::*;

use super::errors::Refused;

use crate::error::js_number;
use crate::{CtxpackError, ErrorReason, Item};

/// The items of columns: `kinds` empty (no kinds) or one id into
/// `kind_names` per item.
pub(super) fn columnar_items<'a>(
    tokens: &[u32],
    scores: &[f64],
    kinds: &[u32],
    kind_names: &'a [String],
) -> Result<Vec<Item<'a>>, CtxpackError> {
    if scores.len() != tokens.len() || !(kinds.is_empty() || kinds.len() == tokens.len()) {
        return Err(CtxpackError::InvalidInput {
            reason: ErrorReason::Lengths {
                what: "tokens, scores and kinds",
                must: "have the same length",
                lengths: [tokens.len(), scores.len(), kinds.len()],
            },
        });
    }
    kinds_of(kinds, kind_names, tokens.len())?
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            Ok(Item {
                tokens: i64::from(tokens[i]),
                score: scores[i],
                kind,
            })
        })
        .collect()
}

/// Per item, its kind name (`""` when `kinds` is empty).
pub(super) fn kinds_of<'a>(
    kinds: &[u32],
    kind_names: &'a [String],
    n: usize,
) -> Result<Vec<&'a str>, CtxpackError> {
    if kinds.is_empty() {
        return Ok(vec![""; n]);
    }
    kinds
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            kind_names
                .get(k as usize)
                .map(String::as_str)
                .ok_or_else(|| CtxpackError::InvalidField {
                    field: "kind".into(),
                    index: Some(i),
                    reason: ErrorReason::KindId {
                        id: u64::from(k),
                        kind_names: kind_names.len(),
                    },
                })
        })
        .collect()
}

/// The marker of [`kind_from_js`]'s escapes.
const ESCAPE: char = '\u{FFFD}';

/// A kind as the core compares it. A JS string is UTF-16 and may hold lone
/// surrogates, which a Rust `String` cannot: a plain conversion makes every
/// lone surrogate U+FFFD, so that distinct kinds would collide. The kind
/// is kept injective instead: a lone surrogate becomes U+FFFD, `1` and its
/// code unit in four lowercase hex digits, a U+FFFD of the input U+FFFD and
/// `0`. Equal kinds (ASCII case-insensitively) stay equal and distinct ones
/// distinct, so kinds compare as UTF-16 code units, as in JS;
/// [`kind_to_js`](super::encode::kind_to_js) reverses it.
pub(super) fn kind_from_js(js: &JsString) -> String {
    let lossy = String::from(js);
    if !lossy.contains(ESCAPE) {
        return lossy;
    }
    let mut out = String::with_capacity(lossy.len() + 8);
    for unit in char::decode_utf16(js.iter()) {
        match unit {
            Ok(ESCAPE) => out.extend([ESCAPE, '0']),
            Ok(c) => out.push(c),
            Err(e) => {
                out.extend([ESCAPE, '1']);
                out.push_str(&hex4(e.unpaired_surrogate()));
            }
        }
    }
    out
}

fn hex4(unit: u16) -> String {
    (0..4)
        .rev()
        .map(|k| char::from_digit(u32::from((unit >> (4 * k)) & 0xF), 16).unwrap_or('0'))
        .collect()
}

/// The kind names of the columnar entry points, as the core compares them.
pub(super) fn kind_names_from_js(names: &[JsString]) -> Vec<String> {
    names.iter().map(kind_from_js).collect()
}

/// A fragment object as read: its count, score and kind.
pub(super) struct Decoded {
    pub(super) tokens: i64,
    pub(super) score: f64,
    pub(super) kind: String,
}

pub(super) fn field_error(field: &str, index: usize, reason: ErrorReason) -> CtxpackError {
    CtxpackError::InvalidField {
        field: field.into(),
        index: Some(index),
        reason,
    }
}

/// `must be {what}, got {v described}`.
pub(super) fn expected(what: &'static str, v: &JsValue) -> ErrorReason {
    ErrorReason::Expected {
        expected: what.into(),
        got: Some(describe(v)),
    }
}

pub(super) fn describe(v: &JsValue) -> String {
    if v.is_undefined() {
        "missing".into()
    } else if v.is_null() {
        "null".into()
    } else if let Some(n) = v.as_f64() {
        js_number(n)
    } else if Array::is_array(v) {
        "an array".into()
    } else {
        let ty = v.js_typeof().as_string().unwrap_or_default();
        let article = if ty.starts_with('o') { "an" } else { "a" };
        format!("{article} {ty}")
    }
}

#[wasm_bindgen]
extern "C" {
    /// A fragment object as the object path reads it: four plain property
    /// reads (`obj.id`, …), compiled into the glue with their names, so no
    /// key crosses the boundary.
    type Fragment;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn id(this: &Fragment) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn cost_tokens(this: &Fragment) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn score(this: &Fragment) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, structural, getter, catch)]
    fn kind(this: &Fragment) -> Result<JsValue, JsValue>;
}

/// What reading `field` of fragment `i` threw: `INVALID_INPUT` naming it,
/// with the thrown value as its `cause`.
fn unreadable(i: usize, field: &'static str) -> impl FnOnce(JsValue) -> Refused {
    move |cause| Refused {
        error: CtxpackError::Unreadable { field, index: i },
        cause: Some(cause),
    }
}

pub(super) fn decode_fragment(i: usize, v: &JsValue) -> Result<Decoded, Refused> {
    if !v.is_object() || v.is_null() {
        return Err(not_an_object(i, v));
    }
    let f: &Fragment = v.unchecked_ref();
    check_fragment(i, |field| {
        match field {
            "id" => f.id(),
            "cost_tokens" => f.cost_tokens(),
            "score" => f.score(),
            _ => f.kind(),
        }
        .map_err(unreadable(i, field))
    })
}

fn not_an_object(i: usize, v: &JsValue) -> Refused {
    CtxpackError::InvalidField {
        field: String::new(),
        index: Some(i),
        reason: expected("an object", v),
    }
    .into()
}

/// Checks fragment `i`'s four properties, each read by `read` when its
/// turn comes (so the first bad one is reported, whatever follows).
fn check_fragment(
    i: usize,
    mut read: impl FnMut(&'static str) -> Result<JsValue, Refused>,
) -> Result<Decoded, Refused> {
    let id = read("id")?;
    if !id.is_string() {
        return Err(field_error("id", i, expected("a string", &id)).into());
    }
    let raw_tokens = read("cost_tokens")?;
    let tokens = match raw_tokens.as_f64() {
        Some(t) if t.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&t) => {
            #[allow(clippy::cast_possible_truncation)] // checked above
            let t = t as i64;
            t
        }
        _ => {
            return Err(field_error(
                "cost_tokens",
                i,
                ErrorReason::Range {
                    what: "an integer",
                    min: 0.0,
                    max: f64::from(u32::MAX),
                    max_by_name: true,
                    got: Some(describe(&raw_tokens)),
                },
            )
            .into())
        }
    };
    let raw_score = read("score")?;
    let score = if raw_score.is_undefined() {
        0.0
    } else {
        raw_score
            .as_f64()
            .ok_or_else(|| field_error("score", i, expected("a number", &raw_score)))?
    };
    let raw_kind = read("kind")?;
    let kind = if raw_kind.is_undefined() {
        String::new()
    } else {
        raw_kind
            .dyn_ref::<JsString>()
            .map(kind_from_js)
            .ok_or_else(|| field_error("kind", i, expected("a string", &raw_kind)))?
    };
    Ok(Decoded {
        tokens,
        score,
        kind,
    })
}

/// A fragment object read through serde-wasm-bindgen, for the side-by-side
/// measurement only (`make bench` builds it with `--features
/// serde-fragments`; the package ships the getters above, see
/// `slice::objects`).
#[cfg(feature = "serde-fragments")]
#[derive(serde::Deserialize)]
struct FragmentIn {
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    id: JsValue,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    cost_tokens: JsValue,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    score: JsValue,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    kind: JsValue,
}

/// [`decode_fragment`] through serde-wasm-bindgen. A throwing getter
/// escapes it as a JS exception (it reads without `catch`): one more reason
/// the package keeps the getters.
#[cfg(feature = "serde-fragments")]
pub(super) fn decode_fragment_serde(i: usize, v: &JsValue) -> Result<Decoded, Refused> {
    if !v.is_object() || v.is_null() {
        return Err(not_an_object(i, v));
    }
    let f: FragmentIn =
        serde_wasm_bindgen::from_value(v.clone()).map_err(|_| CtxpackError::InvalidField {
            field: String::new(),
            index: Some(i),
            reason: ErrorReason::Unreadable,
        })?;
    let mut f = Some(f);
    check_fragment(i, |field| {
        let f = f.as_mut().ok_or(CtxpackError::InvalidInput {
            reason: "read twice".into(),
        })?;
        Ok(match field {
            "id" => f.id.clone(),
            "cost_tokens" => f.cost_tokens.clone(),
            "score" => f.score.clone(),
            _ => f.kind.clone(),
        })
    })
}
