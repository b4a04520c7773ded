/**
 * Tool results too large for the budget, truncated instead of failing the request (options
 * `truncateToolResults`): the head and the tail of each result's text with a marker saying how
 * many characters were left out between them, the call ids kept so that the pair stays valid, and
 * its images, PDFs and files kept (they are counted as fixed: cutting text does not shrink them).
 *
 * Two steps. Every tool result over `maxTokens` (default half the effective budget) is cut to it,
 * kept by rule or not: the same result, budget and counter give the same bytes on every turn, so
 * a prompt cache that holds it holds on. Then, if what must be kept (system prompt, the task, the
 * step in flight, `keep`) still exceeds the budget, the largest results among it are cut further,
 * to one common size that makes it fit (largest first: "water-filling"). With `truncateUserMessage`,
 * the pinned user messages someone typed (the task, a pasted log) share that second step with the
 * results: their text parts are cut the same way.
 *
 * Counts are not proportional to characters, so each cut is counted and cut again when over its
 * target (a few rounds; then only the markers are left). The steps are a generator that yields
 * the texts it needs counted and is sent their counts: the same steps run with a synchronous
 * counter, and after an async prefill of the same texts, without calling the counter again.
 *
 * @internal
 * @module
 */

import type { FormatAdapter, Turn } from './turns.js';

/** The default `maxTokens`: this share of the effective budget. */
export const DEFAULT_TRUNCATE_SHARE = 0.5;
/** Of the characters kept, the share taken from the head (the rest from the tail: a log's error is at its end). */
const HEAD_SHARE = 0.6;
/** Rounds of cutting and counting before a result is cut to its markers alone. */
const ROUNDS = 4;
/** Each cut aims this far under its target. */
const MARGIN = 0.95;

/** The first and last characters of `text`, `keep` of them in all, with a marker between; `text` when it is no longer. */
export function headTail(text: string, keep: number): string {
  if (keep >= text.length) return text;
  let head = Math.ceil(Math.max(0, keep) * HEAD_SHARE);
  let tail = text.length - Math.max(0, keep - head);
  // Never split a surrogate pair.
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tail < text.length && isLowSurrogate(text.charCodeAt(tail))) tail++;
  return `${text.slice(0, head)}\n[… ${tail - head} characters left out …]\n${text.slice(tail)}`;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** A message sent truncated: the new message, its text, its count, and the count of the original. */
export interface Truncation<M> {
  readonly message: M;
  readonly text: string;
  readonly tokens: number;
  readonly from: number;
}

/** What the steps read of a prepared fit. */
export interface TruncationInput<M> {
  readonly list: readonly M[];
  readonly adapter: FormatAdapter;
  readonly turns: readonly Turn[];
  readonly pinned: Uint8Array;
  readonly broken: Uint8Array;
  /** Each message's count (as sent in full). */
  readonly costs: Uint32Array;
  /** The tokens kept by rule besides the messages (the system prompt with its overhead). */
  readonly fixedTokens: number;
  readonly overhead: number;
  readonly effective: number;
  /** Results over this many tokens are cut to it; `undefined`: tool results are not truncated. */
  readonly maxTokens: number | undefined;
  /** `truncateUserMessage`: pinned user messages with typed text are cut in the second step too. */
  readonly userMessages: boolean;
  /** Reads a message as its adapter does. */
  read(message: unknown, index: number): Turn;
}

/** The truncated messages by index, after both steps (see the module documentation). */
export function* truncations<M>(t: TruncationInput<M>): Generator<string[], Map<number, Truncation<M>>, Uint32Array> {
  const out = new Map<number, Truncation<M>>();
  if (t.maxTokens === undefined && !t.userMessages) return out;
  const n = t.list.length;
  const hasResults = (i: number): boolean => t.maxTokens !== undefined && t.turns[i]!.results.length > 0 && t.broken[i] === 0;
  const typed = (i: number): boolean => t.userMessages && t.turns[i]!.role === 'user' && t.turns[i]!.prose && t.broken[i] === 0;
  const cuttable = (i: number): boolean => hasResults(i) || typed(i);
  if (t.maxTokens !== undefined) {
    const first = new Map<number, number>();
    for (let i = 0; i < n; i++) if (hasResults(i) && t.costs[i]! > t.maxTokens) first.set(i, t.maxTokens);
    for (const [i, cut] of yield* cutTo(t, first)) out.set(i, cut);
  }

  // What must be kept, with the first step's cuts; over the budget, its results share what is left.
  const tokensOf = (i: number): number => out.get(i)?.tokens ?? t.costs[i]!;
  let other = t.fixedTokens;
  const results: number[] = [];
  for (let i = 0; i < n; i++) {
    if (t.pinned[i] === 0) continue;
    other += t.overhead;
    if (cuttable(i)) results.push(i);
    else other += tokensOf(i);
  }
  let total = other;
  for (const i of results) total += tokensOf(i);
  if (total <= t.effective || results.length === 0 || other >= t.effective) return out;
  const level = waterLevel(results.map(tokensOf), t.effective - other);
  const second = new Map<number, number>();
  for (const i of results) if (tokensOf(i) > level) second.set(i, level);
  for (const [i, cut] of yield* cutTo(t, second)) out.set(i, cut);
  return out;
}

/** The largest size L such that the sizes, each capped at L, sum to at most `room` (room ≥ 0). */
export function waterLevel(sizes: readonly number[], room: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let below = 0;
  for (let k = 0; k < sorted.length; k++) {
    const left = sorted.length - k;
    const level = Math.floor((room - below) / left);
    if (level < sorted[k]!) return Math.max(0, level);
    below += sorted[k]!;
  }
  return sorted.length === 0 ? room : sorted[sorted.length - 1]!;
}

/** Cuts each message of `targets` (index → tokens) to its target: rounds of cutting, counting (yield) and cutting again. */
function* cutTo<M>(t: TruncationInput<M>, targets: ReadonlyMap<number, number>): Generator<string[], Map<number, Truncation<M>>, Uint32Array> {
  const done = new Map<number, Truncation<M>>();
  // Per message: the share of each result's characters kept.
  let open = [...targets.keys()].map((i) => ({ i, target: targets.get(i)!, share: Math.min(1, (targets.get(i)! / t.costs[i]!) * MARGIN) }));
  for (let round = 0; round < ROUNDS && open.length > 0; round++) {
    if (round === ROUNDS - 1) for (const o of open) o.share = 0;
    const cuts: { i: number; message: M; text: string }[] = [];
    for (const o of open) {
      const cut = (s: string): string => headTail(s, Math.floor(s.length * o.share));
      // A message with tool results has them cut; a user message someone typed (truncateUserMessage), its text.
      const results = t.turns[o.i]!.results.length > 0 && t.maxTokens !== undefined;
      const message = (results ? t.adapter.replaceResults(t.list[o.i], cut, true) : t.adapter.replaceText(t.list[o.i], cut)) as M | undefined;
      if (message === undefined) continue; // cannot be copied: sent whole, or not at all
      cuts.push({ i: o.i, message, text: t.read(message, o.i).text });
    }
    const counts = yield cuts.map((c) => c.text);
    const next: typeof open = [];
    cuts.forEach((c, k) => {
      const o = open.find((x) => x.i === c.i)!;
      const tokens = counts[k]!;
      if (tokens <= o.target || round === ROUNDS - 1) {
        if (tokens < t.costs[c.i]!) done.set(c.i, { message: c.message, text: c.text, tokens, from: t.costs[c.i]! });
      }
      else next.push({ ...o, share: o.share * (o.target / tokens) * MARGIN });
    });
    open = next;
  }
  return done;
}
