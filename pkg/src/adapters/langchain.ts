/**
 * `ctxpack/langchain`: a session in a LangChain agent (langchain@1, `createAgent`) in one line,
 * as middleware. Its `wrapModelCall` fits the messages of each model call through
 * `createSession` (format `'langchain'`) and hands the fitted copy to the model: the graph's
 * state (what checkpointers save, what the next step reads) keeps every message. This file only
 * finds the conversation, puts the agent's system prompt in front to be counted and kept, and
 * reads LangChain's token counters. LangChain is never imported at run time: its types only
 * (docs/langchain.md).
 *
 * @module
 */

import type { AgentMiddleware } from 'langchain';
import type { BaseMessage } from '@langchain/core/messages';
import { CtxpackError, readingInput } from '../errors.js';
import { collectText, joinText } from '../messages/turns.js';
import { createSession, type Session } from '../session/session.js';
import type { CachePricing, SessionFitResult, SessionOptions, SessionTurnOptions } from '../session/types.js';
import type { Budgets } from '../types.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { jsonSchemaOf } from './schemas.js';
import { cacheControlOf } from '../messages/markers.js';
import { withCacheControl } from './langchain-markers.js';
import { type AdapterOptions, type AdapterSpec, Conversations, fitReported, placesBreakpoints, readAdapterOptions, readBreakpoints, textsKey } from './sessions.js';

/** `createMiddleware`'s brand (langchain's `MIDDLEWARE_BRAND`, a registered symbol): made here so that nothing of langchain is imported. */
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

/** LangChain's token-counter convention: `trimMessages`' `tokenCounter`, a function of messages. */
export type MessagesTokenCounter = (messages: BaseMessage[]) => number | Promise<number>;
/** A chat model (any `BaseLanguageModel`): its `getNumTokens` counts a text. */
export interface TokenCountingModel {
  getNumTokens(content: string): number | Promise<number>;
}

/** Options of `ctxpackAgentMiddleware`: a session's, less what the agent's call gives. */
export interface LangChainOptions extends Omit<SessionOptions, 'format' | 'system' | 'tools' | 'state' | 'breakpoints' | 'budgets' | 'countTokens'> {
  /** The budgets of every model call: `tokens_max` the model's window or your cap (docs/getting-started.md, "Budgets"). */
  budgets: Budgets;
  /**
   * LangChain's counter: a function of messages (as `trimMessages` takes), called with one
   * message per text ctxpack counts, or a chat model, whose `getNumTokens` counts the text.
   * Either may return a Promise. Not with `countTokens`.
   */
  tokenCounter?: MessagesTokenCounter | TokenCountingModel;
  /** ctxpack's counter, of a text: `(text) => number` (may return a Promise). Not with `tokenCounter`. Default `estimateTokens`. */
  countTokens?: SessionOptions['countTokens'];
  /** The prompt cache the plans are made for. Default `'anthropic'` for Anthropic's chat models (`ChatAnthropic`), else `'openai'`: a stable prefix, which every provider's cache reads. */
  cache?: CachePricing;
  /** Anthropic: write the session's breakpoints as `cache_control` on the last content block of those messages (on copies). Default true. */
  breakpoints?: boolean;
  /** Called with each model call's fit (decisions, metrics, cache figures) before the model is called. */
  onFit?: (result: SessionFitResult<BaseMessage>) => void;
  /** Conversations (threads) whose sessions are kept at once (least recently used go first). Default 64. */
  maxSessions?: number;
}

/** What `wrapModelCall` receives that the middleware reads (langchain's `ModelRequest` has more). */
interface Request {
  messages: BaseMessage[];
  model?: unknown;
  systemMessage?: BaseMessage;
  tools?: readonly unknown[];
  runtime?: { configurable?: Record<string, unknown> };
}

type TextCounter = (text: string, model?: string) => number | PromiseLike<number>;

/** The options, read once when the middleware is made: the agent's call gives the format, system prompt and tools; the counters are the middleware's. */
interface Counter {
  breakpoints: boolean;
  counter: TextCounter | undefined;
  /** The class of the agent's `SystemMessage`, seen at the last call: a messages counter is given texts as such messages (nothing of LangChain is imported to make one). */
  message: { ctor: (new (fields: { content: string }) => BaseMessage) | undefined };
}
type Read = AdapterOptions & Counter;
const OPTIONS: AdapterSpec<Counter> = {
  entry: 'ctxpack/langchain', from: "the agent's call", given: ['format', 'system', 'tools'], own: ['tokenCounter', 'countTokens', 'breakpoints'],
  read: (o) => {
    const message: Read['message'] = { ctor: undefined };
    return { breakpoints: readBreakpoints(o), counter: readCounter(o['tokenCounter'], o['countTokens'], message), message };
  },
  check: (r) => ({ format: 'langchain', cache: r.cache }),
};

/** ctxpack's text counter from `tokenCounter` (LangChain's) or `countTokens` (ctxpack's), checked so that no count is silently 0. */
function readCounter(tokenCounter: unknown, countTokens: unknown, message: Read['message']): TextCounter | undefined {
  if (tokenCounter !== undefined && countTokens !== undefined) throw invalidOption('tokenCounter', 'absent when countTokens is given (one counter)', tokenCounter);
  if (countTokens !== undefined) {
    if (typeof countTokens !== 'function') throw invalidOption('countTokens', 'a function (text) => number', countTokens);
    return checked('countTokens', countTokens as TextCounter);
  }
  if (tokenCounter === undefined) return undefined;
  if (typeof tokenCounter === 'function') {
    const count = tokenCounter as MessagesTokenCounter;
    return checked('tokenCounter', (text) => {
      // Before the first call there is no message class to build from: nothing is counted then.
      if (message.ctor === undefined) throw new CtxpackError('INTERNAL', 'ctxpack/langchain counted before a model call');
      return count([new message.ctor({ content: text })]);
    });
  }
  if (isRecord(tokenCounter) && typeof tokenCounter['getNumTokens'] === 'function') {
    const model = tokenCounter as unknown as TokenCountingModel;
    return checked('tokenCounter', (text) => model.getNumTokens(text));
  }
  throw invalidOption('tokenCounter', 'a function (messages) => number, or a chat model with getNumTokens', tokenCounter);
}

/**
 * `count`, with LangChain's conventions read: a finite count is rounded up (LangChain's
 * approximate counters return fractions), and anything else, or 0 for a text with words in it
 * (what a counter of messages answers when handed a string), is `TOKEN_COUNT_FAILED`.
 */
function checked(field: string, count: TextCounter): TextCounter {
  const check = (n: unknown, text: string): number => {
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
      throw new CtxpackError('TOKEN_COUNT_FAILED', `options.${field} must return a finite number of tokens from 0 up, got ${n === null ? 'null' : typeof n === 'number' ? String(n) : `a ${typeof n}`}`, { field });
    }
    if (n === 0 && /\S/.test(text)) {
      throw new CtxpackError('TOKEN_COUNT_FAILED', `options.${field} counted 0 tokens for a text that is not empty (a LangChain counter of messages goes in tokenCounter, a counter of text in countTokens)`, { field });
    }
    return Math.ceil(n);
  };
  return (text, model) => {
    const n = count(text, model);
    return isRecord(n) && typeof (n as { then?: unknown }).then === 'function' ? Promise.resolve(n).then((v) => check(v, text)) : check(n, text);
  };
}

/** One conversation's session, and with Anthropic's models how its breakpoints are written. */
class Conversation {
  readonly session: Session;
  /** Whether the session's breakpoints are written (ChatAnthropic, a profile with breakpoints, `breakpoints`). */
  private readonly mark: boolean;

  constructor(private readonly o: Read, model: unknown) {
    const anthropic = isAnthropicChatModel(model);
    const cache = o.cache ?? (anthropic ? 'anthropic' : 'openai');
    // ChatAnthropic's requests go to Claude: its image rules, and a user message first.
    const provider = o.session['provider'] === undefined && anthropic ? { provider: 'anthropic' } : {};
    this.session = createSession({ ...o.session, ...provider, cache, format: 'langchain', ...(o.counter ? { countTokens: o.counter } : {}) } as SessionOptions);
    this.mark = anthropic && o.breakpoints && placesBreakpoints(cache);
  }

  /**
   * Fits `system` (when it has text: the agent sends none otherwise) and `messages`: the messages
   * to send, without `system`, and the system message to send (`system`, or its marked copy).
   */
  async fit(messages: readonly BaseMessage[], system: BaseMessage | undefined, tools: unknown): Promise<{ messages: BaseMessage[]; system: BaseMessage | undefined }> {
    const head = system !== undefined && joinText(collectText(system.content)) !== '' ? [system] : [];
    const result = await fitReported(this.session, [...head, ...messages], { tools } as SessionTurnOptions, this.o.onFit);
    const out = result.messages.slice();
    if (this.mark) {
      // The session planned its breakpoints within the markers the caller placed (tools, messages): each is written.
      for (const { index, ttl } of result.cache.breakpoints) out[index] = withCacheControl(out[index]!, cacheControlOf(ttl));
    }
    // The system prompt is pinned, so it leads what the session returns (itself, or a copy without
    // markers past the limit); the agent sends it beside the messages.
    return head.length > 0 && result.decisions[0]?.included === true && out[0]?.getType() === 'system' ? { messages: out.slice(1), system: out[0] } : { messages: out, system };
  }
}

/** Whether `model` is Anthropic's chat model (`@langchain/anthropic`'s `ChatAnthropic`: its `_llmType()` is `'anthropic'`). */
function isAnthropicChatModel(model: unknown): boolean {
  if (!isRecord(model) || typeof model['_llmType'] !== 'function') return false;
  try {
    return (model as { _llmType(): unknown })._llmType() === 'anthropic';
  } catch {
    return false; // a model whose _llmType throws is not taken for Anthropic's: no markers, never an invalid request
  }
}

/**
 * Middleware for langchain's `createAgent` that fits every model call to the budget through a
 * session per conversation, so that each step appends to the last request and the provider's
 * prompt cache holds:
 *
 * ```ts
 * const agent = createAgent({ model, tools, systemPrompt, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: 128_000 } })] });
 * ```
 *
 * Only what the model receives is fitted: the agent's state keeps every message. The agent's
 * system prompt is counted and always kept; the tools' names, descriptions and schemas are counted. A
 * conversation is the call's `thread_id` (`configurable.thread_id`), or else its system prompt
 * and first message. Bad options are a `CtxpackError` (`INVALID_OPTION`, `INVALID_BUDGET`) here.
 */
export function ctxpackAgentMiddleware(options: LangChainOptions): AgentMiddleware {
  const o = readAdapterOptions(options, OPTIONS);
  const conversations = new Conversations<Conversation>(o.maxSessions);
  return {
    [MIDDLEWARE_BRAND]: true,
    name: 'ctxpack',
    wrapModelCall: async (request, handler) => {
      const { messages, system, conversation } = readingInput(() => {
        const r = request as unknown as Request;
        if (!isRecord(r) || !Array.isArray(r.messages)) throw invalidOption('request.messages', "an array of messages (wrapModelCall's request from langchain)", isRecord(r) ? r.messages : r);
        const system = isRecord(r.systemMessage) ? r.systemMessage : undefined;
        // The agent always has a system message (an empty one without a prompt); a bare request may not.
        const sample = system ?? r.messages.find(isRecord);
        if (sample !== undefined) o.message.ctor = (sample as object).constructor as Read['message']['ctor'];
        return { messages: r.messages, system, conversation: conversations.get(conversationKey(r, system), () => new Conversation(o, r.model)) };
      }, request);
      const fitted = await conversation.fit(messages, system, toolsToCount((request as unknown as Request).tools));
      return handler({ ...request, messages: fitted.messages, ...(fitted.system !== system ? { systemMessage: fitted.system } : {}) } as typeof request);
    },
  } as AgentMiddleware;
}

/** The tools as ctxpack counts them: name, description and the input's JSON Schema, as the provider receives them. */
function toolsToCount(tools: unknown): unknown {
  if (!Array.isArray(tools)) return undefined;
  return tools.map((t) => {
    if (!isRecord(t)) return {};
    const parameters = jsonSchemaOf(t['schema']);
    // A provider tool's own cache marker (a dict with cache_control): it counts against Anthropic's four.
    const marker = t['cache_control'] === undefined ? {} : { cache_control: t['cache_control'] };
    return parameters === undefined ? { name: t['name'], description: t['description'], ...marker } : { name: t['name'], description: t['description'], parameters, ...marker };
  });
}

/** A conversation's identity: the thread, or its system prompt and first message (the task), the same at every step. */
function conversationKey(r: Request, system: BaseMessage | undefined): string {
  const thread = isRecord(r.runtime) && isRecord(r.runtime.configurable) ? r.runtime.configurable['thread_id'] : undefined;
  if (typeof thread === 'string' || typeof thread === 'number') return `thread\u0001${String(thread)}`;
  return `text\u0001${textsKey([system, r.messages[0]])}`;
}
