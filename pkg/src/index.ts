/**
 * ctxpack: decide what goes into an LLM prompt under a token budget, and say why.
 *
 * The front doors: {@link fitMessages} (a chat history in, a valid request out),
 * {@link createSession} (the same across turns, for the provider's prompt cache),
 * {@link selectFragments} (retrieved documents and memories, scored by the ACS planner), and what
 * they need (errors, `init`, token counting). The building blocks are subpaths:
 * `ctxpack/slicers` (the strategies on items you score yourself, and the budget simulation) and
 * `ctxpack/acs` (the ACS planner's scoring, tie-breaks, KV cache policy and metrics).
 *
 * @module
 */

import { warmUpWhenCompiled } from './core/instance.js';
import { fitMessages } from './messages/fit.js';

export { CtxpackError, ERROR_CODES } from './errors.js';
export type { CtxpackErrorCode, CtxpackErrorDetails } from './errors.js';

export { init, isInitialized, setWasmMemoryLimit, wasmMemoryBytes } from './core/instance.js';
export type { InitInput } from './core/instance.js';

export { createEstimator, estimateTokens } from './tokens/counter.js';
export type { TokenCounter } from './tokens/counter.js';
export { createCountCache } from './tokens/shared.js';
export { createEmbeddingCache } from './messages/caller.js';
export type { EmbeddingCache, EmbeddingCacheOptions } from './messages/caller.js';
export type { CountCacheOptions, TokenCountCache } from './tokens/shared.js';
export { effectiveBudget } from './validate/budgets.js';

export { fitMessages, fitMessagesAsync } from './messages/fit.js';
export { validateMessages } from './messages/validate.js';
export { detectMessageFormat } from './messages/detect.js';
export { MESSAGE_FORMATS } from './messages/formats.js';
export { DEFAULT_RELEVANCE } from './messages/relevance.js';
export type {
  AiSdkFormat,
  FitMessagesAsyncOptions,
  FitMessagesMetrics,
  FitMessagesOptions,
  FitMessagesResult,
  MessageDecision,
  MessageDecisionReason,
  MessageFormat,
  MessageRule,
  MessageViolation,
  RelevanceWeights,
  ResponsesItem,
  ResponsesItemType,
} from './messages/types.js';

export { createSession } from './session/session.js';
export type { Session } from './session/session.js';
export { defaultCacheFor } from './session/pricing.js';
export { replaySession, replaySessionAsync, requestEnds, summarizeReplay } from './session/replay.js';
export type {
  CacheBreakpoint,
  CachePricing,
  CacheProfile,
  PreviousRequest,
  ReplaySummary,
  ReplayTurn,
  SessionCacheReport,
  SessionFitResult,
  SessionMetrics,
  SessionOptions,
  SessionState,
  SessionStateWarning,
  SessionSummaryReport,
  SessionTurnOptions,
  SummarizeRequest,
  Summarizer,
  SummaryOptions,
} from './session/types.js';
export { DEFAULT_SUMMARY_INSTRUCTION } from './session/summary-options.js';
export { extractiveSummarizer } from './session/extractive.js';
export type { ExtractiveSummarizer, ExtractiveSummarizerOptions } from './session/extractive.js';

export { selectFragments } from './planner/select.js';
export type {
  Budgets,
  CacheEntry,
  CountEntryOption,
  Decision,
  DecisionReason,
  Fragment,
  FragmentFields,
  FragmentVariant,
  Gaze,
  KVPolicy,
  PlannerFragmentFields,
  PlannerMetrics,
  PlannerOptions,
  PlannerSlicer,
  PlacementOrder,
  SelectionLogRecord,
  SelectionResult,
  TextFragmentFields,
  TimeInput,
  VersionDecision,
} from './types.js';

// Node: once the .wasm has compiled in the background, one small fitMessages (the shape of a first
// call) compiles the wasm and JS functions a first call runs, unless a call came first (core/instance.ts).
warmUpWhenCompiled(() => {
  fitMessages(
    [
      { role: 'system', content: 'You answer briefly.' },
      { role: 'user', content: 'What is the capital of France?' },
      { role: 'assistant', content: 'Paris.' },
      { role: 'user', content: 'And of Germany?' },
    ],
    { format: 'openai', budgets: { tokens_max: 1000 } },
  );
});
