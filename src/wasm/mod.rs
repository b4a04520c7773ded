//! The wasm-bindgen boundary: converts and validates, then calls the core.
//! Nothing here decides what is selected.
//!
//! * `slice.rs`: `solveSlice`, the one columnar slice of the slicer
//!   functions and the planner (token counts as `Uint32Array`, scores as
//!   `Float64Array`, kind ids as `Uint32Array` into a list of kind names,
//!   groups, dependencies and alternative versions as index arrays; the
//!   core picks the path that solves them), `sliceObjects` (fragment
//!   objects `{ id, cost_tokens, score?, kind? }`, of which only those four
//!   properties are read), and `sliceNumeric`, the planner's columnar
//!   greedy or packer slice with the options as numbers and the answer
//!   packed in one `Uint32Array`;
//! * `groups.rs`: `groupUnits`, `solveSlice`'s grouped slice (groups and
//!   dependencies as CSR arrays around any slicer), and `pinClosure`, what
//!   pinning items pins;
//! * `variants.rs`: `solveSlice`'s slice with alternative versions of the
//!   items (columns: class index, tokens, score per version) under groups
//!   and dependencies;
//! * `simulation.rs`: `budgetCurve` and `minBudgetFor`;
//! * `problem.rs`: `solveProblem`, the message layer's one call ([`crate::Problem`]);
//! * `lazy.rs`: `packLazy`, the packer asking for counts through a JS
//!   callback only for the items its walk reaches;
//! * `media.rs`: `imageProbe` and `imageProbeBase64` (image sizes read
//!   from windows of the bytes or of base64 text), `base64PayloadStart`,
//!   `imageTokens`, `pdfPages`, `pdfTokens` and `mediaLimits` (see
//!   [`crate::media`]);
//! * `relevance.rs`: `bm25Scores`, and for a session's index of the texts
//!   it saw `bm25DocTerms`, `bm25QueryTerms`, `bm25Stats` and
//!   `bm25FromStats`;
//! * `state_key.rs`: `stateKeyDerive`, `stateTextKey` and `stateKeyCheck`,
//!   the keyed hashes of a session state (`createSession({ stateKey })`);
//! * `options.rs`, `de.rs`, `decode.rs`: reading the inputs (options
//!   through serde, fragment objects through structural getters);
//!   `encode.rs`: results as plain objects through serde (typed arrays,
//!   numbers; nothing holds wasm memory, so nothing needs `.free()`);
//!   `errors.rs`: every error becomes a JS `Error` with
//!   `name = "CtxpackError"`, `code`, `field`, `index` and the fields its
//!   sentence needs, there only (the package writes the sentence);
//!   `reason.rs`: an [`ErrorReason`](crate::ErrorReason) as `reasonKind` and
//!   its fields, and `errorReasonKinds()` / `errorReasonSamples()` for the
//!   package's test that it words every kind as the core does;
//! * `strategies.rs`: the strategy table (`strategies()`), the option
//!   defaults (`optionDefaults()`), and the checks the package asks for
//!   outside a slice (`checkSimulated`, `checkOptions`).
//!
//! The slices return `selected` as `Uint32Array`, `reasons` as
//! `Uint8Array` of [`Decision::id`](crate::Decision::id)s, totals,
//! shortfalls, and `exact`: the exact report of `'exact'` and
//! `'exact-count'`, `null` for the seed slicers.

use wasm_bindgen::prelude::*;

use crate::{CtxpackError, Decision};

mod de;
mod decode;
mod encode;
mod errors;
mod groups;
mod lazy;
mod media;
mod options;
mod problem;
mod reason;
mod relevance;
mod simulation;
mod slice;
mod state_key;
mod strategies;
mod variants;

pub use groups::{group_units, pin_closure};
pub use lazy::pack_lazy;
pub use media::{
    base64_payload_start_wasm, image_probe, image_probe_base64, image_tokens, media_limits,
    pdf_pages, pdf_tokens,
};
pub use problem::{problem_reason_codes, solve_problem};
pub use reason::{error_reason_kinds, error_reason_samples};
pub use relevance::{
    bm25_doc_terms, bm25_from_stats_wasm, bm25_query_terms, bm25_scores_wasm, bm25_stats,
    cosine_relevance_wasm, fuse_relevance_wasm, packed_texts,
};
pub use simulation::{budget_curve, min_budget_for};
pub use slice::{slice_numeric, slice_objects, solve_slice};
pub use state_key::{state_key_check, state_key_derive, state_text_key};
pub use strategies::{check_options, check_simulated, option_defaults, strategies};

/// Largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The reason codes, indexed by the numbers in a result's `reasons`.
#[wasm_bindgen(js_name = decisionCodes)]
pub fn decision_codes() -> Vec<String> {
    Decision::ALL.iter().map(|d| d.code().to_owned()).collect()
}

/// Every stable `CtxpackError` code the crate can raise.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    CtxpackError::CODES.iter().map(|&c| c.to_owned()).collect()
}
