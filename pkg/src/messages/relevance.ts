/**
 * Relevance of each message to the query, from its text: BM25 in the Rust core (src/relevance),
 * then a share of the better neighbour's relevance (evidence often spans adjacent turns: a
 * question and its answer) and a small recency term measured in turns, not hours.
 *
 * ```text
 * n(i)     = bm25(i) / max_j bm25(j)                      (0 when no message shares a word with the query)
 * value(i) = (n(i) + neighbour · max(n(i−1), n(i+1)) + recency · exp(−turnsAfter(i) / recencyTurns))
 *            / (1 + neighbour + recency)                  (in [0, 1])
 * ```
 *
 * @internal
 * @module
 */

import { shownName } from '../errors.js';
import { bm25FromStats, bm25Scores, bm25Stats, bm25Terms } from '../core/bridge.js';
import { exp } from '../util/detmath.js';
import { BM25_DEFAULTS } from '../ranking/relevance.js';
import { isRecord, type Unchecked } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import type { RelevanceWeights } from './types.js';
import { fuseCaller, readFusion } from './caller.js';

/** The defaults of {@link RelevanceWeights}. */
export const DEFAULT_RELEVANCE: Readonly<Required<RelevanceWeights>> = Object.freeze({
  ...BM25_DEFAULTS,
  neighbour: 0.5,
  recency: 0.05,
  recencyTurns: 40,
  caller: 0.5,
  fusion: 'weighted',
});

/** `options.relevance`: known keys only, each a finite non-negative number (`b` at most 1, `recencyTurns` above 0). */
export function readRelevance(o: Unchecked): Required<RelevanceWeights> {
  const r = o['relevance'];
  if (r === undefined) return { ...DEFAULT_RELEVANCE };
  if (!isRecord(r)) throw invalidOption('relevance', 'an object with optional k1, b, neighbour, recency, recencyTurns', r);
  const out = { ...DEFAULT_RELEVANCE };
  for (const key of Object.keys(r)) {
    if (!Object.hasOwn(DEFAULT_RELEVANCE, key)) throw invalidOption(`relevance.${shownName(key)}`, 'absent (not a relevance weight)', r[key]);
    const v = r[key];
    if (key === 'fusion' || key === 'caller') {
      out[key] = readFusion(key, v) as never; // caller.ts: the caller's relevance
      continue;
    }
    const max = key === 'b' ? 1 : Number.MAX_VALUE;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max || (key === 'recencyTurns' && v === 0)) {
      throw invalidOption(`relevance.${key}`, key === 'b' ? 'a number from 0 to 1' : 'a finite non-negative number', v);
    }
    out[key as Exclude<keyof RelevanceWeights, 'fusion'>] = v;
  }
  return out;
}

/**
 * The value of each message in [0, 1] (see the module documentation). `texts` are every message's
 * text in conversation order; `scored[i]` says whether message `i` competes for the budget (the
 * normalisation takes the highest BM25 among those).
 */
export function relevanceValues(
  texts: readonly string[],
  query: string,
  scored: Uint8Array,
  w: Required<RelevanceWeights>,
  memo?: Bm25Memo,
  caller?: Float64Array,
): Float64Array {
  const n = texts.length;
  let bm25 = memo === undefined ? bm25Scores(texts, query, w.k1, w.b) : memo.scores(texts, query, w.k1, w.b);
  if (caller !== undefined) bm25 = fuseCaller(bm25, caller, scored, w); // the caller's relevance (caller.ts)
  let max = 0;
  for (let i = 0; i < n; i++) if (scored[i] === 1 && bm25[i]! > max) max = bm25[i]!;
  const norm = new Float64Array(n);
  // Only competing messages pass relevance on: the query's own message would lend its neighbours all of it.
  if (max > 0) for (let i = 0; i < n; i++) norm[i] = scored[i] === 1 ? Math.min(1, bm25[i]! / max) : 0;
  const total = 1 + w.neighbour + w.recency;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const near = Math.max(i > 0 ? norm[i - 1]! : 0, i + 1 < n ? norm[i + 1]! : 0);
    out[i] = (norm[i]! + w.neighbour * near + w.recency * exp(-(n - 1 - i) / w.recencyTurns)) / total;
  }
  return out;
}

/**
 * What BM25 reads of each text (its length, and its count of each query term it holds; the core's
 * `bm25Stats`) kept from one call to the next while the query stays the same: a session's turn has
 * the core read only the texts it has not seen, then weigh them all (`bm25FromStats`). The scores
 * are those of `bm25Scores` on the same texts, bit for bit. Holds at most two calls' texts, and per
 * text only the query terms it holds (`2 + 2m` numbers for `m` of them): never texts × query terms.
 */
export class Bm25Memo {
  private query: string | undefined;
  private terms = 0;
  private last = new Map<string, Uint32Array>();

  /** The BM25 scores of `texts` for `query` (as `bm25Scores`). */
  scores(texts: readonly string[], query: string, k1: number, b: number): Float64Array {
    const last = query === this.query ? this.last : new Map<string, Uint32Array>();
    const current = new Map<string, Uint32Array>();
    const unseen: string[] = [];
    for (const text of texts) {
      if (last.has(text) || current.has(text)) continue;
      current.set(text, EMPTY_STATS);
      unseen.push(text);
    }
    // A new query's number of terms comes with its first stats (every text is unseen then), or
    // alone when there is no text. Asked of the core before anything changes here: a failed call
    // leaves the memo as it was.
    let terms = query === this.query ? this.terms : undefined;
    if (unseen.length > 0) {
      const packed = bm25Stats(unseen, query);
      terms = packed[0]!;
      // Then per text: its length, its number of matches m, then m (term, count) pairs.
      let at = 1;
      for (const text of unseen) {
        const end = at + 2 + 2 * packed[at + 1]!;
        current.set(text, packed.subarray(at, end));
        at = end;
      }
    }
    const parts = new Array<Uint32Array>(texts.length);
    let length = 0;
    terms ??= bm25Terms(query);
    this.query = query;
    this.terms = terms;
    texts.forEach((text, i) => {
      const part = current.get(text) ?? last.get(text)!;
      current.set(text, part);
      parts[i] = part;
      length += part.length;
    });
    const stats = new Uint32Array(length);
    let at = 0;
    for (const part of parts) {
      stats.set(part, at);
      at += part.length;
    }
    this.last = current;
    return bm25FromStats(stats, this.terms, k1, b);
  }
}

/** A placeholder while a text's stats are being read. */
const EMPTY_STATS = new Uint32Array(0);
