/**
 * Planner metrics (spec: "Performance Metrics", "Observability Implementation").
 *
 * @module
 */

import { CtxpackError, describeValue } from './errors.js';
import { assertFragmentObject, readEntities, readId, readOptionalString } from './fields.js';
import { fnv1a64 } from './hash.js';
import { readCache, type CheckedCacheEntry } from './kvpolicy.js';
import { createScoringContext, readGaze, scoreComponents } from './scoring.js';
import type { CacheEntry, FragmentFields, Gaze, KVPolicy, PlannerMetrics, ScoringOptions } from './types.js';

/** `{ hits, misses, evictions }` of {@link PlannerMetrics.kv_cache_stats}. */
export type KVCacheStats = PlannerMetrics['kv_cache_stats'];

function requireArray(value: unknown, name: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) {
    throw new CtxpackError('INVALID_INPUT', `${name} must be an array, got ${describeValue(value)}`, { field: name });
  }
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

/** Diversity over already-validated `(id, source)` pairs. @internal */
export function diversityOf(keys: readonly { readonly id: string; readonly source: string | undefined }[]): number {
  if (keys.length === 0) return 0;
  // Sources and sourceless ids live in separate namespaces so that a source named like an id cannot collide.
  const distinct = new Set(keys.map((k) => (k.source === undefined ? `id:${k.id}` : `src:${k.source}`)));
  return distinct.size / keys.length;
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
  return diversityOf(
    selected.map((f: unknown, index) => {
      const at = { collection: 'selected', index };
      assertFragmentObject(f, at);
      return { id: readId(f, at), source: readOptionalString(f, 'source', at) };
    }),
  );
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

/** KV statistics over already-validated inputs. @internal */
export function kvStatsOf(selectedIds: readonly string[], policy: KVPolicy, previous: readonly CheckedCacheEntry[]): KVCacheStats {
  const cached = new Set(previous.map((e) => e.id));
  let hits = 0;
  let misses = 0;
  for (const id of new Set(selectedIds)) {
    if (cached.has(id)) hits++;
    else misses++;
  }
  return { hits, misses, evictions: policy.evict.length };
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
 * Default request id: `acs-` + FNV-1a 64 of `now`, `tokens_max`, the candidate ids and the selected
 * ids. Deterministic (no `Math.random`, no crypto), so a replay with the same inputs and `now`
 * reproduces it; pass `options.requestId` when ids must be unique across identical requests.
 * @internal
 */
export function defaultRequestId(now: number, tokensMax: number, candidateIds: readonly string[], selectedIds: readonly string[]): string {
  const sep = '\u0000';
  const text = `${now}${sep}${tokensMax}${sep}${candidateIds.join(sep)}\u0001${selectedIds.join(sep)}`;
  return `acs-${fnv1a64(text)}`;
}

/**
 * Monotonic milliseconds: `performance.now()` (Node, browsers, workers), else `Date.now()`.
 * Only used to measure durations.
 * @internal
 */
export function monotonicMs(): number {
  const perf = (globalThis as { performance?: { now?: () => number } }).performance;
  return typeof perf?.now === 'function' ? perf.now() : Date.now();
}

/** Selection-level metrics assembled by the planner. @internal */
export interface MetricsInput {
  readonly requestId: string;
  readonly plannerMs: number;
  readonly candidateCount: number;
  /** Selected fragments in rank order, with their validated fields. */
  readonly selected: readonly {
    readonly id: string;
    readonly cost: number;
    readonly source: string | undefined;
    readonly entities: readonly string[];
    readonly score: number;
    readonly benefit: number;
  }[];
  readonly gaze: ReadonlySet<string>;
  readonly kvPolicy: KVPolicy;
  readonly previousCache: readonly CheckedCacheEntry[];
}

/** Builds {@link PlannerMetrics} from validated planner state, but for the counting and budget fields the planner adds. @internal */
export function buildMetrics(
  input: MetricsInput,
): Omit<PlannerMetrics, 'fragments_counted' | 'effective_budget' | 'budget_used' | 'prompt_tokens'> {
  const { selected } = input;
  let tokens = 0;
  for (const s of selected) tokens += s.cost;
  const top3 = selected.slice(0, 3);
  const kv = kvStatsOf(
    selected.map((s) => s.id),
    input.kvPolicy,
    input.previousCache,
  );
  return {
    request_id: input.requestId,
    planner_ms: input.plannerMs,
    candidate_count: input.candidateCount,
    tokens_selected: tokens,
    coverage_entities: coverageOf(
      selected.map((s) => s.entities),
      input.gaze,
    ),
    diversity_score: diversityOf(selected),
    top3_fragment_ids: top3.map((s) => s.id),
    top3_scores: top3.map((s) => s.score),
    kv_cache_stats: kv,
    total_cost_tokens: tokens,
    mean_benefit: meanOf(selected.map((s) => s.benefit)),
    cache_hit_rate: calculateCacheHitRate(kv),
  };
}
