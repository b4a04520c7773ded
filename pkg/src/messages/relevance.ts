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

import { bm25DocTerms, bm25FromStats, bm25QueryTerms, bm25Scores, bm25Stats, type DocTerms } from '../core/bridge.js';
import { exp } from '../util/detmath.js';
import { BM25_DEFAULTS } from '../ranking/relevance.js';
import { isRecord, type Unchecked } from '../validate/fields.js';
import { invalidOption, unknownOption } from '../validate/options.js';
import type { RelevanceWeights } from './types.js';
import { fuseCaller, readFusion } from './caller.js';

/** The defaults of {@link RelevanceWeights}. */
export const DEFAULT_RELEVANCE: Readonly<Required<RelevanceWeights>> = Object.freeze({
  ...BM25_DEFAULTS,
  neighbour: 0.35,
  recency: 0.05,
  recencyTurns: 40,
  caller: 0.5,
  fusion: 'weighted',
});

/** `options.relevance`: known keys only, each a finite non-negative number (`b` at most 1, `recencyTurns` above 0). */
export function readRelevance(o: Unchecked): Required<RelevanceWeights> {
  const r = o['relevance'];
  if (r === undefined) return { ...DEFAULT_RELEVANCE };
  const known = Object.keys(DEFAULT_RELEVANCE);
  if (!isRecord(r)) throw invalidOption('relevance', `an object with optional ${known.join(', ')}`, r);
  const out = { ...DEFAULT_RELEVANCE };
  for (const key of Object.keys(r)) {
    if (!Object.hasOwn(DEFAULT_RELEVANCE, key)) throw unknownOption('relevance.', key, 'a relevance weight', known);
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
  history?: HistoryRead,
): Float64Array {
  const n = texts.length;
  let bm25 = memo === undefined ? bm25Scores(texts, query, w.k1, w.b) : memo.scores(texts, query, w.k1, w.b, history);
  if (caller !== undefined) bm25 = fuseCaller(bm25, caller, scored, w); // the caller's relevance (caller.ts)
  let max = 0;
  for (let i = 0; i < n; i++) if (scored[i] === 1 && bm25[i]! > max) max = bm25[i]!;
  const norm = new Float64Array(n);
  // Only competing messages pass relevance on: the query's own message would lend its neighbours all of it.
  if (max > 0) for (let i = 0; i < n; i++) norm[i] = scored[i] === 1 ? Math.min(1, bm25[i]! / max) : 0;
  const total = 1 + w.neighbour + w.recency;
  const out = new Float64Array(n);
  const decay = recencyDecay(w.recencyTurns, n);
  for (let i = 0; i < n; i++) {
    const near = Math.max(i > 0 ? norm[i - 1]! : 0, i + 1 < n ? norm[i + 1]! : 0);
    out[i] = (norm[i]! + w.neighbour * near + w.recency * decay[n - 1 - i]!) / total;
  }
  return out;
}

/** `exp(-d / recencyTurns)` for d from 0 up, kept for the last `recencyTurns` asked (a history's calls ask the same). */
let decayMemo: { turns: number; column: Float64Array } | undefined;

/** `exp(-d / recencyTurns)` for every d below `n` (at least). */
function recencyDecay(recencyTurns: number, n: number): Float64Array {
  const memo = decayMemo;
  if (memo !== undefined && memo.turns === recencyTurns && memo.column.length >= n) return memo.column;
  const size = Math.max(n, 2 * (memo?.turns === recencyTurns ? memo.column.length : 0), 64);
  const column = new Float64Array(size);
  for (let d = 0; d < size; d++) column[d] = exp(-d / recencyTurns);
  decayMemo = { turns: recencyTurns, column };
  return column;
}

/** Of a session's history (history.ts): its first `same` texts are those of the history's read `read - 1`. */
export interface HistoryRead {
  readonly read: number;
  readonly same: number;
}

/** A text the memo has read: its serial, its length in words, and its distinct words (as vocabulary numbers) with their counts. */
interface IndexedText {
  readonly serial: number;
  readonly words: number;
  readonly ids: Uint32Array;
  readonly counts: Uint32Array;
}

/** Packed stats (per text: words, matches m, then m pairs of term and count) and, per text, where its own start (n + 1 entries). */
interface KeptStats {
  readonly stats: Uint32Array;
  readonly starts: Uint32Array;
}

/**
 * `length` numbers of which the first `keep` are those of `from` (a view from the start of its
 * buffer): `from`'s buffer when it holds them, else a new one with a quarter more room.
 */
function grown(from: Uint32Array, keep: number, length: number): Uint32Array {
  if (from.byteOffset === 0 && from.buffer.byteLength >= 4 * length) return new Uint32Array(from.buffer, 0, length);
  const out = new Uint32Array(new ArrayBuffer(4 * (length + (length >> 2))), 0, length);
  out.set(from.subarray(0, keep));
  return out;
}

/** Where each of the `n` texts' stats start in `stats`, and the end. */
function startsOf(stats: Uint32Array, n: number): Uint32Array {
  const starts = new Uint32Array(n + 1);
  for (let i = 0, at = 0; i < n; i++) {
    starts[i] = at;
    at += 2 + 2 * stats[at + 1]!;
    starts[i + 1] = at;
  }
  return starts;
}

/**
 * Up to this many characters of text in all, {@link Bm25Memo.scores} reads every text again in
 * one call of the core (`bm25Scores`) instead of through its index (three calls: the new texts,
 * the query, the weighing), which costs more than reading a short history. In a session's turn
 * of a generated agent history the two ways cross near 60,000 characters (about 60 messages).
 */
const DIRECT_CHARS = 32_768;

let directChars = DIRECT_CHARS;

/** Sets {@link DIRECT_CHARS} (tests: 0 sends every call with a text through the index); returns the one before. @internal */
export function setDirectChars(chars: number): number {
  const before = directChars;
  directChars = chars;
  return before;
}

/** Whether `texts` hold at most {@link DIRECT_CHARS} characters in all (reading no more than that many texts' lengths). */
function short(texts: readonly string[]): boolean {
  let total = 0;
  for (let i = 0; i < texts.length; i++) if ((total += texts[i]!.length) > directChars) return false;
  return true;
}

/**
 * An index of the texts a session has seen, so that a turn reads only its new texts, whatever its
 * query: the core reads each text once (`bm25DocTerms`: its length and distinct words with their
 * counts), and an inverted index (word → the texts holding it) then gives any query's stats
 * without reading a text again. A turn costs its new texts plus the postings of its query's
 * words, not the whole history: a new user message is a new query, and before this index every
 * such turn re-read every text of the history. The stats are those the core's `bm25Stats` reads
 * from the texts, so the scores are those of `bm25Scores`, bit for bit (`bm25FromStats` weighs
 * them). Texts no longer in the history are dropped once they outnumber the live ones; the
 * vocabulary keeps every word seen. The first call indexes nothing (it reads the texts for its
 * query alone, `bm25Stats`); a later call indexes what it needs. A short history
 * ({@link DIRECT_CHARS}) skips the index.
 */
export class Bm25Memo {
  private readonly vocabulary = new Map<string, number>();
  /** Per vocabulary number: the texts holding the word, as (serial, count) pairs. */
  private postings: number[][] = [];
  private texts = new Map<string, IndexedText>();
  /** Per serial: the last call that had the text. */
  private seen: number[] = [];
  private nextSerial = 0;
  private calls = 0;
  private query: string | undefined;
  private queryTerms: readonly string[] = [];
  /** The last call's stats, packed as the core reads them, with where each text's start. */
  private kept: KeptStats | undefined;
  /** The query's words by vocabulary number, for `terms`. */
  private ranks: { terms: readonly string[]; of: Map<number, number> } | undefined;
  /** The texts of the last call and what was read of each. */
  private last: { texts: readonly string[]; indexed: readonly (IndexedText | undefined)[] } = { texts: [], indexed: [] };
  /** The history read (HistoryRead) the last call scored; -2 without one. */
  private lastRead = -2;

  /**
   * The BM25 scores of `texts` for `query` (as `bm25Scores`; texts of at most
   * {@link DIRECT_CHARS} characters in all through it). `history`: the texts are those of a
   * session's history read (history.ts); when the last call scored the read before it, the texts
   * it keeps unchanged are the last call's, and are not compared again.
   */
  scores(texts: readonly string[], query: string, k1: number, b: number, history?: HistoryRead): Float64Array {
    if (short(texts)) {
      // Not through the index: the next call that is not short reads every text it lacks.
      const scores = bm25Scores(texts, query, k1, b);
      this.kept = undefined;
      this.last = { texts: [], indexed: [] };
      this.lastRead = -2;
      return scores;
    }
    // What the core is asked comes first: a failed call leaves the memo as it was.
    const last = this.last;
    const n = texts.length;
    const sameQuery = query === this.query;
    const terms = sameQuery ? this.queryTerms : bm25QueryTerms(query);
    if (this.calls === 0) {
      // The first call (a fresh or restored session): the texts are read for this query alone, as
      // fitMessages reads them, and nothing is indexed. A serverless function that restores a
      // session for one turn pays no more than fitMessages; a later call indexes the texts it
      // needs: its new ones while the query stays, all of them at the first new query.
      const packed = bm25Stats(texts, query);
      this.calls++;
      return this.weighed(query, terms, { stats: packed, starts: startsOf(packed, n) }, texts, new Array<IndexedText | undefined>(n), history, k1, b);
    }
    // A text where the last call had it is that call's (a session's unchanged history; `undefined`
    // if that call did not index it); any other is looked up (comparing the whole text).
    const known = history !== undefined && history.read === this.lastRead + 1 ? Math.min(history.same, n, last.texts.length) : 0;
    const indexed = last.indexed.slice(0, known);
    for (let i = known; i < n; i++) {
      const text = texts[i]!;
      indexed.push((i < last.texts.length && text === last.texts[i] ? last.indexed[i] : undefined) ?? this.texts.get(text));
    }
    // The same query as the last call's: a text the last call had at the same position has the
    // same stats (they are the text's alone), so the leading ones are copied and only the texts
    // after them are read, from what the index keeps of each (a session's turn between two user
    // messages: its new steps, not the history). Most of the texts kept, else the postings of
    // the query's words are the shorter way, and every text must be indexed.
    const reuse = sameQuery ? this.kept : undefined;
    let p = 0;
    if (reuse !== undefined) {
      const lim = Math.min(n, last.texts.length);
      p = known;
      while (p < lim && texts[p] === last.texts[p]) p++;
    }
    const after = reuse !== undefined && 2 * p >= n;
    const from = after ? p : 0;
    const unseenSet = new Set<string>();
    for (let i = from; i < n; i++) if (indexed[i] === undefined) unseenSet.add(texts[i]!);
    const unseen = [...unseenSet];
    const read = unseen.length > 0 ? bm25DocTerms(unseen) : undefined;
    if (read !== undefined) {
      // The batch's word numbers as the vocabulary's, each looked up once.
      const ids = read.vocabulary.map((word) => this.idOf(word));
      for (let k = 0; k < unseen.length; k++) this.add(unseen[k]!, read.docs[k]!, ids);
    }
    const call = ++this.calls;
    for (let i = from; i < n; i++) indexed[i] ??= this.texts.get(texts[i]!)!;
    const stats = after ? this.statsAfter(reuse, p, indexed, terms, call) : this.statsOf(texts, indexed, terms, call);
    this.dropStale(call, indexed);
    return this.weighed(query, terms, stats, texts, indexed, history, k1, b);
  }

  /** Remembers this call for the next (its query, the stats it built, its texts and what is indexed of each) and weighs the stats. */
  private weighed(query: string, terms: readonly string[], stats: KeptStats, texts: readonly string[], indexed: readonly (IndexedText | undefined)[], history: HistoryRead | undefined, k1: number, b: number): Float64Array {
    this.query = query;
    this.queryTerms = terms;
    this.kept = stats;
    this.last = { texts, indexed };
    this.lastRead = history?.read ?? -2;
    return bm25FromStats(stats.stats, terms.length, k1, b);
  }

  /** The stats of every text of `texts` from the postings of the query's words. */
  private statsOf(texts: readonly string[], indexed: (IndexedText | undefined)[], terms: readonly string[], call: number): KeptStats {
    const n = texts.length;
    // Per serial, its first position in this call; per position, the next one with the same text.
    const first = new Int32Array(this.nextSerial);
    const nextSame = new Int32Array(n).fill(-1);
    for (let i = n - 1; i >= 0; i--) {
      const t = indexed[i]!;
      if (this.seen[t.serial] === call) nextSame[i] = first[t.serial]!;
      this.seen[t.serial] = call;
      first[t.serial] = i;
    }
    // The query's words, term number ascending, each with the texts of this call holding it:
    // counted per position first, then written in place (no array per text).
    const lists: number[][] = [];
    const ranks: number[] = [];
    terms.forEach((term, rank) => {
      const id = this.vocabulary.get(term);
      if (id === undefined) return;
      lists.push(this.postings[id]!);
      ranks.push(rank);
    });
    const matched = new Uint32Array(n);
    for (const list of lists) {
      for (let p = 0; p < list.length; p += 2) {
        const serial = list[p]!;
        if (this.seen[serial] !== call) continue;
        for (let i = first[serial]!; i >= 0; i = nextSame[i]!) matched[i]!++;
      }
    }
    const at = new Uint32Array(n);
    let length = 0;
    for (let i = 0; i < n; i++) {
      at[i] = length;
      length += 2 + 2 * matched[i]!;
    }
    const stats = new Uint32Array(length);
    for (let i = 0; i < n; i++) {
      // A query without terms reads no text (the core's stats then have length 0).
      stats[at[i]!] = terms.length === 0 ? 0 : indexed[i]!.words;
      stats[at[i]! + 1] = matched[i]!;
      at[i]! += 2;
    }
    for (let k = 0; k < lists.length; k++) {
      const list = lists[k]!;
      const rank = ranks[k]!;
      for (let p = 0; p < list.length; p += 2) {
        const serial = list[p]!;
        if (this.seen[serial] !== call) continue;
        for (let i = first[serial]!; i >= 0; i = nextSame[i]!) {
          stats[at[i]!] = rank;
          stats[at[i]! + 1] = list[p + 1]!;
          at[i]! += 2;
        }
      }
    }
    return { stats, starts: startsOf(stats, n) };
  }

  /**
   * The stats of `reuse` (the last call's) for its first `p` texts, then those of the texts from
   * `p` on, from each one's distinct words: the same numbers, in the same order, as
   * {@link statsOf} gives them.
   */
  private statsAfter(reuse: KeptStats, p: number, indexed: readonly (IndexedText | undefined)[], terms: readonly string[], call: number): KeptStats {
    const n = indexed.length;
    for (let i = p; i < n; i++) this.seen[indexed[i]!.serial] = call; // those before p: by dropStale, when it reads them
    const rankOf = this.rankOfIds(terms);
    const tail: number[] = [];
    const pairs: number[] = [];
    for (let i = p; i < n; i++) {
      const t = indexed[i]!;
      pairs.length = 0;
      for (let k = 0; k < t.ids.length; k++) {
        const r = rankOf.get(t.ids[k]!);
        if (r !== undefined) pairs.push(r, t.counts[k]!);
      }
      tail.push(terms.length === 0 ? 0 : t.words, pairs.length / 2);
      // Ascending term number, as the postings give them (a text's words are distinct).
      const order = Array.from({ length: pairs.length / 2 }, (_, m) => m).sort((a, b) => pairs[2 * a]! - pairs[2 * b]!);
      for (const m of order) tail.push(pairs[2 * m]!, pairs[2 * m + 1]!);
    }
    const head = reuse.starts[p]!;
    // In place after the kept head when the last call's arrays have room (they are the memo's
    // alone, and that call's tail is not read again), else in new ones with room to grow: an
    // append copies nothing of the history.
    const stats = grown(reuse.stats, head, head + tail.length);
    stats.set(tail, head);
    const starts = grown(reuse.starts, p + 1, n + 1);
    for (let i = p, at = head; i < n; i++) {
      starts[i] = at;
      at += 2 + 2 * stats[at + 1]!;
      starts[i + 1] = at;
    }
    return { stats, starts };
  }

  /** The query's words by vocabulary number: their term numbers (for the query last asked). */
  private rankOfIds(terms: readonly string[]): Map<number, number> {
    if (this.ranks?.terms === terms) return this.ranks.of;
    const of = new Map<number, number>();
    terms.forEach((term, rank) => {
      const id = this.vocabulary.get(term);
      if (id !== undefined) of.set(id, rank);
    });
    this.ranks = { terms, of };
    return of;
  }

  /** The vocabulary number of `word`, given one if it has none. */
  private idOf(word: string): number {
    let id = this.vocabulary.get(word);
    if (id === undefined) {
      id = this.postings.length;
      this.vocabulary.set(word, id);
      this.postings.push([]);
      this.ranks = undefined; // a query word may have just got its number
    }
    return id;
  }

  /** Indexes `text` from what the core read of it (`read`, its terms numbered in its batch; `batchIds`: those numbers as the vocabulary's). */
  private add(text: string, read: DocTerms, batchIds: readonly number[]): void {
    const serial = this.nextSerial++;
    const ids = read.terms; // rewritten in place: the batch's numbers become the vocabulary's
    for (let k = 0; k < ids.length; k++) {
      const id = batchIds[ids[k]!]!;
      ids[k] = id;
      this.postings[id]!.push(serial, read.counts[k]!);
    }
    this.texts.set(text, { serial, words: read.words, ids, counts: read.counts });
  }

  /**
   * Once the texts of neither this call nor the last outnumber the live ones (and 1,024), forgets
   * them and rebuilds the postings. A text statsAfter copied is marked live here, not there (a
   * text of the last call it copied may then be forgotten a call early, and read again if it
   * comes back).
   */
  private dropStale(call: number, live: readonly (IndexedText | undefined)[]): void {
    if (this.texts.size <= 2 * live.length + 1024) return;
    for (const t of live) if (t !== undefined) this.seen[t.serial] = call;
    const kept = new Map<string, IndexedText>();
    for (const [text, t] of this.texts) if (this.seen[t.serial]! >= call - 1) kept.set(text, t);
    this.postings = this.postings.map(() => []);
    for (const t of kept.values()) t.ids.forEach((id, k) => this.postings[id]!.push(t.serial, t.counts[k]!));
    this.texts = kept;
  }
}
