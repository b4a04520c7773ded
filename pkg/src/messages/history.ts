/**
 * What a session keeps of the messages it has read, so that a turn reads only what is new: per
 * message of the last history, its turn (turns.ts), and a snapshot of its fields to notice an
 * edit. A message is read again only when what it holds differs from the snapshot, to
 * {@link SNAPSHOT_DEPTH} levels: a field set, an element of its arrays replaced, added or removed,
 * in place or in a copy (frameworks that rebuild their messages each step, as the AI SDK's
 * middleware sees them, or a history loaded again from storage, pass equal copies: compared by
 * content, they are not read again); another class at its index; a byte array, a class's
 * instance inside it, or a container past the depth that is another object. Whatever is derived
 * from a message alone (its count, its keys) is kept as long as its turn is: the first
 * {@link HistoryMemo.same} messages are those of the last read, unchanged.
 *
 * @internal
 * @module
 */

import { readTurn, type FormatAdapter, type Turn } from './turns.js';
import { evidence, evidentOf } from './detect.js';
import type { MessageFormatName } from './turns.js';
import { StructureMemo } from './structure-memo.js';

/** How deep a snapshot reads a message: the message's fields, their elements and fields, and so on. */
export const SNAPSHOT_DEPTH = 5;
/** The most values a message's snapshot holds; a larger message is read again every turn. */
const SNAPSHOT_MAX = 256;

/** A container a snapshot descends into: a plain object or an array (not a byte array, a Date, a Map). */
function descends(v: unknown): v is Record<string, unknown> | unknown[] {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Appends the values of `v` to `out`: an object's keys and values, an array's length and
 * elements, each container as its kind ({@link ARRAY} or {@link OBJECT}) followed by its own
 * values. Returns false past {@link SNAPSHOT_MAX} values.
 */
function snap(v: Record<string, unknown> | unknown[], out: unknown[], depth: number): boolean {
  if (Array.isArray(v)) {
    out.push(v.length);
    for (let k = 0; k < v.length; k++) if (!snapValue(v[k], out, depth)) return false;
    return true;
  }
  for (const key in v) {
    out.push(key);
    if (!snapValue(v[key], out, depth)) return false;
  }
  out.push(END);
  return true;
}

function snapValue(x: unknown, out: unknown[], depth: number): boolean {
  if (depth > 1 && descends(x)) {
    out.push(Array.isArray(x) ? ARRAY : OBJECT);
    return out.length <= SNAPSHOT_MAX && snap(x, out, depth - 1);
  }
  out.push(x);
  return out.length <= SNAPSHOT_MAX;
}

/** Marks the end of an object's keys (a key is a string, never this). */
const END = Symbol('end');
/**
 * Stand for a container the snapshot descends into: it is compared by what it holds, so the
 * snapshot keeps only its kind (comparing against a tag costs less than asking the old
 * container's prototype again on every turn).
 */
const ARRAY = Symbol('array');
const OBJECT = Symbol('object');

/** Whether `v` still has the values `s` holds from `at` on (as {@link snap} wrote them); the position after them, or -1. */
function same(v: Record<string, unknown> | unknown[], s: readonly unknown[], at: number, depth: number): number {
  return Array.isArray(v) ? sameArray(v, s, at, depth) : sameObject(v, s, at, depth);
}

function sameArray(v: unknown[], s: readonly unknown[], at: number, depth: number): number {
  if (s[at++] !== v.length) return -1;
  for (let k = 0; k < v.length && at >= 0; k++) at = sameValue(v[k], s, at, depth);
  return at;
}

function sameObject(v: Record<string, unknown>, s: readonly unknown[], at: number, depth: number): number {
  for (const key in v) {
    if (s[at++] !== key) return -1;
    at = sameValue(v[key], s, at, depth);
    if (at < 0) return -1;
  }
  return s[at] === END ? at + 1 : -1;
}

/**
 * A container is compared by what it holds, whether it is the object the snapshot read or another
 * of the same kind (a framework that rebuilds its messages each step hands over equal copies);
 * anything else, and a container past the depth, by identity.
 */
function sameValue(x: unknown, s: readonly unknown[], at: number, depth: number): number {
  const y = s[at];
  if (depth > 1 && descends(x)) {
    if (Array.isArray(x)) return y === ARRAY ? sameArray(x, s, at + 1, depth - 1) : -1;
    return y === OBJECT ? sameObject(x, s, at + 1, depth - 1) : -1;
  }
  return y === x ? at + 1 : -1;
}

/** Whether `m` may be compared with the snapshot of `old`: the same object, or another with the same prototype (a class's instance reads by its class). */
function comparable(m: unknown, old: unknown): boolean {
  return m === old || (typeof m === 'object' && m !== null && typeof old === 'object' && old !== null && Object.getPrototypeOf(m) === Object.getPrototypeOf(old));
}

/** A message's snapshot, or `undefined` when it cannot have one (not an object, or too large). */
function snapshot(m: unknown): unknown[] | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const out: unknown[] = [];
  return snap(m as Record<string, unknown>, out, SNAPSHOT_DEPTH) ? out : undefined;
}

/**
 * The counts of the leading `same` messages' texts, and their text keys, from an earlier call
 * (tokens/cache.ts `countThrough` takes them as known). Never changed once made.
 */
export interface KnownCounts {
  readonly same: number;
  readonly costs: Uint32Array;
  readonly keys: readonly string[];
}

/** The turns of a history, read once per message across the calls that pass the same memo. @internal */
export class HistoryMemo {
  private list: readonly unknown[] = [];
  private snaps: (unknown[] | undefined)[] = [];
  private turns: Turn[] = [];
  /** Per message, what its shape shows of its format (detect.ts `evidence`). */
  private evidence = new Uint8Array(0);
  private adapter: FormatAdapter | undefined;
  /** The counts of the texts of a list this memo read (its messages' texts, as the count cache answered). */
  private counted: { list: readonly unknown[]; costs: Uint32Array; keys: readonly string[] } | undefined;
  /** Of the history last read, the leading messages that the one before had, unchanged. */
  same = 0;
  /** How many histories this memo has read: `same` is of read `reads` against read `reads - 1`. */
  reads = 0;
  /** The text of each message of the history last read (its turn's). */
  texts: readonly string[] = [];
  /** For the history last read: the counts of its first `same` messages' texts, when the one before was counted. */
  known: KnownCounts | undefined;
  /** The structure of the histories read (structure-memo.ts), resumed from one read to the next. */
  readonly structure = new StructureMemo();

  /**
   * Remembers the counts of `list`'s message texts (`costs[i]`, `keys[i]`, as counted through the
   * cache, before truncation), for the next read; only if `list` is the history last read.
   */
  remember(list: readonly unknown[], costs: Uint32Array, keys: readonly string[]): void {
    if (list === this.list) this.counted = { list, costs, keys };
  }

  /** The turns of `list` (a copy the caller keeps unchanged); remembers them for the next call. */
  read(adapter: FormatAdapter, list: readonly unknown[]): Turn[] {
    if (adapter !== this.adapter) this.clear(adapter);
    const n = list.length;
    const turns = new Array<Turn>(n);
    const snaps = new Array<unknown[] | undefined>(n);
    const shown = new Uint8Array(n);
    const old = this.list;
    const lim = Math.min(n, old.length);
    let first = -1;
    for (let i = 0; i < n; i++) {
      const m = list[i];
      const s = i < lim && comparable(m, old[i]) ? this.snaps[i] : undefined;
      if (s !== undefined && same(m as Record<string, unknown>, s, 0, SNAPSHOT_DEPTH) === s.length) {
        turns[i] = this.turns[i]!;
        snaps[i] = s;
        shown[i] = this.evidence[i]!;
        continue;
      }
      if (first < 0) first = i;
      turns[i] = readTurn(adapter, m, i);
      snaps[i] = snapshot(m);
      shown[i] = evidence(m);
    }
    this.same = first < 0 ? n : first;
    this.reads++;
    const texts = this.texts.slice(0, this.same);
    for (let i = this.same; i < n; i++) texts.push(turns[i]!.text);
    this.texts = texts;
    const c = this.counted;
    this.known = c !== undefined && c.list === old && this.same > 0 ? { same: Math.min(this.same, c.costs.length), costs: c.costs, keys: c.keys } : undefined;
    this.list = list;
    this.snaps = snaps;
    this.turns = turns;
    this.evidence = shown;
    return turns;
  }

  /** The format the history last read shows by a shape only it has (detect.ts `evidentFormat`). */
  evident(): MessageFormatName | undefined {
    let mask = 0;
    for (let i = 0; i < this.evidence.length; i++) mask |= this.evidence[i]!;
    return evidentOf(mask);
  }

  private clear(adapter: FormatAdapter): void {
    this.adapter = adapter;
    this.list = [];
    this.snaps = [];
    this.turns = [];
    this.evidence = new Uint8Array(0);
    this.counted = undefined;
    this.known = undefined;
    this.same = 0;
    this.texts = [];
  }
}
