/**
 * Planner metrics (spec: "Performance Metrics", "Observability Implementation").
 *
 * @module
 */

import { DEFAULT_KIND } from './settings.js';
import { CtxpackError, describeValue } from '../errors.js';
import { assertFragmentObject, readEntities, readId, readOptionalString } from '../validate/fields.js';
import { readCache, type CheckedCacheEntry } from '../kv/policy.js';
import { bitCount, createScoringContext, readGaze, scoreComponents } from '../ranking/scoring.js';
import { Words64 } from '../util/hash.js';
import type { CacheEntry, FragmentFields, Gaze, KVPolicy, PlannerMetrics, ScoringOptions } from '../types.js';

/** `{ hits, misses, evictions }` of {@link PlannerMetrics.kv_cache_stats}. */
export type KVCacheStats = PlannerMetrics['kv_cache_stats'];

function requireArray(value: unknown, name: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) {
    throw new CtxpackError('INVALID_INPUT', `${name} must be an array, got ${describeValue(value)}`, { field: name });
  }
}

/** Coverage from the selection's entity masks (`EntityMatcher`, ranking/scoring.ts). @internal */
export function coverageOfMasks(masks: readonly number[], gazeSize: number): number {
  if (gazeSize === 0) return 0;
  let union = 0;
  for (const m of masks) union |= m;
  return bitCount(union) / gazeSize;
}

/** Coverage over already-validated inputs. @internal */
export function coverageOf(entityLists: readonly (readonly string[])[], gaze: ReadonlySet<string>): number {
  if (gaze.size === 0) return 0;
  const covered = new Set<string>();
  for (const list of entityLists) for (const e of list) if (gaze.has(e)) covered.add(e);
  return covered.size / gaze.size;
}

/**
 * `coverage@entities` (spec): the fraction of the gaze's distinct entities mentioned by at least
 * one selected fragment; 0 when the gaze has no entities. Exact string equality.
 *
 * @throws {CtxpackError} `INVALID_INPUT` / `INVALID_FIELD` for malformed input.
 */
export function calculateCoverage<T extends FragmentFields>(selected: readonly T[], gaze: Gaze): number {
  const gazeSet = readGaze(gaze);
  requireArray(selected, 'selected');
  return coverageOf(
    selected.map((f: unknown, index) => {
      const at = { collection: 'selected', index };
      assertFragmentObject(f, at);
      return readEntities(f, at);
    }),
    gazeSet,
  );
}

/** Diversity over already-validated ids and sources (parallel arrays). @internal */
export function diversityOf(ids: readonly string[], sources: readonly (string | undefined)[]): number {
  if (ids.length === 0) return 0;
  // Sources and sourceless ids are separate namespaces, so that a source named like an id cannot
  // collide: the distinct "sources" are the distinct sources plus the distinct sourceless ids.
  const distinctSources = new Set<string>();
  const sourcelessIds = new Set<string>();
  for (let i = 0; i < ids.length; i++) {
    const source = sources[i];
    if (source === undefined) sourcelessIds.add(ids[i]!);
    else distinctSources.add(source);
  }
  return (distinctSources.size + sourcelessIds.size) / ids.length;
}

/**
 * `diversity_score` (spec: "Source diversity in final selection"): distinct sources divided by the
 * number of selected fragments, in (0, 1]; 0 for an empty selection.
 *
 * A fragment without `source` counts as a source of its own (its provenance is unknown, so it is
 * not assumed to repeat another's), consistent with the diversity tie-break, where a missing source
 * never conflicts. Sources compare by exact string equality.
 *
 * @throws {CtxpackError} `INVALID_INPUT` / `INVALID_FIELD` for malformed input.
 */
export function calculateDiversityScore<T extends FragmentFields>(selected: readonly T[]): number {
  requireArray(selected, 'selected');
  const ids: string[] = [];
  const sources: (string | undefined)[] = [];
  selected.forEach((f: unknown, index) => {
    const at = { collection: 'selected', index };
    assertFragmentObject(f, at);
    ids.push(readId(f, at));
    sources.push(readOptionalString(f, 'source', at));
  });
  return diversityOf(ids, sources);
}

/** Arithmetic mean; 0 for an empty list. @internal */
export function meanOf(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Mean ACS benefit of the selection (the seed's `calculateMeanBenefit(selected, gaze)`); 0 when
 * empty. Benefits are computed with `calculateBenefit`; fragments' own `benefit` fields are ignored.
 *
 * @throws {CtxpackError} `INVALID_INPUT` / `INVALID_FIELD` / `INVALID_OPTION` for malformed input.
 */
export function calculateMeanBenefit<T extends FragmentFields>(selected: readonly T[], gaze: Gaze, options?: ScoringOptions): number {
  const ctx = createScoringContext(gaze, options);
  requireArray(selected, 'selected');
  return meanOf(
    selected.map((f: unknown, index) => {
      const at = { collection: 'selected', index };
      assertFragmentObject(f, at);
      return scoreComponents(f, ctx, at).benefit;
    }),
  );
}

/**
 * KV statistics over already-validated inputs. `distinctIds`: the caller knows `selectedIds` has
 * no repeats (the planner's ids are unique), so they need not be collected into a set.
 * @internal
 */
export function kvStatsOf(
  selectedIds: readonly string[],
  policy: KVPolicy,
  previous: readonly CheckedCacheEntry[],
  distinctIds = false,
): KVCacheStats {
  const ids = distinctIds ? selectedIds : [...new Set(selectedIds)];
  let hits = 0;
  if (previous.length > 0) {
    const cached = new Set(previous.map((e) => e.id));
    for (const id of ids) if (cached.has(id)) hits++;
  }
  return { hits, misses: ids.length - hits, evictions: policy.evict.length };
}

/**
 * `kv_cache_stats` (spec) of a selection against the cache as it was before it:
 * - `hits`: distinct selected ids present in `previousCache`;
 * - `misses`: distinct selected ids absent from it (all of them without a previous cache);
 * - `evictions`: `kvPolicy.evict.length`. `generateKVPolicy` puts both kinds of eviction in that
 *   list: the seed's low-benefit/stale rule and capacity eviction of previously cached keys beyond
 *   `maxKvSize`, so this counts each evicted key once.
 *
 * @throws {CtxpackError} `INVALID_INPUT` / `INVALID_FIELD` / `DUPLICATE_ID` for malformed input.
 */
export function calculateKVCacheStats<T extends FragmentFields>(
  selected: readonly T[],
  kvPolicy: KVPolicy,
  previousCache: readonly CacheEntry[] = [],
): KVCacheStats {
  requireArray(selected, 'selected');
  const ids = selected.map((f: unknown, index) => {
    const at = { collection: 'selected', index };
    assertFragmentObject(f, at);
    return readId(f, at);
  });
  const evict: unknown = (kvPolicy as { evict?: unknown } | null)?.evict;
  requireArray(evict, 'kvPolicy.evict');
  return kvStatsOf(ids, kvPolicy, readCache(previousCache, 'cache'));
}

/** `cache_hit_rate`: `hits / (hits + misses)`, 0 when both are 0. */
export function calculateCacheHitRate(stats: Pick<KVCacheStats, 'hits' | 'misses'>): number {
  const total = stats.hits + stats.misses;
  return total === 0 ? 0 : stats.hits / total;
}

/**
 * Default request id: `acs-` + a 64-bit hash ({@link Words64}) of `now`, `tokens_max`, the candidate
 * ids and the selected ids. Deterministic (no `Math.random`, no crypto), so a replay with the same
 * inputs and `now` reproduces it; pass `options.requestId` when ids must be unique across identical
 * requests.
 *
 * The words hashed: the IEEE 754 bits of `now` and of `tokensMax` (low word first), the
 * {@link fnv1a32Units} of each candidate id in order (`candidateHashes`, which validation computes
 * for its id index), that of each selected id in order, then the number of candidates and the
 * number selected.
 * @internal
 */
export function defaultRequestId(now: number, tokensMax: number, candidateHashes: ArrayLike<number>, selectedHashes: ArrayLike<number>): string {
  const h = new Words64();
  h.number(now);
  h.number(tokensMax);
  for (let i = 0; i < candidateHashes.length; i++) h.word(candidateHashes[i]!);
  for (let i = 0; i < selectedHashes.length; i++) h.word(selectedHashes[i]!);
  h.word(candidateHashes.length);
  h.word(selectedHashes.length);
  return `acs-${h.digest()}`;
}

/** Selection-level metrics assembled by the planner. @internal */
export interface MetricsInput {
  readonly requestId: string;
  readonly plannerMs: number;
  readonly candidateCount: number;
  /** The selected fragments in rank order, as parallel arrays of their validated fields; ids unique. */
  readonly ids: readonly string[];
  readonly costs: readonly number[];
  /** The `lod` of the version that went in. */
  readonly lods: readonly (string | undefined)[];
  readonly sources: readonly (string | undefined)[];
  readonly entities: readonly (readonly string[])[];
  /** The entity masks of the selection (`EntityMatcher`, ranking/scoring.ts), when the gaze is small enough. */
  readonly entityMasks: readonly number[] | undefined;
  readonly scores: readonly number[];
  readonly benefits: readonly number[];
  readonly gaze: ReadonlySet<string>;
  readonly kvPolicy: KVPolicy;
  readonly previousCache: readonly CheckedCacheEntry[];
  /** Contents counted with the token counter in this call. */
  readonly fragmentsCounted: number;
  /** The effective budget, the per-fragment overhead and `overhead_tokens` (see `Budgets`). */
  readonly effectiveBudget: number;
  readonly perFragmentOverhead: number;
  readonly overheadTokens: number;
  /** See {@link PlannerMetrics.exact_solver}. */
  readonly exactSolver: PlannerMetrics['exact_solver'];
}

/**
 * Builds {@link PlannerMetrics} from validated planner state, as one object literal (every field
 * in its documented order), not a spread of a partial one with fields added after.
 * @internal
 */
export function buildMetrics(input: MetricsInput): PlannerMetrics {
  const { ids, costs } = input;
  let tokens = 0;
  for (const cost of costs) tokens += cost;
  const kv = kvStatsOf(ids, input.kvPolicy, input.previousCache, true);
  const budgetUsed = tokens + input.perFragmentOverhead * ids.length;
  return {
    request_id: input.requestId,
    planner_ms: input.plannerMs,
    candidate_count: input.candidateCount,
    tokens_selected: tokens,
    coverage_entities:
      input.entityMasks === undefined ? coverageOf(input.entities, input.gaze) : coverageOfMasks(input.entityMasks, input.gaze.size),
    diversity_score: diversityOf(ids, input.sources),
    top3_fragment_ids: ids.slice(0, 3),
    top3_scores: input.scores.slice(0, 3),
    kv_cache_stats: kv,
    total_cost_tokens: tokens,
    mean_benefit: meanOf(input.benefits),
    cache_hit_rate: calculateCacheHitRate(kv),
    fragments_counted: input.fragmentsCounted,
    effective_budget: input.effectiveBudget,
    budget_used: budgetUsed,
    prompt_tokens: input.overheadTokens + budgetUsed,
    lod_mix: lodMixOf(input.lods, costs),
    exact_solver: input.exactSolver,
  };
}

type LodMix = PlannerMetrics['lod_mix'];

/** The achieved mix: per lod (`'default'` when absent), count and tokens, lods in first-seen order. @internal */
export function lodMixOf(lods: readonly (string | undefined)[], costs: readonly number[]): LodMix {
  const mix = new Map<string, { count: number; tokens: number }>();
  for (let j = 0; j < lods.length; j++) add(mix, lods[j] ?? DEFAULT_KIND, 1, costs[j]!);
  return recordOf(mix);
}

/** Two passes' mixes added up, `a`'s lods first (the pinned pass, pins.ts). @internal */
export function mergeLodMix(a: LodMix, b: LodMix): LodMix {
  const mix = new Map<string, { count: number; tokens: number }>();
  for (const part of [a, b]) for (const lod of Object.keys(part)) add(mix, lod, part[lod]!.count, part[lod]!.tokens);
  return recordOf(mix);
}

function add(mix: Map<string, { count: number; tokens: number }>, lod: string, count: number, tokens: number): void {
  const entry = mix.get(lod);
  if (entry === undefined) mix.set(lod, { count, tokens });
  else {
    entry.count += count;
    entry.tokens += tokens;
  }
}

/**
 * A plain object whose own keys are the lods. `fromEntries` defines them, so that `'__proto__'`
 * stays a key; without that key, assignments make the same object, several times faster.
 */
function recordOf(mix: Map<string, { count: number; tokens: number }>): LodMix {
  if (mix.has('__proto__')) return Object.fromEntries(mix) as LodMix;
  const record: LodMix = {};
  for (const [lod, entry] of mix) record[lod] = entry;
  return record;
}
