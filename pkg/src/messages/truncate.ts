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
 * results: their text parts are cut the same way. When what must be kept does not fit even with
 * those texts cut to their markers (a 45-page PDF in the step in flight), the second step first
 * replaces the media of its tool results (PDFs, images, files) with their notes (media-notes.ts
 * `mediaNote`, as `stubMedia` writes them), the largest first, until it would; the texts then
 * share the room that is left (`truncateToolResults: { media: false }` keeps the media).
 *
 * Counts are not proportional to characters, so each cut is counted and cut again when over its
 * target (a few rounds; then only the markers are left). The steps are a generator that yields
 * the texts it needs counted and is sent their counts: the same steps run with a synchronous
 * counter, and after an async prefill of the same texts, without calling the counter again.
 *
 * @internal
 * @module
 */

import type { MediaPart } from './media.js';
import { mediaNote } from './media-notes.js';
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
  /** Whether its text was cut (a message may go in with only its media as notes). */
  readonly textCut: boolean;
  /** The media parts that went in as their notes (the second step, when cutting text was not enough). */
  readonly media?: readonly MediaPart[];
}

/** A non-text part a note can stand for, with its count. */
export interface ReplaceableMedia {
  readonly part: MediaPart;
  readonly tokens: number;
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
  /** `truncateToolResults.media` (default true): the media of pinned tool results may go in as notes in the second step. */
  readonly media: boolean;
  /** The media parts of message `i` that a note can stand for (not a server tool's, not a computer call's screenshot), each with its count. */
  mediaOf(i: number): readonly ReplaceableMedia[];
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
  if (total <= t.effective || results.length === 0) return out;
  // Media that leave no room even for the texts cut to their markers go in as notes first.
  const notes = t.media && t.maxTokens !== undefined ? yield* mediaToReplace(t, results, tokensOf, other) : undefined;
  if (notes !== undefined) other -= notes.freed;
  const size = (i: number): number => tokensOf(i) + (notes?.noteTokens.get(i) ?? 0);
  total = other;
  for (const i of results) total += size(i);
  const second = new Map<number, number>();
  if (total > t.effective && other < t.effective) {
    const level = waterLevel(results.map(size), t.effective - other);
    for (const i of results) if (size(i) > level) second.set(i, level);
  }
  // A result whose media go in as notes and whose text needs no further cut: its first cut (or itself), the notes in place of the media.
  if (notes !== undefined) {
    const copies: { i: number; message: M; text: string }[] = [];
    for (const [i, parts] of notes.parts) {
      if (second.has(i)) continue;
      const message = t.adapter.replaceMedia(out.get(i)?.message ?? t.list[i], new Set(parts.map((p) => p.part))) as M | undefined;
      if (message !== undefined) copies.push({ i, message, text: t.read(message, i).text });
    }
    if (copies.length > 0) {
      const counts = yield copies.map((c) => c.text);
      copies.forEach((c, k) => out.set(c.i, { message: c.message, text: c.text, tokens: counts[k]!, from: t.costs[c.i]!, textCut: out.has(c.i), media: notes.parts.get(c.i)! }));
    }
  }
  for (const [i, cut] of yield* cutTo(t, second, notes?.parts)) out.set(i, cut);
  return out;
}

/** The media of the pinned results that go in as notes, by message; what they took; what their notes take, by message. */
interface MediaNotes {
  readonly parts: ReadonlyMap<number, readonly MediaPart[]>;
  readonly freed: number;
  readonly noteTokens: ReadonlyMap<number, number>;
}

/**
 * Which media of the pinned tool results (`results`, those among them with tool results) go in as
 * their notes: none when what must be kept fits with every text cut to its markers alone (the
 * least a cut leaves), else the largest parts (ties: in message order) until it would. `other`:
 * what must be kept besides the texts of `results`, their media included.
 */
function* mediaToReplace<M>(
  t: TruncationInput<M>,
  results: readonly number[],
  tokensOf: (i: number) => number,
  other: number,
): Generator<string[], MediaNotes | undefined, Uint32Array> {
  const candidates: { i: number; k: number; media: ReplaceableMedia }[] = [];
  for (const i of results) if (t.turns[i]!.results.length > 0) t.mediaOf(i).forEach((media, k) => candidates.push({ i, k, media }));
  if (candidates.length === 0) return undefined;
  const floors: { i: number; text: string }[] = [];
  for (const i of results) {
    const message = cutMessage(t, i, (text) => headTail(text, 0));
    if (message !== undefined) floors.push({ i, text: t.read(message, i).text });
  }
  const noteTexts = candidates.map((c) => mediaNote(c.media.part));
  const counts = yield [...floors.map((f) => f.text), ...noteTexts];
  let over = other - t.effective;
  for (const i of results) {
    const f = floors.findIndex((x) => x.i === i);
    over += f < 0 ? tokensOf(i) : Math.min(tokensOf(i), counts[f]!);
  }
  if (over <= 0) return undefined;
  const order = candidates.map((c, j) => ({ ...c, note: counts[floors.length + j]! }));
  order.sort((a, b) => b.media.tokens - a.media.tokens || a.i - b.i || a.k - b.k);
  const parts = new Map<number, MediaPart[]>();
  const noteTokens = new Map<number, number>();
  let freed = 0;
  for (const c of order) {
    if (over <= 0) break;
    if (c.media.tokens <= c.note) continue; // its note would take as much
    over -= c.media.tokens - c.note;
    freed += c.media.tokens;
    let list = parts.get(c.i);
    if (list === undefined) parts.set(c.i, (list = []));
    list.push(c.media.part);
    noteTokens.set(c.i, (noteTokens.get(c.i) ?? 0) + c.note);
  }
  return parts.size === 0 ? undefined : { parts, freed, noteTokens };
}

/** Message `i` with its tool results' text (a user message someone typed: its text) as `cut` of it, its media kept; `undefined` when it cannot be copied. */
function cutMessage<M>(t: TruncationInput<M>, i: number, cut: (text: string) => string): M | undefined {
  const results = t.turns[i]!.results.length > 0 && t.maxTokens !== undefined;
  return (results ? t.adapter.replaceResults(t.list[i], cut, true) : t.adapter.replaceText(t.list[i], cut)) as M | undefined;
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

/**
 * Cuts each message of `targets` (index → tokens) to its target: rounds of cutting, counting
 * (yield) and cutting again. The media of `notes` (by message) go in as their notes in the cut.
 */
function* cutTo<M>(
  t: TruncationInput<M>,
  targets: ReadonlyMap<number, number>,
  notes?: ReadonlyMap<number, readonly MediaPart[]>,
): Generator<string[], Map<number, Truncation<M>>, Uint32Array> {
  const done = new Map<number, Truncation<M>>();
  // Per message: the share of each result's characters kept.
  let open = [...targets.keys()].map((i) => ({ i, target: targets.get(i)!, share: Math.min(1, (targets.get(i)! / t.costs[i]!) * MARGIN) }));
  for (let round = 0; round < ROUNDS && open.length > 0; round++) {
    if (round === ROUNDS - 1) for (const o of open) o.share = 0;
    const cuts: { i: number; message: M; text: string }[] = [];
    for (const o of open) {
      const cut = cutMessage(t, o.i, (s: string): string => headTail(s, Math.floor(s.length * o.share)));
      if (cut === undefined) continue; // cannot be copied: sent whole, or not at all
      const parts = notes?.get(o.i);
      const message = parts === undefined ? cut : ((t.adapter.replaceMedia(cut, new Set(parts.map((p) => p.part))) as M | undefined) ?? cut);
      cuts.push({ i: o.i, message, text: t.read(message, o.i).text });
    }
    const counts = yield cuts.map((c) => c.text);
    const next: typeof open = [];
    cuts.forEach((c, k) => {
      const o = open.find((x) => x.i === c.i)!;
      const tokens = counts[k]!;
      if (tokens <= o.target || round === ROUNDS - 1) {
        const parts = notes?.get(c.i);
        if (tokens < t.costs[c.i]! || parts !== undefined) done.set(c.i, { message: c.message, text: c.text, tokens, from: t.costs[c.i]!, textCut: true, ...(parts === undefined ? {} : { media: parts }) });
      }
      else next.push({ ...o, share: o.share * (o.target / tokens) * MARGIN });
    });
    open = next;
  }
  return done;
}
