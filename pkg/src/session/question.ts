/**
 * A new question on a turn that could append (docs/sessions.md, "A new question"): whether a
 * left-out message has more value than what the append keeps, and what a cut is worth more than
 * the append. The session (session.ts) plans the cuts; this weighs them.
 *
 * @internal
 * @module
 */

import type { FitFill } from '../messages/choose.js';
import type { ScoredFit } from '../messages/pipeline.js';
import { requestCost, type Pricing } from './pricing.js';

/**
 * The mean value per token of what the append `a` keeps, when a message it leaves out has more
 * (a cut by value may then bring back more than it gives up); `undefined` otherwise: the turn
 * appends without weighing a cut (a cut costs about fifteen fills).
 */
export function questionGives(s: ScoredFit<unknown>, a: FitFill): number | undefined {
  const overhead = s.budget.perFragmentOverhead;
  let valueTokens = 0;
  let keptTokens = 0;
  let best = -Infinity;
  for (let i = 0; i < a.included.length; i++) {
    if (s.scored[i] === 0) continue;
    if (a.included[i] === 0) best = Math.max(best, s.values[i]!);
    else {
      valueTokens += s.values[i]! * (s.costs[i]! + overhead);
      keptTokens += s.costs[i]! + overhead;
    }
  }
  const mean = keptTokens > 0 && valueTokens > 0 ? valueTokens / keptTokens : 1;
  return best > mean ? mean : undefined;
}

/**
 * What cut `c` is worth more than appending (`a`) on a turn with a new question (positive: it
 * pays): the value `c` keeps that `a` leaves out, less the value `a` keeps that `c` leaves out
 * (value per token against `mean`, that of what `a` keeps, in token prices, halved as `lost` is in
 * `cutObjective`), less what `c` costs more than `a` in this request (the prefix it rewrites). A
 * question that gives value to what an earlier cut left out brings it back when that value pays
 * for the cache write; otherwise the turn appends, as every turn whose new messages fit.
 */
export function cutMargin(p: Pricing, s: ScoredFit<unknown>, a: FitFill, c: FitFill, mean: number, prefixOf: (f: FitFill) => { cached: number }): number {
  const overhead = s.budget.perFragmentOverhead;
  let gain = 0;
  for (let i = 0; i < c.included.length; i++) {
    if (c.included[i] === a.included[i] || s.scored[i] === 0) continue;
    const value = (s.values[i]! / mean) * (s.costs[i]! + overhead);
    gain += c.included[i] === 1 ? value : -value;
  }
  if (gain <= 0) return 0;
  const extra = requestCost(p, c.promptTokens, prefixOf(c).cached) - requestCost(p, a.promptTokens, prefixOf(a).cached);
  return gain / 2 - extra;
}
