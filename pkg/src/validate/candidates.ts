/**
 * The planner's step 1 for the candidates: one pass that validates every field, in the documented
 * order, and reads it into columns (typed arrays where the values are numbers), so that the later
 * phases never go back to the fragment objects; and the index of their ids.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import {
  assertFragmentObject,
  duplicateIdError,
  isCost,
  isEpochMs,
  isRecord,
  isStringArray,
  readCitationCount,
  readDependencies,
  readEntities,
  readId,
  readOptionalCost,
  readOptionalString,
  readTime,
  type Unchecked,
} from './fields.js';
import type { Scratch } from '../core/scratch.js';
import { fnv1a32Units } from '../util/hash.js';
import { indexIds, type IdIndex } from './id-index.js';
import { MAX_EPOCH_MS } from '../util/time.js';
import { readVariants, type VariantInput } from './variants.js';

const getTime = Date.prototype.getTime;

/** The validated candidates as columns: entry `i` is `candidates[i]`. */
export interface Candidates {
  /**
   * The caller's objects: `candidates` itself, or a copy of it when a token counter (a callback
   * that could change the array) runs before the plan is built.
   */
  readonly fragments: readonly Unchecked[];
  readonly ids: string[];
  readonly idIndex: IdIndex;
  /** {@link fnv1a32Units} of each id: the id index's hash and the default request id's. */
  readonly idHashes: Uint32Array;
  /** `cost_tokens`; 0 where `content` is to be counted. */
  readonly given: Uint32Array;
  /** The `content` to count where there is no `cost_tokens`; `undefined` when all have one. */
  readonly contents: (string | undefined)[] | undefined;
  /** `timestamp` in epoch ms; `-Infinity` when absent. */
  readonly timestamps: Float64Array;
  readonly citations: Uint32Array;
  /** Pooled ({@link Scratch.array}): read it during the call only, as the typed columns. */
  readonly lods: (string | undefined)[];
  /** `entities`; kept only when there are no {@link Candidates.entityMasks} to stand for them. */
  readonly entities: (readonly string[])[] | undefined;
  /** Entity overlap with the gaze (when the gaze is valid). */
  readonly overlaps: Float64Array;
  /** {@link EntityMatcher} masks (when the gaze is valid and small enough). */
  readonly entityMasks: Uint32Array | undefined;
  /** Pooled, as {@link Candidates.lods}. */
  readonly sources: (string | undefined)[];
  /** `lastAccessTime` in epoch ms; NaN when absent. */
  readonly lastAccess: Float64Array;
  /** `dependencies`, where not empty (the array is allocated at the first). */
  readonly dependencies: (readonly string[] | undefined)[] | undefined;
  /** `group`, per candidate (the array is allocated at the first group). */
  readonly groups: (string | undefined)[] | undefined;
  /** `variants`, where not empty (the array is allocated at the first). */
  readonly variants: (readonly VariantInput[] | undefined)[] | undefined;
}

/** An empty list, shared. */
export const NO_STRINGS: readonly string[] = Object.freeze([]);

/**
 * What the pass asks of the gaze's entity matcher (ranking/scoring.ts's `EntityMatcher`, named by
 * its shape so that validation does not depend on ranking).
 */
interface EntityMatcher {
  readonly masks: boolean;
  mask(entities: readonly string[]): number;
  overlap(entities: readonly string[], mask: number): number;
}

/**
 * Step 1 for the candidates: checks every field in the documented order and reads it into the
 * columns, in one pass. Each field has a fast test for the common valid forms; anything else goes
 * to the field's reader in fields.ts, which throws the error (or, for the forms it also accepts,
 * such as a `Date` or an ISO string, returns the value).
 *
 * The pass also does the work that needs the fragments' own memory (which, for 100k fragments,
 * costs more to reach than to compute with): the entity overlap with the gaze, when `matcher` is
 * given, and the hash of every id.
 */
export function validateCandidates(
  candidates: unknown,
  matcher: EntityMatcher | undefined,
  copy: boolean,
  scratch: Scratch,
): Candidates {
  if (!Array.isArray(candidates)) {
    throw new CtxpackError('INVALID_INPUT', `candidates must be an array, got ${describeValue(candidates)}`, { field: 'candidates' });
  }
  const n = candidates.length;
  const c = {
    fragments: (copy ? candidates.slice() : candidates) as readonly Unchecked[],
    ids: new Array<string>(n),
    idIndex: undefined as unknown as IdIndex,
    idHashes: scratch.u32(n),
    given: scratch.u32(n),
    contents: undefined as (string | undefined)[] | undefined,
    timestamps: scratch.f64(n),
    citations: scratch.u32(n),
    lods: scratch.array<string | undefined>(n),
    entities: matcher?.masks === true ? undefined : new Array<readonly string[]>(n),
    overlaps: scratch.f64(n),
    entityMasks: matcher?.masks === true ? scratch.u32(n) : undefined,
    sources: scratch.array<string | undefined>(n),
    lastAccess: scratch.f64(n),
    dependencies: undefined as (readonly string[] | undefined)[] | undefined,
    groups: undefined as (string | undefined)[] | undefined,
    variants: undefined as (readonly VariantInput[] | undefined)[] | undefined,
  };
  // Duplicate ids are looked for after the pass, over all the ids at once. Candidates
  // 0 .. checked-1 have passed the point of the documented order where the duplicate check
  // belongs (right after the count): when the pass fails, a duplicate among them is the error.
  let checked = 0;
  try {
    for (let i = 0; i < n; i++) {
      const f: unknown = candidates[i];
      if (!isRecord(f)) assertFragmentObject(f, i);
      let id = f['id'];
      if (typeof id !== 'string' || id.length === 0) id = readId(f, i);
      const cost = f['cost_tokens'];
      if (isCost(cost)) {
        c.given[i] = cost;
      } else {
        readOptionalCost(f, i); // throws, unless cost_tokens is absent and content a string
        (c.contents ??= new Array<string | undefined>(n))[i] = f['content'] as string;
        c.given[i] = 0;
      }
      c.ids[i] = id as string;
      const idHash = fnv1a32Units(id as string);
      c.idHashes[i] = idHash;
      checked = i + 1;
      const timestamp = f['timestamp'];
      if (timestamp === undefined) c.timestamps[i] = Number.NEGATIVE_INFINITY;
      else if (isEpochMs(timestamp)) c.timestamps[i] = timestamp;
      else {
        // A Date, the common form: its time read here (what readTime does for it, without the
        // calls); anything else, or an invalid or out-of-range Date, goes to readTime.
        const ms = timestamp instanceof Date ? getTime.call(timestamp) : Number.NaN;
        c.timestamps[i] = ms >= -MAX_EPOCH_MS && ms <= MAX_EPOCH_MS ? ms : readTime(f, 'timestamp', i)!;
      }
      const citations = f['citations'];
      if (citations === undefined) c.citations[i] = 0;
      else c.citations[i] = Array.isArray(citations) ? citations.length : readCitationCount(f, i);
      const lod = f['lod'];
      c.lods[i] = lod === undefined || typeof lod === 'string' ? lod : readOptionalString(f, 'lod', i);
      const entities = f['entities'];
      const list = entities === undefined ? NO_STRINGS : isStringArray(entities) ? entities : readEntities(f, i);
      if (c.entities !== undefined) c.entities[i] = list;
      if (matcher !== undefined) {
        const mask = matcher.mask(list);
        if (c.entityMasks !== undefined) c.entityMasks[i] = mask;
        c.overlaps[i] = matcher.overlap(list, mask);
      }
      const source = f['source'];
      c.sources[i] = source === undefined || typeof source === 'string' ? source : readOptionalString(f, 'source', i);
      const kind = f['kind'];
      if (kind !== undefined && typeof kind !== 'string') readOptionalString(f, 'kind', i); // read again by kindOf
      const lastAccess = f['lastAccessTime'];
      if (lastAccess === undefined) c.lastAccess[i] = Number.NaN;
      else c.lastAccess[i] = isEpochMs(lastAccess) ? lastAccess : readTime(f, 'lastAccessTime', i)!;
      const dependencies = f['dependencies'];
      if (dependencies !== undefined) {
        const deps = isStringArray(dependencies) ? dependencies : readDependencies(f, i);
        if (deps.length > 0) (c.dependencies ??= new Array<readonly string[] | undefined>(n))[i] = deps;
      }
      const group = f['group'];
      if (group !== undefined) {
        if (typeof group !== 'string' || group.length === 0) {
          throw new CtxpackError('INVALID_FIELD', `candidates[${i}].group must be a non-empty string or absent, got ${describeValue(group)}`, {
            field: 'group',
            index: i,
          });
        }
        (c.groups ??= new Array<string | undefined>(n))[i] = group;
      }
      const variants = f['variants'];
      if (variants !== undefined) {
        const list = readVariants(variants, i);
        if (list.length > 0) (c.variants ??= new Array<readonly VariantInput[] | undefined>(n))[i] = list;
      }
    }
  } catch (err) {
    const dup = indexIds(c.ids.slice(0, checked), c.idHashes.subarray(0, checked), scratch).duplicate;
    throw dup === undefined ? err : duplicateError(dup);
  }
  c.idIndex = indexIds(c.ids, c.idHashes, scratch);
  if (c.idIndex.duplicate !== undefined) throw duplicateError(c.idIndex.duplicate);
  return c;
}

/** `DUPLICATE_ID` for candidate `index`, whose id candidate `otherIndex` already has. */
export function duplicateError({ index, otherIndex }: { index: number; otherIndex: number }): CtxpackError {
  return duplicateIdError('candidates', index, otherIndex);
}
