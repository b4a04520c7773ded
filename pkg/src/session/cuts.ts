/**
 * A session's cuts (docs/sessions.md): the stable head forced, then the prompt size that
 * minimises `cutObjective` (pricing.ts) among shares of the budget, each a fill of one problem
 * (messages/choose.ts `fitProblem`): the problem is built once per turn, each size is a fill of it, and
 * only the fill kept is made a result. session.ts decides when to cut.
 *
 * @internal
 * @module
 */

import { fitProblem, type FitFill, type FitProblem } from '../messages/choose.js';
import type { ScoredFit } from '../messages/pipeline.js';
import { cutObjective, type Pricing } from './pricing.js';
import type { PreviousRequest } from './types.js';

/** The prompt sizes a cut considers, as shares of the budget: 100 % down to 30 %. */
const CUT_SHARES = Array.from({ length: 15 }, (_, k) => 1 - k * 0.05);

/** A plan's problem (messages/choose.ts) and the fill of it a turn chose; its result is made once, for the fill kept. */
export interface Planned<M> {
  readonly problem: FitProblem<M>;
  readonly fill: FitFill;
}

export const planned = <M>(problem: FitProblem<M>): Planned<M> => ({ problem, fill: problem.fill() });

/** What the cuts of a turn share: the problem with the stable head forced, and its fill of the whole budget. */
export interface CutBase<M> {
  readonly problem: FitProblem<M>;
  readonly forced: Uint8Array;
  readonly full: FitFill;
}

/**
 * What every cut of a turn starts from: the stable head (the previous request's first `head`
 * entries still in the history, `reusable` of them unchanged) forced, unless it leaves no room,
 * and the fill of the whole budget under it.
 */
export function cutBase<M>(s: ScoredFit<M>, prev: PreviousRequest | null, reusable: number, ownMarkers: Uint8Array | undefined, forcedStub: Uint8Array): CutBase<M> {
  const n = s.list.length;
  const overhead = s.budget.perFragmentOverhead;
  const forced = new Uint8Array(n);
  let headTokens = 0;
  for (let k = 0; prev !== null && k < Math.min(prev.head, reusable); k++) {
    for (const j of s.units.members.get(s.units.unitOf[prev.entries[k]![0]]!)!) {
      if (s.scored[j] === 1 && forced[j] === 0) {
        forced[j] = 1;
        headTokens += (forcedStub[j] === 1 ? s.stubCosts[s.stubOf[j]!]! : s.costs[j]!) + overhead;
      }
    }
  }
  if (s.pinnedTokens + headTokens > s.budget.effective) forced.fill(0);
  const problem = fitProblem(s, { forced, forcedStub, ownMarkers });
  return { problem, forced, full: problem.fill() };
}

/**
 * A cut from `base` (cutBase): the prompt size P that minimises `cutObjective` (with `pricing`
 * and the history's `growthPerTurn`) among CUT_SHARES of the budget, each filled by value as
 * fitMessages fills it (or fill `target`, when given). Before any cut is needed (everything
 * fits), the full fit.
 */
export function cutFill<M>(
  pricing: Pricing,
  s: ScoredFit<M>,
  base: CutBase<M>,
  budget: number,
  growthPerTurn: () => number,
  prefixOf: (f: FitFill) => { cached: number },
  target: number | undefined,
): Planned<M> {
  const n = s.list.length;
  const overhead = s.budget.perFragmentOverhead;
  const { problem, forced, full } = base;
  const chosen = (fill: FitFill): Planned<M> => ({ problem, fill });
  let fitsAll = true;
  for (let i = 0; i < n && fitsAll; i++) fitsAll = full.included[i] === 1 || s.scored[i] === 0;
  if (fitsAll) return chosen(full);
  if (target !== undefined) return chosen(target >= s.budget.effective ? full : problem.fill(target));

  // What the full fit keeps is worth its price: value is measured against its mean value per token.
  let valueTokens = 0;
  let keptTokens = 0;
  for (let i = 0; i < n; i++) {
    if (full.included[i] === 0 || s.scored[i] === 0 || forced[i] === 1) continue;
    valueTokens += s.values[i]! * (s.costs[i]! + overhead);
    keptTokens += s.costs[i]! + overhead;
  }
  const meanValue = valueTokens > 0 ? valueTokens / keptTokens : 1;
  const growth = growthPerTurn();
  let best = full;
  let bestScore = Infinity;
  // Every size but the full fit's in one call of the core (it sorts and groups once).
  const sized = problem.fills(CUT_SHARES.filter((share) => share !== 1).map((share) => Math.floor(share * s.budget.effective)));
  for (let k = 0, j = 0; k < CUT_SHARES.length; k++) {
    const r = CUT_SHARES[k] === 1 ? full : sized[j++]!;
    let lost = 0;
    for (let i = 0; i < n; i++) {
      if (full.included[i] === 1 && r.included[i] === 0) lost += (s.values[i]! / meanValue) * (s.costs[i]! + overhead);
    }
    const score = cutObjective(pricing, budget, r.promptTokens, prefixOf(r).cached, growth, lost);
    if (score < bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return chosen(best);
}
