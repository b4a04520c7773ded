/**
 * Validated readers of fragment fields, shared by every public function so that one fragment is
 * judged by one set of rules wherever it is passed. Not part of the public API.
 *
 * Each reader takes where the fragment sits ({@link Where}), so errors read
 * `candidates[3].cost_tokens must be …`; without a location they read `fragment.cost_tokens must be …`.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { MAX_EPOCH_MS, parseTimeInput } from '../util/time.js';

/** Largest accepted `cost_tokens` (the core counts tokens in u32). */
export const MAX_COST_TOKENS = 0xffff_ffff;

/** A fragment-like value whose fields have not been checked yet. */
export type Unchecked = Readonly<Record<string, unknown>>;

/**
 * Where a fragment sits: its index in `candidates`, or an explicit collection name and index
 * (`{ collection: 'selected', index: 2 }` → messages read `selected[2].…`), or nowhere.
 */
export type Where =
  | number
  | {
      readonly collection: string;
      readonly index: number;
      /** Property holding the fragment, e.g. `'fragment'`. */ readonly member?: string;
    }
  | undefined;

function indexOf(where: Where): number | undefined {
  return typeof where === 'object' ? where.index : where;
}

function elementPath(where: Where): string {
  if (where === undefined) return 'fragment';
  if (typeof where === 'number') return `candidates[${where}]`;
  return `${where.collection}[${where.index}]${where.member === undefined ? '' : `.${where.member}`}`;
}

function path(field: string, where: Where): string {
  return `${elementPath(where)}.${field}`;
}

/** `shown` is the path printed in the message when it is more precise than `field` (`entities[2]`). */
function invalid(field: string, where: Where, requirement: string, value: unknown, shown = field): CtxpackError {
  const index = indexOf(where);
  return new CtxpackError(
    'INVALID_FIELD',
    `${path(shown, where)} must be ${requirement}, got ${describeValue(value)}`,
    index === undefined ? { field } : { field, index },
  );
}

/** True for non-null, non-array objects. */
export function isRecord(value: unknown): value is Unchecked {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Asserts that a candidate is an object; the error names the collection and the index. */
export function assertFragmentObject(value: unknown, where: Where): asserts value is Unchecked {
  if (!isRecord(value)) {
    const index = indexOf(where);
    const collection = typeof where === 'object' ? where.collection : 'candidates';
    throw new CtxpackError(
      'INVALID_FIELD',
      `${elementPath(where)} must be an object, got ${describeValue(value)}`,
      index === undefined ? { field: 'fragment' } : { field: collection, index },
    );
  }
}

/** `DUPLICATE_ID` for element `index` of `collection`, whose id element `otherIndex` already has. */
export function duplicateIdError(collection: string, index: number, otherIndex: number): CtxpackError {
  return new CtxpackError('DUPLICATE_ID', `${collection}[${index}].id duplicates ${collection}[${otherIndex}].id`, {
    field: 'id',
    index,
    otherIndex,
  });
}

/** `id`: a non-empty string. */
export function readId(f: Unchecked, where?: Where): string {
  const id = f['id'];
  if (typeof id !== 'string' || id.length === 0) throw invalid('id', where, 'a non-empty string', id);
  return id;
}

/** `cost_tokens`: an integer in `[0, 2^32 - 1]`. */
export function readCost(f: Unchecked, where?: Where): number {
  const cost = f['cost_tokens'];
  if (!isCost(cost)) throw invalid('cost_tokens', where, 'a non-negative integer no greater than 4294967295', cost);
  return cost;
}

/**
 * `cost_tokens` of a fragment that may leave its count to `options.countTokens`: absent →
 * `undefined`, provided `content` is a string (checked here); present → as {@link readCost}.
 */
export function readOptionalCost(f: Unchecked, where?: Where): number | undefined {
  if (f['cost_tokens'] !== undefined) return readCost(f, where);
  const content = f['content'];
  if (content === undefined) {
    const index = indexOf(where);
    throw new CtxpackError(
      'INVALID_FIELD',
      `${path('cost_tokens', where)} is missing and there is no content to count: give cost_tokens (an integer from 0 to 4294967295), or content (a string) with options.countTokens`,
      index === undefined ? { field: 'cost_tokens' } : { field: 'cost_tokens', index },
    );
  }
  if (typeof content !== 'string') throw invalid('content', where, 'a string when cost_tokens is absent', content);
  return undefined;
}

/** Whether `value` is an array of strings: what `entities` and `dependencies` accept when present. */
export function isStringArray(value: unknown): value is readonly string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

/** Whether `value` is a number that {@link readTime} accepts as it is (the fast path for epoch ms). */
export function isEpochMs(value: unknown): value is number {
  // Also false for NaN and ±Infinity.
  return typeof value === 'number' && value >= -MAX_EPOCH_MS && value <= MAX_EPOCH_MS;
}

/** Whether `value` is what {@link readCost} accepts. */
export function isCost(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_COST_TOKENS;
}

function readStringArray(f: Unchecked, field: string, where: Where): readonly string[] {
  const value = f[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(field, where, 'an array of strings or absent', value);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') throw invalid(field, where, 'a string', item, `${field}[${i}]`);
  }
  return value as readonly string[];
}

/** `entities`: an array of strings; absent → `[]`. */
export function readEntities(f: Unchecked, where?: Where): readonly string[] {
  return readStringArray(f, 'entities', where);
}

/** `dependencies`: an array of strings; absent → `[]`. */
export function readDependencies(f: Unchecked, where?: Where): readonly string[] {
  return readStringArray(f, 'dependencies', where);
}

/** `citations`: an array of anything; returns its length, absent → 0. */
export function readCitationCount(f: Unchecked, where?: Where): number {
  const value = f['citations'];
  if (value === undefined) return 0;
  if (!Array.isArray(value)) throw invalid('citations', where, 'an array or absent', value);
  return value.length;
}

/** `timestamp` / `lastAccessTime`: a time input; absent → `undefined`. */
export function readTime(f: Unchecked, field: 'timestamp' | 'lastAccessTime', where?: Where): number | undefined {
  const value = f[field];
  if (value === undefined) return undefined;
  const ms = parseTimeInput(value);
  if (ms === undefined) {
    throw invalid(field, where, 'a valid Date, an ISO 8601 string with an offset, or epoch milliseconds', value);
  }
  return ms;
}

/** `lod` / `kind` / `source`: a string; absent → `undefined`. */
export function readOptionalString(f: Unchecked, field: 'lod' | 'kind' | 'source', where?: Where): string | undefined {
  const value = f[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(field, where, 'a string or absent', value);
  return value;
}

/** `benefit`: a finite number; absent → `undefined`. */
export function readBenefit(f: Unchecked, where?: Where): number | undefined {
  const value = f['benefit'];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('benefit', where, 'a finite number or absent', value);
  return value;
}
