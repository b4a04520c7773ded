/**
 * The Rust slicers for callers who score on their own: items in the caller's order, a budget,
 * and back the selection with a reason for every item. Each function validates in TypeScript
 * what the typed arrays cannot carry (ids, kinds, types), then runs the core's columnar path.
 *
 * @module
 */

import {
  sliceColumnar,
  sliceObjects,
  type ColumnarRequest,
  type ColumnarResult,
  type CountEntry,
  type ObjectItem,
  type ReasonCode,
  type SlicerName,
  type Shortfall,
} from './core.js';
import { CtxpackError, describeValue } from './errors.js';
import { isRecord, MAX_COST_TOKENS } from './fields.js';

/** An item to slice: your id, its token count and score, and optionally its kind. */
export interface SliceItem {
  /** Your identifier; unique within the call. */
  id: string;
  /** Token count: an integer from 0 to 2^32 − 1. */
  tokens: number;
  /** Relevance score: a finite number, usually in [0, 1]. */
  score: number;
  /** Kind, for count constraints (compared ASCII case-insensitively). Default `''`. */
  kind?: string;
}

/** The budget of a slice (the specs' `ContextBudget`). */
export interface SliceBudget {
  /** Tokens the slicer fills: a non-negative safe integer. 0 selects nothing. */
  targetTokens: number;
  /** Hard ceiling, at least `targetTokens` (count-knapsack's residual budget). Default `targetTokens`. */
  maxTokens?: number;
}

/** The verdict on one item. */
export interface SliceDecision {
  /** The item's id. */
  id: string;
  /** The item's index in your input. */
  index: number;
  /** Whether the item is selected. */
  included: boolean;
  /**
   * Why: `scored` (chosen by the slicer's rule), `zero_tokens` (always included), `required`
   * (committed for a kind's `requireCount`); or `no_budget` (target 0), `budget_exceeded`
   * (did not fit), `not_in_optimal_set` (fits alone, not in the knapsack optimum),
   * `count_cap_exceeded`, `negative_tokens`, `skip_limit_reached` (the packer stopped first).
   */
  reason: ReasonCode;
}

/** What every slicer returns. */
export interface SliceResult {
  /** Ids of the selected items, in the slicer's output order (see each slicer). */
  selected: string[];
  /** One decision per input item, in input order. */
  decisions: SliceDecision[];
  /** Sum of the selected items' tokens. */
  totalTokens: number;
  /** Sum of the selected items' scores. */
  totalScore: number;
  /** Kinds whose `requireCount` could not be met (count-knapsack with `scarcity: 'degrade'`). */
  shortfalls: Shortfall[];
  /** True only when count-knapsack's required items exceed the target (the spec allows it). */
  overBudget: boolean;
  /** Tokens over the target (0 unless `overBudget`). */
  overrunTokens: number;
  /** Whether any item was left out for lack of budget (the packer's `was_budget_reached`). */
  budgetReached: boolean;
}

/** Knapsack options. */
export interface KnapsackOptions {
  /** Tokens per DP bucket: a positive integer (default 100). Smaller is more exact and slower. */
  bucketSize?: number;
  /** Refuse DP tables larger than this many bytes (default 64 MiB) with `TABLE_TOO_LARGE`. */
  maxTableBytes?: number;
}

/** Count-constrained knapsack options. */
export interface CountConstrainedKnapsackOptions extends KnapsackOptions {
  /** Per-kind constraints; at most one entry per kind (case-insensitively). */
  entries: CountEntry[];
  /** When a kind has fewer items than `requireCount`: report a shortfall (`'degrade'`, default) or throw. */
  scarcity?: 'degrade' | 'throw';
}

/** Packer options. */
export interface PackerOptions {
  /** Stop after this many consecutive items that do not fit (default 3; 0 never stops). */
  maxConsecutiveSkips?: number;
}

function fieldError(index: number, field: string, requirement: string, value: unknown): CtxpackError {
  return new CtxpackError('INVALID_FIELD', `items[${index}].${field} must be ${requirement}, got ${describeValue(value)}`, {
    field,
    index,
  });
}

interface Columns {
  ids: string[];
  tokens: Uint32Array;
  scores: Float64Array;
  kinds: Uint32Array;
  kindNames: string[];
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
  };
  const kindIds = new Map<string, number>();
  const firstIndex = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const item: unknown = items[i];
    if (!isRecord(item)) {
      throw new CtxpackError('INVALID_FIELD', `items[${i}] must be an object, got ${describeValue(item)}`, { field: 'items', index: i });
    }
    const { id, tokens, score, kind } = item;
    if (typeof id !== 'string' || id.length === 0) throw fieldError(i, 'id', 'a non-empty string', id);
    const first = firstIndex.get(id);
    if (first !== undefined) {
      throw new CtxpackError('DUPLICATE_ID', `items[${i}].id repeats the id of items[${first}]`, { field: 'id', index: i, otherIndex: first });
    }
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
    out.ids[i] = id;
    out.tokens[i] = tokens;
    out.scores[i] = score;
    out.kinds[i] = k;
  }
  return out;
}

function budgetOf(budget: unknown): { targetTokens: number; maxTokens?: number } {
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

function optionBag(options: unknown): Record<string, unknown> {
  if (options === undefined) return {};
  if (!isRecord(options)) {
    throw new CtxpackError('INVALID_OPTION', `options must be an object or undefined, got ${describeValue(options)}`, { field: 'options' });
  }
  return { ...options };
}

/** Rejects option names the slicer does not know, so a typo never passes silently. */
function onlyKnown(o: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) {
      throw new CtxpackError('INVALID_OPTION', `options.${key} is not an option of this slicer (known: ${known.join(', ') || 'none'})`, {
        field: key,
      });
    }
  }
}

function run(slicer: SlicerName, items: unknown, budget: unknown, options: Record<string, unknown>): SliceResult {
  const cols = columns(items);
  const raw: ColumnarResult = sliceColumnar(slicer, { ...options, ...budgetOf(budget), ...cols });
  const { ids } = cols;
  return {
    selected: Array.from(raw.selected, (i) => ids[i]!),
    decisions: raw.reasons.map((reason, index) => ({
      id: ids[index]!,
      index,
      included: reason === 'scored' || reason === 'zero_tokens' || reason === 'required',
      reason,
    })),
    totalTokens: raw.totalTokens,
    totalScore: raw.totalScore,
    shortfalls: raw.shortfalls,
    overBudget: raw.overBudget,
    overrunTokens: raw.overrunTokens,
    budgetReached: raw.budgetReached,
  };
}

/**
 * GreedySlice (greedy-slice.md): by value density `score / tokens`, densest first, ties by input
 * order; zero-token items always included; an item that no longer fits is skipped, not deferred.
 * `selected` is in that density order.
 *
 * @example
 * greedySlice([{ id: 'a', tokens: 100, score: 0.9 }, { id: 'b', tokens: 10, score: 0.5 }], { targetTokens: 100 })
 * // → selected ['b'] ('b' is denser; then 'a' no longer fits)
 */
export function greedySlice(items: readonly SliceItem[], budget: SliceBudget): SliceResult {
  return run('greedy', items, budget, {});
}

/**
 * KnapsackSlice (knapsack-slice.md): the subset with the highest total `floor(score × 10000)`
 * whose bucketed token counts (`ceil(tokens / bucketSize)`) fit `floor(targetTokens / bucketSize)`.
 * Zero-token items are always included. `selected` is the zero-token items, then the DP's picks
 * from the last item to the first (the spec's reconstruction order).
 *
 * @throws {CtxpackError} `INVALID_BUCKET_SIZE`, `TABLE_TOO_LARGE`.
 */
export function knapsackSlice(items: readonly SliceItem[], budget: SliceBudget, options?: KnapsackOptions): SliceResult {
  const o = optionBag(options);
  onlyKnown(o, ['bucketSize', 'maxTableBytes']);
  if (o['bucketSize'] !== undefined && (typeof o['bucketSize'] !== 'number' || !Number.isInteger(o['bucketSize']) || o['bucketSize'] <= 0)) {
    throw new CtxpackError('INVALID_BUCKET_SIZE', `options.bucketSize must be a positive integer, got ${describeValue(o['bucketSize'])}`, {
      field: 'bucketSize',
    });
  }
  return run('knapsack', items, budget, o);
}

/**
 * CountConstrainedKnapsackSlice (count-constrained-knapsack-slice.md): for each entry, in order,
 * commit the `requireCount` best-scoring items of its kind (whatever their size); run the knapsack
 * on the rest with what budget is left; re-sort its picks by score and drop those whose kind has
 * reached `capCount`. `selected` is the committed items, then the survivors.
 *
 * @throws {CtxpackError} `INVALID_COUNT_ENTRY` (requireCount > capCount, duplicate kinds),
 * `COUNT_REQUIREMENT_SHORTFALL` (with `scarcity: 'throw'`, the spec's message), and the knapsack's.
 */
export function countConstrainedKnapsackSlice(
  items: readonly SliceItem[],
  budget: SliceBudget,
  options: CountConstrainedKnapsackOptions,
): SliceResult {
  const o = optionBag(options);
  onlyKnown(o, ['entries', 'scarcity', 'bucketSize', 'maxTableBytes']);
  o['entries'] = countEntries(o['entries'], 'entries');
  return run('count-knapsack', items, budget, o);
}

/** Validates count entries; `name` is the option's name in messages. @internal */
export function countEntries(value: unknown, name: string): CountEntry[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new CtxpackError('INVALID_COUNT_ENTRY', `options.${name} must be an array of { kind, requireCount, capCount }, got ${describeValue(value)}`, {
      field: name,
    });
  }
  return value.map((e: unknown, index): CountEntry => {
    const bad = (what: string): CtxpackError =>
      new CtxpackError('INVALID_COUNT_ENTRY', `options.${name}[${index}]${what}`, { field: name, index });
    if (!isRecord(e)) throw bad(` must be an object { kind, requireCount, capCount }, got ${describeValue(e)}`);
    const { kind, requireCount, capCount } = e;
    if (typeof kind !== 'string') throw bad(`.kind must be a string, got ${describeValue(kind)}`);
    for (const [field, v] of [['requireCount', requireCount], ['capCount', capCount]] as const) {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
        throw bad(`.${field} must be a non-negative integer, got ${describeValue(v)}`);
      }
    }
    return { kind, requireCount: requireCount as number, capCount: capCount as number };
  });
}

/**
 * The memory engine's GreedyKnapsackPacker (greedy-knapsack-packer.md): walks the items in your
 * order (score descending is expected), takes each that still fits, skips the rest, and stops
 * after `maxConsecutiveSkips` misses in a row. `selected` keeps your order.
 */
export function packGreedy(items: readonly SliceItem[], budget: SliceBudget, options?: PackerOptions): SliceResult {
  const o = optionBag(options);
  onlyKnown(o, ['maxConsecutiveSkips']);
  return run('packer', items, budget, o);
}

/** Options of {@link sliceColumns} and {@link sliceFragments}: those of the chosen slicer. */
export interface CoreSliceOptions extends KnapsackOptions, PackerOptions {
  /** count-knapsack: per-kind constraints. */
  entries?: CountEntry[];
  /** count-knapsack: `'degrade'` (default) or `'throw'`. */
  scarcity?: 'degrade' | 'throw';
}

/** Parallel typed arrays: the columnar fast path's input. */
export interface SliceColumns {
  /** Token count per item. */
  tokens: Uint32Array;
  /** Score per item (finite). */
  scores: Float64Array;
  /** Per item, an index into `kindNames` (omit when kinds do not matter). */
  kinds?: Uint32Array;
  /** The kind names `kinds` points into. */
  kindNames?: string[];
}

const CORE_SLICERS: readonly SlicerName[] = ['greedy', 'knapsack', 'count-knapsack', 'packer'];
const CORE_OPTIONS = ['bucketSize', 'maxTableBytes', 'entries', 'scarcity', 'maxConsecutiveSkips'] as const;

function coreRequest(slicer: unknown, budget: unknown, options: unknown): [SlicerName, Record<string, unknown>] {
  if (typeof slicer !== 'string' || !(CORE_SLICERS as readonly string[]).includes(slicer)) {
    throw new CtxpackError('INVALID_OPTION', `slicer must be one of ${CORE_SLICERS.map((s) => `'${s}'`).join(', ')}, got ${describeValue(slicer)}`, {
      field: 'slicer',
    });
  }
  const o = optionBag(options);
  onlyKnown(o, CORE_OPTIONS);
  if (o['entries'] !== undefined) o['entries'] = countEntries(o['entries'], 'entries');
  return [slicer as SlicerName, { ...o, ...budgetOf(budget) }];
}

/**
 * The columnar fast path, for callers who keep their candidates as typed arrays: runs a Rust
 * slicer on parallel `Uint32Array` / `Float64Array` columns and answers with item indexes
 * (`selected`, in the slicer's output order) and one reason per item. Nothing is copied but the
 * arrays themselves; no ids are needed.
 *
 * @example
 * const r = sliceColumns('knapsack', { tokens: Uint32Array.of(60, 40, 10), scores: Float64Array.of(0.6, 0.4, 0.2) },
 *   { targetTokens: 100 }, { bucketSize: 1 });
 * // r.selected → Uint32Array [1, 0]; r.reasons[2] → 'not_in_optimal_set'
 */
export function sliceColumns(slicer: SlicerName, columns: SliceColumns, budget: SliceBudget, options?: CoreSliceOptions): ColumnarResult {
  const [name, req] = coreRequest(slicer, budget, options);
  if (!isRecord(columns) || !(columns['tokens'] instanceof Uint32Array) || !(columns['scores'] instanceof Float64Array)) {
    throw new CtxpackError('INVALID_INPUT', 'columns must be { tokens: Uint32Array, scores: Float64Array, kinds?: Uint32Array, kindNames?: string[] }', {
      field: 'columns',
    });
  }
  const { kinds, kindNames } = columns as unknown as Record<string, unknown>;
  if (kinds !== undefined && !(kinds instanceof Uint32Array)) {
    throw new CtxpackError('INVALID_INPUT', `columns.kinds must be a Uint32Array or absent, got ${describeValue(kinds)}`, { field: 'kinds' });
  }
  if (kindNames !== undefined && !(Array.isArray(kindNames) && kindNames.every((k) => typeof k === 'string'))) {
    throw new CtxpackError('INVALID_INPUT', 'columns.kindNames must be an array of strings or absent', { field: 'kindNames' });
  }
  return sliceColumnar(name, { ...req, ...columns } as unknown as ColumnarRequest);
}

/**
 * The object path, for callers who hold fragment objects with their own scores: runs a Rust slicer
 * on `{ id, cost_tokens, score?, kind? }` objects (a missing score is 0, a missing kind `''`; other
 * properties, such as `content`, are never read). Answers like {@link sliceColumns}: indexes and
 * reasons. Selects exactly as the columnar path does.
 */
export function sliceFragments(
  slicer: SlicerName,
  fragments: readonly ObjectItem[],
  budget: SliceBudget,
  options?: CoreSliceOptions,
): ColumnarResult {
  const [name, req] = coreRequest(slicer, budget, options);
  return sliceObjects(name, fragments, req as unknown as Omit<ColumnarRequest, 'tokens' | 'scores' | 'kinds' | 'kindNames'>);
}
