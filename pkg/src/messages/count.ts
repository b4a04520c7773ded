/**
 * Step 3 of fitMessages, counting (sessions share it): every text through the count cache, each
 * message's non-text parts by its provider's rule (media.ts), tool results truncated where they
 * are too large (truncate.ts), and what must be kept checked against the budget. With an async
 * counter, `prefillFit` counts the same texts first, so that `countFit` finds them all cached.
 *
 * @internal
 * @module
 */

import { CtxpackError } from '../errors.js';
import { CountCache, countThrough, prefillAsync } from '../tokens/cache.js';
import { addCounts, countMediaPart, mediaWarnings, type MediaPart, type MediaTally } from './media.js';
import { truncations, type ReplaceableMedia, type Truncation } from './truncate.js';
import { framingCosts, framingTexts, type FramingTexts } from './framing.js';
import { readTurn } from './turns.js';
import type { CountedFit, PreparedFit } from './pipeline.js';
import { emptyBudgetReason, type CheckedBudgets } from '../validate/budgets.js';

/** The counting call, with or without `options.model`. */
function countWith(prep: PreparedFit<unknown>): (text: string) => unknown {
  const { counter, model } = prep;
  return model === undefined ? (text) => counter(text) : (text) => counter(text, model);
}

/**
 * The texts of a prepared fit in the one list the count cache takes (each message's, the system
 * prompt's, the tools', each stub's, then the names framing counts), with where each is for error
 * messages (`messages[i]`, `options.system`, `options.tools`, `messages[i] (its stub)`, `a
 * message's name`) and where the fixed ones are.
 */
interface TextList {
  readonly all: readonly string[];
  readonly where: (i: number) => string;
  /** Indexes in `all` of the system prompt's and the tools' text, -1 without. */
  readonly system: number;
  readonly tools: number;
  readonly firstStub: number;
  /** The names framing counts, from `all[firstFraming]` on. */
  readonly framing: FramingTexts;
  readonly firstFraming: number;
}
const listMemo = new WeakMap<PreparedFit<unknown>, TextList>();

function textList(prep: PreparedFit<unknown>): TextList {
  let memo = listMemo.get(prep);
  if (memo !== undefined) return memo;
  const t = prep.texts;
  const all = [...t.messages];
  const system = t.system === undefined ? -1 : all.push(t.system) - 1;
  const tools = t.tools === undefined ? -1 : all.push(t.tools) - 1;
  const firstStub = all.length;
  all.push(...t.stubs);
  const firstFraming = all.length;
  const framing = framingTexts(prep.turns);
  if (prep.framing !== undefined) all.push(...framing.texts);
  const n = t.messages.length;
  const where = (i: number): string =>
    i < n
      ? `messages[${i}]`
      : i === system
        ? 'options.system'
        : i === tools
          ? 'options.tools'
          : i >= firstFraming
            ? "a message's name (its framing)"
            : `messages[${prep.stubOf.indexOf(i - firstStub)}] (its stub)`;
  memo = { all, where, system, tools, firstStub, framing, firstFraming };
  listMemo.set(prep, memo);
  return memo;
}


/** The counts of the messages' non-text parts, once per prepared fit (countFit and prefillFit both read them). */
interface MediaCounts {
  readonly costs: Uint32Array;
  readonly keys: readonly string[];
  readonly warnings: readonly string[];
}
const mediaMemo = new WeakMap<PreparedFit<unknown>, MediaCounts>();

const NO_PARTS: { readonly tokens: number; readonly key: string } = Object.freeze({ tokens: 0, key: '' });

/** Tokens and descriptors of `parts`, message `i`'s (a truncated copy's or a stub's without a tally). */
function countParts(prep: PreparedFit<unknown>, parts: readonly MediaPart[] | undefined, i: number, tally?: MediaTally): { tokens: number; key: string } {
  if (parts === undefined) return NO_PARTS;
  let tokens = 0;
  const keys: string[] = [];
  parts.forEach((part, k) => {
    const c = countMediaPart(part, prep.mediaRules, i, k, tally);
    tokens = addCounts(tokens, c.tokens);
    keys.push(c.key);
  });
  return { tokens, key: keys.join('\u0003') };
}

function mediaCounts(prep: PreparedFit<unknown>): MediaCounts {
  let memo = mediaMemo.get(prep);
  if (memo !== undefined) return memo;
  const n = prep.list.length;
  const costs = new Uint32Array(n);
  const keys = new Array<string>(n);
  const tally: MediaTally = { unknownImages: 0, unknownPdfs: 0, uncounted: 0 };
  for (let i = 0; i < n; i++) {
    const c = countParts(prep, prep.turns[i]!.media, i, tally);
    costs[i] = c.tokens;
    keys[i] = c.key;
  }
  memo = { costs, keys, warnings: mediaWarnings(tally) };
  mediaMemo.set(prep, memo);
  return memo;
}

/**
 * What is charged besides the messages' own texts, from all the texts' counts: the system prompt
 * (without its overhead), the tools, each message's framing and the request's (framing.ts).
 */
function fixedCost(prep: PreparedFit<unknown>, all: Uint32Array): { system: number; tools: number; framing: Uint32Array; requestFraming: number; systemFraming: number } {
  const l = textList(prep);
  const f = framingCosts(prep.framing, l.framing, all.subarray(l.firstFraming), prep.texts.system !== undefined);
  return { system: l.system >= 0 ? all[l.system]! : 0, tools: l.tools >= 0 ? all[l.tools]! : 0, framing: f.messages, requestFraming: f.request, systemFraming: f.system };
}

/**
 * Fills `cache` from an async counter (fitMessagesAsync, session.fitAsync): every text, then the
 * truncated tool results' (the same steps countFit runs, each round's texts counted here), so
 * that countFit then finds every count in the cache. @internal
 */
export async function prefillFit(prep: PreparedFit<unknown>, cache: CountCache, concurrency: number): Promise<void> {
  const count = countWith(prep);
  const l = textList(prep);
  await prefillAsync(l.all, cache, count, l.where, concurrency, l.all.length, prep.history?.known);
  if (prep.truncateAt === undefined && !prep.truncateUser) return;
  const all = countThrough(l.all, cache, count, l.where, l.all.length, false).costs;
  const steps = truncations(truncationInput(prep, all));
  const costs = all.subarray(0, prep.list.length);
  let atLeast = l.all.length;
  for (let step = steps.next(costs); !step.done; ) {
    const texts = step.value;
    atLeast += texts.length;
    await prefillAsync(texts, cache, count, TRUNCATED_WHERE, concurrency, atLeast);
    step = steps.next(countThrough(texts, cache, count, TRUNCATED_WHERE, atLeast, false).costs);
  }
}

/** Step 3's count: every text through `cache` (counted once each), tool results truncated, then what must be kept, or `PINNED_OVER_BUDGET`. @internal */
export function countFit<M>(prep: PreparedFit<M>, cache: CountCache): CountedFit<M> {
  const n = prep.list.length;
  const count = countWith(prep);
  const l = textList(prep);
  const { costs: all, keys } = countThrough(l.all, cache, count, l.where, l.all.length, false, prep.history?.known);
  prep.history?.memo.remember(prep.list, all.subarray(0, n), keys);
  const costs = all.slice(0, n);
  const messageKeys = keys.slice(0, n);
  const { system: systemCost, tools: toolsCost, framing, requestFraming, systemFraming } = fixedCost(prep, all);
  const stubCosts = all.slice(l.firstStub, l.firstFraming);
  const media = mediaCounts(prep);
  const mediaCosts = media.costs.slice();
  const mediaKeys = media.keys.slice();
  let truncated = new Map<number, Truncation<M>>();
  if (prep.truncateAt !== undefined || prep.truncateUser) {
    const steps = truncations(truncationInput(prep, all));
    let atLeast = l.all.length;
    let step = steps.next(costs);
    for (; !step.done; ) {
      atLeast += step.value.length;
      step = steps.next(countThrough(step.value, cache, count, TRUNCATED_WHERE, atLeast, false).costs);
    }
    truncated = step.value;
    for (const [i, t] of truncated) {
      costs[i] = t.tokens;
      messageKeys[i] = cache.keyOf(t.text);
      // What of its non-text parts the copy still carries (those outside its tool results).
      const c = countParts(prep, readTurn(prep.adapter, t.message, i).media, i);
      mediaCosts[i] = c.tokens;
      mediaKeys[i] = c.key;
    }
  }
  cache.endCall();
  for (let i = 0; i < n; i++) costs[i] = addCounts(addCounts(costs[i]!, mediaCosts[i]!), framing[i]!);
  // A truncation's counts as the decision reports them: with the non-text parts and the framing, before and after.
  for (const [i, t] of truncated) truncated.set(i, { ...t, from: addCounts(addCounts(t.from, media.costs[i]!), framing[i]!), tokens: costs[i]! });
  // Stubs are made in message order: stub k is that of the k-th message with one.
  for (let i = 0, k = 0; i < n && k < stubCosts.length; i++) {
    if (prep.stubOf[i] !== k) continue;
    stubCosts[k] = addCounts(addCounts(stubCosts[k]!, countParts(prep, prep.stubMedia[k], i).tokens), framing[i]!);
    k++;
  }
  const overhead = prep.budget.perFragmentOverhead;
  let pinnedTokens = (l.system >= 0 ? systemCost + overhead : 0) + toolsCost + requestFraming;
  for (let i = 0; i < n; i++) if (prep.pinned[i] === 1) pinnedTokens += costs[i]! + overhead;
  if (pinnedTokens > prep.budget.effective) {
    throw new CtxpackError(
      'PINNED_OVER_BUDGET',
      `what must be kept (system prompt, tools, the latest user message, the last step, options.keep) takes ${pinnedTokens} tokens` +
        `${truncatedWhat(prep, truncated)}, ` +
        `${pinnedTokens - prep.budget.effective} more than the effective budget ${prep.budget.effective}` +
        emptyWhy(prep.budget) +
        largestPinned(prep, costs, mediaCosts, truncated, systemCost, toolsCost),
      { field: 'budgets' },
    );
  }
  const replaced = mediaReplacedWarnings(truncated);
  const warnings = media.warnings.length > 0 || replaced.length > 0 ? [...prep.warnings, ...media.warnings, ...replaced] : prep.warnings;
  const textKeys = { messages: messageKeys, system: l.system >= 0 ? keys[l.system] : undefined, tools: l.tools >= 0 ? keys[l.tools] : undefined };
  return { ...prep, warnings, costs, truncated, stubCosts, systemCost, toolsCost, requestFraming, systemFraming, mediaCosts, mediaKeys, pinnedTokens, textKeys };
}

/**
 * What the truncation steps read of a prepared fit with its texts' counts (`all`: as textList's).
 * Results are cut by their text; the non-text parts of pinned messages are part of what is fixed.
 */
function truncationInput<M>(prep: PreparedFit<M>, all: Uint32Array) {
  const n = prep.list.length;
  const fixed = fixedCost(prep, all);
  const media = mediaCounts(prep);
  // What pinned messages take besides their text (non-text parts, framing) is fixed too.
  let pinnedExtra = 0;
  for (let i = 0; i < n; i++) if (prep.pinned[i] === 1) pinnedExtra += media.costs[i]! + fixed.framing[i]!;
  return {
    list: prep.list,
    adapter: prep.adapter,
    turns: prep.turns,
    pinned: prep.pinned,
    broken: prep.broken,
    costs: all.subarray(0, n),
    fixedTokens: (prep.texts.system !== undefined ? fixed.system + prep.budget.perFragmentOverhead : 0) + fixed.tools + fixed.requestFraming + pinnedExtra,
    overhead: prep.budget.perFragmentOverhead,
    effective: prep.budget.effective,
    maxTokens: prep.truncateAt,
    userMessages: prep.truncateUser,
    media: prep.truncateMedia,
    mediaOf: (i: number) => replaceableMedia(prep, i),
    read: (m: unknown, i: number) => readTurn(prep.adapter, m, i),
  };
}

/**
 * The media parts of message `i` that a note can stand for, each with its count: those its
 * adapter's `replaceMedia` replaces (not a server tool's result, not a Responses computer call's
 * screenshot, never an opaque part).
 */
function replaceableMedia(prep: PreparedFit<unknown>, i: number): readonly ReplaceableMedia[] {
  const media = prep.turns[i]!.media;
  if (media === undefined || media.length === 0) return [];
  const all = prep.adapter.replaceMedia(prep.list[i]);
  if (all === undefined) return [];
  const left = new Set((readTurn(prep.adapter, all, i).media ?? []).map((m) => m.part));
  const out: ReplaceableMedia[] = [];
  media.forEach((m, k) => {
    if (m.kind !== 'opaque' && !left.has(m.part)) out.push({ part: m, tokens: countMediaPart(m, prep.mediaRules, i, k, undefined).tokens });
  });
  return out;
}

/** The warning per message whose media went in as notes (kinds and counts, never content). */
function mediaReplacedWarnings(truncated: ReadonlyMap<number, Truncation<unknown>>): string[] {
  const out: string[] = [];
  for (const i of [...truncated.keys()].sort((a, b) => a - b)) {
    const parts = truncated.get(i)!.media;
    if (parts === undefined || parts.length === 0) continue;
    out.push(
      `media_replaced: messages[${i}] went in with ${mediaList(parts)} of its tool results replaced by ${parts.length === 1 ? 'a note' : 'notes'} (the largest first): ` +
        `what must be kept (the step in flight) did not fit the effective budget with ${parts.length === 1 ? 'it' : 'them'}, even with the text cut; truncateToolResults: { media: false } keeps media and fails instead`,
    );
  }
  return out;
}

/** Parts by kind, as a warning names them: `its PDF (45 pages)`, `2 images and a file`. */
function mediaList(parts: readonly MediaPart[]): string {
  const names: Record<MediaPart['kind'], [string, string]> = { image: ['image', 'images'], pdf: ['PDF', 'PDFs'], audio: ['audio part', 'audio parts'], file: ['file', 'files'], opaque: ['part', 'parts'] };
  const byKind = new Map<MediaPart['kind'], number>();
  for (const p of parts) byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + 1);
  const items = [...byKind].map(([kind, k]) => (k === 1 ? `1 ${names[kind][0]}` : `${k} ${names[kind][1]}`));
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/** Where a truncated text is, for counting errors. */
const TRUNCATED_WHERE = (): string => 'a truncated tool result or user message';

/** Why the effective budget is 0, when it is and tokens_max is not: the budgets leave nothing. */
function emptyWhy(budget: CheckedBudgets): string {
  const why = emptyBudgetReason(budget);
  return why === undefined ? '' : ` (${why} leave nothing to fill)`;
}

/** What PINNED_OVER_BUDGET's message says was cut already: only what was (results, user messages, media as notes). */
function truncatedWhat(prep: PreparedFit<unknown>, truncated: ReadonlyMap<number, Truncation<unknown>>): string {
  let results = 0;
  let users = 0;
  const media: MediaPart[] = [];
  for (const [i, t] of truncated) {
    if (prep.pinned[i] !== 1) continue;
    if (t.textCut && prep.turns[i]!.results.length > 0) results++;
    else if (t.textCut) users++;
    media.push(...(t.media ?? []));
  }
  const done: string[] = [];
  if (results > 0) done.push(`${results} tool result message(s) truncated`);
  if (users > 0) done.push(`${users} user message(s) truncated`);
  if (media.length > 0) done.push(`${mediaList(media)} of its tool results as ${media.length === 1 ? 'a note' : 'notes'}`);
  return done.length === 0 ? '' : ` with ${done.join(' and ')}`;
}

/**
 * Where the most of what must be kept is, for PINNED_OVER_BUDGET's message: `options.system`,
 * `options.tools` or `messages[i]` with its count, its media's share, and the option that would
 * cut it when one would. Names indexes and options, never content.
 */
function largestPinned(
  prep: PreparedFit<unknown>,
  costs: Uint32Array,
  mediaCosts: Uint32Array,
  truncated: ReadonlyMap<number, Truncation<unknown>>,
  systemCost: number,
  toolsCost: number,
): string {
  let where = -1;
  for (let i = 0; i < costs.length; i++) if (prep.pinned[i] === 1 && (where < 0 || costs[i]! > costs[where]!)) where = i;
  const top = where < 0 ? 0 : costs[where]!;
  if (prep.texts.system !== undefined && systemCost >= top && systemCost >= toolsCost) return `; the most is options.system, ${systemCost} tokens, which is never cut`;
  if (prep.texts.tools !== undefined && toolsCost >= top) return `; the most is options.tools, ${toolsCost} tokens, which are never cut`;
  if (where < 0) return '';
  const turn = prep.turns[where]!;
  const media = mediaCosts[where]!;
  const ofMedia = media > 0 ? ` (${media} of them its images, PDFs or files)` : '';
  let why = '';
  if (turn.results.length > 0) {
    if (prep.truncateAt === undefined) why = ': truncateToolResults is false';
    else if (media > 0 && !prep.truncateMedia) why = ': truncateToolResults.media is false';
    else if (truncated.has(where)) why = ', its tool results cut as far as they go';
  } else if (turn.role === 'user' && turn.prose) {
    if (!prep.truncateUser) why = ': a user message is cut only with truncateUserMessage: true';
    else if (media > 0) why = ', its text cut as far as it goes (a user message\'s own images and files are kept)';
  }
  return `; the most is messages[${where}], ${top} tokens${ofMedia}${why}`;
}
