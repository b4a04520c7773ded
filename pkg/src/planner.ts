/**
 * The ACS planner (spec: "Greedy Selection Algorithm", "Edge Cases & Error Handling",
 * "Budget Overshoot Policy", "Observability Implementation").
 *
 * @module
 */

import { sliceColumnar, type ColumnarRequest, type ColumnarResult, type SlicerName } from './core.js';
import { CtxpackError, describeValue } from './errors.js';
import {
  MAX_COST_TOKENS,
  assertFragmentObject,
  isRecord,
  readCitationCount,
  readCost,
  readDependencies,
  readEntities,
  readId,
  readOptionalString,
  readTime,
  type Unchecked,
} from './fields.js';
import { hashId } from './hash.js';
import { DEFAULT_MAX_KV_SIZE, buildKVPolicy, readCache, type CheckedCacheEntry } from './kvpolicy.js';
import { buildMetrics, defaultRequestId, monotonicMs } from './metrics.js';
import { invalidOption, optionsRecord, readBoolean, readCount, readEnum, readNow, readWeights, rejectUnknownOptions } from './options.js';
import { readGaze, scoreComponents, type ScoringContext } from './scoring.js';
import { countEntries } from './slicers.js';
import { DEFAULT_DIVERSITY_WINDOW, applyTieBreaking } from './tiebreak.js';
import type {
  Budgets,
  CountEntryOption,
  Decision,
  DecisionReason,
  FragmentFields,
  Gaze,
  KVPolicy,
  PlannerOptions,
  PlannerSlicer,
  SelectionLogRecord,
  SelectionResult,
} from './types.js';

/** Slicers accepted by `options.slicer`. */
export const PLANNER_SLICERS: readonly PlannerSlicer[] = Object.freeze(['acs', 'greedy', 'knapsack', 'count-knapsack', 'packer']);
/** Default `options.maxConsecutiveSkips` of the `'packer'` slicer (the packer spec's `MAX_CONSECUTIVE_SKIPS`). */
export const DEFAULT_MAX_CONSECUTIVE_SKIPS = 3;
/** Default `options.bucketSize` of the knapsack slicers. */
export const DEFAULT_BUCKET_SIZE = 100;
/** Spec: "Single very expensive candidate: include only if benefit > 0.9 and explicit allow_overshoot flag". */
export const OVERSHOOT_MIN_BENEFIT = 0.9;
/** Kind of a fragment with neither `kind` nor `lod`, for the count-constrained knapsack. */
export const DEFAULT_KIND = 'default';

/** `maxConsecutiveSkips` value that the core reads as "no limit": the seed's walk never stops early. */
const UNLIMITED_SKIPS = 0;

/** A validated candidate with everything later phases need. */
interface Candidate<T extends FragmentFields> {
  readonly fragment: T;
  /** The same object, as validated input. */
  readonly raw: Unchecked;
  readonly index: number;
  readonly id: string;
  readonly cost: number;
  readonly entities: readonly string[];
  readonly source: string | undefined;
  readonly lod: string | undefined;
  readonly kind: string;
  readonly lastAccessMs: number | undefined;
  readonly dependencies: readonly string[];
}

/** A scored candidate as ranked by `applyTieBreaking`. */
interface Scored<T extends FragmentFields> {
  readonly fragment: T;
  readonly score: number;
  readonly benefit: number;
  readonly candidate: Candidate<T>;
}

/** Validated options. */
interface Settings {
  readonly now: number;
  readonly weights: ScoringContext['weights'];
  readonly slicer: PlannerSlicer;
  readonly maxConsecutiveSkips: number;
  readonly bucketSize: number;
  readonly maxTableBytes: number | undefined;
  readonly countEntries: readonly CountEntryOption[] | undefined;
  readonly scarcity: 'degrade' | 'throw';
  readonly allowOvershoot: boolean;
  readonly diversityWindow: number;
  readonly maxKvSize: number;
  readonly previousCache: readonly CheckedCacheEntry[];
  readonly requestId: string | undefined;
  readonly logger: ((record: SelectionLogRecord) => void) | undefined;
  readonly hashIds: boolean;
  readonly ignoredOptions: readonly string[];
}

function validateCandidates<T extends FragmentFields>(candidates: unknown): Candidate<T>[] {
  if (!Array.isArray(candidates)) {
    throw new CtxpackError('INVALID_INPUT', `candidates must be an array, got ${describeValue(candidates)}`, { field: 'candidates' });
  }
  const firstIndex = new Map<string, number>();
  return candidates.map((f: unknown, index): Candidate<T> => {
    assertFragmentObject(f, index);
    const id = readId(f, index);
    const cost = readCost(f, index);
    const other = firstIndex.get(id);
    if (other !== undefined) {
      throw new CtxpackError('DUPLICATE_ID', `candidates[${index}].id duplicates candidates[${other}].id`, {
        field: 'id',
        index,
        otherIndex: other,
      });
    }
    firstIndex.set(id, index);
    // Validated now so that every input error surfaces before any work; scoring reads them again.
    readTime(f, 'timestamp', index);
    readCitationCount(f, index);
    const lod = readOptionalString(f, 'lod', index);
    return {
      fragment: f as unknown as T,
      raw: f,
      index,
      id,
      cost,
      entities: readEntities(f, index),
      source: readOptionalString(f, 'source', index),
      lod,
      kind: readOptionalString(f, 'kind', index) ?? lod ?? DEFAULT_KIND,
      lastAccessMs: readTime(f, 'lastAccessTime', index),
      dependencies: readDependencies(f, index),
    };
  });
}

function validateBudgets(budgets: unknown): number {
  if (!isRecord(budgets)) {
    throw new CtxpackError('INVALID_BUDGET', `budgets must be an object { tokens_max }, got ${describeValue(budgets)}`, {
      field: 'budgets',
    });
  }
  const max = budgets['tokens_max'];
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 0) {
    throw new CtxpackError('INVALID_BUDGET', `budgets.tokens_max must be a non-negative safe integer, got ${describeValue(max)}`, {
      field: 'budgets.tokens_max',
    });
  }
  return max;
}

/** `bucketSize`: like `knapsackSlice`, any invalid value is `INVALID_BUCKET_SIZE`. */
function readBucketSize(o: Unchecked): number {
  const v = o['bucketSize'];
  if (v === undefined) return DEFAULT_BUCKET_SIZE;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_COST_TOKENS) {
    throw new CtxpackError(
      'INVALID_BUCKET_SIZE',
      `options.bucketSize must be a positive integer no greater than 4294967295, got ${describeValue(v)}`,
      {
        field: 'bucketSize',
      },
    );
  }
  return v;
}

const SLICER_OPTIONS: readonly (readonly [name: string, usedBy: readonly PlannerSlicer[]])[] = [
  ['maxConsecutiveSkips', ['packer']],
  ['bucketSize', ['knapsack', 'count-knapsack']],
  ['maxTableBytes', ['knapsack', 'count-knapsack']],
  ['countEntries', ['count-knapsack']],
  ['scarcity', ['count-knapsack']],
];

const KNOWN_OPTIONS: readonly (keyof PlannerOptions)[] = [
  'now',
  'weights',
  'diversityWindow',
  'maxKvSize',
  'previousCache',
  'slicer',
  'maxConsecutiveSkips',
  'bucketSize',
  'maxTableBytes',
  'countEntries',
  'scarcity',
  'allow_overshoot',
  'requestId',
  'logger',
  'hashIds',
];

function validateOptions(options: unknown): Settings {
  const o = optionsRecord(options);
  rejectUnknownOptions(o, KNOWN_OPTIONS);
  const slicer = readEnum(o, 'slicer', PLANNER_SLICERS, 'acs');
  const maxTableBytes = o['maxTableBytes'];
  if (maxTableBytes !== undefined && (typeof maxTableBytes !== 'number' || !Number.isSafeInteger(maxTableBytes) || maxTableBytes < 1)) {
    throw invalidOption('maxTableBytes', 'a positive safe integer', maxTableBytes);
  }
  const previous = o['previousCache'];
  const requestId = o['requestId'];
  if (requestId !== undefined && (typeof requestId !== 'string' || requestId.length === 0)) {
    throw invalidOption('requestId', 'a non-empty string', requestId);
  }
  const logger = o['logger'];
  if (logger !== undefined && typeof logger !== 'function') throw invalidOption('logger', 'a function', logger);
  return {
    now: readNow(o),
    weights: readWeights(o),
    slicer,
    maxConsecutiveSkips: readCount(o, 'maxConsecutiveSkips', DEFAULT_MAX_CONSECUTIVE_SKIPS, MAX_COST_TOKENS),
    bucketSize: readBucketSize(o),
    maxTableBytes,
    countEntries: o['countEntries'] === undefined ? undefined : countEntries(o['countEntries'], 'countEntries'),
    scarcity: readEnum(o, 'scarcity', ['degrade', 'throw'] as const, 'degrade'),
    allowOvershoot: readBoolean(o, 'allow_overshoot', false),
    diversityWindow: readCount(o, 'diversityWindow', DEFAULT_DIVERSITY_WINDOW, MAX_COST_TOKENS),
    maxKvSize: readCount(o, 'maxKvSize', DEFAULT_MAX_KV_SIZE),
    previousCache: previous === undefined ? [] : readCache(previous, 'previousCache'),
    requestId,
    logger: logger as Settings['logger'],
    hashIds: readBoolean(o, 'hashIds', false),
    ignoredOptions: SLICER_OPTIONS.filter(([name, usedBy]) => o[name] !== undefined && !usedBy.includes(slicer)).map(([name]) => name),
  };
}

function buildRequest<T extends FragmentFields>(
  ranked: readonly Scored<T>[],
  tokensMax: number,
  s: Settings,
): [SlicerName, ColumnarRequest] {
  const n = ranked.length;
  const tokens = new Uint32Array(n);
  const scores = new Float64Array(n);
  ranked.forEach((r, i) => {
    tokens[i] = r.candidate.cost;
    scores[i] = r.score;
  });
  const base: ColumnarRequest = { tokens, scores, targetTokens: tokensMax, maxTokens: tokensMax };
  switch (s.slicer) {
    case 'acs':
      return ['packer', { ...base, maxConsecutiveSkips: UNLIMITED_SKIPS }];
    case 'packer':
      return ['packer', { ...base, maxConsecutiveSkips: s.maxConsecutiveSkips }];
    case 'greedy':
      return ['greedy', base];
    case 'knapsack':
      return ['knapsack', withTable(base, s)];
    case 'count-knapsack': {
      const kindNames: string[] = [];
      const kindIndex = new Map<string, number>();
      const kinds = new Uint32Array(n);
      ranked.forEach((r, i) => {
        let k = kindIndex.get(r.candidate.kind);
        if (k === undefined) {
          k = kindNames.length;
          kindNames.push(r.candidate.kind);
          kindIndex.set(r.candidate.kind, k);
        }
        kinds[i] = k;
      });
      return [
        'count-knapsack',
        {
          ...withTable(base, s),
          kinds,
          kindNames,
          entries: (s.countEntries ?? []).map((e) => ({ ...e })),
          scarcity: s.scarcity,
        },
      ];
    }
  }
}

function withTable(base: ColumnarRequest, s: Settings): ColumnarRequest {
  return s.maxTableBytes === undefined
    ? { ...base, bucketSize: s.bucketSize }
    : { ...base, bucketSize: s.bucketSize, maxTableBytes: s.maxTableBytes };
}

function checkResult(result: ColumnarResult, n: number): void {
  const ok =
    result !== null &&
    typeof result === 'object' &&
    Array.isArray(result.reasons) &&
    result.reasons.length === n &&
    result.selected instanceof Uint32Array &&
    result.selected.every((i) => i < n) &&
    new Set(result.selected).size === result.selected.length;
  if (!ok) throw new CtxpackError('INTERNAL', 'the core returned a malformed slicer result');
}

/**
 * Selects the fragments to put in the prompt under `budgets.tokens_max` (spec: `selectFragments`).
 *
 * Steps:
 * 1. **Validate** everything before any work, reporting the first problem in this order:
 *    `candidates` (`INVALID_INPUT` if not an array), then each candidate in input order (not an
 *    object, `id` missing/empty/not a string, `cost_tokens` not an integer in `[0, 2^32-1]`, an id
 *    already used by an earlier candidate → `DUPLICATE_ID` with `index` and `otherIndex`, then the
 *    optional fields `timestamp`, `citations`, `lod`, `entities`, `source`, `kind`,
 *    `lastAccessTime`, `dependencies` → `INVALID_FIELD`), then `gaze` (`INVALID_FIELD`), then
 *    `budgets` (`INVALID_BUDGET`), then `options` (`INVALID_OPTION` naming the option, also for
 *    an unknown option name; `INVALID_BUCKET_SIZE`; `INVALID_COUNT_ENTRY`; `DUPLICATE_ID` in
 *    `previousCache`). Count entries' relational rules (`requireCount ≤ capCount`, one entry per
 *    kind) are checked by the core, also as `INVALID_COUNT_ENTRY`.
 *    A failed call leaves no state behind: the next call works normally.
 * 2. **Score** every candidate with the ACS formula (`calculateScore`, at one `now` for the whole
 *    call). A fragment's own `score` and `benefit` fields are ignored.
 * 3. **Rank** with `applyTieBreaking` (`options.diversityWindow`).
 * 4. **Select** with `options.slicer` over the ranked list, with each item's ACS score as its value:
 *    - `'acs'` (default): the spec's greedy walk: take each candidate in rank order if it still
 *      fits, otherwise skip it and go on; never stop early.
 *    - `'packer'`: the same walk, but stop after `maxConsecutiveSkips` (default 3) consecutive
 *      misses (greedy-knapsack-packer spec); `0` means no limit, which equals `'acs'`.
 *    - `'greedy'`: by score per token (GreedySlice spec); ties keep rank order.
 *    - `'knapsack'`: 0/1 knapsack DP with `bucketSize` (default 100) and `maxTableBytes`.
 *    - `'count-knapsack'`: knapsack with per-kind `countEntries` and `scarcity`. A fragment's kind
 *      is its `kind`, else its `lod`, else `'default'`.
 *    Options that the chosen slicer does not use are reported in `warnings`, not silently dropped.
 * 5. **Edge cases** (spec: "Edge Cases"): no candidates → empty plan; `tokens_max` 0 → empty plan
 *    and every decision's reason is `'no_budget'`. When the slicer selects nothing because every
 *    candidate costs more than `tokens_max`: with `allow_overshoot` and a best benefit above 0.9,
 *    that one candidate is selected (reason `'overshoot'`, ties to the better rank) with a warning;
 *    otherwise the plan is empty with a warning.
 * 6. **KV policy**: `generateKVPolicy` over the selection, with each fragment's computed benefit,
 *    `options.now`, `maxKvSize` and `previousCache`. A fragment without `lastAccessTime` takes
 *    the one recorded for its id in `previousCache`, if any.
 * 7. **Metrics and log**: see {@link PlannerMetrics}; `options.logger` receives one
 *    {@link SelectionLogRecord} (never fragment text; ids hashed with `hashIds`). An exception
 *    thrown by the logger propagates to the caller.
 *
 * The result is deterministic given `options.now` (default `Date.now()`): everything except
 * `metrics.planner_ms` is a pure function of the arguments.
 *
 * @param candidates Fragments with unique ids. Neither the array nor the fragments are mutated.
 * @param gaze The entities of interest.
 * @param budgets `tokens_max`: a non-negative safe integer.
 * @param options See {@link PlannerOptions}.
 * @returns `fragments`: the caller's own objects, in rank order (the slicer's output order is not
 *   kept; `decisions[i].rank` gives each candidate's position in the ranking); `decisions`: one per
 *   candidate in input order.
 * @throws {CtxpackError} On invalid input (see step 1) and on errors of the slicer
 *   (`TABLE_TOO_LARGE`, `COUNT_REQUIREMENT_SHORTFALL`, …).
 */
export function selectFragments<T extends FragmentFields>(
  candidates: readonly T[],
  gaze: Gaze,
  budgets: Budgets,
  options?: PlannerOptions,
): SelectionResult<T> {
  const t0 = monotonicMs();

  // 1. Validate.
  const items = validateCandidates<T>(candidates);
  const gazeSet = readGaze(gaze);
  const tokensMax = validateBudgets(budgets);
  const s = validateOptions(options);
  const warnings = s.ignoredOptions.map((name) => `options.${name} is ignored by slicer '${s.slicer}'`);
  const t1 = monotonicMs();

  // 2. Score.
  const ctx: ScoringContext = { gaze: gazeSet, weights: s.weights, now: s.now };
  const scored = items.map((c): Scored<T> => {
    const { benefit, score } = scoreComponents(c.raw, ctx, c.index);
    return { fragment: c.fragment, score, benefit, candidate: c };
  });
  const t2 = monotonicMs();

  // 3. Rank.
  const ranked = applyTieBreaking(scored, { diversityWindow: s.diversityWindow });
  const t3 = monotonicMs();

  // 4. Select.
  const n = ranked.length;
  const reasons: DecisionReason[] = new Array<DecisionReason>(n).fill('no_budget');
  let chosen: number[] = []; // rank positions
  if (n > 0 && tokensMax > 0) {
    const [slicer, request] = buildRequest(ranked, tokensMax, s);
    const result = sliceColumnar(slicer, request);
    checkResult(result, n);
    result.reasons.forEach((r, i) => (reasons[i] = r));
    chosen = Array.from(result.selected).sort((a, b) => a - b);
    for (const sf of result.shortfalls) {
      warnings.push(
        `count requirement for kind ${JSON.stringify(sf.kind)} not met: required ${sf.requiredCount}, satisfied ${sf.satisfiedCount}`,
      );
    }
    if (result.overBudget) {
      warnings.push(`selection exceeds tokens_max ${tokensMax} by ${result.overrunTokens} tokens to satisfy count requirements`);
    }
    if (chosen.length === 0 && ranked.every((r) => r.candidate.cost > tokensMax)) {
      chosen = handleOvershoot(ranked, tokensMax, s.allowOvershoot, reasons, warnings);
    }
  }
  const t4 = monotonicMs();

  // 5. KV policy and metrics.
  const selected = chosen.map((r) => ranked[r]!);
  const kvPolicy: KVPolicy = buildKVPolicy(
    selected.map((r) => ({
      id: r.candidate.id,
      cost: r.candidate.cost,
      lod: r.candidate.lod,
      benefit: r.benefit,
      lastAccessMs: r.candidate.lastAccessMs,
      dependencies: r.candidate.dependencies,
    })),
    s.previousCache,
    s.now,
    s.maxKvSize,
  );
  const included = new Set(chosen);
  const rankOf = new Uint32Array(n); // input index → rank
  ranked.forEach((r, rank) => (rankOf[r.candidate.index] = rank));
  const decisions = items.map((c): Decision => {
    const rank = rankOf[c.index]!;
    const r = ranked[rank]!;
    return { id: c.id, index: c.index, score: r.score, benefit: r.benefit, included: included.has(rank), reason: reasons[rank]!, rank };
  });
  const selectedIds = selected.map((r) => r.candidate.id);
  const requestId =
    s.requestId ??
    defaultRequestId(
      s.now,
      tokensMax,
      items.map((c) => c.id),
      selectedIds,
    );
  const t5 = monotonicMs();
  const metrics = buildMetrics({
    requestId,
    plannerMs: t5 - t0,
    candidateCount: n,
    selected: selected.map((r) => ({
      id: r.candidate.id,
      cost: r.candidate.cost,
      source: r.candidate.source,
      entities: r.candidate.entities,
      score: r.score,
      benefit: r.benefit,
    })),
    gaze: gazeSet,
    kvPolicy,
    previousCache: s.previousCache,
  });

  if (s.logger !== undefined) {
    const hash = s.hashIds ? hashId : (id: string): string => id;
    s.logger({
      request_id: metrics.request_id,
      k_selected: selected.length,
      total_cost_tokens: metrics.total_cost_tokens,
      top3_ids: metrics.top3_fragment_ids.map(hash),
      top3_scores: [...metrics.top3_scores],
      planner_ms: metrics.planner_ms,
      phase_ms: { validate: t1 - t0, score: t2 - t1, rank: t3 - t2, slice: t4 - t3, finish: t5 - t4 },
    });
  }

  return { fragments: selected.map((r) => r.fragment), metrics, kvPolicy, decisions, warnings };
}

/**
 * Spec: "Budget Overshoot Policy". Called when every candidate exceeds `tokens_max`. Returns the
 * rank positions to select and records reasons and warnings. Warnings name candidates by input
 * index, never by id or content.
 */
function handleOvershoot<T extends FragmentFields>(
  ranked: readonly Scored<T>[],
  tokensMax: number,
  allowOvershoot: boolean,
  reasons: DecisionReason[],
  warnings: string[],
): number[] {
  let best = 0;
  ranked.forEach((r, i) => {
    if (r.benefit > ranked[best]!.benefit) best = i;
  });
  const b = ranked[best]!;
  if (allowOvershoot && b.benefit > OVERSHOOT_MIN_BENEFIT) {
    reasons[best] = 'overshoot';
    warnings.push(
      `budget overshoot: every candidate exceeds tokens_max ${tokensMax}; selected candidates[${b.candidate.index}] ` +
        `(cost_tokens ${b.candidate.cost}, benefit ${b.benefit}) because allow_overshoot is set and its benefit exceeds ${OVERSHOOT_MIN_BENEFIT}`,
    );
    return [best];
  }
  const why = allowOvershoot ? `the best benefit ${b.benefit} does not exceed ${OVERSHOOT_MIN_BENEFIT}` : 'allow_overshoot is not set';
  warnings.push(`every candidate exceeds tokens_max ${tokensMax}; returning an empty plan because ${why}`);
  return [];
}
