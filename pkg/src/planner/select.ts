/**
 * The ACS planner (spec: "Greedy Selection Algorithm", "Edge Cases & Error Handling",
 * "Budget Overshoot Policy", "Observability Implementation").
 *
 * The candidates are read once, into columns (typed arrays where the values are numbers), and
 * every later phase works on those columns and on permutations of candidate indexes: no object
 * per candidate is made until the decisions are.
 *
 * @module
 */

import { readBudgets, type CheckedBudgets } from '../validate/budgets.js';
import { packLazy, sliceColumnar, type ColumnarRequest, type ColumnarResult, type SlicerName } from '../core/bridge.js';
import { NO_STRINGS, validateCandidates, type Candidates } from '../validate/candidates.js';
import { buildUnits, checkUnits, sliceUnits, type DependencyMode, type GroupInput, type Units } from '../groups.js';
import { CtxpackError, describeValue } from '../errors.js';
import { MAX_COST_TOKENS, isRecord, readOptionalString, type Unchecked } from '../validate/fields.js';
import { hashId } from '../ranking/hash.js';
import { DEFAULT_MAX_KV_SIZE, buildKVPolicy, readCache, type CheckedCacheEntry, type KVInput } from '../kv/policy.js';
import { RequestIdHash, buildMetrics, defaultRequestId, monotonicMs } from './metrics.js';
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
} from '../validate/options.js';
import { EntityMatcher, peekGaze, readGaze, scoreColumns, type ScoringContext } from '../ranking/scoring.js';
import { countEntries } from '../slicers/functions.js';
import { acquireScratch, releaseScratch, type Scratch } from '../core/scratch.js';
import { identity } from '../ranking/sort.js';
import { DEFAULT_DIVERSITY_WINDOW, countUnresolved, rankColumns } from '../ranking/tiebreak.js';
import { CallCounts, type TokenCounter } from '../tokens/counter.js';
import type {
  Budgets,
  CountEntryOption,
  Decision,
  DecisionReason,
  Gaze,
  KVPolicy,
  PlannerFragmentFields,
  PlannerOptions,
  PlannerSlicer,
  SelectionLogRecord,
  SelectionResult,
} from '../types.js';

/** Slicers accepted by `options.slicer`. */
export const PLANNER_SLICERS: readonly PlannerSlicer[] = Object.freeze(['acs', 'greedy', 'knapsack', 'count-knapsack', 'packer', 'exact', 'exact-count']);
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

/** Validated options. */
interface Settings {
  readonly now: number;
  readonly weights: ScoringContext['weights'];
  readonly slicer: PlannerSlicer;
  readonly maxConsecutiveSkips: number;
  readonly bucketSize: number;
  /** Whether the caller set `bucketSize` (exact-count otherwise picks its own). */
  readonly bucketSizeGiven: boolean;
  readonly maxTableBytes: number | undefined;
  readonly countEntries: readonly CountEntryOption[] | undefined;
  readonly scarcity: 'degrade' | 'throw';
  readonly dependencies: DependencyMode;
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

/** A candidate's kind for the count-constrained knapsack: its `kind`, else its `lod`, else `'default'`. */
function kindOf(c: Candidates, index: number): string {
  // Validated by validateCandidates, and not kept there: only this slicer needs it.
  return readOptionalString(c.fragments[index]!, 'kind', index) ?? c.lods[index] ?? DEFAULT_KIND;
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
  ['bucketSize', ['knapsack', 'count-knapsack', 'exact-count']],
  ['maxTableBytes', ['knapsack', 'count-knapsack', 'exact', 'exact-count']],
  ['countEntries', ['count-knapsack', 'exact-count']],
  ['scarcity', ['count-knapsack', 'exact-count']],
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
  'dependencies',
  'allow_overshoot',
  'requestId',
  'logger',
  'hashIds',
  'countTokens',
  'model',
];

function validateOptions(options: unknown, defaultNow: number): Settings {
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
    now: readNow(o, defaultNow),
    weights: readWeights(o),
    slicer,
    maxConsecutiveSkips: readCount(o, 'maxConsecutiveSkips', DEFAULT_MAX_CONSECUTIVE_SKIPS, MAX_COST_TOKENS),
    bucketSize: readBucketSize(o),
    bucketSizeGiven: o['bucketSize'] !== undefined,
    maxTableBytes,
    countEntries: o['countEntries'] === undefined ? undefined : countEntries(o['countEntries'], 'countEntries'),
    scarcity: readEnum(o, 'scarcity', ['degrade', 'throw'] as const, 'degrade'),
    dependencies: readEnum(o, 'dependencies', ['ignore', 'require'] as const, 'ignore'),
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

/**
 * The slicer's request over the ranking: `scores[i]` and `charges[i]` are those of rank position
 * `i` (`charges`: its count plus the per-fragment overhead); `kindAt(i)` its kind.
 */
function buildRequest(
  scores: Float64Array,
  charges: Uint32Array,
  kindAt: (rank: number) => string,
  tokensMax: number,
  s: Settings,
): [SlicerName, ColumnarRequest] {
  const n = scores.length;
  const tokens = charges;
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
    case 'exact':
      return ['exact', s.maxTableBytes === undefined ? base : { ...base, maxTableBytes: s.maxTableBytes }];
    case 'count-knapsack':
    case 'exact-count': {
      const [kinds, kindNames] = kindColumns(n, kindAt);
      // exact-count chooses its own bucket (token precision when it fits) unless one is given.
      const table = s.slicer === 'exact-count' && !s.bucketSizeGiven ? withoutBucket(withTable(base, s)) : withTable(base, s);
      return [
        s.slicer,
        {
          ...table,
          kinds,
          kindNames,
          entries: (s.countEntries ?? []).map((e) => ({ ...e })),
          scarcity: s.scarcity,
        },
      ];
    }
  }
}

function withoutBucket(req: ColumnarRequest): ColumnarRequest {
  const { bucketSize: _default, ...rest } = req;
  return rest;
}

function withTable(base: ColumnarRequest, s: Settings): ColumnarRequest {
  return s.maxTableBytes === undefined
    ? { ...base, bucketSize: s.bucketSize }
    : { ...base, bucketSize: s.bucketSize, maxTableBytes: s.maxTableBytes };
}

function checkResult(result: PlannerSlice, n: number, scratch: Scratch): void {
  let ok =
    result !== null &&
    typeof result === 'object' &&
    Array.isArray(result.reasons) &&
    result.reasons.length === n &&
    result.selected instanceof Uint32Array;
  if (ok) {
    const seen = scratch.u8(n, true);
    for (const i of result.selected) {
      if (i >= n || seen[i] === 1) {
        ok = false;
        break;
      }
      seen[i] = 1;
    }
  }
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
 *    `dependencies`, `group` → `INVALID_FIELD`), then `gaze` (`INVALID_FIELD`), then `budgets`
 *    (`INVALID_BUDGET` naming the field, also for an unknown one), then `options`
 *    (`INVALID_OPTION` naming the option, also for an unknown option name;
 *    `INVALID_BUCKET_SIZE`; `INVALID_COUNT_ENTRY`; `DUPLICATE_ID` in `previousCache`), then the
 *    first candidate without `cost_tokens` when there is no `options.countTokens`, and the first
 *    whose `cost_tokens + per_fragment_overhead` exceeds 2^32-1 (`INVALID_FIELD`, field
 *    `cost_tokens`), then what the strategy refuses of groups and dependencies
 *    (step 4; `INVALID_OPTION` naming the candidate). Count entries' relational rules (`requireCount ≤ capCount`, one entry per
 *    kind) are checked by the core, also as `INVALID_COUNT_ENTRY`.
 *    A failed call leaves no state behind: the next call works normally.
 * 2. **Count**: a candidate without `cost_tokens` is counted with
 *    `options.countTokens(content, options.model)`, once. Every strategy but `'packer'` needs
 *    every count to score, so those are counted first, in input order. `'packer'` counts lazily
 *    (step 4), except when groups or required dependencies apply: it then needs every count to
 *    size the groups, and counts them all first too. A counter that throws or answers anything but an integer in `[0, 2^32-1]` fails
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
 *    - `'exact'`: the knapsack optimum over real token counts (ExactKnapsackSlice; `maxTableBytes` for its fallback).
 *    - `'exact-count'`: per-kind `countEntries` solved to optimality within the budget (ExactCountConstrainedSlice).
 *    - `'count-knapsack'`: knapsack with per-kind `countEntries` and `scarcity`. A fragment's kind
 *      is its `kind`, else its `lod`, else `'default'`.
 *    Options that the chosen slicer does not use are reported in `warnings`, not silently dropped
 *    (also `model` without `countTokens`).
 *
 *    **Groups and dependencies.** Candidates that share a `group` are selected all together or not
 *    at all, by every strategy: they become one unit whose size is the sum of their charges, placed
 *    in the ranking at its best-ranked member (so `'acs'` and `'packer'` reach it there), with the
 *    sum of the members' scores as its score (greedy orders units by that sum per token; the
 *    knapsack strategies add the members' scaled values exactly, so `'knapsack'`, `'exact'` and
 *    `'exact-count'` stay optimal over the grouped problem). With `options.dependencies:
 *    'require'`, a candidate goes in only with every candidate it depends on (transitively;
 *    candidates that depend on each other form one unit; ids naming no candidate are ignored):
 *    `'acs'`, `'packer'` and `'greedy'` take a unit together with the dependencies it still lacks
 *    when all of them fit, the knapsack strategies select, drop what lacks a dependency and select
 *    again with the budget left (a warning says when the first selection had to be repaired: the
 *    plan then honours every dependency but is not claimed optimal). The count-constrained
 *    strategies count fragments, not units: they refuse a group of two or more that holds a kind
 *    with a count entry, and refuse required dependencies between candidates (`INVALID_OPTION`).
 *    Decisions say `'group_excluded'` (with `group_reason`, the group's own reason) for a member
 *    that would fit alone but whose group was left out, and `'dependency_excluded'` when a
 *    dependency is not selected. The selected fragments are still returned in rank order.
 * 5. **Edge cases** (spec: "Edge Cases"): no candidates → empty plan; an effective budget of 0
 *    (`tokens_max` 0, or reserves that leave nothing, with a warning) → empty plan and every
 *    decision's reason is `'no_budget'`. When the slicer selects nothing because every candidate
 *    (for `'packer'`: every candidate it reached) is larger than the effective budget: with
 *    `allow_overshoot` and a best benefit above 0.9, that one candidate is selected (reason
 *    `'overshoot'`, ties to the better rank) with a warning; otherwise the plan is empty with a
 *    warning. With groups or required dependencies, "every candidate" means every unit, and the
 *    overshoot picks only among candidates that go in alone (in no group of two or more, needing
 *    no other candidate): it admits a single fragment, never a partial group.
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
  // The call's temporary typed arrays come from a pool (see core/scratch.ts), given back on the way out.
  const scratch = acquireScratch();
  try {
    return plan(candidates, gaze, budgets, options, scratch);
  } finally {
    releaseScratch(scratch);
  }
}

function plan<T extends PlannerFragmentFields>(
  candidates: readonly T[],
  gaze: Gaze,
  budgets: Budgets,
  options: PlannerOptions | undefined,
  scratch: Scratch,
): SelectionResult<T> {
  const t0 = monotonicMs();
  const defaultNow = Date.now();

  // 1. Validate.
  const gazeAhead = peekGaze(gaze);
  const idHash = hashAhead(options, budgets, defaultNow);
  // A token counter is a callback that could change the array; the plan keeps the validated objects.
  const copy = isRecord(options) && options['countTokens'] !== undefined;
  const c = validateCandidates(candidates, gazeAhead === undefined ? undefined : new EntityMatcher(gazeAhead), idHash, copy, scratch);
  const n = c.ids.length;
  const gazeSet = gazeAhead ?? readGaze(gaze);
  const budget = readBudgets(budgets);
  const s = validateOptions(options, defaultNow);
  const counts = new CallCounts(c.given, c.contents, s.countTokens, s.model);
  checkCounts(c, s, budget);
  const warnings = s.ignoredOptions.map((name) => `options.${name} is ignored by slicer '${s.slicer}'`);
  if (s.model !== undefined && s.countTokens === undefined) warnings.push('options.model is ignored without options.countTokens');
  if (budget.tokensMax > 0 && budget.effective === 0) {
    warnings.push(
      `the effective budget is 0 (tokens_max ${budget.tokensMax}, output_reserve ${budget.outputReserve}, ` +
        `overhead_tokens ${budget.overheadTokens}, safety_margin_percent ${budget.safetyMarginPercent}): nothing can be selected`,
    );
  }
  // Groups and required dependencies: checked here, before anything is counted.
  const grouping = checkGrouping(c, s);
  // The packer ranks by benefit, and counts lazily unless groups need every count first.
  const packer = s.slicer === 'packer';
  const lazy = packer && !grouping;
  const t1 = monotonicMs();

  // 2. Count (all but the packer), in input order, 3. score.
  if (!lazy && counts.needsCounting) for (let i = 0; i < n; i++) counts.get(i);
  // The packer ranks by benefit: a cost of 0 makes the score the benefit exactly.
  const rankCosts = packer ? scratch.u32(n, true) : counts.costs;
  const ctx: ScoringContext = { gaze: gazeSet, weights: s.weights, now: s.now };
  const benefits = scratch.f64(n);
  const scores = scratch.f64(n);
  scoreColumns(c.overlaps, c.timestamps, c.citations, packer ? undefined : rankCosts, ctx, benefits, scores);
  const t2 = monotonicMs();

  // 3. Rank. The tie-break reads the size (rule 5): the count, or 0 for the packer, which ranks before counting.
  const unresolved = scratch.u32(n, true);
  const dependencies = c.dependencies;
  if (dependencies !== undefined) {
    for (let i = 0; i < n; i++) if (dependencies[i] !== undefined) unresolved[i] = countUnresolved(dependencies[i]!, c.idIndex);
  }
  const order = rankColumns(
    { scores, freshness: c.timestamps, citations: c.citations, unresolved, sources: c.sources, costs: rankCosts, ids: c.ids },
    s.diversityWindow,
    scratch,
  ); // rank → candidate index
  const t3 = monotonicMs();

  // 4. Select. The slicer sees the ranking: item i is rank position i.
  const effective = budget.effective;
  const charge = (rank: number): number => chargeOf(order[rank]!, counts.get(order[rank]!), budget);
  let reasons: DecisionReason[] | undefined; // by rank; all 'no_budget' when the slicer does not run
  let groupReasons: (DecisionReason | undefined)[] | undefined; // by rank, with groups
  let chosen: Uint32Array = new Uint32Array(0); // rank positions, ascending
  if (n > 0 && effective > 0) {
    const rankScores = scratch.f64(n);
    let result: PlannerSlice;
    let tooLarge: (rank: number) => boolean = () => true; // the packer's misses before a pick are too large
    let eligible: (rank: number) => boolean = () => true; // what the overshoot may pick
    if (lazy && counts.needsCounting) {
      for (let r = 0; r < n; r++) rankScores[r] = scores[order[r]!]!;
      result = packLazy(rankScores, { targetTokens: effective, maxConsecutiveSkips: s.maxConsecutiveSkips }, charge);
    } else {
      const charges = scratch.u32(n);
      if (budget.perFragmentOverhead === 0) {
        const costs = counts.costs; // every count is at most 2^32 - 1: nothing to check
        for (let r = 0; r < n; r++) {
          const i = order[r]!;
          rankScores[r] = scores[i]!;
          charges[r] = costs[i]!;
        }
      } else {
        for (let r = 0; r < n; r++) {
          rankScores[r] = scores[order[r]!]!;
          charges[r] = charge(r);
        }
      }
      const [slicer, request] = buildRequest(rankScores, charges, (rank) => kindOf(c, order[rank]!), effective, s);
      if (grouping) {
        const g = sliceGrouped(c, s, order, slicer, request);
        result = g;
        groupReasons = g.groupReasons;
        if (g.repaired === true) {
          warnings.push(
            `options.dependencies 'require': the ${s.slicer} selection left out dependencies of what it chose, so it was repaired in rounds; ` +
              'the plan honours every dependency but is not claimed optimal',
          );
        }
        const { units } = g;
        tooLarge = (rank) => units.tokens[units.unitOf[rank]!]! > effective;
        eligible = (rank) => units.members[units.unitOf[rank]!]!.length === 1 && units.needs[units.unitOf[rank]!]!.length === 0;
      } else {
        result = sliceColumnar(slicer, request);
        if (!packer) tooLarge = (rank) => charges[rank]! > effective;
      }
    }
    checkResult(result, n, scratch);
    reasons = result.reasons;
    chosen = ascending(result.selected, n, scratch);
    for (const sf of result.shortfalls) {
      warnings.push(
        `count requirement for kind ${JSON.stringify(sf.kind)} not met: required ${sf.requiredCount}, satisfied ${sf.satisfiedCount}`,
      );
    }
    if (result.overBudget) {
      warnings.push(`selection exceeds the effective budget ${effective} by ${result.overrunTokens} tokens to satisfy count requirements`);
    }
    // The overshoot considers what the slicer reached (the packer: what it reached before its
    // skip limit stopped it, a prefix of the ranking without groups; the others: everything), and
    // only when all of that is too large.
    if (chosen.length === 0) {
      const r0 = reasons;
      const gr = groupReasons;
      const reached = (rank: number): boolean => r0[rank] !== 'skip_limit_reached' && gr?.[rank] !== 'skip_limit_reached';
      let all = true;
      for (let r = 0; r < n && all; r++) if (reached(r) && !tooLarge(r)) all = false;
      if (all) {
        const best = handleOvershoot(
          order,
          (rank) => reached(rank) && eligible(rank),
          benefits,
          (rank) => counts.get(order[rank]!),
          effective,
          packer,
          grouping,
          s.allowOvershoot,
          reasons,
          warnings,
        );
        if (best !== undefined) {
          chosen = Uint32Array.of(best);
          if (groupReasons !== undefined) groupReasons[best] = undefined;
        }
      }
    }
  }
  const t4 = monotonicMs();

  // 5. KV policy and metrics.
  const k = chosen.length;
  const selectedIds = new Array<string>(k);
  const selectedCosts = new Array<number>(k);
  const kvInputs = new Array<KVInput>(k);
  for (let j = 0; j < k; j++) {
    const i = order[chosen[j]!]!;
    selectedIds[j] = c.ids[i]!;
    selectedCosts[j] = counts.get(i);
    const lastAccess = c.lastAccess[i]!;
    kvInputs[j] = {
      id: c.ids[i]!,
      cost: selectedCosts[j]!,
      lod: c.lods[i],
      benefit: benefits[i]!,
      lastAccessMs: Number.isNaN(lastAccess) ? undefined : lastAccess,
      dependencies: c.dependencies?.[i] ?? NO_STRINGS,
    };
  }
  const kvPolicy: KVPolicy = buildKVPolicy(kvInputs, s.previousCache, s.now, s.maxKvSize, true);
  const decisions = decisionsOf(c.ids, order, chosen, reasons, groupReasons, scores, benefits, counts, scratch);
  let requestId = s.requestId;
  if (requestId === undefined) {
    const hashed = idHash !== undefined && idHash.now === s.now && idHash.tokensMax === budget.tokensMax && idHash.count === n;
    requestId = hashed ? idHash.finish(selectedIds) : defaultRequestId(s.now, budget.tokensMax, c.ids, selectedIds);
  }
  const t5 = monotonicMs();
  const selectedScores = new Array<number>(k);
  const selectedBenefits = new Array<number>(k);
  const selectedSources = new Array<string | undefined>(k);
  const selectedEntities = new Array<readonly string[]>(k);
  const selectedMasks = c.entityMasks === undefined ? undefined : new Array<number>(k);
  const fragments = new Array<T>(k);
  for (let j = 0; j < k; j++) {
    const i = order[chosen[j]!]!;
    selectedScores[j] = scores[i]!;
    selectedBenefits[j] = benefits[i]!;
    selectedSources[j] = c.sources[i];
    if (c.entities !== undefined) selectedEntities[j] = c.entities[i]!;
    if (selectedMasks !== undefined) selectedMasks[j] = c.entityMasks![i]!;
    fragments[j] = c.fragments[i] as unknown as T;
  }
  const base = buildMetrics({
    requestId,
    plannerMs: t5 - t0,
    candidateCount: n,
    ids: selectedIds,
    costs: selectedCosts,
    sources: selectedSources,
    entities: selectedEntities,
    entityMasks: selectedMasks,
    scores: selectedScores,
    benefits: selectedBenefits,
    gaze: gazeSet,
    kvPolicy,
    previousCache: s.previousCache,
  });
  const budgetUsed = base.tokens_selected + budget.perFragmentOverhead * k;
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
      k_selected: k,
      total_cost_tokens: metrics.total_cost_tokens,
      top3_ids: metrics.top3_fragment_ids.map(hash),
      top3_scores: [...metrics.top3_scores],
      planner_ms: metrics.planner_ms,
      phase_ms: { validate: t1 - t0, score: t2 - t1, rank: t3 - t2, slice: t4 - t3, finish: t5 - t4 },
    });
  }

  return { fragments, metrics, kvPolicy, decisions, warnings };
}

/**
 * One decision per candidate, in input order. `order` is the ranking (rank → candidate), `chosen`
 * the selected rank positions, `reasons` the slicer's reason per rank position (`undefined`: all
 * `'no_budget'`).
 */
function decisionsOf(
  ids: readonly string[],
  order: Uint32Array,
  chosen: Uint32Array,
  reasons: readonly DecisionReason[] | undefined,
  groupReasons: readonly (DecisionReason | undefined)[] | undefined,
  scores: Float64Array,
  benefits: Float64Array,
  counts: CallCounts,
  scratch: Scratch,
): Decision[] {
  const n = ids.length;
  // Each candidate's rank, reason and inclusion, gathered in one pass over the ranking, so that the
  // loop that makes the decisions reads everything in order.
  const rankOf = scratch.u32(n);
  const reasonOf = scratch.u8(n, true); // positions in reasonNames: a handful of distinct reasons
  const reasonNames: DecisionReason[] = ['no_budget'];
  for (let r = 0, code = 0; r < n; r++) {
    const i = order[r]!;
    rankOf[i] = r;
    if (reasons === undefined) continue;
    if (reasons[r] !== reasonNames[code]) {
      code = reasonNames.indexOf(reasons[r]!);
      if (code < 0) code = reasonNames.push(reasons[r]!) - 1;
    }
    reasonOf[i] = code;
  }
  const included = scratch.u8(n, true);
  for (const rank of chosen) included[order[rank]!] = 1;
  const decisions = new Array<Decision>(n);
  for (let i = 0; i < n; i++) {
    decisions[i] = {
      id: ids[i]!,
      index: i,
      score: scores[i]!,
      benefit: benefits[i]!,
      included: included[i] === 1,
      reason: reasonNames[reasonOf[i]!]!,
      rank: rankOf[i]!,
      cost_tokens: counts.known(i) ?? null,
    };
    const why = groupReasons?.[rankOf[i]!];
    if (why !== undefined) decisions[i]!.group_reason = why;
  }
  return decisions;
}

/** The distinct positions below `n` in `positions`, ascending: marks, then one pass. */
function ascending(positions: Uint32Array, n: number, scratch: Scratch): Uint32Array {
  const marked = scratch.u8(n, true);
  for (const p of positions) marked[p] = 1;
  const out = new Uint32Array(positions.length);
  for (let p = 0, k = 0; p < n; p++) if (marked[p] === 1) out[k++] = p;
  return out;
}

/**
 * The default request id hashes `now`, `tokens_max`, then every candidate id (see
 * `defaultRequestId`). To hash the ids during the validation pass, which reads them anyway, the
 * first two are read ahead here, without checks and without throwing: when the options or the
 * budgets are invalid the call fails anyway, and when the validated values differ (they cannot,
 * short of getters) the planner hashes the ids again.
 */
function hashAhead(options: unknown, budgets: unknown, defaultNow: number): RequestIdHash | undefined {
  if (options !== undefined && !isRecord(options)) return undefined;
  if (options?.['requestId'] !== undefined || !isRecord(budgets)) return undefined;
  const now = options?.['now'] ?? defaultNow;
  const tokensMax = budgets['tokens_max'];
  if (typeof now !== 'number' || !Number.isFinite(now) || typeof tokensMax !== 'number' || !Number.isSafeInteger(tokensMax)) {
    return undefined;
  }
  return new RequestIdHash(now, tokensMax);
}

/**
 * The checks of step 1 that need the options and the budgets: a candidate without `cost_tokens`
 * needs a counter, and no candidate's charge may exceed what the core counts in (u32).
 */
function checkCounts(c: Candidates, s: Settings, budget: CheckedBudgets): void {
  const { given, contents } = c;
  // Without contents to count and without overhead, no check can fail.
  if (contents === undefined && budget.perFragmentOverhead === 0) return;
  for (let i = 0; i < given.length; i++) {
    if (contents !== undefined && contents[i] !== undefined) {
      if (s.countTokens === undefined) {
        throw new CtxpackError(
          'INVALID_FIELD',
          `candidates[${i}].cost_tokens is missing: pass options.countTokens (or estimateTokens) to count its content, or give cost_tokens`,
          { field: 'cost_tokens', index: i },
        );
      }
    } else {
      chargeOf(i, given[i]!, budget);
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
 * Spec: "Budget Overshoot Policy". Called when every candidate the slicer reached (the packer:
 * those before its skip limit stopped it; else all) exceeds the effective budget. `candidate(rank)`
 * says which rank positions the overshoot may pick: those reached, and with groups or required
 * dependencies only a fragment that goes in alone (in no group of two or more, needing no other
 * candidate), since the policy admits a single candidate. Returns the rank position to select, if
 * any, and records reasons and warnings. Warnings name candidates by input index, never by id or
 * content.
 */
function handleOvershoot(
  order: Uint32Array,
  candidate: (rank: number) => boolean,
  benefits: Float64Array,
  costAt: (rank: number) => number,
  effective: number,
  packer: boolean,
  grouping: boolean,
  allowOvershoot: boolean,
  reasons: DecisionReason[],
  warnings: string[],
): number | undefined {
  let best = -1; // the first of the highest benefits
  for (let r = 0; r < order.length; r++) {
    if (candidate(r) && (best === -1 || benefits[order[r]!]! > benefits[order[best]!]!)) best = r;
  }
  const every = packer ? 'every candidate the packer reached' : 'every candidate';
  if (best === -1) {
    warnings.push(`${every} exceeds the effective budget ${effective}; returning an empty plan because none of them goes in alone (groups or dependencies)`);
    return undefined;
  }
  const index = order[best]!;
  const benefit = benefits[index]!;
  const alone = grouping ? ' among those that go in alone' : '';
  if (allowOvershoot && benefit > OVERSHOOT_MIN_BENEFIT) {
    reasons[best] = 'overshoot';
    warnings.push(
      `budget overshoot: ${every} exceeds the effective budget ${effective}; selected candidates[${index}] ` +
        `(cost_tokens ${costAt(best)}, benefit ${benefit}) because allow_overshoot is set and its benefit exceeds ${OVERSHOOT_MIN_BENEFIT}`,
    );
    return best;
  }
  const why = allowOvershoot ? `the best benefit${alone} ${benefit} does not exceed ${OVERSHOOT_MIN_BENEFIT}` : 'allow_overshoot is not set';
  warnings.push(`${every} exceeds the effective budget ${effective}; returning an empty plan because ${why}`);
  return undefined;
}

/** What a slicer answered the planner: the core's result, or the grouped one (reasons may then name groups). */
interface PlannerSlice {
  selected: Uint32Array;
  reasons: DecisionReason[];
  shortfalls: ColumnarResult['shortfalls'];
  overBudget: boolean;
  overrunTokens: number;
}

/** The core's name of a planner strategy. */
function coreSlicer(slicer: PlannerSlicer): SlicerName {
  return slicer === 'acs' ? 'packer' : slicer;
}

/** Kind ids by first appearance (`kindAt(i)` for `i < n`), and the kind names they point into. */
function kindColumns(n: number, kindAt: (i: number) => string): [Uint32Array, string[]] {
  const kindNames: string[] = [];
  const kindIndex = new Map<string, number>();
  const kinds = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const kind = kindAt(i);
    let k = kindIndex.get(kind);
    if (k === undefined) {
      k = kindNames.length;
      kindNames.push(kind);
      kindIndex.set(kind, k);
    }
    kinds[i] = k;
  }
  return [kinds, kindNames];
}

/** The candidates in `order` (position → candidate index) as groups.ts takes them; errors name `candidates[index]`. */
function groupInputOf(
  c: Candidates,
  s: Settings,
  order: Uint32Array,
  tokens: Uint32Array,
  scores: Float64Array,
  kinds: Uint32Array,
  kindNames: string[],
): GroupInput {
  const n = order.length;
  const ids = new Array<string>(n);
  const groups = new Array<string | undefined>(n);
  const dependencies = new Array<readonly string[] | undefined>(n);
  const deps = s.dependencies === 'require' ? c.dependencies : undefined;
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    ids[p] = c.ids[i]!;
    groups[p] = c.groups?.[i];
    dependencies[p] = deps?.[i];
  }
  return { ids, tokens, scores, kinds, kindNames, groups, dependencies, noun: 'candidates', origin: order };
}

/**
 * Whether groups or required dependencies change this call: a group of two or more candidates,
 * or, with `dependencies: 'require'`, a candidate that depends on another. Then checks, before
 * anything is counted, what the strategy refuses of them (see groups.ts: the count-constrained
 * strategies refuse required dependencies, and groups holding a kind with a count entry).
 */
function checkGrouping(c: Candidates, s: Settings): boolean {
  if (c.groups === undefined && (s.dependencies === 'ignore' || c.dependencies === undefined)) return false;
  const n = c.ids.length;
  const counted = s.slicer === 'count-knapsack' || s.slicer === 'exact-count';
  const [kinds, kindNames] = counted ? kindColumns(n, (i) => kindOf(c, i)) : [new Uint32Array(n), [DEFAULT_KIND]];
  const input = groupInputOf(c, s, identity(n), new Uint32Array(n), new Float64Array(n), kinds, kindNames);
  const units = buildUnits(input, s.dependencies);
  const applies = units.grouped || (s.dependencies === 'require' && units.hasEdges);
  if (applies) checkUnits(input, units, coreSlicer(s.slicer), s.countEntries, s.dependencies);
  return applies;
}

/** The slice with groups (and required dependencies): groups.ts over the ranking. */
function sliceGrouped(
  c: Candidates,
  s: Settings,
  order: Uint32Array,
  slicer: SlicerName,
  request: ColumnarRequest,
): PlannerSlice & { groupReasons: (DecisionReason | undefined)[]; units: Units; repaired: boolean | undefined } {
  const { tokens, scores, kinds, kindNames, targetTokens, maxTokens, ...core } = request;
  const n = tokens.length;
  const input = groupInputOf(c, s, order, tokens, scores, kinds ?? new Uint32Array(n), kindNames ?? [DEFAULT_KIND]);
  const units = buildUnits(input, s.dependencies);
  const g = sliceUnits(input, units, slicer, maxTokens === undefined ? { targetTokens } : { targetTokens, maxTokens }, core, s.dependencies);
  return {
    selected: Uint32Array.from(g.selected),
    reasons: g.reasons,
    groupReasons: g.groupReasons,
    shortfalls: g.shortfalls,
    overBudget: g.overBudget,
    overrunTokens: g.overrunTokens,
    units,
    repaired: g.repaired,
  };
}
