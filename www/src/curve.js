// The plot's data: the value the chosen strategy selects at every budget from 0 to twice the
// chosen one. The ranking does not depend on the budget, so the plan the page has just made (one
// selectFragments call) gives the ranked candidates; the package's budget simulation
// (`budgetCurve`) then answers for every budget in one pass, over that ranking, as selectFragments
// runs the strategy. The page adds what selectFragments does around the strategy: nothing at
// budget 0, and the overshoot candidate when nothing fits.
//
// The count-constrained strategies are not monotonic in the budget and the package refuses to
// simulate them (`NOT_MONOTONIC`); for them, and when a simulation would be too large, the strategy
// runs separately at 121 budgets instead ("sampled").
//
// Pure: the package is passed in, so that the worker and the Node tests share this code.

import { OVERSHOOT_MIN_BENEFIT, fragmentKind } from '../../pkg/dist/acs.js';
import { COUNT_SLICERS, simulationOptions, sliceCall, skipLimit } from './strategy.js';

/** The simulation's measure: Σ max(0, floor(score × VALUE_SCALE)) over the selection. */
export const VALUE_SCALE = 10_000;

/** Budgets of a sampled curve, from 0 to twice the chosen budget; the middle one is the chosen budget. */
export const SAMPLED_POINTS = 121;


/** One fragment's value in the simulation's measure (the knapsack's scaled score). */
export function scaledValue(score) {
  return Math.max(0, Math.floor(score * VALUE_SCALE));
}

/** The kind that the count-constrained strategies read: the package's rule. */
export const kindOf = fragmentKind;

/**
 * @typedef {object} RankedItems  The candidates in the planner's rank order, as the strategy sees them.
 * @property {string[]} ids
 * @property {Uint32Array} tokens  What each takes of the budget (the page sets no per-fragment overhead).
 * @property {Float64Array} scores  The planner's score (for the packer: the benefit, as it ranks by it).
 * @property {Float64Array} benefits
 * @property {string[]} kinds
 * @property {(string | undefined)[]} groups  Each fragment's `group`.
 * @property {(string[] | undefined)[]} dependencies  Each fragment's `dependencies`.
 */

/**
 * @param {readonly object[]} fragments  The planner's input.
 * @param {readonly import('ctxpack').Decision[]} decisions  Its decisions on them.
 * @returns {RankedItems}
 */
export function rankedItems(fragments, decisions) {
  const n = decisions.length;
  const r = {
    ids: new Array(n),
    tokens: new Uint32Array(n),
    scores: new Float64Array(n),
    benefits: new Float64Array(n),
    kinds: new Array(n),
    groups: new Array(n),
    dependencies: new Array(n),
  };
  for (const d of decisions) {
    const f = fragments[d.index];
    r.ids[d.rank] = d.id;
    r.tokens[d.rank] = f.cost_tokens;
    r.scores[d.rank] = d.score;
    r.benefits[d.rank] = d.benefit;
    r.kinds[d.rank] = kindOf(f);
    r.groups[d.rank] = f.group;
    r.dependencies[d.rank] = f.dependencies;
  }
  return r;
}

/**
 * The ranked candidates as the package's slice items: id, tokens, score and group; `kind` where
 * the strategy counts kinds, `dependencies` where they are required.
 * @param {RankedItems} r
 * @param {import('./strategy.js').Strategy} strategy
 */
export function sliceItems(r, strategy) {
  const kinds = COUNT_SLICERS.includes(strategy.slicer);
  return r.ids.map((id, i) => {
    const item = { id, tokens: r.tokens[i], score: r.scores[i] };
    if (kinds) item.kind = r.kinds[i];
    if (r.groups[i] !== undefined) item.group = r.groups[i];
    if (strategy.requireDependencies && r.dependencies[i] !== undefined) item.dependencies = r.dependencies[i];
    return item;
  });
}

/** The last budget of the plot: twice the chosen one (2 when it is 0). */
export function curveCeiling(budget) {
  return 2 * Math.max(budget, 1);
}

/**
 * Budgets of a sampled curve: from 0 to `curveCeiling(budget)`, rounded to whole tokens.
 * @param {number} budget
 * @param {number} [points]
 */
export function curveBudgets(budget, points = SAMPLED_POINTS) {
  const span = curveCeiling(budget);
  return Array.from({ length: points }, (_, i) => Math.round((i * span) / (points - 1)));
}

/**
 * selectFragments' overshoot policy on these candidates ("Budget Overshoot Policy", and step 4 on
 * groups): when the strategy selects nothing because every unit it looked at (a fragment, or a
 * group that goes in together; the packer with a skip limit k: the first k units in rank order;
 * otherwise all) is larger than the budget, and allow_overshoot is set, the best-benefit fragment
 * among those that go in alone (in no group of two or more, needing no other fragment; the better
 * rank on ties) is selected if its benefit exceeds 0.9.
 * @param {typeof import('ctxpack/slicers')} lib
 * @param {RankedItems} r
 * @param {import('./strategy.js').Strategy} strategy
 * @returns {{ below: number, rank: number, value: number }}  `below`: the smallest size among
 *   those units (at budgets from 1 to `below − 1` none fits); `rank`: the fragment selected
 *   there, −1 for none; `value`: its scaled value.
 */
export function overshootOf(lib, r, strategy) {
  // The package's units (its core forms them); numbered by their best-ranked member, as r is ranked.
  const units = lib.groupUnits(sliceItems(r, { ...strategy, slicer: 'greedy' }), { dependencies: strategy.requireDependencies ? 'require' : 'ignore' });
  const k = skipLimit(strategy);
  // What the packer reached: selectFragments counts every fragment not marked skip_limit_reached.
  // With nothing selected, every unit it reached was a miss, so it stopped after the first k; the
  // units past them say skip_limit_reached, needy ones included.
  const reached = (u) => k === 0 || u < k;
  let below = Infinity;
  let best = -1;
  for (let u = 0; u < units.unitCount; u++) if (reached(u)) below = Math.min(below, units.unitTokens[u]);
  r.ids.forEach((_, i) => {
    const u = units.unitOf[i];
    if (!reached(u) || units.unitSize[u] !== 1 || units.needsOther[u] === 1) return;
    if (best === -1 || r.benefits[i] > r.benefits[best]) best = i;
  });
  const applies = strategy.allowOvershoot && best !== -1 && r.benefits[best] > OVERSHOOT_MIN_BENEFIT;
  return { below, rank: applies ? best : -1, value: applies ? scaledValue(r.scores[best]) : 0 };
}

/**
 * A budget from which the strategy's selection no longer changes: every candidate fits (for the
 * knapsack, in its buckets), so it selects every one that it can value.
 */
export function saturationBudget(r, strategy) {
  let sum = 0;
  if (strategy.slicer === 'knapsack') {
    for (const t of r.tokens) sum += Math.ceil(t / strategy.bucketSize);
    return sum * strategy.bucketSize;
  }
  for (const t of r.tokens) sum += t;
  return sum;
}

/**
 * The value at every budget from 0 to `ceiling`, from the package's budget simulation. Past the
 * saturation budget the curve is flat: it is simulated, and returned, only up to there.
 * @param {typeof import('ctxpack/slicers')} lib
 * @param {RankedItems} r
 * @param {import('./strategy.js').Strategy} strategy
 * @param {number} ceiling
 * @returns {Float64Array}  `values[b]`: the scaled value of selectFragments' plan at budget `b`,
 *   for `b` up to `min(ceiling, saturation)`; the last one holds from there to `ceiling`.
 * @throws {import('ctxpack').CtxpackError} `NOT_MONOTONIC` for the count-constrained strategies,
 *   `TABLE_TOO_LARGE` when the simulation would be too large.
 */
export function simulatedCurve(lib, r, strategy, ceiling) {
  const upTo = Math.min(ceiling, Math.max(1, saturationBudget(r, strategy)));
  // A copy that owns its buffer, so that the worker can hand it over.
  const values = lib.budgetCurve(sliceItems(r, strategy), upTo, simulationOptions(strategy)).slice();
  values[0] = 0; // selectFragments selects nothing at budget 0
  const o = overshootOf(lib, r, strategy);
  if (o.rank >= 0) values.fill(o.value, 1, Math.min(o.below, upTo + 1));
  return values;
}

/**
 * The value at each of `budgets`, from a separate run of the strategy's slicer function at each.
 * @param {typeof import('ctxpack/slicers')} lib
 * @param {RankedItems} r
 * @param {import('./strategy.js').Strategy} strategy
 * @param {readonly number[]} budgets
 * @returns {Float64Array}
 */
export function sampledCurve(lib, r, strategy, budgets) {
  const [fn, options] = sliceCall(strategy);
  const items = sliceItems(r, strategy);
  const rankOf = new Map(r.ids.map((id, i) => [id, i]));
  const o = overshootOf(lib, r, strategy);
  return Float64Array.from(budgets, (b) => {
    if (items.length === 0 || b === 0) return 0;
    const { selected } = lib[fn](items, { targetTokens: b }, options);
    if (selected.length === 0 && b < o.below) return o.value;
    let sum = 0;
    for (const id of selected) sum += scaledValue(r.scores[rankOf.get(id)]);
    return sum;
  });
}

/**
 * @typedef {object} PlanCurve
 * @property {number} budget  The chosen budget.
 * @property {number} ceiling  The last budget.
 * @property {number[] | null} budgets  The budgets of a sampled curve; null: every budget from 0 to `ceiling`.
 * @property {Float64Array} values  Scaled values at those budgets; with every budget, `values[b]` for
 *   `b` up to `values.length − 1` (the saturation budget, or `ceiling`), after which it stays flat.
 * @property {string | null} sampled  Why the curve is sampled (see {@link refusal}); null when it is not.
 */

/**
 * Why the package refused to simulate, when it did so for a reason the page can answer by rerunning
 * the strategy: `'NOT_MONOTONIC'` (the count-constrained strategies), `'TABLE_TOO_LARGE'` (too
 * many budgets or cells), `'DEPENDENCIES'` (required dependencies: the strategy then runs in
 * rounds that the one-pass simulation does not model). Null for any other error.
 */
export function refusal(err) {
  if (err?.code === 'NOT_MONOTONIC' || err?.code === 'TABLE_TOO_LARGE') return err.code;
  if (err?.code === 'INVALID_OPTION' && err.field === 'dependencies') return 'DEPENDENCIES';
  return null;
}

/** Every how many sampled budgets a coarse first pass runs (13 of the 121, the chosen one among them). */
export const COARSE_STEP = 10;

/**
 * The plot's data for a plan at `budget`: every budget when the package can simulate the
 * strategy, else 121 budgets. A sampled curve can take a while (121 runs of an exact count-
 * constrained solver on a large corpus): `onCoarse`, if given, first receives the curve at every
 * 10th of those budgets.
 * @param {typeof import('ctxpack/slicers')} lib
 * @param {RankedItems} r
 * @param {import('./strategy.js').Strategy} strategy
 * @param {number} budget
 * @param {(coarse: PlanCurve) => void} [onCoarse]
 * @returns {PlanCurve}
 */
export function planCurve(lib, r, strategy, budget, onCoarse) {
  const ceiling = curveCeiling(budget);
  const s = effectiveStrategy(lib, r, strategy);
  try {
    return { budget, ceiling, budgets: null, values: simulatedCurve(lib, r, s, ceiling), sampled: null };
  } catch (err) {
    const why = refusal(err);
    if (why === null) throw err;
    const budgets = curveBudgets(budget);
    const coarseBudgets = budgets.filter((_, i) => i % COARSE_STEP === 0);
    const coarse = sampledCurve(lib, r, s, coarseBudgets);
    onCoarse?.({ budget, ceiling, budgets: coarseBudgets, values: coarse.slice(), sampled: why });
    const rest = sampledCurve(lib, r, s, budgets.filter((_, i) => i % COARSE_STEP !== 0));
    const values = new Float64Array(budgets.length);
    for (let i = 0, c = 0, f = 0; i < budgets.length; i++) values[i] = i % COARSE_STEP === 0 ? coarse[c++] : rest[f++];
    return { budget, ceiling, budgets, values, sampled: why };
  }
}

/**
 * The strategy as the simulation and the slicer functions run it: required dependencies that bind
 * nothing (no fragment depends on one outside its group) change no selection, so they are dropped
 * and the simulation applies.
 * @param {typeof import('ctxpack/slicers')} lib
 * @param {RankedItems} r
 * @param {import('./strategy.js').Strategy} s
 */
export function effectiveStrategy(lib, r, s) {
  if (!s.requireDependencies) return s;
  const items = sliceItems(r, { ...s, slicer: 'greedy' });
  const binds = lib.groupUnits(items, { dependencies: 'require' }).needsOther.some((x) => x === 1);
  return binds ? s : { ...s, requireDependencies: false };
}

/** The budget of a curve's point `i`. */
export function budgetAt(curve, i) {
  return curve.budgets === null ? i : curve.budgets[i];
}

/** A full curve's value at budget `b` (it is flat past its last value). */
export function valueAt(curve, b) {
  return curve.values[Math.min(b, curve.values.length - 1)];
}

/**
 * What a person reads off the plot, in scaled values: the value at the chosen budget, the peak
 * over the range, and the smallest budget that reaches 99% of the peak (where more budget stops
 * paying).
 * @param {Pick<PlanCurve, 'budget' | 'budgets' | 'values' | 'ceiling'>} curve
 */
export function describeCurve(curve) {
  const { values } = curve;
  const at = curve.budgets === null ? Math.min(curve.budget, values.length - 1) : curve.budgets.indexOf(curve.budget);
  let peakIndex = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[peakIndex]) peakIndex = i;
  const peak = values.length === 0 ? 0 : Math.max(0, values[peakIndex]);
  const enough = values.findIndex((v) => v >= 0.99 * peak);
  return {
    atBudget: at === -1 || at >= values.length ? undefined : values[at],
    peak,
    peakAt: values.length === 0 ? 0 : budgetAt(curve, peakIndex),
    enoughAt: enough === -1 ? 0 : budgetAt(curve, enough),
    end: curve.ceiling,
  };
}

/**
 * The points to draw: a full curve is a step function, so only the budgets where the value
 * changes (and the last one) are kept, to be drawn as steps; a sampled curve keeps its samples.
 * @param {PlanCurve} curve
 * @returns {{ xs: Float64Array, ys: Float64Array, steps: boolean }}  `ys` in score units (÷ VALUE_SCALE).
 */
export function plotPoints(curve) {
  const { values } = curve;
  if (curve.budgets !== null) {
    return { xs: Float64Array.from(curve.budgets), ys: values.map((v) => v / VALUE_SCALE), steps: false };
  }
  const keep = [];
  for (let b = 0; b < values.length; b++) if (b === 0 || values[b] !== values[b - 1]) keep.push(b);
  const xs = keep.at(-1) === curve.ceiling ? keep : [...keep, curve.ceiling]; // the last value holds to the end
  return { xs: Float64Array.from(xs), ys: Float64Array.from(xs, (b) => valueAt(curve, b) / VALUE_SCALE), steps: true };
}
