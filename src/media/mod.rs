//! Images and files counted the way providers count them.
//!
//! **Sizes from headers** ([`image_info`], [`image_info_base64`],
//! [`probe`]): the width and height of a PNG (IHDR), JPEG (the first
//! `SOFn` marker, baseline or progressive), GIF (the logical screen) or WebP
//! (VP8, VP8L, VP8X), read from the header without decoding a pixel. A
//! JPEG's segments before its SOF are skipped by their lengths, so the cost
//! is the number of segments walked (at most [`MAX_JPEG_SEGMENTS`]), never
//! the image's size. Unknown, malformed or truncated input is `None`, not
//! an error: the caller then counts the documented maximum of the rule
//! (an image whose size is unknown, `0 × 0` in [`image_tokens`]).
//!
//! Dimensions are the stored ones: EXIF orientation is not applied, because
//! every rule below is symmetric in width and height (a rotated image costs
//! the same).
//!
//! **Provider rules** ([`image_tokens`], [`ImageRule`]): one table,
//! [`rule_for`], maps a provider and a model name to the rule that counts
//! its images (OpenAI's tiles or patches, Anthropic's pixels, Gemini's crop
//! tiles or fixed budgets), each rule in its own file with its source.
//!
//! **PDFs** ([`pdf_pages`], [`pdf_tokens`]): a page count read cheaply from
//! the bytes (an estimate), times a per-page estimate per provider.
//!
//! Audio is left out: of the three providers only Google documents a rate
//! (32 tokens per second of audio), and the duration would need a parser
//! per container; OpenAI documents no per-second figure for chat inputs.
//!
//! ```
//! use ctxpack_core::media::{image_info, image_tokens, Provider};
//!
//! // A PNG signature and IHDR chunk: 1024 × 1024.
//! let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
//! png.extend_from_slice(&1024u32.to_be_bytes());
//! png.extend_from_slice(&1024u32.to_be_bytes());
//! let info = image_info(&png).unwrap();
//! assert_eq!((info.width, info.height), (1024, 1024));
//! let tokens = image_tokens(Provider::OpenAi, "gpt-4o", "high", info.width, info.height)?;
//! assert_eq!(tokens, 765); // OpenAI's own worked example
//! # Ok::<(), ctxpack_core::CtxpackError>(())
//! ```

mod base64;
mod bytes;
mod gif;
mod jpeg;
mod pdf;
mod png;
mod probe;
mod rules;
mod webp;

pub use base64::{
    base64_char_of, base64_payload_start, decode_window, image_info_base64, probe_base64, Decoded,
    WINDOW_CHARS,
};
pub use pdf::{pdf_pages, pdf_pages_window, PDF_SCAN_BYTES};
pub use probe::{image_info, probe, Probe, MAX_JPEG_SEGMENTS, MAX_ROUNDS, WINDOW_BYTES};
pub use rules::{
    image_tokens, parse_provider, pdf_tokens, rule_for, AnthropicPixels, Detail, GeminiBudget,
    GeminiCropTiles, ImageRule, OpenAiPatches, OpenAiTiles, Provider, PDF_TEXT_TOKENS_PER_PAGE,
    UNKNOWN_PDF_PAGES,
};

/// An image format whose header this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG (IHDR).
    Png,
    /// JPEG (the first `SOFn` marker).
    Jpeg,
    /// GIF (the logical screen).
    Gif,
    /// WebP (VP8, VP8L or VP8X).
    Webp,
}

impl ImageFormat {
    /// The format's number at the wasm boundary (1 PNG, 2 JPEG, 3 GIF, 4 WebP).
    ///
    /// ```
    /// use ctxpack_core::media::ImageFormat;
    /// assert_eq!(ImageFormat::Jpeg.id(), 2);
    /// ```
    pub const fn id(self) -> u8 {
        match self {
            ImageFormat::Png => 1,
            ImageFormat::Jpeg => 2,
            ImageFormat::Gif => 3,
            ImageFormat::Webp => 4,
        }
    }
}

/// An image's format and stored dimensions (both at least 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageInfo {
    /// The container the size was read from.
    pub format: ImageFormat,
    /// Width in pixels, as stored (no EXIF orientation applied).
    pub width: u32,
    /// Height in pixels, as stored.
    pub height: u32,
}

impl ImageInfo {
    /// An info when both sides are positive; `None` otherwise (a zero side
    /// is a malformed header, not an image).
    ///
    /// ```
    /// use ctxpack_core::media::{ImageFormat, ImageInfo};
    /// assert!(ImageInfo::new(ImageFormat::Gif, 0, 5).is_none());
    /// assert_eq!(ImageInfo::new(ImageFormat::Gif, 3, 5).map(|i| i.width), Some(3));
    /// ```
    pub fn new(format: ImageFormat, width: u32, height: u32) -> Option<Self> {
        (width > 0 && height > 0).then_some(ImageInfo {
            format,
            width,
            height,
        })
    }
}
