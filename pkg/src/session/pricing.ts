/**
 * The prompt cache as a price list, and the session's objective over it (docs/sessions.md has the
 * derivation): what a plan costs per turn over the turns until its next cut, plus the value it
 * leaves out.
 *
 * @internal
 * @module
 */

import type { MessageFormat } from '../messages/types.js';
import { CtxpackError, describeValue, shownName } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import type { CacheProfile } from './types.js';

/** A checked profile; `step` is the granularity of an automatic cache (OpenAI's 128), 1 otherwise. */
export interface Pricing extends Required<Omit<CacheProfile, 'ttl'>> {
  readonly enabled: boolean;
  readonly step: number;
  readonly ttl: '5m' | '1h' | undefined;
}

const PRESETS: Readonly<Record<'anthropic' | 'anthropic-auto' | 'openai' | 'none', Pricing>> = {
  anthropic: { enabled: true, readCost: 0.1, writeCost: 1.25, minCacheableTokens: 1024, maxBreakpoints: 4, step: 1, ttl: '5m' },
  // Automatic caching (one top-level cache_control): the API writes at the request's last block
  // and reads an earlier request's; the session places no markers and plans for prefix reuse.
  'anthropic-auto': { enabled: true, readCost: 0.1, writeCost: 1.25, minCacheableTokens: 1024, maxBreakpoints: 0, step: 1, ttl: '5m' },
  openai: { enabled: true, readCost: 0.5, writeCost: 1, minCacheableTokens: 1024, maxBreakpoints: 0, step: 128, ttl: undefined },
  none: { enabled: false, readCost: 1, writeCost: 1, minCacheableTokens: 0, maxBreakpoints: 0, step: 1, ttl: undefined },
};

/**
 * The prompt cache a history in `format` most likely meets: Anthropic's for Anthropic messages,
 * OpenAI's automatic one for the others (the default of `ctxpack replay` and of the preview page).
 *
 * @example
 * createSession({ format: 'anthropic', cache: defaultCacheFor('anthropic') });
 */
export function defaultCacheFor(format: MessageFormat): 'anthropic' | 'openai' {
  return format === 'anthropic' ? 'anthropic' : 'openai';
}

const PROFILE_KEYS = ['readCost', 'writeCost', 'minCacheableTokens', 'maxBreakpoints', 'ttl'];

function bad(field: string, requirement: string, value: unknown): CtxpackError {
  return new CtxpackError('INVALID_OPTION', `options.${field} must be ${requirement}, got ${describeValue(value)}`, { field });
}

/** `options.cache`: a preset name or a profile object. */
export function readPricing(value: unknown): Pricing {
  if (value === undefined) return PRESETS.none;
  if (typeof value === 'string' && Object.hasOwn(PRESETS, value)) return PRESETS[value as keyof typeof PRESETS];
  if (!isRecord(value)) throw bad('cache', "'anthropic', 'anthropic-auto', 'openai', 'none' or { readCost, writeCost, minCacheableTokens, maxBreakpoints, ttl? }", value);
  for (const key of Object.keys(value)) if (!PROFILE_KEYS.includes(key)) throw bad(`cache.${shownName(key)}`, 'absent (not a cache profile field)', value[key]);
  const num = (key: string, integer: boolean): number => {
    const v = value[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isSafeInteger(v))) {
      throw bad(`cache.${key}`, integer ? 'a non-negative integer' : 'a finite non-negative number', v);
    }
    return v;
  };
  const ttl = value['ttl'];
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h') throw bad('cache.ttl', "'5m' or '1h'", ttl);
  return {
    enabled: true,
    readCost: num('readCost', false),
    writeCost: num('writeCost', false),
    minCacheableTokens: num('minCacheableTokens', true),
    maxBreakpoints: num('maxBreakpoints', true),
    step: 1,
    ttl,
  };
}

/**
 * Anthropic prices a 5-minute cache write at 1.25 times the input price and a 1-hour one at 2
 * times (the presets' `writeCost`, docs/sessions.md): a 1-hour profile's writes at 5 minutes cost
 * this share of its `writeCost`.
 */
const FIVE_MINUTE_WRITE_SHARE = 1.25 / 2;

/**
 * The pricing of a 1-hour profile whose breakpoints are written with the 5-minute lifetime (a
 * 5-minute marker before them, messages/markers.ts `markerTtlAt`): `ttl` '5m' and `writeCost`
 * scaled to the 5-minute write; any other profile as it is.
 */
export function fiveMinutePricing(p: Pricing): Pricing {
  return p.ttl === '1h' ? { ...p, ttl: '5m', writeCost: p.writeCost * FIVE_MINUTE_WRITE_SHARE } : p;
}

/**
 * The pricing of a profile whose writes have the lifetime `ttl` (a turn's last breakpoint's,
 * messages/markers.ts `markerTtlAt`): {@link fiveMinutePricing} for `'5m'`; for `'1h'` a 5-minute
 * profile's `writeCost` scaled to the 1-hour write (its breakpoints lengthened before a 1-hour
 * marker of the caller's), a 1-hour profile as it is.
 */
export function writtenPricing(p: Pricing, ttl: '5m' | '1h'): Pricing {
  if (ttl === '5m') return fiveMinutePricing(p);
  return p.ttl === '1h' ? p : { ...p, ttl: '1h', writeCost: p.writeCost / FIVE_MINUTE_WRITE_SHARE };
}

/**
 * Tokens the provider bills as cached, given the prompt's common prefix with the previous request
 * (`prefixTokens`) and, with explicit breakpoints, the previous request's breakpoints as prompt
 * tokens up to each (`reads`: only a prefix that ends at one of them is read).
 */
export function cachedTokens(p: Pricing, prefixTokens: number, reads: readonly number[] | undefined): number {
  if (!p.enabled) return 0;
  let cached = prefixTokens;
  if (p.maxBreakpoints > 0) {
    cached = 0;
    for (const t of reads ?? []) if (t <= prefixTokens && t > cached) cached = t;
  }
  if (cached < p.minCacheableTokens) return 0;
  return p.step > 1 ? p.minCacheableTokens + Math.floor((cached - p.minCacheableTokens) / p.step) * p.step : cached;
}

/** The input of one request in uncached-token prices. */
export function requestCost(p: Pricing, promptTokens: number, cached: number): number {
  return p.enabled ? cached * p.readCost + (promptTokens - cached) * p.writeCost : promptTokens;
}

/**
 * The objective of a cut (lower is better), per turn, averaged over the cycle it starts:
 *
 * ```text
 * m     = max(1, ⌊(B − P) / g⌋)                              turns until the next cut
 * cost  = [ r·H + w·(P − H)                                   the cut turn: the head H is read, the rest written
 *         + (m − 1)·(r·P + w·g) + r·g·(m − 1)(m − 2)/2 ] / m  then each turn reads the last prompt and writes g
 * J(P)  = cost + lost(P) / 2
 * ```
 *
 * `B` the effective budget, `P` the prompt after the cut, `g` the tokens the history grows by per
 * turn, `r`/`w` the read and write prices, `lost(P)` the value the cut leaves out that a full fit
 * would keep, in token prices (see docs/sessions.md), halved because later turns refill the room.
 */
export function cutObjective(p: Pricing, budget: number, promptTokens: number, headCached: number, growth: number, lost: number): number {
  const m = Math.max(1, Math.floor((budget - promptTokens) / growth));
  const r = p.readCost;
  const w = p.writeCost;
  const cutTurn = r * headCached + w * (promptTokens - headCached);
  const later = (m - 1) * (r * promptTokens + w * growth) + (r * growth * (m - 1) * (m - 2)) / 2;
  return (cutTurn + later) / m + lost / 2;
}

/** What `summaryPays` weighs, per docs/sessions.md ("Summaries: the price"). Tokens with their per-message overhead; values in token prices. */
export interface SummaryPrice {
  /** The prompt's budget B (overhead tokens + effective budget) and the prompt P of the plan without the summary. */
  budget: number;
  promptTokens: number;
  /** The history's growth per turn g. */
  growth: number;
  /** The turns the session has planned so far n: as many are expected to come (the summary's content serves them all, a fold carrying it on). */
  turns: number;
  /** The summary's tokens S in the request, and the span's T it replaces. */
  summaryTokens: number;
  spanTokens: number;
  /** The span's value the plan without the summary leaves out, and keeps (Σ value_i / v̄ · tokens_i). */
  lostValue: number;
  keptValue: number;
  /** The messages that plan keeps by value, least valued first: value per token relative to v̄, and tokens. What the summary's room displaces, from the first. */
  keptByValue: readonly { readonly value: number; readonly tokens: number }[];
  /** The summariser's call in uncached-input prices (0 once it is spent). */
  callCost: number;
  /**
   * The plans with and without the summary, compared (when the summary is ready): the value of
   * the messages kept in full without it and left out with it, of those kept with it and left
   * out without it (the span aside), and the tokens it adds to the prompt. Without them, the room is estimated: the cheaper of displacing S tokens of
   * marginal value and adding S tokens.
   */
  measured?: { displacedValue: number; addedValue: number; addedTokens: number };
}

/** D(S): the value of the S least valued tokens the plan keeps by value (the room S tokens of summary take, displacing). */
function displaced(x: Pick<SummaryPrice, 'keptByValue'>, tokens: number): number {
  let left = tokens;
  let value = 0;
  for (const m of x.keptByValue) {
    if (left <= 0) break;
    const t = Math.min(left, m.tokens);
    value += m.value * t;
    left -= t;
  }
  // Beyond what the plan keeps by value, a token displaces the mean value (1).
  return value + Math.max(0, left);
}

/** The per-turn margin of a summary of S tokens (positive: it pays); see `summaryPays`. */
function margin(p: Pricing, x: SummaryPrice): number {
  const m = Math.max(1, Math.floor((x.budget - x.promptTokens) / Math.max(1, x.growth)));
  const h = Math.max(m, x.turns);
  const r = p.enabled ? p.readCost : 1;
  const w = p.enabled ? p.writeCost : 1;
  const add = (tokens: number): number => (tokens * w + (m - 1) * tokens * r) / m;
  const rho = x.spanTokens > 0 ? Math.sqrt(Math.min(1, x.summaryTokens / x.spanTokens)) : 0;
  const gain = (rho * (x.lostValue + x.keptValue) - x.keptValue + (x.measured?.addedValue ?? 0)) / 2;
  const room = x.measured === undefined ? Math.min(displaced(x, x.summaryTokens) / 2, add(x.summaryTokens)) : x.measured.displacedValue / 2 + add(x.measured.addedTokens);
  return gain - room - x.callCost / h;
}

/**
 * Whether a summary pays for itself, per turn: what it keeps, against the room it takes and the
 * summariser's call.
 *
 * ```text
 * m       = max(1, ⌊(B − P) / g⌋)                    turns until the next cut
 * h       = max(m, n)                                turns the summary's content serves (n: turns so far)
 * ρ       = sqrt(min(1, S / T))                      the share of the span's value the summary keeps (a stub's rule, docs/variants.md)
 * add(x)  = [ x·w + (m − 1)·x·r ] / m                x tokens more in the prompt: written at the cut, read on every later turn
 * D(x)    = the value of the x least valued tokens the plan keeps by value
 * room    = min(D(S) / 2, add(S))                    before the call: the cheaper way to make S tokens of room
 *         = displaced / 2 + add(added)               with both plans: what the summary's plan leaves out of the other's, and adds
 * gain    = [ ρ·(lost + kept) − kept + more ] / 2     more: with both plans, what the summary's plan keeps of what the other leaves out
 * pays    ⇔ gain > room + call / h, and displaced = 0 (a summary never takes the place of a message kept in full)
 * ```
 *
 * Values are halved as `lost` is in `cutObjective` (later turns refill the room).
 */
export function summaryPays(p: Pricing, x: SummaryPrice): boolean {
  return margin(p, x) > 0 && (x.measured === undefined || x.measured.displacedValue === 0);
}

/**
 * The summary's length (tokens, with the per-message overhead) the objective prefers before the
 * call: of 64, 128, 256, … and the largest allowed, the one with the best margin (`summaryPays`,
 * the call's output at `outputCost` per token; ties to the shorter), at most a model's reply
 * (2000), a twentieth of the prompt's budget (a larger one displaced evidence kept in full on
 * eval/summaries.mjs) and half the span.
 */
export function summaryLength(p: Pricing, x: Omit<SummaryPrice, 'summaryTokens' | 'callCost'>, outputCost: number): number {
  const upper = Math.max(64, Math.min(2000, Math.floor(x.budget / 20), Math.floor(x.spanTokens / 2)));
  let best = 64;
  let bestMargin = -Infinity;
  for (let s = 64; ; s = Math.min(upper, s * 2)) {
    const v = margin(p, { ...x, summaryTokens: s, callCost: outputCost * s });
    if (v > bestMargin) [best, bestMargin] = [s, v];
    if (s >= upper) break;
  }
  return best;
}
