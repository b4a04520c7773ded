/**
 * ctxpack public API: the ACS planner and its building blocks.
 *
 * @module
 */

export { CtxpackError, ERROR_CODES } from './errors.js';
export type { CtxpackErrorCode, CtxpackErrorDetails } from './errors.js';

export type {
  Budgets,
  CacheEntry,
  CountEntryOption,
  Decision,
  DecisionReason,
  EvictionOptions,
  Fragment,
  FragmentFields,
  FragmentVariant,
  Gaze,
  GenerateKVPolicyOptions,
  KVPolicy,
  KVPolicyOptions,
  PlannerFragmentFields,
  PlannerMetrics,
  PlannerOptions,
  PlannerSlicer,
  PlacementOrder,
  ScoredFragment,
  ScoringComponents,
  ScoringOptions,
  ScoringWeights,
  SelectionLogRecord,
  SelectionResult,
  TextFragmentFields,
  TieBreakOptions,
  TimeInput,
  VersionDecision,
} from './types.js';

export { CHARS_PER_TOKEN, createEstimator, estimateTokens } from './tokens/counter.js';
export type { TokenCounter } from './tokens/counter.js';

export { effectiveBudget } from './validate/budgets.js';

export { toEpochMs } from './ranking/time.js';

export {
  DEFAULT_WEIGHTS,
  RECENCY_DECAY_HOURS,
  calculateBenefit,
  calculateEntityOverlap,
  calculateRecencyScore,
  calculateScore,
  calculateScoringComponents,
} from './ranking/scoring.js';

export { DEFAULT_DIVERSITY_WINDOW, SCORE_TIE_TOLERANCE } from './ranking/tiebreak.js';
export { applyTieBreaking } from './ranking/apply.js';

export {
  COMPRESS_MIN_TOKENS,
  DEFAULT_KV_TOP_K,
  DEFAULT_MAX_KV_SIZE,
  STALE_AFTER_MS,
  calculateEvictionScore,
  generateKVPolicy,
  selectEvictionCandidates,
} from './kv/policy.js';

export {
  calculateCacheHitRate,
  calculateCoverage,
  calculateDiversityScore,
  calculateKVCacheStats,
  calculateMeanBenefit,
} from './planner/metrics.js';
export type { KVCacheStats } from './planner/metrics.js';

export { fnv1a64, hashId } from './ranking/hash.js';

export {
  DEFAULT_BUCKET_SIZE,
  DEFAULT_KIND,
  DEFAULT_MAX_CONSECUTIVE_SKIPS,
  OVERSHOOT_MIN_BENEFIT,
  PLANNER_SLICERS,
  selectFragments,
} from './planner/select.js';

export { init, isInitialized, setWasmMemoryLimit, wasmMemoryBytes } from './core/bridge.js';
export type { InitInput, ColumnarResult, CountEntry, ExactReport, ObjectItem, ReasonCode, Shortfall, SlicerName } from './core/bridge.js';

export {
  countConstrainedKnapsackSlice,
  exactCountConstrainedSlice,
  exactKnapsackSlice,
  greedySlice,
  knapsackSlice,
  packGreedy,
  sliceColumns,
  sliceFragments,
} from './slicers/functions.js';
export type {
  CountConstrainedKnapsackOptions,
  CoreSliceOptions,
  DependencyMode,
  ExactCountConstrainedOptions,
  ExactKnapsackOptions,
  ExactSliceResult,
  GreedyOptions,
  GroupOptions,
  SliceColumns,
  KnapsackOptions,
  PackerOptions,
  SliceBudget,
  SliceDecision,
  SliceItem,
  SliceReason,
  SliceResult,
} from './slicers/functions.js';

export { groupUnits } from './slicers/units.js';
export type { GroupUnitsOptions, UnitMap } from './slicers/units.js';

export { budgetCurve, droppedUnderSlack, minBudgetFor } from './slicers/simulation.js';
export type { MinBudgetOptions, MinBudgetResult, SimulationOptions, SimulationSlicerName, SlackResult } from './slicers/simulation.js';

export { fitMessages, fitMessagesAsync } from './messages/fit.js';
export { validateMessages } from './messages/validate.js';
export { detectMessageFormat } from './messages/detect.js';
export { MESSAGE_FORMATS } from './messages/formats.js';
export { DEFAULT_RELEVANCE } from './messages/relevance.js';
export type {
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
} from './types.js';

export { createSession } from './session/session.js';
export { defaultCacheFor } from './session/pricing.js';
export type { Session } from './session/session.js';
export { replaySession, requestEnds, summarizeReplay } from './session/replay.js';
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
  SessionTurnOptions,
} from './session/types.js';
