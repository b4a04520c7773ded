// The plot's data: the total score the chosen strategy reaches at many budgets. The ranking does
// not depend on the budget, so the plan the page has just made (one selectFragments call) gives
// the ranked candidates; laid out as columns, they go through only the slicer at each budget,
// as selectFragments would run it. That is what keeps 121 budgets fast.
// Pure: `sliceColumns` is passed in, so that the worker and the Node tests share this code.

import { coreCall } from './strategy.js';

/** Points on the plot, from 0 to twice the chosen budget; the middle one is the chosen budget. */
export const CURVE_POINTS = 121;

/** The kind that count-knapsack reads (the planner's rule; its DEFAULT_KIND is 'default'). */
export function kindOf(fragment) {
  return fragment.kind ?? fragment.lod ?? 'default';
}

/**
 * @typedef {object} RankedColumns  The candidates in rank order.
 * @property {Uint32Array} tokens
 * @property {Float64Array} scores
 * @property {Float64Array} benefits
 * @property {Uint32Array} kinds  Indexes into `kindNames`.
 * @property {string[]} kindNames
 */

/**
 * @param {readonly object[]} fragments  The planner's input.
 * @param {readonly import('ctxpack').Decision[]} decisions  Its decisions on them.
 * @returns {RankedColumns}
 */
export function rankedColumns(fragments, decisions) {
  const n = decisions.length;
  const cols = { tokens: new Uint32Array(n), scores: new Float64Array(n), benefits: new Float64Array(n), kinds: new Uint32Array(n), kindNames: [] };
  const kindIds = new Map();
  const kindAt = new Array(n);
  for (const d of decisions) {
    cols.tokens[d.rank] = fragments[d.index].cost_tokens;
    cols.scores[d.rank] = d.score;
    cols.benefits[d.rank] = d.benefit;
    kindAt[d.rank] = kindOf(fragments[d.index]);
  }
  // Kind ids by first appearance in rank order, as the planner numbers them.
  kindAt.forEach((kind, rank) => {
    if (!kindIds.has(kind)) {
      kindIds.set(kind, cols.kindNames.length);
      cols.kindNames.push(kind);
    }
    cols.kinds[rank] = kindIds.get(kind);
  });
  return cols;
}

/**
 * Budgets from 0 to twice `budget` (2 when `budget` is 0), rounded to whole tokens.
 * @param {number} budget
 * @param {number} [points]
 */
export function curveBudgets(budget, points = CURVE_POINTS) {
  const span = 2 * Math.max(budget, 1);
  return Array.from({ length: points }, (_, i) => Math.round((i * span) / (points - 1)));
}

/**
 * The total score of the strategy's selection at each budget: what selectFragments would select,
 * including its edge cases (nothing at budget 0; the overshoot candidate when nothing fits).
 * @param {typeof import('ctxpack').sliceColumns} sliceColumns
 * @param {RankedColumns} cols
 * @param {import('./strategy.js').Strategy} strategy
 * @param {readonly number[]} budgets
 * @returns {number[]}
 */
export function totalScores(sliceColumns, cols, strategy, budgets) {
  const [slicer, options] = coreCall(strategy);
  const columns = strategy.slicer === 'count-knapsack' ? cols : { tokens: cols.tokens, scores: cols.scores };
  const n = cols.tokens.length;
  const cheapest = cols.tokens.reduce((min, t) => Math.min(min, t), Infinity);
  const overshoot = overshootScore(cols, strategy.allowOvershoot);
  return budgets.map((b) => {
    if (n === 0 || b === 0) return 0;
    const r = sliceColumns(slicer, columns, { targetTokens: b, maxTokens: b }, options);
    return r.selected.length === 0 && cheapest > b ? overshoot : r.totalScore;
  });
}

/** Spec "Budget Overshoot Policy": the best-benefit candidate (first in rank on ties) if above 0.9. */
function overshootScore(cols, allowed) {
  if (!allowed || cols.benefits.length === 0) return 0;
  let best = 0;
  for (let i = 1; i < cols.benefits.length; i++) if (cols.benefits[i] > cols.benefits[best]) best = i;
  return cols.benefits[best] > 0.9 ? cols.scores[best] : 0;
}

/**
 * What a person reads off the plot: the score at the chosen budget, the peak over the range, and
 * the smallest budget that reaches 99% of the peak (where more budget stops paying).
 * @param {readonly number[]} budgets  Ascending.
 * @param {readonly number[]} totals
 * @param {number} budget  The chosen budget.
 */
export function describeCurve(budgets, totals, budget) {
  const at = budgets.indexOf(budget);
  const peak = Math.max(0, ...totals);
  const peakAt = budgets[totals.indexOf(peak)] ?? 0;
  const enoughAt = budgets[totals.findIndex((t) => t >= 0.99 * peak)] ?? 0;
  return { atBudget: at === -1 ? undefined : totals[at], peak, peakAt, enoughAt, end: budgets.at(-1) ?? 0 };
}
