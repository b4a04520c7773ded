//! The media readers and token rules ([`crate::media`]): numbers and
//! windows in, numbers out. Nothing here reads a whole image: the caller
//! passes windows ([`media_limits`] says how large) and follows the offsets
//! a probe asks for.
//!
//! A probe answers a `Float64Array`: `[0]` unknown, `[1, width, height,
//! format]` found (format 1 PNG, 2 JPEG, 3 GIF, 4 WebP), `[2, offset]` call
//! again with the window at `offset`.

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use super::MAX_SAFE_INTEGER;
use crate::media::{
    base64_payload_start, image_tokens as core_image_tokens, parse_provider, pdf_pages_window,
    pdf_tokens as core_pdf_tokens, probe, probe_base64, Probe, MAX_ROUNDS, PDF_SCAN_BYTES,
    WINDOW_BYTES, WINDOW_CHARS,
};
use crate::{CtxpackError, ErrorReason};

/// `[WINDOW_BYTES, WINDOW_CHARS, MAX_ROUNDS, PDF_SCAN_BYTES]`: the window
/// a probe reads, in bytes and in base64 characters, the windows to follow
/// at most per image, and the bytes of a PDF scanned for pages.
#[wasm_bindgen(js_name = mediaLimits)]
pub fn media_limits() -> Vec<u32> {
    let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    vec![
        n(WINDOW_BYTES),
        n(WINDOW_CHARS),
        MAX_ROUNDS,
        n(PDF_SCAN_BYTES),
    ]
}

/// A whole number from 0 to `max`, or `INVALID_OPTION` naming `field`.
fn whole(value: f64, max: f64, field: &str) -> Result<f64, JsValue> {
    if value.is_finite() && value >= 0.0 && value <= max && value.fract() == 0.0 {
        Ok(value)
    } else {
        Err(to_js_error(&CtxpackError::InvalidOption {
            option: field.into(),
            reason: ErrorReason::Range {
                what: "a whole number",
                min: 0.0,
                max,
                max_by_name: false,
                got: None,
            },
        }))
    }
}

/// An offset as the core takes it.
fn offset_of(offset: f64) -> Result<u64, JsValue> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, 0..2^53
    whole(offset, MAX_SAFE_INTEGER, "offset").map(|o| o as u64)
}

/// A side or a count as the core takes it.
fn u32_of(value: f64, field: &str) -> Result<u32, JsValue> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, 0..2^32
    whole(value, f64::from(u32::MAX), field).map(|v| v as u32)
}

#[allow(clippy::cast_precision_loss)] // offsets below 2^53
fn encode(probe: Probe) -> Vec<f64> {
    match probe {
        Probe::Unknown => vec![0.0],
        Probe::Found(info) => vec![
            1.0,
            f64::from(info.width),
            f64::from(info.height),
            f64::from(info.format.id()),
        ],
        Probe::Need(offset) => vec![2.0, offset as f64],
    }
}

/// [`probe`] on `window`, the image's bytes from `offset` on (`complete`:
/// to its end).
///
/// # Errors
/// `INVALID_OPTION` (field `offset`) for an offset that is not a whole
/// number from 0 to 2^53 - 1.
#[wasm_bindgen(js_name = imageProbe)]
pub fn image_probe(window: &[u8], offset: f64, complete: bool) -> Result<Vec<f64>, JsValue> {
    Ok(encode(probe(window, offset_of(offset)?, complete)))
}

/// [`probe_base64`] on `window`, the payload's characters from the one of
/// byte `offset` on (`complete`: to the text's end), as ASCII bytes: the
/// caller encodes the slice of its string with `TextEncoder.encodeInto`,
/// which costs a fraction of passing a string (a character of neither
/// alphabet ends the data either way).
///
/// # Errors
/// As [`image_probe`].
#[wasm_bindgen(js_name = imageProbeBase64)]
pub fn image_probe_base64(window: &[u8], offset: f64, complete: bool) -> Result<Vec<f64>, JsValue> {
    Ok(encode(probe_base64(window, offset_of(offset)?, complete)))
}

/// Where the base64 payload of a text whose first characters are `head`
/// (as UTF-8 bytes) starts: after a `data:…;base64,` header, or 0; -1 when
/// the text is not base64.
#[wasm_bindgen(js_name = base64PayloadStart)]
pub fn base64_payload_start_wasm(head: &[u8]) -> i32 {
    base64_payload_start(head)
        .and_then(|s| i32::try_from(s).ok())
        .unwrap_or(-1)
}

/// Tokens of a `width × height` image (0: unknown size, the documented
/// maximum) for `model` at `provider` with `detail`.
///
/// # Errors
/// `INVALID_OPTION` naming `provider`, `detail`, `width` or `height`.
#[wasm_bindgen(js_name = imageTokens)]
#[allow(clippy::cast_precision_loss)] // token counts far below 2^53
pub fn image_tokens(
    provider: &str,
    model: &str,
    detail: &str,
    width: f64,
    height: f64,
) -> Result<f64, JsValue> {
    let provider = parse_provider(provider).map_err(|e| to_js_error(&e))?;
    let (width, height) = (u32_of(width, "width")?, u32_of(height, "height")?);
    core_image_tokens(provider, model, detail, width, height)
        .map(|t| t as f64)
        .map_err(|e| to_js_error(&e))
}

/// Tokens of a PDF of `pages` pages (0: unknown) for `model` at `provider`
/// with `detail`: an estimate.
///
/// # Errors
/// `INVALID_OPTION` naming `provider`, `detail` or `pages`.
#[wasm_bindgen(js_name = pdfTokens)]
#[allow(clippy::cast_precision_loss)] // token counts far below 2^53
pub fn pdf_tokens(provider: &str, model: &str, detail: &str, pages: f64) -> Result<f64, JsValue> {
    let provider = parse_provider(provider).map_err(|e| to_js_error(&e))?;
    let pages = u32_of(pages, "pages")?;
    core_pdf_tokens(provider, model, detail, pages)
        .map(|t| t as f64)
        .map_err(|e| to_js_error(&e))
}

/// The estimated pages of a PDF of `total_len` bytes whose first bytes are
/// `window` (at most `PDF_SCAN_BYTES` are read); 0 when unknown.
///
/// # Errors
/// `INVALID_OPTION` (field `totalLength`) for a length that is not a whole
/// number from 0 to 2^53 - 1.
#[wasm_bindgen(js_name = pdfPages)]
pub fn pdf_pages(window: &[u8], total_len: f64) -> Result<u32, JsValue> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, 0..2^53
    let total = whole(total_len, MAX_SAFE_INTEGER, "totalLength")? as u64;
    let window = &window[..window.len().min(PDF_SCAN_BYTES)];
    Ok(pdf_pages_window(window, total).unwrap_or(0))
}
