/**
 * Step 4 (and 5's overshoot): the strategy over the ranking, with groups when they apply; the
 * selected rank positions and every reason.
 *
 * @internal
 * @module
 */

import { packLazy, plainSlice, sliceNumeric, type ExactReport } from '../core/bridge.js';
import type { Scratch } from '../core/scratch.js';
import type { DecisionReason } from '../types.js';
import type { Call } from './call.js';
import { chargeOf } from './charges.js';
import { ascending } from './decisions.js';
import { sliceGrouped } from './grouping.js';
import { overshoot } from './overshoot.js';
import { underCountOption } from './settings.js';
import { buildRequest, checkResult, kindOf, type PlannerSlice } from './request.js';
import { sliceVariants, type VariantSlice } from './variants.js';

/** What step 4 decided. */
export interface Sliced {
  /** The selected rank positions, ascending; pooled (a view from the call's scratch). */
  chosen: Uint32Array;
  /** The reason per rank position; `undefined` when the slicer did not run (all `'no_budget'`). */
  reasons: DecisionReason[] | undefined;
  /** With groups: the group's own reason per rank position. */
  groupReasons: (DecisionReason | undefined)[] | undefined;
  /** With `variants`: the versions and the one each candidate went in with. */
  variants?: VariantSlice;
  /** The exact strategies' solver (`metrics.exact_solver`); `null` for the others and when the slicer did not run. */
  solver: ExactReport['solver'] | null;
}

/** Slices the ranking `order` (rank → candidate) scored `scores`, with `benefits` for the overshoot. */
export function slice(call: Call, order: Uint32Array, scores: Float64Array, benefits: Float64Array, scratch: Scratch): Sliced {
  // Only count entries can raise INVALID_COUNT_ENTRY: without them no closure per call.
  if (call.s.countEntries === undefined) return sliceRanked(call, order, scores, benefits, scratch);
  return underCountOption(call.s.countByLod ? 'lodMix' : 'countEntries', () => sliceRanked(call, order, scores, benefits, scratch));
}

function sliceRanked(call: Call, order: Uint32Array, scores: Float64Array, benefits: Float64Array, scratch: Scratch): Sliced {
  const { c, s, budget, counts, warnings, packer } = call;
  const n = order.length;
  const effective = budget.effective;
  if (n === 0 || effective === 0) return { chosen: new Uint32Array(0), reasons: undefined, groupReasons: undefined, solver: null };
  const charge = (rank: number): number => chargeOf(order[rank]!, counts.get(order[rank]!), budget);
  const rankScores = scratch.f64(n);
  let result: PlannerSlice;
  let groupReasons: (DecisionReason | undefined)[] | undefined;
  let variants: VariantSlice | undefined;
  let tooLarge: (rank: number) => boolean = () => true; // the packer's misses before a pick are too large
  let eligible: (rank: number) => boolean = () => true; // what the overshoot may pick
  if (call.lazy && counts.needsCounting) {
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
    const [slicer, request] = buildRequest(rankScores, charges, (rank) => kindOf(c, order[rank]!, s.countByLod), effective, s);
    if (c.variants !== undefined) {
      const v = sliceVariants(call, order, rankScores, charges, slicer, request);
      result = v;
      variants = v;
      groupReasons = v.groupReasons;
      if (v.repaired === true) warnings.push(repairedWarning(s.slicer));
      tooLarge = (rank) => v.tooLarge(rank, effective);
      const alone = call.grouping?.alone;
      if (alone !== undefined) eligible = (rank) => alone[order[rank]!] === 1;
    } else if (call.grouping !== undefined) {
      const g = sliceGrouped(c, s, order, slicer, request);
      result = g;
      groupReasons = g.groupReasons;
      if (g.repaired === true) warnings.push(repairedWarning(s.slicer));
      const { alone } = call.grouping;
      tooLarge = (rank) => g.tooLarge(rank, effective);
      eligible = (rank) => alone[order[rank]!] === 1;
    } else {
      if (slicer === 'packer' || slicer === 'greedy') {
        // Only the budget and the packer's stop cross: the core's numeric entry, no objects.
        const { selected, reasons } = sliceNumeric(slicer, request);
        result = { selected, reasons, shortfalls: [], overBudget: false, overrunTokens: 0, exact: null };
      } else {
        result = plainSlice(slicer, request);
      }
      if (!packer) tooLarge = (rank) => charges[rank]! > effective;
    }
  }
  checkResult(result, n, scratch);
  const reasons = result.reasons;
  let chosen = ascending(result.selected, n, scratch);
  for (const sf of result.shortfalls) {
    // The kind is the caller's string (any length): the entry is named by its index instead.
    const entry = (s.countEntries ?? []).findIndex((e) => e.kind === sf.kind);
    const option = s.countByLod ? 'lodMix' : 'countEntries';
    warnings.push(`count requirement of options.${option}[${entry}] not met: required ${sf.requiredCount}, satisfied ${sf.satisfiedCount}`);
  }
  if (result.exact !== null) {
    const why = solverWarning(result.exact, s.bucketSizeGiven);
    if (why !== undefined) warnings.push(`slicer '${s.slicer}': ${why}`);
  }
  if (result.overBudget) {
    warnings.push(`selection exceeds the effective budget ${effective} by ${result.overrunTokens} tokens to satisfy count requirements`);
  }
  if (chosen.length === 0) {
    const best = overshoot(
      {
        order,
        benefits,
        reasons,
        groupReasons,
        tooLarge,
        eligible,
        costAt: (rank) => counts.get(order[rank]!),
        effective,
        packer,
        grouping: call.grouping !== undefined,
        allowOvershoot: s.allowOvershoot,
      },
      warnings,
    );
    if (best !== undefined) chosen = Uint32Array.of(best);
  }
  const solver = result.exact?.solver ?? null;
  return variants === undefined ? { chosen, reasons, groupReasons, solver } : { chosen, reasons, groupReasons, variants, solver };
}

/** Why an exact strategy's plan is not the optimum at token precision, unless the caller chose so (a `bucketSize`). */
function solverWarning(r: ExactReport, bucketSizeGiven: boolean): string | undefined {
  switch (r.solver) {
    case 'exact':
      return undefined;
    case 'bucketed':
      return bucketSizeGiven ? undefined : `the DP did not fit its limits at token precision; solved with token counts rounded up to ${r.bucketSize} (optimal for those)`;
    case 'bucketed-fallback':
      return `the exact search stopped at its ${r.fallbackReason} guard; the bucketed knapsack (bucket ${r.bucketSize}) answered: within the budget, maybe not optimal`;
    case 'heuristic':
      return `the DP did not fit its limits at token precision, and at buckets of ${r.bucketSize} tokens the three-phase heuristic did better: its plan is returned (not optimal)`;
  }
}

/** The warning of a selection that required dependencies made the core repair. */
function repairedWarning(slicer: string): string {
  return (
    `options.dependencies 'require': the ${slicer} selection left out dependencies of what it chose, so it was repaired in rounds; ` +
    'the plan honours every dependency but is not claimed optimal'
  );
}
