/**
 * The core's strategy table and option defaults (src/wasm/strategies.rs), as the build read them
 * from the .wasm (table.generated.ts): which engine each strategy name runs, which options it
 * reads, whether budget simulation models it, whether it is exact. Every TypeScript rule about
 * strategies reads them here, and the page reads them through the package's `STRATEGIES`.
 *
 * @module
 */

import { OPTION_DEFAULTS as DEFAULTS, STRATEGY_ROWS } from './table.generated.js';

/** A strategy's name, as `selectFragments`' `options.slicer` takes it. */
export type StrategyName = 'ranked' | 'greedy' | 'knapsack' | 'count-knapsack' | 'packer' | 'exact' | 'exact-count';

/** A slicer of the Rust core, which runs one or more strategies. */
export type EngineName = 'greedy' | 'knapsack' | 'count-knapsack' | 'packer' | 'exact' | 'exact-count';

/** One strategy of the core's table. */
export interface StrategyRow {
  readonly name: StrategyName;
  /** The core slicer that runs it (`'ranked'`: the packer with `skipLimit` 0). */
  readonly engine: EngineName;
  /** The slicer options it reads, as the slicer functions name them (`entries`: count entries). */
  readonly options: readonly string[];
  /** The packer's skip limit the strategy fixes (`'ranked'`: 0, never stops early); `null`: `maxConsecutiveSkips`. */
  readonly skipLimit: number | null;
  /** Whether budget simulation models it; the others are refused with `NOT_MONOTONIC`. */
  readonly monotonic: boolean;
  /** Whether it is optimal at token precision (and reports `exact`). */
  readonly exact: boolean;
  /** Whether it picks its own bucket when `bucketSize` is not given. */
  readonly ownBucket: boolean;
}

/** The defaults the core applies to absent options. */
export interface OptionDefaults {
  readonly bucketSize: number;
  readonly maxConsecutiveSkips: number;
  readonly maxTableBytes: number;
  readonly maxStates: number;
  readonly maxWork: number;
  /** exact-count's cell limit. */
  readonly maxCells: number;
  /** The budget simulation's cell limit. */
  readonly simulationMaxCells: number;
  /** BM25's term-frequency saturation (`fitMessages`' `relevance.k1`; the planner's `query`). */
  readonly bm25K1: number;
  /** BM25's length normalisation (`fitMessages`' `relevance.b`; the planner's `query`). */
  readonly bm25B: number;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** Every strategy, in the core's order. */
export const STRATEGIES: readonly StrategyRow[] = deepFreeze(STRATEGY_ROWS);

/** The core's option defaults. */
export const OPTION_DEFAULTS: OptionDefaults = deepFreeze(DEFAULTS);

const BY_NAME: ReadonlyMap<string, StrategyRow> = new Map(STRATEGIES.map((s) => [s.name, s]));

/** The row of strategy `name`; `undefined` for any other string. */
export function strategyRow(name: string): StrategyRow | undefined {
  return BY_NAME.get(name);
}

/** Whether strategy `name` reads slicer option `option` (`entries` for count entries). */
export function takesOption(name: StrategyName, option: string): boolean {
  return BY_NAME.get(name)?.options.includes(option) ?? false;
}
