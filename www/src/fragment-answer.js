// What the budget means for one fragment: for a selected one, by how much the budget can shrink
// before it drops (and what leaves and comes in with it); for a left-out one, from which budget it
// gets in. Answered by the package's budget simulation (`minBudgetFor`, `droppedUnderSlack`) over
// the plan's ranking, with selectFragments' own edge cases (nothing at budget 0, the overshoot
// candidate when nothing fits) laid on top.
// Pure: the package is passed in, so that the worker and the Node tests share this code.

import { curveCeiling, effectiveStrategy, overshootOf, refusal, sliceItems } from './curve.js';
import { simulationOptions } from './strategy.js';

/**
 * @typedef {object} FragmentAnswer
 * @property {string} id
 * @property {number} budget  The chosen budget.
 * @property {boolean} selected  Whether the plan at `budget` selects it.
 * @property {string | null} unavailable  Why the package does not answer (see `refusal` in curve.js), with its `message`; null when answered.
 * @property {string} [message]
 * -- a selected fragment:
 * @property {number} [slack]  The smallest shrink of the budget that drops it: it is selected at every budget from `budget − slack + 1` to `budget`, not at `budget − slack`.
 * @property {number} [shrunkBudget]  `budget − slack`.
 * @property {string[]} [dropped]  Every fragment selected at `budget` but not at `shrunkBudget` (this one included), in output order.
 * @property {string[]} [added]  Every fragment selected at `shrunkBudget` but not at `budget`.
 * -- a left-out fragment, between budgets 0 and `ceiling`:
 * @property {number} [ceiling]  The last budget examined: the plot's.
 * @property {number | null} [first]  The smallest budget at which it is selected; null: none.
 * @property {number | null} [stableFrom]  The smallest from which it is selected at every budget up to `ceiling`; null: none.
 */

/**
 * @param {typeof import('ctxpack/slicers')} lib
 * @param {import('./curve.js').RankedItems} r
 * @param {import('./strategy.js').Strategy} strategy
 * @param {number} budget
 * @param {string} id
 * @returns {FragmentAnswer}
 */
export function fragmentAnswer(lib, r, chosenStrategy, budget, id) {
  const strategy = effectiveStrategy(lib, r, chosenStrategy);
  const rank = r.ids.indexOf(id);
  if (rank < 0) throw new Error('no fragment has this id');
  const sim = simulationOptions(strategy);
  const items = sliceItems(r, strategy);
  const o = overshootOf(lib, r, strategy);
  // selectFragments selects the overshoot candidate alone at budgets 1 … `region`.
  const region = o.rank >= 0 ? Math.min(o.below - 1, Number.MAX_SAFE_INTEGER) : 0;
  const isCandidate = o.rank === rank;
  /** minBudgetFor's answer over 0 … maxBudget, with the overshoot region laid on top. */
  const minBudget = (maxBudget) => {
    const m = lib.minBudgetFor(items, id, { ...sim, maxBudget });
    if (!isCandidate || region === 0 || maxBudget === 0) return m;
    // The simulation selects nothing below `below`; the planner selects the candidate there.
    const stable = maxBudget <= region || (m.stableFrom !== null && m.stableFrom <= region + 1);
    return { first: 1, stableFrom: stable ? 1 : m.stableFrom };
  };
  /** The planner's selection at `b` from the simulation's selection there. */
  const planned = (b, selected) => (b === 0 ? [] : b <= region ? [r.ids[o.rank]] : selected);

  let atBudget;
  try {
    atBudget = minBudget(budget);
  } catch (err) {
    if (refusal(err) === null) throw err;
    return { id, budget, selected: false, unavailable: refusal(err), message: err.message };
  }
  if (budget > 0 && atBudget.stableFrom !== null) {
    const slack = budget - atBudget.stableFrom + 1;
    const s = lib.droppedUnderSlack(items, { targetTokens: budget }, slack, sim);
    const before = planned(budget, s.atBudget.selected);
    const after = planned(s.shrunkBudget, s.atShrunkBudget.selected);
    const inBefore = new Set(before);
    const inAfter = new Set(after);
    return {
      id,
      budget,
      selected: true,
      unavailable: null,
      slack,
      shrunkBudget: s.shrunkBudget,
      dropped: before.filter((x) => !inAfter.has(x)),
      added: after.filter((x) => !inBefore.has(x)),
    };
  }
  const ceiling = curveCeiling(budget);
  let over;
  try {
    over = minBudget(ceiling);
  } catch (err) {
    if (refusal(err) === null) throw err;
    return { id, budget, selected: false, unavailable: refusal(err), message: err.message };
  }
  return { id, budget, selected: false, unavailable: null, ceiling, first: over.first, stableFrom: over.stableFrom };
}
