/**
 * The public types of `createSession` (see docs/sessions.md).
 *
 * @module
 */

import type { Budgets } from '../types.js';
import type { FitMessagesAsyncOptions, FitMessagesMetrics, FitMessagesOptions, FitMessagesResult } from '../messages/types.js';

/**
 * How the provider bills a cached prompt prefix, in units of the price of an uncached input token.
 * `'anthropic'`: reads 0.1, writes 1.25, at least 1024 tokens, 4 breakpoints, 5 minutes.
 * `'anthropic-auto'`: Anthropic's automatic caching (a top-level `cache_control` on the request,
 * which you set): the same prices, no breakpoints placed by the session.
 * `'openai'`: reads 0.5, writes 1 (automatic), at least 1024 tokens in steps of 128, no breakpoints.
 * `'none'`: no prompt cache: every turn is fitted afresh, as `fitMessages` would.
 */
export type CachePricing = 'anthropic' | 'anthropic-auto' | 'openai' | 'none' | CacheProfile;

/** A provider's prompt cache, explicitly. */
export interface CacheProfile {
  /** Price of a cached input token read, relative to an uncached one (Anthropic 0.1). */
  readCost: number;
  /** Price of an input token written to the cache (Anthropic 1.25 for 5 minutes, 2 for 1 hour; 1 when writes are free). */
  writeCost: number;
  /** The shortest prefix the provider caches (Anthropic 1024 for Sonnet and Opus, 2048 for Haiku; OpenAI 1024). */
  minCacheableTokens: number;
  /** Explicit breakpoints per request (Anthropic 4); 0 when caching is automatic (OpenAI). */
  maxBreakpoints: number;
  /** The breakpoints' lifetime, written into `cache_control` (Anthropic `'5m'` or `'1h'`). */
  ttl?: '5m' | '1h';
}

/** Options of `createSession`: those of `fitMessages`, plus the prompt cache and the session's state. */
export interface SessionOptions extends Omit<FitMessagesOptions, 'budgets' | 'countTokens' | 'countCache' | 'scores'> {
  /** The budgets; may also be given per turn. */
  budgets?: Budgets;
  /** Counts a message's text. `fit` needs a synchronous counter; `fitAsync` takes one returning a Promise too. Default `estimateTokens`. */
  countTokens?: FitMessagesAsyncOptions['countTokens'];
  /** The prompt cache the plans are made for. Default `'none'`. */
  cache?: CachePricing;
  /**
   * Anthropic only, opt-in: put `cache_control` on the last block of the messages at
   * `cache.breakpoints` (new objects; your messages stay untouched). Default false.
   */
  breakpoints?: boolean;
  /**
   * A turn with a new question (the latest user message, or `query`, changed) may cut where it
   * could append, when what the question gives value to pays for the cache write
   * (docs/sessions.md, "A new question"). Default true; false appends whenever the new messages fit.
   */
  replanOnQuestion?: boolean;
  /** A name for a custom `countTokens`, so that exported counts are reused only with the same counter. */
  counterId?: string;
  /** Token counts kept across turns at most (least recently used go first; never fewer than one history). Default 50 000. */
  maxCachedCounts?: number;
  /**
   * `fitAsync` only: your embedding model (see `FitMessagesAsyncOptions.embed`). The session keeps
   * the vectors by content across turns (`maxCachedVectors`): each turn embeds only the texts it
   * has not seen. `fit` refuses it. Vectors are not in `exportState()`: a restored session embeds
   * its history's texts once again.
   */
  embed?: FitMessagesAsyncOptions['embed'];
  /** Vectors kept across turns at most (least recently used go first; never fewer than one turn's). Default 10 000. */
  maxCachedVectors?: number;
  /** `fitAsync`: counts in flight at once. Default 8. */
  concurrency?: number;
  /** A state `exportState()` returned, to continue a session in another process. */
  state?: SessionState;
  /**
   * A secret (a string or `Uint8Array` of at least 16 bytes; best 32 random bytes), kept by you
   * apart from the state: every key `exportState()` writes is then a keyed hash (SipHash-2-4) of
   * the text under it, which nobody without the secret can compute, so the texts cannot be
   * recovered from the state by hashing guesses. A state is read back only with the same secret
   * (otherwise it is ignored, with a warning in `session.stateWarnings`). docs/sessions.md.
   */
  stateKey?: string | Uint8Array;
  /**
   * Your own model call that summarises the messages a cut leaves out (docs/sessions.md,
   * "Summaries"): given the span's messages in your format and an instruction, it returns the
   * summary's text (or a user message of your format), or a Promise of it. Asked ahead of the
   * cut, at most once per span; the summary enters the request at a later cut, and only when it
   * pays (`summary`'s prices). A throw, a rejection or the timeout: the session cuts, with a
   * warning. Default: none (what is cut is left out).
   */
  summarize?: Summarizer;
  /** How summaries are asked for and priced. */
  summary?: SummaryOptions;
}

/** What the summariser is given. */
export interface SummarizeRequest<M = unknown> {
  /** The summary's id (the decisions of the messages it replaces say it). */
  id: string;
  /** The span, in your format: whole tool-call units; the first is the summary in use when the new one folds it in. */
  messages: M[];
  /** What to do (`summary.instruction`, or the default: keep facts, numbers, paths, decisions, open questions; drop chit-chat). */
  instruction: string;
  /** The summary's length to aim for, in tokens. */
  maxTokens: number;
  format: string;
}

/** A summariser: your model call (the AI SDK's `generateText`, LangChain's `invoke`, …). */
export type Summarizer = (request: SummarizeRequest<any>) => string | object | PromiseLike<string | object>;

/** `createSession({ summary })`. */
export interface SummaryOptions {
  /** Replaces the default instruction. */
  instruction?: string;
  /** The summary's length to aim for, in tokens. Default: a tenth of the span, at least 64, at most 5 % of the budget and 2000. */
  maxTokens?: number;
  /**
   * `fitAsync` waits for the summary when a turn cuts (starting it then if none was asked for),
   * so that the cut turn already has it. Default `false`: no turn waits; the summary asked for
   * ahead enters at the next cut after it is ready. `fit` never waits.
   */
  wait?: boolean;
  /** A summariser slower than this fails (the session cuts, with a warning). Default 120 000 ms. */
  timeoutMs?: number;
  /**
   * The summariser's prices per input and output token, in units of the session's uncached input
   * token (a cheaper model: below 1). Default: input 1, output 5 with Anthropic's cache, 4 otherwise.
   */
  inputCost?: number;
  outputCost?: number;
  /** Makes the summary message from its text (default: `{ role: 'user', content }`; LangChain: a message of the history's human message class). */
  toMessage?: (text: string) => unknown;
}

/** The summary in a request (`result.summary`). */
export interface SessionSummaryReport {
  id: string;
  /** The history's messages it stands for: [from, to). */
  replaces: { from: number; to: number };
  /** Its position in `result.messages`. */
  index: number;
  /** Its tokens in the request. */
  tokens: number;
  /** What the summariser read, in tokens, and what its call cost in uncached-input prices (input × inputCost + the summary's tokens × outputCost). */
  callInputTokens: number;
  callCost: number;
}

/** Why `createSession` ignored `options.state` (`session.stateWarnings`; the first turn's `warnings` say it too, as `state_key_mismatch: …`). */
export interface SessionStateWarning {
  /** `STATE_KEY_MISMATCH`: the state was written under another `stateKey`, or with one where the session has none, or without one where it has one. */
  code: 'STATE_KEY_MISMATCH';
  /** What happened; never any of the state's or the secret's content. */
  message: string;
}

/** What may change from one turn to the next. */
export interface SessionTurnOptions {
  /** Anthropic and AI SDK: the top-level system prompt of this turn (see `FitMessagesOptions.system`). */
  system?: FitMessagesOptions['system'];
  /** This turn's tool definitions (see `FitMessagesOptions.tools`); a change is a change of the prompt's head, as the system prompt's. */
  tools?: FitMessagesOptions['tools'];
  /** The text relevance is measured against this turn. */
  query?: string;
  /** This turn's budgets. */
  budgets?: Budgets;
  /** Your relevance of each message of this turn's history (see `FitMessagesOptions.scores`). */
  scores?: FitMessagesOptions['scores'];
}

/** A breakpoint: after `result.messages[index]`; `tokens` is the prompt up to and including it. */
export interface CacheBreakpoint {
  index: number;
  tokens: number;
  /**
   * Its marker's lifetime: the profile's `ttl` (`'5m'` without one), but `'5m'` after a 5-minute
   * `cache_control` of the caller's (tools, system prompt, messages before it: Anthropic refuses a
   * 1-hour marker after a 5-minute one; the warning `cache_ttl_shortened` says so), and `'1h'`
   * before a 1-hour one of the caller's on a message (the warning `cache_ttl_lengthened`).
   */
  ttl: '5m' | '1h';
}

/** The prompt cache figures of one turn (predictions: the provider decides). */
export interface SessionCacheReport {
  /** Leading messages of this request equal to the previous request's (0 when the system prompt changed). */
  prefixMessages: number;
  /** Their tokens, with the system prompt and the per-message overheads: what the provider could read from its cache. */
  prefixTokens: number;
  /** What the provider is predicted to bill as cached: the prefix up to the previous request's last breakpoint within it (Anthropic), rounded down to steps of 128 (OpenAI); 0 below `minCacheableTokens`. */
  predictedCachedTokens: number;
  /** Where to put `cache_control` (Anthropic), at most `maxBreakpoints`, each with at least `minCacheableTokens` before it. */
  breakpoints: CacheBreakpoint[];
  /** Whether this turn cut the history (else it appended to the previous request, or there was none). */
  cut: boolean;
}

/** `fitMessages`' metrics plus the session's (the cache figures are in `result.cache`, once). */
export interface SessionMetrics extends FitMessagesMetrics {
  /** The input of this request in uncached-token prices: cached tokens × readCost + the rest × writeCost (× 1 without a cache). */
  predicted_cost: number;
  /** Texts whose count came from the session's cache this turn, and texts counted. */
  count_cache_hits: number;
  count_cache_misses: number;
}

/** One turn of a session: what `fitMessages` returns, plus the cache figures. */
export interface SessionFitResult<M> extends FitMessagesResult<M> {
  metrics: SessionMetrics;
  cache: SessionCacheReport;
  /** With `summarize`: the summary in this request (null without one); absent without `summarize`. */
  summary?: SessionSummaryReport | null;
}

/**
 * A session's state as plain JSON: hashes and counts, never the texts themselves. Without a
 * `stateKey` the hashes are public functions of the texts, and a short or guessable text is
 * recovered from them by hashing candidates (docs/sessions.md, "What a state reveals").
 */
export interface SessionState {
  version: 1;
  /** With a `stateKey`: a keyed hash that tells which key wrote the state (absent without one). */
  keyCheck?: string;
  /** The counter the counts are from (`null`: unnamed, so they are not reused). */
  counter: string | null;
  model: string | null;
  /** `[key, count]`, least recently used first; the key is `hash:length` without a `stateKey`, the keyed hash alone with one. */
  counts: [string, number][];
  /** The previous request, or null before the first turn. */
  previous: PreviousRequest | null;
  /** Tokens the history grew by in the last turns (the growth the cut plans for). */
  growth: number[];
}

/** What the session remembers of the request it sent last. */
export interface PreviousRequest {
  /** The history's length then. */
  n: number;
  /** The system prompt's text hash ('' without one). */
  system: string;
  /** Per message sent: its index in the history, its hash, and the prompt's tokens up to and including it. */
  entries: [number, string, number][];
  /** Leading entries that form the stable head: kept through every cut. */
  head: number;
  /** The breakpoints placed: entries before each, and the tokens up to it. */
  breakpoints: [number, number][];
  /** The system prompt's tokens with its overhead, and the request's. */
  systemTokens: number;
  promptTokens: number;
  /** The hash of the text its relevance was measured against (absent in states written before it was kept). */
  query?: string;
}

/** One turn of `replaySession` (and `replaySessionAsync`). */
export interface ReplayTurn {
  /** 1-based. */
  turn: number;
  /** Messages in the history at this turn, and those sent. */
  historyMessages: number;
  sentMessages: number;
  /** `metrics.prompt_tokens`, `metrics.budget_used`, `metrics.effective_budget`. */
  promptTokens: number;
  budgetUsed: number;
  effectiveBudget: number;
  /** The prompt had the whole history been sent (every message with its overhead): the append-only bound's request. */
  historyTokens: number;
  prefixTokens: number;
  predictedCachedTokens: number;
  predictedCost: number;
  cut: boolean;
  /**
   * With `summarize`: the summary in the request (`result.summary`: its id, its place in the
   * messages sent, its tokens, the span it replaces, what its call read and cost), null without
   * one. `replaySession` is synchronous: only a summariser that answers synchronously
   * (`extractiveSummarizer`) is ready in it; `replaySessionAsync` awaits the others.
   */
  summary?: {
    id: string;
    index: number;
    tokens: number;
    replaces: { from: number; to: number };
    callInputTokens: number;
    callCost: number;
    /** The first request of the replay that carries it: its call is made for this one (the later ones resend it). */
    first: boolean;
  } | null;
}

/** `summarizeReplay`: the totals of a replay. Shares are of prompt tokens, 0 over none. */
export interface ReplaySummary {
  requests: number;
  /** Turns that cut the history. */
  cuts: number;
  /** Σ `promptTokens`. */
  promptTokens: number;
  /** Σ `prefixTokens` / Σ `promptTokens`: what the previous request's exact prefix covers. */
  prefixShare: number;
  /** The same share had every request sent the whole history: Σ `historyTokens` of the turn before / Σ `historyTokens`. */
  appendOnlyShare: number;
  /** `prefixShare / appendOnlyShare` (issue 15's target: at least 0.9). */
  ofAppendOnly: number;
  /** Σ `predictedCachedTokens` / Σ `promptTokens`. */
  cachedShare: number;
  /** The mean over turns of `budgetUsed / effectiveBudget`. */
  budgetUse: number;
  /** Σ `predictedCost`, in uncached-token prices (without a cache it would be Σ `promptTokens`). */
  predictedCost: number;
  /** With `summarize`: the summaries sent, and the cost of their calls (each once), in uncached-input prices. */
  summaries?: number;
  summaryCallCost?: number;
  /** With `summarize`: the requests that carry a summary. */
  summarizedRequests?: number;
  /** With `summarize`: `predictedCost + summaryCallCost`, the replay's cost with the summariser's calls. */
  costWithSummaries?: number;
}
