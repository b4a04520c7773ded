/**
 * The types of the message layer: `fitMessages`, `validateMessages`, their options and results.
 *
 * @module
 */

import type { Budgets, DecisionReason } from '../types.js';
import type { TokenCountCache } from '../tokens/shared.js';
import type { EmbeddingCache } from './caller.js';

/** Chat formats of `fitMessages` and `validateMessages`: `'openai-responses'` is the input items of OpenAI's Responses API. */
export type MessageFormat = 'openai' | 'openai-responses' | 'anthropic' | 'ai-sdk' | 'langchain';

/** The item types of a Responses API input list besides messages (openai 7.57, `ResponseInputItem`). */
export type ResponsesItemType =
  | 'function_call'
  | 'function_call_output'
  | 'custom_tool_call'
  | 'custom_tool_call_output'
  | 'computer_call'
  | 'computer_call_output'
  | 'file_search_call'
  | 'web_search_call'
  | 'code_interpreter_call'
  | 'image_generation_call'
  | 'local_shell_call'
  | 'local_shell_call_output'
  | 'shell_call'
  | 'shell_call_output'
  | 'apply_patch_call'
  | 'apply_patch_call_output'
  | 'mcp_call'
  | 'mcp_list_tools'
  | 'mcp_approval_request'
  | 'mcp_approval_response'
  | 'tool_search_call'
  | 'tool_search_output'
  | 'additional_tools'
  | 'configuration_update'
  | 'program'
  | 'program_output'
  | 'reasoning'
  | 'compaction'
  | 'compaction_trigger'
  | 'item_reference';

/**
 * One input item of OpenAI's Responses API, as `fitMessages(items, { format: 'openai-responses' })`
 * reads it: only the fields it reads are typed, so the SDK's `ResponseInputItem` (openai 7) and
 * the OpenAI Agents SDK's items are assignable to it.
 */
export type ResponsesItem =
  | {
      /** Absent in the SDK's `EasyInputMessage`. */
      readonly type?: 'message';
      readonly role: 'user' | 'assistant' | 'system' | 'developer';
      readonly content: string | readonly { readonly type: string }[];
      readonly id?: string | null;
    }
  | { readonly type: ResponsesItemType; readonly id?: string | null; readonly call_id?: string | null }
  /** An item referenced by id (its `type` may be absent). */
  | { readonly type?: 'item_reference' | null; readonly id: string };

/**
 * The AI SDK format with its option: `allowSystemInMessages`, as passed to ai@7's generateText,
 * streamText or ToolLoopAgent, lets system messages stand anywhere in the messages (refused after
 * the conversation started otherwise, as ai@7 refuses them by default).
 */
export interface AiSdkFormat {
  name: 'ai-sdk';
  allowSystemInMessages?: boolean;
}

/**
 * A rule a conversation breaks (see `validateMessages`): `'malformed'` (a message its format cannot
 * read, a hole in the array included: the message names the field), `'no_messages'`,
 * `'system_not_first'`, `'first_not_user'` (Anthropic), `'missing_tool_result'`,
 * `'orphan_tool_result'`, `'duplicate_tool_call_id'`, `'empty_content'`, `'tool_result_not_first'`
 * (Anthropic), `'reasoning_without_item'` (Responses: a reasoning item with no item after it),
 * `'duplicate_item_id'` (Responses: an item with an earlier item's `id`), `'compaction_not_first'`
 * (Anthropic: a message opening with a `compaction` block after another message),
 * `'system_in_messages'` (AI SDK without `allowSystemInMessages`: any system message),
 * `'unknown_part_type'` (OpenAI chat, AI SDK: a content part of a type the API does not list for
 * the message's role; `fitMessages` sends it as it is and warns).
 */
export type MessageRule =
  | 'malformed'
  | 'no_messages'
  | 'system_not_first'
  | 'first_not_user'
  | 'missing_tool_result'
  | 'orphan_tool_result'
  | 'duplicate_tool_call_id'
  | 'empty_content'
  | 'tool_result_not_first'
  | 'reasoning_without_item'
  | 'duplicate_item_id'
  | 'compaction_not_first'
  | 'system_in_messages'
  | 'unknown_part_type';

/** One rule violation: the message at fault (0 for `no_messages`), the rule, and a message naming indexes, never text. */
export interface MessageViolation {
  index: number;
  rule: MessageRule;
  message: string;
}

/**
 * Weights of `fitMessages`' relevance (docs/messages.md, "Relevance"):
 * `value = (n + neighbour · max(n₋₁, n₊₁) + recency · exp(−turnsAfter / recencyTurns)) / (1 + neighbour + recency)`
 * with `n` the message's BM25 score for the query divided by the highest one.
 */
export interface RelevanceWeights {
  /** BM25 term saturation. Default 1.2. */
  k1?: number;
  /** BM25 length normalisation, 0 to 1. Default 0.75. */
  b?: number;
  /** Share of the better neighbour's relevance a message inherits. Default 0.35 (tuned on eval/: issue 31). */
  neighbour?: number;
  /** Weight of recency, measured in turns. Default 0.05. */
  recency?: number;
  /** Turns over which recency falls to 1/e. Default 40. */
  recencyTurns?: number;
  /**
   * With `scores` or `embed`: the share of your relevance in the fused score `n`, 0 to 1 (0: BM25
   * alone, 1: yours alone). Default 0.5.
   */
  caller?: number;
  /**
   * With `scores` or `embed`: how your relevance and BM25 are fused into `n` (docs/messages.md,
   * "Your own relevance"): `'weighted'`, the weighted sum of the two max-normalised scores, or
   * `'rrf'`, reciprocal rank fusion (k = 60). Default `'weighted'`.
   */
  fusion?: 'weighted' | 'rrf';
}

/** Options of `fitMessages`; `M` is the message type (what `keep`'s predicate receives). */
export interface FitMessagesOptions<M = unknown> {
  /** The messages' format; the AI SDK's with its option: `{ name: 'ai-sdk', allowSystemInMessages: true }`. */
  format: MessageFormat | AiSdkFormat;
  /** The budgets, as for `selectFragments`; `per_fragment_overhead` is charged per message. */
  budgets: Budgets;
  /**
   * The top-level system prompt, for the formats whose API takes it beside the messages:
   * Anthropic's `system` (a string or text blocks), the Responses API's `instructions` (a string,
   * or an array of input items) and the AI SDK's `system` / `instructions` (a string, a system
   * message or an array of them; ai@7 refuses system messages in `messages` unless
   * `allowSystemInMessages` is set). Always kept and counted, never returned: pass the same
   * value to the API. Any other format: `INVALID_OPTION`.
   */
  system?: string | object | readonly unknown[];
  /** Counts a message's text (see `PlannerOptions.countTokens`). Default `estimateTokens`. */
  countTokens?: (text: string, model?: string) => number;
  /** Passed to `countTokens`. */
  model?: string;
  /**
   * Counts shared with other calls (`createCountCache()`): a text counted by an earlier call with
   * the same `countTokens` and `model` is not counted again. Default: none (each call counts its
   * texts once). Sessions keep their own counts and refuse it.
   */
  countCache?: TokenCountCache;
  /** Also always keep the last N messages, or the messages for which the predicate is true. */
  keep?: number | ((message: M, index: number) => boolean);
  /** The text relevance is measured against. Default: the text of the latest user message. */
  query?: string;
  /** How the budget is filled among the messages not kept by rule. Default `'ranked'`: walk the messages by value, highest first, taking each unit that still fits; `'exact'` maximises the total value instead. */
  slicer?: 'ranked' | 'exact' | 'knapsack' | 'greedy' | 'packer';
  /** The relevance formula's weights. */
  relevance?: RelevanceWeights;
  /**
   * Your own relevance of each message, one finite number ≥ 0 per message (higher is more
   * relevant; any scale: it is max-normalised), fused with BM25 by `relevance.fusion` with the
   * share `relevance.caller` (default: half each; `relevance: { caller: 1 }` for yours alone).
   * Scores of messages kept by rule are ignored. Not with `embed`. A session takes it per turn.
   */
  scores?: readonly number[] | Float64Array | Float32Array;
  /**
   * Offer a stub of every tool result that is not kept by rule: a new message object (yours are
   * never modified) whose tool results read `[tool result omitted: N characters]`, with the same
   * tool call ids, so the call and its result stay a valid pair. The strategy then chooses, per
   * message, the full result, the stub or neither (a multiple-choice knapsack; the stub's value is
   * the message's × `sqrt(stub tokens / full tokens)`, docs/variants.md). Default `false`. A
   * session keeps a message it sent as its stub as the stub while it stays in the reused prefix
   * (its saved state remembers which).
   */
  stubToolResults?: boolean;
  /**
   * Offer a stub of every message with images, PDFs, audio or files that is not kept by rule: a
   * new message object whose non-text parts each read as a text part with a note, valid where
   * the part was (in a user message, an Anthropic `tool_result`, an AI SDK tool result's
   * content, a LangChain block): `[image omitted: 1568×980]` (the size from the image's header),
   * `[PDF omitted: 12 pages]`, `[audio omitted]`, `[file omitted]`. Its text stays, so an old
   * screenshot step goes in as its text instead of being left out whole. The strategy chooses as
   * for `stubToolResults` (with it, one stub has both); the decision says `stubbed: true`. The
   * stub depends on the message alone: the same bytes on every turn. A Responses computer call's
   * screenshot is never stubbed (its output must be one). Default `false`. Sessions take it as
   * they take `stubToolResults`.
   */
  stubMedia?: boolean;
  /**
   * Tool results too large for the budget are sent truncated instead of failing the request: the
   * head and the tail of each result's text with a marker (`[… N characters left out …]`) between,
   * the call ids kept, so the pair stays valid. Every result over `maxTokens` (default: half the
   * effective budget) is cut to it, the same bytes on every turn (a prompt cache holds on); and
   * when what must be kept (system prompt, the task, the step in flight, `keep`) still exceeds the
   * budget, its largest results are cut further to one size that makes it fit. When it would not
   * fit even with their texts cut to the markers alone (a tool that returns a 45-page PDF), the
   * images, PDFs and files of the results in flight go in as their notes (`[PDF omitted: 45
   * pages]`, as `stubMedia` writes them), the largest first and only as many as it takes, with the
   * warning `media_replaced: messages[i] …`; `media: false` keeps them. The decision says
   * `truncated: { from, to }`. `PINNED_OVER_BUDGET` then means the rest alone does not fit.
   * Default `true`; `false` sends results whole, media and all (and fails when they cannot be).
   */
  truncateToolResults?: boolean | { maxTokens?: number; media?: boolean };
  /**
   * When what must be kept still exceeds the budget with its tool results truncated (a pasted log
   * or file as the task: the system prompt and the task alone do not fit), cut the text of the
   * user messages kept by rule too, as tool results are cut: their head and tail with the marker
   * `[… N characters left out …]`, sharing the room with the results (the largest first), their
   * images and other parts kept. The decision says `truncated: { from, to }`. Default `false`:
   * `PINNED_OVER_BUDGET`, as before. Sessions take it as `fitMessages` does.
   */
  truncateUserMessage?: boolean;
  /**
   * Whose rules count the messages' images and PDFs: `'openai'`, `'anthropic'` or `'gemini'`.
   * Default: `'anthropic'` for the `'anthropic'` format, else `'openai'` (the AI SDK and LangChain
   * say nothing of the provider they send to: set it). `options.model` picks the model's rule
   * (docs/messages.md, "Images, PDFs and other parts"). `'anthropic'` also makes the request open
   * with a user message after its system messages, as in the `'anthropic'` format (Claude on
   * Bedrock refuses an assistant first).
   */
  provider?: 'openai' | 'anthropic' | 'gemini';
  /**
   * Counts a non-text part (an image, a PDF, audio, a file) instead of the provider's rule: the
   * caller's part as it is in the message, and the provider and model. Return an integer from 0
   * to 4294967295, or `undefined` for the default rule; anything else is `TOKEN_COUNT_FAILED`.
   */
  countPart?: (part: unknown, context: { provider: 'openai' | 'anthropic' | 'gemini'; model: string | undefined }) => number | undefined;
  /**
   * The tool definitions of the request, as the provider takes them (an array, or the AI SDK's
   * object of tools): counted as their JSON text through `countTokens` (functions left out), an
   * approximation of the provider's own rendering of tool schemas, and charged like the system
   * prompt: always, never returned. Anthropic: their `cache_control` markers count toward the 4
   * a request may carry.
   */
  tools?: readonly unknown[] | object;
  /**
   * Count each message's framing as its provider (`provider`) does: OpenAI's documented 3 tokens
   * per message and its role's 1 token, 1 more plus the name's tokens for a message with a `name`,
   * and 3 for the reply's priming (the cookbook's `num_tokens_from_messages`); `options.system` is
   * framed as a system message. Anthropic and Gemini document none: the same figures, an
   * approximation (docs/messages.md, "Counting"). It is part of each decision's `cost_tokens`
   * and, for the reply, of `tokens_selected`. Default `true`; `false` counts the texts alone
   * (`per_fragment_overhead` is charged on top either way).
   */
  framing?: boolean;
}

/** Options of `fitMessagesAsync`: those of `fitMessages`, with a counter that may return a Promise, and an embedder. */
export interface FitMessagesAsyncOptions<M = unknown> extends Omit<FitMessagesOptions<M>, 'countTokens'> {
  /** Counts a message's text; may return a Promise (a provider's count-tokens endpoint). Default `estimateTokens`. */
  countTokens?: (text: string, model?: string) => number | PromiseLike<number>;
  /** Counts in flight at once. Default 8. */
  concurrency?: number;
  /**
   * Your embedding model: one vector per text, in order (arrays or typed arrays of equal length).
   * Called once per fit with the texts no cache holds: the query's (by default the latest user
   * message's) and those of the messages that compete for the budget, each distinct text once,
   * never an empty one. A message's relevance is then the cosine of its vector with the query's
   * (negative as 0), fused with BM25 as `scores` are. A bad answer is `INVALID_EMBEDDING`; a throw
   * or rejection is a warning (`embed_failed: …`) and the fit's relevance is BM25 alone.
   * `fitMessages` refuses it (use this function). Not with `scores`.
   */
  embed?: (texts: string[]) => PromiseLike<readonly (readonly number[] | Float32Array | Float64Array)[]>;
  /**
   * Vectors shared with other calls (`createEmbeddingCache()`): a text embedded by an earlier call
   * with the same `embed` function is not embedded again. Default: none. Sessions keep their own.
   */
  embedCache?: EmbeddingCache;
}

/**
 * Why a message is in or out: `'pinned'` (kept by rule), the slicer's reasons (`'scored'`,
 * `'zero_tokens'`, `'no_budget'`, `'budget_exceeded'`, `'not_in_optimal_set'`,
 * `'skip_limit_reached'`, `'group_excluded'`: its tool call or result did not go in), or
 * `'invalid_structure'` (it breaks a rule of its format, `validateMessages`: an orphaned call or result, a duplicate call id, empty content…; never sent)
 * and `'first_not_user'` (Anthropic, or `provider: 'anthropic'`: left out so that the request starts with a user message),
 * `'compacted'` (what the latest compaction stands for: Responses, a model item before the latest `compaction` item; Anthropic, every message before the one opening with the latest `compaction` block).
 * A session (`createSession`) adds `'cached_prefix'` (kept because the previous request had it:
 * the prompt cache's prefix) and `'cache_cut'` (left out at an earlier cut, so that the prefix
 * stays what the provider has cached); with `summarize`, `'summarized'` (left out, and replaced
 * in the request by the summary `summary` names).
 */
export type MessageDecisionReason = DecisionReason | 'pinned' | 'invalid_structure' | 'first_not_user' | 'compacted' | 'cached_prefix' | 'cache_cut' | 'summarized';

/** The verdict on one message. */
export interface MessageDecision {
  /** Position in the input. */
  index: number;
  /** Whether the message is in the result. */
  included: boolean;
  /** Why; see {@link MessageDecisionReason}. */
  reason: MessageDecisionReason;
  /** Its token count (without `per_fragment_overhead`). */
  cost_tokens: number;
  /** Its relevance value in [0, 1] (1 for pinned messages). */
  score: number;
  /** The index of the first message of its atomic unit (itself when alone). */
  unit: number;
  /** `stubToolResults`: `true` when the message went in as its stub (a new object in `messages`). */
  stubbed?: true;
  /** With `stubbed`: the stub's token count, which is what the request carries. */
  stub_tokens?: number;
  /** The part of `cost_tokens` its non-text parts take (images, PDFs: counted by the provider's rule, see `FitMessagesOptions.provider`); absent when 0. */
  media_tokens?: number;
  /** A session's `summarize`: the id of the summary that stands for the message in the request (reason `'summarized'`). */
  summary?: string;
  /** `truncateToolResults`: the message's tool results went in truncated (a new object in `messages`), `from` its full count, `to` its count as sent (`cost_tokens`). */
  truncated?: { from: number; to: number };
}

/** Metrics of `fitMessages`, named as the planner's. */
export interface FitMessagesMetrics {
  /** Number of input messages. */
  candidate_count: number;
  /** Messages kept. */
  messages_kept: number;
  /** Tokens of what is kept by rule (system prompt and pinned messages, with their per-message overhead). */
  pinned_tokens: number;
  /** Sum of the kept messages' counts and the system prompt's, without overheads. */
  tokens_selected: number;
  /** Messages whose text was counted. */
  fragments_counted: number;
  /** See `PlannerMetrics.effective_budget`. */
  effective_budget: number;
  /** `tokens_selected + per_fragment_overhead × (kept messages + 1 with a system prompt)`. */
  budget_used: number;
  /** `overhead_tokens + budget_used`. */
  prompt_tokens: number;
  /** Wall time of the call in milliseconds. */
  planner_ms: number;
}

/** Result of `fitMessages`. */
export interface FitMessagesResult<M> {
  /** Your message objects, unmodified, in conversation order: a subsequence of the input. */
  messages: M[];
  /** One per input message, in input order. */
  decisions: MessageDecision[];
  metrics: FitMessagesMetrics;
  /** Warnings; they name messages by index, never by text. */
  warnings: string[];
}
