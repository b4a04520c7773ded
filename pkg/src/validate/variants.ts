/**
 * A candidate's `variants` (docs/variants.md): shorter versions of it, read and checked in one
 * place. The multiple-choice selection itself is the core's.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { isCost, isRecord } from './fields.js';

/** One checked variant: its count when given (`content` to count otherwise), lod, id and scale. */
export interface VariantInput {
  readonly id: string | undefined;
  /** `cost_tokens`; `undefined` when `content` is to be counted. */
  readonly cost: number | undefined;
  readonly content: string | undefined;
  readonly lod: string;
  /** `benefit_scale`; `undefined`: the default rule ({@link defaultScale}). */
  readonly scale: number | undefined;
}

function invalid(i: number, field: string, requirement: string, value: unknown): CtxpackError {
  return new CtxpackError('INVALID_FIELD', `candidates[${i}].${field} must be ${requirement}, got ${describeValue(value)}`, { field, index: i });
}

/**
 * Candidate `i`'s `variants`: an array of objects `{ id?, cost_tokens | content, lod,
 * benefit_scale? }`; `INVALID_FIELD` naming `variants[k].<field>` and the candidate otherwise.
 * `countable`: whether a counter is given (else `content` without `cost_tokens` is refused).
 */
export function readVariants(value: unknown, i: number): VariantInput[] {
  if (!Array.isArray(value)) throw invalid(i, 'variants', 'an array of versions', value);
  const out: VariantInput[] = [];
  const ids = new Set<string>();
  for (let k = 0; k < value.length; k++) {
    const v: unknown = value[k];
    const at = `variants[${k}]`;
    if (!isRecord(v)) throw invalid(i, at, 'an object', v);
    const id = v['id'];
    if (id !== undefined && (typeof id !== 'string' || id.length === 0)) throw invalid(i, `${at}.id`, 'a non-empty string or absent', id);
    if (id !== undefined) {
      if (ids.has(id)) throw invalid(i, `${at}.id`, 'unique among the fragment\'s variants', '(a repeated id)');
      ids.add(id);
    }
    const cost = v['cost_tokens'];
    const content = v['content'];
    if (cost !== undefined && !isCost(cost)) throw invalid(i, `${at}.cost_tokens`, 'a non-negative integer no greater than 4294967295', cost);
    if (cost === undefined && typeof content !== 'string') {
      throw invalid(i, `${at}.cost_tokens`, 'given, or absent with a string content to count', cost);
    }
    const lod = v['lod'];
    if (typeof lod !== 'string' || lod.length === 0) throw invalid(i, `${at}.lod`, 'a non-empty string', lod);
    const scale = v['benefit_scale'];
    if (scale !== undefined && (typeof scale !== 'number' || !(scale >= 0 && scale <= 1))) {
      throw invalid(i, `${at}.benefit_scale`, 'a number from 0 to 1', scale);
    }
    out.push({
      id: id as string | undefined,
      cost: cost as number | undefined,
      content: cost === undefined ? (content as string) : undefined,
      lod,
      scale: scale as number | undefined,
    });
  }
  return out;
}

/**
 * The default share of the full version's value that a version keeps: `sqrt(cost / fullCost)`, at
 * most 1, and 1 when the full version costs nothing. Concave, so halving a text keeps ~71% of its
 * value: the model still knows what the long version was about.
 */
export function defaultScale(cost: number, fullCost: number): number {
  if (fullCost <= 0) return 1;
  return Math.min(1, Math.sqrt(cost / fullCost));
}
