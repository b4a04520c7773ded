/**
 * `ctxpack/acs`: the building blocks of the ACS planner that `selectFragments` (from `ctxpack`)
 * runs: scoring (docs/specs/acs-planner.md), tie-breaks, the KV cache policy, the selection
 * metrics, time and id helpers, and the planner's defaults.
 *
 * @module
 */

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

export { calculateCacheHitRate, calculateCoverage, calculateDiversityScore, calculateKVCacheStats, calculateMeanBenefit } from './planner/metrics.js';
export type { KVCacheStats } from './planner/metrics.js';

export { fnv1a64, hashId } from './util/hash.js';
export { toEpochMs } from './util/time.js';

export { DEFAULT_BUCKET_SIZE, DEFAULT_KIND, DEFAULT_MAX_CONSECUTIVE_SKIPS, OVERSHOOT_MIN_BENEFIT, PLANNER_SLICERS } from './planner/settings.js';
export { fragmentKind } from './planner/request.js';

export type {
  EvictionOptions,
  GenerateKVPolicyOptions,
  KVPolicyOptions,
  ScoredFragment,
  ScoringComponents,
  ScoringOptions,
  ScoringWeights,
  TieBreakOptions,
} from './types.js';
