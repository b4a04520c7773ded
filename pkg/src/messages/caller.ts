/**
 * The caller's own relevance: per-message `scores`, or an async `embed` whose vectors give each
 * message the cosine of its text with the query's. Either is fused with BM25 in the core
 * (src/relevance/fusion.rs) by `relevance.fusion` with the caller's weight `relevance.caller`;
 * the neighbour and recency terms of relevance.ts then apply to the fused value.
 *
 * Vectors are kept by content key (tokens/cache.ts, as token counts): a session's own cache, or a
 * cache shared across stateless calls (`createEmbeddingCache`, `options.embedCache`). `embed` is
 * called at most once per fit, with the texts no cache holds: the competing messages' texts and
 * the query's, each once.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { cosineRelevance, fuseRelevance } from '../core/bridge.js';
import { CountCache } from '../tokens/cache.js';
import { newSharedCache, SharedCache, type TokenCountCache } from '../tokens/shared.js';
import { invalidOption, readFunction } from '../validate/options.js';
import type { Unchecked } from '../validate/fields.js';
import type { RelevanceWeights } from './types.js';

/** An embedder: one vector per text, in order. */
export type Embedder = (texts: string[]) => PromiseLike<readonly (readonly number[] | Float32Array | Float64Array)[]>;

/** RRF's constant (the core's `RRF_K`). */
const RRF_K = 60;

/** The caller's relevance options of one fit, read. */
export interface CallerOptions {
  /** `options.scores`, checked: one per message. */
  readonly scores: Float64Array | undefined;
  readonly embed: Embedder | undefined;
  /** `options.embedCache`, checked (stateless calls). */
  readonly embedCache: SharedCache<Embedder, Float32Array> | undefined;
}

/** Options of {@link createEmbeddingCache}. */
export interface EmbeddingCacheOptions {
  /** Vectors kept at most per embedder; the least recently used go first. Default 10,000. */
  maxEntries?: number;
}

/** A cache of embedding vectors from {@link createEmbeddingCache}, passed to `fitMessagesAsync` as `options.embedCache`. */
export type EmbeddingCache = TokenCountCache;

/** Default `maxEntries` of an embedding cache: 10,000 vectors (15 MB at 384 dimensions, 61 MB at 1,536). */
export const DEFAULT_MAX_VECTORS = 10_000;

/**
 * A cache of embedding vectors to share across `fitMessagesAsync` calls (`options.embedCache`):
 * each distinct text is embedded once while the cache holds it, whatever call embedded it first.
 * For callers that fit a whole history at every step without a session (a session keeps its own
 * vectors). Vectors are kept per `embed` function (pass the same function at every call, not a
 * new arrow; at most 8 functions), as `Float32Array`s keyed by a 64-bit hash of the text and its
 * length: the cache holds hashes and vectors, never the texts.
 *
 * @throws {CtxpackError} `INVALID_OPTION` when `maxEntries` is not an integer ≥ 1, or for an unknown option.
 */
export function createEmbeddingCache(options?: EmbeddingCacheOptions): EmbeddingCache {
  return newSharedCache<Embedder, Float32Array>('vectors', options, 'createEmbeddingCache', DEFAULT_MAX_VECTORS);
}

/**
 * `options.scores`, `options.embed` and `options.embedCache` for `n` messages. `scores`: an array
 * of `n` finite numbers ≥ 0 (`INVALID_OPTION` naming `scores[i]`); not with `embed`.
 */
export function readCaller(o: Unchecked, n: number): CallerOptions {
  const embed = readFunction<Embedder>(o, 'embed');
  const shared = o['embedCache'];
  if (shared !== undefined && !(shared instanceof SharedCache && shared.kind === 'vectors')) {
    throw invalidOption('embedCache', 'a cache made by createEmbeddingCache()', shared);
  }
  if (shared !== undefined && embed === undefined) throw invalidOption('embedCache', 'absent without options.embed', shared);
  const raw = o['scores'];
  if (raw === undefined) return { scores: undefined, embed, embedCache: shared as SharedCache<Embedder, Float32Array> | undefined };
  if (embed !== undefined) throw invalidOption('scores', 'absent with options.embed (one source of your relevance at a time)', raw);
  if (!Array.isArray(raw) && !(raw instanceof Float64Array) && !(raw instanceof Float32Array)) {
    throw invalidOption('scores', 'an array of numbers, one per message', raw);
  }
  const list = raw as ArrayLike<unknown>;
  if (list.length !== n) throw invalidOption('scores', `an array of ${n} numbers, one per message`, raw);
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = list[i];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalidOption('scores', 'a finite number of at least 0', v, i);
    scores[i] = v;
  }
  return { scores, embed, embedCache: undefined };
}

/** `relevance.caller` (a number from 0 to 1) or `relevance.fusion` (`'weighted'` or `'rrf'`). */
export function readFusion(key: 'caller' | 'fusion', v: unknown): number | 'weighted' | 'rrf' {
  if (key === 'fusion') {
    if (v !== 'weighted' && v !== 'rrf') throw invalidOption('relevance.fusion', "'weighted' or 'rrf'", v);
    return v;
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw invalidOption('relevance.caller', 'a number from 0 to 1', v);
  return v;
}

/** The error of `fitMessages` and `session.fit` given `embed`: it is async. */
export function embedNeedsAsync(sync: string, async: string, embed: unknown): CtxpackError {
  return invalidOption('embed', `absent in ${sync}, which is synchronous: an embedder returns a Promise, use ${async}`, embed);
}

/**
 * The lexical scores fused with the caller's (`caller[i]` ≥ 0 per message), by the weights'
 * `fusion` and `caller` (the core's fuse); `scored[i]` says whether message `i` competes.
 */
export function fuseCaller(bm25: Float64Array, caller: Float64Array, scored: Uint8Array, w: Required<RelevanceWeights>): Float64Array {
  return fuseRelevance(bm25, caller, scored, w.caller, w.fusion === 'rrf' ? RRF_K : 0);
}

/**
 * The caller's relevance of each message from `embed`: texts the cache lacks are embedded (one
 * call, each distinct text once), then `max(0, cos)` of each competing message's vector with the
 * query's (the core's `cosineRelevance`); 0 for the others and for empty texts. `undefined` when
 * there is no query text, or when `embed` throws or rejects: a warning says so and the fit's
 * relevance is BM25 alone (an agent's turn is not lost to an embeddings API being down). What it
 * returns is checked: `INVALID_EMBEDDING` naming `embed(texts)[i]`.
 */
export async function embedRelevance(
  texts: readonly string[],
  query: string,
  scored: Uint8Array,
  embed: Embedder,
  cache: CountCache<Float32Array>,
  warnings: string[],
): Promise<Float64Array | undefined> {
  if (query === '') return undefined;
  const n = texts.length;
  const wanted: string[] = [query];
  for (let i = 0; i < n; i++) if (scored[i] === 1 && texts[i] !== '') wanted.push(texts[i]!);
  const keys = wanted.map((t) => cache.keyOf(t));
  const found = new Map<string, Float32Array>();
  const unseen = new Map<string, string>(); // key → text
  let dim: number | undefined;
  for (let k = 0; k < wanted.length; k++) {
    const key = keys[k]!;
    if (found.has(key) || unseen.has(key)) continue;
    const v = cache.lookup(key);
    if (v === undefined) unseen.set(key, wanted[k]!);
    else {
      found.set(key, v);
      dim ??= v.length;
    }
  }
  if (unseen.size > 0) {
    const batch = [...unseen.values()];
    let answer: unknown;
    try {
      answer = await embed(batch.slice());
    } catch (err) {
      cache.endCall();
      warnings.push(`embed_failed: options.embed ${err instanceof Error ? `threw ${err.name}` : 'rejected'} for ${batch.length} text(s): relevance is BM25 alone for this fit`);
      return undefined;
    }
    let vectors: Float32Array[];
    try {
      vectors = checkedVectors(answer, batch.length, dim);
    } finally {
      cache.endCall();
    }
    let j = 0;
    // Every vector this call reads stays until it ends (the bound is at least the call's texts).
    for (const key of unseen.keys()) {
      found.set(key, vectors[j]!);
      cache.store(key, vectors[j++]!, wanted.length);
    }
  } else cache.endCall();
  const query0 = found.get(keys[0]!)!;
  const docs = new Float32Array(query0.length * (wanted.length - 1));
  for (let k = 1; k < wanted.length; k++) {
    const v = found.get(keys[k]!)!;
    if (v.length !== query0.length) {
      // Only vectors kept from earlier calls can differ (new ones are checked): the embedder changed its model.
      warnings.push('embed_failed: the cached vectors have different lengths (a new embedding model?): relevance is BM25 alone for this fit; clear the embedding cache');
      return undefined;
    }
    docs.set(v, (k - 1) * query0.length);
  }
  const cos = cosineRelevance(query0, docs);
  const out = new Float64Array(n);
  for (let i = 0, k = 0; i < n; i++) if (scored[i] === 1 && texts[i] !== '') out[i] = cos[k++]!;
  return out;
}

/**
 * What `embed` returned, checked: an array of `count` vectors, each an array (or typed array) of
 * the same length ≥ 1 (`dim` when the cache already holds vectors), every number finite.
 */
function checkedVectors(answer: unknown, count: number, dim: number | undefined): Float32Array[] {
  const bad = (what: string, index?: number): CtxpackError =>
    new CtxpackError('INVALID_EMBEDDING', `options.embed(texts)${index === undefined ? '' : `[${index}]`} ${what}`, index === undefined ? { field: 'embed' } : { field: 'embed', index });
  if (!Array.isArray(answer)) throw bad(`must resolve to an array of ${count} vectors, got ${describeValue(answer)}`);
  if (answer.length !== count) throw bad(`must resolve to one vector per text (${count}), got ${answer.length}`);
  const out = new Array<Float32Array>(count);
  for (let i = 0; i < count; i++) {
    const v: unknown = answer[i];
    if (!Array.isArray(v) && !(v instanceof Float32Array) && !(v instanceof Float64Array)) throw bad(`must be an array of numbers, got ${describeValue(v)}`, i);
    const list = v as ArrayLike<unknown>;
    const want = dim ?? (i > 0 ? out[0]!.length : undefined);
    if (list.length === 0 || (want !== undefined && list.length !== want)) {
      throw bad(`has ${list.length} numbers, ${want === undefined ? 'must have at least 1' : `the other vectors ${want}`}`, i);
    }
    const f = new Float32Array(list.length);
    for (let d = 0; d < list.length; d++) {
      const x = list[d];
      if (typeof x !== 'number' || !Number.isFinite(x) || !Number.isFinite(Math.fround(x))) {
        throw bad(`must hold finite numbers (within float32), got ${describeValue(x)} at ${d}`, i);
      }
      f[d] = x;
    }
    out[i] = f;
  }
  return out;
}
