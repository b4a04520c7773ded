/**
 * Budgets beyond `tokens_max`: the output reserve, fixed overhead, per-fragment overhead and the
 * safety margin, and the effective budget they leave for fragments (see {@link Budgets}).
 *
 * @module
 */

import { CtxpackError, describeValue, didYouMean, shownName } from '../errors.js';
import { MAX_COST_TOKENS, isRecord } from './fields.js';
import type { Budgets } from '../types.js';

/** The fields of {@link Budgets}. */
const BUDGET_FIELDS = ['tokens_max', 'output_reserve', 'overhead_tokens', 'per_fragment_overhead', 'safety_margin_percent'] as const;

/** Budget names of providers and other libraries (folded: lower case, no `_` or `-`), and ctxpack's words for them. */
const BUDGET_NAMES_ELSEWHERE: Readonly<Record<string, string>> = {
  maxtokens: 'tokens_max (the whole window, prompt and reply) with output_reserve (the reply\'s share)',
  maxinputtokens: 'tokens_max',
  contextwindow: 'tokens_max',
  maxcontexttokens: 'tokens_max',
};

/** Validated budgets. @internal */
export interface CheckedBudgets {
  readonly tokensMax: number;
  readonly outputReserve: number;
  readonly overheadTokens: number;
  readonly perFragmentOverhead: number;
  readonly safetyMarginPercent: number;
  /** What the strategies fill; see {@link effectiveBudget}. */
  readonly effective: number;
}

function invalidBudget(field: string, message: string): CtxpackError {
  return new CtxpackError('INVALID_BUDGET', `budgets.${field} ${message}`, { field: `budgets.${field}` });
}

function readTokens(b: Readonly<Record<string, unknown>>, field: (typeof BUDGET_FIELDS)[number], max = Number.MAX_SAFE_INTEGER): number {
  const v = b[field];
  if (v === undefined && field !== 'tokens_max') return 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? 'a non-negative safe integer' : `an integer from 0 to ${max}`;
    throw invalidBudget(field, `must be ${range}, got ${describeValue(v)}`);
  }
  return v;
}

/**
 * Validates `budgets`. Every failure is `INVALID_BUDGET` with `field` `'budgets'` (not an object)
 * or `'budgets.<name>'` (a bad value, or a name that is not a budget).
 * @internal
 */
export function readBudgets(budgets: unknown): CheckedBudgets {
  if (!isRecord(budgets)) {
    throw new CtxpackError('INVALID_BUDGET', `budgets must be an object { tokens_max, … }, got ${describeValue(budgets)}`, {
      field: 'budgets',
    });
  }
  // Unknown names first: `{ tokensMax }` is a misspelt tokens_max, not a missing one.
  for (const key of Object.keys(budgets)) {
    if (!(BUDGET_FIELDS as readonly string[]).includes(key)) {
      throw invalidBudget(shownName(key), `is not a budget (known: ${BUDGET_FIELDS.join(', ')})${didYouMean(key, BUDGET_FIELDS, BUDGET_NAMES_ELSEWHERE)}`);
    }
  }
  const tokensMax = readTokens(budgets, 'tokens_max');
  const outputReserve = readTokens(budgets, 'output_reserve');
  const overheadTokens = readTokens(budgets, 'overhead_tokens');
  const perFragmentOverhead = readTokens(budgets, 'per_fragment_overhead', MAX_COST_TOKENS);
  const m = budgets['safety_margin_percent'];
  if (m !== undefined && (typeof m !== 'number' || !Number.isFinite(m) || m < 0 || m >= 100)) {
    throw invalidBudget('safety_margin_percent', `must be a number from 0 to less than 100, got ${describeValue(m)}`);
  }
  const safetyMarginPercent = m ?? 0;
  return {
    tokensMax,
    outputReserve,
    overheadTokens,
    perFragmentOverhead,
    safetyMarginPercent,
    effective: effectiveOf(tokensMax, outputReserve, overheadTokens, safetyMarginPercent),
  };
}

/**
 * Why `b` leaves nothing to select although `tokens_max` is not 0 (the output reserve, the overhead
 * and the margin take it all): the four figures, for a warning or an error; `undefined` otherwise.
 * @internal
 */
export function emptyBudgetReason(b: CheckedBudgets): string | undefined {
  if (b.tokensMax === 0 || b.effective > 0) return undefined;
  return `tokens_max ${b.tokensMax}, output_reserve ${b.outputReserve}, overhead_tokens ${b.overheadTokens}, safety_margin_percent ${b.safetyMarginPercent}`;
}

/** `m` (finite, in [0, 100)) as the exact fraction `numerator / 10^scale` of its decimal form. */
function decimal(m: number): { numerator: bigint; scale: number } {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(m));
  if (match === null) throw new CtxpackError('INTERNAL', `cannot read the margin ${m} as a decimal`);
  const fraction = match[2] ?? '';
  let numerator = BigInt(match[1]! + fraction);
  let scale = fraction.length - Number(match[3] ?? 0);
  if (scale < 0) {
    numerator *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { numerator, scale };
}

function effectiveOf(tokensMax: number, outputReserve: number, overheadTokens: number, marginPercent: number): number {
  const left = BigInt(tokensMax) - BigInt(outputReserve) - BigInt(overheadTokens);
  if (left <= 0n) return 0;
  const { numerator, scale } = decimal(marginPercent);
  const whole = 100n * 10n ** BigInt(scale); // 100 % in units of 10^-scale
  return Number((left * (whole - numerator)) / whole);
}

/**
 * The effective budget of `budgets`: the tokens left for fragments (with their per-fragment
 * overhead) once the output reserve and the fixed overhead are taken from `tokens_max` and the
 * safety margin from the rest:
 *
 * ```text
 * floor((tokens_max − output_reserve − overhead_tokens) × (100 − safety_margin_percent) / 100)
 * ```
 *
 * or 0 when the reserve and the overhead leave nothing. Exact: the margin is read as the decimal
 * number it prints as (`2.5` is 2.5 %, not the nearest binary fraction) and the arithmetic is done
 * in integers, so `{ tokens_max: 1000, safety_margin_percent: 10 }` gives exactly 900.
 * `selectFragments` reports the same number as `metrics.effective_budget`.
 *
 * @example
 * effectiveBudget({ tokens_max: 128_000, output_reserve: 4_000, overhead_tokens: 1_500, safety_margin_percent: 5 }); // 116375
 * @throws {CtxpackError} `INVALID_BUDGET` naming the field.
 */
export function effectiveBudget(budgets: Budgets): number {
  return readBudgets(budgets).effective;
}
