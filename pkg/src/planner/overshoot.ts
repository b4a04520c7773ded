/**
 * Spec: "Budget Overshoot Policy" (step 5): when everything the slicer reached is larger than the
 * effective budget, one candidate may still go in.
 *
 * @internal
 * @module
 */

import type { DecisionReason } from '../types.js';
import { OVERSHOOT_MIN_BENEFIT } from './settings.js';

/** What the overshoot reads of the call. */
export interface OvershootInput {
  /** The ranking: rank → candidate index. */
  order: Uint32Array;
  /** Benefit per candidate index. */
  benefits: Float64Array;
  /** The slicer's reason per rank position, and the groups' (with groups). */
  reasons: DecisionReason[];
  groupReasons: (DecisionReason | undefined)[] | undefined;
  /** Whether rank position `rank` (its unit, with groups) is larger than the effective budget. */
  tooLarge: (rank: number) => boolean;
  /** Whether rank position `rank` may be admitted alone (with groups: in no group of two or more, needing no other candidate). */
  eligible: (rank: number) => boolean;
  /** The count of rank position `rank`. */
  costAt: (rank: number) => number;
  effective: number;
  packer: boolean;
  grouping: boolean;
  allowOvershoot: boolean;
}

/**
 * Called when the slicer selected nothing. The overshoot considers what the slicer reached (the
 * packer: what it reached before its skip limit stopped it; the others: everything), and only when
 * all of that is too large. Returns the rank position to select, if any, and records reasons and
 * warnings. Warnings name candidates by input index, never by id or content.
 */
export function overshoot(o: OvershootInput, warnings: string[]): number | undefined {
  const { order, reasons, groupReasons: gr } = o;
  const n = order.length;
  const reached = (rank: number): boolean => reasons[rank] !== 'skip_limit_reached' && gr?.[rank] !== 'skip_limit_reached';
  for (let r = 0; r < n; r++) if (reached(r) && !o.tooLarge(r)) return undefined;
  let best = -1; // the first of the highest benefits
  for (let r = 0; r < n; r++) {
    if (reached(r) && o.eligible(r) && (best === -1 || o.benefits[order[r]!]! > o.benefits[order[best]!]!)) best = r;
  }
  const every = o.packer ? 'every candidate the packer reached' : 'every candidate';
  if (best === -1) {
    warnings.push(`${every} exceeds the effective budget ${o.effective}; returning an empty plan because none of them goes in alone (groups or dependencies)`);
    return undefined;
  }
  const index = order[best]!;
  const benefit = o.benefits[index]!;
  if (o.allowOvershoot && benefit > OVERSHOOT_MIN_BENEFIT) {
    reasons[best] = 'overshoot';
    if (gr !== undefined) gr[best] = undefined;
    warnings.push(
      `budget overshoot: ${every} exceeds the effective budget ${o.effective}; selected candidates[${index}] ` +
        `(cost_tokens ${o.costAt(best)}, benefit ${benefit}) because allow_overshoot is set and its benefit exceeds ${OVERSHOOT_MIN_BENEFIT}`,
    );
    return best;
  }
  const alone = o.grouping ? ' among those that go in alone' : '';
  const why = o.allowOvershoot ? `the best benefit${alone} ${benefit} does not exceed ${OVERSHOOT_MIN_BENEFIT}` : 'allow_overshoot is not set';
  warnings.push(`${every} exceeds the effective budget ${o.effective}; returning an empty plan because ${why}`);
  return undefined;
}
