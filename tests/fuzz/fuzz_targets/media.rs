//! Fuzzes the media readers with arbitrary bytes: image sizes from bytes,
//! from windows at an arbitrary offset and from base64 text, PDF page
//! counts, and the token rules at arbitrary sizes. No panic, no zero side,
//! and a size read whole is the size read through windows.
#![no_main]

use ctxpack_core::media::{
    image_info, image_info_base64, image_tokens, pdf_pages, probe, Probe, Provider, WINDOW_BYTES,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = image_info(data);
    if let Some(info) = whole {
        assert!(info.width > 0 && info.height > 0);
    }
    // The windows a wasm caller passes give the same answer.
    let mut offset = 0u64;
    let mut windowed = None;
    for _ in 0..16 {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(data.len());
        let end = (start + WINDOW_BYTES).min(data.len());
        match probe(&data[start..end], offset, end == data.len()) {
            Probe::Found(info) => {
                windowed = Some(info);
                break;
            }
            Probe::Unknown => break,
            Probe::Need(next) => {
                assert!(next > offset, "a request must move forward");
                offset = next;
            }
        }
    }
    assert_eq!(whole, windowed);
    // A continuation at any offset, as a confused caller could ask.
    if data.len() > 4 {
        let at = u64::from(data[0]) * 7;
        let _ = probe(&data[1..], at, data[1] % 2 == 0);
    }
    let _ = image_info_base64(&String::from_utf8_lossy(data));
    let _ = pdf_pages(data);
    if data.len() >= 8 {
        let w = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
        let h = u32::from_le_bytes([data[4], data[5], data[6], data[7]]);
        for (provider, model) in [
            (Provider::OpenAi, "gpt-4o"),
            (Provider::OpenAi, "gpt-4.1-mini"),
            (Provider::Anthropic, "claude-sonnet-4-5"),
            (Provider::Gemini, "gemini-2.5-flash"),
        ] {
            for detail in ["low", "high", "auto"] {
                let tokens = image_tokens(provider, model, detail, w, h).unwrap();
                assert!(tokens > 0);
            }
        }
    }
});
