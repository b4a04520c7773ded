/**
 * The Rust slicers for callers who score on their own: items in the caller's order, a budget,
 * and back the selection with a reason for every item. Each function reads in TypeScript what the
 * typed arrays cannot carry (ids, kinds, groups and dependencies by id), then makes the core's one
 * slice call (`solveSlice`), which decides everything else.
 *
 * @module
 */

import {
  plainSlice,
  solveSlice,
  sliceObjects as coreSliceObjects,
  type ColumnarRequest,
  type ColumnarResult,
  type CountEntry,
  type ExactReport,
  type ObjectItem,
  NO_VERSION,
  type ReasonCode,
  type SliceReason,
  type SliceStructure,
  type SlicerName,
  type Shortfall,
} from '../core/bridge.js';
import { CtxpackError, describeValue, readingInput } from '../errors.js';
import { STRATEGIES, strategyRow } from '../core/table.js';
import { isRecord } from '../validate/fields.js';
import { budgetOf, linksOfColumns, readSliceItems } from './items.js';
import {
  optionsCopy,
  takeDependencyMode,
  rejectUnknownOptions,
} from '../validate/options.js';
import type { DependencyMode } from '../core/types.js';

export type { SliceReason } from '../core/bridge.js';
export type { DependencyMode } from '../core/types.js';

/** An item to slice: your id, its token count and score, and optionally its kind, group and dependencies. */
export interface SliceItem {
  /** Your identifier; unique within the call. */
  id: string;
  /** Token count: an integer from 0 to 2^32 − 1. */
  tokens: number;
  /** Relevance score: a finite number, usually in [0, 1]. */
  score: number;
  /** Kind, for count constraints (compared ASCII case-insensitively). Default `''`. */
  kind?: string;
  /**
   * Items that share a group are selected all together or not at all, by every strategy (a tool
   * call and its result, a message and its attachments). A non-empty string.
   */
  group?: string;
  /**
   * Ids of items this one needs: with `options.dependencies: 'require'` it goes in only with all
   * of them (transitively). Ids that name no item of the call are ignored. Ignored by default.
   */
  dependencies?: string[];
  /**
   * Shorter versions of the item (a summary, a stub), `{ tokens, score }` each: at most one
   * version of the item, or the item itself, or nothing, is selected (docs/variants.md). Refused by
   * the count-constrained slicers.
   */
  variants?: { tokens: number; score: number }[];
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
   * With groups and dependencies also `group_excluded` (the item fits the budget alone, but its
   * group was left out: `groupReason` says why) and `dependency_excluded` (it needs an item that
   * is not selected).
   */
  reason: SliceReason;
  /** For `group_excluded`: why the group as a whole was left out. */
  groupReason?: ReasonCode;
  /**
   * When some item of the call has `variants`: the index in this item's `variants` of the version
   * selected; `null` when the item itself went in, or nothing did.
   */
  variant?: number | null;
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
  /**
   * Only for the knapsack strategies with `options.dependencies: 'require'`: whether their first
   * selection had to drop items whose dependencies it left out. When `false`, the result is optimal
   * under the dependencies too.
   */
  repaired?: boolean;
}

/** What the exact strategies return: the selection and how it was reached. */
export interface ExactSliceResult extends SliceResult {
  /** The solver, the selection's total scaled value, the heuristic's value (exact-count), the work done. */
  exact: ExactReport;
}

/** Options every slicer function takes: how `dependencies` are treated. */
export interface GroupOptions {
  /**
   * `'ignore'` (default) or `'require'`: an item goes in only with every item it depends on
   * (items that depend on each other go in together, as a group). Greedy and the packer take an
   * item together with the dependencies it still lacks when all of them fit; the knapsack
   * strategies run in rounds (select; drop what lacks a dependency; select again among the items
   * whose dependencies are in, with the budget left), and `repaired` says whether the first round
   * had to drop anything. Every result honours every dependency and fits the budget.
   */
  dependencies?: DependencyMode;
}

/** Greedy options. */
export type GreedyOptions = GroupOptions;

/** Knapsack options. */
export interface KnapsackOptions extends GroupOptions {
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
export interface PackerOptions extends GroupOptions {
  /** Stop after this many consecutive items that do not fit (default 3; 0 never stops). */
  maxConsecutiveSkips?: number;
}

/** ExactKnapsackSlice options: its guards. */
export interface ExactKnapsackOptions extends GroupOptions {
  /** DP states alive at once before the bucketed fallback (default 2^18, about 16 MiB). */
  maxStates?: number;
  /** State operations before the bucketed fallback (default 2^26): a work counter, not a clock, so results are reproducible. */
  maxWork?: number;
  /** The fallback knapsack's table limit in bytes (default 64 MiB). */
  maxTableBytes?: number;
}

/** ExactCountConstrainedSlice options. */
export interface ExactCountConstrainedOptions extends GroupOptions {
  /** Per-kind constraints, as count-knapsack's; at most one entry per kind (case-insensitively). */
  entries: CountEntry[];
  /**
   * When requirements cannot be met: `'degrade'` (default) minimises the total shortfall, then
   * maximises the value, and reports each short kind; `'throw'` fails with
   * `COUNT_REQUIREMENT_SHORTFALL` (too few items of a kind) or `COUNT_REQUIREMENT_OVER_BUDGET`
   * (enough items, but the lightest way to meet every requirement does not fit). The budget holds
   * either way.
   */
  scarcity?: 'degrade' | 'throw';
  /** Fix the precision: token counts rounded up to multiples of this. Default: 1 (exact) when the DP fits `maxCells`, else the smallest bucket that fits. */
  bucketSize?: number;
  /** DP cells (items × counts × capacity) before a coarser bucket (default 2^27). */
  maxCells?: number;
  /** Limit on the DP's keep bits and value rows, in bytes (default 64 MiB). */
  maxTableBytes?: number;
  /** Also run the three-phase count-knapsack on the same input and report its value as `exact.heuristicValue` (default true). */
  compareHeuristic?: boolean;
}

const INCLUDED: ReadonlySet<string> = new Set(['scored', 'zero_tokens', 'required']);

/**
 * Every slicer function: the items read into columns (ids stay here, to name the answer), one call
 * of the core, which decides how groups, dependencies and versions are solved, and its answer by id.
 */
function run(slicer: SlicerName, items: unknown, budget: unknown, options: Record<string, unknown>): SliceResult & { exact?: ExactReport } {
  const mode = takeDependencyMode(options);
  const cols = readingInput(() => readSliceItems(items), items);
  const b = readingInput(() => budgetOf(budget), budget);
  const structure: SliceStructure = { versions: cols.versions };
  if (cols.grouping) structure.links = linksOfColumns(cols, mode);
  if (mode === 'require') structure.dependencies = mode;
  const a = solveSlice(slicer, { ...options, ...b, tokens: cols.tokens, scores: cols.scores, kinds: cols.kinds, kindNames: cols.kindNames }, structure);
  const { ids } = cols;
  const result: SliceResult & { exact?: ExactReport } = {
    selected: Array.from(a.selected, (i) => ids[i]!),
    decisions: a.reasons.map((reason, index) => {
      const d: SliceDecision = { id: ids[index]!, index, included: INCLUDED.has(reason), reason };
      const why = a.groupReasons?.[index];
      if (why !== undefined) d.groupReason = why;
      if (a.version !== undefined) {
        const v = a.version[index]!;
        d.variant = v === NO_VERSION || v === 0 ? null : v - 1;
      }
      return d;
    }),
    totalTokens: a.totalTokens,
    totalScore: a.totalScore,
    shortfalls: a.shortfalls,
    overBudget: a.overBudget,
    overrunTokens: a.overrunTokens,
    budgetReached: a.budgetReached,
  };
  // Only the exact strategies report: a seed slicer's result has no exact field.
  if (a.exact !== null && a.exact !== undefined) result.exact = a.exact;
  if (a.repaired !== undefined) result.repaired = a.repaired;
  return result;
}

/** An exact slicer's result. */
function exactResult(r: SliceResult & { exact?: ExactReport }): ExactSliceResult {
  if (r.exact === undefined) throw new CtxpackError('INTERNAL', 'the core returned no exact report');
  return r as ExactSliceResult;
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
export function greedySlice(items: readonly SliceItem[], budget: SliceBudget, options?: GreedyOptions): SliceResult {
  const o = optionsCopy(options);
  rejectUnknownOptions(o, optionsOf('greedy'), 'greedySlice');
  return run('greedy', items, budget, o);
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
  const o = optionsCopy(options);
  rejectUnknownOptions(o, optionsOf('knapsack'), 'knapsackSlice');
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
  const o = optionsCopy(options);
  rejectUnknownOptions(o, optionsOf('count-knapsack'), 'countConstrainedKnapsackSlice');
  return run('count-knapsack', items, budget, o);
}

/**
 * The memory engine's GreedyKnapsackPacker (greedy-knapsack-packer.md): walks the items in your
 * order (score descending is expected), takes each that still fits, skips the rest, and stops
 * after `maxConsecutiveSkips` misses in a row. `selected` keeps your order.
 */
export function packerSlice(items: readonly SliceItem[], budget: SliceBudget, options?: PackerOptions): SliceResult {
  const o = optionsCopy(options);
  rejectUnknownOptions(o, optionsOf('packer'), 'packerSlice');
  return run('packer', items, budget, o);
}

/**
 * ExactKnapsackSlice: the subset with the highest total `floor(score × 10000)` (the knapsack's
 * value) whose real token counts fit `targetTokens`: no buckets. An expanding-core search after
 * Pisinger's minknap; guarded by `maxStates` and `maxWork` (a work counter, so results are
 * reproducible), past which it falls back to the bucketed knapsack with the smallest bucket that
 * fits and says so in `exact.solver`. Zero-token items are always included. `selected` is the
 * zero-token items, then the others, each in input order. It never loses to `knapsackSlice` or
 * `greedySlice` on the same input while it solves exactly.
 *
 * @example
 * exactKnapsackSlice([{ id: 'a', tokens: 101, score: 0.5 }, { id: 'b', tokens: 101, score: 0.5 },
 *   { id: 'c', tokens: 101, score: 0.5 }, { id: 'd', tokens: 300, score: 0.9 }], { targetTokens: 303 })
 * // → selected ['a', 'b', 'c'], exact.value 15000 (knapsackSlice, bucket 100: ['d'], 9000)
 *
 * @throws {CtxpackError} `INVALID_OPTION` for a bad guard, `TABLE_TOO_LARGE` when even the fallback does not fit.
 */
export function exactKnapsackSlice(items: readonly SliceItem[], budget: SliceBudget, options?: ExactKnapsackOptions): ExactSliceResult {
  const o = optionsCopy(options);
  rejectUnknownOptions(o, optionsOf('exact'), 'exactKnapsackSlice');
  return exactResult(run('exact', items, budget, o));
}

/**
 * ExactCountConstrainedSlice: count-knapsack's per-kind `requireCount` and `capCount`, solved to
 * optimality (a DP over count and capacity per constrained kind, with dominance pruning) instead of
 * in three greedy phases, and always within the budget. Token precision when the DP fits
 * `maxCells`, else the smallest bucket that does (`exact.solver` says which). Unless
 * `compareHeuristic: false`, `exact.heuristicValue` is the three-phase heuristic's value on the
 * same input, so the gap is visible. `selected` is the zero-token items, then the others, each in
 * input order; selected items of a required kind are `required` up to its count.
 *
 * @throws {CtxpackError} `INVALID_COUNT_ENTRY`, `COUNT_REQUIREMENT_SHORTFALL` and
 * `COUNT_REQUIREMENT_OVER_BUDGET` (with `scarcity: 'throw'`), `INVALID_BUCKET_SIZE`, `TABLE_TOO_LARGE`.
 */
export function exactCountConstrainedSlice(
  items: readonly SliceItem[],
  budget: SliceBudget,
  options: ExactCountConstrainedOptions,
): ExactSliceResult {
  const o = optionsCopy(options);
  rejectUnknownOptions(o, optionsOf('exact-count'), 'exactCountConstrainedSlice');
  return exactResult(run('exact-count', items, budget, o));
}

/** Options of {@link sliceColumns} and {@link sliceObjects}: those of the chosen slicer. */
export interface CoreSliceOptions {
  /** knapsack, count-knapsack, exact-count: the bucket size. */
  bucketSize?: number;
  /** knapsack, count-knapsack, exact, exact-count: the table limit in bytes. */
  maxTableBytes?: number;
  /** packer: stop after this many misses in a row. */
  maxConsecutiveSkips?: number;
  /** count-knapsack, exact-count: per-kind constraints. */
  entries?: CountEntry[];
  /** count-knapsack, exact-count: `'degrade'` (default) or `'throw'`. */
  scarcity?: 'degrade' | 'throw';
  /** exact: DP states alive at once before the fallback. */
  maxStates?: number;
  /** exact: the work counter's limit before the fallback. */
  maxWork?: number;
  /** exact-count: DP cells before a coarser bucket. */
  maxCells?: number;
  /** exact-count: also run the heuristic and report its value (default true). */
  compareHeuristic?: boolean;
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

/** The core's slicers: the engines of its table, each once. */
const CORE_SLICERS: readonly SlicerName[] = [...new Set(STRATEGIES.map((s) => s.engine))];
/** Every slicer option of the core's table. */
const CORE_OPTIONS: readonly string[] = [...new Set(STRATEGIES.flatMap((s) => s.options))];

/**
 * The options slicer `name` takes (the core's table), and `dependencies`. Only the names are
 * checked here, so that an unknown one is reported cut ({@link rejectUnknownOptions}); values are
 * the core's to check.
 */
function optionsOf(name: SlicerName): readonly string[] {
  let known = OPTIONS_OF.get(name);
  if (known === undefined) OPTIONS_OF.set(name, (known = [...strategyRow(name)!.options, 'dependencies']));
  return known;
}

/** {@link optionsOf}'s lists, made once each: a call at 20 items pays microseconds for less. */
const OPTIONS_OF = new Map<SlicerName, readonly string[]>();

function coreRequest(slicer: unknown, budget: unknown, options: unknown): [SlicerName, Record<string, unknown>] {
  if (typeof slicer !== 'string' || !(CORE_SLICERS as readonly string[]).includes(slicer)) {
    throw new CtxpackError('INVALID_OPTION', `slicer must be one of ${CORE_SLICERS.map((s) => `'${s}'`).join(', ')}, got ${describeValue(slicer)}`, {
      field: 'slicer',
    });
  }
  return readingInput(() => {
    const o = optionsCopy(options);
    rejectUnknownOptions(o, CORE_OPTIONS, 'the core slicers');
    return [slicer as SlicerName, { ...o, ...budgetOf(budget) }];
  }, budget, options);
}

/**
 * The columnar fast path, for callers who keep their candidates as typed arrays: runs a Rust
 * slicer on parallel `Uint32Array` / `Float64Array` columns and answers with item indexes
 * (`selected`, in the slicer's output order) and one reason per item. Nothing is copied but the
 * arrays themselves; no ids are needed. `exact` carries the exact strategies' report (`null` for
 * the seed slicers). Groups and dependencies need ids: use the slicer functions.
 *
 * @example
 * const r = sliceColumns('knapsack', { tokens: Uint32Array.of(60, 40, 10), scores: Float64Array.of(0.6, 0.4, 0.2) },
 *   { targetTokens: 100 }, { bucketSize: 1 });
 * // r.selected → Uint32Array [1, 0]; r.reasons[2] → 'not_in_optimal_set'
 */
export function sliceColumns(slicer: SlicerName, columns: SliceColumns, budget: SliceBudget, options?: CoreSliceOptions): ColumnarResult {
  const [name, req] = coreRequest(slicer, budget, options);
  const cols = readingInput(() => readColumns(columns), columns);
  return plainSlice(name, { ...req, ...cols } as unknown as ColumnarRequest);
}

/** `sliceColumns`' columns, checked: typed arrays of live buffers (a detached one is refused here, not by the glue). */
function readColumns(columns: unknown): Pick<ColumnarRequest, 'tokens' | 'scores' | 'kinds' | 'kindNames'> {
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
  const { tokens, scores } = columns as unknown as { tokens: Uint32Array; scores: Float64Array };
  for (const [field, column] of [['tokens', tokens], ['scores', scores], ['kinds', kinds]] as const) {
    if (column !== undefined && isDetached(column)) {
      throw new CtxpackError('INVALID_INPUT', `columns.${field} is a view of a detached ArrayBuffer (transferred or resized away)`, { field });
    }
  }
  const out: Pick<ColumnarRequest, 'tokens' | 'scores' | 'kinds' | 'kindNames'> = { tokens, scores };
  if (kinds !== undefined) out.kinds = kinds;
  if (kindNames !== undefined) out.kindNames = kindNames as string[];
  return out;
}

/** Whether a typed array's buffer was detached (`ArrayBuffer.prototype.detached` where the runtime has it). */
function isDetached(view: ArrayBufferView): boolean {
  const buffer = view.buffer as ArrayBuffer & { detached?: boolean };
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  if (view.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * The object path, for callers who hold fragment objects with their own scores: runs a Rust slicer
 * on `{ id, cost_tokens, score?, kind? }` objects (a missing score is 0, a missing kind `''`; other
 * properties, such as `content`, are never read). Answers like {@link sliceColumns}: indexes and
 * reasons. Selects exactly as the columnar path does.
 */
export function sliceObjects(
  slicer: SlicerName,
  fragments: readonly ObjectItem[],
  budget: SliceBudget,
  options?: CoreSliceOptions,
): ColumnarResult {
  const [name, req] = coreRequest(slicer, budget, options);
  // The array is read here (a Proxy's trap may throw: INVALID_INPUT with its cause); each
  // fragment's four properties are read by the core, which reports a throwing one the same way.
  const items = readingInput(() => (Array.isArray(fragments) ? Array.from(fragments) : fragments), fragments);
  return coreSliceObjects(name, items, req as unknown as Omit<ColumnarRequest, 'tokens' | 'scores' | 'kinds' | 'kindNames'>);
}
