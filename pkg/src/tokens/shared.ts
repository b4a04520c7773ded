/**
 * `createCountCache`: token counts a caller shares across `fitMessages` calls, so that a stateless
 * caller (an agent step that fits its whole history each time) counts each text once, not once
 * per call. One least-recently-used cache per counter and model: a count is only ever found for
 * the same text (its 64-bit hash and length, as a session keys it), the same counter function
 * and the same `model`.
 *
 * @module
 */

import { invalidOption, optionsRecord, readCount, rejectUnknownOptions } from '../validate/options.js';
import { CountCache, sameText } from './cache.js';
import type { TokenCounter } from './counter.js';

/** Options of {@link createCountCache}. */
export interface CountCacheOptions {
  /** Counts kept at most per counter and model; the least recently used go first. Default 50,000 (a session's default). */
  maxEntries?: number;
}

/** A cache of token counts from {@link createCountCache}, passed to `fitMessages` as `options.countCache`. */
export interface TokenCountCache {
  /** Counts held, over all counters. */
  readonly size: number;
  /** Texts whose count a call found here, since creation. */
  readonly hits: number;
  /** Texts a call counted and stored here, since creation. */
  readonly misses: number;
  /** Forgets every count (the statistics stay). */
  clear(): void;
}

const DEFAULT_MAX_ENTRIES = 50_000;

/**
 * What a shared cache holds per text (`V`) for the function `F` that made it: counts per counter
 * and model (`createCountCache`), or embedding vectors per embedder (`createEmbeddingCache`,
 * messages/caller.ts). `kind` tells them apart when a caller passes one for the other.
 * @internal
 */
export class SharedCache<F, V> implements TokenCountCache {
  /**
   * One cache per function and model, least recently used first, at most {@link MAX_WAYS}: a
   * caller that makes a new function at every call (an inline arrow) gets no hits, and must not
   * grow the cache by one more each call either.
   */
  private ways: { fn: F; model: string | undefined; cache: CountCache<V> }[] = [];
  /** The statistics of the caches dropped (evicted, or by `clear`). */
  private retired = { hits: 0, misses: 0 };

  constructor(
    readonly kind: 'counts' | 'vectors',
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.ways.reduce((n, w) => n + w.cache.size, 0);
  }
  get hits(): number {
    return this.ways.reduce((n, w) => n + w.cache.hits, this.retired.hits);
  }
  get misses(): number {
    return this.ways.reduce((n, w) => n + w.cache.misses, this.retired.misses);
  }

  clear(): void {
    this.retired = { hits: this.hits, misses: this.misses };
    this.ways = [];
  }

  /** The cache of what `fn` made for `model`. @internal */
  of(fn: F, model: string | undefined): CountCache<V> {
    const k = this.ways.findIndex((w) => w.fn === fn && w.model === model);
    const way = k >= 0 ? this.ways.splice(k, 1)[0]! : { fn, model, cache: new CountCache<V>(this.maxEntries) };
    this.ways.push(way);
    if (this.ways.length > MAX_WAYS) {
      const gone = this.ways.shift()!.cache;
      this.retired = { hits: this.retired.hits + gone.hits, misses: this.retired.misses + gone.misses };
    }
    return way.cache;
  }
}

/** Counter and model pairs a shared cache keeps counts for at once. */
const MAX_WAYS = 8;

/**
 * A cache of token counts to share across `fitMessages` and `fitMessagesAsync` calls
 * (`options.countCache`): each distinct text is counted once while the cache holds it, whatever
 * call counted it first. For callers that fit a whole history at every step without a session
 * (a session keeps its own counts); the framework adapters use sessions.
 *
 * ```js
 * import { createCountCache, fitMessages } from 'ctxpack';
 *
 * const countCache = createCountCache({ maxEntries: 10_000 });
 * const history = [{ role: 'user', content: 'Summarize the report.' }];
 * fitMessages(history, { format: 'openai', budgets: { tokens_max: 8_000 }, countCache });
 * fitMessages(history, { format: 'openai', budgets: { tokens_max: 8_000 }, countCache });
 * console.log(countCache.hits > 0); // true: the second call counted nothing again
 * ```
 *
 * Counts are kept per counter function and `model` (at most 8 such pairs, the least recently used
 * dropped: pass the same function at every call, not a new arrow), keyed by a 64-bit hash of the
 * text and its length: a count is never read for another counter or model. The cache holds hashes and counts,
 * never the texts. Nothing needs freeing.
 *
 * @throws {CtxpackError} `INVALID_OPTION` when `maxEntries` is not an integer ≥ 1, or for an unknown option.
 */
export function createCountCache(options?: CountCacheOptions): TokenCountCache {
  return newSharedCache<TokenCounter, number>('counts', options, 'createCountCache', DEFAULT_MAX_ENTRIES);
}

/** A shared cache from its maker's options (`maxEntries` alone, an integer ≥ 1). @internal */
export function newSharedCache<F, V>(kind: 'counts' | 'vectors', options: unknown, maker: string, defaultMax: number): SharedCache<F, V> {
  const o = optionsRecord(options);
  rejectUnknownOptions(o, ['maxEntries'], maker);
  const maxEntries = readCount(o, 'maxEntries', defaultMax);
  if (maxEntries < 1) throw invalidOption('maxEntries', 'an integer of at least 1', maxEntries);
  return new SharedCache<F, V>(kind, maxEntries);
}

/**
 * A call's own count cache: reading from and writing to `options.countCache` when given (the
 * call keeps what it counted until it ends, whatever other calls evict meanwhile).
 * `INVALID_OPTION` when `countCache` is not a {@link createCountCache} cache. @internal
 */
export function callCache(shared: unknown, counter: TokenCounter, model: string | undefined): CountCache {
  if (shared === undefined) return new CountCache(0, sameText);
  if (!(shared instanceof SharedCache) || shared.kind !== 'counts') throw invalidOption('countCache', 'a cache made by createCountCache()', shared);
  return new CountCache(0, undefined, (shared as SharedCache<TokenCounter, number>).of(counter, model));
}
