//! Provider token rules for images of known size (or unknown: `0 × 0`),
//! and the per-page estimate for PDFs. One algorithm per file, each with
//! its source; [`rule_for`] reads the one table that maps model names to
//! them.

mod anthropic;
mod gemini_budget;
mod gemini_tiles;
mod openai_patches;
mod openai_tiles;
mod scale;
mod table;

pub use anthropic::AnthropicPixels;
pub use gemini_budget::GeminiBudget;
pub use gemini_tiles::GeminiCropTiles;
pub use openai_patches::OpenAiPatches;
pub use openai_tiles::OpenAiTiles;

use crate::{CtxpackError, ErrorReason};

/// A provider whose counting rules are in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI (Chat Completions, Responses).
    OpenAi,
    /// Anthropic (Messages).
    Anthropic,
    /// Google Gemini (Gemini API, Vertex AI).
    Gemini,
}

/// A provider by its name: `'openai'`, `'anthropic'` or `'gemini'`.
///
/// # Errors
/// `INVALID_OPTION` (field `provider`) for any other name.
///
/// ```
/// use ctxpack_core::media::{parse_provider, Provider};
/// assert_eq!(parse_provider("gemini")?, Provider::Gemini);
/// assert_eq!(parse_provider("google").unwrap_err().field(), Some("provider"));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
pub fn parse_provider(name: &str) -> Result<Provider, CtxpackError> {
    match name {
        "openai" => Ok(Provider::OpenAi),
        "anthropic" => Ok(Provider::Anthropic),
        "gemini" => Ok(Provider::Gemini),
        _ => Err(CtxpackError::InvalidOption {
            option: "provider".into(),
            reason: ErrorReason::Expected {
                expected: "'openai', 'anthropic' or 'gemini'".into(),
                got: None,
            },
        }),
    }
}

/// The detail an image is sent at: OpenAI's `detail` (`low`, `high`,
/// `auto`) or Gemini's `media_resolution` (`low`, `medium`, `high`,
/// `ultra_high`, with or without the `media_resolution_` prefix, any case).
/// Anthropic has none and ignores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Not set, or `auto`: counted as the provider's largest default.
    Auto,
    /// `low`.
    Low,
    /// `medium` (Gemini only).
    Medium,
    /// `high`.
    High,
    /// `ultra_high` (Gemini only).
    UltraHigh,
}

impl Detail {
    /// The detail named `name` (`""` is [`Detail::Auto`]).
    ///
    /// # Errors
    /// `INVALID_OPTION` (field `detail`) for an unknown name.
    ///
    /// ```
    /// use ctxpack_core::media::Detail;
    /// assert_eq!(Detail::parse("MEDIA_RESOLUTION_HIGH")?, Detail::High);
    /// assert_eq!(Detail::parse("")?, Detail::Auto);
    /// assert!(Detail::parse("huge").is_err());
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn parse(name: &str) -> Result<Detail, CtxpackError> {
        let lower = name.to_ascii_lowercase();
        let level = lower.strip_prefix("media_resolution_").unwrap_or(&lower);
        match level {
            "" | "auto" | "unspecified" => Ok(Detail::Auto),
            "low" => Ok(Detail::Low),
            "medium" => Ok(Detail::Medium),
            "high" => Ok(Detail::High),
            "ultra_high" => Ok(Detail::UltraHigh),
            _ => Err(CtxpackError::InvalidOption {
                option: "detail".into(),
                reason: ErrorReason::Expected {
                    expected: "'low', 'medium', 'high', 'ultra_high' or 'auto'".into(),
                    got: None,
                },
            }),
        }
    }
}

/// A rule that counts an image's tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageRule {
    /// OpenAI's 512 px tiles.
    OpenAiTiles(OpenAiTiles),
    /// OpenAI's 32 px patches.
    OpenAiPatches(OpenAiPatches),
    /// Anthropic's pixels / 750.
    AnthropicPixels(AnthropicPixels),
    /// Gemini's crop-unit tiles.
    GeminiCropTiles(GeminiCropTiles),
    /// Gemini 3's fixed budgets.
    GeminiBudget(GeminiBudget),
}

impl ImageRule {
    /// Tokens of a `width × height` image at `detail`; a side of 0 means
    /// the size is unknown, and counts the rule's documented maximum.
    ///
    /// ```
    /// use ctxpack_core::media::{rule_for, Detail, Provider};
    /// let rule = rule_for(Provider::Anthropic, "claude-sonnet-4-5");
    /// assert_eq!(rule.tokens(Detail::Auto, 1092, 1092), 1590);
    /// assert_eq!(rule.tokens(Detail::Auto, 0, 0), 1640);
    /// ```
    pub fn tokens(&self, detail: Detail, width: u32, height: u32) -> u64 {
        if width == 0 || height == 0 {
            return self.max_tokens(detail);
        }
        match self {
            ImageRule::OpenAiTiles(r) => r.tokens(detail, width, height),
            ImageRule::OpenAiPatches(r) => r.tokens(width, height),
            ImageRule::AnthropicPixels(r) => r.tokens(width, height),
            ImageRule::GeminiCropTiles(r) => r.tokens(width, height),
            ImageRule::GeminiBudget(r) => r.tokens(detail),
        }
    }

    /// Tokens of an image of unknown size (a URL or file id with no bytes).
    ///
    /// ```
    /// use ctxpack_core::media::{rule_for, Detail, Provider};
    /// assert_eq!(rule_for(Provider::OpenAi, "gpt-4o").max_tokens(Detail::High), 1445);
    /// assert_eq!(rule_for(Provider::OpenAi, "gpt-4o").max_tokens(Detail::Low), 85);
    /// ```
    pub fn max_tokens(&self, detail: Detail) -> u64 {
        match self {
            ImageRule::OpenAiTiles(r) => r.max_tokens(detail),
            ImageRule::OpenAiPatches(r) => r.max_tokens(),
            ImageRule::AnthropicPixels(r) => r.max_tokens(),
            ImageRule::GeminiCropTiles(r) => r.max_tokens(),
            ImageRule::GeminiBudget(r) => r.tokens(detail),
        }
    }
}

/// The rule of `model` at `provider`, from the one table (see
/// `rules/table.rs`): case-insensitive, a routing prefix such as
/// `openai/` or `models/` ignored, prefix patterns, the provider's default
/// for an unknown model.
///
/// ```
/// use ctxpack_core::media::{rule_for, ImageRule, OpenAiTiles, Provider};
/// let mini = rule_for(Provider::OpenAi, "gpt-4o-mini-2024-07-18");
/// assert_eq!(mini, ImageRule::OpenAiTiles(OpenAiTiles { base: 2833, tile: 5667 }));
/// assert_eq!(rule_for(Provider::OpenAi, "openai/GPT-4o"), rule_for(Provider::OpenAi, "gpt-4o"));
/// ```
pub fn rule_for(provider: Provider, model: &str) -> ImageRule {
    let model = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    table::TABLE
        .iter()
        .find(|(p, pattern, _)| *p == provider && table::matches(pattern, &model))
        // Every provider ends its rows with `*`: unreachable, but never a panic.
        .map_or(
            ImageRule::OpenAiTiles(OpenAiTiles {
                base: 85,
                tile: 170,
            }),
            |&(_, _, rule)| rule,
        )
}

/// Checks `detail` against what `provider` accepts: OpenAI's is `low`,
/// `high` or `auto`.
fn detail_for(provider: Provider, detail: &str) -> Result<Detail, CtxpackError> {
    let parsed = Detail::parse(detail)?;
    if provider == Provider::OpenAi && matches!(parsed, Detail::Medium | Detail::UltraHigh) {
        return Err(CtxpackError::InvalidOption {
            option: "detail".into(),
            reason: ErrorReason::Expected {
                expected: "'low', 'high' or 'auto' for openai".into(),
                got: None,
            },
        });
    }
    Ok(parsed)
}

/// Tokens of a `width × height` image sent to `model` at `provider` with
/// `detail`: the rule of [`rule_for`]; a side of 0 (size unknown) counts the
/// rule's documented maximum.
///
/// # Errors
/// `INVALID_OPTION` (field `detail`) for a detail the provider does not
/// take.
///
/// ```
/// use ctxpack_core::media::{image_tokens, Provider};
/// assert_eq!(image_tokens(Provider::OpenAi, "gpt-4o", "high", 2048, 4096)?, 1105);
/// assert_eq!(image_tokens(Provider::OpenAi, "gpt-4.1-mini", "auto", 1800, 2400)?, 2353);
/// assert_eq!(image_tokens(Provider::Anthropic, "claude-opus-4-1", "", 1000, 1000)?, 1334);
/// assert_eq!(image_tokens(Provider::Gemini, "gemini-2.5-flash", "", 960, 540)?, 1548);
/// assert_eq!(image_tokens(Provider::Gemini, "gemini-3-pro-preview", "low", 960, 540)?, 280);
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
pub fn image_tokens(
    provider: Provider,
    model: &str,
    detail: &str,
    width: u32,
    height: u32,
) -> Result<u64, CtxpackError> {
    let detail = detail_for(provider, detail)?;
    Ok(rule_for(provider, model).tokens(detail, width, height))
}

/// Text tokens a PDF page is counted at beside its image: the top of the
/// 1,500–3,000 per page of Anthropic's PDF guide
/// (<https://docs.claude.com/en/docs/build-with-claude/pdf-support>,
/// "Estimate your costs"), which OpenAI's file inputs (text and an image of
/// each page) are counted at too, having no figure of their own.
pub const PDF_TEXT_TOKENS_PER_PAGE: u64 = 3000;

/// Pages a PDF whose page count is unknown is counted as: the most a
/// request may hold at Anthropic (100 pages, the PDF guide's limit), an
/// upper bound that makes an unknown PDF expensive on purpose.
pub const UNKNOWN_PDF_PAGES: u32 = 100;

/// Tokens of a PDF of `pages` pages (0: unknown, counted as
/// [`UNKNOWN_PDF_PAGES`]) sent to `model` at `provider`. **An estimate.**
/// Per page:
///
/// - OpenAI and Anthropic: [`PDF_TEXT_TOKENS_PER_PAGE`] plus the model's
///   image of unknown size (each page is also sent as an image);
/// - Gemini 1.5 to 2.5: 258 (Google's document processing guide,
///   <https://ai.google.dev/gemini-api/docs/document-processing>: "each
///   document page is equivalent to 258 tokens");
/// - Gemini 3: the `media_resolution` budget of `detail`, as for an image.
///
/// # Errors
/// `INVALID_OPTION` (field `detail`), as for [`image_tokens`].
///
/// ```
/// use ctxpack_core::media::{pdf_tokens, Provider};
/// assert_eq!(pdf_tokens(Provider::Anthropic, "claude-sonnet-4-5", "", 2)?, 2 * (3000 + 1640));
/// assert_eq!(pdf_tokens(Provider::Gemini, "gemini-2.5-pro", "", 10)?, 2580);
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
pub fn pdf_tokens(
    provider: Provider,
    model: &str,
    detail: &str,
    pages: u32,
) -> Result<u64, CtxpackError> {
    let detail = detail_for(provider, detail)?;
    let pages = u64::from(if pages == 0 { UNKNOWN_PDF_PAGES } else { pages });
    let per_page = match rule_for(provider, model) {
        ImageRule::GeminiCropTiles(r) => u64::from(r.tile),
        ImageRule::GeminiBudget(r) => r.tokens(detail),
        rule => PDF_TEXT_TOKENS_PER_PAGE + rule.max_tokens(detail),
    };
    Ok(pages.saturating_mul(per_page))
}
