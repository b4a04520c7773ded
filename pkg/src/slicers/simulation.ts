/**
 * Budget simulation: how a strategy's selection changes with the budget, without running it at
 * every budget. The Rust core's `BudgetSimulation` does the work (see its documentation for the
 * algorithms); this module validates and maps ids; the core merges groups (docs/groups.md).
 *
 * **The measure** is the knapsack's, for every strategy: the total scaled value
 * `Σ max(0, floor(score × 10000))` of the selection (about `10000 ×` the total score), exact
 * integer arithmetic, so each point equals the value of a separate run at that budget and curves of
 * different strategies compare directly.
 *
 * **Strategies.** `'greedy'`, `'knapsack'`, `'exact'` and `'packer'`. The count-constrained ones
 * (`'count-knapsack'`, `'exact-count'`) are refused with `NOT_MONOTONIC`: their selection can exceed
 * the budget (required items) or lose value as the budget grows (fewer shortfalls first), so a
 * curve, a minimum budget or a slack would mislead. The knapsack strategies' and greedy's curves
 * never fall as the budget grows; the packer's can. No strategy is monotonic per item (a larger
 * budget can let in an item that pushes this one out), hence `minBudgetFor`'s two answers.
 *
 * @module
 */

import { STRATEGIES, strategyRow } from '../core/table.js';
import {
  budgetCurveColumnar,
  checkSimulated,
  minBudgetColumnar,
  type MinBudgetResult,
  type SimulationRequest,
  type SimulationSlicerName,
} from '../core/bridge.js';
import { CtxpackError, describeValue } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import { takeDependencyMode, rejectUnknownOptions } from '../validate/options.js';
import {
  exactKnapsackSlice,
  greedySlice,
  knapsackSlice,
  packerSlice,
  type SliceBudget,
  type SliceItem,
  type SliceResult,
} from './functions.js';
import { linksOfColumns, readSliceItems, type Columns } from './items.js';

export type { MinBudgetResult, SimulationSlicerName } from '../core/bridge.js';

/** Options of {@link budgetCurve} and {@link minBudgetFor}: the strategy, its options and the guards. */
export interface SimulationOptions {
  /** The strategy. */
  slicer: SimulationSlicerName;
  /** knapsack: the bucket size (default 100). */
  bucketSize?: number;
  /** The memory limit in bytes, curves included (default 64 MiB; knapsack: its table limit). */
  maxTableBytes?: number;
  /** packer: its skip limit (default 3; 0 never stops). */
  maxConsecutiveSkips?: number;
  /** exact: its guards, for the reruns `minBudgetFor` makes where optimal selections tie. */
  maxStates?: number;
  /** exact: see {@link maxStates}. */
  maxWork?: number;
  /** The simulation's cell limit (DP cells; default 2^28). */
  maxCells?: number;
  /** Only `'ignore'`: required dependencies make the strategy a sequence of rounds that these one-pass DPs do not model. Groups are honoured. */
  dependencies?: 'ignore';
}

/** Options of {@link minBudgetFor}. */
export interface MinBudgetOptions extends SimulationOptions {
  /** The last budget examined (default: the saturation budget, after which nothing changes). */
  maxBudget?: number;
}

/** What {@link droppedUnderSlack} answers. */
export interface SlackResult {
  /** `budget.targetTokens`. */
  budget: number;
  /** `targetTokens − slack`, at least 0. */
  shrunkBudget: number;
  /** Ids selected at `budget` but not at `shrunkBudget`, in the output order at `budget`. */
  dropped: string[];
  /** Ids selected at `shrunkBudget` but not at `budget` (no strategy is monotonic per item), in that output order. */
  added: string[];
  /** The two selections. */
  atBudget: SliceResult;
  atShrunkBudget: SliceResult;
}

/**
 * The strategy named by `options.slicer`; the rest of the options, checked against it. The core
 * decides what it simulates (`NOT_MONOTONIC`, its table); these entry points take its engines by
 * their own names (the planner's `'ranked'` is `'packer'` with `maxConsecutiveSkips: 0`).
 */
function strategyOf(options: unknown, extra: readonly string[]): [SimulationSlicerName, Record<string, unknown>] {
  if (!isRecord(options)) {
    throw new CtxpackError('INVALID_OPTION', `options must be an object { slicer, … }, got ${describeValue(options)}`, { field: 'options' });
  }
  const o: Record<string, unknown> = { ...options };
  const slicer = o['slicer'];
  delete o['slicer'];
  const row = typeof slicer === 'string' ? strategyRow(slicer) : undefined;
  if (row !== undefined) checkSimulated(row.name);
  const simulated = STRATEGIES.filter((s) => s.monotonic && s.name === s.engine);
  if (row === undefined || !simulated.includes(row)) {
    throw new CtxpackError('INVALID_OPTION', `options.slicer must be one of ${simulated.map((s) => `'${s.name}'`).join(', ')}, got ${describeValue(slicer)}`, {
      field: 'slicer',
    });
  }
  const name = row.name as SimulationSlicerName;
  // Names only: the values are the core's to check.
  rejectUnknownOptions(o, [...new Set([...row.options, ...extra])], `budget simulation with '${name}'`);
  return [name, o];
}

/** The items as the core's columns, with their groups (the core merges them into units). */
function prepare(items: unknown, o: Record<string, unknown>): { input: Columns; req: SimulationRequest } {
  const mode = takeDependencyMode(o);
  if (mode === 'require') {
    throw new CtxpackError('INVALID_OPTION', `options.dependencies 'require' is not supported by budget simulation (only groups are)`, {
      field: 'dependencies',
    });
  }
  const input = readSliceItems(items);
  const req: SimulationRequest = {
    ...(o as Omit<SimulationRequest, 'tokens' | 'scores'>),
    tokens: input.tokens,
    scores: input.scores,
    groupOf: linksOfColumns(input, 'ignore').groupOf,
  };
  return { input, req };
}

function safeInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new CtxpackError('INVALID_OPTION', `${name} must be a non-negative safe integer, got ${describeValue(value)}`, { field: name });
  }
  return value;
}

/**
 * The total scaled value `Σ max(0, floor(score × 10000))` that `options.slicer` selects at every
 * budget from 0 to `maxBudget`: `curve[t]` is the value of running the slicer function at
 * `{ targetTokens: t }`, for every `t`, from one pass (greedy and the packer: a DP over small
 * leftovers, far cheaper than a run per budget; the knapsack: its DP's last row; exact: the same DP
 * at token precision, `items × maxBudget` cells). Groups are honoured (a group is one item whose
 * value is its members' sum).
 *
 * Guards: the curve takes 8 bytes per budget within `maxTableBytes` (64 MiB by default: up to about
 * 8.4 million budgets), and every DP `maxCells` cells (2^28 by default); past them
 * `TABLE_TOO_LARGE`.
 *
 * @example
 * budgetCurve([{ id: 'a', tokens: 60, score: 0.5 }, { id: 'b', tokens: 80, score: 0.8 }, { id: 'c', tokens: 10, score: 0.2 }],
 *   150, { slicer: 'greedy' })
 * // → Float64Array: 0 below 10, 2000 from 10, 7000 from 70 (c, a), 10000 from 90 (c, b), 15000 from 150
 *
 * @throws {CtxpackError} `NOT_MONOTONIC` for the count-constrained strategies, `INVALID_OPTION`,
 * the slicer functions' input errors, `TABLE_TOO_LARGE`.
 */
export function budgetCurve(items: readonly SliceItem[], maxBudget: number, options: SimulationOptions): Float64Array {
  const [slicer, o] = strategyOf(options, ['maxCells', 'maxTableBytes', 'dependencies']);
  const max = safeInteger(maxBudget, 'maxBudget');
  const { req } = prepare(items, o);
  return budgetCurveColumnar(slicer, { ...req, maxBudget: max });
}

/**
 * Where, between budget 0 and `options.maxBudget` (by default the saturation budget, from which
 * nothing changes), `options.slicer` selects the item `id`: `first`, the smallest budget at which
 * it is selected, and `stableFrom`, the smallest from which it is selected at every budget up to
 * the ceiling (and beyond, when the ceiling is the saturation budget). They differ when a larger
 * budget lets in an item that pushes this one out. `null` when there is no such budget. The answer
 * is the slicer's own selection at each budget, ties included (exact: assuming its search solves
 * rather than falls back to buckets there). A grouped item answers for its group.
 *
 * Greedy and the packer answer without scanning budgets, whatever the ceiling; the knapsack
 * strategies need a DP table up to the ceiling (`maxTableBytes`, `maxCells`): lower `maxBudget` for
 * large inputs.
 *
 * @throws {CtxpackError} as {@link budgetCurve}, and `INVALID_INPUT` when no item has the id.
 */
export function minBudgetFor(items: readonly SliceItem[], id: string, options: MinBudgetOptions): MinBudgetResult {
  const [slicer, o] = strategyOf(options, ['maxCells', 'maxTableBytes', 'dependencies', 'maxBudget']);
  if (o['maxBudget'] !== undefined) safeInteger(o['maxBudget'], 'maxBudget');
  const { input, req } = prepare(items, o);
  const index = input.ids.indexOf(id);
  if (typeof id !== 'string' || index < 0) {
    throw new CtxpackError('INVALID_INPUT', `id must be the id of one of the items, got ${describeValue(id)}`, { field: 'id' });
  }
  return minBudgetColumnar(slicer, req, index);
}

/**
 * The items `options.slicer` drops when the budget shrinks by `slack` tokens: the difference of
 * its selections at `budget` and at `targetTokens − slack` (at least 0; `maxTokens` shrinks too),
 * both ways, by running the slicer function twice, with groups and dependencies as it honours
 * them.
 *
 * @example
 * droppedUnderSlack(items, { targetTokens: 8000 }, 500, { slicer: 'exact' }).dropped  // ids that leave at 7500
 *
 * @throws {CtxpackError} `NOT_MONOTONIC` for the count-constrained strategies, `INVALID_OPTION` for
 * a negative slack, and the slicer function's errors.
 */
export function droppedUnderSlack(
  items: readonly SliceItem[],
  budget: SliceBudget,
  slack: number,
  options: { slicer: SimulationSlicerName } & Record<string, unknown>,
): SlackResult {
  const [slicer, o] = strategyOf(options, ['dependencies']);
  safeInteger(slack, 'slack');
  if (!isRecord(budget)) {
    throw new CtxpackError('INVALID_BUDGET', `budget must be an object { targetTokens, maxTokens? }, got ${describeValue(budget)}`, { field: 'budget' });
  }
  const run = (b: SliceBudget): SliceResult => {
    switch (slicer) {
      case 'greedy':
        return greedySlice(items, b, o);
      case 'knapsack':
        return knapsackSlice(items, b, o);
      case 'exact':
        return exactKnapsackSlice(items, b, o);
      case 'packer':
        return packerSlice(items, b, o);
    }
  };
  const atBudget = run(budget);
  const shrunkBudget = Math.max(0, budget.targetTokens - slack);
  const shrunk: SliceBudget = { targetTokens: shrunkBudget };
  if (budget.maxTokens !== undefined) shrunk.maxTokens = Math.max(shrunkBudget, budget.maxTokens - slack);
  const atShrunkBudget = run(shrunk);
  const under = new Set(atShrunkBudget.selected);
  const at = new Set(atBudget.selected);
  return {
    budget: budget.targetTokens,
    shrunkBudget,
    dropped: atBudget.selected.filter((id) => !under.has(id)),
    added: atShrunkBudget.selected.filter((id) => !at.has(id)),
    atBudget,
    atShrunkBudget,
  };
}
