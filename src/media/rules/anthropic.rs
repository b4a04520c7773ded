//! Anthropic's rule, from Claude's vision guide
//! (<https://docs.claude.com/en/docs/build-with-claude/vision>, "Evaluate
//! image size" and "Calculate image costs"): an image whose long edge is
//! over the model's limit (1568 px), or that is over about 1,600 tokens, is
//! first scaled down keeping its aspect ratio; then
//! `tokens = width × height / 750`, rounded up here.
//!
//! The pixel limit is the guide's own table of the largest sizes that are
//! not resized: its largest, 784 × 1568 (1:2), is 1,229,312 px, so no
//! image counts more than 1640 tokens. The guide's examples: 200 × 200 is
//! ~54 tokens, 1000 × 1000 ~1334, 1092 × 1092 ~1590.
//!
//! Claude Opus 4.7 reads images up to 2576 px on the long edge (about
//! 3.75 megapixels, per Anthropic's launch notes for the model): its entry
//! has those limits, so at most 5000 tokens. The current guide also
//! describes the count as 28 × 28 px patches; `w × h / 750` is the
//! documented estimate this keeps.

use super::scale::shrink;

/// Anthropic's resize limits for a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnthropicPixels {
    /// The longest edge kept, in pixels.
    pub max_long_edge: u32,
    /// The most pixels kept.
    pub max_pixels: u32,
}

/// Pixels per token.
const PIXELS_PER_TOKEN: u64 = 750;

impl AnthropicPixels {
    /// Tokens of a `width × height` image (both at least 1).
    ///
    /// ```
    /// use ctxpack_core::media::AnthropicPixels;
    /// let claude = AnthropicPixels { max_long_edge: 1568, max_pixels: 1_229_312 };
    /// assert_eq!(claude.tokens(200, 200), 54);
    /// assert_eq!(claude.tokens(1000, 1000), 1334);
    /// assert_eq!(claude.tokens(1092, 1092), 1590);
    /// assert_eq!(claude.tokens(4000, 3000), 1639); // scaled to 1280 × 960
    /// ```
    pub fn tokens(&self, width: u32, height: u32) -> u64 {
        let (w, h) = (f64::from(width), f64::from(height));
        let edge = f64::from(self.max_long_edge) / w.max(h);
        let area = (f64::from(self.max_pixels) / (w * h)).sqrt();
        let (w, h) = shrink(w, h, edge.min(area));
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let pixels = (w * h) as u64; // whole, at most max_pixels
        pixels.div_ceil(PIXELS_PER_TOKEN)
    }

    /// Tokens of an image of unknown size: the pixel limit's.
    ///
    /// ```
    /// use ctxpack_core::media::AnthropicPixels;
    /// assert_eq!(AnthropicPixels { max_long_edge: 1568, max_pixels: 1_229_312 }.max_tokens(), 1640);
    /// ```
    pub fn max_tokens(&self) -> u64 {
        u64::from(self.max_pixels).div_ceil(PIXELS_PER_TOKEN)
    }
}
