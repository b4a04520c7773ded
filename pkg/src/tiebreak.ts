/**
 * Ranking with the spec's tie-breaking rules (spec: "Tie-Breaking Rules").
 *
 * @module
 */

import { CtxpackError, describeValue } from './errors.js';
import {
  assertFragmentObject,
  isRecord,
  readCitationCount,
  readCost,
  readDependencies,
  readId,
  readOptionalString,
  readTime,
} from './fields.js';
import { optionsRecord, readCount } from './options.js';
import type { FragmentFields, ScoredFragment, TieBreakOptions } from './types.js';

/** Scores whose difference is at most this are tied (the seed's `Math.abs(a.score - b.score) > 0.001`). */
export const SCORE_TIE_TOLERANCE = 0.001;

/** Default N of rule 4 ("prefer a different source than the last N picks"). */
export const DEFAULT_DIVERSITY_WINDOW = 3;

interface Keyed<S> {
  readonly item: S;
  readonly index: number;
  readonly score: number;
  /** Rule 1: epoch ms; `-Infinity` without a timestamp (oldest). */
  readonly freshness: number;
  /** Rule 2. */
  readonly citations: number;
  /** Rule 3. */
  readonly unresolved: number;
  /** Rule 4; `undefined` never conflicts. */
  readonly source: string | undefined;
  /** Rule 5. */
  readonly cost: number;
  /** Rule 6. */
  readonly id: string;
}

type AnyKeyed = Keyed<unknown>;

/** Rules 1–3: newer first, more citations first, fewer unresolved dependencies first. */
function compareRules123(a: AnyKeyed, b: AnyKeyed): number {
  if (a.freshness !== b.freshness) return a.freshness > b.freshness ? -1 : 1;
  if (a.citations !== b.citations) return b.citations - a.citations;
  return a.unresolved - b.unresolved;
}

/** Rules 5–6: smaller cost first, then id by UTF-16 code units; input index last (only reached for duplicate ids). */
function compareRules56(a: AnyKeyed, b: AnyKeyed): number {
  if (a.cost !== b.cost) return a.cost - b.cost;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.index - b.index;
}

function compareWithinTie(a: AnyKeyed, b: AnyKeyed): number {
  return compareRules123(a, b) || compareRules56(a, b);
}

/** The total order used before tie groups are formed: exact score descending, then the rules. */
function compareTotal(a: AnyKeyed, b: AnyKeyed): number {
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  return compareWithinTie(a, b);
}

/** Sources of the last N picks, as a multiset over a ring buffer. */
class SourceWindow {
  private readonly ring: (string | undefined)[];
  private readonly counts = new Map<string, number>();
  private next = 0;
  private filled = 0;
  constructor(private readonly size: number) {
    this.ring = new Array<string | undefined>(size);
  }

  has(source: string | undefined): boolean {
    return source !== undefined && this.counts.has(source);
  }

  push(source: string | undefined): void {
    if (this.size === 0) return;
    if (this.filled === this.size) {
      const old = this.ring[this.next];
      if (old !== undefined) {
        const c = (this.counts.get(old) ?? 0) - 1;
        if (c === 0) this.counts.delete(old);
        else this.counts.set(old, c);
      }
    } else {
      this.filled++;
    }
    this.ring[this.next] = source;
    this.next = (this.next + 1) % this.size;
    if (source !== undefined) this.counts.set(source, (this.counts.get(source) ?? 0) + 1);
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
 * Runs in O(k log k · N) using one queue per source.
 */
function diversify<S>(run: readonly Keyed<S>[], window: SourceWindow, out: S[]): void {
  const queues: number[][] = []; // positions into `run`, ascending
  const queueSource: (string | undefined)[] = [];
  const bySource = new Map<string, number>();
  let free = -1; // the queue of items without a source
  run.forEach((k, pos) => {
    let q: number | undefined;
    if (k.source === undefined) q = free >= 0 ? free : undefined;
    else q = bySource.get(k.source);
    if (q === undefined) {
      q = queues.length;
      queues.push([]);
      queueSource.push(k.source);
      if (k.source === undefined) free = q;
      else bySource.set(k.source, q);
    }
    queues[q]!.push(pos);
  });
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
    const k = run[queues[chosen]![heads[chosen]!]!]!;
    heads[chosen]!++;
    if (heads[chosen]! < queues[chosen]!.length) heap.push(chosen);
    out.push(k.item);
    window.push(k.source);
  }
}

function keyOf<S extends ScoredFragment<FragmentFields>>(entry: unknown, index: number, ids: ReadonlySet<string>): Keyed<S> {
  const e = entry as { readonly fragment: unknown; readonly score: unknown };
  const f = e.fragment;
  const at = { collection: 'scored', index, member: 'fragment' };
  assertFragmentObject(f, at);
  const score = e.score;
  if (typeof score !== 'number' || !Number.isFinite(score)) {
    throw new CtxpackError('INVALID_SCORE', `scored[${index}].score must be a finite number, got ${describeValue(score)}`, {
      field: 'score',
      index,
    });
  }
  let unresolved = 0;
  const seen = new Set<string>();
  for (const dep of readDependencies(f, at)) {
    if (seen.has(dep)) continue;
    seen.add(dep);
    if (!ids.has(dep)) unresolved++;
  }
  return {
    item: entry as S,
    index,
    score,
    freshness: readTime(f, 'timestamp', at) ?? Number.NEGATIVE_INFINITY,
    citations: readCitationCount(f, at),
    unresolved,
    source: readOptionalString(f, 'source', at),
    cost: readCost(f, at),
    id: readId(f, at),
  };
}

/**
 * Ranks scored fragments: score descending, with ties (|Δscore| ≤ 0.001) broken by the spec's
 * six rules in the spec's order:
 *
 * 1. **Freshness**: newer `timestamp` first; a fragment without a timestamp is the oldest.
 * 2. **Citation confidence**: more `citations` first (absent = 0).
 * 3. **Cohesion**: fewer unresolved dependencies first. A dependency is *unresolved* when it is not
 *    the id of any fragment in `scored`; each distinct dependency id counts once.
 * 4. **Diversity**: prefer a `source` not among the sources of the last N picks (N =
 *    `options.diversityWindow`, default 3, 0 disables). A fragment without `source` never
 *    conflicts, and each pick, with or without a source, takes one of the N slots. The window
 *    spans the whole ranking built so far, across tie groups.
 * 5. **Size**: smaller `cost_tokens` first.
 * 6. **Id**: ascending by UTF-16 code units (`a < b`), never `localeCompare`, so the result does
 *    not depend on the runtime's locale.
 *
 * The seed's comparator compares scores with a 0.001 tolerance, which is not transitive, and rule 4
 * depends on earlier picks, so it cannot be a comparator. The ranking is therefore built as
 * follows, which is deterministic and independent of input order:
 *
 * 1. Sort by a total order: exact score descending, then rules 1, 2, 3, 5, 6.
 * 2. Cut that list into *tie groups*: a group starts at the first unassigned item and takes every
 *    following item whose score is within 0.001 of that first item's score.
 * 3. Within a group, order by rules 1, 2, 3, 5, 6 (ignoring score). Then, for each run of items
 *    equal on rules 1–3, apply rule 4: repeatedly emit the first remaining item of the run whose
 *    source is not in the window, or the first remaining item when there is none. So rule 4 only
 *    decides between items tied on rules 1–3, and rules 5–6 decide between equally diverse ones.
 *
 * Without dependencies and without sources (or with `diversityWindow: 0`), rules 3 and 4 never
 * decide, and the result equals the seed's `sort` on every input where the seed's comparator is
 * consistent (scores that are equal or more than 0.001 apart), except that ids compare by code units. Input order matters only between entries with the same id,
 * which keep their relative order (the planner rejects duplicate ids).
 *
 * @param scored Fragments with finite scores. Not mutated.
 * @returns A new array holding the same entries in ranked order.
 * @throws {CtxpackError} `INVALID_INPUT` if `scored` is not an array, `INVALID_SCORE` for a
 *   non-finite score, `INVALID_FIELD` for a malformed fragment, `INVALID_OPTION` for a bad option.
 */
export function applyTieBreaking<S extends ScoredFragment<FragmentFields>>(scored: readonly S[], options?: TieBreakOptions): S[] {
  const o = optionsRecord(options);
  const windowSize = readCount(o, 'diversityWindow', DEFAULT_DIVERSITY_WINDOW);
  if (!Array.isArray(scored)) {
    throw new CtxpackError('INVALID_INPUT', `scored must be an array, got ${describeValue(scored)}`, { field: 'scored' });
  }
  const ids = new Set<string>();
  scored.forEach((entry: unknown, i) => {
    if (!isRecord(entry)) {
      throw new CtxpackError('INVALID_FIELD', `scored[${i}] must be an object { fragment, score }, got ${describeValue(entry)}`, {
        field: 'scored',
        index: i,
      });
    }
    const at = { collection: 'scored', index: i, member: 'fragment' };
    assertFragmentObject(entry['fragment'], at);
    ids.add(readId(entry['fragment'], at));
  });
  const keyed = scored.map((entry, i) => keyOf<S>(entry, i, ids));
  // Step 1: the total order.
  keyed.sort(compareTotal);

  const out: S[] = [];
  // A window longer than the list behaves like one as long as the list.
  const window = new SourceWindow(Math.min(windowSize, keyed.length));
  for (let start = 0; start < keyed.length; ) {
    // Step 2: the tie group anchored at `start`.
    const anchor = keyed[start]!.score;
    let end = start + 1;
    while (end < keyed.length && Math.abs(anchor - keyed[end]!.score) <= SCORE_TIE_TOLERANCE) end++;
    // Step 3: rules 1–3, 5–6 inside the group; rule 4 inside each run tied on rules 1–3.
    const group = end - start === 1 ? keyed.slice(start, end) : keyed.slice(start, end).sort(compareWithinTie);
    for (let runStart = 0; runStart < group.length; ) {
      let runEnd = runStart + 1;
      while (runEnd < group.length && compareRules123(group[runStart]!, group[runEnd]!) === 0) runEnd++;
      if (runEnd - runStart === 1 || windowSize === 0) {
        for (let i = runStart; i < runEnd; i++) {
          out.push(group[i]!.item);
          window.push(group[i]!.source);
        }
      } else {
        diversify(group.slice(runStart, runEnd), window, out);
      }
      runStart = runEnd;
    }
    start = end;
  }
  return out;
}
