//! Gemini 3's fixed budgets, from Google's media resolution guide
//! (<https://ai.google.dev/gemini-api/docs/media-resolution>): the
//! `media_resolution` of a part (or of the request) sets the most tokens an
//! image takes, whatever its size: low 280, medium 560, high 1120 (the
//! default for images), ultra high 2240 (a per-part level). The budget is a
//! maximum, so counting it is the upper bound; an unset level counts as
//! high.

use super::Detail;

/// The tokens of each `media_resolution` level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeminiBudget {
    /// `media_resolution_low`.
    pub low: u32,
    /// `media_resolution_medium`.
    pub medium: u32,
    /// `media_resolution_high`, and an unset level.
    pub high: u32,
    /// `media_resolution_ultra_high`.
    pub ultra_high: u32,
}

impl GeminiBudget {
    /// The budget of `detail`, the same for every size.
    ///
    /// ```
    /// use ctxpack_core::media::{Detail, GeminiBudget};
    /// let g3 = GeminiBudget { low: 280, medium: 560, high: 1120, ultra_high: 2240 };
    /// assert_eq!(g3.tokens(Detail::Medium), 560);
    /// assert_eq!(g3.tokens(Detail::Auto), 1120);
    /// ```
    pub fn tokens(&self, detail: Detail) -> u64 {
        u64::from(match detail {
            Detail::Low => self.low,
            Detail::Medium => self.medium,
            Detail::High | Detail::Auto => self.high,
            Detail::UltraHigh => self.ultra_high,
        })
    }
}
