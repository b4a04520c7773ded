/**
 * The candidates' ids, indexed once per call for the duplicate check and for lookups by id (rule
 * 3's unresolved dependencies, groups' dependency edges).
 *
 * An open-addressing table of candidate indexes in a pooled `Uint32Array`, probed linearly from a
 * slot taken from each id's FNV-1a 32 (which validation computes anyway): ids are compared as
 * strings only when their hashes are equal. At most half full, it costs about two probes per id;
 * measured against the radix-sorted hashes it replaced, 7× less at 100 ids and still 1.5× less at
 * 100k (the table is then 1 MB).
 *
 * FNV-1a is not collision-resistant, and neither is the slot mix: ids made to collide would turn
 * the table quadratic. The build counts its probes and, past a small multiple of n, gives up for a
 * `Map` (whose string hash the engine seeds per process), which is linear whatever the ids; a
 * lookup that probes past a fixed count sends every later lookup to such a `Map` too (ids can
 * fill one long run of slots without costing the build anything).
 *
 * @internal
 * @module
 */

import type { Scratch } from '../core/scratch.js';
import { fnv1a32Units } from '../util/hash.js';

/** The ids' index; build it with {@link indexIds}. */
export interface IdIndex {
  /**
   * The duplicate that the documented check reports: the first candidate whose id an earlier one
   * has, and the first candidate with that id; `undefined` when the ids are distinct.
   */
  readonly duplicate: { index: number; otherIndex: number } | undefined;
  has(id: string): boolean;
  /** The first candidate whose id is `id`, if any. */
  indexOf(id: string): number | undefined;
}

/**
 * Indexes `ids`, whose FNV-1a 32 hashes (`fnv1a32Units`) are `hashes`. The table comes from
 * `scratch`: the index is for the call only.
 */
export function indexIds(ids: readonly string[], hashes: Uint32Array, scratch: Scratch): IdIndex {
  return HashedIds.build(ids, hashes, scratch) ?? new MappedIds(ids);
}

/** Probes past this many per id, plus {@link PROBE_SLACK}, mean colliding ids: the `Map` takes over. */
const PROBES_PER_ID = 8;
const PROBE_SLACK = 64;

/** The table: slot → candidate index + 1 (0: empty). */
class HashedIds implements IdIndex {
  private constructor(
    private readonly ids: readonly string[],
    private readonly hashes: Uint32Array,
    private readonly slots: Uint32Array,
    private readonly shift: number,
    readonly duplicate: { index: number; otherIndex: number } | undefined,
  ) {}

  /** The table of `ids`, or `undefined` when their hashes collide too often. */
  static build(ids: readonly string[], hashes: Uint32Array, scratch: Scratch): HashedIds | undefined {
    const n = ids.length;
    const bits = Math.max(4, 32 - Math.clz32(2 * n - 1)); // 2^bits ≥ 2n: at most half full
    const slots = scratch.table(1 << bits);
    const shift = 32 - bits;
    const mask = (1 << bits) - 1;
    let budget = PROBES_PER_ID * n + PROBE_SLACK;
    let duplicate: { index: number; otherIndex: number } | undefined;
    for (let i = 0; i < n; i++) {
      const hash = hashes[i]!;
      for (let s = slotOf(hash, shift); ; s = (s + 1) & mask) {
        const entry = slots[s]!;
        if (entry === 0) {
          slots[s] = i + 1;
          break;
        }
        if (--budget < 0) return undefined;
        const j = entry - 1;
        // Inserted in input order, a repeat finds the id's first candidate; only the first repeat counts.
        if (hashes[j] === hash && ids[j] === ids[i]) {
          duplicate ??= { index: i, otherIndex: j };
          break;
        }
      }
    }
    return new HashedIds(ids, hashes, slots, shift, duplicate);
  }

  has(id: string): boolean {
    return this.indexOf(id) !== undefined;
  }

  indexOf(id: string): number | undefined {
    if (this.mapped !== undefined) return this.mapped.indexOf(id);
    const { ids, hashes, slots, shift } = this;
    const hash = fnv1a32Units(id) >>> 0; // unsigned, as the column holds it
    const mask = slots.length - 1;
    for (let s = slotOf(hash, shift), probes = 0; ; s = (s + 1) & mask) {
      const entry = slots[s]!;
      if (entry === 0) return undefined;
      if (hashes[entry - 1] === hash && ids[entry - 1] === id) return entry - 1;
      // Ids can fill a long run of slots without costing the build a probe (each lands on the
      // next free one): past a few probes, lookups go to a Map, built once.
      if (++probes === LOOKUP_PROBES_MAX) {
        this.mapped = new MappedIds(ids);
        return this.mapped.indexOf(id);
      }
    }
  }

  /** The Map that lookups use once one of them probed too long. */
  private mapped: MappedIds | undefined;
}

/** Probes one lookup may take before lookups go to a `Map`. */
const LOOKUP_PROBES_MAX = 64;

/** The slot of a hash: its top bits after a multiply-xorshift mix (FNV's low bits mix poorly). */
function slotOf(hash: number, shift: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85eb_ca6b);
  return (h ^ (h >>> 13)) >>> shift;
}

/** The fallback for colliding ids: first candidate per id in a `Map`. */
class MappedIds implements IdIndex {
  private readonly first = new Map<string, number>();
  readonly duplicate: { index: number; otherIndex: number } | undefined;

  constructor(ids: readonly string[]) {
    let duplicate: { index: number; otherIndex: number } | undefined;
    for (let i = 0; i < ids.length; i++) {
      const other = this.first.get(ids[i]!);
      if (other === undefined) this.first.set(ids[i]!, i);
      else duplicate ??= { index: i, otherIndex: other };
    }
    this.duplicate = duplicate;
  }

  has(id: string): boolean {
    return this.first.has(id);
  }

  indexOf(id: string): number | undefined {
    return this.first.get(id);
  }
}
