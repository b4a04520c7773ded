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
import type { CachePricing, SessionFitResult, SessionOptions, SessionTurnOptions } from '../session/types.js';
import type { Budgets } from '../types.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { jsonSchemaOf } from './schemas.js';
import { cacheControlOf } from '../messages/markers.js';
import { type AdapterOptions, type AdapterSpec, fitReported, placesBreakpoints, readBreakpoints, textsKey } from './sessions.js';

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
type Read = AdapterOptions & { breakpoints: boolean; tools: unknown };

/**
 * How an adapter that fits the AI SDK's prompts reads its options: the framework's call gives the
 * format and system prompt, and the tools unless `withTools` (prepareStep is not given them: the
 * caller's `tools`, the SDK's `ToolSet`, are counted instead); `breakpoints` is the adapter's.
 */
export function promptOptions(entry: string, from: string, withTools = false): AdapterSpec<{ breakpoints: boolean; tools: unknown }> {
  return {
    entry, from, given: withTools ? ['format', 'system'] : ['format', 'system', 'tools'], own: ['breakpoints', 'tools'],
    read: (o) => ({ breakpoints: readBreakpoints(o), tools: readToolSet(o['tools']) }),
    check: (r) => ({ format: FORMAT, cache: r.cache }),
  };
}

/** An AI SDK `ToolSet` (`{ name: tool }`) as the model receives it, to be counted: each tool's name, description and input schema as JSON Schema (`jsonSchema()`'s, or a zod 4 schema's; a zod 3 schema's name and description only). */
function readToolSet(tools: unknown): unknown {
  if (tools === undefined) return undefined;
  if (!isRecord(tools) || Array.isArray(tools)) throw invalidOption('tools', "the AI SDK's tools, an object of name: tool", tools);
  return Object.entries(tools).map(([name, t]) => {
    const schema = isRecord(t) ? jsonSchemaOf(t['inputSchema']) : undefined;
    return { type: 'function', name, description: isRecord(t) ? t['description'] : undefined, ...(isRecord(schema) ? { inputSchema: schema } : {}), ...ownMarker(t) };
  });
}

/**
 * A tool's own `providerOptions` (an Anthropic `cacheControl` the caller placed), kept on the copy
 * that is counted, so that the breakpoints the adapter writes leave room for it, as the language
 * model middleware's tools (the provider's own, which carry them) do.
 */
export function ownMarker(tool: unknown): { providerOptions?: unknown } {
  return isRecord(tool) && isRecord(tool['providerOptions']) ? { providerOptions: tool['providerOptions'] } : {};
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
  /** Whether the session's breakpoints are written (Anthropic's models, a profile with breakpoints, `breakpoints`). */
  private readonly marks: boolean;

  constructor(private readonly o: Read, model: unknown) {
    const anthropic = isAnthropicModel(model);
    const cache = o.cache ?? (anthropic ? 'anthropic' : 'openai');
    // Anthropic's models: Claude's image rules, and a user message first (as ctxpack/langchain).
    const provider = o.session['provider'] === undefined && anthropic ? { provider: 'anthropic' } : {};
    this.session = createSession({ ...o.session, ...provider, format: FORMAT, cache } as SessionOptions);
    this.marks = anthropic && o.breakpoints && placesBreakpoints(cache);
  }

  /** Fits `history`; with Anthropic, the session's breakpoints as `providerOptions` on copies (the session leaves room for the caller's markers). */
  async fit<M>(history: readonly M[], system: unknown, tools: unknown): Promise<M[]> {
    const result = await fitReported(this.session, history, { system, tools } as SessionTurnOptions, this.o.onFit);
    const out = result.messages.slice();
    if (!this.marks) return out;
    // The session planned its breakpoints within the markers the caller placed (system, tools, messages): each is written.
    for (const { index, ttl } of result.cache.breakpoints) out[index] = withProviderOptions(out[index]!, { cacheControl: cacheControlOf(ttl) });
    return out;
  }
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
