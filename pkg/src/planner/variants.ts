/**
 * Step 4 with `variants` (docs/variants.md): each candidate's versions as columns over the
 * ranking (a charge and a value each), the core's multiple-choice slice, and what the decisions
 * say of each version. Which version goes in is the core's decision; this module only counts,
 * values and maps.
 *
 * @internal
 * @module
 */

import { groupedAnswer, NO_VERSION, solveSlice, type ColumnarRequest, type SlicerName } from '../core/bridge.js';
import { CtxpackError } from '../errors.js';
import type { DecisionReason, VersionDecision } from '../types.js';
import { defaultScale } from '../validate/variants.js';
import type { Call } from './call.js';
import { chargeOf } from './charges.js';
import { groupedSliceOf, linksIn } from './grouping.js';
import type { PlannerSlice } from './request.js';

/** A candidate's versions as the plan saw them: index 0 the full fragment, then its `variants`. */
export interface Versions {
  /** Counts (without the per-fragment overhead). */
  readonly costs: number[];
  /** Values: the full score × each version's scale. */
  readonly scores: number[];
  readonly lods: (string | undefined)[];
}

/** The multiple-choice slice: the core's answer plus, per candidate with variants, its versions and the one that went in. */
export interface VariantSlice extends PlannerSlice {
  groupReasons: (DecisionReason | undefined)[];
  repaired: boolean | undefined;
  /** Whether the unit of rank position `rank` is larger than `budget` in its smallest versions. */
  tooLarge(rank: number, budget: number): boolean;
  /** Per candidate: its versions (only candidates with variants). */
  versions: (Versions | undefined)[];
  /** Per candidate: the version that went in (0 = the fragment itself), or {@link NO_VERSION}. */
  chosen: Uint32Array;
}

/**
 * Counts, charges and values every candidate's versions (in rank order `order`) and runs the
 * core's multiple-choice slice. `rankScores[r]` and `charges[r]` are rank position `r`'s full
 * version's value and charge.
 */
export function sliceVariants(
  call: Call,
  order: Uint32Array,
  rankScores: Float64Array,
  charges: Uint32Array,
  slicer: SlicerName,
  request: ColumnarRequest,
): VariantSlice {
  const { c, s, budget, counts } = call;
  const n = order.length;
  const versions = new Array<Versions | undefined>(n);
  const cls: number[] = [];
  const tok: number[] = [];
  const val: number[] = [];
  const smallest = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const i = order[r]!;
    smallest[r] = charges[r]!;
    const list = c.variants?.[i];
    if (list === undefined) continue;
    const full = counts.get(i);
    const v: Versions = { costs: [full], scores: [rankScores[r]!], lods: [c.lods[i]] };
    for (let k = 0; k < list.length; k++) {
      const variant = list[k]!;
      const cost = variant.cost ?? counts.count(variant.content!, `variants[${k}].content`, i);
      const scale = variant.scale ?? defaultScale(cost, full);
      const charge = chargeOf(i, cost, budget);
      v.costs.push(cost);
      v.scores.push(rankScores[r]! * scale);
      v.lods.push(variant.lod);
      cls.push(r);
      tok.push(charge);
      val.push(rankScores[r]! * scale);
      smallest[r] = Math.min(smallest[r]!, charge);
    }
    versions[i] = v;
  }
  const rankOf = new Uint32Array(n);
  for (let r = 0; r < n; r++) rankOf[order[r]!] = r;
  const links = linksIn(c, s, order, rankOf);
  const a = solveSlice(slicer, request, {
    links,
    dependencies: s.dependencies,
    naming: { noun: 'candidates', origin: order },
    versions: { versionClass: Uint32Array.from(cls), tokens: Uint32Array.from(tok), scores: Float64Array.from(val) },
  });
  const g = groupedAnswer(a);
  const version = a.version;
  if (version === undefined) throw new CtxpackError('INTERNAL', 'the core answered a slice with versions without them');
  const chosen = new Uint32Array(n).fill(NO_VERSION);
  for (let r = 0; r < n; r++) chosen[order[r]!] = version[r]!;
  // A unit is too large when even its smallest versions are.
  return { ...groupedSliceOf(g, smallest), versions, chosen };
}

/**
 * What the decision of candidate `i` says of its versions: the one that went in, and why each of
 * the others did not (see {@link VersionDecision}). `effective` is the effective budget, `overhead`
 * the per-fragment overhead.
 */
export function versionDecisions(v: Versions, chosen: number, effective: number, overhead: number): VersionDecision[] {
  return v.costs.map((cost, k) => ({
    variant: k === 0 ? null : k - 1,
    cost_tokens: cost,
    score: v.scores[k]!,
    lod: v.lods[k],
    status:
      k === chosen
        ? 'selected'
        : cost + overhead > effective
          ? 'too_large'
          : chosen !== NO_VERSION
            ? 'other_version'
            : 'not_selected',
  }));
}
