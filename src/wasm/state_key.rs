//! `stateKeyDerive`, `stateTextKey` and `stateKeyCheck`:
//! [`crate::state_key`] for the package's `createSession({ stateKey })`.
//! Keys cross as 16 bytes, texts as their UTF-16 code units (`Uint16Array`,
//! so that no string conversion merges distinct texts), hashes as 16
//! lowercase hex digits.

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::state_key::{derive_key, key_check, text_hash, MIN_SECRET_BYTES};
use crate::{CtxpackError, ErrorReason};

/// The 16-byte key the package passes back, or `INVALID_OPTION`.
fn key_of(key: &[u8]) -> Result<[u8; 16], JsValue> {
    <[u8; 16]>::try_from(key).map_err(|_| {
        to_js_error(&CtxpackError::InvalidOption {
            option: "stateKey".to_owned(),
            reason: ErrorReason::Bytes {
                want: 16,
                got: key.len(),
                at_least: false,
            },
        })
    })
}

/// The SipHash-2-4 key of `secret` ([`derive_key`]).
///
/// # Errors
/// `INVALID_OPTION` naming `stateKey` when the secret is shorter than 16 bytes.
#[wasm_bindgen(js_name = stateKeyDerive)]
pub fn state_key_derive(secret: &[u8]) -> Result<Vec<u8>, JsValue> {
    derive_key(secret).map(|k| k.to_vec()).ok_or_else(|| {
        to_js_error(&CtxpackError::InvalidOption {
            option: "stateKey".to_owned(),
            reason: ErrorReason::Bytes {
                want: MIN_SECRET_BYTES,
                got: secret.len(),
                at_least: true,
            },
        })
    })
}

/// [`text_hash`] of `units` under `key`, as 16 hex digits.
///
/// # Errors
/// `INVALID_OPTION` when `key` is not 16 bytes.
#[wasm_bindgen(js_name = stateTextKey)]
pub fn state_text_key(key: &[u8], units: &[u16]) -> Result<String, JsValue> {
    Ok(format!("{:016x}", text_hash(&key_of(key)?, units)))
}

/// [`key_check`] under `key`, as 16 hex digits.
///
/// # Errors
/// `INVALID_OPTION` when `key` is not 16 bytes.
#[wasm_bindgen(js_name = stateKeyCheck)]
pub fn state_key_check(key: &[u8]) -> Result<String, JsValue> {
    Ok(format!("{:016x}", key_check(&key_of(key)?)))
}
