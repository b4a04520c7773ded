/**
 * What the adapters that fit the AI SDK's language model prompts share: `ctxpack/ai-sdk`'s, and
 * `ctxpack/mastra`'s, whose agents send the same prompts. The format they fit (`'ai-sdk'`,
 * system messages allowed anywhere), how they read their options, the conversation's key, and a
 * conversation that picks its cache profile from the model and writes the session's breakpoints
 * as `providerOptions.anthropic.cacheControl`. Nothing of any framework is imported.
 *
 * @internal
 * @module
 */

import { createSession, type Session } from '../session/session.js';
import { readPricing } from '../session/pricing.js';
import type { CachePricing, SessionFitResult, SessionOptions, SessionTurnOptions } from '../session/types.js';
import type { Budgets } from '../types.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { type AdapterOptions, type AdapterSpec, fitReported, textsKey } from './sessions.js';

/** Anthropic's limit of `cache_control` markers per request (system, tools and messages together). */
const ANTHROPIC_MARKERS = 4;
/**
 * The format the adapters fit: the AI SDK already enforced its own `allowSystemInMessages` on
 * what it passes (it refuses a misplaced system message before any step), and Mastra builds its
 * prompts with the SDK's conversion, so a system message ctxpack sees anywhere is one the caller
 * allowed.
 */
const FORMAT = { name: 'ai-sdk', allowSystemInMessages: true } as const;
/** Options of the adapters that fit the AI SDK's prompts (`ctxpackPrepareStep`, `ctxpackLanguageModelMiddleware`, `ctxpackInputProcessor`): a session's, less what the framework's call gives. */
export interface PromptOptions extends Omit<SessionOptions, 'format' | 'system' | 'tools' | 'state' | 'cache' | 'breakpoints' | 'budgets'> {
  /** The budgets of every step: `tokens_max` the model's window or your cap (docs/getting-started.md, "Budgets"). */
  budgets: Budgets;
  /** The prompt cache the plans are made for. Default: `'anthropic'` for Anthropic's models (also through the AI Gateway), `'openai'` for the others. */
  cache?: CachePricing;
  /** Anthropic: write the session's breakpoints as `providerOptions.anthropic.cacheControl` (on copies). Default true. */
  breakpoints?: boolean;
  /** Called with each step's fit (decisions, metrics, cache figures) before the model is called. */
  onFit?: (result: SessionFitResult<unknown>) => void;
  /** Middleware and processor: conversations whose sessions are kept at once (least recently used go first). Default 64. */
  maxSessions?: number;
}

/** The options of an adapter that fits the AI SDK's prompts, read once when it is made. */
type Read = AdapterOptions & { breakpoints: boolean };

/** How an adapter that fits the AI SDK's prompts reads its options: the framework's call gives the format, system prompt and tools; `breakpoints` is the adapter's. */
export function promptOptions(entry: string, from: string): AdapterSpec<{ breakpoints: boolean }> {
  return {
    entry, from, given: ['format', 'system', 'tools', 'state'], own: ['breakpoints'],
    read: (o) => {
      const breakpoints = o['breakpoints'] ?? true;
      if (typeof breakpoints !== 'boolean') throw invalidOption('breakpoints', 'a boolean', breakpoints);
      return { breakpoints };
    },
    check: (r) => ({ format: FORMAT, cache: r.cache }),
  };
}

/** Whether `model` is Anthropic's: its provider (`anthropic.messages`), or an `anthropic/…` id through the AI Gateway. */
export function isAnthropicModel(model: unknown): boolean {
  if (typeof model === 'string') return model.startsWith('anthropic/');
  if (!isRecord(model)) return false;
  const provider = typeof model['provider'] === 'string' ? model['provider'].split('.')[0] : '';
  const id = typeof model['modelId'] === 'string' ? model['modelId'] : '';
  return provider === 'anthropic' || (provider === 'gateway' && id.startsWith('anthropic/'));
}

/** One conversation of AI SDK prompts: its session, and how its breakpoints are written. */
export class PromptConversation {
  readonly session: Session;
  private readonly marks: { cacheControl: { type: 'ephemeral'; ttl?: '1h' } } | undefined;

  constructor(private readonly o: Read, model: unknown) {
    const anthropic = isAnthropicModel(model);
    const cache = o.cache ?? (anthropic ? 'anthropic' : 'openai');
    const pricing = readPricing(cache);
    this.session = createSession({ ...o.session, format: FORMAT, cache } as SessionOptions);
    this.marks = anthropic && o.breakpoints && pricing.maxBreakpoints > 0
      ? { cacheControl: pricing.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } }
      : undefined;
  }

  /** Fits `history`; with Anthropic, the session's breakpoints as `providerOptions` on copies, within the markers the caller left. */
  async fit<M>(history: readonly M[], system: unknown, tools: unknown): Promise<M[]> {
    const result = await fitReported(this.session, history, { system, tools } as SessionTurnOptions, this.o.onFit);
    const out = result.messages.slice();
    if (this.marks === undefined) return out;
    const room = ANTHROPIC_MARKERS - markers(system) - markers(tools) - markers(out);
    // The session lists its breakpoints by position; the last ones are read by the next step.
    const chosen = result.cache.breakpoints.slice(Math.max(0, result.cache.breakpoints.length - Math.max(0, room)));
    for (const { index } of chosen) out[index] = withProviderOptions(out[index]!, this.marks);
    return out;
  }
}

/** The cache markers the caller placed in `value` (messages, parts, tools, system): `providerOptions.anthropic.cacheControl` or `cache_control`. */
function markers(value: unknown, depth = 0): number {
  if (depth > 4) return 0; // messages, their parts, a part's output: deeper is not a marker's place
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + markers(v, depth + 1), 0);
  if (!isRecord(value)) return 0;
  const po = value['providerOptions'];
  const anthropic = isRecord(po) ? po['anthropic'] : undefined;
  const own = (isRecord(anthropic) && (anthropic['cacheControl'] !== undefined || anthropic['cache_control'] !== undefined)) || value['cache_control'] !== undefined ? 1 : 0;
  return own + markers(value['content'], depth + 1);
}

function withProviderOptions<M>(message: M, anthropic: Record<string, unknown>): M {
  const m = message as Record<string, unknown>;
  const po = isRecord(m['providerOptions']) ? m['providerOptions'] : {};
  const mine = isRecord(po['anthropic']) ? po['anthropic'] : {};
  return { ...m, providerOptions: { ...po, anthropic: { ...mine, ...anthropic } } } as M;
}

/** A conversation's identity: its leading system messages and its first other message (the task), the same at every step. */
export function promptKey(prompt: readonly unknown[]): string {
  let end = 0;
  while (end < prompt.length && isRecord(prompt[end]) && (prompt[end] as Record<string, unknown>)['role'] === 'system') end++;
  return textsKey(prompt.slice(0, end + 1));
}
