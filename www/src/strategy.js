// A strategy as the page's controls choose it, and what it means for selectFragments (the table)
// and for the core's sliceColumns (the plot). Both mappings live here so that they cannot drift.

/** The strategies of selectFragments, in the order the page offers them. */
export const SLICERS = ['acs', 'greedy', 'knapsack', 'count-knapsack', 'packer'];

/**
 * @typedef {object} Strategy
 * @property {'acs' | 'greedy' | 'knapsack' | 'count-knapsack' | 'packer'} slicer
 * @property {number} bucketSize  knapsack, count-knapsack
 * @property {number} maxConsecutiveSkips  packer
 * @property {{ kind: string, requireCount: number, capCount: number }[]} countEntries  count-knapsack
 * @property {boolean} allowOvershoot  every slicer
 */

/**
 * selectFragments options: only those the slicer reads, so that none is reported as ignored.
 * @param {Strategy} s
 * @param {number} now  epoch ms
 */
export function plannerOptions(s, now) {
  const o = { now, slicer: s.slicer, allow_overshoot: s.allowOvershoot };
  if (s.slicer === 'knapsack' || s.slicer === 'count-knapsack') o.bucketSize = s.bucketSize;
  if (s.slicer === 'count-knapsack') o.countEntries = s.countEntries;
  if (s.slicer === 'packer') o.maxConsecutiveSkips = s.maxConsecutiveSkips;
  return o;
}

/**
 * The core slicer and sliceColumns options that selectFragments runs for a strategy.
 * @param {Strategy} s
 * @returns {[import('ctxpack').SlicerName, import('ctxpack').CoreSliceOptions]}
 */
export function coreCall(s) {
  switch (s.slicer) {
    case 'acs':
      return ['packer', { maxConsecutiveSkips: 0 }]; // the ACS walk: a packer that never stops early
    case 'packer':
      return ['packer', { maxConsecutiveSkips: s.maxConsecutiveSkips }];
    case 'greedy':
      return ['greedy', {}];
    case 'knapsack':
      return ['knapsack', { bucketSize: s.bucketSize }];
    case 'count-knapsack':
      return ['count-knapsack', { bucketSize: s.bucketSize, entries: s.countEntries }];
    default:
      throw new Error(`unknown strategy ${String(s.slicer)}`);
  }
}
