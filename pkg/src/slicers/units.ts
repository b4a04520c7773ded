/**
 * `groupUnits`: the units the slicer functions and `selectFragments` slice, as the core forms them
 * (docs/groups.md): items that share a `group`, and with `dependencies: 'require'` items that
 * depend on each other in a cycle, go in together or not at all.
 *
 * @module
 */

import { groupUnits as coreUnits } from '../core/bridge.js';
import { optionsCopy, readDependencyMode, rejectUnknownOptions } from '../validate/options.js';
import type { DependencyMode } from '../core/types.js';
import type { SliceItem } from './functions.js';
import { linksOfColumns, readSliceItems } from './items.js';

/** Options of {@link groupUnits}. */
export interface GroupUnitsOptions {
  /** `'require'`: dependencies bind too (default `'ignore'`: groups only). */
  dependencies?: DependencyMode;
}

/** The units of a list of items. */
export interface UnitMap {
  /** Per item, its unit; units are numbered by their first member in input order. */
  unitOf: Uint32Array;
  /** How many units. */
  unitCount: number;
  /** Per unit, its member count. */
  unitSize: Uint32Array;
  /** Per unit, its members' tokens summed. */
  unitTokens: Float64Array;
  /** Per unit, 1 when it needs an item outside it (`dependencies: 'require'`); such a unit never goes in alone. */
  needsOther: Uint8Array;
}

/**
 * The units of `items` (validated as the slicer functions validate them).
 *
 * @example
 * groupUnits([{ id: 'call', tokens: 40, score: 0.5, group: 't1' }, { id: 'result', tokens: 900, score: 0.7, group: 't1' },
 *   { id: 'note', tokens: 10, score: 0.1, dependencies: ['result'] }], { dependencies: 'require' })
 * // → unitOf [0, 0, 1], unitSize [2, 1], unitTokens [940, 10], needsOther [0, 1]
 *
 * @throws {CtxpackError} the slicer functions' input errors, `INVALID_OPTION`, and `INVALID_FIELD`
 * for a self-dependency.
 */
export function groupUnits(items: readonly SliceItem[], options?: GroupUnitsOptions): UnitMap {
  const o = optionsCopy(options);
  rejectUnknownOptions(o, ['dependencies'], 'groupUnits');
  const mode = readDependencyMode(o);
  const cols = readSliceItems(items);
  const n = cols.ids.length;
  const units = coreUnits('greedy', n, linksOfColumns(cols, mode), { dependencies: mode }, {});
  const unitTokens = new Float64Array(units.unitCount);
  for (let i = 0; i < n; i++) unitTokens[units.unitOf[i]!]! += cols.tokens[i]!;
  return { unitOf: units.unitOf, unitCount: units.unitCount, unitSize: units.unitSize, unitTokens, needsOther: units.needsOther };
}
