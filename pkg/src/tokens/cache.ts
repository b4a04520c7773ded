/**
 * Token counts kept across calls, keyed by content: a stable hash of the counted text (64 bits
 * and the length), so a history rebuilt from a database still hits. Bounded: least recently used
 * entries go first, and never one the current call used (the bound is at least the call's size).
 * Exported as plain JSON (hashes and counts, never the text; but without a session's `stateKey`
 * the hashes are public, and a guessable text is found by hashing guesses: docs/sessions.md).
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { MAX_COST_TOKENS } from '../validate/fields.js';
import { checkedCount, counterThrew } from './counter.js';
import { hex32 } from '../util/hash.js';

/**
 * The key of a text: a 64-bit hash of its UTF-16 code units (two 32-bit multiply-xorshift lanes
 * with different seeds, as cyrb53 does; `fnv1a64` byte by byte took most of a turn's time) and
 * its length, so that a collision also needs equal lengths. Stable across runtimes and versions:
 * exported states hold these keys.
 */
export function textKey(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${hex32(h1)}${hex32(h2)}:${text.length}`;
}

/**
 * Counts by text key, least recently used first (a Map keeps insertion order). `V` is what is kept
 * per text: a count, or (messages/caller.ts) an embedding vector, through the same keys and bound.
 */
/**
 * The key of a cache that lives for one call and shares nothing (a stateless `fitMessages`): the
 * text itself. The engine hashes a string natively once, where {@link textKey} reads it again in
 * JavaScript; no such key leaves the call.
 */
export const sameText = (text: string): string => text;

export class CountCache<V = number> {
  private readonly entries = new Map<string, V>();
  /**
   * The keys of the texts of the last call, and of this one so far: a session's next turn finds
   * its history's texts here instead of hashing them again (a lookup by the string itself, which
   * the engine hashes natively). Holds at most two calls' texts.
   */
  private keysOfLast = new Map<string, string>();
  private keysOfThis = new Map<string, string>();
  /** Lookups answered from the cache, and counts the counter made, since creation. */
  hits = 0;
  misses = 0;

  constructor(
    /** Entries kept at most (raised to the size of a call while it runs). */
    readonly limit: number,
    /** The key of a text: {@link textKey}, or a session's keyed hash under its `stateKey`. */
    private readonly keyText: (text: string) => string = textKey,
    /**
     * A cache shared across calls (`createCountCache`) that this one reads from and writes to:
     * a call's own cache holds what the call counted for as long as the call runs, whatever other
     * calls evict from the shared one meanwhile (fitMessagesAsync awaits between its counts).
     */
    private readonly shared?: CountCache<V>,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The count of `key`, marked as just used; `undefined` when absent. */
  lookup(key: string): V | undefined {
    const n = this.entries.get(key);
    if (n === undefined) {
      const known = this.shared?.lookup(key);
      if (known !== undefined) this.entries.set(key, known);
      return known;
    }
    this.entries.delete(key);
    this.entries.set(key, n);
    this.hits++;
    return n;
  }

  /** Stores a count just made; evicts the least recently used beyond `max(limit, atLeast)`. */
  store(key: string, n: V, atLeast = 0): void {
    this.shared?.store(key, n);
    this.misses++;
    this.entries.delete(key);
    this.entries.set(key, n);
    const bound = Math.max(this.limit, atLeast);
    // No iterator while nothing is evicted (a call's own cache, every text of a long history).
    if (this.entries.size <= bound) return;
    for (const k of this.entries.keys()) {
      if (this.entries.size <= bound) break;
      this.entries.delete(k);
    }
  }

  /** The key of `text` (`keyText`), remembered from the last call that had it: a text is keyed once. */
  keyOf(text: string): string {
    if (this.keyText === sameText) return text;
    if (this.shared !== undefined) return this.shared.keyOf(text); // the texts of its earlier calls
    let key = this.keysOfThis.get(text);
    if (key === undefined) {
      key = this.keysOfLast.get(text) ?? this.keyText(text);
      this.keysOfThis.set(text, key);
    }
    return key;
  }

  /** Ends a call: the keys of its texts are the ones remembered for the next. */
  endCall(): void {
    this.shared?.endCall();
    this.keysOfLast = this.keysOfThis;
    this.keysOfThis = new Map();
  }

  /** `[key, count]` pairs, least recently used first. */
  export(): [string, V][] {
    return [...this.entries];
  }

  /**
   * Takes exported pairs: only the last `limit` (the most recently used, as {@link export} writes
   * them), unread beyond; more than {@link MAX_IMPORTED_COUNTS} (or `limit`, if larger) is refused
   * unread. A malformed pair is `INVALID_OPTION` naming `field[index]`.
   */
  import(pairs: unknown, field: string): void {
    if (!Array.isArray(pairs)) throw new CtxpackError('INVALID_OPTION', `${field} must be an array of [key, count] pairs, got ${describeValue(pairs)}`, { field });
    if (pairs.length > Math.max(MAX_IMPORTED_COUNTS, this.limit)) {
      throw new CtxpackError('INVALID_OPTION', `${field} must hold at most ${Math.max(MAX_IMPORTED_COUNTS, this.limit)} pairs (maxCachedCounts, if larger), got ${describeValue(pairs)}`, { field });
    }
    for (let i = Math.max(0, pairs.length - this.limit); i < pairs.length; i++) {
      const p: unknown = pairs[i];
      const ok =
        Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && KEY_FORMAT.test(p[0]) &&
        Number.isInteger(p[1]) && (p[1] as number) >= 0 && (p[1] as number) <= MAX_COST_TOKENS;
      if (!ok) throw new CtxpackError('INVALID_OPTION', `${field}[${i}] must be a [key, count] pair as exportState() writes it, got ${describeValue(p)}`, { field, index: i });
      this.entries.set(p[0] as string, p[1] as V); // counts only: a session imports no vectors
    }
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.limit) break;
      this.entries.delete(k);
    }
  }
}

/**
 * Exported counts read at most (unless `maxCachedCounts` is larger): 2^20 pairs, some 30 MB of
 * JSON, twenty times the default cache. A state with more is no state a session wrote.
 */
export const MAX_IMPORTED_COUNTS = 1 << 20;

/** A text key as {@link textKey} writes it, or a keyed one (the hash alone). */
const KEY_FORMAT = /^[0-9a-f]{16}(:\d+)?$/;

/**
 * The counts and keys of the first texts of a call known from an earlier call of the same counter
 * (a session's unchanged messages: messages/history.ts), `same` of them.
 */
export interface KnownTexts {
  readonly same: number;
  readonly costs: ArrayLike<number>;
  readonly keys: readonly string[];
}

/**
 * Counts `texts` through `cache`: each distinct text the cache lacks is counted once, with
 * `count(text)` (synchronous), checked, stored; nothing the call counted is evicted before
 * `atLeast` entries. Errors name `where(i)`, never the text. Returns the counts and each text's
 * key. `endCall` false: more texts of the same call follow (truncated tool results). `known`:
 * the first texts' counts and keys, taken as hits without a lookup, when the cache can take
 * every other text without evicting (else each is looked up, so that none the call uses is
 * evicted).
 */
export function countThrough(
  texts: readonly string[],
  cache: CountCache,
  count: (text: string) => unknown,
  where: (i: number) => string,
  atLeast = texts.length,
  endCall = true,
  known?: KnownTexts,
): { costs: Uint32Array; keys: string[] } {
  const costs = new Uint32Array(texts.length);
  const keys = new Array<string>(texts.length);
  const from = knownFrom(cache, texts.length, known);
  for (let i = 0; i < from; i++) {
    costs[i] = known!.costs[i]!;
    keys[i] = known!.keys[i]!;
  }
  cache.hits += from;
  for (let i = from; i < texts.length; i++) {
    const key = cache.keyOf(texts[i]!);
    keys[i] = key;
    const known = cache.lookup(key);
    if (known !== undefined) {
      costs[i] = known;
      continue;
    }
    let answer: unknown;
    try {
      answer = count(texts[i]!);
    } catch (err) {
      throw renamed(counterThrew(err, i), i, where);
    }
    costs[i] = checkedAt(answer, i, where);
    cache.store(key, costs[i]!, atLeast);
  }
  if (endCall) cache.endCall();
  return { costs, keys };
}

/** How many of the first texts `known` answers: all it knows, when the cache takes the others without evicting; else none. */
function knownFrom(cache: CountCache, texts: number, known: KnownTexts | undefined): number {
  return known !== undefined && cache.size + texts - known.same <= cache.limit ? known.same : 0;
}

/**
 * Fills `cache` with the counts of `texts` it lacks, from a counter that may return a Promise:
 * distinct texts, at most `concurrency` counts in flight. A rejection is `TOKEN_COUNT_FAILED` with
 * the rejection as its cause, naming `where(i)`.
 */
export async function prefillAsync(
  texts: readonly string[],
  cache: CountCache,
  count: (text: string) => unknown,
  where: (i: number) => string,
  concurrency: number,
  atLeast = texts.length,
  known?: KnownTexts,
): Promise<void> {
  const todo = new Map<string, number>(); // key → first index
  const from = knownFrom(cache, texts.length, known);
  cache.hits += from;
  for (let i = from; i < texts.length; i++) {
    const key = cache.keyOf(texts[i]!);
    if (!todo.has(key) && cache.lookup(key) === undefined) todo.set(key, i);
  }
  const jobs = [...todo];
  let next = 0;
  let failed: CtxpackError | undefined;
  const worker = async (): Promise<void> => {
    while (failed === undefined && next < jobs.length) {
      const [key, i] = jobs[next++]!;
      try {
        const n = checkedAt(await count(texts[i]!), i, where);
        cache.store(key, n, atLeast);
      } catch (err) {
        failed ??= err instanceof CtxpackError ? err : renamed(counterThrew(err, i), i, where);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  if (failed !== undefined) throw failed;
}

function checkedAt(answer: unknown, i: number, where: (i: number) => string): number {
  try {
    return checkedCount(answer, i);
  } catch (err) {
    throw renamed(err as CtxpackError, i, where);
  }
}

/** The counting error with the caller's name for the text (`messages[3]`) instead of `candidates[3].content`. */
function renamed(err: CtxpackError, i: number, where: (i: number) => string): CtxpackError {
  const details = err.cause === undefined ? { field: 'content', index: i } : { field: 'content', index: i, cause: err.cause };
  return new CtxpackError(err.code, err.message.replace(`candidates[${i}].content`, where(i)), details);
}
