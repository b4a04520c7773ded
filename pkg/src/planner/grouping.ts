/**
 * Groups and required dependencies in the planner: whether they change a call (checked in step 1,
 * before anything is counted), and the grouped slice of step 4. Every rule is the core's
 * (docs/groups.md); this module only turns ids into indexes (core/links.ts) and maps rank
 * positions back to candidates.
 *
 * @internal
 * @module
 */

import { groupedAnswer, groupUnits, solveSlice, type ColumnarRequest, type GroupedResult, type SlicerName } from '../core/bridge.js';
import { linksOf, type Links } from '../core/links.js';
import type { Candidates } from '../validate/candidates.js';
import type { DecisionReason } from '../types.js';
import type { Settings } from './settings.js';
import { coreSlicer, kindColumns, kindOf, type PlannerSlice } from './request.js';

/** What step 1 found of the groups: whether they apply, and which candidates may go in alone. */
export interface Grouping {
  /** Per candidate: 1 when it is in no unit of two or more and needs no other candidate. */
  readonly alone: Uint8Array;
}

/** The grouped slice: the core's answer, plus the groups' own reasons and the unit sizes. */
export interface GroupedSlice extends PlannerSlice {
  groupReasons: (DecisionReason | undefined)[];
  /** Whether the unit of rank position `rank` is larger than `budget` (its members' charges summed). */
  tooLarge(rank: number, budget: number): boolean;
  repaired: boolean | undefined;
}

/** The candidates' links with item `p` = candidate `order[p]` (`rankOf` its inverse). */
export function linksIn(c: Candidates, s: Settings, order: Uint32Array | undefined, rankOf: Uint32Array | undefined): Links {
  const at = (p: number): number => (order === undefined ? p : order[p]!);
  const deps = s.dependencies === 'require' ? c.dependencies : undefined;
  return linksOf(
    c.ids.length,
    (p) => c.groups?.[at(p)],
    deps === undefined ? undefined : (p) => deps[at(p)],
    (id) => {
      const i = c.idIndex.indexOf(id);
      return i === undefined || rankOf === undefined ? i : rankOf[i];
    },
  );
}

/**
 * Whether groups or required dependencies change this call: a unit of two or more candidates, or
 * one that needs another. The core refuses here, before anything is counted, what the strategy
 * refuses of them. `undefined` when they change nothing.
 */
export function checkGrouping(c: Candidates, s: Settings): Grouping | undefined {
  if (c.groups === undefined && (s.dependencies === 'ignore' || c.dependencies === undefined)) return undefined;
  const n = c.ids.length;
  const links = linksIn(c, s, undefined, undefined);
  if (!links.any) return undefined;
  const counted = s.slicer === 'count-knapsack' || s.slicer === 'exact-count';
  const [kinds, kindNames] = counted ? kindColumns(n, (i) => kindOf(c, i, s.countByLod)) : [undefined, undefined];
  const entries = counted ? (s.countEntries ?? []).map((e) => ({ ...e })) : undefined;
  const units = groupUnits(
    coreSlicer(s.slicer),
    n,
    links,
    { kinds, kindNames, entries, dependencies: s.dependencies },
    { noun: 'candidates' },
  );
  const alone = new Uint8Array(n);
  let applies = false;
  for (let i = 0; i < n; i++) {
    const u = units.unitOf[i]!;
    if (units.unitSize[u] === 1 && units.needsOther[u] === 0) alone[i] = 1;
    else applies = true;
  }
  return applies ? { alone } : undefined;
}

/** The slice with groups (and required dependencies) over the ranking `order` (rank → candidate). */
export function sliceGrouped(c: Candidates, s: Settings, order: Uint32Array, slicer: SlicerName, request: ColumnarRequest): GroupedSlice {
  const n = order.length;
  const rankOf = new Uint32Array(n);
  for (let r = 0; r < n; r++) rankOf[order[r]!] = r;
  const links = linksIn(c, s, order, rankOf);
  const g = solveSlice(slicer, request, { links, dependencies: s.dependencies, naming: { noun: 'candidates', origin: order } });
  return groupedSliceOf(groupedAnswer(g), request.tokens);
}

/**
 * The planner's view of an answer with units (`solveSlice`'s with groups, dependencies or versions): a unit is too
 * large when its members' `size` (per rank position) sum past the budget.
 */
export function groupedSliceOf(g: GroupedResult, size: ArrayLike<number>): GroupedSlice {
  const unitSize = new Float64Array(g.unitCount);
  for (let r = 0; r < size.length; r++) unitSize[g.unitOf[r]!]! += size[r]!;
  return {
    selected: g.selected,
    reasons: g.reasons,
    groupReasons: g.groupReasons,
    shortfalls: g.shortfalls,
    overBudget: g.overBudget,
    overrunTokens: g.overrunTokens,
    exact: g.exact,
    tooLarge: (rank, budget) => unitSize[g.unitOf[rank]!]! > budget,
    repaired: g.repaired,
  };
}
