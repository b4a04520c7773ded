/**
 * What a candidate takes of the effective budget (its count plus the per-fragment overhead), and
 * step 1's checks of it: a candidate without `cost_tokens` needs a counter, and no charge may
 * exceed what the core counts in (u32).
 *
 * @internal
 * @module
 */

import { CtxpackError } from '../errors.js';
import type { CheckedBudgets } from '../validate/budgets.js';
import type { Candidates } from '../validate/candidates.js';
import { MAX_COST_TOKENS } from '../validate/fields.js';
import type { Settings } from './settings.js';

/** Candidate `index`'s charge: `cost` plus the per-fragment overhead, at most 2^32 − 1 (`INVALID_FIELD` otherwise). */
export function chargeOf(index: number, cost: number, budget: CheckedBudgets): number {
  const charge = cost + budget.perFragmentOverhead;
  if (charge > MAX_COST_TOKENS) {
    throw new CtxpackError(
      'INVALID_FIELD',
      `candidates[${index}].cost_tokens (${cost}) plus budgets.per_fragment_overhead (${budget.perFragmentOverhead}) exceeds 4294967295`,
      { field: 'cost_tokens', index },
    );
  }
  return charge;
}

/** Step 1's checks that need the options and the budgets, in input order. */
export function checkCharges(c: Candidates, s: Settings, budget: CheckedBudgets): void {
  const { given, contents } = c;
  checkVariantCounts(c, s);
  // Without contents to count and without overhead, no check can fail.
  if (contents === undefined && budget.perFragmentOverhead === 0) return;
  for (let i = 0; i < given.length; i++) {
    if (contents !== undefined && contents[i] !== undefined) {
      if (s.countTokens === undefined) {
        throw new CtxpackError(
          'INVALID_FIELD',
          `candidates[${i}].cost_tokens is missing: pass options.countTokens (or estimateTokens) to count its content, or give cost_tokens`,
          { field: 'cost_tokens', index: i },
        );
      }
    } else {
      chargeOf(i, given[i]!, budget);
    }
  }
}

/** A variant without `cost_tokens` needs a counter, as a candidate does. */
function checkVariantCounts(c: Candidates, s: Settings): void {
  if (c.variants === undefined || s.countTokens !== undefined) return;
  for (let i = 0; i < c.variants.length; i++) {
    const list = c.variants[i];
    const k = list === undefined ? -1 : list.findIndex((v) => v.cost === undefined);
    if (k >= 0) {
      throw new CtxpackError(
        'INVALID_FIELD',
        `candidates[${i}].variants[${k}].cost_tokens is missing: pass options.countTokens (or estimateTokens) to count its content, or give cost_tokens`,
        { field: `variants[${k}].cost_tokens`, index: i },
      );
    }
  }
}
