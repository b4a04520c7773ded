/**
 * Atomic groups and dependencies, once, for every strategy: fragments that must go in together
 * become one *unit* (one item for the core), the core slices the units, and the answer is expanded
 * back to the fragments.
 *
 * - **Units.** Fragments sharing a `group` form one unit; with `dependencies: 'require'`, so do
 *   fragments that depend on each other (a cycle of dependencies: none can go in without the
 *   others). A unit's tokens are its members' sum. Its score is what the strategy needs to treat
 *   the unit as the sum of its members: for greedy and the packer the sum of the members' scores
 *   (greedy orders by the unit's total score per token; the packer places the unit at its first
 *   member), for the knapsack strategies a score whose scaled value `max(0, floor(score × 10000))`
 *   is exactly the sum of the members' scaled values (the knapsack's value is per item, so the
 *   plain sum of scores could round differently). So with groups alone, `knapsack`, `exact` and
 *   `exact-count` are optimal over the grouped problem, exactly.
 * - **Dependencies** (`'require'`): a fragment goes in only with every fragment it depends on
 *   (transitively). Ids that name no item are ignored: they refer to context outside this call.
 *   Selecting under such constraints is NP-hard in general and the core's solvers do not model
 *   them, so:
 *   - **greedy and the packer** walk the units in their order (greedy: the unit's score per token,
 *     densest first; the packer: your order) and take each unit *together with the dependencies it
 *     still lacks* when all of them fit what is left, else count a miss (the packer stops after
 *     its skip limit). Dependencies go in before what needs them.
 *   - **the knapsack strategies** run in rounds, each of which keeps the selection closed:
 *     1. the strategy selects from all units, ignoring dependencies;
 *     2. *repair*: every selected unit with a dependency outside the selection is dropped, until
 *        none is left (dropping one can orphan others);
 *     3. *extend*: the strategy runs again, with the budget left, on the units not selected whose
 *        dependencies are all selected; what it picks is added; repeat until a round adds nothing.
 *     When step 2 drops nothing (`repaired: false`), the first selection already honoured the
 *     constraints, so it is optimal under them too; otherwise no optimality is claimed.
 *   Every result honours every dependency and fits the budget.
 * - **Decisions.** A member of a selected unit gets the unit's reason. A unit left out because a
 *   dependency is not selected gets `'dependency_excluded'` (all its members), unless the packer
 *   stopped before it (`'skip_limit_reached'`). A member of a
 *   multi-member unit the strategy left out gets `'no_budget'` at a target of 0,
 *   `'budget_exceeded'` when it could not fit the budget even alone, and otherwise
 *   `'group_excluded'`, with the unit's own reason as `groupReason`.
 * - **Count constraints** count fragments, not units: the count-constrained strategies accept
 *   groups only when no multi-member unit holds a fragment of a constrained kind, and refuse
 *   `dependencies: 'require'`.
 *
 * @internal
 * @module
 */

import { sliceColumnar, type ColumnarResult, type ExactReport, type ReasonCode, type Shortfall, type SlicerName } from './core/bridge.js';
import { CtxpackError, describeValue } from './errors.js';

/** How `dependencies` are treated. */
export type { DependencyMode } from './validate/options.js';
import type { DependencyMode } from './validate/options.js';

/** A decision's reason, with the two that only groups and dependencies produce. */
export type SliceReason = ReasonCode | 'group_excluded' | 'dependency_excluded';

/** The validated items, as parallel arrays. */
export interface GroupInput {
  ids: string[];
  tokens: Uint32Array;
  scores: Float64Array;
  kinds: Uint32Array;
  kindNames: string[];
  /** Per item, its group or `undefined`. */
  groups: (string | undefined)[];
  /** Per item, the ids it depends on or `undefined`. */
  dependencies: (readonly string[] | undefined)[];
  /** How errors name the items: `noun[origin[i]]` (default `items[i]`). */
  noun?: string;
  /** Per item, its index in the caller's list (default: `i`). */
  origin?: ArrayLike<number>;
}

/** The units: items merged into groups. Unit `u`'s members are in input order; units are ordered by their first member. */
export interface Units {
  count: number;
  unitOf: Uint32Array;
  members: number[][];
  /** Sum of the members' tokens (may exceed 2^32 − 1: checked when sliced). */
  tokens: number[];
  /** Sum of the members' scores, in input order. */
  scoreSum: number[];
  /** Sum of the members' scaled values. */
  value: number[];
  /** The units each unit depends on (a DAG: cycles are merged). */
  needs: number[][];
  /** Whether any unit has more than one member. */
  grouped: boolean;
  /** Whether any unit depends on another. */
  hasEdges: boolean;
}

/** The knapsack's value of a score: `max(0, floor(score × 10000))`, as the core computes it. */
export function scaledValue(score: number): number {
  return Math.max(0, Math.floor(score * 10000));
}

const SCRATCH = new Float64Array(1);
const BITS = new BigInt64Array(SCRATCH.buffer);

/** The next double after a positive `x`, up or down. */
function step(x: number, up: boolean): number {
  SCRATCH[0] = x;
  BITS[0] = BITS[0]! + (up ? 1n : -1n);
  return SCRATCH[0]!;
}

/** A score whose scaled value is exactly `v` (a non-negative integer below 2^53). */
export function scoreOfValue(v: number): number {
  if (v <= 0) return 0;
  let s = (v + 0.5) / 10000;
  for (let i = 0; i < 64 && scaledValue(s) !== v; i++) s = step(s, scaledValue(s) < v);
  return s;
}

/** Union-find with path halving. */
class Sets {
  readonly parent: Uint32Array;
  constructor(n: number) {
    this.parent = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }
  find(x: number): number {
    const p = this.parent;
    while (p[x] !== x) {
      p[x] = p[p[x]!]!;
      x = p[x]!;
    }
    return x;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Strongly connected components of a graph on `n` nodes (iterative Tarjan); calls `same(a, b)` for nodes of one component. */
function components(n: number, out: readonly number[][], same: (a: number, b: number) => void): void {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const work: [node: number, edge: number][] = [];
  let next = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    work.push([root, 0]);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [v, e] = frame;
      if (e === 0) {
        index[v] = low[v] = next++;
        stack.push(v);
        onStack[v] = 1;
      }
      const edges = out[v]!;
      if (e < edges.length) {
        frame[1] = e + 1;
        const w = edges[e]!;
        if (index[w] === -1) work.push([w, 0]);
        else if (onStack[w] === 1) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          same(v, w);
        } while (w !== v);
      }
    }
  }
}

/** Merges the items into units (see the module documentation). */
export function buildUnits(input: GroupInput, mode: DependencyMode): Units {
  const n = input.ids.length;
  const sets = new Sets(n);
  const firstOfGroup = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const g = input.groups[i];
    if (g === undefined) continue;
    const first = firstOfGroup.get(g);
    if (first === undefined) firstOfGroup.set(g, i);
    else sets.union(first, i);
  }
  // Item-level dependency edges, to items of this call only.
  const edges: [from: number, to: number][] = [];
  if (mode === 'require') {
    const indexOf = new Map<string, number>();
    input.ids.forEach((id, i) => indexOf.set(id, i));
    for (let i = 0; i < n; i++) {
      for (const d of input.dependencies[i] ?? []) {
        const j = indexOf.get(d);
        if (j !== undefined && j !== i) edges.push([i, j]);
      }
    }
    if (edges.length > 0) {
      // Cycles over the grouped graph must go in together too.
      const out: number[][] = Array.from({ length: n }, () => []);
      for (const [a, b] of edges) {
        const ra = sets.find(a);
        const rb = sets.find(b);
        if (ra !== rb) out[ra]!.push(rb);
      }
      components(n, out, (a, b) => sets.union(a, b));
    }
  }
  const unitOf = new Uint32Array(n);
  const unitOfRoot = new Map<number, number>();
  const members: number[][] = [];
  for (let i = 0; i < n; i++) {
    const root = sets.find(i);
    let u = unitOfRoot.get(root);
    if (u === undefined) {
      u = members.length;
      unitOfRoot.set(root, u);
      members.push([]);
    }
    members[u]!.push(i);
    unitOf[i] = u;
  }
  const count = members.length;
  const tokens = new Array<number>(count);
  const scoreSum = new Array<number>(count);
  const value = new Array<number>(count);
  for (let u = 0; u < count; u++) {
    const m = members[u]!;
    let s = input.scores[m[0]!]!;
    for (let k = 1; k < m.length; k++) s += input.scores[m[k]!]!;
    scoreSum[u] = s;
    let t = 0;
    let v = 0;
    for (const i of m) {
      t += input.tokens[i]!;
      v += scaledValue(input.scores[i]!);
    }
    tokens[u] = t;
    value[u] = v;
  }
  const needSets: Set<number>[] = Array.from({ length: count }, () => new Set<number>());
  for (const [a, b] of edges) {
    const ua = unitOf[a]!;
    const ub = unitOf[b]!;
    if (ua !== ub) needSets[ua]!.add(ub);
  }
  const needs = needSets.map((s) => [...s].sort((a, b) => a - b));
  return {
    count,
    unitOf,
    members,
    tokens,
    scoreSum,
    value,
    needs,
    grouped: count < n,
    hasEdges: needs.some((x) => x.length > 0),
  };
}

const MAX_U32 = 4294967295;
const WALKS: readonly SlicerName[] = ['greedy', 'packer'];
const COUNTED: readonly SlicerName[] = ['count-knapsack', 'exact-count'];

/** ASCII lower case, as the core compares kinds. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Item `i`'s index in the caller's list, for errors (which name a group's first such member in the caller's order). */
function originOf(input: GroupInput, i: number): number {
  return input.origin === undefined ? i : input.origin[i]!;
}

/** The units as columns for the core: tokens, the strategy's scores, kinds (and the walks' values). */
export interface UnitColumns {
  tokens: Uint32Array;
  scores: Float64Array;
  kinds: Uint32Array;
  kindNames: string[];
  /** The units' values (what the walks' curves add). */
  values: Float64Array;
}

/** The columns of `units` for `slicer`. Refuses unit token sums beyond 2^32 − 1 and groups the count strategies cannot count. */
export function unitColumns(input: GroupInput, units: Units, slicer: SlicerName, entries?: readonly { kind: string }[]): UnitColumns {
  const walk = WALKS.includes(slicer);
  const constrained = COUNTED.includes(slicer) ? new Set((entries ?? []).map((e) => asciiLower(e.kind))) : undefined;
  const c = units.count;
  const out: UnitColumns = {
    tokens: new Uint32Array(c),
    scores: new Float64Array(c),
    kinds: new Uint32Array(c),
    kindNames: input.kindNames,
    values: new Float64Array(c),
  };
  for (let u = 0; u < c; u++) {
    const m = units.members[u]!;
    const first = m[0]!;
    if (units.tokens[u]! > MAX_U32) {
      const at = Math.min(...m.map((i) => originOf(input, i)));
      throw new CtxpackError(
        'INVALID_FIELD',
        `${input.noun ?? 'items'}[${at}] is in a group of ${m.length} items totalling ${units.tokens[u]} tokens, over 4294967295`,
        { field: 'group', index: at },
      );
    }
    if (constrained !== undefined && m.length > 1) {
      const counted = m.filter((i) => constrained.has(asciiLower(input.kindNames[input.kinds[i]!]!)));
      if (counted.length > 0) {
        const at = Math.min(...counted.map((i) => originOf(input, i)));
        throw new CtxpackError(
          'INVALID_OPTION',
          `${input.noun ?? 'items'}[${at}] is in a group of ${m.length} items and its kind has a count entry: count-constrained strategies count items, not groups`,
          { field: 'group', index: at },
        );
      }
    }
    out.tokens[u] = units.tokens[u]!;
    out.scores[u] = m.length === 1 ? input.scores[first]! : walk ? units.scoreSum[u]! : scoreOfValue(units.value[u]!);
    out.kinds[u] = input.kinds[first]!;
    out.values[u] = Math.min(units.value[u]!, Number.MAX_SAFE_INTEGER);
  }
  return out;
}

/**
 * What `slicer` refuses of the units, before any slicing: required dependencies for the
 * count-constrained strategies, and what {@link unitColumns} refuses. Returns the columns.
 */
export function checkUnits(
  input: GroupInput,
  units: Units,
  slicer: SlicerName,
  entries: readonly { kind: string }[] | undefined,
  mode: DependencyMode,
): UnitColumns {
  if (mode === 'require' && units.hasEdges && COUNTED.includes(slicer)) {
    throw new CtxpackError('INVALID_OPTION', `options.dependencies 'require' is not supported by the count-constrained strategies`, {
      field: 'dependencies',
    });
  }
  return unitColumns(input, units, slicer, entries);
}

/** The outcome of a grouped slice, per item. */
export interface GroupedOutcome {
  /** Item indexes in output order. */
  selected: number[];
  reasons: SliceReason[];
  /** For `'group_excluded'`: the unit's own reason. */
  groupReasons: (ReasonCode | undefined)[];
  totalTokens: number;
  totalScore: number;
  shortfalls: Shortfall[];
  overBudget: boolean;
  overrunTokens: number;
  budgetReached: boolean;
  exact: ExactReport | null;
  /** Knapsack strategies with `dependencies: 'require'`: whether the first selection had to drop units. */
  repaired?: boolean;
}

const INCLUDED: ReadonlySet<string> = new Set(['scored', 'zero_tokens', 'required']);

/**
 * Slices the units with `slicer` (core options in `core`, budget in `budget`), in rounds when
 * dependencies are required, and expands the answer to the items.
 */
export function sliceUnits(
  input: GroupInput,
  units: Units,
  slicer: SlicerName,
  budget: { targetTokens: number; maxTokens?: number },
  core: Record<string, unknown>,
  mode: DependencyMode,
): GroupedOutcome {
  const cols = checkUnits(input, units, slicer, core['entries'] as { kind: string }[] | undefined, mode);
  if (mode === 'require' && units.hasEdges && WALKS.includes(slicer)) {
    return expand(input, units, budget, walkUnits(units, cols, slicer, budget.targetTokens, core), null, [], undefined);
  }
  const call = (subset: number[] | undefined, targetTokens: number, maxTokens: number | undefined): ColumnarResult => {
    const pickU = (a: Uint32Array): Uint32Array => (subset === undefined ? a : Uint32Array.from(subset, (u) => a[u]!));
    const pickF = (a: Float64Array): Float64Array => (subset === undefined ? a : Float64Array.from(subset, (u) => a[u]!));
    return sliceColumnar(slicer, {
      ...core,
      targetTokens,
      ...(maxTokens === undefined ? {} : { maxTokens }),
      tokens: pickU(cols.tokens),
      scores: pickF(cols.scores),
      kinds: pickU(cols.kinds),
      kindNames: cols.kindNames,
    });
  };
  const first = call(undefined, budget.targetTokens, budget.maxTokens);
  const unitReason: SliceReason[] = [...first.reasons];
  const inSel = new Uint8Array(units.count);
  let order: number[] = Array.from(first.selected);
  for (const u of order) inSel[u] = 1;
  let repaired = false;
  if (mode === 'require' && units.hasEdges) {
    // Repair: drop selected units with a dependency outside the selection, until none is left.
    const dependents: number[][] = Array.from({ length: units.count }, () => []);
    units.needs.forEach((ns, u) => ns.forEach((v) => dependents[v]!.push(u)));
    const missing = (u: number): boolean => units.needs[u]!.some((v) => inSel[v] === 0);
    const queue = order.filter(missing);
    while (queue.length > 0) {
      const u = queue.pop()!;
      if (inSel[u] === 0 || !missing(u)) continue;
      inSel[u] = 0;
      repaired = true;
      for (const w of dependents[u]!) if (inSel[w] === 1) queue.push(w);
    }
    order = order.filter((u) => inSel[u] === 1);
    // Extend: the units whose dependencies are all in, with the budget left.
    let used = order.reduce((a, u) => a + units.tokens[u]!, 0);
    const ceiling = budget.maxTokens ?? budget.targetTokens;
    while (budget.targetTokens > 0) {
      const ready: number[] = [];
      for (let u = 0; u < units.count; u++) if (inSel[u] === 0 && !missing(u)) ready.push(u);
      if (ready.length === 0) break;
      const left = budget.targetTokens - used;
      let added: number[];
      if (left <= 0) {
        // Nothing to slice, but zero-token units always fit.
        added = ready.filter((u) => units.tokens[u] === 0);
        for (const u of ready) unitReason[u] = units.tokens[u] === 0 ? (slicer === 'packer' ? 'scored' : 'zero_tokens') : 'budget_exceeded';
      } else {
        const r = call(ready, left, Math.max(left, ceiling - used));
        r.reasons.forEach((reason, k) => (unitReason[ready[k]!] = reason));
        added = Array.from(r.selected, (k) => ready[k]!);
      }
      if (added.length === 0) break;
      for (const u of added) {
        inSel[u] = 1;
        order.push(u);
        used += units.tokens[u]!;
      }
    }
  }
  const exact = first.exact;
  return expand(input, units, budget, { order, inSel, unitReason }, exact, first.shortfalls, mode === 'require' && !WALKS.includes(slicer) ? repaired : undefined);
}

/** What a slice of the units decided. */
interface UnitOutcome {
  /** Selected units in output order. */
  order: number[];
  inSel: Uint8Array;
  /** The strategy's last reason for each unit. */
  unitReason: SliceReason[];
}

/** The units' outcome as the items' (see the module documentation for the reasons). */
function expand(
  input: GroupInput,
  units: Units,
  budget: { targetTokens: number },
  { order, inSel, unitReason }: UnitOutcome,
  exactReport: ExactReport | null,
  shortfalls: Shortfall[],
  repaired: boolean | undefined,
): GroupedOutcome {
  const n = input.ids.length;
  const reasons = new Array<SliceReason>(n);
  const groupReasons = new Array<ReasonCode | undefined>(n).fill(undefined);
  for (let u = 0; u < units.count; u++) {
    const m = units.members[u]!;
    let r: SliceReason = unitReason[u]!;
    if (inSel[u] === 0 && INCLUDED.has(r)) r = 'budget_exceeded'; // dropped by the repair; no round took it back
    // A unit the packer never reached says so, whatever its dependencies.
    if (inSel[u] === 0 && r !== 'skip_limit_reached' && units.needs[u]!.some((v) => inSel[v] === 0)) r = 'dependency_excluded';
    for (const i of m) {
      if (inSel[u] === 1 || m.length === 1 || r === 'dependency_excluded' || r === 'no_budget') {
        reasons[i] = r;
      } else if (input.tokens[i]! > budget.targetTokens) {
        reasons[i] = 'budget_exceeded';
      } else {
        reasons[i] = 'group_excluded';
        groupReasons[i] = r as ReasonCode;
      }
    }
  }
  const selected: number[] = [];
  for (const u of order) selected.push(...units.members[u]!);
  let totalTokens = 0;
  let totalScore = -0; // the core's sums start at -0.0 too
  let value = 0;
  for (const i of selected) {
    totalTokens += input.tokens[i]!;
    totalScore += input.scores[i]!;
    value += scaledValue(input.scores[i]!);
  }
  const overrunTokens = budget.targetTokens > 0 ? Math.max(0, totalTokens - budget.targetTokens) : 0;
  const out: GroupedOutcome = {
    selected,
    reasons,
    groupReasons,
    totalTokens,
    totalScore,
    shortfalls,
    overBudget: overrunTokens > 0,
    overrunTokens,
    budgetReached: reasons.some((r) => r === 'budget_exceeded' || r === 'not_in_optimal_set' || r === 'skip_limit_reached' || r === 'group_excluded'),
    exact: exactReport === null ? null : { ...exactReport, value },
  };
  if (repaired !== undefined) out.repaired = repaired;
  return out;
}

/** `options.maxConsecutiveSkips` as the core reads it (default 3). */
function skipLimit(core: Record<string, unknown>): number {
  const v = core['maxConsecutiveSkips'];
  if (v === undefined) return 3;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_U32) {
    throw new CtxpackError('INVALID_OPTION', `options.maxConsecutiveSkips must be an integer from 0 to 4294967295, got ${describeValue(v)}`, {
      field: 'maxConsecutiveSkips',
    });
  }
  return v;
}

/**
 * Greedy or the packer over units with dependencies: each unit, in the walk's order, goes in with
 * the dependencies it still lacks when all of them fit, else it is a miss.
 */
function walkUnits(units: Units, cols: UnitColumns, slicer: SlicerName, target: number, core: Record<string, unknown>): UnitOutcome {
  const c = units.count;
  const limit = slicer === 'packer' ? skipLimit(core) : 0;
  const walk = Array.from({ length: c }, (_, u) => u);
  if (slicer === 'greedy') {
    // GreedySlice's order: score per token, densest first (zero tokens first), ties by position.
    const density = Float64Array.from(walk, (u) => (cols.tokens[u] === 0 ? Number.MAX_VALUE : cols.scores[u]! / cols.tokens[u]!) + 0);
    walk.sort((a, b) => density[b]! - density[a]! || a - b);
  }
  const inSel = new Uint8Array(c);
  const order: number[] = [];
  const unitReason = new Array<SliceReason>(c).fill(target > 0 ? 'skip_limit_reached' : 'no_budget');
  if (target <= 0) return { order, inSel, unitReason };
  let left = target;
  let misses = 0;
  const mark = new Uint32Array(c);
  let stamp = 0;
  for (const u of walk) {
    if (inSel[u] === 1) continue;
    // The unit and the dependencies it lacks, dependencies first (iterative post-order).
    stamp++;
    const block: number[] = [];
    const stack: [unit: number, next: number][] = [[u, 0]];
    mark[u] = stamp;
    let need = 0;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const deps = units.needs[top[0]]!;
      if (top[1] < deps.length) {
        const v = deps[top[1]++]!;
        if (inSel[v] === 0 && mark[v] !== stamp) {
          mark[v] = stamp;
          stack.push([v, 0]);
        }
        continue;
      }
      stack.pop();
      block.push(top[0]);
      need += cols.tokens[top[0]]!;
    }
    if (need <= left) {
      left -= need;
      misses = 0;
      for (const v of block) {
        inSel[v] = 1;
        order.push(v);
        unitReason[v] = slicer === 'greedy' && need === 0 ? 'zero_tokens' : 'scored';
      }
    } else {
      unitReason[u] = 'budget_exceeded';
      misses++;
      if (misses === limit) break;
    }
  }
  return { order, inSel, unitReason };
}
