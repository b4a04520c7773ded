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

import { exp } from './detmath.js';
import { CtxpackError, describeValue } from './errors.js';
import {
  assertFragmentObject,
  isRecord,
  readCitationCount,
  readCost,
  readEntities,
  readTime,
  type Unchecked,
  type Where,
} from './fields.js';
import { optionsRecord, readNow, readWeights } from './options.js';
import { toEpochMs } from './time.js';
import type { FragmentFields, Gaze, ScoringComponents, ScoringOptions, ScoringWeights, TimeInput } from './types.js';

export { DEFAULT_WEIGHTS } from './options.js';

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

function overlapWithSet(fragmentEntities: readonly string[], gaze: ReadonlySet<string>): number {
  if (gaze.size === 0) return 0;
  const seen = new Set<string>();
  for (const e of fragmentEntities) if (gaze.has(e)) seen.add(e);
  return seen.size / gaze.size;
}

function recencyFromMs(timestampMs: number | undefined, now: number): number {
  if (timestampMs === undefined) return 0;
  const ageHours = Math.max(0, (now - timestampMs) / (1000 * 60 * 60));
  return exp(-ageHours / RECENCY_DECAY_HOURS);
}

/** Computes every component for a validated context; `where` locates field errors. @internal */
export function scoreComponents(fragment: Unchecked, ctx: ScoringContext, where?: Where): ScoringComponents {
  const entity_overlap = overlapWithSet(readEntities(fragment, where), ctx.gaze);
  const recency = recencyFromMs(readTime(fragment, 'timestamp', where), ctx.now);
  const citation_availability = readCitationCount(fragment, where) > 0 ? 1.0 : 0.5;
  const { alpha, beta, gamma } = ctx.weights;
  const benefit = alpha * entity_overlap + beta * recency + gamma * citation_availability;
  const score = benefit / (1 + readCost(fragment, where) / 1000);
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
