/**
 * Ranking with the spec's tie-breaking rules (spec: "Tie-Breaking Rules"), over columns: the
 * planner calls `rankColumns` directly; `applyTieBreaking` (apply.ts) reads fragment objects into
 * them. The rules and how they are applied are documented on `applyTieBreaking`.
 *
 * @module
 */

import { Scratch } from '../core/scratch.js';
import { identity, mergeSort, orderedBits, radixSort, sortDescending } from '../util/sort.js';

/** Scores whose difference is at most this are tied (the seed's `Math.abs(a.score - b.score) > 0.001`). */
export const SCORE_TIE_TOLERANCE = 0.001;

/** Default N of rule 4 ("prefer a different source than the last N picks"). */
export const DEFAULT_DIVERSITY_WINDOW = 3;

/**
 * What the ranking reads, one entry per item (item `i` is `scored[i]`, or candidate `i`).
 * @internal
 */
export interface RankColumns {
  readonly scores: Float64Array;
  /** Rule 1: epoch ms; `-Infinity` without a timestamp (oldest). */
  readonly freshness: Float64Array;
  /** Rule 2. */
  readonly citations: Uint32Array;
  /** Rule 3. */
  readonly unresolved: Uint32Array;
  /** Rule 4; `undefined` never conflicts. */
  readonly sources: readonly (string | undefined)[];
  /** Rule 5. */
  readonly costs: Uint32Array;
  /** Rule 6. */
  readonly ids: readonly string[];
}

/** Up to this many items, the ranking sorts with comparators ({@link rankSmall}); above, with radix passes. */
const SMALL = 256;

/**
 * Score buckets per unit of score for grouping (a power of two, so that scaling is exact). A
 * bucket, 1/2048 ≈ 0.00049 wide, is narrower than the tie tolerance, so it meets at most three
 * tie groups.
 */
const BUCKETS_PER_UNIT = 2048;

/** Dense score buckets are used while there are at most 4n + this many. */
const DENSE_SLACK = 64;

/**
 * Step 2 of the ranking (see {@link applyTieBreaking}): the tie group of every item, numbered from
 * 0 in descending score order, and the number of groups. The groups depend only on the scores in
 * descending order, never on the order among equal scores, and the same
 * `Math.abs(anchor - score) <= 0.001` test decides them; but no full sort is needed. The items are first put in buckets by score, each bucket
 * holding only scores below those of the buckets before it; then a group's anchor is the largest
 * score left in the first bucket with items left, and its members are the items left whose score
 * is within the tolerance of it: a prefix of the buckets, the last one perhaps only in part
 * (membership is monotone in the score).
 */
function scoreGroups(scores: Float64Array, scratch: Scratch): { group: Uint32Array; groups: number } {
  const n = scores.length; // more than SMALL: rankSmall walks fewer items' groups itself
  const group = scratch.u32(n); // every item gets its group
  let max = -Infinity;
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (s > max) max = s;
    if (s < min) min = s;
  }
  let byBucket: Uint32Array; // items, bucket after bucket
  const scoreAt = scratch.f64(n); // scoreAt[p] = scores[byBucket[p]], read in order by the walk
  let bucketStart: Uint32Array; // bucket b is byBucket[bucketStart[b] .. bucketStart[b + 1])
  const span = (max - min) * BUCKETS_PER_UNIT;
  if (span < 4 * n + DENSE_SLACK) {
    // Dense buckets by distance from the maximum: a counting sort. `max - s` is monotone in `s`.
    const buckets = Math.floor(span) + 1;
    const bucketOf = scratch.u32(n);
    bucketStart = scratch.u32(buckets + 1, true);
    for (let i = 0; i < n; i++) {
      const b = Math.floor((max - scores[i]!) * BUCKETS_PER_UNIT);
      bucketOf[i] = b;
      bucketStart[b + 1]!++;
    }
    for (let b = 0; b < buckets; b++) bucketStart[b + 1]! += bucketStart[b]!;
    byBucket = scratch.u32(n);
    const fill = scratch.u32(buckets);
    fill.set(bucketStart.subarray(0, buckets));
    for (let i = 0; i < n; i++) {
      const p = fill[bucketOf[i]!]!++;
      byBucket[p] = i;
      scoreAt[p] = scores[i]!;
    }
  } else {
    // Scores too spread out for dense buckets: sort them, one item per bucket.
    const hi = scratch.u32(n);
    const lo = scratch.u32(n);
    for (let i = 0; i < n; i++) orderedBits(0 - scores[i]!, hi, lo, i); // descending score
    byBucket = radixSort(identity(n, scratch.u32(n)), scratch.u32(n), [lo, hi], [32, 32]);
    for (let p = 0; p < n; p++) scoreAt[p] = scores[byBucket[p]!]!;
    bucketStart = identity(n + 1, scratch.u32(n + 1));
  }

  const buckets = bucketStart.length - 1;
  let g = 0;
  let b = 0;
  // The items of bucket b not yet in a group: byBucket[lo .. hi).
  let lo = bucketStart[0]!;
  let hi = bucketStart[1]!;
  for (;;) {
    while (lo === hi) {
      if (++b === buckets) return { group, groups: g };
      lo = bucketStart[b]!;
      hi = bucketStart[b + 1]!;
    }
    let anchor = scoreAt[lo]!;
    for (let p = lo + 1; p < hi; p++) anchor = Math.max(anchor, scoreAt[p]!);
    // Group g: every item left within the tolerance of the anchor, bucket after bucket, until a
    // bucket keeps some of its items; those stay (compacted at its start) for the next group.
    for (;;) {
      let kept = lo;
      for (let p = lo; p < hi; p++) {
        const score = scoreAt[p]!;
        if (Math.abs(anchor - score) <= SCORE_TIE_TOLERANCE) {
          group[byBucket[p]!] = g;
        } else {
          byBucket[kept] = byBucket[p]!;
          scoreAt[kept++] = score;
        }
      }
      if (kept > lo) {
        hi = kept;
        break;
      }
      if (++b === buckets) return { group, groups: g + 1 };
      lo = bucketStart[b]!;
      hi = bucketStart[b + 1]!;
    }
    g++;
  }
}

/** Bits needed for the unsigned integer `max`. */
function bitsFor(max: number): number {
  return max === 0 ? 0 : 32 - Math.clz32(max);
}

/** The largest value of a column. */
function maxOf(column: Uint32Array): number {
  let max = 0;
  for (let i = 0; i < column.length; i++) if (column[i]! > max) max = column[i]!;
  return max;
}

/**
 * Rule 1's radix key, when every timestamp is an integer (Dates and ISO strings always are) and
 * their range is below 2^53: the exact distance from the newest, so that ascending keys are newer
 * first, with a missing timestamp one past the oldest. `bits` bounds the distances. `undefined`
 * otherwise. Equal keys ⇔ equal freshness (+0 and -0 are one).
 */
function freshnessDistance(freshness: Float64Array, scratch: Scratch): { distance: Float64Array; bits: number } | undefined {
  const n = freshness.length;
  let newest = -Infinity;
  let oldest = Infinity;
  for (let i = 0; i < n; i++) {
    const f = freshness[i]!;
    if (f === -Infinity) continue;
    if (!Number.isInteger(f)) return undefined;
    if (f > newest) newest = f;
    if (f < oldest) oldest = f;
  }
  const distance = scratch.f64(n, true);
  if (newest === -Infinity) return { distance, bits: 0 }; // no timestamps: rule 1 never decides
  const missing = newest - oldest + 1;
  if (!(missing < Number.MAX_SAFE_INTEGER)) return undefined;
  for (let i = 0; i < n; i++) {
    const f = freshness[i]!;
    distance[i] = f === -Infinity ? missing : newest - f; // exact: integers less than 2^53 apart
  }
  return { distance, bits: missing < 2 ** 32 ? bitsFor(missing) : 32 + bitsFor(Math.floor(missing / 2 ** 32)) };
}

/** Low bits of a radix key cut from a wider integer (two passes of 13 bits). */
const LOW_BITS = 26;
const LOW_MASK = (1 << LOW_BITS) - 1;

/**
 * The ranking of {@link applyTieBreaking} over columns: item indexes in rank order. Ties are
 * broken exactly as documented there; how the work is done is this function's business:
 *
 * 1. {@link scoreGroups} gives every item its tie group (step 2 of the documented procedure),
 *    which the total order of step 1 only serves to find.
 * 2. Radix passes sort by the primary key (group, then newer first: rule 1). Each run of items
 *    equal on it is then sorted by rules 1–3, 5, 6 with a comparator, and emitted run by run of
 *    items tied on rules 1–3, a run of several going through rule 4 ({@link emitRuns}).
 * 3. When timestamps leave too many ties for the comparator (no timestamps at all, say), the
 *    sort starts again with passes for rules 5, 3 and 2 before the primary key, which leaves the
 *    comparator only equal ids' neighbours to order.
 *
 * Up to {@link SMALL} items, comparators do it all ({@link rankSmall}): a radix pass costs its
 * histogram whatever n is, and at a few hundred items merge sorts cost less (measured: 4.5 µs of
 * a 38 µs plan at n = 100, 7 µs at n = 200; even at n = 400).
 * @internal
 */
export function rankColumns(c: RankColumns, windowSize: number, scratch = new Scratch(false)): Uint32Array {
  tie = c;
  try {
    if (c.scores.length <= SMALL) return rankSmall(c, windowSize, scratch);
    const { group, groups } = scoreGroups(c.scores, scratch);
    return rankGrouped(c, group, groups, windowSize, scratch);
  } finally {
    tie = undefined;
  }
}

/**
 * The columns of the ranking in progress, for the comparators below: module-level functions, so
 * that every call of the ranking passes the same ones (a closure made per call changed the
 * target of the sorts' calls each time, and the engine deoptimised the ranking on each of its
 * first calls). The ranking calls nothing that could rank again before it returns.
 */
let tie: RankColumns | undefined;

/** Rules 1, 2, 3, 5, 6 (ignoring score), then input order. */
function withinTie(a: number, b: number): number {
  const { freshness, citations, unresolved, costs, ids } = tie!;
  const fa = freshness[a]!;
  const fb = freshness[b]!;
  if (fa !== fb) return fa > fb ? -1 : 1;
  if (citations[a] !== citations[b]) return citations[b]! - citations[a]!;
  if (unresolved[a] !== unresolved[b]) return unresolved[a]! - unresolved[b]!;
  if (costs[a] !== costs[b]) return costs[a]! - costs[b]!;
  if (ids[a] !== ids[b]) return ids[a]! < ids[b]! ? -1 : 1;
  return a - b;
}

/**
 * {@link rankColumns} for at most {@link SMALL} items, with comparators: sorted by score, the tie
 * groups are read off in one walk (the same anchors as {@link scoreGroups}), and each group, once
 * closed, is sorted by {@link withinTie}; what is left is {@link emitRuns}' rule 4.
 */
function rankSmall(c: RankColumns, windowSize: number, scratch: Scratch): Uint32Array {
  const n = c.scores.length;
  const { scores } = c;
  const order = identity(n, scratch.u32(n));
  const free = scratch.u32(n);
  const group = scratch.u32(n);
  sortDescending(order, 0, n, free, scores);
  let g = 0;
  let start = 0; // the open group is order[start .. p)
  let anchor = n === 0 ? 0 : scores[order[0]!]!;
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    const score = scores[i]!;
    if (!(Math.abs(anchor - score) <= SCORE_TIE_TOLERANCE)) {
      if (p - start > 1) mergeSort(order, start, p, free, withinTie);
      g++;
      start = p;
      anchor = score;
    }
    group[i] = g;
  }
  if (n - start > 1) mergeSort(order, start, n, free, withinTie);
  return emitRuns(order, free, c, group, windowSize, false, scratch)!;
}

/** {@link rankColumns} once every item has its tie group. */
function rankGrouped(c: RankColumns, group: Uint32Array, groups: number, windowSize: number, scratch: Scratch): Uint32Array {
  const n = c.scores.length;
  const { freshness, citations, unresolved, costs } = c;
  // The permutation being sorted, and scratch space of the same length.
  let order: Uint32Array = identity(n, scratch.u32(n));
  let free: Uint32Array = scratch.u32(n);
  {
    // The primary key (group, freshness): when the freshness is an integer distance and both fit
    // in 53 bits, one integer `group * 2^bits + distance`, cut into 26 low bits and the rest.
    const fresh = freshnessDistance(freshness, scratch);
    const groupBits = bitsFor(groups - 1);
    let primary: Uint32Array[];
    let primaryBits: number[];
    if (fresh !== undefined && fresh.bits + groupBits <= 53) {
      const total = fresh.bits + groupBits;
      const scale = 2 ** fresh.bits;
      const lo = scratch.u32(n);
      const hi = scratch.u32(total > LOW_BITS ? n : 0);
      for (let i = 0; i < n; i++) {
        const k = group[i]! * scale + fresh.distance[i]!; // exact, below 2^53
        const low = (k >>> 0) & LOW_MASK; // k >>> 0 is k mod 2^32
        lo[i] = low;
        if (total > LOW_BITS) hi[i] = (k - low) / (LOW_MASK + 1);
      }
      primary = total > LOW_BITS ? [lo, hi] : [lo];
      primaryBits = total > LOW_BITS ? [LOW_BITS, total - LOW_BITS] : [total];
    } else {
      const hi = scratch.u32(n);
      const lo = scratch.u32(n);
      for (let i = 0; i < n; i++) orderedBits(0 - freshness[i]!, hi, lo, i);
      primary = [lo, hi, group];
      primaryBits = [32, 32, groupBits];
    }
    [order, free] = radixInto(order, free, primary, primaryBits);
    const ranked = emitRuns(order, free, c, group, windowSize, true, scratch);
    if (ranked !== undefined) return ranked;
    // Many ties: start again with rules 5, 3, 2 (least significant first), then the primary key.
    for (let i = 0; i < n; i++) order[i] = i;
    const maxCitations = maxOf(citations);
    const fewerCitations = scratch.u32(n);
    for (let i = 0; i < n; i++) fewerCitations[i] = maxCitations - citations[i]!;
    [order, free] = radixInto(
      order,
      free,
      [costs, unresolved, fewerCitations, ...primary],
      [bitsFor(maxOf(costs)), bitsFor(maxOf(unresolved)), bitsFor(maxCitations), ...primaryBits],
    );
  }
  return emitRuns(order, free, c, group, windowSize, false, scratch)!;
}

/** `order` sorted by the radix keys, and the other array of the pair (scratch for the next sort). */
function radixInto(order: Uint32Array, free: Uint32Array, keys: readonly Uint32Array[], bits: readonly number[]): [Uint32Array, Uint32Array] {
  const sorted = radixSort(order, free, keys, bits);
  return sorted === order ? [order, free] : [sorted, order];
}

/**
 * The last step of {@link rankColumns}, in one pass over `order` (sorted by the primary key, group
 * and freshness): each run of items equal on it is sorted with `withinTie` (a run already in order,
 * as after the secondary passes, costs one comparison per item), then emitted run by run of items
 * tied on rules 1–3, through rule 4 when there are several. `free` is scratch space.
 *
 * With `giveUp`, returns `undefined` as soon as more than n/8 items are in such runs: sorting by
 * the secondary keys first is then cheaper than the comparator.
 */
function emitRuns(
  order: Uint32Array,
  free: Uint32Array,
  c: RankColumns,
  group: Uint32Array,
  windowSize: number,
  giveUp: boolean,
  scratch: Scratch,
): Uint32Array | undefined {
  const n = order.length;
  const { freshness, citations, unresolved, sources } = c;
  const out = scratch.u32(n);
  // The window of recent sources is only consulted by rule 4; it catches up with the picks made
  // since it was last consulted when it is.
  const window = windowSize === 0 ? undefined : new SourceWindow(Math.min(windowSize, n));
  let pos = 0;
  let synced = 0; // picks out[0 .. synced) are in the window
  let tied = 0;
  for (let start = 0; start < n; ) {
    const first = order[start]!;
    const g = group[first];
    const f = freshness[first];
    let end = start + 1;
    while (end < n && group[order[end]!] === g && freshness[order[end]!] === f) end++;
    if (end - start === 1) {
      out[pos++] = first;
      start = end;
      continue;
    }
    tied += end - start;
    if (giveUp && tied > n >>> 3) return undefined;
    mergeSort(order, start, end, free, withinTie);
    for (let runStart = start; runStart < end; ) {
      const a = order[runStart]!;
      let runEnd = runStart + 1;
      while (runEnd < end && citations[order[runEnd]!] === citations[a] && unresolved[order[runEnd]!] === unresolved[a]) runEnd++;
      if (runEnd - runStart === 1 || window === undefined) {
        for (let p = runStart; p < runEnd; p++) out[pos++] = order[p]!;
      } else {
        window.catchUp(out, synced, pos, sources);
        pos = diversify(order.subarray(runStart, runEnd), sources, window, out, pos);
        synced = pos;
      }
      runStart = runEnd;
    }
    start = end;
  }
  return out;
}

/** Sources of the last N picks, as a ring buffer (and counts, for a large N). */
class SourceWindow {
  private readonly ring: (string | undefined)[];
  /** Occurrences per source; only kept above {@link SourceWindow.SCAN_MAX} slots, else `has` scans. */
  private readonly counts: Map<string, number> | undefined;
  private next = 0;
  private static readonly SCAN_MAX = 16;

  constructor(private readonly size: number) {
    this.ring = new Array<string | undefined>(size).fill(undefined);
    this.counts = size > SourceWindow.SCAN_MAX ? new Map() : undefined;
  }

  has(source: string | undefined): boolean {
    if (source === undefined) return false;
    if (this.counts !== undefined) return this.counts.has(source);
    for (let i = 0; i < this.size; i++) if (this.ring[i] === source) return true;
    return false;
  }

  push(source: string | undefined): void {
    if (this.size === 0) return;
    const counts = this.counts;
    if (counts !== undefined) {
      const old = this.ring[this.next];
      if (old !== undefined) {
        const c = counts.get(old)! - 1;
        if (c === 0) counts.delete(old);
        else counts.set(old, c);
      }
      if (source !== undefined) counts.set(source, (counts.get(source) ?? 0) + 1);
    }
    this.ring[this.next] = source;
    this.next = (this.next + 1) % this.size;
  }

  /**
   * Brings the window up to the picks `out[0 .. pos)` when it holds `out[0 .. synced)`: only the
   * last N picks matter, in order. Returns `pos`.
   */
  catchUp(out: Uint32Array, synced: number, pos: number, sources: readonly (string | undefined)[]): number {
    let from = synced;
    if (pos - synced >= this.size) {
      this.ring.fill(undefined);
      this.counts?.clear();
      this.next = 0;
      from = pos - this.size;
    }
    for (let p = from; p < pos; p++) this.push(sources[out[p]!]);
    return pos;
  }
}

/** A binary min-heap of small integers ordered by `key`. */
class MinHeap {
  private readonly a: number[] = [];
  constructor(private readonly key: (x: number) => number) {}
  get size(): number {
    return this.a.length;
  }
  push(x: number): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.key(a[p]!) <= this.key(x)) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = x;
  }
  pop(): number | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && this.key(a[r]!) < this.key(a[l]!) ? r : l;
        if (this.key(a[c]!) >= this.key(last)) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/**
 * Rule 4 over a run of items already ordered by rules 5–6 and tied on rules 1–3: repeatedly take
 * the first remaining item whose source is not among the last N picks, else the first remaining.
 * Writes the picks to `out` from `pos`; returns the position after them. Runs in O(k log k · N)
 * using one queue per source.
 */
function diversify(run: Uint32Array, sources: readonly (string | undefined)[], window: SourceWindow, out: Uint32Array, pos: number): number {
  const queues: number[][] = []; // positions into `run`, ascending
  const queueSource: (string | undefined)[] = [];
  const bySource = new Map<string, number>();
  let free = -1; // the queue of items without a source
  for (let p = 0; p < run.length; p++) {
    const source = sources[run[p]!];
    let q: number | undefined;
    if (source === undefined) q = free >= 0 ? free : undefined;
    else q = bySource.get(source);
    if (q === undefined) {
      q = queues.length;
      queues.push([]);
      queueSource.push(source);
      if (source === undefined) free = q;
      else bySource.set(source, q);
    }
    queues[q]!.push(p);
  }
  const heads = new Array<number>(queues.length).fill(0);
  const heap = new MinHeap((q) => queues[q]![heads[q]!]!);
  for (let q = 0; q < queues.length; q++) heap.push(q);

  const skipped: number[] = [];
  while (heap.size > 0) {
    let chosen: number | undefined;
    for (let q = heap.pop(); q !== undefined; q = heap.pop()) {
      if (!window.has(queueSource[q])) {
        chosen = q;
        break;
      }
      skipped.push(q);
    }
    // Fallback: every remaining source is in the window; take the first remaining item.
    if (chosen === undefined) chosen = skipped.shift()!;
    for (const q of skipped) heap.push(q);
    skipped.length = 0;
    const item = run[queues[chosen]![heads[chosen]!]!]!;
    heads[chosen]!++;
    if (heads[chosen]! < queues[chosen]!.length) heap.push(chosen);
    out[pos++] = item;
    window.push(sources[item]);
  }
  return pos;
}

/**
 * Rule 3's count: the distinct dependencies that are not the id of any item in `ids`.
 * @internal
 */
export function countUnresolved(dependencies: readonly string[], ids: { has(id: string): boolean }): number {
  if (dependencies.length === 0) return 0;
  if (dependencies.length === 1) return ids.has(dependencies[0]!) ? 0 : 1;
  let unresolved = 0;
  const seen = new Set<string>();
  for (const dep of dependencies) {
    if (seen.has(dep)) continue;
    seen.add(dep);
    if (!ids.has(dep)) unresolved++;
  }
  return unresolved;
}
