/**
 * What every slicer function reads first: the items (ids, tokens, scores, kinds, groups,
 * dependencies) into columns, their links as the core takes them, and the budget.
 *
 * @internal
 * @module
 */

import type { VariantColumns } from '../core/bridge.js';
import { linksOf, type Links } from '../core/links.js';
import { CtxpackError, describeValue } from '../errors.js';
import { duplicateIdError, isRecord, MAX_COST_TOKENS, readId } from '../validate/fields.js';
import type { DependencyMode } from '../core/types.js';

function fieldError(index: number, field: string, requirement: string, value: unknown): CtxpackError {
  return new CtxpackError('INVALID_FIELD', `items[${index}].${field} must be ${requirement}, got ${describeValue(value)}`, {
    field,
    index,
  });
}

/** The validated items, as parallel arrays. @internal */
export interface Columns {
  ids: string[];
  tokens: Uint32Array;
  scores: Float64Array;
  kinds: Uint32Array;
  kindNames: string[];
  /** Per item, its group or `undefined`. */
  groups: (string | undefined)[];
  /** Per item, the ids it depends on or `undefined`. */
  dependencies: (readonly string[] | undefined)[];
  /** Whether any item has a group or dependencies (the call then goes through the core's grouped entry). */
  grouping: boolean;
  /** The items' `variants` as the core takes them (a row per version), when any item has some. */
  versions: VariantColumns | undefined;
}

/** Validates items as every slicer function does (ids, tokens, scores, kinds, groups, dependencies). @internal */
export function readSliceItems(items: unknown): Columns {
  return columns(items);
}

/** The items' groups, and with `'require'` their dependencies, as the core takes them. @internal */
export function linksOfColumns(cols: Columns, mode: DependencyMode): Links {
  const index = new Map<string, number>();
  cols.ids.forEach((id, i) => index.set(id, i));
  return linksOf(
    cols.ids.length,
    (i) => cols.groups[i],
    mode === 'require' ? (i) => cols.dependencies[i] : undefined,
    (id) => index.get(id),
  );
}

function columns(items: unknown): Columns {
  if (!Array.isArray(items)) {
    throw new CtxpackError('INVALID_INPUT', `items must be an array, got ${describeValue(items)}`, { field: 'items' });
  }
  const n = items.length;
  const out: Columns = {
    ids: new Array<string>(n),
    tokens: new Uint32Array(n),
    scores: new Float64Array(n),
    kinds: new Uint32Array(n),
    kindNames: [],
    groups: [],
    dependencies: [],
    grouping: false,
    versions: undefined,
  };
  const kindIds = new Map<string, number>();
  const firstIndex = new Map<string, number>();
  const rows: VersionRows = { cls: [], tokens: [], scores: [] };
  // Where readId's error points, one object moved along the items rather than one made per item.
  const at = { collection: 'items', index: 0 };
  for (let i = 0; i < n; i++) {
    const item: unknown = items[i];
    if (!isRecord(item)) {
      throw new CtxpackError('INVALID_FIELD', `items[${i}] must be an object, got ${describeValue(item)}`, { field: 'items', index: i });
    }
    const { tokens, score, kind, group, dependencies, variants } = item;
    at.index = i;
    const id = readId(item, at);
    const first = firstIndex.get(id);
    if (first !== undefined) throw duplicateIdError('items', i, first);
    firstIndex.set(id, i);
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0 || tokens > MAX_COST_TOKENS) {
      throw fieldError(i, 'tokens', 'an integer from 0 to 4294967295', tokens);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) throw fieldError(i, 'score', 'a finite number', score);
    let kindName = '';
    if (kind !== undefined) {
      if (typeof kind !== 'string') throw fieldError(i, 'kind', 'a string or absent', kind);
      kindName = kind;
    }
    let k = kindIds.get(kindName);
    if (k === undefined) {
      k = out.kindNames.length;
      kindIds.set(kindName, k);
      out.kindNames.push(kindName);
    }
    if (group !== undefined) {
      if (typeof group !== 'string' || group.length === 0) throw fieldError(i, 'group', 'a non-empty string or absent', group);
      out.groups[i] = group;
      out.grouping = true;
    }
    if (dependencies !== undefined) {
      if (!Array.isArray(dependencies)) throw fieldError(i, 'dependencies', 'an array of strings or absent', dependencies);
      dependencies.forEach((d: unknown, k: number) => {
        if (typeof d !== 'string') throw fieldError(i, `dependencies[${k}]`, 'a string', d);
      });
      out.dependencies[i] = dependencies as string[];
      out.grouping = true;
    }
    if (variants !== undefined) readVariants(rows, i, variants);
    out.ids[i] = id;
    out.tokens[i] = tokens;
    out.scores[i] = score;
    out.kinds[i] = k;
  }
  if (rows.cls.length > 0) {
    out.versions = { versionClass: Uint32Array.from(rows.cls), tokens: Uint32Array.from(rows.tokens), scores: Float64Array.from(rows.scores) };
  }
  return out;
}

/** The version rows read so far: item, tokens, score. */
type VersionRows = { cls: number[]; tokens: number[]; scores: number[] };

/** Item `i`'s `variants`: `[{ tokens, score }]`, appended to `rows`. */
function readVariants(rows: VersionRows, i: number, variants: unknown): void {
  if (!Array.isArray(variants)) throw fieldError(i, 'variants', 'an array of { tokens, score } or absent', variants);
  variants.forEach((v: unknown, k: number) => {
    if (!isRecord(v)) throw fieldError(i, `variants[${k}]`, 'an object { tokens, score }', v);
    const { tokens, score } = v;
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0 || tokens > MAX_COST_TOKENS) {
      throw fieldError(i, `variants[${k}].tokens`, 'an integer from 0 to 4294967295', tokens);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) throw fieldError(i, `variants[${k}].score`, 'a finite number', score);
    rows.cls.push(i);
    rows.tokens.push(tokens);
    rows.scores.push(score);
  });
}

/** The slicer functions' `budget` argument, validated. @internal */
export function budgetOf(budget: unknown): { targetTokens: number; maxTokens?: number } {
  if (!isRecord(budget)) {
    throw new CtxpackError('INVALID_BUDGET', `budget must be an object { targetTokens, maxTokens? }, got ${describeValue(budget)}`, {
      field: 'budget',
    });
  }
  const check = (name: 'targetTokens' | 'maxTokens'): number | undefined => {
    const v = budget[name];
    if (v === undefined && name === 'maxTokens') return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
      throw new CtxpackError('INVALID_BUDGET', `budget.${name} must be a non-negative safe integer, got ${describeValue(v)}`, {
        field: `budget.${name}`,
      });
    }
    return v;
  };
  const targetTokens = check('targetTokens')!;
  const maxTokens = check('maxTokens');
  if (maxTokens !== undefined && maxTokens < targetTokens) {
    throw new CtxpackError('INVALID_BUDGET', `budget.maxTokens must be at least budget.targetTokens (${targetTokens}), got ${maxTokens}`, {
      field: 'budget.maxTokens',
    });
  }
  return maxTokens === undefined ? { targetTokens } : { targetTokens, maxTokens };
}
