/**
 * `ctxpack/slicers`: the strategies of the Rust core on items you count and score yourself, one
 * function per strategy (docs/strategies.md), the columnar and object paths, units, and the budget
 * simulation. `fitMessages` and `selectFragments` (from `ctxpack`) run the same core.
 *
 * @module
 */

export {
  countConstrainedKnapsackSlice,
  exactCountConstrainedSlice,
  exactKnapsackSlice,
  greedySlice,
  knapsackSlice,
  packerSlice,
  sliceColumns,
  sliceObjects,
} from './slicers/functions.js';
export type {
  CountConstrainedKnapsackOptions,
  CoreSliceOptions,
  ExactCountConstrainedOptions,
  ExactKnapsackOptions,
  ExactSliceResult,
  GreedyOptions,
  GroupOptions,
  KnapsackOptions,
  PackerOptions,
  SliceBudget,
  SliceColumns,
  SliceDecision,
  SliceItem,
  SliceResult,
} from './slicers/functions.js';
export type { ColumnarResult, CountEntry, DependencyMode, ExactReport, ObjectItem, ReasonCode, Shortfall, SliceReason, SlicerName } from './core/types.js';

export { OPTION_DEFAULTS, STRATEGIES } from './core/table.js';
export type { EngineName, OptionDefaults, StrategyName, StrategyRow } from './core/table.js';

export { groupUnits } from './slicers/units.js';
export type { GroupUnitsOptions, UnitMap } from './slicers/units.js';

export { budgetCurve, droppedUnderSlack, minBudgetFor } from './slicers/simulation.js';
export type { MinBudgetOptions, MinBudgetResult, SimulationOptions, SimulationSlicerName, SlackResult } from './slicers/simulation.js';
