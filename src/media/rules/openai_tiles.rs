//! OpenAI's tile rule (GPT-4o, GPT-4.1, GPT-4.5, GPT-5, o1, o3,
//! computer-use-preview), from the "Calculating costs" section of OpenAI's
//! images and vision guide
//! (<https://platform.openai.com/docs/guides/images-vision#calculating-costs>):
//!
//! - `detail: "low"`: the base tokens, whatever the size;
//! - `detail: "high"`: scale to fit in 2048 × 2048, then so that the
//!   shortest side is 768 px (images only shrink), then count the 512 px
//!   tiles that cover it: base + per-tile × tiles;
//! - `detail: "auto"` (or none): the guide says the model chooses; this
//!   counts it as `"high"`, the upper bound.
//!
//! The guide's worked examples for GPT-4o (85 + 170 per tile): 1024 × 1024
//! high is 765 tokens, 2048 × 4096 high is 1105, any size low is 85.

use super::scale::{cells, shrink};
use super::Detail;

/// A tile rule's two figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenAiTiles {
    /// Tokens of every image (all of a `"low"` one).
    pub base: u32,
    /// Tokens per 512 px tile at `"high"`.
    pub tile: u32,
}

/// Tiles of the largest image after the two resizes: 768 × 2048 is 2 × 4.
const MAX_TILES: u64 = 8;

impl OpenAiTiles {
    /// Tokens of a `width × height` image (both at least 1).
    ///
    /// ```
    /// use ctxpack_core::media::{Detail, OpenAiTiles};
    /// let gpt4o = OpenAiTiles { base: 85, tile: 170 };
    /// assert_eq!(gpt4o.tokens(Detail::High, 1024, 1024), 765);
    /// assert_eq!(gpt4o.tokens(Detail::Auto, 2048, 4096), 1105);
    /// assert_eq!(gpt4o.tokens(Detail::Low, 4096, 8192), 85);
    /// ```
    pub fn tokens(&self, detail: Detail, width: u32, height: u32) -> u64 {
        if detail == Detail::Low {
            return u64::from(self.base);
        }
        let (w, h) = (f64::from(width), f64::from(height));
        let (w, h) = shrink(w, h, 2048.0 / w.max(h));
        let (w, h) = shrink(w, h, 768.0 / w.min(h));
        self.with_tiles(cells(w, 512.0) * cells(h, 512.0))
    }

    /// Tokens of an image of unknown size: the base at `"low"`, else the
    /// most tiles the resizes leave (8).
    ///
    /// ```
    /// use ctxpack_core::media::{Detail, OpenAiTiles};
    /// assert_eq!(OpenAiTiles { base: 85, tile: 170 }.max_tokens(Detail::High), 1445);
    /// ```
    pub fn max_tokens(&self, detail: Detail) -> u64 {
        if detail == Detail::Low {
            return u64::from(self.base);
        }
        self.with_tiles(MAX_TILES)
    }

    fn with_tiles(self, tiles: u64) -> u64 {
        u64::from(self.base) + u64::from(self.tile) * tiles
    }
}
