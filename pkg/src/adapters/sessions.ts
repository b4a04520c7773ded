/**
 * What the framework adapters share: reading their options (their own keys kept apart, the keys
 * the framework's call supplies refused, `cache`, `onFit` and `maxSessions` checked, every option
 * a fit reads refused at construction), reporting each fit to `onFit`, and a session per
 * conversation, the least recently used forgotten first. Each adapter only translates its
 * framework's call and names its conversations.
 *
 * @internal
 * @module
 */

import { CtxpackError, readingInput, shownName } from '../errors.js';
import { collectText, joinText } from '../messages/turns.js';
import { CREATE_SESSION_OPTIONS, createSession, type Session } from '../session/session.js';
import { readPricing } from '../session/pricing.js';
import type { CachePricing, SessionFitResult, SessionOptions, SessionTurnOptions } from '../session/types.js';
import { textKey } from '../tokens/cache.js';
import { isRecord, type Unchecked } from '../validate/fields.js';
import { readBudgets } from '../validate/budgets.js';
import { invalidOption, optionsRecord, readCount, rejectUnknownOptions } from '../validate/options.js';

/** `onFit` as every adapter takes it. */
export type OnFit = (result: SessionFitResult<any>) => void;

/** What every adapter reads of its options. */
export interface AdapterOptions {
  /** The options passed on to each conversation's session: all but the adapter's own. */
  readonly session: Readonly<Record<string, unknown>>;
  /** `cache` as given (checked); undefined when absent, for the adapter's default. */
  readonly cache: CachePricing | undefined;
  readonly onFit: OnFit | undefined;
  /** Conversations whose sessions are kept at once. Default 64. */
  readonly maxSessions: number;
}

/** How one adapter reads its options. */
export interface AdapterSpec<E> {
  /** The entry, named in errors: `'ctxpack/ai-sdk'`. */
  readonly entry: string;
  /** What supplies the refused keys, named in errors: `"the SDK's call"`. */
  readonly from: string;
  /** Session options the framework's call supplies: refused. */
  readonly given: readonly string[];
  /** The adapter's own keys besides `cache`, `onFit` and `maxSessions`: read by `read`, never passed to a session. */
  readonly own: readonly string[];
  /** Reads (and checks) the adapter's own keys. */
  readonly read?: (o: Unchecked) => E;
  /** The session options of the check fit beside `session` (the format, the adapter's own): every option a fit reads is refused at construction. */
  readonly check: (read: AdapterOptions & E) => { format: SessionOptions['format'] } & Record<string, unknown>;
}

const COMMON = ['cache', 'onFit', 'maxSessions'];
/** A session's saved state: an adapter keeps its sessions in memory and saves none (yet). */
const STATE = ['state', 'stateKey'];

/** Reads an adapter's options once, when the adapter is made: a `CtxpackError` (`INVALID_OPTION`, `INVALID_BUDGET`) for a bad one. */
export function readAdapterOptions<E extends object = Record<never, never>>(options: unknown, spec: AdapterSpec<E>): AdapterOptions & E {
  return readingInput(() => {
    const o = optionsRecord(options);
    const session: Record<string, unknown> = {};
    for (const key of Object.keys(o)) {
      if (spec.given.includes(key)) throw invalidOption(shownName(key), `absent (${spec.entry} takes it from ${spec.from})`, o[key]);
      if (STATE.includes(key)) {
        throw invalidOption(key, `absent (${spec.entry} keeps one session per conversation in memory, at most maxSessions, and saves no state: to save one, use createSession and exportState)`, o[key]);
      }
    }
    // The adapter's own names among the known ones; those its framework gives, and the state, left out.
    const known = CREATE_SESSION_OPTIONS.filter((k) => !spec.given.includes(k) && !STATE.includes(k));
    rejectUnknownOptions(o, [...new Set([...known, ...COMMON, ...spec.own])], spec.entry);
    for (const key of Object.keys(o)) if (!COMMON.includes(key) && !spec.own.includes(key)) session[key] = o[key];
    if (o['cache'] !== undefined) readPricing(o['cache']); // refused now, not at the first call
    const onFit = o['onFit'];
    if (onFit !== undefined && typeof onFit !== 'function') throw invalidOption('onFit', 'a function', onFit);
    if (o['budgets'] === undefined) readBudgets(undefined); // INVALID_BUDGET, as fitMessages and createSession say it
    const common: AdapterOptions = {
      session,
      cache: o['cache'] as CachePricing | undefined,
      onFit: onFit as OnFit | undefined,
      maxSessions: readMaxSessions(o),
    };
    const read = { ...common, ...(spec.read?.(o) ?? ({} as E)) };
    // Every option a fit reads is refused now, not at the first call: a fit of nothing reads them all.
    createSession({ ...session, ...spec.check(read) } as SessionOptions).fit([]);
    return read;
  }, options);
}

/** Fits `history` through `session` and hands the result to `onFit`; what `onFit` throws is a `CtxpackError` (`INVALID_OPTION`, field `onFit`) with it as the cause. */
export async function fitReported<M>(session: Session, history: readonly M[], turn: SessionTurnOptions, onFit: OnFit | undefined): Promise<SessionFitResult<M>> {
  const result = await session.fitAsync(history, turn);
  try {
    onFit?.(result);
  } catch (err) {
    throw new CtxpackError('INVALID_OPTION', "options.onFit threw (the thrown value is this error's cause)", { field: 'onFit', cause: err });
  }
  return result;
}

/** An adapter's conversations by key, at most `max` of them: the least recently used is forgotten first. */
export class Conversations<C> {
  private readonly byKey = new Map<string, C>(); // least recently used first

  constructor(private readonly max: number) {}

  /** The conversation of `key`, made by `make` when there is none; it becomes the most recently used. */
  get(key: string, make: () => C): C {
    const c = this.byKey.get(key) ?? make();
    this.byKey.delete(key);
    this.byKey.set(key, c);
    if (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value!);
    return c;
  }
}

/** A conversation's key from messages that are the same at every step (its system prompt, its task): their roles and texts, hashed. */
export function textsKey(messages: readonly unknown[]): string {
  // Texts (what a session counts): a task that differs only by an image shares a session, which costs cache reuse, never validity.
  const texts = messages.map((m) => (isRecord(m) ? `${String(m['role'])}\u0001${joinText(collectText(m['content']))}` : ''));
  return textKey(texts.join('\u0002'));
}

/** `breakpoints`: whether an adapter writes the session's breakpoints as Anthropic's cache markers. Default true. */
export function readBreakpoints(o: Unchecked): boolean {
  const breakpoints = o['breakpoints'] ?? true;
  if (typeof breakpoints !== 'boolean') throw invalidOption('breakpoints', 'a boolean', breakpoints);
  return breakpoints;
}

/** Whether the cache profile `cache` places breakpoints (an adapter writes them as Anthropic's markers). */
export function placesBreakpoints(cache: CachePricing): boolean {
  return readPricing(cache).maxBreakpoints > 0;
}

/** `maxSessions`: a positive integer (0 would keep no conversation's session: refused rather than read as 1). */
function readMaxSessions(o: Unchecked): number {
  if (o['maxSessions'] === 0) throw invalidOption('maxSessions', 'a positive integer (the conversations kept at once)', 0);
  return readCount(o, 'maxSessions', 64);
}
