/**
 * Public data types of the ACS planner ("ACS Planner & Selection" spec).
 *
 * Field names follow the spec (`cost_tokens`, `tokens_max`, …) so fragments can be passed
 * straight from systems that already speak it.
 *
 * @module
 */

/**
 * A point in time: a `Date`, an ISO 8601 string with an explicit offset (`Z` or `±hh:mm`), a
 * date-only ISO 8601 string (`YYYY-MM-DD`, read as UTC midnight), or milliseconds since the Unix
 * epoch. See `toEpochMs` for the exact grammar.
 */
export type TimeInput = Date | string | number;

/**
 * The fields of a context fragment that ctxpack reads: one candidate piece of context for the prompt.
 *
 * Only `id` and `cost_tokens` are required. Absent optional fields take the documented defaults;
 * `null` is not treated as absent and is rejected by validation.
 *
 * Every function accepts any object type that has these fields, including your own interfaces
 * (which TypeScript does not consider assignable to {@link Fragment}'s index signature), and
 * returns your objects with their own type.
 */
export interface FragmentFields {
  /** Unique, non-empty identifier. Ids are compared by UTF-16 code units, never by locale. */
  id: string;
  /** Token cost of including the fragment: an integer in `[0, 2^32 - 1]`. */
  cost_tokens: number;
  /** Entities the fragment mentions; matched against {@link Gaze.entities} by exact string equality. Absent means none. */
  entities?: string[];
  /** Version time of the fragment; drives recency scoring and the freshness tie-break. Absent means "infinitely old". */
  timestamp?: TimeInput;
  /** Citations backing the fragment; only the count matters. Absent means none. */
  citations?: unknown[];
  /** Level of detail. `'macro'` fragments are pinned by the KV policy. */
  lod?: 'macro' | 'micro' | 'atomic' | (string & {});
  /** Kind used by the count-constrained knapsack slicer. Defaults to `lod`, then `'default'`. */
  kind?: string;
  /** Where the fragment came from; used by the diversity tie-break and `diversity_score`. */
  source?: string;
  /** Ids of keys this fragment needs; drives the cohesion tie-break and KV pinning. */
  dependencies?: string[];
  /**
   * Benefit in `[0, 1]`, read by {@link KVPolicy} generation when calling `generateKVPolicy`
   * directly. `selectFragments` ignores it and computes the benefit from the spec's formula.
   */
  benefit?: number;
  /** When the fragment's KV key was last used; read by the KV eviction rule. */
  lastAccessTime?: TimeInput;
  /** Ignored by the ACS scoring, which always computes its own score. */
  score?: number;
  /** The text. ctxpack never reads, logs or copies it into messages. */
  content?: string;
}

/** A context fragment as an open object: the {@link FragmentFields} plus any other property, passed through unchanged. */
export interface Fragment extends FragmentFields {
  /** Any other property is passed through unchanged. */
  [extra: string]: unknown;
}

/** What the model is currently attending to. */
export interface Gaze {
  /** Entities of interest. Duplicates count once. */
  entities: string[];
}

/** Resource budgets for one selection. */
export interface Budgets {
  /** Maximum total `cost_tokens` of the selection: a non-negative safe integer. */
  tokens_max: number;
}

/** Weights of the benefit formula `α·entity_overlap + β·recency + γ·citation_availability`. */
export interface ScoringWeights {
  /** α, entity-overlap weight. Default 0.6. */
  alpha: number;
  /** β, recency weight. Default 0.3. */
  beta: number;
  /** γ, citation-availability weight. Default 0.1. */
  gamma: number;
}

/** The parts of one fragment's ACS score (the seed's `ScoringComponents`, plus the results). */
export interface ScoringComponents {
  /** Fraction of distinct gaze entities the fragment mentions, in [0, 1]. */
  entity_overlap: number;
  /** `exp(-ageHours / 168)`, in [0, 1]; 0 without a timestamp. */
  recency: number;
  /** 1.0 with at least one citation, else 0.5. */
  citation_availability: number;
  /** `α·entity_overlap + β·recency + γ·citation_availability`. */
  benefit: number;
  /** `benefit / (1 + cost_tokens / 1000)`. */
  score: number;
}

/** Options of the scoring functions. */
export interface ScoringOptions {
  /** Clock in milliseconds since the Unix epoch. Default: `Date.now()`, read once per call. */
  now?: number;
  /** Override some or all weights; each must be a finite non-negative number. */
  weights?: Partial<ScoringWeights>;
}

/** Options of `applyTieBreaking`. */
export interface TieBreakOptions {
  /**
   * N in tie-break rule 4 ("prefer a different source than the last N picks"): a non-negative
   * integer. `0` disables the rule. Default 3.
   */
  diversityWindow?: number;
}

/** A cache entry describing one key in the KV cache. */
export interface CacheEntry {
  /** Key id (a fragment id). */
  id: string;
  /** When the key was last used. */
  lastAccessTime: TimeInput;
  /** Size of the key in tokens: a finite non-negative number. */
  sizeTokens: number;
  /** Benefit of the key the last time it was selected. Absent means 0. */
  lastBenefit?: number;
}

/** Options of `calculateEvictionScore` and `selectEvictionCandidates`. */
export interface EvictionOptions {
  /** Clock in milliseconds since the Unix epoch. Default: `Date.now()`, read once per call. */
  now?: number;
}

/** Options of `generateKVPolicy`. */
export interface KVPolicyOptions {
  /** Clock in milliseconds since the Unix epoch. Default: `Date.now()`, read once per call. */
  now?: number;
  /** Maximum number of KV keys (spec: "Max KV size: 64 items (default)"). Non-negative integer. */
  maxKvSize?: number;
  /**
   * The KV cache as it was before this selection. Enables capacity eviction, the "new keys
   * first" order of soft backoff, and `lastAccessTime` lookup for fragments that lack one.
   * Ids must be unique.
   */
  previousCache?: readonly CacheEntry[];
}

/** KV cache instructions for the selected fragments. An id appears in at most one list. */
export interface KVPolicy {
  /** Keys that must stay in memory. */
  pin: string[];
  /** Keys that may be stored compressed. */
  compress: string[];
  /** Keys to remove from the cache. */
  evict: string[];
}

/** A fragment with its score, as consumed by `applyTieBreaking`. */
export interface ScoredFragment<T extends FragmentFields = Fragment> {
  /** The fragment. */
  fragment: T;
  /** Its score; must be a finite number. */
  score: number;
}

/** Selection strategies of `selectFragments`. */
export type PlannerSlicer = 'acs' | 'greedy' | 'knapsack' | 'count-knapsack' | 'packer';

/** Per-kind count constraint for the `'count-knapsack'` slicer. */
export interface CountEntryOption {
  /** The kind the entry constrains (matched against each fragment's kind). */
  kind: string;
  /** Minimum number of items of this kind to commit first. */
  requireCount: number;
  /** Maximum number of items of this kind in the result. */
  capCount: number;
}

/** The record passed to {@link PlannerOptions.logger} once per selection. Never contains text. */
export interface SelectionLogRecord {
  /** Same as {@link PlannerMetrics.request_id}. */
  request_id: string;
  /** Number of selected fragments. */
  k_selected: number;
  /** Sum of `cost_tokens` over the selection. */
  total_cost_tokens: number;
  /** Ids of the first three selected fragments in rank order; FNV-1a 64 hex hashes when `hashIds` is set. */
  top3_ids: string[];
  /** Scores of those fragments. */
  top3_scores: number[];
  /** Same as {@link PlannerMetrics.planner_ms}. */
  planner_ms: number;
  /** Performance breakdown in milliseconds (spec: "Include performance breakdown"). */
  phase_ms: {
    /** Input validation. */
    validate: number;
    /** Scoring every candidate. */
    score: number;
    /** Tie-breaking and ranking. */
    rank: number;
    /** The slicer. */
    slice: number;
    /** KV policy and metrics. */
    finish: number;
  };
}

/**
 * Options of `selectFragments`. Every option is optional. `selectFragments` rejects unknown option
 * names (`INVALID_OPTION`), so a misspelt option never passes silently; the helper functions accept
 * a `PlannerOptions` bag and read only what they use.
 */
export interface PlannerOptions extends ScoringOptions, TieBreakOptions, KVPolicyOptions {
  /** Selection strategy. Default `'acs'`: the spec's greedy skip-and-continue walk over the ranked list. */
  slicer?: PlannerSlicer;
  /** `'packer'` only: stop after this many consecutive items that do not fit. Default 3. */
  maxConsecutiveSkips?: number;
  /** `'knapsack'` / `'count-knapsack'`: token bucket size of the DP. Default 100. */
  bucketSize?: number;
  /** `'knapsack'` / `'count-knapsack'`: cap on the DP table size in bytes (default chosen by the core). */
  maxTableBytes?: number;
  /** `'count-knapsack'` only: per-kind count constraints. */
  countEntries?: readonly CountEntryOption[];
  /** `'count-knapsack'` only: what to do when a kind has fewer candidates than required. Default `'degrade'`. */
  scarcity?: 'degrade' | 'throw';
  /**
   * When every candidate exceeds `tokens_max`, return the single highest-benefit candidate if
   * its benefit is above 0.9 (spec: "Budget Overshoot Policy"). Default `false`.
   */
  allow_overshoot?: boolean;
  /** Request id reported in metrics and logs. Default: a deterministic hash, see `PlannerMetrics.request_id`. */
  requestId?: string;
  /** Called once per selection with a record that never contains fragment text. */
  logger?: (record: SelectionLogRecord) => void;
  /** Replace ids in the log record by their FNV-1a 64 hex hash. Default `false`. */
  hashIds?: boolean;
}

/** Metrics of one selection (spec: "Observability Implementation", plus the seed's return metrics). */
export interface PlannerMetrics {
  /** `options.requestId`, else `acs-` + FNV-1a 64 hex of (now, tokens_max, candidate ids, selected ids). */
  request_id: string;
  /**
   * Wall time in milliseconds (`performance.now()`) from the start of the call to the end of KV
   * policy generation; the only non-deterministic field.
   */
  planner_ms: number;
  /** Number of candidates evaluated. */
  candidate_count: number;
  /** Sum of `cost_tokens` over the selection. */
  tokens_selected: number;
  /** Fraction of distinct gaze entities mentioned by at least one selected fragment; 0 when the gaze has none. */
  coverage_entities: number;
  /** Distinct sources / selected count; a fragment without `source` counts as a source of its own. 0 when empty. */
  diversity_score: number;
  /** Ids of the first three selected fragments in rank order. */
  top3_fragment_ids: string[];
  /** Scores of those fragments. */
  top3_scores: number[];
  /** KV cache effectiveness against `options.previousCache`. */
  kv_cache_stats: {
    /** Selected ids present in the previous cache. */
    hits: number;
    /** Selected ids absent from the previous cache. */
    misses: number;
    /** Length of `kvPolicy.evict` (rule evictions plus capacity evictions). */
    evictions: number;
  };
  /** Same as `tokens_selected` (the seed's `selectFragments` name). */
  total_cost_tokens: number;
  /** Mean ACS benefit of the selected fragments; 0 when empty. */
  mean_benefit: number;
  /** `hits / (hits + misses)`, 0 when both are 0. */
  cache_hit_rate: number;
}

/**
 * Why a candidate is in or out. Included: `'scored'` (chosen by the slicer's rule),
 * `'zero_tokens'` (costs nothing), `'required'` (committed for a count requirement), `'overshoot'`
 * (admitted by the overshoot policy). Excluded: `'no_budget'` (`tokens_max` is 0),
 * `'budget_exceeded'` (did not fit), `'not_in_optimal_set'` (fits alone, not in the knapsack
 * optimum), `'count_cap_exceeded'`, `'skip_limit_reached'` (the packer stopped first),
 * `'negative_tokens'` (never produced by the planner, whose costs are validated).
 */
export type DecisionReason =
  | 'scored'
  | 'zero_tokens'
  | 'required'
  | 'overshoot'
  | 'no_budget'
  | 'budget_exceeded'
  | 'not_in_optimal_set'
  | 'count_cap_exceeded'
  | 'skip_limit_reached'
  | 'negative_tokens';

/** Why each candidate was or was not included. */
export interface Decision {
  /** Candidate id. */
  id: string;
  /** Position in the `candidates` argument. */
  index: number;
  /** ACS score: `benefit / (1 + cost_tokens / 1000)`. */
  score: number;
  /** ACS benefit. */
  benefit: number;
  /** Whether the fragment is in the selection. */
  included: boolean;
  /** The slicer's reason, or `'overshoot'`; see {@link DecisionReason}. */
  reason: DecisionReason;
  /** Position in the ranked order (0 = best). */
  rank: number;
}

/** Result of `selectFragments`. */
export interface SelectionResult<T extends FragmentFields = Fragment> {
  /** Selected fragments (the caller's objects, unmodified), in rank order. */
  fragments: T[];
  /** Metrics of the selection. */
  metrics: PlannerMetrics;
  /** KV cache instructions for the selection. */
  kvPolicy: KVPolicy;
  /** One decision per candidate, in input order. */
  decisions: Decision[];
  /** Human-readable warnings. They name candidates by index and never contain fragment text or ids (kind names may appear). */
  warnings: string[];
}
