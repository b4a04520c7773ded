/**
 * Pinned fragments (`pinned: true`): kept whatever the strategy, counted first against the budget;
 * the strategy runs on the rest with what is left. A group with a pinned member is pinned whole,
 * and under `dependencies: 'require'` so is everything a pinned fragment depends on (transitively):
 * the core's closure (`pinClosure`, src/constraints/units.rs `Units::closure`).
 *
 * A hook around one planner pass (`selectOnce`): the pinned fragments go through a pass of their
 * own with an unbounded budget (validated, counted and scored like any candidate), the rest
 * through a pass under `effective_budget − pinned charges`; the two results are merged, pinned
 * first. Errors of either pass name the caller's indexes.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue, reindexed } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import { readBudgets } from '../validate/budgets.js';
import { duplicateError } from '../validate/candidates.js';
import { pinClosure } from '../core/bridge.js';
import { linksOf } from '../core/links.js';
import { calculateCoverage, calculateDiversityScore, meanOf, mergeLodMix } from './metrics.js';
import type { Budgets, Decision, Gaze, PlannerFragmentFields, PlannerOptions, SelectionResult } from '../types.js';

type Pass = <T extends PlannerFragmentFields>(c: readonly T[], g: Gaze, b: Budgets, o: PlannerOptions | undefined) => SelectionResult<T>;

/** Whether any candidate says `pinned` (checked: a boolean). A plain loop: it runs over every call's candidates. */
export function hasPins(candidates: unknown): boolean {
  if (!Array.isArray(candidates)) return false;
  let any = false;
  for (let i = 0; i < candidates.length; i++) {
    const f: unknown = candidates[i];
    if (!isRecord(f)) continue;
    const pinned = f['pinned'];
    if (pinned === undefined) continue;
    if (typeof pinned !== 'boolean') {
      throw new CtxpackError('INVALID_FIELD', `candidates[${i}].pinned must be a boolean, got ${describeValue(pinned)}`, { field: 'pinned', index: i });
    }
    if (pinned) any = true;
  }
  return any;
}

/**
 * The pinned set, closed over groups and (with `'require'`) dependencies: decided by the core
 * (`pinClosure`); here only labels and ids become indexes (core/links.ts). Values the passes will
 * refuse (a group that is not a string, dependencies that are not an array) link nothing here.
 */
function pinnedSet(candidates: readonly unknown[], require: boolean): Uint8Array {
  const n = candidates.length;
  // A candidate that is not an object links nothing here; the pass refuses it, naming it.
  const at = (i: number, key: string): unknown => {
    const f = candidates[i];
    return isRecord(f) ? f[key] : undefined;
  };
  const seeds = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (at(i, 'pinned') === true) seeds[i] = 1;
  // Ids are only looked up for dependencies: the map is built on the first lookup.
  let byId: Map<unknown, number> | undefined;
  const idIndex = (): Map<unknown, number> => {
    const m = new Map<unknown, number>();
    for (let i = 0; i < n; i++) if (!m.has(at(i, 'id'))) m.set(at(i, 'id'), i);
    return m;
  };
  const links = linksOf(
    n,
    (i) => {
      const g = at(i, 'group');
      return typeof g === 'string' ? g : undefined;
    },
    require
      ? (i) => {
          const deps = at(i, 'dependencies');
          // Entries that are not strings name no candidate: linksOf marks them so.
          return Array.isArray(deps) ? (deps as string[]) : undefined;
        }
      : undefined,
    (id) => (byId ??= idIndex()).get(id),
  );
  // Nothing links the candidates: each is its own unit and needs none.
  if (!links.any) return seeds;
  return pinClosure(links, seeds, require ? 'require' : 'ignore', 'candidates');
}

/** Runs `pass` with errors' `candidates[k]` and `index` mapped back to the caller's indexes. */
function mapped<R>(origin: readonly number[], run: () => R): R {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof CtxpackError) || err.index === undefined || err.field === undefined || err.code === 'INVALID_BUDGET') throw err;
    throw reindexed(err, 'candidates', origin);
  }
}

/** `selectFragments` with pinned candidates (see the module documentation). */
export function selectWithPins<T extends PlannerFragmentFields>(
  candidates: readonly T[],
  gaze: Gaze,
  budgets: Budgets,
  options: PlannerOptions | undefined,
  pass: Pass,
): SelectionResult<T> {
  const checked = readBudgets(budgets);
  const raw: readonly unknown[] = candidates;
  const pinned = pinnedSet(raw, options?.dependencies === 'require');
  const pinIdx: number[] = [];
  const restIdx: number[] = [];
  candidates.forEach((_, i) => (pinned[i] === 1 ? pinIdx : restIdx).push(i));
  // Ids are unique across both passes.
  const seen = new Map<unknown, number>();
  raw.forEach((f, i) => {
    if (!isRecord(f)) return;
    const other = seen.get(f['id']);
    if (other !== undefined) throw duplicateError({ index: i, otherIndex: other });
    seen.set(f['id'], i);
  });
  const { logger, requestId, ...quiet } = options ?? {};
  const unbounded: Budgets = { tokens_max: Number.MAX_SAFE_INTEGER, per_fragment_overhead: checked.perFragmentOverhead };
  const kept = mapped(pinIdx, () => pass(pinIdx.map((i) => candidates[i]!), gaze, unbounded, { ...quiet, slicer: 'ranked', allow_overshoot: false }));
  const charge = kept.metrics.budget_used;
  if (charge > checked.effective) {
    throw new CtxpackError(
      'PINNED_OVER_BUDGET',
      `the pinned candidates take ${charge} tokens, ${charge - checked.effective} more than the effective budget ${checked.effective}`,
      { field: 'pinned' },
    );
  }
  const left: Budgets = { tokens_max: checked.effective - charge, per_fragment_overhead: checked.perFragmentOverhead };
  const rest = mapped(restIdx, () => pass(restIdx.map((i) => candidates[i]!), gaze, left, options));
  return merge(candidates, gaze, checked, pinIdx, restIdx, kept, rest);
}

function merge<T extends PlannerFragmentFields>(
  candidates: readonly T[],
  gaze: Gaze,
  budget: ReturnType<typeof readBudgets>,
  pinIdx: readonly number[],
  restIdx: readonly number[],
  kept: SelectionResult<T>,
  rest: SelectionResult<T>,
): SelectionResult<T> {
  const decisions = new Array<Decision>(candidates.length);
  kept.decisions.forEach((d, k) => (decisions[pinIdx[k]!] = { ...d, index: pinIdx[k]!, reason: 'pinned', included: true }));
  rest.decisions.forEach((d, k) => (decisions[restIdx[k]!] = { ...d, index: restIdx[k]!, rank: d.rank + pinIdx.length }));
  const fragments = [...kept.fragments, ...rest.fragments];
  const ids = fragments.map((f) => f.id);
  const top = [...kept.decisions.filter((d) => d.included).sort((a, b) => a.rank - b.rank), ...rest.decisions.filter((d) => d.included).sort((a, b) => a.rank - b.rank)];
  const budgetUsed = kept.metrics.budget_used + rest.metrics.budget_used;
  const tokens = kept.metrics.tokens_selected + rest.metrics.tokens_selected;
  const hits = kept.metrics.kv_cache_stats.hits + rest.metrics.kv_cache_stats.hits;
  const misses = kept.metrics.kv_cache_stats.misses + rest.metrics.kv_cache_stats.misses;
  const pin = [...new Set([...kept.fragments.map((f) => f.id), ...rest.kvPolicy.pin])];
  const pinSet = new Set(pin);
  const idSet = new Set(ids);
  return {
    fragments,
    decisions,
    kvPolicy: { pin, compress: rest.kvPolicy.compress.filter((id) => !pinSet.has(id)), evict: rest.kvPolicy.evict.filter((id) => !idSet.has(id)) },
    warnings: [...rest.warnings],
    metrics: {
      ...rest.metrics,
      candidate_count: candidates.length,
      tokens_selected: tokens,
      total_cost_tokens: tokens,
      coverage_entities: calculateCoverage(fragments as never[], gaze),
      diversity_score: calculateDiversityScore(fragments as never[]),
      top3_fragment_ids: top.slice(0, 3).map((d) => d.id),
      top3_scores: top.slice(0, 3).map((d) => d.score),
      mean_benefit: meanOf(top.map((d) => d.benefit)),
      kv_cache_stats: { hits, misses, evictions: rest.metrics.kv_cache_stats.evictions },
      cache_hit_rate: hits + misses === 0 ? 0 : hits / (hits + misses),
      fragments_counted: kept.metrics.fragments_counted + rest.metrics.fragments_counted,
      effective_budget: budget.effective,
      budget_used: budgetUsed,
      prompt_tokens: budget.overheadTokens + budgetUsed,
      lod_mix: mergeLodMix(kept.metrics.lod_mix, rest.metrics.lod_mix),
      planner_ms: kept.metrics.planner_ms + rest.metrics.planner_ms,
    },
  };
}

