//! OpenAI's patch rule (GPT-4.1-mini, GPT-4.1-nano, o4-mini, GPT-5-mini,
//! GPT-5-nano), from the "Calculating costs" section of OpenAI's images and
//! vision guide
//! (<https://platform.openai.com/docs/guides/images-vision#calculating-costs>):
//!
//! 1. count the 32 × 32 px patches that cover the image;
//! 2. over 1536 patches, shrink the image by `r = √(32² × 1536 / (w × h))`,
//!    then by `min(⌊w·r/32⌋ / (w·r/32), ⌊h·r/32⌋ / (h·r/32))` so that a
//!    whole number of patches covers one side, and count again;
//! 3. the patches, at most 1536, times the model's multiplier (rounded up
//!    here).
//!
//! The guide's examples: 1024 × 1024 is 1024 patches; 1800 × 2400 is 1452.
//! `detail` does not apply (measured billing ignores `"low"` on these
//! models). The guide gives GPT-5-mini and GPT-5-nano the multipliers of
//! GPT-4.1-mini and -nano (1.62, 2.46); developers report billing at 1.2
//! and 1.5: the documented, larger figures are kept, an upper bound.

use super::scale::cells;

/// The most patches an image costs.
const MAX_PATCHES: u64 = 1536;

/// A patch rule: the model's multiplier, in thousandths (1.62 is 1620).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenAiPatches {
    /// Tokens per 1000 patches.
    pub multiplier_permille: u32,
}

impl OpenAiPatches {
    /// The patches covering a `width × height` image after the rule's
    /// shrink (both sides at least 1).
    ///
    /// ```
    /// use ctxpack_core::media::OpenAiPatches;
    /// assert_eq!(OpenAiPatches::patches(1024, 1024), 1024);
    /// assert_eq!(OpenAiPatches::patches(1800, 2400), 1452);
    /// ```
    pub fn patches(width: u32, height: u32) -> u64 {
        let (w, h) = (f64::from(width), f64::from(height));
        let patches = cells(w, 32.0) * cells(h, 32.0);
        if patches <= MAX_PATCHES {
            return patches;
        }
        let r = (32.0 * 32.0 * 1536.0 / (w * h)).sqrt();
        let (pw, ph) = (w * r / 32.0, h * r / 32.0);
        // A side under one patch cannot be rounded down to whole ones.
        let fit = |p: f64| if p >= 1.0 { p.floor() / p } else { 1.0 };
        let r = r * fit(pw).min(fit(ph));
        // The side that was fitted is whole up to rounding error: do not let
        // 33.000000001 count as 34.
        let side = |len: f64| ((len * r / 32.0 - 1e-9).ceil()).max(1.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let shrunk = (side(w) * side(h)) as u64;
        shrunk.min(MAX_PATCHES)
    }

    /// Tokens of a `width × height` image.
    ///
    /// ```
    /// use ctxpack_core::media::OpenAiPatches;
    /// let mini = OpenAiPatches { multiplier_permille: 1620 };
    /// assert_eq!(mini.tokens(1024, 1024), 1659); // ⌈1024 × 1.62⌉
    /// assert_eq!(mini.tokens(1800, 2400), 2353); // ⌈1452 × 1.62⌉
    /// ```
    pub fn tokens(&self, width: u32, height: u32) -> u64 {
        self.of_patches(Self::patches(width, height))
    }

    /// Tokens of an image of unknown size: 1536 patches.
    ///
    /// ```
    /// use ctxpack_core::media::OpenAiPatches;
    /// assert_eq!(OpenAiPatches { multiplier_permille: 1620 }.max_tokens(), 2489);
    /// ```
    pub fn max_tokens(&self) -> u64 {
        self.of_patches(MAX_PATCHES)
    }

    fn of_patches(self, patches: u64) -> u64 {
        (patches * u64::from(self.multiplier_permille)).div_ceil(1000)
    }
}
