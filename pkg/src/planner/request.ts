/**
 * Step 4's request to the core: the strategy's core slicer and its options over the ranking, and
 * the check of what the core answers.
 *
 * @internal
 * @module
 */

import type { ColumnarRequest, ColumnarResult, ExactReport, SlicerName } from '../core/bridge.js';
import type { Scratch } from '../core/scratch.js';
import { CtxpackError } from '../errors.js';
import type { Candidates } from '../validate/candidates.js';
import { readOptionalString } from '../validate/fields.js';
import type { DecisionReason, PlannerSlicer } from '../types.js';
import { DEFAULT_KIND, type Settings } from './settings.js';

/** `maxConsecutiveSkips` value that the core reads as "no limit": the seed's walk never stops early. */
const UNLIMITED_SKIPS = 0;

/** What a slicer answered the planner: the core's result, or the grouped one (reasons may then name groups). */
export interface PlannerSlice {
  selected: Uint32Array;
  reasons: DecisionReason[];
  shortfalls: ColumnarResult['shortfalls'];
  overBudget: boolean;
  overrunTokens: number;
  /** The exact strategies' report; `null` for the others. */
  exact: ExactReport | null;
}

/** The core's name of a planner strategy. */
export function coreSlicer(slicer: PlannerSlicer): SlicerName {
  return slicer === 'ranked' ? 'packer' : slicer;
}

/**
 * A candidate's kind for the count-constrained knapsack: its `kind`, else its `lod`, else
 * `'default'`; with `options.lodMix` (`byLod`), its `lod`, else `'default'`.
 */
export function kindOf(c: Candidates, index: number, byLod = false): string {
  if (byLod) return c.lods[index] ?? DEFAULT_KIND;
  // Validated by validateCandidates, and not kept there: only this slicer needs it.
  return readOptionalString(c.fragments[index]!, 'kind', index) ?? c.lods[index] ?? DEFAULT_KIND;
}

/** Kind ids by first appearance (`kindAt(i)` for `i < n`), and the kind names they point into. */
export function kindColumns(n: number, kindAt: (i: number) => string): [Uint32Array, string[]] {
  const kindNames: string[] = [];
  const kindIndex = new Map<string, number>();
  const kinds = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const kind = kindAt(i);
    let k = kindIndex.get(kind);
    if (k === undefined) {
      k = kindNames.length;
      kindNames.push(kind);
      kindIndex.set(kind, k);
    }
    kinds[i] = k;
  }
  return [kinds, kindNames];
}

/**
 * The slicer's request over the ranking: `scores[i]` and `charges[i]` are those of rank position
 * `i` (`charges`: its count plus the per-fragment overhead); `kindAt(i)` its kind.
 */
export function buildRequest(
  scores: Float64Array,
  charges: Uint32Array,
  kindAt: (rank: number) => string,
  tokensMax: number,
  s: Settings,
): [SlicerName, ColumnarRequest] {
  // One object, its options assigned: spreading a base object into a new one took V8's slow path
  // (about a microsecond, a tenth of a small call's slice).
  const req: ColumnarRequest = { tokens: charges, scores, targetTokens: tokensMax, maxTokens: tokensMax };
  switch (s.slicer) {
    case 'ranked':
      req.maxConsecutiveSkips = UNLIMITED_SKIPS;
      return ['packer', req];
    case 'packer':
      req.maxConsecutiveSkips = s.maxConsecutiveSkips;
      return ['packer', req];
    case 'greedy':
      return ['greedy', req];
    case 'knapsack':
      return ['knapsack', withTable(req, s, true)];
    case 'exact':
      return ['exact', withTable(req, s, false)];
    case 'count-knapsack':
    case 'exact-count': {
      const [kinds, kindNames] = kindColumns(scores.length, kindAt);
      // exact-count chooses its own bucket (token precision when it fits) unless one is given.
      withTable(req, s, s.slicer === 'count-knapsack' || s.bucketSizeGiven);
      if (s.slicer === 'exact-count' && s.maxCells !== undefined) req.maxCells = s.maxCells;
      req.kinds = kinds;
      req.kindNames = kindNames;
      req.entries = (s.countEntries ?? []).map((e) => ({ kind: e.kind, requireCount: e.requireCount, capCount: e.capCount }));
      req.scarcity = s.scarcity;
      return [s.slicer, req];
    }
  }
}

/** Sets the table options on `req`: `maxTableBytes` when given, and `bucketSize` when `bucket`. */
function withTable(req: ColumnarRequest, s: Settings, bucket: boolean): ColumnarRequest {
  if (bucket) req.bucketSize = s.bucketSize;
  if (s.maxTableBytes !== undefined) req.maxTableBytes = s.maxTableBytes;
  return req;
}

/** Refuses a core answer that is not one reason per item and distinct in-range picks (`INTERNAL`). */
export function checkResult(result: PlannerSlice, n: number, scratch: Scratch): void {
  let ok =
    result !== null &&
    typeof result === 'object' &&
    Array.isArray(result.reasons) &&
    result.reasons.length === n &&
    result.selected instanceof Uint32Array;
  if (ok) {
    const seen = scratch.u8(n, true);
    for (const i of result.selected) {
      if (i >= n || seen[i] === 1) {
        ok = false;
        break;
      }
      seen[i] = 1;
    }
  }
  if (!ok) throw new CtxpackError('INTERNAL', 'the core returned a malformed slicer result');
}
