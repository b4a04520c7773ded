/**
 * The ACS planner (spec: "Greedy Selection Algorithm", "Edge Cases & Error Handling",
 * "Budget Overshoot Policy", "Observability Implementation").
 *
 * @module
 */

import { readBudgets, type CheckedBudgets } from './budgets.js';
import { packLazy, sliceColumnar, type ColumnarRequest, type ColumnarResult, type SlicerName } from './core.js';
import { CtxpackError, describeValue } from './errors.js';
import {
  MAX_COST_TOKENS,
  assertFragmentObject,
  readCitationCount,
  readDependencies,
  readEntities,
  readId,
  readOptionalCost,
  readOptionalString,
  readTime,
  type Unchecked,
} from './fields.js';
import { hashId } from './hash.js';
import { DEFAULT_MAX_KV_SIZE, buildKVPolicy, readCache, type CheckedCacheEntry } from './kvpolicy.js';
import { buildMetrics, defaultRequestId, monotonicMs } from './metrics.js';
import {
  invalidOption,
  optionsRecord,
  readBoolean,
  readCount,
  readEnum,
  readFunction,
  readNonEmptyString,
  readNow,
  readWeights,
  rejectUnknownOptions,
} from './options.js';
import { readGaze, scoreComponents, type ScoringContext } from './scoring.js';
import { countEntries } from './slicers.js';
import { DEFAULT_DIVERSITY_WINDOW, applyTieBreaking } from './tiebreak.js';
import { CallCounts, type TokenCounter } from './tokens.js';
import type {
  Budgets,
  CountEntryOption,
  Decision,
  DecisionReason,
  FragmentFields,
  Gaze,
  KVPolicy,
  PlannerFragmentFields,
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
interface Candidate<T extends PlannerFragmentFields> {
  readonly fragment: T;
  /** The same object, as validated input. */
  readonly raw: Unchecked;
  readonly index: number;
  readonly id: string;
  /** `cost_tokens` as given; `undefined` when `content` is to be counted. */
  readonly given: number | undefined;
  /** `content`, kept only when it is to be counted. */
  readonly content: string | undefined;
  readonly entities: readonly string[];
  readonly source: string | undefined;
  readonly lod: string | undefined;
  readonly kind: string;
  readonly lastAccessMs: number | undefined;
  readonly dependencies: readonly string[];
}

/** A scored candidate as ranked by `applyTieBreaking`. */
interface Scored<T extends PlannerFragmentFields> {
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
  readonly countTokens: TokenCounter | undefined;
  readonly model: string | undefined;
  readonly ignoredOptions: readonly string[];
}

function validateCandidates<T extends PlannerFragmentFields>(candidates: unknown): Candidate<T>[] {
  if (!Array.isArray(candidates)) {
    throw new CtxpackError('INVALID_INPUT', `candidates must be an array, got ${describeValue(candidates)}`, { field: 'candidates' });
  }
  const firstIndex = new Map<string, number>();
  return candidates.map((f: unknown, index): Candidate<T> => {
    assertFragmentObject(f, index);
    const id = readId(f, index);
    const given = readOptionalCost(f, index);
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
      given,
      content: given === undefined ? (f['content'] as string) : undefined,
      entities: readEntities(f, index),
      source: readOptionalString(f, 'source', index),
      lod,
      kind: readOptionalString(f, 'kind', index) ?? lod ?? DEFAULT_KIND,
      lastAccessMs: readTime(f, 'lastAccessTime', index),
      dependencies: readDependencies(f, index),
    };
  });
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
  'countTokens',
  'model',
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
  const countTokens = readFunction<TokenCounter>(o, 'countTokens');
  const model = readNonEmptyString(o, 'model');
  const ignoredOptions = SLICER_OPTIONS.filter(([name, usedBy]) => o[name] !== undefined && !usedBy.includes(slicer)).map(([name]) => name);
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
    countTokens,
    model,
    ignoredOptions,
  };
}

/** `charges[i]`: what rank position `i` takes of the budget (its count plus the per-fragment overhead). */
function buildRequest<T extends PlannerFragmentFields>(
  ranked: readonly Scored<T>[],
  charges: Uint32Array,
  tokensMax: number,
  s: Settings,
): [SlicerName, ColumnarRequest] {
  const n = ranked.length;
  const tokens = charges;
  const scores = Float64Array.from(ranked, (r) => r.score);
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
 * Selects the fragments to put in the prompt under `budgets` (spec: `selectFragments`).
 *
 * Steps:
 * 1. **Validate** everything before any work, reporting the first problem in this order:
 *    `candidates` (`INVALID_INPUT` if not an array), then each candidate in input order (not an
 *    object, `id` missing/empty/not a string, `cost_tokens` present but not an integer in
 *    `[0, 2^32-1]`, or absent without a string `content` to count, an id already used by an
 *    earlier candidate → `DUPLICATE_ID` with `index` and `otherIndex`, then the optional fields
 *    `timestamp`, `citations`, `lod`, `entities`, `source`, `kind`, `lastAccessTime`,
 *    `dependencies` → `INVALID_FIELD`), then `gaze` (`INVALID_FIELD`), then `budgets`
 *    (`INVALID_BUDGET` naming the field, also for an unknown one), then `options`
 *    (`INVALID_OPTION` naming the option, also for an unknown option name;
 *    `INVALID_BUCKET_SIZE`; `INVALID_COUNT_ENTRY`; `DUPLICATE_ID` in `previousCache`), then the
 *    first candidate without `cost_tokens` when there is no `options.countTokens`, and the first
 *    whose `cost_tokens + per_fragment_overhead` exceeds 2^32-1 (`INVALID_FIELD`, field
 *    `cost_tokens`). Count entries' relational rules (`requireCount ≤ capCount`, one entry per
 *    kind) are checked by the core, also as `INVALID_COUNT_ENTRY`.
 *    A failed call leaves no state behind: the next call works normally.
 * 2. **Count**: a candidate without `cost_tokens` is counted with
 *    `options.countTokens(content, options.model)`, once. Every strategy but `'packer'` needs
 *    every count to score, so those are counted first, in input order. `'packer'` counts lazily
 *    (step 4). A counter that throws or answers anything but an integer in `[0, 2^32-1]` fails
 *    the call with `TOKEN_COUNT_FAILED` (`field: 'content'` and the candidate's `index`).
 * 3. **Score** every candidate with the ACS formula (`calculateScore`, at one `now` for the whole
 *    call), then **rank** with `applyTieBreaking` (`options.diversityWindow`). A fragment's own
 *    `score` and `benefit` fields are ignored. `'packer'` ranks by benefit instead (below).
 * 4. **Select** with `options.slicer` over the ranked list, with each item's ACS score as its
 *    value and `cost_tokens + budgets.per_fragment_overhead` as its size, under the effective
 *    budget (see {@link Budgets}):
 *    - `'acs'` (default): the spec's greedy walk: take each candidate in rank order if it still
 *      fits, otherwise skip it and go on; never stop early.
 *    - `'packer'`: the memory engine's packer (greedy-knapsack-packer spec): the same walk, but
 *      stop after `maxConsecutiveSkips` (default 3) consecutive misses; `0` means no limit.
 *      Like the seed's packer, it counts a fragment only when it reaches it, so the fragments
 *      after the stop are never counted (`metrics.fragments_counted`). For that, it ranks before
 *      counting: by **benefit** (the ACS score without its cost term, as the seed's packer takes
 *      memories sorted by a size-independent score), with the tie-break rules except rule 5
 *      (size). `decisions[i].score` and `metrics.top3_scores` are then the benefit. The plan is
 *      the same whether counts come as `cost_tokens` or from `countTokens`.
 *    - `'greedy'`: by score per token (GreedySlice spec); ties keep rank order.
 *    - `'knapsack'`: 0/1 knapsack DP with `bucketSize` (default 100) and `maxTableBytes`.
 *    - `'count-knapsack'`: knapsack with per-kind `countEntries` and `scarcity`. A fragment's kind
 *      is its `kind`, else its `lod`, else `'default'`.
 *    Options that the chosen slicer does not use are reported in `warnings`, not silently dropped
 *    (also `model` without `countTokens`).
 * 5. **Edge cases** (spec: "Edge Cases"): no candidates → empty plan; an effective budget of 0
 *    (`tokens_max` 0, or reserves that leave nothing, with a warning) → empty plan and every
 *    decision's reason is `'no_budget'`. When the slicer selects nothing because every candidate
 *    (for `'packer'`: every candidate it reached) is larger than the effective budget: with
 *    `allow_overshoot` and a best benefit above 0.9, that one candidate is selected (reason
 *    `'overshoot'`, ties to the better rank) with a warning; otherwise the plan is empty with a
 *    warning.
 * 6. **KV policy**: `generateKVPolicy` over the selection, with each fragment's computed benefit
 *    and count, `options.now`, `maxKvSize` and `previousCache`. A fragment without
 *    `lastAccessTime` takes the one recorded for its id in `previousCache`, if any.
 * 7. **Metrics and log**: see {@link PlannerMetrics}; `options.logger` receives one
 *    {@link SelectionLogRecord} (never fragment text; ids hashed with `hashIds`). An exception
 *    thrown by the logger propagates to the caller.
 *
 * The result is deterministic given `options.now` (default `Date.now()`) and a deterministic
 * counter: everything except `metrics.planner_ms` is a pure function of the arguments. Fragment
 * text never enters the WebAssembly core, logs, warnings or error messages; only the counter sees it.
 *
 * @param candidates Fragments with unique ids, each with `cost_tokens` or `content` (see
 *   {@link TextFragmentFields}). Neither the array nor the fragments are mutated.
 * @param gaze The entities of interest.
 * @param budgets `tokens_max`, and optionally `output_reserve`, `overhead_tokens`,
 *   `per_fragment_overhead`, `safety_margin_percent`; see {@link Budgets}.
 * @param options See {@link PlannerOptions}.
 * @returns `fragments`: the caller's own objects, in rank order (the slicer's output order is not
 *   kept; `decisions[i].rank` gives each candidate's position in the ranking); `decisions`: one per
 *   candidate in input order.
 * @throws {CtxpackError} On invalid input (see step 1), `TOKEN_COUNT_FAILED` (step 2), and on
 *   errors of the slicer (`TABLE_TOO_LARGE`, `COUNT_REQUIREMENT_SHORTFALL`, …).
 */
export function selectFragments<T extends PlannerFragmentFields>(
  candidates: readonly T[],
  gaze: Gaze,
  budgets: Budgets,
  options?: PlannerOptions,
): SelectionResult<T> {
  const t0 = monotonicMs();

  // 1. Validate.
  const items = validateCandidates<T>(candidates);
  const gazeSet = readGaze(gaze);
  const budget = readBudgets(budgets);
  const s = validateOptions(options);
  const counts = new CallCounts(
    items.map((c) => c.given),
    items.map((c) => c.content),
    s.countTokens,
    s.model,
  );
  checkCounts(items, s, budget);
  const warnings = s.ignoredOptions.map((name) => `options.${name} is ignored by slicer '${s.slicer}'`);
  if (s.model !== undefined && s.countTokens === undefined) warnings.push('options.model is ignored without options.countTokens');
  if (budget.tokensMax > 0 && budget.effective === 0) {
    warnings.push(
      `the effective budget is 0 (tokens_max ${budget.tokensMax}, output_reserve ${budget.outputReserve}, ` +
        `overhead_tokens ${budget.overheadTokens}, safety_margin_percent ${budget.safetyMarginPercent}): nothing can be selected`,
    );
  }
  const lazy = s.slicer === 'packer';
  const t1 = monotonicMs();

  // 2. Count (all but the packer), 3. score.
  if (!lazy) for (const c of items) counts.get(c.index);
  const ctx: ScoringContext = { gaze: gazeSet, weights: s.weights, now: s.now };
  const scored = items.map((c): Scored<T> => {
    // The packer ranks by benefit: a cost of 0 makes the score the benefit exactly.
    const cost = lazy ? 0 : counts.get(c.index);
    const view = !lazy && c.given !== undefined ? c.raw : withCost(c.raw, ['entities', 'timestamp', 'citations'], cost);
    const { benefit, score } = scoreComponents(view, ctx, c.index);
    return { fragment: c.fragment, score, benefit, candidate: c };
  });
  const t2 = monotonicMs();

  // 3. Rank. The tie-break reads the size (rule 5): the count, or 0 for the packer, which ranks before counting.
  const ranked = applyTieBreaking(
    scored.map((r) => ({
      fragment: (!lazy && r.candidate.given !== undefined
        ? r.candidate.raw
        : withCost(r.candidate.raw, ['id', 'timestamp', 'citations', 'dependencies', 'source'], lazy ? 0 : counts.get(r.candidate.index))) as unknown as FragmentFields,
      score: r.score,
      r,
    })),
    { diversityWindow: s.diversityWindow },
  ).map((e) => e.r);
  const t3 = monotonicMs();

  // 4. Select.
  const n = ranked.length;
  const effective = budget.effective;
  const charge = (rank: number): number => chargeOf(ranked[rank]!.candidate.index, counts.get(ranked[rank]!.candidate.index), budget);
  const reasons: DecisionReason[] = new Array<DecisionReason>(n).fill('no_budget');
  let chosen: number[] = []; // rank positions
  if (n > 0 && effective > 0) {
    let result: ColumnarResult;
    if (lazy && counts.needsCounting) {
      result = packLazy(Float64Array.from(ranked, (r) => r.score), { targetTokens: effective, maxConsecutiveSkips: s.maxConsecutiveSkips }, charge);
    } else {
      const charges = new Uint32Array(n);
      for (let i = 0; i < n; i++) charges[i] = charge(i);
      const [slicer, request] = buildRequest(ranked, charges, effective, s);
      result = sliceColumnar(slicer, request);
    }
    checkResult(result, n);
    result.reasons.forEach((r, i) => (reasons[i] = r));
    chosen = Array.from(result.selected).sort((a, b) => a - b);
    for (const sf of result.shortfalls) {
      warnings.push(
        `count requirement for kind ${JSON.stringify(sf.kind)} not met: required ${sf.requiredCount}, satisfied ${sf.satisfiedCount}`,
      );
    }
    if (result.overBudget) {
      warnings.push(`selection exceeds the effective budget ${effective} by ${result.overrunTokens} tokens to satisfy count requirements`);
    }
    // The packer's misses before its first pick are exactly "every candidate it reached is too
    // large"; it reached a prefix of the ranking, and the overshoot may only pick from that.
    if (chosen.length === 0 && (lazy || ranked.every((_, i) => charge(i) > effective))) {
      const stop = lazy ? reasons.indexOf('skip_limit_reached') : -1;
      const reached = stop === -1 ? n : stop;
      chosen = handleOvershoot(ranked.slice(0, reached), (rank) => counts.get(ranked[rank]!.candidate.index), effective, lazy, s.allowOvershoot, reasons, warnings);
    }
  }
  const t4 = monotonicMs();

  // 5. KV policy and metrics.
  const selected = chosen.map((r) => ranked[r]!);
  const costOf = (r: Scored<T>): number => counts.get(r.candidate.index);
  const kvPolicy: KVPolicy = buildKVPolicy(
    selected.map((r) => ({
      id: r.candidate.id,
      cost: costOf(r),
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
    return {
      id: c.id,
      index: c.index,
      score: r.score,
      benefit: r.benefit,
      included: included.has(rank),
      reason: reasons[rank]!,
      rank,
      cost_tokens: counts.known(c.index) ?? null,
    };
  });
  const selectedIds = selected.map((r) => r.candidate.id);
  const requestId =
    s.requestId ??
    defaultRequestId(
      s.now,
      budget.tokensMax,
      items.map((c) => c.id),
      selectedIds,
    );
  const t5 = monotonicMs();
  const base = buildMetrics({
    requestId,
    plannerMs: t5 - t0,
    candidateCount: n,
    selected: selected.map((r) => ({
      id: r.candidate.id,
      cost: costOf(r),
      source: r.candidate.source,
      entities: r.candidate.entities,
      score: r.score,
      benefit: r.benefit,
    })),
    gaze: gazeSet,
    kvPolicy,
    previousCache: s.previousCache,
  });
  const budgetUsed = base.tokens_selected + budget.perFragmentOverhead * selected.length;
  const metrics = {
    ...base,
    fragments_counted: counts.counted,
    effective_budget: effective,
    budget_used: budgetUsed,
    prompt_tokens: budget.overheadTokens + budgetUsed,
  };

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

/** A minimal stand-in for a fragment: the `keys` the reader needs, and `cost_tokens` set to `cost`. */
function withCost(raw: Unchecked, keys: readonly string[], cost: number): Unchecked {
  const view: Record<string, unknown> = { cost_tokens: cost };
  for (const k of keys) view[k] = raw[k];
  return view;
}

/**
 * The checks of step 1 that need the options and the budgets: a candidate without `cost_tokens`
 * needs a counter, and no candidate's charge may exceed what the core counts in (u32).
 */
function checkCounts(items: readonly Candidate<PlannerFragmentFields>[], s: Settings, budget: CheckedBudgets): void {
  for (const c of items) {
    if (c.given === undefined) {
      if (s.countTokens === undefined) {
        throw new CtxpackError(
          'INVALID_FIELD',
          `candidates[${c.index}].cost_tokens is missing: pass options.countTokens (or estimateTokens) to count its content, or give cost_tokens`,
          { field: 'cost_tokens', index: c.index },
        );
      }
    } else {
      chargeOf(c.index, c.given, budget);
    }
  }
}

/** What a candidate takes of the effective budget: its count plus the per-fragment overhead. */
function chargeOf(index: number, cost: number, budget: CheckedBudgets): number {
  const charge = cost + budget.perFragmentOverhead;
  if (charge > MAX_COST_TOKENS) {
    throw new CtxpackError(
      'INVALID_FIELD',
      `candidates[${index}].cost_tokens (${cost}) plus budgets.per_fragment_overhead (${budget.perFragmentOverhead}) exceeds 4294967295`,
      { field: 'cost_tokens', index },
    );
  }
  return charge;
}

/**
 * Spec: "Budget Overshoot Policy". Called when every candidate in `ranked` (for the packer: the
 * ranks it reached, a prefix of the ranking) exceeds the effective budget. Returns the rank
 * positions to select and records reasons and warnings. Warnings name candidates by input index,
 * never by id or content.
 */
function handleOvershoot<T extends PlannerFragmentFields>(
  ranked: readonly Scored<T>[],
  costAt: (rank: number) => number,
  effective: number,
  packer: boolean,
  allowOvershoot: boolean,
  reasons: DecisionReason[],
  warnings: string[],
): number[] {
  let best = 0;
  ranked.forEach((r, i) => {
    if (r.benefit > ranked[best]!.benefit) best = i;
  });
  const b = ranked[best]!;
  const every = packer ? 'every candidate the packer reached' : 'every candidate';
  if (allowOvershoot && b.benefit > OVERSHOOT_MIN_BENEFIT) {
    reasons[best] = 'overshoot';
    warnings.push(
      `budget overshoot: ${every} exceeds the effective budget ${effective}; selected candidates[${b.candidate.index}] ` +
        `(cost_tokens ${costAt(best)}, benefit ${b.benefit}) because allow_overshoot is set and its benefit exceeds ${OVERSHOOT_MIN_BENEFIT}`,
    );
    return [best];
  }
  const why = allowOvershoot ? `the best benefit ${b.benefit} does not exceed ${OVERSHOOT_MIN_BENEFIT}` : 'allow_overshoot is not set';
  warnings.push(`${every} exceeds the effective budget ${effective}; returning an empty plan because ${why}`);
  return [];
}
