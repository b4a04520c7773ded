/**
 * What a session keeps of the messages it has read, so that a turn reads only what is new: per
 * message of the last history, its turn (turns.ts), and a snapshot of its fields to notice an
 * edit. A message is read again only when it is another object at its index, or when a field
 * of it changed in place (a field set, an element of its arrays replaced, added or removed, to
 * {@link SNAPSHOT_DEPTH} levels; byte arrays are compared as one value). Whatever is derived
 * from a message alone (its count, its keys) is kept as long as its turn is: the first
 * {@link HistoryMemo.same} messages are those of the last read, unchanged.
 *
 * @internal
 * @module
 */

import { readTurn, type FormatAdapter, type Turn } from './turns.js';

/** How deep a snapshot reads a message: the message's fields, their elements and fields, and so on. */
export const SNAPSHOT_DEPTH = 5;
/** The most values a message's snapshot holds; a larger message is read again every turn. */
const SNAPSHOT_MAX = 256;

/** A container a snapshot descends into: a plain object or an array (not a byte array, a Date, a Map). */
function descends(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Appends the values of `v` to `out`: each field's key and value, containers followed by their
 * own values and an end mark. Returns false past {@link SNAPSHOT_MAX} values.
 */
function snap(v: Record<string, unknown>, out: unknown[], depth: number): boolean {
  for (const key in v) {
    const x = v[key];
    out.push(key, x);
    if (out.length > SNAPSHOT_MAX) return false;
    if (depth > 1 && descends(x)) {
      if (!snap(x, out, depth - 1)) return false;
      out.push(END);
    }
  }
  return true;
}
const END = Symbol('end');

/** Whether `v` still has the values `s` holds from `at` on; returns the position after them, or -1. */
function same(v: Record<string, unknown>, s: readonly unknown[], at: number, depth: number): number {
  for (const key in v) {
    const x = v[key];
    if (s[at] !== key || s[at + 1] !== x) return -1;
    at += 2;
    if (depth > 1 && descends(x)) {
      at = same(x, s, at, depth - 1);
      if (at < 0 || s[at] !== END) return -1;
      at++;
    }
  }
  return at;
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
  private adapter: FormatAdapter | undefined;
  /** The counts of the texts of a list this memo read (its messages' texts, as the count cache answered). */
  private counted: { list: readonly unknown[]; costs: Uint32Array; keys: readonly string[] } | undefined;
  /** Of the history last read, the leading messages that the one before had, unchanged. */
  same = 0;
  /** For the history last read: the counts of its first `same` messages' texts, when the one before was counted. */
  known: KnownCounts | undefined;

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
    const old = this.list;
    const lim = Math.min(n, old.length);
    let first = -1;
    for (let i = 0; i < n; i++) {
      const m = list[i];
      const s = i < lim && m === old[i] ? this.snaps[i] : undefined;
      if (s !== undefined && same(m as Record<string, unknown>, s, 0, SNAPSHOT_DEPTH) === s.length) {
        turns[i] = this.turns[i]!;
        snaps[i] = s;
        continue;
      }
      if (first < 0) first = i;
      turns[i] = readTurn(adapter, m, i);
      snaps[i] = snapshot(m);
    }
    this.same = first < 0 ? n : first;
    const c = this.counted;
    this.known = c !== undefined && c.list === old && this.same > 0 ? { same: Math.min(this.same, c.costs.length), costs: c.costs, keys: c.keys } : undefined;
    this.list = list;
    this.snaps = snaps;
    this.turns = turns;
    return turns;
  }

  private clear(adapter: FormatAdapter): void {
    this.adapter = adapter;
    this.list = [];
    this.snaps = [];
    this.turns = [];
    this.counted = undefined;
    this.known = undefined;
    this.same = 0;
  }
}
