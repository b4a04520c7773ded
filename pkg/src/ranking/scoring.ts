/**
 * The ACS benefit/cost model v0 (spec: "Benefit/Cost Model (v0)").
 *
 * ```text
 * benefit = α·entity_overlap + β·recency + γ·citation_availability     (α, β, γ = 0.6, 0.3, 0.1)
 * score   = benefit / (1 + cost_tokens / 1000)
 * ```
 *
 * Where the seed is ambiguous or its formula leaves the intended range, this module decides as
 * follows, so that with weights summing to 1 the benefit always lies in [0, 1] (the KV policy's
 * 0.2 / 0.3–0.6 thresholds and the overshoot policy's 0.9 threshold assume that scale):
 *
 * - **Duplicate entities** count once, in the fragment and in the gaze: overlap is
 *   |distinct fragment entities ∩ distinct gaze entities| / |distinct gaze entities|, in [0, 1].
 *   The seed's `filter` would count a repeated fragment entity each time (overlap above 1, and a
 *   fragment could raise its score by repeating an entity). On inputs without duplicates the
 *   result equals the seed's. Entities match by exact string equality (no case folding).
 * - **Missing timestamp**: recency 0, as if infinitely old.
 * - **Future timestamps**: the age is clamped at 0, so recency is at most 1 (the seed's formula
 *   would exceed 1 and favour wrongly dated fragments without bound).
 * - **Missing citations** are treated as an empty list: citation availability 0.5.
 * - **Empty gaze**: overlap 0 (as the seed).
 * - A fragment's own `score` and `benefit` fields are never read here.
 *
 * The arithmetic is evaluated in the seed's order, so results are bit-identical to it on the
 * inputs where it is defined.
 *
 * @module
 */

import { exp, expColumn } from '../util/detmath.js';
import { CtxpackError, describeValue } from '../errors.js';
import {
  assertFragmentObject,
  isRecord,
  readCitationCount,
  readCost,
  readEntities,
  readTime,
  type Unchecked,
  type Where,
} from '../validate/fields.js';
import { optionsRecord, readNow, readWeights } from '../validate/options.js';
import { toEpochMs } from '../util/time.js';
import type { FragmentFields, Gaze, ScoringComponents, ScoringOptions, ScoringWeights, TimeInput } from '../types.js';

export { DEFAULT_WEIGHTS } from '../validate/options.js';

/** Recency decay constant in hours (spec: `exp(-ageHours / (24 * 7))`, "decay over weeks"). */
export const RECENCY_DECAY_HOURS = 168; // 24 * 7

/** Everything that is shared by the scoring of all candidates of one call. @internal */
export interface ScoringContext {
  readonly gaze: ReadonlySet<string>;
  readonly weights: ScoringWeights;
  readonly now: number;
}

/**
 * Validates a gaze and returns its distinct entities.
 * @throws {CtxpackError} `INVALID_FIELD` with `field` `'gaze'` or `'gaze.entities'` (and the element index).
 * @internal
 */
export function readGaze(gaze: unknown): ReadonlySet<string> {
  if (!isRecord(gaze)) {
    throw new CtxpackError('INVALID_FIELD', `gaze must be an object, got ${describeValue(gaze)}`, { field: 'gaze' });
  }
  return readEntitySet(gaze['entities'], 'gaze.entities');
}

/** The gaze's distinct entities if {@link readGaze} accepts it, else `undefined`. @internal */
export function peekGaze(gaze: unknown): ReadonlySet<string> | undefined {
  try {
    return readGaze(gaze);
  } catch {
    return undefined;
  }
}

function readEntitySet(entities: unknown, field: string): ReadonlySet<string> {
  if (!Array.isArray(entities)) {
    throw new CtxpackError('INVALID_FIELD', `${field} must be an array of strings, got ${describeValue(entities)}`, { field });
  }
  for (let i = 0; i < entities.length; i++) {
    const e: unknown = entities[i];
    if (typeof e !== 'string') {
      throw new CtxpackError('INVALID_FIELD', `${field}[${i}] must be a string, got ${describeValue(e)}`, { field, index: i });
    }
  }
  return new Set(entities as string[]);
}

/** Builds the per-call scoring context from a gaze and options. @internal */
export function createScoringContext(gaze: unknown, options: ScoringOptions | undefined): ScoringContext {
  const o = optionsRecord(options);
  const weights = readWeights(o);
  const now = readNow(o);
  return { gaze: readGaze(gaze), weights, now };
}

/** Up to this many entities, duplicates are found by scanning instead of with a `Set`. */
const SCAN_ENTITIES_MAX = 16;

function overlapWithSet(fragmentEntities: readonly string[], gaze: ReadonlySet<string>): number {
  if (gaze.size === 0) return 0;
  const n = fragmentEntities.length;
  if (n > SCAN_ENTITIES_MAX) {
    const seen = new Set<string>();
    for (const e of fragmentEntities) if (gaze.has(e)) seen.add(e);
    return seen.size / gaze.size;
  }
  // Distinct entities in the gaze: an entity counts unless an earlier one equals it.
  let matched = 0;
  for (let i = 0; i < n; i++) {
    const e = fragmentEntities[i]!;
    if (!gaze.has(e)) continue;
    let repeated = false;
    for (let j = 0; j < i && !repeated; j++) repeated = fragmentEntities[j] === e;
    if (!repeated) matched++;
  }
  return matched / gaze.size;
}

function recencyFromMs(timestampMs: number | undefined, now: number): number {
  if (timestampMs === undefined) return 0;
  const ageHours = Math.max(0, (now - timestampMs) / (1000 * 60 * 60));
  return exp(-ageHours / RECENCY_DECAY_HOURS);
}

/** Up to this many gaze entities, the planner matches entities through bit masks. */
const MASK_BITS = 32;

/**
 * The planner's entity matching. With a gaze of at most 32 entities each is given a bit, and a
 * fragment's matches are a mask (the overlap is its bit count over the gaze size, the same number
 * as `overlapWithSet`; the selection's coverage is the bit count of the masks' union). With a
 * larger gaze, masks are 0 and the overlap is computed with sets.
 * @internal
 */
export class EntityMatcher {
  private readonly bits: Map<string, number> | undefined;

  constructor(readonly gaze: ReadonlySet<string>) {
    if (gaze.size <= MASK_BITS) {
      this.bits = new Map();
      for (const e of gaze) this.bits.set(e, this.bits.size);
    }
  }

  /** Whether {@link EntityMatcher.mask} answers masks. */
  get masks(): boolean {
    return this.bits !== undefined;
  }

  /** The bits of the gaze entities among `entities`; 0 when the gaze is too large for masks. */
  mask(entities: readonly string[]): number {
    const bits = this.bits;
    if (bits === undefined || bits.size === 0) return 0;
    let mask = 0;
    for (let i = 0; i < entities.length; i++) {
      const b = bits.get(entities[i]!);
      if (b !== undefined) mask |= 1 << b;
    }
    return mask;
  }

  /** Entity overlap of `entities`, whose {@link EntityMatcher.mask} is `mask`. */
  overlap(entities: readonly string[], mask: number): number {
    if (this.gaze.size === 0) return 0;
    return this.bits === undefined ? overlapWithSet(entities, this.gaze) : bitCount(mask) / this.gaze.size;
  }
}

/** The number of bits set in a 32-bit integer. @internal */
export function bitCount(x: number): number {
  x -= (x >>> 1) & 0x5555_5555;
  x = (x & 0x3333_3333) + ((x >>> 2) & 0x3333_3333);
  x = (x + (x >>> 4)) & 0x0f0f_0f0f;
  return Math.imul(x, 0x0101_0101) >>> 24;
}

/**
 * Benefit and score of every candidate at once, from validated columns (the planner's path), with
 * exactly the arithmetic of {@link scoreComponents}.
 *
 * @param overlaps Entity overlap of each (see {@link EntityMatcher}).
 * @param timestamps Epoch ms; `-Infinity` for none.
 * @param costs The `cost_tokens` of each; `undefined` for 0 (the score is then the benefit).
 * @internal
 */
export function scoreColumns(
  overlaps: Float64Array,
  timestamps: Float64Array,
  citations: Uint32Array,
  costs: Uint32Array | undefined,
  ctx: ScoringContext,
  benefits: Float64Array,
  scores: Float64Array,
): void {
  const { alpha, beta, gamma } = ctx.weights;
  const now = ctx.now;
  const n = benefits.length;
  // Recency in two passes over a column (`scores`, written last, holds it meanwhile), as
  // recencyFromMs computes it: the exponents, then expColumn over them, with no call per value.
  const recencies = scores;
  for (let i = 0; i < n; i++) {
    const t = timestamps[i]!;
    recencies[i] = t === Number.NEGATIVE_INFINITY ? Number.NaN : -Math.max(0, (now - t) / (1000 * 60 * 60)) / RECENCY_DECAY_HOURS;
  }
  expColumn(recencies, recencies, n);
  for (let i = 0; i < n; i++) {
    const entity_overlap = overlaps[i]!;
    const recency = timestamps[i] === Number.NEGATIVE_INFINITY ? 0 : recencies[i]!;
    const citation_availability = citations[i]! > 0 ? 1.0 : 0.5;
    const benefit = alpha * entity_overlap + beta * recency + gamma * citation_availability;
    benefits[i] = benefit;
    scores[i] = costScaled(benefit, costs === undefined ? 0 : costs[i]!);
  }
}

/**
 * The score of a benefit (spec: `benefit / (1 + cost_tokens / 1000)`): exactly the benefit for a
 * cost of 0, which is how the packer, ranking before counting, scores.
 * @internal
 */
export function costScaled(benefit: number, costTokens: number): number {
  return benefit / (1 + costTokens / 1000);
}

/** Computes every component for a validated context; `where` locates field errors. @internal */
export function scoreComponents(fragment: Unchecked, ctx: ScoringContext, where?: Where): ScoringComponents {
  const entity_overlap = overlapWithSet(readEntities(fragment, where), ctx.gaze);
  const recency = recencyFromMs(readTime(fragment, 'timestamp', where), ctx.now);
  const citation_availability = readCitationCount(fragment, where) > 0 ? 1.0 : 0.5;
  const { alpha, beta, gamma } = ctx.weights;
  const benefit = alpha * entity_overlap + beta * recency + gamma * citation_availability;
  const score = costScaled(benefit, readCost(fragment, where));
  return { entity_overlap, recency, citation_availability, benefit, score };
}

/**
 * Entity overlap (spec: "Entity Overlap Calculation"): the fraction of the gaze's entities that
 * the fragment mentions.
 *
 * Duplicates count once on both sides, so the result lies in [0, 1]; 0 when the gaze is empty.
 * Equal to the seed's `intersection.length / gazeEntities.length` when neither list has duplicates.
 *
 * @param fragmentEntities The fragment's entities; `undefined` is treated as `[]`.
 * @param gazeEntities The gaze's entities.
 * @throws {CtxpackError} `INVALID_FIELD` when either is not an array of strings.
 */
export function calculateEntityOverlap(fragmentEntities: readonly string[] | undefined, gazeEntities: readonly string[]): number {
  const gaze = readEntitySet(gazeEntities, 'gazeEntities');
  const fragment = readEntitySet(fragmentEntities ?? [], 'fragmentEntities');
  return overlapWithSet([...fragment], gaze);
}

/**
 * Recency (spec: "Recency Scoring"): `exp(-ageHours / 168)` with
 * `ageHours = (now - timestamp) / 3_600_000`.
 *
 * A missing timestamp scores 0 (infinitely old). A timestamp in the future scores 1: the age is
 * clamped at 0 so recency never exceeds 1.
 *
 * @param timestamp A `Date`, ISO 8601 string with offset, or epoch ms; `undefined` → 0.
 * @param options `now` in epoch ms (default `Date.now()`).
 * @throws {CtxpackError} `INVALID_FIELD` (`field: 'timestamp'`) for an invalid time, `INVALID_OPTION` for a bad `now`.
 */
export function calculateRecencyScore(timestamp: TimeInput | undefined, options?: Pick<ScoringOptions, 'now'>): number {
  const now = readNow(optionsRecord(options));
  return recencyFromMs(timestamp === undefined ? undefined : toEpochMs(timestamp, 'timestamp'), now);
}

/**
 * All components of the ACS score of one fragment (the seed's `ScoringComponents`, plus the
 * resulting benefit and score).
 *
 * @throws {CtxpackError} `INVALID_FIELD` for a malformed fragment or gaze, `INVALID_OPTION` for bad options.
 */
export function calculateScoringComponents<T extends FragmentFields>(fragment: T, gaze: Gaze, options?: ScoringOptions): ScoringComponents {
  const ctx = createScoringContext(gaze, options);
  assertFragmentObject(fragment, undefined);
  return scoreComponents(fragment, ctx);
}

/**
 * Benefit (spec: `calculateBenefit`): `α·entity_overlap + β·recency + γ·citation_availability`,
 * with `citation_availability` = 1.0 when the fragment has at least one citation, else 0.5.
 * Weights default to 0.6 / 0.3 / 0.1 and can be overridden with `options.weights`.
 *
 * @throws {CtxpackError} `INVALID_FIELD` for a malformed fragment or gaze, `INVALID_OPTION` for bad options.
 */
export function calculateBenefit<T extends FragmentFields>(fragment: T, gaze: Gaze, options?: ScoringOptions): number {
  return calculateScoringComponents(fragment, gaze, options).benefit;
}

/**
 * Score (spec: `calculateScore`): `benefit / (1 + cost_tokens / 1000)`.
 *
 * @throws {CtxpackError} `INVALID_FIELD` for a malformed fragment or gaze, `INVALID_OPTION` for bad options.
 */
export function calculateScore<T extends FragmentFields>(fragment: T, gaze: Gaze, options?: ScoringOptions): number {
  return calculateScoringComponents(fragment, gaze, options).score;
}
