//! Gemini's tile rule (Gemini 2.0 and 2.5; 1.5 alike), from the "Token
//! calculation" section of Google's image understanding guide
//! (<https://ai.google.dev/gemini-api/docs/image-understanding#token-calculation>)
//! and its token guide (<https://ai.google.dev/gemini-api/docs/tokens>):
//! an image with both sides at most 384 px is 258 tokens; a larger one is
//! cut into tiles of a crop unit of about `⌊min(w, h) / 1.5⌋` px, each
//! scaled to 768 × 768 and costing 258 tokens: `⌈w / unit⌉ × ⌈h / unit⌉`
//! tiles. The guide's example: 960 × 540 has a unit of 360, so 3 × 2 = 6
//! tiles. The unit is at least 256 px (the guide's bound for Gemini 1.5
//! tiles), so that a sliver of an image is not hundreds of tiles.
//!
//! The count depends on the aspect ratio only: an image of unknown size is
//! counted as 6 tiles (1548 tokens), which covers aspect ratios up to 2:1.

use super::scale::cells;

/// Gemini's tile rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeminiCropTiles {
    /// Tokens per tile (and of a small image): 258.
    pub tile: u32,
}

/// Both sides at most this: one tile.
const SMALL: u32 = 384;
/// The smallest crop unit.
const MIN_UNIT: u32 = 256;
/// Tiles of an image of unknown size (any aspect ratio up to 2:1).
const UNKNOWN_TILES: u64 = 6;

impl GeminiCropTiles {
    /// The tiles of a `width × height` image (both at least 1).
    ///
    /// ```
    /// use ctxpack_core::media::GeminiCropTiles;
    /// assert_eq!(GeminiCropTiles::tiles(300, 384), 1);
    /// assert_eq!(GeminiCropTiles::tiles(960, 540), 6);
    /// assert_eq!(GeminiCropTiles::tiles(4000, 4000), 4);
    /// ```
    pub fn tiles(width: u32, height: u32) -> u64 {
        if width <= SMALL && height <= SMALL {
            return 1;
        }
        // ⌊min / 1.5⌋ in integers.
        let unit = (u64::from(width.min(height)) * 2 / 3).max(u64::from(MIN_UNIT));
        #[allow(clippy::cast_precision_loss)] // below 2^32: exact
        let unit = unit as f64;
        cells(f64::from(width), unit) * cells(f64::from(height), unit)
    }

    /// Tokens of a `width × height` image.
    ///
    /// ```
    /// use ctxpack_core::media::GeminiCropTiles;
    /// assert_eq!(GeminiCropTiles { tile: 258 }.tokens(960, 540), 1548);
    /// ```
    pub fn tokens(&self, width: u32, height: u32) -> u64 {
        Self::tiles(width, height) * u64::from(self.tile)
    }

    /// Tokens of an image of unknown size: 6 tiles.
    ///
    /// ```
    /// use ctxpack_core::media::GeminiCropTiles;
    /// assert_eq!(GeminiCropTiles { tile: 258 }.max_tokens(), 1548);
    /// ```
    pub fn max_tokens(&self) -> u64 {
        UNKNOWN_TILES * u64::from(self.tile)
    }
}
