/**
 * The neutral shape every format adapter reads a message into, and the text collector they share.
 *
 * @internal
 * @module
 */

import { CtxpackError, blame, describeValue } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import type { MediaPart, Recognizer } from './media.js';

/** A message's role once read: OpenAI's `developer` and LangChain's `system` are `'system'`, `human` is `'user'`… */
export type TurnRole = 'system' | 'user' | 'assistant' | 'tool';

/** What the structure rules need of one message. */
export interface Turn {
  readonly role: TurnRole;
  /** Ids of the tool calls the message makes (each needs its result). */
  readonly calls: readonly string[];
  /** Ids of the tool calls whose results the message carries. */
  readonly results: readonly string[];
  /** Whether the message carries anything besides tool results (a user turn someone typed). */
  readonly prose: boolean;
  /** The text to count and to score: text parts, tool names and arguments, tool results. */
  readonly text: string;
  /** Its non-text parts (images, PDFs, audio, files), counted from their data by the provider's rule (media.ts), never as text. */
  readonly media?: readonly MediaPart[];
  /** The message's `name` (OpenAI chat, LangChain): not in `text`, counted in its framing (framing.ts). */
  readonly name?: string;
  /**
   * AI SDK tool approvals (`needsApproval`): per `tool-approval-request` of an assistant message,
   * `[approval id, the call it is for]`. The call is then answered by its result or by the
   * approval's response (approved, the SDK runs the tool; denied, it sends an `execution-denied`
   * result), and its result may still follow the response.
   */
  readonly approvalRequests?: readonly (readonly [approvalId: string, callId: string])[];
  /** AI SDK: the approval ids a tool message's `tool-approval-response` parts answer. */
  readonly approvalResponses?: readonly string[];
  /** The message has no content, as its format sees it (see each adapter): rule `empty_content`. */
  readonly emptyContent?: true;
  /** The index of a content part its format refuses as empty (Anthropic: a text block without text): rule `empty_content`. */
  readonly emptyPart?: number;
  /** The index of a tool result that comes after a part of another kind (Anthropic wants them first): rule `tool_result_not_first`. */
  readonly resultAfterOther?: number;
  /**
   * The index of the first part whose `type` the format's API does not list for the message's
   * role (OpenAI chat, the AI SDK: closed lists): rule `unknown_part_type`. `fitMessages` sends
   * such a part as it is (it is the caller's, and a newer API may take it) and warns.
   */
  readonly unknownPart?: number;
  /** Responses: a reasoning item, which the API takes only with the item after it: in that item's unit (rule `reasoning_without_item`). */
  readonly joinsNext?: true;
  /**
   * Responses: an item the model outputs (an assistant message, a call, a hosted tool's item, a
   * reasoning item). After a reasoning item, every such item up to the next one that is not is
   * in the reasoning item's unit: they are one response's, and the API refuses any of them
   * without its reasoning item ("Item 'fc_…' of type 'function_call' was provided without its
   * required 'reasoning' item").
   */
  readonly fromModel?: true;
  /**
   * An assistant message that opens with the model's thinking (Anthropic `thinking` or
   * `redacted_thinking`, a `reasoning` part of the AI SDK or LangChain): when it is the first of
   * the turn in flight (the loop of steps since the latest user message someone wrote), it is
   * pinned with the step in flight (structure.ts `pinnedMessages`): with thinking on, Anthropic
   * refuses a turn whose first assistant message does not open with its thinking ("Expected
   * `thinking` or `redacted_thinking`, but found `tool_use`").
   */
  readonly opensWithThinking?: true;
  /** Responses: the call ids of the programs (`program` items) that made this call or produced this output: in their unit. */
  readonly attachedTo?: readonly string[];
  /** Responses: the item's own `id`, which the API refuses twice in one input (rule `duplicate_item_id`). */
  readonly itemId?: string;
  /**
   * A compaction: a Responses `compaction` item, or an Anthropic assistant message opening with a
   * `compaction` block; it stands for what came before it (structure.ts `compactedItems`).
   */
  readonly compaction?: true;
}

/**
 * Where a format puts tool results: in `tool` messages right after the call, in the next user
 * message (Anthropic), or in any later item that names the call by id (the Responses API).
 */
export type ResultPlacement = 'tool-messages' | 'next-user' | 'by-id';

/** One chat format: how to read a message, and the format's structure rules. */
export interface FormatAdapter {
  readonly name: MessageFormatName;
  /** Reads `messages[index]`; a malformed message is a `CtxpackError` naming `messages[index].<field>`. */
  read(message: unknown, index: number): Turn;
  readonly results: ResultPlacement;
  /** Whether the first message must be from the user (Anthropic; or, there, a compaction). */
  readonly firstFromUser: boolean;
  /**
   * What a compaction stands for: `'model'` (Responses: the model's items before it; the user's
   * messages and instructions stay) or `'all'` (Anthropic: every message before it, and the
   * compaction block must open the request).
   */
  readonly compacts?: 'model' | 'all';
  /**
   * Whether a system message may come after the conversation started (OpenAI chat completions
   * accepts one anywhere; LangChain and the AI SDK pass messages to providers that do not).
   */
  readonly systemAnywhere: boolean;
  /** Whether the API refuses every system message in the messages (ai@7 without `allowSystemInMessages`): rule `system_in_messages`. */
  readonly noSystemMessages?: true;
  /** Whether the last message may be an assistant message with empty content (Anthropic: a prefill). */
  readonly emptyLastAssistant?: boolean;
  /** Whether a tool call's id must be unique in the whole request (Anthropic), not only in its message. */
  readonly callIdsUniqueInRequest?: boolean;
  /**
   * The top-level system prompt the format's API takes beside the messages (`options.system`):
   * what it accepts, and how to say so; `undefined` where the system prompt is a message.
   */
  readonly systemOption?: { accepts(value: unknown): boolean; readonly requirement: string };
  /**
   * A new message like `message` (already read: it carries tool results) whose every tool result
   * reads `replace(its text)` instead, with its call id (and error flag) kept, so that the pair
   * stays valid: `fitMessages`' stubs (`stubToolResults`) and truncated results. With
   * `keepMedia` (truncation: the result is cut, not left out) its images, PDFs and files stay, and
   * only its text is replaced ({@link replacedResult}). `undefined` when the message cannot be
   * copied. The caller's message is never modified.
   */
  replaceResults(message: unknown, replace: (text: string) => string, keepMedia?: boolean): unknown;
  /**
   * A new message like `message` whose non-text parts (images, PDFs, audio, files) each read as a
   * text part with their note (`[image omitted: 1568×980]`, media-notes.ts `mediaNote`), valid where
   * the part was: `fitMessages`' media stubs (`stubMedia`), and with `only` (the `part` objects
   * of the message's {@link MediaPart}s) just those: the media of a step in flight that does not
   * fit, replaced the largest first (truncate.ts). `undefined` when nothing can be replaced. The
   * caller's message is never modified.
   */
  replaceMedia(message: unknown, only?: ReadonlySet<object>): unknown;
  /**
   * A new user message like `message` whose typed text (its content as a string, or each text
   * part's text) reads `replace(that text)`, its other parts kept: a pasted user message
   * truncated (`truncateUserMessage`). The caller's message is never modified.
   */
  replaceText(message: unknown, replace: (text: string) => string): unknown;
  /**
   * A new message like `message`, of its own class, with `content`: how a format whose messages
   * are instances (LangChain's) is copied with other content (markers.ts `capMarkers`);
   * `undefined` if the class refuses. Absent where a message is a plain record.
   */
  readonly withContent?: (message: unknown, content: unknown) => unknown;
}

/** A copy of `message` with `content`, as its format copies one ({@link FormatAdapter.withContent}, else the record's fields); `undefined` if its class refuses. */
export function copyWithContent<M>(adapter: FormatAdapter, message: M, content: unknown): M | undefined {
  return (adapter.withContent === undefined ? { ...message, content } : adapter.withContent(message, content)) as M | undefined;
}

/** The formats `fitMessages` and `validateMessages` take. */
export type MessageFormatName = 'openai' | 'openai-responses' | 'anthropic' | 'ai-sdk' | 'langchain';

/** Property names whose values are identifiers, signatures or encoded bytes, not text the model reads as words. */
const NOT_TEXT = new Set([
  'type',
  'id',
  'role',
  'tool_call_id',
  'tool_use_id',
  'toolCallId',
  'approvalId',
  'signature',
  'data',
  'media_type',
  'mediaType',
  'providerOptions',
  'providerMetadata',
  'cache_control',
  'citations',
  'experimental_providerMetadata',
]);

/** Deeper than this, a value is not read (a cycle, or a structure no model request holds). */
const MAX_DEPTH = 32;

/**
 * The text of a content value: strings as they are, numbers and booleans printed, and the values
 * (not the keys) of arrays and objects, depth first, skipping {@link NOT_TEXT} properties. Bytes
 * (typed arrays, ArrayBuffers) are never text. With `media`, each part its format's recognizer
 * names as non-text (an image, a PDF…) goes to `media.out` instead, and only what the recognizer
 * says is text of it is read (media.ts). Each object is read once (`seen`), so shared or cyclic
 * structures cost linear time.
 */
export function collectText(value: unknown, out: string[] = [], media?: MediaSink): string[] {
  walk(value, out, 0, new Set(), media);
  return out;
}

/**
 * What the provider reads of a value it is sent as JSON (a tool call's arguments object, an AI
 * SDK tool result's `json` output): its JSON text, keys and punctuation included, and every field
 * (an `id` in the caller's data is data). A value JSON cannot write (a BigInt, a cycle, a throwing
 * `toJSON`) is read as any content is, its values only.
 */
export function jsonText(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  try {
    return JSON.stringify(value) ?? value;
  } catch {
    return value;
  }
}

/** Where `collectText` puts the non-text parts it finds, and how it finds them. */
export interface MediaSink {
  readonly recognize: Recognizer;
  readonly out: MediaPart[];
}

function walk(value: unknown, out: string[], depth: number, seen: Set<object>, media: MediaSink | undefined): void {
  if (typeof value === 'string') {
    if (value.length > 0) out.push(value);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
  } else if (depth < MAX_DEPTH && typeof value === 'object' && value !== null && !seen.has(value)) {
    // Bytes are not text (counting a Buffer's bytes as numbers took seconds and millions of tokens).
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const v of value) walk(v, out, depth + 1, seen, media);
      return;
    }
    if (!isRecord(value)) return;
    const found = media?.recognize(value);
    if (found !== undefined) {
      if (found.media !== undefined) media!.out.push(found.media);
      walk(found.text, out, depth + 1, seen, media);
      return;
    }
    for (const key of Object.keys(value)) if (!NOT_TEXT.has(key)) walk(value[key], out, depth + 1, seen, media);
  }
}

/** `messages[index].field must be …, got …` (never the value itself). */
export function messageError(index: number, field: string, requirement: string, value: unknown): CtxpackError {
  return new CtxpackError('INVALID_FIELD', `messages[${index}].${field} must be ${requirement}, got ${describeValue(value)}`, {
    field,
    index,
  });
}

/** A message must be an object. */
export function messageRecord(message: unknown, index: number): Readonly<Record<string, unknown>> {
  if (!isRecord(message)) {
    throw new CtxpackError('INVALID_FIELD', `messages[${index}] must be an object, got ${describeValue(message)}`, {
      field: 'messages',
      index,
    });
  }
  return message;
}

/** A tool-call id: a non-empty string. */
export function readCallId(value: unknown, index: number, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw messageError(index, field, 'a non-empty string', value);
  return value;
}

/** The part types whose text is their `text` field: OpenAI's, Anthropic's and the AI SDK's `text`, the Responses API's `input_text` and `output_text`. */
const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);

/** An array of content parts (objects), or a string; `field` names it in errors. */
export function readParts(value: unknown, index: number, field: string, allowString: boolean): readonly Readonly<Record<string, unknown>>[] {
  if (allowString && typeof value === 'string') return [];
  if (!Array.isArray(value)) throw messageError(index, field, allowString ? 'a string or an array of parts' : 'an array of parts', value);
  for (let k = 0; k < value.length; k++) {
    const p: unknown = value[k];
    if (!isRecord(p)) throw messageError(index, `${field}[${k}]`, 'an object', p);
    // A text part's text is a string in every format that types its parts so (every API refuses another).
    if (TEXT_PARTS.has(p['type'] as string) && typeof p['text'] !== 'string') throw messageError(index, `${field}[${k}].text`, 'a string', p['text']);
  }
  return value as readonly Readonly<Record<string, unknown>>[];
}

/**
 * The index of the first of `parts` whose `type` is not in `known`, if any: where a format's API
 * lists the part types each role takes (OpenAI chat, the AI SDK), the rest is refused there.
 */
export function firstUnknownPart(parts: readonly Readonly<Record<string, unknown>>[], known: readonly string[]): number | undefined {
  for (let k = 0; k < parts.length; k++) {
    const type = parts[k]!['type'];
    if (typeof type !== 'string' || !known.includes(type)) return k;
  }
  return undefined;
}

/**
 * An assistant message's `tool_calls` array (OpenAI and LangChain share its shape): each call's
 * `id` into `calls`, and the text `textOf(call)` names (function name and arguments) into `text`.
 * With `idOptional` (LangChain, whose `ToolCall.id` is optional), a call without an id is one that
 * no result can answer: its message breaks `missing_tool_result` and is left out like any other
 * unanswered call, instead of the whole history being refused.
 */
export function readToolCalls(
  value: unknown,
  index: number,
  calls: string[],
  text: string[],
  textOf: (call: Readonly<Record<string, unknown>>) => unknown,
  idOptional = false,
): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw messageError(index, 'tool_calls', 'an array', value);
  for (let k = 0; k < value.length; k++) {
    const call: unknown = value[k];
    if (!isRecord(call)) throw messageError(index, `tool_calls[${k}]`, 'an object', call);
    const id = call['id'];
    calls.push(idOptional && (id === undefined || id === null) ? unanswerableCall(`messages[${index}].tool_calls[${k}] has no id`) : readCallId(id, index, `tool_calls[${k}].id`));
    collectText(textOf(call), text);
  }
}

/**
 * A call id that no tool result names (a NUL-led key saying `why`), for a call its message makes
 * but nothing can answer: the message then breaks `missing_tool_result`, as an unanswered call.
 */
export function unanswerableCall(why: string): string {
  return `\u0000${why}`;
}

/** `turn` with `media` when there is any. */
export function withMedia(turn: Turn, media: readonly MediaPart[]): Turn {
  return media.length === 0 ? turn : { ...turn, media };
}

/** The part types of the model's thinking: Anthropic's two, and the `reasoning` part of the AI SDK and of LangChain's standard blocks. */
const THINKING_PARTS: ReadonlySet<unknown> = new Set(['thinking', 'redacted_thinking', 'reasoning']);

/** `turn` marked {@link Turn.opensWithThinking} when it is an assistant message whose `content` (its parts) opens with a thinking part. */
export function withThinking(turn: Turn, content: unknown): Turn {
  if (turn.role !== 'assistant' || !Array.isArray(content)) return turn;
  const first: unknown = content[0];
  return isRecord(first) && THINKING_PARTS.has(first['type']) ? { ...turn, opensWithThinking: true } : turn;
}

/** `turn` with the message's `name` when it is a non-empty string, as its framing counts it. */
export function withName(turn: Turn, name: unknown): Turn {
  return typeof name === 'string' && name.length > 0 ? { ...turn, name } : turn;
}

/**
 * A copy of a message whose `content` is a string or parts, with its text replaced: the string as
 * `replace(it)`, or each text part's (`text`, `input_text`) `text` as `replace(it)`, the other
 * parts kept (FormatAdapter `replaceText`).
 */
export function replaceMessageText(message: unknown, replace: (text: string) => string): Record<string, unknown> {
  const m = message as Record<string, unknown>;
  return { ...m, content: replaceContentText(m['content'], replace) };
}

/** {@link replaceMessageText}'s content. */
export function replaceContentText(content: unknown, replace: (text: string) => string): unknown {
  if (typeof content === 'string') return replace(content);
  if (!Array.isArray(content)) return content;
  return content.map((p: unknown) =>
    isRecord(p) && (p['type'] === 'text' || p['type'] === 'input_text') && typeof p['text'] === 'string' ? { ...p, text: replace(p['text']) } : p,
  );
}

/**
 * A tool result's content with its text replaced: the text of all of it as `replace(text)`, one
 * string. With `textPart` (truncation keeps a result's media: a computer-use agent's screenshot is
 * what its step is about, and costs what it costs whether the text is cut or not) and an array
 * holding parts its format reads as media, those parts stay as they were, in their order, and the
 * rest becomes one `textPart(replace(its text))` where the first of it was.
 */
export function replacedResult(content: unknown, recognize: Recognizer, replace: (text: string) => string, textPart?: (text: string) => unknown): unknown {
  const isMedia = (p: unknown): boolean => isRecord(p) && recognize(p)?.media !== undefined;
  if (textPart === undefined || !Array.isArray(content) || !content.some(isMedia)) {
    return replace(joinText(collectText(content, [], { recognize, out: [] })));
  }
  const text: string[] = [];
  const out: unknown[] = [];
  let at = -1;
  for (const p of content) {
    if (isMedia(p)) out.push(p);
    else {
      if (at < 0) at = out.push(undefined) - 1;
      collectText(p, text, { recognize, out: [] });
    }
  }
  if (at >= 0) out[at] = textPart(replace(joinText(text)));
  return out;
}

/** Joins the text pieces of a message. */
export function joinText(pieces: readonly string[]): string {
  return pieces.join('\n');
}

/** Reads one message; anything but a CtxpackError thrown while reading it (a throwing getter) becomes one naming the message. */
export function readTurn(adapter: FormatAdapter, message: unknown, index: number): Turn {
  try {
    return adapter.read(message, index);
  } catch (err) {
    const e = blame(err, [message]);
    if (e.code !== 'INVALID_INPUT') throw e;
    throw new CtxpackError('INVALID_FIELD', `messages[${index}] could not be read: reading it threw (the thrown value is this error's cause)`, {
      field: 'messages',
      index,
      cause: e.cause,
    });
  }
}
