//! The one table from model names to image rules, with its sources in the
//! rules' own files. A pattern ending in `*` matches by prefix, any other
//! exactly; the first match in table order wins, so a specific name comes
//! before its family (`gpt-4o-mini*` before `gpt-4o*`), and each provider
//! ends with its default (`*`), the rule of its current flagship models.

use super::{
    AnthropicPixels, GeminiBudget, GeminiCropTiles, ImageRule, OpenAiPatches, OpenAiTiles, Provider,
};

const fn tiles(base: u32, tile: u32) -> ImageRule {
    ImageRule::OpenAiTiles(OpenAiTiles { base, tile })
}

const fn patches(multiplier_permille: u32) -> ImageRule {
    ImageRule::OpenAiPatches(OpenAiPatches {
        multiplier_permille,
    })
}

const CLAUDE: ImageRule = ImageRule::AnthropicPixels(AnthropicPixels {
    max_long_edge: 1568,
    max_pixels: 784 * 1568,
});

const CLAUDE_HIGH_RES: ImageRule = ImageRule::AnthropicPixels(AnthropicPixels {
    max_long_edge: 2576,
    max_pixels: 3_750_000,
});

const GEMINI_TILES: ImageRule = ImageRule::GeminiCropTiles(GeminiCropTiles { tile: 258 });

const GEMINI_3: ImageRule = ImageRule::GeminiBudget(GeminiBudget {
    low: 280,
    medium: 560,
    high: 1120,
    ultra_high: 2240,
});

/// Every rule by provider and model-name pattern, in matching order.
pub(super) const TABLE: &[(Provider, &str, ImageRule)] = &[
    // OpenAI: patch models first, then the tile table of the guide.
    (Provider::OpenAi, "gpt-4.1-mini*", patches(1620)),
    (Provider::OpenAi, "gpt-4.1-nano*", patches(2460)),
    (Provider::OpenAi, "gpt-5-mini*", patches(1620)),
    (Provider::OpenAi, "gpt-5-nano*", patches(2460)),
    (Provider::OpenAi, "o4-mini*", patches(1720)),
    (Provider::OpenAi, "gpt-4o-mini*", tiles(2833, 5667)),
    // GPT-5 as the guide lists it (`gpt-5`, its snapshots, `gpt-5-chat-latest`);
    // later 5.x models are not in the guide and take the default.
    (Provider::OpenAi, "gpt-5", tiles(70, 140)),
    (Provider::OpenAi, "gpt-5-2025*", tiles(70, 140)),
    (Provider::OpenAi, "gpt-5-chat*", tiles(70, 140)),
    (Provider::OpenAi, "gpt-4o*", tiles(85, 170)),
    (Provider::OpenAi, "chatgpt-4o*", tiles(85, 170)),
    (Provider::OpenAi, "gpt-4.1*", tiles(85, 170)),
    (Provider::OpenAi, "gpt-4.5*", tiles(85, 170)),
    (Provider::OpenAi, "o1*", tiles(75, 150)),
    (Provider::OpenAi, "o3*", tiles(75, 150)),
    (Provider::OpenAi, "computer-use-preview*", tiles(65, 129)),
    (Provider::OpenAi, "*", tiles(85, 170)),
    // Anthropic: the higher-resolution model, then every other Claude.
    (Provider::Anthropic, "claude-opus-4-7*", CLAUDE_HIGH_RES),
    (Provider::Anthropic, "*", CLAUDE),
    // Gemini: the fixed budgets of Gemini 3, the tiles of 1.5 to 2.5.
    (Provider::Gemini, "gemini-3*", GEMINI_3),
    (Provider::Gemini, "*", GEMINI_TILES),
];

/// Whether `model` (lowercase) matches `pattern`.
pub(super) fn matches(pattern: &str, model: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => model.starts_with(prefix),
        None => model == pattern,
    }
}
