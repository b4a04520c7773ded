/**
 * The planner's answer per candidate: one {@link Decision} each, in input order.
 *
 * @internal
 * @module
 */

import type { Scratch } from '../core/scratch.js';
import { costScaled } from '../ranking/scoring.js';
import type { Decision, DecisionReason } from '../types.js';

/**
 * One decision per candidate, in input order. `order` is the ranking (rank → candidate), `chosen`
 * the selected rank positions, `reasons` the slicer's reason per rank position (`undefined`: all
 * `'no_budget'`). `costs[i]` is candidate i's count, `null` where `uncounted[i]` is 1 (a content
 * the lazy packer never reached); `uncounted` is `undefined` when every count is known. Scores are
 * made from the benefits as the scoring made them ({@link costScaled}; with `costScored` false,
 * the packer's, the benefit itself), so that a plan keeps no column of them.
 */
export function decisionsOf(
  ids: readonly string[],
  order: Uint32Array,
  chosen: Uint32Array,
  reasons: readonly DecisionReason[] | undefined,
  groupReasons: readonly (DecisionReason | undefined)[] | undefined,
  benefits: Float64Array,
  costs: Uint32Array,
  costScored: boolean,
  uncounted: Uint8Array | undefined,
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
    const rank = rankOf[i]!;
    const decision: Decision = {
      id: ids[i]!,
      index: i,
      score: costScored ? costScaled(benefits[i]!, costs[i]!) : benefits[i]!,
      benefit: benefits[i]!,
      included: included[i] === 1,
      reason: reasonNames[reasonOf[i]!]!,
      rank,
      cost_tokens: uncounted !== undefined && uncounted[i] === 1 ? null : costs[i]!,
    };
    if (groupReasons !== undefined) {
      const why = groupReasons[rank];
      if (why !== undefined) decision.group_reason = why;
    }
    decisions[i] = decision;
  }
  return decisions;
}

/**
 * Replaces the `decisions` accessor of a plan by a plain data property holding `decisions`, and
 * returns them: the plan's decisions are made when first read (see `finish`), then kept.
 */
export function settleDecisions(plan: object, decisions: Decision[]): Decision[] {
  Object.defineProperty(plan, 'decisions', { value: decisions, writable: true, enumerable: true, configurable: true });
  return decisions;
}

/**
 * The distinct positions below `n` in `positions`, ascending: marks, then one pass. The result is
 * a view from `scratch` (for the call only), as long as the distinct positions.
 */
export function ascending(positions: Uint32Array, n: number, scratch: Scratch): Uint32Array {
  const marked = scratch.u8(n, true);
  let k = 0;
  for (const p of positions) if (marked[p] === 0) (marked[p] = 1), k++;
  const out = scratch.u32(k);
  for (let p = 0, j = 0; p < n; p++) if (marked[p] === 1) out[j++] = p;
  return out;
}
