/**
 * The types of what the Rust core takes and answers, public through `ctxpack/slicers` (the slicer
 * functions return them) and used by the bridge.
 *
 * @module
 */

import type { EngineName } from './table.js';

/** Whether an item's `dependsOn` is ignored or required (docs/groups.md). */
export type DependencyMode = 'ignore' | 'require';

/** A slicer of the Rust core, by its wasm name: an engine of the core's strategy table (core/table.ts). */
export type SlicerName = EngineName;

/** Count constraints of one kind (count-constrained-knapsack-slice.md's `CountQuotaEntry`). */
export interface CountEntry {
  /** The kind constrained; kinds compare ASCII case-insensitively. */
  kind: string;
  /** Items of this kind committed before the knapsack runs. */
  requireCount: number;
  /** Most items of this kind in the result. */
  capCount: number;
}

/**
 * What the exact strategies (`'exact'`, `'exact-count'`) report beside their selection.
 *
 * `value` is the selection's total scaled value `Σ max(0, floor(score × 10000))`, the quantity
 * the knapsack strategies maximise (a JS number: exact below 2^53).
 */
export interface ExactReport {
  /**
   * `'exact'`: the optimum at token precision; `'bucketed'`: the optimum over token counts rounded
   * up to `bucketSize` (exact-count past its cell limit, or with a fixed `bucketSize`);
   * `'bucketed-fallback'`: the exact search gave up (`fallbackReason`) and the bucketed knapsack
   * answered: within the budget, maybe not optimal; `'heuristic'` (exact-count): a guard forced
   * buckets of `bucketSize` tokens on the DP, and the three-phase heuristic on the same input did
   * better (a smaller total shortfall, else a higher value, within the budget), so its selection is
   * returned: never less than the heuristic, not optimal.
   */
  solver: 'exact' | 'bucketed' | 'bucketed-fallback' | 'heuristic';
  /** The bucket size, for `'bucketed'`, `'bucketed-fallback'` and `'heuristic'`. */
  bucketSize?: number;
  /** Which guard stopped the exact search (`'bucketed-fallback'` only). */
  fallbackReason?: 'state-limit' | 'work-limit' | 'value-range';
  /** The selection's total scaled value. */
  value: number;
  /** exact-count: the three-phase heuristic's value on the same input (always run when a guard forced buckets); `null` when not run or it failed. */
  heuristicValue: number | null;
  /** exact-count: whether the heuristic's selection exceeds the budget (then its value is not comparable). */
  heuristicOverBudget: boolean;
  /** The deterministic work counter (state operations, or DP cells). */
  work: number;
  /** The most DP states alive at once (0 for exact-count). */
  peakStates: number;
}

/** Why an item is in or out, in the core's words. */
export type ReasonCode =
  | 'scored'
  | 'zero_tokens'
  | 'required'
  | 'no_budget'
  | 'budget_exceeded'
  | 'not_in_optimal_set'
  | 'count_cap_exceeded'
  | 'negative_tokens'
  | 'skip_limit_reached';

/** A reason of a grouped slice: the core's, and the two only groups and dependencies give. */
export type SliceReason = ReasonCode | 'group_excluded' | 'dependency_excluded';

/** A kind whose `requireCount` could not be met. */
export interface Shortfall {
  kind: string;
  requiredCount: number;
  satisfiedCount: number;
}

/** What the core answers. */
export interface ColumnarResult {
  /** Item indexes in the slicer's output order. */
  selected: Uint32Array;
  /** One reason per item, in input order. */
  reasons: ReasonCode[];
  totalTokens: number;
  totalScore: number;
  shortfalls: Shortfall[];
  /** Only count-knapsack can exceed the target (its required items). */
  overBudget: boolean;
  overrunTokens: number;
  /** Items not selected. */
  skippedCount: number;
  /** Whether any item was left out for lack of budget. */
  budgetReached: boolean;
  /** The exact strategies' report; `null` for the seed slicers. */
  exact: ExactReport | null;
}

/** A fragment as the object path reads it: only these four properties cross into wasm. */
export interface ObjectItem {
  id: string;
  cost_tokens: number;
  score?: number;
  kind?: string;
}

/** The core's units of the items (`groupUnits`), before tokens are counted. */
export interface UnitMap {
  /** Per item, its unit; units are numbered by their first member in item order. */
  unitOf: Uint32Array;
  unitCount: number;
  /** Per unit, its member count. */
  unitSize: Uint32Array;
  /** Per unit, 1 when it needs another unit (`dependencies: 'require'`). */
  needsOther: Uint8Array;
}
