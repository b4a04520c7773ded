//! The one place a [`CtxpackError`] becomes a JS value, and how errors
//! name items by the caller's list (`noun`, `origin`).

use wasm_bindgen::prelude::*;

use super::encode::{index_f64, set};
use super::options::{parse_options, Mode, Options};
use super::MAX_SAFE_INTEGER;
use crate::{CtxpackError, TableLimit};

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

/// [`to_js_error`], naming items through `naming`: the message's leading
/// `items[i]` becomes `noun[origin[i]]` (and a self-dependency's `got i`
/// the same index), `index` becomes `origin[i]`.
pub(super) fn to_js_error_named(err: &CtxpackError, naming: Option<&Naming<'_>>) -> JsValue {
    let mut message = err.to_string();
    let mut index = err.index();
    if let (Some(naming), Some(i)) = (naming, index.filter(|_| err.names_item())) {
        let at = naming.origin_of(i);
        if let Some(rest) = message.strip_prefix(&format!("items[{i}]")) {
            let rest = rest.replace(
                &format!("got {i} (the item itself)"),
                &format!("got {at} (the item itself)"),
            );
            message = format!("{}[{at}]{rest}", naming.noun);
        }
        index = Some(at);
    }
    let mut field = err.field();
    if let CtxpackError::TableTooLarge {
        limit,
        unit,
        bucket_helps,
        ..
    } = err
    {
        // The options in the words JS callers use, and no advice to raise a
        // limit that is already the largest the options accept.
        let facts = message
            .split("; raise")
            .next()
            .unwrap_or_default()
            .to_owned();
        let option = match unit {
            TableLimit::Bytes => "maxTableBytes",
            TableLimit::Cells => "maxCells",
            // Past the address space: the message is the core's, the bucket is the JS name.
            TableLimit::Addressable => {
                message = message.replace("raise bucket_size", "raise bucketSize");
                "maxTableBytes"
            }
        };
        if *unit != TableLimit::Addressable {
            #[allow(clippy::cast_precision_loss)] // a comparison with 2^53 - 1
            let at_most = *limit as f64 >= MAX_SAFE_INTEGER;
            let bucket = if *bucket_helps { "bucketSize or " } else { "" };
            message = if at_most {
                // Nothing left to raise but the bucket, when the caller chooses it.
                let raise = if *bucket_helps {
                    "raise bucketSize or "
                } else {
                    ""
                };
                format!("{facts}; {option} is at its largest: {raise}lower the budget")
            } else {
                format!("{facts}; raise {bucket}{option}")
            };
        }
        field = Some(option);
    }
    let js = js_sys::Error::new(&message);
    js.set_name("CtxpackError");
    let obj: &JsValue = js.as_ref();
    set(obj, "code", &JsValue::from_str(err.code()));
    if let Some(field) = field {
        // The core's own fields in the words JS callers use.
        let field = match err {
            CtxpackError::InvalidBucketSize { .. } => "bucketSize",
            _ => field,
        };
        set(obj, "field", &JsValue::from_str(field));
    }
    if let Some(index) = index {
        set(obj, "index", &JsValue::from(index_f64(index)));
    }
    js.into()
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
