/**
 * Where the selected fragments go in the prompt (`options.order`): `'rank'` (default, as before:
 * best first), `'input'` (the caller's order), `'chronological'` (oldest `timestamp` first; no
 * timestamp counts as oldest; ties keep input order) or `'u-shaped'` (models read the ends of a
 * long prompt best: rank 1 first, rank 2 last, rank 3 second, rank 4 second to last, …, so the
 * weakest fragments sit in the middle).
 *
 * @internal
 * @module
 */

import { invalidOption } from '../validate/options.js';
import { toEpochMs } from '../util/time.js';
import type { PlannerFragmentFields, PlannerOptions, PlacementOrder, SelectionResult } from '../types.js';

export const PLACEMENT_ORDERS: readonly PlacementOrder[] = Object.freeze(['rank', 'input', 'chronological', 'u-shaped']);

/** Takes `order` out of the options (the planner's own reader never sees it). */
export function readOrder(options: PlannerOptions | undefined): [PlacementOrder, PlannerOptions | undefined] {
  if (options === null || typeof options !== 'object' || !('order' in options)) return ['rank', options];
  const { order, ...rest } = options;
  if (order === undefined) return ['rank', rest];
  if (!(PLACEMENT_ORDERS as readonly unknown[]).includes(order)) throw invalidOption('order', PLACEMENT_ORDERS.map((o) => `'${o}'`).join(', '), order);
  return [order, rest];
}

/** Reorders `result.fragments` (rank order) as `order` says. */
export function place<T extends PlannerFragmentFields>(result: SelectionResult<T>, candidates: readonly T[], order: PlacementOrder): SelectionResult<T> {
  if (order === 'rank' || result.fragments.length < 2) return result;
  const index = new Map<T, number>();
  candidates.forEach((c, i) => index.set(c, i));
  const byInput = (a: T, b: T): number => index.get(a)! - index.get(b)!;
  let fragments: T[];
  if (order === 'input') fragments = [...result.fragments].sort(byInput);
  else if (order === 'chronological') {
    const time = (f: T): number => (f.timestamp === undefined ? -Infinity : toEpochMs(f.timestamp, 'timestamp', index.get(f)));
    fragments = [...result.fragments].sort((a, b) => time(a) - time(b) || byInput(a, b));
  } else {
    const front: T[] = [];
    const back: T[] = [];
    result.fragments.forEach((f, r) => (r % 2 === 0 ? front : back).push(f));
    fragments = [...front, ...back.reverse()];
  }
  // The plan is this call's own object: changed in place, so that its decisions stay unmade until read.
  result.fragments = fragments;
  return result;
}
