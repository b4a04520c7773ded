/**
 * Groups and required dependencies in the planner: whether they change a call (checked in step 1,
 * before anything is counted), and the grouped slice of step 4.
 *
 * @internal
 * @module
 */

import type { ColumnarRequest, SlicerName } from '../core/bridge.js';
import { buildUnits, checkUnits, sliceUnits, type GroupInput, type Units } from '../groups.js';
import { identity } from '../ranking/sort.js';
import type { Candidates } from '../validate/candidates.js';
import type { DecisionReason } from '../types.js';
import { DEFAULT_KIND, type Settings } from './settings.js';
import { coreSlicer, kindColumns, kindOf, type PlannerSlice } from './request.js';

/** What the overshoot needs of the units: a unit's tokens, and whether a rank goes in alone. */
export interface UnitView {
  /** Whether the unit of rank position `rank` is larger than `budget`. */
  tooLarge(rank: number, budget: number): boolean;
  /** Whether rank position `rank` goes in alone (in no group of two or more, needing no other candidate). */
  alone(rank: number): boolean;
}

/** The grouped slice: the core's answer, plus the groups' own reasons and the units. */
export interface GroupedSlice extends PlannerSlice {
  groupReasons: (DecisionReason | undefined)[];
  units: UnitView;
  repaired: boolean | undefined;
}

/** The candidates in `order` (position → candidate index) as groups.ts takes them; errors name `candidates[index]`. */
function groupInputOf(
  c: Candidates,
  s: Settings,
  order: Uint32Array,
  tokens: Uint32Array,
  scores: Float64Array,
  kinds: Uint32Array,
  kindNames: string[],
): GroupInput {
  const n = order.length;
  const ids = new Array<string>(n);
  const groups = new Array<string | undefined>(n);
  const dependencies = new Array<readonly string[] | undefined>(n);
  const deps = s.dependencies === 'require' ? c.dependencies : undefined;
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    ids[p] = c.ids[i]!;
    groups[p] = c.groups?.[i];
    dependencies[p] = deps?.[i];
  }
  return { ids, tokens, scores, kinds, kindNames, groups, dependencies, noun: 'candidates', origin: order };
}

/**
 * Whether groups or required dependencies change this call: a group of two or more candidates,
 * or, with `dependencies: 'require'`, a candidate that depends on another. Then checks, before
 * anything is counted, what the strategy refuses of them (the count-constrained strategies refuse
 * required dependencies, and groups holding a kind with a count entry).
 */
export function checkGrouping(c: Candidates, s: Settings): boolean {
  if (c.groups === undefined && (s.dependencies === 'ignore' || c.dependencies === undefined)) return false;
  const n = c.ids.length;
  const counted = s.slicer === 'count-knapsack' || s.slicer === 'exact-count';
  const [kinds, kindNames] = counted ? kindColumns(n, (i) => kindOf(c, i)) : [new Uint32Array(n), [DEFAULT_KIND]];
  const input = groupInputOf(c, s, identity(n), new Uint32Array(n), new Float64Array(n), kinds, kindNames);
  const units = buildUnits(input, s.dependencies);
  const applies = units.grouped || (s.dependencies === 'require' && units.hasEdges);
  if (applies) checkUnits(input, units, coreSlicer(s.slicer), s.countEntries, s.dependencies);
  return applies;
}

/** The slice with groups (and required dependencies) over the ranking. */
export function sliceGrouped(c: Candidates, s: Settings, order: Uint32Array, slicer: SlicerName, request: ColumnarRequest): GroupedSlice {
  const { tokens, scores, kinds, kindNames, targetTokens, maxTokens, ...core } = request;
  const n = tokens.length;
  const input = groupInputOf(c, s, order, tokens, scores, kinds ?? new Uint32Array(n), kindNames ?? [DEFAULT_KIND]);
  const units = buildUnits(input, s.dependencies);
  const g = sliceUnits(input, units, slicer, maxTokens === undefined ? { targetTokens } : { targetTokens, maxTokens }, core, s.dependencies);
  return {
    selected: Uint32Array.from(g.selected),
    reasons: g.reasons,
    groupReasons: g.groupReasons,
    shortfalls: g.shortfalls,
    overBudget: g.overBudget,
    overrunTokens: g.overrunTokens,
    units: viewOf(units),
    repaired: g.repaired,
  };
}

function viewOf(units: Units): UnitView {
  return {
    tooLarge: (rank, budget) => units.tokens[units.unitOf[rank]!]! > budget,
    alone: (rank) => units.members[units.unitOf[rank]!]!.length === 1 && units.needs[units.unitOf[rank]!]!.length === 0,
  };
}
