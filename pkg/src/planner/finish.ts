/**
 * Steps 6 and 7: the KV policy over the selection, the decisions, the metrics and the log record.
 *
 * @internal
 * @module
 */

import { Scratch } from '../core/scratch.js';
import { buildKVPolicy, type KVInput } from '../kv/policy.js';
import { hashId } from '../util/hash.js';
import type { Decision, KVPolicy, PlannerFragmentFields, SelectionResult } from '../types.js';
import { NO_STRINGS } from '../validate/candidates.js';
import type { Call } from './call.js';
import { decisionsOf, settleDecisions } from './decisions.js';
import { buildMetrics, defaultRequestId } from './metrics.js';
import { monotonicMs } from '../util/time.js';
import type { Sliced } from './slice.js';
import { NO_VERSION } from '../core/bridge.js';
import type { VariantInput } from '../validate/variants.js';
import { versionDecisions, type VariantSlice } from './variants.js';

/** The phases' start times (monotonic ms): validate, score, rank, slice. */
export type PhaseTimes = readonly [t0: number, t1: number, t2: number, t3: number, t4: number];

/** The plan: `selected` rank positions of the ranking `order`, with the call's scores and benefits. */
export function finish<T extends PlannerFragmentFields>(
  call: Call,
  order: Uint32Array,
  scores: Float64Array,
  benefits: Float64Array,
  sliced: Sliced,
  times: PhaseTimes,
  scratch: Scratch,
): SelectionResult<T> {
  const { c, s, budget, counts } = call;
  const { chosen } = sliced;
  const n = c.ids.length;
  const k = chosen.length;
  const selectedIds = new Array<string>(k);
  const selectedCosts = new Array<number>(k);
  const selectedLods = new Array<string | undefined>(k);
  const kvInputs = new Array<KVInput>(k);
  const variants = sliced.variants;
  for (let j = 0; j < k; j++) {
    const i = order[chosen[j]!]!;
    selectedIds[j] = c.ids[i]!;
    // With variants, the version that went in (the overshoot takes the full one).
    const versions = variants?.versions[i];
    const version = versions === undefined || variants!.chosen[i] === NO_VERSION ? 0 : variants!.chosen[i]!;
    selectedCosts[j] = versions === undefined ? counts.get(i) : versions.costs[version]!;
    selectedLods[j] = versions === undefined ? c.lods[i] : versions.lods[version];
    const lastAccess = c.lastAccess[i]!;
    kvInputs[j] = {
      id: c.ids[i]!,
      cost: selectedCosts[j]!,
      lod: selectedLods[j],
      benefit: benefits[i]!,
      lastAccessMs: Number.isNaN(lastAccess) ? undefined : lastAccess,
      dependencies: c.dependencies?.[i] ?? NO_STRINGS,
    };
  }
  // Top-K promotion: the dependencies of the best-ranked candidates, selected or not.
  const promoted: string[] = [];
  for (let r = 0; r < Math.min(s.kvTopK, order.length); r++) promoted.push(...(c.dependencies?.[order[r]!] ?? NO_STRINGS));
  const kvPolicy: KVPolicy = buildKVPolicy(kvInputs, s.previousCache, s.now, s.maxKvSize, true, promoted);
  const decide = decisionsMaker(call, order, benefits, sliced, scratch);
  let requestId = s.requestId;
  if (requestId === undefined) {
    const selectedHashes = scratch.u32(k); // read by defaultRequestId only: a pooled view does
    for (let j = 0; j < k; j++) selectedHashes[j] = c.idHashes[order[chosen[j]!]!]!;
    requestId = defaultRequestId(s.now, budget.tokensMax, c.idHashes, selectedHashes);
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
  const [t0, t1, t2, t3, t4] = times;
  const metrics = buildMetrics({
    requestId,
    plannerMs: t5 - t0,
    candidateCount: n,
    ids: selectedIds,
    costs: selectedCosts,
    lods: selectedLods,
    sources: selectedSources,
    entities: selectedEntities,
    entityMasks: selectedMasks,
    scores: selectedScores,
    benefits: selectedBenefits,
    gaze: call.gaze,
    kvPolicy,
    previousCache: s.previousCache,
    fragmentsCounted: counts.counted,
    effectiveBudget: budget.effective,
    perFragmentOverhead: budget.perFragmentOverhead,
    overheadTokens: budget.overheadTokens,
    exactSolver: sliced.solver,
  });
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
  if (decide.made !== undefined) return { fragments, metrics, kvPolicy, decisions: decide.made, warnings: call.warnings };
  // From LAZY_DECISIONS_MIN candidates on, the decisions are made when first read: 100k of them
  // are most of a large plan's time and memory, and a caller that only puts `fragments` in its
  // prompt never reads them.
  return {
    fragments,
    metrics,
    kvPolicy,
    get decisions(): Decision[] {
      return settleDecisions(this, decide.later());
    },
    set decisions(value: Decision[]) {
      settleDecisions(this, value);
    },
    warnings: call.warnings,
  };
}

/**
 * Below this many candidates the decisions are made with the plan: copying the columns they need
 * would cost more than making them.
 */
export const LAZY_DECISIONS_MIN = 256;

/**
 * The decisions: made now (`made`) below {@link LAZY_DECISIONS_MIN} candidates; else what makes
 * them later, from copies of the call's pooled columns (the next call reuses them), exactly as
 * they would be made now.
 */
function decisionsMaker(
  call: Call,
  order: Uint32Array,
  benefits: Float64Array,
  sliced: Sliced,
  scratch: Scratch,
): { made: Decision[]; later?: undefined } | { made?: undefined; later: () => Decision[] } {
  const { c, budget, counts } = call;
  const n = c.ids.length;
  let uncounted: Uint8Array | undefined;
  if (c.contents !== undefined) {
    // A content the lazy packer never reached has no count: its decision says null.
    for (let i = 0; i < n; i++) if (counts.known(i) === undefined) (uncounted ??= new Uint8Array(n))[i] = 1;
  }
  const { reasons, groupReasons, variants } = sliced;
  const { costScored } = call;
  const make = (ranking: Uint32Array, chosen: Uint32Array, benefitOf: Float64Array, costs: Uint32Array, s: Scratch): Decision[] => {
    const decisions = decisionsOf(c.ids, ranking, chosen, reasons, groupReasons, benefitOf, costs, costScored, uncounted, s);
    if (c.variants !== undefined) describeVersions(decisions, c.variants, variants, budget.effective, budget.perFragmentOverhead);
    return decisions;
  };
  if (n < LAZY_DECISIONS_MIN) return { made: make(order, sliced.chosen, benefits, counts.costs, scratch) };
  const ranking = order.slice();
  const chosen = sliced.chosen.slice();
  const benefitOf = benefits.slice();
  const costs = counts.costs.slice();
  return { later: () => make(ranking, chosen, benefitOf, costs, new Scratch(false)) };
}

/**
 * The decisions of candidates with variants: which version went in (`variant`, `variant_id`) and
 * why each did or did not (`versions`; absent when the slicer did not run).
 */
function describeVersions(
  decisions: Decision[],
  inputs: readonly (readonly VariantInput[] | undefined)[],
  variants: VariantSlice | undefined,
  effective: number,
  overhead: number,
): void {
  for (let i = 0; i < decisions.length; i++) {
    const list = inputs[i];
    if (list === undefined) continue;
    const d = decisions[i]!;
    const versions = variants?.versions[i];
    let chosen = variants === undefined ? NO_VERSION : variants.chosen[i]!;
    if (d.included && chosen === NO_VERSION) chosen = 0; // the overshoot takes the full fragment
    d.variant = chosen === NO_VERSION || chosen === 0 ? null : chosen - 1;
    const id = d.variant === null ? undefined : list[d.variant]!.id;
    if (id !== undefined) d.variant_id = id;
    if (versions !== undefined) d.versions = versionDecisions(versions, chosen, effective, overhead);
  }
}
