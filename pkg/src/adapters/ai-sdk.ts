/**
 * `ctxpack/ai-sdk`: a session in the Vercel AI SDK (ai@7) in one line, as `prepareStep` or as
 * middleware for `wrapLanguageModel`. Both fit through `createSession` (format `'ai-sdk'`), so
 * selection, validity and the cut are the session's; this file only finds the conversation,
 * picks the cache profile from the model, and writes the session's breakpoints as
 * `providerOptions.anthropic.cacheControl`. The SDK is never imported at run time: its types
 * only (docs/ai-sdk.md).
 *
 * @module
 */

import type { LanguageModel, LanguageModelMiddleware, ModelMessage } from 'ai';
import { readingInput } from '../errors.js';
import { createSession, type Session } from '../session/session.js';
import { readPricing } from '../session/pricing.js';
import type { CachePricing, SessionFitResult, SessionOptions, SessionTurnOptions } from '../session/types.js';
import type { Budgets } from '../types.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { type AdapterOptions, type AdapterSpec, Conversations, fitReported, readAdapterOptions, textsKey } from './sessions.js';

/** Anthropic's limit of `cache_control` markers per request (system, tools and messages together). */
const ANTHROPIC_MARKERS = 4;
/**
 * The format both adapters fit: the SDK already enforced its own `allowSystemInMessages` on what
 * it passes (it refuses a misplaced system message before any step), so a system message ctxpack
 * sees anywhere is one the caller allowed.
 */
const FORMAT = { name: 'ai-sdk', allowSystemInMessages: true } as const;
/** Options of `ctxpackPrepareStep` and `ctxpackLanguageModelMiddleware`: a session's, less what the SDK's call gives. */
export interface AiSdkOptions extends Omit<SessionOptions, 'format' | 'system' | 'tools' | 'state' | 'cache' | 'breakpoints' | 'budgets'> {
  /** The budgets of every step: `tokens_max` the model's window or your cap (docs/getting-started.md, "Budgets"). */
  budgets: Budgets;
  /** The prompt cache the plans are made for. Default: `'anthropic'` for Anthropic's models (also through the AI Gateway), `'openai'` for the others. */
  cache?: CachePricing;
  /** Anthropic: write the session's breakpoints as `providerOptions.anthropic.cacheControl` (on copies). Default true. */
  breakpoints?: boolean;
  /** Called with each step's fit (decisions, metrics, cache figures) before the model is called. */
  onFit?: (result: SessionFitResult<unknown>) => void;
  /** Middleware: conversations whose sessions are kept at once (least recently used go first). Default 64. */
  maxSessions?: number;
}

/** What `prepareStep` receives that the helper reads (the SDK passes more). */
export interface PrepareStepInput {
  steps: readonly unknown[];
  messages: ModelMessage[];
  instructions?: unknown;
  model?: LanguageModel;
}

/** The adapters' options, read once when the helper is made: the SDK's call gives the format, system prompt and tools; `breakpoints` is theirs. */
type Read = AdapterOptions & { breakpoints: boolean };
const OPTIONS: AdapterSpec<{ breakpoints: boolean }> = {
  entry: 'ctxpack/ai-sdk', from: "the SDK's call", given: ['format', 'system', 'tools', 'state'], own: ['breakpoints'],
  read: (o) => {
    const breakpoints = o['breakpoints'] ?? true;
    if (typeof breakpoints !== 'boolean') throw invalidOption('breakpoints', 'a boolean', breakpoints);
    return { breakpoints };
  },
  check: (r) => ({ format: FORMAT, cache: r.cache }),
};

/** Whether `model` is Anthropic's: its provider (`anthropic.messages`), or an `anthropic/…` id through the AI Gateway. */
export function isAnthropicModel(model: unknown): boolean {
  if (typeof model === 'string') return model.startsWith('anthropic/');
  if (!isRecord(model)) return false;
  const provider = typeof model['provider'] === 'string' ? model['provider'].split('.')[0] : '';
  const id = typeof model['modelId'] === 'string' ? model['modelId'] : '';
  return provider === 'anthropic' || (provider === 'gateway' && id.startsWith('anthropic/'));
}

/** One conversation's session and how its breakpoints are written. */
class Conversation {
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

/**
 * A `prepareStep` for generateText, streamText or ToolLoopAgent that fits each step's messages
 * to the budget through a session, one per agent run (the SDK's `steps` array names the run), so
 * that each step appends to the last request and the provider's prompt cache holds:
 *
 * ```ts
 * const result = await generateText({ model, tools, instructions, messages, stopWhen,
 *   prepareStep: ctxpackPrepareStep({ budgets: { tokens_max: 22_000 } }) });
 * ```
 *
 * The SDK carries the messages a step returns into the next step; the helper keeps the whole
 * history itself, so a message left out at one step may come back at a later one. Bad options
 * are a `CtxpackError` (`INVALID_OPTION`, `INVALID_BUDGET`) here, or at the first step for those
 * only a fit reads.
 */
export function ctxpackPrepareStep(options: AiSdkOptions): (step: PrepareStepInput) => Promise<{ messages: ModelMessage[] }> {
  const o = readAdapterOptions(options, OPTIONS);
  const runs = new WeakMap<object, { conversation: Conversation; history: ModelMessage[]; sent: ModelMessage[] }>();
  const alone = {}; // the run of a caller that passes no `steps` array
  return async (step) => {
    const run = readingInput(() => {
      if (!isRecord(step) || !Array.isArray(step.messages)) throw invalidOption('step.messages', "an array (prepareStep's argument from the AI SDK)", isRecord(step) ? step.messages : step);
      const messages = step.messages;
      const key = Array.isArray(step.steps) ? step.steps : alone;
      let r = runs.get(key);
      if (r === undefined) {
        r = { conversation: new Conversation(o, step.model), history: messages.slice(), sent: [] };
        runs.set(key, r);
      } else {
        // What the SDK passes is what the last step returned, then the step's new messages.
        const sent = r.sent;
        const appended = messages.length >= sent.length && sent.every((m, i) => messages[i] === m);
        r.history = appended ? [...r.history, ...messages.slice(sent.length)] : messages.slice();
      }
      return r;
    }, step);
    run.sent = await run.conversation.fit(run.history, step.instructions, undefined);
    return { messages: run.sent };
  };
}

/**
 * Middleware for `wrapLanguageModel` that fits the prompt of every call (generateText,
 * streamText, ToolLoopAgent; each step of a tool loop is a call) to the budget. The prompt is the
 * SDK's provider-level prompt (the instructions as leading system messages, then the messages),
 * which ctxpack reads as the `'ai-sdk'` format; the tools' JSON schemas are counted. Each
 * conversation (its leading system messages and first message) has its own session, so that
 * steps and later turns append to the last request.
 *
 * ```ts
 * const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: 200_000 } }) });
 * ```
 */
export function ctxpackLanguageModelMiddleware(options: AiSdkOptions): LanguageModelMiddleware {
  const o = readAdapterOptions(options, OPTIONS);
  const conversations = new Conversations<Conversation>(o.maxSessions);
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params, model }) => {
      const { prompt, conversation } = readingInput(() => {
        if (!isRecord(params) || !Array.isArray(params.prompt)) throw invalidOption('params.prompt', 'an array of messages (the language model prompt)', isRecord(params) ? params.prompt : params);
        return { prompt: params.prompt, conversation: conversations.get(conversationKey(params.prompt), () => new Conversation(o, model)) };
      }, params);
      const fitted = await conversation.fit(prompt, undefined, params.tools);
      return { ...params, prompt: fitted };
    },
  };
}

/** A conversation's identity: its leading system messages and its first other message (the task), the same at every step. */
function conversationKey(prompt: readonly unknown[]): string {
  let end = 0;
  while (end < prompt.length && isRecord(prompt[end]) && (prompt[end] as Record<string, unknown>)['role'] === 'system') end++;
  return textsKey(prompt.slice(0, end + 1));
}
