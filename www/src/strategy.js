// A strategy as the page's controls choose it, and what it means for selectFragments (the table),
// for the package's budget simulation (the plot and the fragment answers) and for the slicer
// functions (the plot, where the simulation does not apply). What each strategy runs and reads is
// the package's table (`STRATEGIES`, the core's): nothing here says it again.

import { STRATEGIES } from '../../pkg/dist/slicers.js';

/** The strategies of selectFragments, in the order the package lists them. */
export const SLICERS = STRATEGIES.map((s) => s.name);

/** The strategies with per-kind count entries (selectFragments' `countEntries`). */
export const COUNT_SLICERS = STRATEGIES.filter((s) => s.options.includes('entries')).map((s) => s.name);

/** The package's row of a strategy. */
function rowOf(slicer) {
  const row = STRATEGIES.find((s) => s.name === slicer);
  if (row === undefined) throw new Error(`unknown strategy ${String(slicer)}`);
  return row;
}

/**
 * The options the page sets that the strategy reads: the bucket (unless the strategy picks its own),
 * the count entries, the packer's skip limit.
 * @param {Strategy} s
 * @param {string} countKey  the name of the count entries' option (selectFragments: `countEntries`)
 */
function ownOptions(s, countKey) {
  const row = rowOf(s.slicer);
  const o = {};
  if (row.options.includes('bucketSize') && !row.ownBucket) o.bucketSize = s.bucketSize;
  if (row.options.includes('entries')) o[countKey] = s.countEntries;
  if (row.options.includes('maxConsecutiveSkips')) o.maxConsecutiveSkips = s.maxConsecutiveSkips;
  return o;
}

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
  const o = { now, slicer: s.slicer, allow_overshoot: s.allowOvershoot, ...ownOptions(s, 'countEntries') };
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
  const row = rowOf(s.slicer);
  // A strategy the simulation cannot model goes by its own name, for the package to refuse.
  if (!row.monotonic) return { slicer: s.slicer };
  return { slicer: row.engine, ...engineOptions(s, row) };
}

/** The options of the strategy's engine: its own, or the skip limit the strategy fixes (`'ranked'`). */
function engineOptions(s, row) {
  const o = ownOptions(s, 'entries');
  if (row.skipLimit !== null) o.maxConsecutiveSkips = row.skipLimit;
  return o;
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

/** The package's slicer function of each engine. */
const SLICE_FUNCTIONS = {
  greedy: 'greedySlice',
  knapsack: 'knapsackSlice',
  exact: 'exactKnapsackSlice',
  packer: 'packerSlice',
  'count-knapsack': 'countConstrainedKnapsackSlice',
  'exact-count': 'exactCountConstrainedSlice',
};

function sliceFunction(s) {
  const row = rowOf(s.slicer);
  const o = engineOptions(s, row);
  // The heuristic's comparison changes nothing in the selection and would double the work.
  if (row.options.includes('compareHeuristic')) o.compareHeuristic = false;
  return [SLICE_FUNCTIONS[row.engine], o];
}

/** The skip limit of the strategy's walk: the packer's `maxConsecutiveSkips`; 0 (never stops) for the others. */
export function skipLimit(s) {
  const row = rowOf(s.slicer);
  return row.skipLimit ?? (row.options.includes('maxConsecutiveSkips') ? s.maxConsecutiveSkips : 0);
}
