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
  /**
   * Ids of keys this fragment needs; drives the cohesion tie-break and KV pinning. With
   * `selectFragments`' `dependencies: 'require'`, also the selection: the fragment goes in only
   * with every candidate it names (ids that name no candidate are ignored: context outside the call).
   */
  dependencies?: string[];
  /**
   * An atomic group: `selectFragments` selects the candidates that share a group id all together
   * or not at all, whatever the strategy (a tool call with its result, a message with its
   * attachments). A non-empty string; absent means the fragment stands alone.
   */
  group?: string;
  /**
   * Always selected by `selectFragments`, whatever the strategy (decision reason `'pinned'`): counted
   * first against the budget, the strategy then runs on the rest with what is left. A group with a
   * pinned member is pinned whole; under `dependencies: 'require'` so are the fragments it depends
   * on. Pinned fragments over the budget: `PINNED_OVER_BUDGET`. Default `false`.
   */
  pinned?: boolean;
  /**
   * Benefit in `[0, 1]`, read by {@link KVPolicy} generation when calling `generateKVPolicy`
   * directly. `selectFragments` ignores it and computes the benefit from the spec's formula.
   */
  benefit?: number;
  /** When the fragment's KV key was last used; read by the KV eviction rule. */
  lastAccessTime?: TimeInput;
  /** Ignored by the ACS scoring, which always computes its own score. */
  score?: number;
  /**
   * The text. Read only by `selectFragments`: to pass it to `options.countTokens` when
   * `cost_tokens` is absent (see {@link TextFragmentFields}), and with `options.query` to score it
   * (BM25 in the WebAssembly core, for that call only). Never logged, never copied into messages.
   */
  content?: string;
  /**
   * Shorter versions of this fragment (a summary, a one-line stub), of which `selectFragments`
   * takes at most one, or the fragment itself, or nothing: see {@link FragmentVariant} and
   * docs/variants.md. Groups and dependencies apply to the fragment whatever version goes in.
   */
  variants?: FragmentVariant[];
}

/**
 * An alternative version of a fragment: `cost_tokens`, or `content` to count with
 * `options.countTokens`, and its level of detail.
 *
 * Its value is the full fragment's ACS score × `benefit_scale`, which defaults to
 * `sqrt(cost_tokens / full cost_tokens)` (at most 1; 1 when the full version costs 0): a summary at
 * a tenth of the tokens keeps about 32% of the value, a 12-token stub of a 4,000-token result
 * about 5%.
 */
export interface FragmentVariant {
  /** Names the version in decisions (`variant_id`); optional, unique within the fragment. */
  id?: string;
  /** Token cost of this version: an integer in `[0, 2^32 - 1]`; or absent with `content`. */
  cost_tokens?: number;
  /** The version's text, counted with `options.countTokens` when `cost_tokens` is absent. */
  content?: string;
  /** Level of detail of this version (`'macro'` for a summary, `'atomic'` for a stub, …). */
  lod: 'macro' | 'micro' | 'atomic' | (string & {});
  /** The share of the full version's value this version keeps: a finite number in `[0, 1]`. */
  benefit_scale?: number;
}

/**
 * A fragment whose token count may be left to `selectFragments`: `content` is required and
 * `cost_tokens` optional. When `cost_tokens` is absent, `options.countTokens(content, options.model)`
 * counts it (once per call). When both are there, `cost_tokens` is used and `content` is not read.
 *
 * `selectFragments` takes any mix of {@link FragmentFields} and `TextFragmentFields`; the other
 * functions of the package need `cost_tokens`.
 */
export interface TextFragmentFields extends Omit<FragmentFields, 'cost_tokens' | 'content'> {
  /** Token cost, as in {@link FragmentFields.cost_tokens}; absent means "count `content`". */
  cost_tokens?: number;
  /** The text, counted with `options.countTokens` when `cost_tokens` is absent. */
  content: string;
}

/** What `selectFragments` takes: a fragment with a token count, or with the text to count. */
export type PlannerFragmentFields = FragmentFields | TextFragmentFields;

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

/**
 * Resource budgets for one selection. Only `tokens_max` is required; every field is a
 * non-negative safe integer except `safety_margin_percent`. Unknown fields are refused
 * (`INVALID_BUDGET`), so a misspelt reserve never passes silently.
 *
 * The fragments get the **effective budget**:
 *
 * ```text
 * effective_budget = floor((tokens_max − output_reserve − overhead_tokens) × (100 − safety_margin_percent) / 100)
 * ```
 *
 * computed exactly (no floating-point rounding; the margin is read as the decimal number it
 * prints as), and 0 when the reserve and the overhead leave nothing. Every strategy then selects
 * fragments whose `cost_tokens + per_fragment_overhead`, summed, fit `effective_budget`. So the
 * prompt is at most `overhead_tokens + Σ(cost_tokens + per_fragment_overhead)` tokens
 * (`metrics.prompt_tokens`), which leaves at least `output_reserve` of `tokens_max` for the answer,
 * with the margin on top for counting errors. The plan reports it all in its metrics
 * (`effective_budget`, `budget_used`, `prompt_tokens`).
 */
export interface Budgets {
  /** The model's context window (or your cap on it): a non-negative safe integer. */
  tokens_max: number;
  /** Tokens kept free for the model's answer (`max_tokens` of the request). Default 0. */
  output_reserve?: number;
  /** Tokens of everything in the prompt that is not a fragment: system prompt, tool schemas, the user's message. Default 0. */
  overhead_tokens?: number;
  /**
   * Tokens each *selected* fragment costs on top of its `cost_tokens`: the per-message framing
   * of a chat format (about 3–4 tokens per message with OpenAI's chat models), separators,
   * citation markers. Added to every candidate's cost for selection (so a strategy sees
   * `cost_tokens + per_fragment_overhead`), not to its ACS score. At most 4294967295. Default 0.
   */
  per_fragment_overhead?: number;
  /**
   * Percent of what is left after the reserve and the overhead that is kept unused, because
   * counts are estimates: a finite number from 0 (default) to less than 100. For example 5 with
   * `estimateTokens`, 0–2 with the model's own tokenizer.
   */
  safety_margin_percent?: number;
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
  /**
   * Top-K key promotion (spec: "Promote keys referenced by top-K candidate fragments to reduce
   * thrash"): the `dependencies` of the K best-ranked candidates are pinned even when those
   * candidates are not selected. Non-negative integer, default 5; 0 turns it off.
   */
  kvTopK?: number;
}

/** Options of `generateKVPolicy`: {@link KVPolicyOptions}, and the ranking to promote from. */
export interface GenerateKVPolicyOptions extends KVPolicyOptions {
  /** The candidates, best first, whose first `kvTopK` have their `dependencies` pinned. Absent: no promotion. */
  rankedCandidates?: readonly FragmentFields[];
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

/** Where `selectFragments` puts the selected fragments (`options.order`); see {@link PlannerOptions.order}. */
export type PlacementOrder = 'rank' | 'input' | 'chronological' | 'u-shaped';

/** Selection strategies of `selectFragments`. */
export type PlannerSlicer = 'ranked' | 'greedy' | 'knapsack' | 'count-knapsack' | 'packer' | 'exact' | 'exact-count';

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
  /** Sum of the selected fragments' token counts (same as `PlannerMetrics.tokens_selected`). */
  total_cost_tokens: number;
  /** Ids of the first three selected fragments in rank order; FNV-1a 64 hex hashes when `hashIds` is set. */
  top3_ids: string[];
  /** Their scores, as in {@link Decision.score}. */
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
  /**
   * The order of `fragments` in the result. `'rank'` (default): best first. `'input'`: the
   * candidates' order. `'chronological'`: oldest `timestamp` first (none counts as oldest; ties keep
   * input order). `'u-shaped'`: the best at both ends (rank 1 first, rank 2 last, rank 3 second…),
   * the weakest in the middle, where long-context models read least.
   */
  order?: PlacementOrder;
  /**
   * Relevance from text: each candidate's `content` is scored against this query with BM25 (in the
   * Rust core; Unicode lowercase words, plurals folded), divided by the call's highest score, and
   * the ACS entity term becomes `max(entity_overlap, relevance)`. So fragments with `content` rank
   * without hand-made `entities`. The text crosses into wasm memory for the call only.
   */
  query?: string;
  /** Selection strategy. Default `'ranked'`: the spec's greedy skip-and-continue walk over the ranked list. */
  slicer?: PlannerSlicer;
  /** `'packer'` only: stop after this many consecutive items that do not fit. Default 3. */
  maxConsecutiveSkips?: number;
  /** `'knapsack'` / `'count-knapsack'`: token bucket size of the DP. Default 100. `'exact-count'`: default automatic (1, token precision, when the problem fits its limits). */
  bucketSize?: number;
  /** `'knapsack'`, `'count-knapsack'`, `'exact'`, `'exact-count'`: cap on the DP table size in bytes (default 64 MiB); a positive safe integer. */
  maxTableBytes?: number;
  /** `'exact-count'`: the DP cells allowed at token precision before a coarser bucket (default 2^27); a positive safe integer. */
  maxCells?: number;
  /** `'count-knapsack'` and `'exact-count'`: per-kind count constraints. */
  countEntries?: readonly CountEntryOption[];
  /**
   * The level-of-detail mix to reach (spec: "Balance LOD mix per lod_mix"): per `lod`, the fewest
   * (`min`) and most (`max`) fragments of that `lod` (a fragment without one counts as
   * `'default'`). Enforced by `'count-knapsack'` and `'exact-count'`, which then count fragments by
   * their `lod` (`min` is the `requireCount`, `max` the `capCount`, no cap when absent) and refuse
   * `countEntries` beside it; the other strategies do not enforce it (a warning says so). The
   * achieved mix is in `metrics.lod_mix` whatever the strategy.
   */
  lodMix?: Record<string, { min?: number; max?: number }>;
  /** `'count-knapsack'` only: what to do when a kind has fewer candidates than required. Default `'degrade'`. */
  scarcity?: 'degrade' | 'throw';
  /**
   * Whether a fragment's `dependencies` bind the selection. `'ignore'` (default): they only feed the
   * cohesion tie-break and the KV policy, as the ACS spec has it. `'require'`: a fragment goes in
   * only with every candidate it depends on, transitively (see `selectFragments`, step 4). Not
   * supported by `'count-knapsack'` and `'exact-count'` when a dependency names another candidate
   * (`INVALID_OPTION`).
   */
  dependencies?: 'ignore' | 'require';
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
  /**
   * Counts the tokens of a fragment's `content` when it has no `cost_tokens`: called
   * synchronously as `countTokens(content, model)`, at most once per fragment per call, and only
   * for fragments without `cost_tokens`. With the `'packer'` strategy, only for the fragments the
   * packer reaches. Must return an integer from 0 to 4294967295; anything else, or an exception,
   * is a `TOKEN_COUNT_FAILED` error. See `estimateTokens` and the adapters
   * `ctxpack/tokenizers/js-tiktoken` and `ctxpack/tokenizers/gpt-tokenizer`.
   */
  countTokens?: (text: string, model?: string) => number;
  /** Passed to `countTokens` as its second argument (and not used otherwise): a non-empty string. */
  model?: string;
}

/** Metrics of one selection (spec: "Observability Implementation", plus the seed's return metrics). */
export interface PlannerMetrics {
  /**
   * `options.requestId`, else `acs-` + 16 hex digits: a deterministic 64-bit hash of now, tokens_max,
   * the candidate ids and the selected ids. With pinned candidates, that of the pass over the
   * others (their ids, and the budget the pinned ones left).
   */
  request_id: string;
  /**
   * Wall time in milliseconds (`performance.now()`) from the start of the call to the end of KV
   * policy generation; the only non-deterministic field.
   */
  planner_ms: number;
  /** Number of candidates evaluated. */
  candidate_count: number;
  /** Sum of the selected fragments' token counts (`cost_tokens`, given or counted), without `per_fragment_overhead`. */
  tokens_selected: number;
  /** Fraction of distinct gaze entities mentioned by at least one selected fragment; 0 when the gaze has none. */
  coverage_entities: number;
  /** Distinct sources / selected count; a fragment without `source` counts as a source of its own. 0 when empty. */
  diversity_score: number;
  /** Ids of the first three selected fragments in rank order. */
  top3_fragment_ids: string[];
  /** Their scores, as in {@link Decision.score}. */
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
  /**
   * Fragments whose `content` was counted with `options.countTokens` in this call (fragments with
   * `cost_tokens` are never counted). With the `'packer'` strategy, only those the packer reached.
   */
  fragments_counted: number;
  /**
   * The tokens the strategy filled: `floor((tokens_max − output_reserve − overhead_tokens) ×
   * (100 − safety_margin_percent) / 100)`, or 0 when that is negative. See {@link Budgets}.
   */
  effective_budget: number;
  /**
   * What the selection takes of `effective_budget`: `tokens_selected + per_fragment_overhead ×
   * (number of selected fragments)`. At most `effective_budget`, except after an overshoot or when
   * count requirements force more (both are reported in `warnings`).
   */
  budget_used: number;
  /** The prompt the plan makes, in tokens: `overhead_tokens + budget_used`. */
  prompt_tokens: number;
  /**
   * The achieved level-of-detail mix: per `lod` of the version that went in (`'default'` when
   * absent), how many fragments and how many tokens (without overhead). See
   * {@link PlannerOptions.lodMix}.
   */
  lod_mix: Record<string, { count: number; tokens: number }>;
  /**
   * How the exact strategies (`'exact'`, `'exact-count'`) reached the plan: `'exact'` (the optimum
   * at token precision), `'bucketed'` (the optimum over token counts rounded up to a bucket),
   * `'bucketed-fallback'` (the exact search gave up; the bucketed knapsack answered) or
   * `'heuristic'` (exact-count: at the buckets its guard forced, the three-phase heuristic did
   * better, and its plan is returned); anything but `'exact'` is also in `warnings` unless you set
   * `bucketSize`. `null` for the other strategies and when no strategy ran.
   */
  exact_solver: 'exact' | 'bucketed' | 'bucketed-fallback' | 'heuristic' | null;
}

/**
 * Why a candidate is in or out. Included: `'scored'` (chosen by the slicer's rule),
 * `'zero_tokens'` (costs nothing), `'required'` (committed for a count requirement), `'overshoot'`
 * (admitted by the overshoot policy). Excluded: `'no_budget'` (the effective budget is 0),
 * `'budget_exceeded'` (did not fit), `'not_in_optimal_set'` (fits alone, not in the knapsack
 * optimum), `'count_cap_exceeded'`, `'skip_limit_reached'` (the packer stopped first),
 * `'negative_tokens'` (never produced by the planner, whose costs are validated), and with groups
 * or required dependencies `'group_excluded'` (the fragment would fit alone, but its group was left
 * out: {@link Decision.group_reason} says why) and `'dependency_excluded'` (a candidate it depends
 * on is not selected).
 */
export type DecisionReason =
  | 'scored'
  | 'pinned'
  | 'zero_tokens'
  | 'required'
  | 'overshoot'
  | 'no_budget'
  | 'budget_exceeded'
  | 'not_in_optimal_set'
  | 'count_cap_exceeded'
  | 'skip_limit_reached'
  | 'negative_tokens'
  | 'group_excluded'
  | 'dependency_excluded';

/** Why each candidate was or was not included. */
export interface Decision {
  /** Candidate id. */
  id: string;
  /** Position in the `candidates` argument. */
  index: number;
  /**
   * The value the candidate was ranked by: the ACS score `benefit / (1 + cost_tokens / 1000)`;
   * with the `'packer'` strategy, the benefit (the packer ranks before it counts).
   */
  score: number;
  /** ACS benefit. */
  benefit: number;
  /** Whether the fragment is in the selection. */
  included: boolean;
  /** The slicer's reason, or `'overshoot'`; see {@link DecisionReason}. */
  reason: DecisionReason;
  /** Position in the ranked order (0 = best). */
  rank: number;
  /**
   * The fragment's token count: its `cost_tokens`, or what `countTokens` gave for its `content`;
   * `null` when it was never counted (the `'packer'` stopped before it, or the budget is 0).
   * Without `per_fragment_overhead`.
   */
  cost_tokens: number | null;
  /** Only with `reason: 'group_excluded'`: why the group as a whole was left out (e.g. `'budget_exceeded'`). */
  group_reason?: DecisionReason;
  /**
   * Only for a candidate with `variants`: the index in `variants` of the version that went in;
   * `null` when the full fragment went in or nothing did. `cost_tokens` stays the full version's.
   */
  variant?: number | null;
  /** The chosen variant's `id`, when it has one. */
  variant_id?: string;
  /**
   * Only for a candidate with `variants`: why each version did or did not go in, the full
   * fragment first, then `variants` in order.
   */
  versions?: VersionDecision[];
}

/**
 * One version of a candidate with variants: `'selected'`; `'other_version'` (another version of the
 * fragment went in: the strategy preferred it); `'too_large'` (this version alone exceeds the
 * effective budget); `'not_selected'` (no version went in: see the decision's `reason`).
 */
export interface VersionDecision {
  /** Index in `variants`; `null` for the full fragment. */
  variant: number | null;
  /** The version's tokens, without `per_fragment_overhead`; `null` when never counted. */
  cost_tokens: number | null;
  /** The value the strategy gave it: the full score × its `benefit_scale`. */
  score: number;
  lod: string | undefined;
  status: 'selected' | 'other_version' | 'too_large' | 'not_selected';
}

/** Result of `selectFragments`. */
export interface SelectionResult<T extends PlannerFragmentFields = Fragment> {
  /** Selected fragments (the caller's objects, unmodified), in rank order. */
  fragments: T[];
  /** Metrics of the selection. */
  metrics: PlannerMetrics;
  /** KV cache instructions for the selection. */
  kvPolicy: KVPolicy;
  /**
   * One decision per candidate, in input order. From 256 candidates on, made when first read (an
   * accessor that then becomes a plain property holding the array): for 100k candidates they are
   * most of a plan's time and memory, and a caller that only sends `fragments` never pays for
   * them. They are the same whenever they are read (`JSON.stringify`, spreading and
   * `structuredClone` read them too).
   */
  decisions: Decision[];
  /** Human-readable warnings. They name candidates by index and never contain fragment text or ids (kind names may appear). */
  warnings: string[];
}
