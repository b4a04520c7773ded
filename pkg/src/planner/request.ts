/**
 * Step 4's request to the core: the strategy's core slicer and its options over the ranking, and
 * the check of what the core answers.
 *
 * @internal
 * @module
 */

import type { ColumnarRequest, ColumnarResult, ExactReport, SlicerName } from '../core/bridge.js';
import type { Scratch } from '../core/scratch.js';
import { strategyRow } from '../core/table.js';
import { CtxpackError } from '../errors.js';
import type { Candidates } from '../validate/candidates.js';
import { readOptionalString } from '../validate/fields.js';
import type { DecisionReason, PlannerSlicer } from '../types.js';
import { DEFAULT_KIND, type Settings } from './settings.js';

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

/** The core's name of a planner strategy: its engine (the core's table). */
export function coreSlicer(slicer: PlannerSlicer): SlicerName {
  return strategyRow(slicer)!.engine;
}

/**
 * A candidate's kind for the count-constrained knapsack: its `kind`, else its `lod`, else
 * `'default'`; with `options.lodMix` (`byLod`), its `lod`, else `'default'`.
 */
export function kindOf(c: Candidates, index: number, byLod = false): string {
  if (byLod) return c.lods[index] ?? DEFAULT_KIND;
  // Validated by validateCandidates, and not kept there: only this slicer needs it.
  return kindRule(readOptionalString(c.fragments[index]!, 'kind', index), c.lods[index]);
}

/** The rule: the kind, else the lod, else {@link DEFAULT_KIND}. */
function kindRule(kind: string | undefined, lod: string | undefined): string {
  return kind ?? lod ?? DEFAULT_KIND;
}

/**
 * The kind the count-constrained strategies count a (valid) fragment as, without `options.lodMix`:
 * its `kind`, else its `lod`, else `'default'`. For callers that show it (the preview page).
 */
export function fragmentKind(fragment: { readonly kind?: string; readonly lod?: string }): string {
  return kindRule(fragment.kind, fragment.lod);
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
  const row = strategyRow(s.slicer)!;
  switch (s.slicer) {
    case 'ranked':
    case 'packer':
      // 'ranked' fixes the packer's skip limit (0: its walk never stops early).
      req.maxConsecutiveSkips = row.skipLimit ?? s.maxConsecutiveSkips;
      return [row.engine, req];
    case 'greedy':
      return ['greedy', req];
    case 'knapsack':
      return ['knapsack', withTable(req, s, true)];
    case 'exact':
      return ['exact', withTable(req, s, false)];
    case 'count-knapsack':
    case 'exact-count': {
      const [kinds, kindNames] = kindColumns(scores.length, kindAt);
      // A strategy that picks its own bucket (exact-count: token precision when it fits) gets one only when given.
      withTable(req, s, !row.ownBucket || s.bucketSizeGiven);
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
