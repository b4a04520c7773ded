/**
 * Step 1: everything `selectFragments` is given, validated before any work, into one {@link Call}
 * that the later steps read.
 *
 * @internal
 * @module
 */

import type { Scratch } from '../core/scratch.js';
import { EntityMatcher, peekGaze, readGaze } from '../ranking/scoring.js';
import { CallCounts } from '../tokens/counter.js';
import { emptyBudgetReason, readBudgets, type CheckedBudgets } from '../validate/budgets.js';
import { validateCandidates, type Candidates } from '../validate/candidates.js';
import { isRecord } from '../validate/fields.js';
import { checkCharges } from './charges.js';
import { checkGrouping, type Grouping } from './grouping.js';
import { readSettings, settingsWarnings, type Settings } from './settings.js';

/** A validated call. */
export interface Call {
  readonly c: Candidates;
  readonly gaze: ReadonlySet<string>;
  readonly budget: CheckedBudgets;
  readonly s: Settings;
  readonly counts: CallCounts;
  /** What groups or required dependencies change in this call; `undefined`: nothing. */
  readonly grouping: Grouping | undefined;
  /** The packer ranks by benefit, and counts lazily unless groups need every count first. */
  readonly packer: boolean;
  /**
   * Whether a score is the benefit scaled by the count (`costScaled`); not for the packer, which
   * scores before counting: its score is the benefit.
   */
  readonly costScored: boolean;
  readonly lazy: boolean;
  readonly warnings: string[];
}

/** Validates in the documented order (see `selectFragments`, step 1). */
export function readCall(candidates: unknown, gaze: unknown, budgets: unknown, options: unknown, scratch: Scratch): Call {
  const defaultNow = Date.now();
  const gazeAhead = peekGaze(gaze);
  // A token counter is a callback that could change the array; the plan keeps the validated objects.
  const copy = isRecord(options) && options['countTokens'] !== undefined;
  const c = validateCandidates(candidates, gazeAhead === undefined ? undefined : new EntityMatcher(gazeAhead), copy, scratch);
  const gazeSet = gazeAhead ?? readGaze(gaze);
  const budget = readBudgets(budgets);
  const s = readSettings(options, defaultNow);
  const counts = new CallCounts(c.given, c.contents, s.countTokens, s.model);
  checkCharges(c, s, budget);
  const warnings = settingsWarnings(s);
  const empty = emptyBudgetReason(budget);
  if (empty !== undefined) warnings.push(`the effective budget is 0 (${empty}): nothing can be selected`);
  // Groups and required dependencies: checked here, before anything is counted.
  const grouping = checkGrouping(c, s);
  const packer = s.slicer === 'packer';
  return { c, gaze: gazeSet, budget, s, counts, grouping, packer, costScored: !packer, lazy: packer && grouping === undefined && c.variants === undefined, warnings };
}
