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
  /** The summary's tokens S in the request, and the span's T it replaces. */
  summaryTokens: number;
  spanTokens: number;
  /** The span's value the plan without the summary leaves out, and keeps (Σ value_i / v̄ · tokens_i). */
  lostValue: number;
  keptValue: number;
  /** The value per token, relative to v̄, of the least valued message that plan keeps by value: what the summary's room displaces. */
  marginalValue: number;
  /** The summariser's call in uncached-input prices (0 once it is spent). */
  callCost: number;
}

/**
 * Whether a summary pays for itself, per turn over the cycle the cut starts (m turns, as in
 * `cutObjective`): what it keeps, against what it costs.
 *
 * ```text
 * m       = max(1, ⌊(B − P) / g⌋)
 * ρ       = sqrt(min(1, S / T))                      the share of the span's value the summary keeps (a stub's rule, docs/variants.md)
 * gain    = [ ρ·(lost + kept) − kept − ρ_marginal·S ] / 2
 * cost    = [ S·w + (m − 1)·S·r + call ] / m         written once at the cut, read on every later turn
 * pays    ⇔ gain > cost
 * ```
 *
 * The value is halved as `lost` is in `cutObjective` (later turns refill the room).
 */
export function summaryPays(p: Pricing, x: SummaryPrice): boolean {
  const m = Math.max(1, Math.floor((x.budget - x.promptTokens) / Math.max(1, x.growth)));
  const r = p.enabled ? p.readCost : 1;
  const w = p.enabled ? p.writeCost : 1;
  const rho = x.spanTokens > 0 ? Math.sqrt(Math.min(1, x.summaryTokens / x.spanTokens)) : 0;
  const gain = (rho * (x.lostValue + x.keptValue) - x.keptValue - x.marginalValue * x.summaryTokens) / 2;
  const cost = (x.summaryTokens * w + (m - 1) * x.summaryTokens * r + x.callCost) / m;
  return gain > cost;
}
