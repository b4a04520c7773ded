// A strategy as the page's controls choose it, and what it means for selectFragments (the table),
// for the package's budget simulation (the plot and the fragment answers) and for the slicer
// functions (the plot, where the simulation does not apply). All mappings live here so that they
// cannot drift.

/** The strategies of selectFragments, in the order the page offers them. */
export const SLICERS = ['ranked', 'greedy', 'knapsack', 'exact', 'count-knapsack', 'exact-count', 'packer'];

/** The strategies with per-kind count entries (selectFragments' `countEntries`). */
export const COUNT_SLICERS = ['count-knapsack', 'exact-count'];

/**
 * @typedef {object} Strategy
 * @property {'ranked' | 'greedy' | 'knapsack' | 'exact' | 'count-knapsack' | 'exact-count' | 'packer'} slicer
 * @property {number} bucketSize  knapsack, count-knapsack (exact-count picks its own bucket)
 * @property {number} maxConsecutiveSkips  packer
 * @property {{ kind: string, requireCount: number, capCount: number }[]} countEntries  count-knapsack, exact-count
 * @property {boolean} allowOvershoot  every slicer
 * @property {boolean} requireDependencies  every slicer: options.dependencies 'require' (else 'ignore', the default)
 */

/**
 * selectFragments options: only those the slicer reads, so that none is reported as ignored.
 * @param {Strategy} s
 * @param {number} now  epoch ms
 */
export function plannerOptions(s, now) {
  const o = { now, slicer: s.slicer, allow_overshoot: s.allowOvershoot };
  if (s.slicer === 'knapsack' || s.slicer === 'count-knapsack') o.bucketSize = s.bucketSize;
  if (COUNT_SLICERS.includes(s.slicer)) o.countEntries = s.countEntries;
  if (s.slicer === 'packer') o.maxConsecutiveSkips = s.maxConsecutiveSkips;
  if (s.requireDependencies) o.dependencies = 'require';
  return o;
}

/**
 * The package's budget simulation options (`budgetCurve`, `minBudgetFor`, `droppedUnderSlack`)
 * for a strategy: its selection over the planner's ranking, as selectFragments runs it. The
 * package refuses what it cannot simulate (the count-constrained strategies: `NOT_MONOTONIC`;
 * required dependencies: `INVALID_OPTION` on `dependencies`); the page asks anyway, so that the
 * package, not the page, decides.
 * @param {Strategy} s
 * @returns {{ slicer: string } & Record<string, unknown>}
 */
export function simulationOptions(s) {
  const o = simulationStrategy(s);
  if (s.requireDependencies) o.dependencies = 'require';
  return o;
}

function simulationStrategy(s) {
  switch (s.slicer) {
    case 'ranked':
      return { slicer: 'packer', maxConsecutiveSkips: 0 }; // the ACS walk: a packer that never stops early
    case 'packer':
      return { slicer: 'packer', maxConsecutiveSkips: s.maxConsecutiveSkips };
    case 'greedy':
      return { slicer: 'greedy' };
    case 'knapsack':
      return { slicer: 'knapsack', bucketSize: s.bucketSize };
    case 'exact':
      return { slicer: 'exact' };
    case 'count-knapsack':
    case 'exact-count':
      return { slicer: s.slicer };
    default:
      throw new Error(`unknown strategy ${String(s.slicer)}`);
  }
}

/**
 * The package's slicer function and its options that selectFragments runs for a strategy, over
 * the ranked candidates as items `{ id, tokens, score, kind?, group?, dependencies? }`: what the
 * plot reruns at each budget where the simulation does not apply.
 * @param {Strategy} s
 * @returns {[name: 'greedySlice' | 'knapsackSlice' | 'exactKnapsackSlice' | 'packerSlice' | 'countConstrainedKnapsackSlice' | 'exactCountConstrainedSlice', options: Record<string, unknown>]}
 */
export function sliceCall(s) {
  const [name, options] = sliceFunction(s);
  return [name, s.requireDependencies ? { ...options, dependencies: 'require' } : options];
}

function sliceFunction(s) {
  switch (s.slicer) {
    case 'ranked':
      return ['packerSlice', { maxConsecutiveSkips: 0 }];
    case 'packer':
      return ['packerSlice', { maxConsecutiveSkips: s.maxConsecutiveSkips }];
    case 'greedy':
      return ['greedySlice', {}];
    case 'knapsack':
      return ['knapsackSlice', { bucketSize: s.bucketSize }];
    case 'exact':
      return ['exactKnapsackSlice', {}];
    case 'count-knapsack':
      return ['countConstrainedKnapsackSlice', { bucketSize: s.bucketSize, entries: s.countEntries }];
    case 'exact-count':
      // No bucket: like selectFragments, it picks its own. The heuristic's comparison changes
      // nothing in the selection and would double the work.
      return ['exactCountConstrainedSlice', { entries: s.countEntries, compareHeuristic: false }];
    default:
      throw new Error(`unknown strategy ${String(s.slicer)}`);
  }
}

/** The skip limit of the strategy's walk: the packer's `maxConsecutiveSkips`; 0 (never stops) for the others. */
export function skipLimit(s) {
  return s.slicer === 'packer' ? s.maxConsecutiveSkips : 0;
}
