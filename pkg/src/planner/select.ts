/**
 * The ACS planner (spec: "Greedy Selection Algorithm", "Edge Cases & Error Handling",
 * "Budget Overshoot Policy", "Observability Implementation"): `selectFragments` as a short list of
 * named steps, each in its own module of this folder.
 *
 * The candidates are read once, into columns (typed arrays where the values are numbers), and
 * every later phase works on those columns and on permutations of candidate indexes: no object
 * per candidate is made until the decisions are.
 *
 * @module
 */

import { readingInput } from '../errors.js';
import { acquireScratch, releaseScratch, type Scratch } from '../core/scratch.js';
import { scoreColumns, type ScoringContext } from '../ranking/scoring.js';
import { countUnresolved, rankColumns } from '../ranking/tiebreak.js';
import type { Budgets, Gaze, PlannerFragmentFields, PlannerOptions, SelectionResult } from '../types.js';
import { readCall, type Call } from './call.js';
import { finish } from './finish.js';
import { monotonicMs } from '../util/time.js';
import { slice } from './slice.js';
import { hasPins, selectWithPins } from './pins.js';
import { place, readOrder } from './placement.js';
import { queryRelevance, readQuery } from '../ranking/relevance.js';


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
 *    (step 4; `INVALID_OPTION` naming the candidate). Count entries are checked by the core, as
 *    the slicers' are: their shape when the options are read, their relational rules
 *    (`requireCount ≤ capCount`, one entry per kind) when sliced; all `INVALID_COUNT_ENTRY`.
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
 *    - `'ranked'` (default): the spec's greedy walk: take each candidate in rank order if it still
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
 *    in the ranking at its best-ranked member (so `'ranked'` and `'packer'` reach it there), with the
 *    sum of the members' scores as its score (greedy orders units by that sum per token; the
 *    knapsack strategies add the members' scaled values exactly, so `'knapsack'`, `'exact'` and
 *    `'exact-count'` stay optimal over the grouped problem). With `options.dependencies:
 *    'require'`, a candidate goes in only with every candidate it depends on (transitively;
 *    candidates that depend on each other form one unit; ids naming no candidate are ignored):
 *    `'ranked'`, `'packer'` and `'greedy'` take a unit together with the dependencies it still lacks
 *    when all of them fit, the knapsack strategies select, drop what lacks a dependency and select
 *    again with the budget left (a warning says when the first selection had to be repaired: the
 *    plan then honours every dependency but is not claimed optimal). The count-constrained
 *    strategies count fragments, not units: they refuse a group of two or more that holds a kind
 *    with a count entry, and refuse required dependencies between candidates (`INVALID_OPTION`).
 *    Decisions say `'group_excluded'` (with `group_reason`, the group's own reason) for a member
 *    that would fit alone but whose group was left out, and `'dependency_excluded'` when a
 *    dependency is not selected. The selected fragments are still returned in rank order.
 *
 *    **Variants.** A candidate's `variants` are shorter versions of it (a summary, a stub): at most
 *    one version of each candidate goes in, or none (docs/variants.md). A version's value is the
 *    candidate's score × its `benefit_scale` (default `sqrt(its cost / the full cost)`), its size its
 *    count plus the per-fragment overhead. `'ranked'`, `'packer'` and `'greedy'` take each candidate's
 *    best version that still fits when they reach it (greedy orders by the full version's
 *    density); `'knapsack'` and `'exact'` solve the multiple-choice knapsack (bucketed; exact
 *    within its guards); the count-constrained strategies refuse variants (`INVALID_OPTION`).
 *    Groups and dependencies hold whatever version goes in; `'packer'` then counts every
 *    candidate first. Decisions say which version went in (`variant`, `variant_id`) and why each
 *    did or did not (`versions`); the metrics, the KV policy and `metrics.lod_mix` take the
 *    version that went in.
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
 * text never enters logs, warnings or error messages; the counter sees it, and with
 * `options.query` the WebAssembly core scores it for that call (nothing keeps it).
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
  // Hooks: `options.order` (placement.ts), `options.query` (ranking/relevance.ts) and `pinned`
  // candidates (pins.ts) around one pass.
  // The caller's values are read (readingInput) here and in readCall; the logger's own exception propagates as it is.
  const [order, rest, query, pinned] = readingInput(() => {
    const [order, withoutOrder] = readOrder(options);
    const [query, rest] = readQuery(withoutOrder);
    return [order, rest, query, hasPins(candidates)] as const;
  }, candidates, gaze, budgets, options);
  const once = <U extends PlannerFragmentFields>(c: readonly U[], g: Gaze, b: Budgets, o: PlannerOptions | undefined): SelectionResult<U> =>
    selectOnce(c, g, b, o, query);
  const result = pinned ? selectWithPins(candidates, gaze, budgets, rest, once) : once(candidates, gaze, budgets, rest);
  return place(result, candidates, order);
}

/** One planner pass: steps 1 to 7 below. */
function selectOnce<T extends PlannerFragmentFields>(
  candidates: readonly T[],
  gaze: Gaze,
  budgets: Budgets,
  options: PlannerOptions | undefined,
  query: string | undefined,
): SelectionResult<T> {
  // The call's temporary typed arrays come from a pool (see core/scratch.ts), given back on the way out.
  const scratch = acquireScratch();
  try {
    return plan(candidates, gaze, budgets, options, scratch, query);
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
  query: string | undefined,
): SelectionResult<T> {
  const t0 = monotonicMs();
  const call = readingInput(() => readCall(candidates, gaze, budgets, options, scratch), candidates, gaze, budgets, options); // 1. validate
  if (query !== undefined) {
    // options.query: the entity term becomes max(entity overlap, BM25 relevance of the content).
    const relevance = queryRelevance(candidates, query);
    for (let i = 0; i < relevance.length; i++) call.c.overlaps[i] = Math.max(call.c.overlaps[i]!, relevance[i]!);
  }
  // The phases are timed only for the logger's record (the clock costs a tenth of a µs per read).
  const timed = call.s.logger !== undefined;
  const t1 = timed ? monotonicMs() : t0;
  const { scores, benefits } = countAndScore(call, scratch); // 2. count, 3. score
  const t2 = timed ? monotonicMs() : t0;
  const order = rank(call, scores, scratch); // 3. rank
  const t3 = timed ? monotonicMs() : t0;
  const sliced = slice(call, order, scores, benefits, scratch); // 4. select, 5. edge cases
  const t4 = timed ? monotonicMs() : t0;
  return finish<T>(call, order, scores, benefits, sliced, [t0, t1, t2, t3, t4], scratch); // 6. KV policy, 7. metrics and log
}

/** Steps 2 and 3: counts (all but the lazy packer's, in input order), then the ACS score of every candidate. */
function countAndScore(call: Call, scratch: Scratch): { scores: Float64Array; benefits: Float64Array } {
  const { c, s, counts } = call;
  const n = c.ids.length;
  if (!call.lazy && counts.needsCounting) for (let i = 0; i < n; i++) counts.get(i);
  const ctx: ScoringContext = { gaze: call.gaze, weights: s.weights, now: s.now };
  const benefits = scratch.f64(n);
  const scores = scratch.f64(n);
  // The packer ranks by benefit: without a cost the score is the benefit exactly.
  scoreColumns(c.overlaps, c.timestamps, c.citations, call.costScored ? counts.costs : undefined, ctx, benefits, scores);
  return { scores, benefits };
}

/** Step 3's ranking (rank → candidate index). The tie-break reads the size (rule 5): the count, or 0 for the packer, which ranks before counting. */
function rank(call: Call, scores: Float64Array, scratch: Scratch): Uint32Array {
  const { c, counts, packer } = call;
  const n = c.ids.length;
  const unresolved = scratch.u32(n, true);
  const dependencies = c.dependencies;
  if (dependencies !== undefined) {
    for (let i = 0; i < n; i++) if (dependencies[i] !== undefined) unresolved[i] = countUnresolved(dependencies[i]!, c.idIndex);
  }
  const costs = packer ? scratch.u32(n, true) : counts.costs;
  return rankColumns(
    { scores, freshness: c.timestamps, citations: c.citations, unresolved, sources: c.sources, costs, ids: c.ids },
    call.s.diversityWindow,
    scratch,
  );
}
