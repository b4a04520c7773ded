//! The one place a [`CtxpackError`] becomes a JS value, and how errors
//! name items by the caller's list (`noun`, `origin`).

use wasm_bindgen::prelude::*;

use super::encode::{i64_f64, index_f64, set};
use super::options::{parse_options, Mode, Options};
use super::reason::set_reason;
use crate::{CountEntryProblem, CtxpackError, TableLimit};

/// How errors name the items: `noun[origin[i]]` for the core's
/// `items[i]` (the caller's list, before any reordering).
pub(super) struct Naming<'a> {
    pub(super) noun: &'a str,
    /// Empty: the identity.
    pub(super) origin: &'a [u32],
}

impl Naming<'_> {
    /// Item `i`'s index in the caller's list.
    pub(super) fn origin_of(&self, i: usize) -> usize {
        self.origin.get(i).map_or(i, |&o| o as usize)
    }
}

/// A refusal while reading the caller's values: the error, and what a
/// getter or Proxy trap threw, if that is why.
pub(super) struct Refused {
    pub(super) error: CtxpackError,
    /// Becomes the JS error's `cause`.
    pub(super) cause: Option<JsValue>,
}

impl From<CtxpackError> for Refused {
    fn from(error: CtxpackError) -> Self {
        Refused { error, cause: None }
    }
}

impl Refused {
    pub(super) fn into_js(self) -> JsValue {
        let js = to_js_error(&self.error);
        if let Some(cause) = self.cause {
            set(&js, "cause", &cause);
        }
        js
    }
}

/// The one place a [`CtxpackError`] becomes a JS value.
pub(super) fn to_js_error(err: &CtxpackError) -> JsValue {
    to_js_error_named(err, None)
}

/// [`to_js_error`], naming items through `naming`: `index` becomes
/// `origin[i]` and `noun` the caller's list.
///
/// The error crosses as its fields: `code`, `field` (in the words JS callers
/// use), `index`, `noun` for an item's index, and whatever else its sentence
/// needs (`limit`, `unit`; a reason's `reasonKind` and its fields, see
/// [`set_reason`]). The package writes the sentence from
/// them (pkg/src/error-text.ts); the message here is the core's own
/// (`Display`), untouched, for whoever reads the glue directly.
pub(super) fn to_js_error_named(err: &CtxpackError, naming: Option<&Naming<'_>>) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    js.set_name("CtxpackError");
    let obj: &JsValue = js.as_ref();
    let num = |key: &str, v: f64| set(obj, key, &JsValue::from(v));
    let text = |key: &str, v: &str| set(obj, key, &JsValue::from_str(v));
    text("code", err.code());
    if let Some(field) = js_field(err) {
        text("field", field);
    }
    if let Some(i) = err.index() {
        let at = match naming {
            Some(naming) if err.names_item() => naming.origin_of(i),
            _ => i,
        };
        num("index", index_f64(at));
        if err.names_item() {
            text("noun", naming.map_or("items", |n| n.noun));
        }
    }
    match err {
        CtxpackError::InvalidScore { value, .. } => num("value", *value),
        CtxpackError::InvalidCountEntry { problem, .. } => match *problem {
            CountEntryProblem::CapZero { require_count } => {
                text("problem", "cap_zero");
                num("requireCount", index_f64(require_count));
            }
            CountEntryProblem::RequireOverCap {
                require_count,
                cap_count,
            } => {
                text("problem", "require_over_cap");
                num("requireCount", index_f64(require_count));
                num("capCount", index_f64(cap_count));
            }
            CountEntryProblem::DuplicateKind { first } => {
                text("problem", "duplicate_kind");
                num("first", index_f64(first));
            }
        },
        CtxpackError::CountEntryShape { member, reason, .. } => {
            if !member.is_empty() {
                text("member", member);
            }
            set_reason(obj, reason);
        }
        CtxpackError::InvalidBucketSize { value } => num("value", i64_f64(*value)),
        CtxpackError::BucketSizeNotInteger { got } => text("got", got),
        CtxpackError::InvalidBudget { reason, .. }
        | CtxpackError::InvalidOption { reason, .. }
        | CtxpackError::InvalidField { reason, .. }
        | CtxpackError::InvalidInput { reason } => set_reason(obj, reason),
        CtxpackError::TableTooLarge {
            candidates,
            capacity,
            cells,
            bytes,
            limit,
            unit,
            bucket_helps,
        } => {
            num("candidates", index_f64(*candidates));
            num("capacity", u64_f64(*capacity));
            num("columns", u64_f64(capacity.saturating_add(1)));
            num("cells", u64_f64(*cells));
            num("bytes", u64_f64(*bytes));
            num("limit", u64_f64(*limit));
            let unit = match unit {
                TableLimit::Bytes => "bytes",
                TableLimit::Cells => "cells",
                TableLimit::Addressable => "addressable",
            };
            text("unit", unit);
            set(obj, "bucketHelps", &JsValue::from_bool(*bucket_helps));
        }
        CtxpackError::CountRequirementShortfall {
            satisfied,
            required,
            ..
        } => {
            num("satisfied", index_f64(*satisfied));
            num("required", index_f64(*required));
        }
        CtxpackError::CountRequirementOverBudget {
            required_tokens,
            target_tokens,
            bucket_size,
        } => {
            num("requiredTokens", i64_f64(*required_tokens));
            num("targetTokens", i64_f64(*target_tokens));
            num("bucketSize", i64_f64(*bucket_size));
        }
        CtxpackError::NotMonotonic { slicer } => text("slicer", slicer),
        CtxpackError::CountedKindInGroup { members, .. } => {
            num("members", index_f64(*members));
        }
        // `field` and `index` say it all.
        CtxpackError::SelfDependency { .. } | CtxpackError::Unreadable { .. } => {}
    }
    js.into()
}

/// The error's `field` in the words JS callers use: the core's builder
/// options (`bucket_size`, `max_table_bytes`, `max_cells`) by their option
/// names; a table past the address space names `maxTableBytes`, the option
/// that let it get there.
fn js_field(err: &CtxpackError) -> Option<&str> {
    match err {
        CtxpackError::InvalidBucketSize { .. } | CtxpackError::BucketSizeNotInteger { .. } => {
            Some("bucketSize")
        }
        CtxpackError::TableTooLarge { unit, .. } => Some(match unit {
            TableLimit::Cells => "maxCells",
            TableLimit::Bytes | TableLimit::Addressable => "maxTableBytes",
        }),
        _ => err.field(),
    }
}

#[allow(clippy::cast_precision_loss)] // table sizes; the message shows them as JS numbers
fn u64_f64(v: u64) -> f64 {
    v as f64
}

/// The grouped entry points' frame: parses the options (their errors name
/// no item), then runs `f`, naming items in its errors through `origin`
/// and `options.noun`.
pub(super) fn with_naming<T>(
    options: &JsValue,
    mode: Mode,
    origin: &[u32],
    f: impl FnOnce(&Options) -> Result<T, CtxpackError>,
) -> Result<T, JsValue> {
    let options = parse_options(options, mode).map_err(|e| to_js_error(&e))?;
    let naming = Naming {
        noun: &options.noun,
        origin,
    };
    f(&options).map_err(|e| to_js_error_named(&e, Some(&naming)))
}
