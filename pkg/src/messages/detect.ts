/**
 * `detectMessageFormat`: which of the five formats a chat history is written in, from the shapes
 * of its messages. The CLI and the preview page use it for histories that do not say.
 *
 * @module
 */

import { readingInput } from '../errors.js';
import { RESPONSES_ITEM_TYPES } from './responses.js';
import type { MessageFormatName } from './turns.js';
import { messageArray } from './validate.js';

/** AI SDK `ModelMessage` part types no other format uses (`@ai-sdk/provider-utils`: `AssistantContent`, `ToolContent`). */
const AI_SDK_PARTS = new Set(['tool-call', 'tool-result', 'reasoning', 'reasoning-file', 'custom', 'tool-approval-request', 'tool-approval-response']);
/**
 * Anthropic Messages block types no other format uses: every member of `ContentBlockParam` and
 * `BetaContentBlockParam` (@anthropic-ai/sdk 1.13) but `text`, `image` and `document`, which
 * {@link formatOfPart} tells apart by their fields.
 */
const ANTHROPIC_BLOCKS = new Set([
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'mcp_tool_listing',
  'container_upload',
  'compaction',
  'tool_addition',
  'tool_removal',
  'fallback',
]);
const OPENAI_ROLES = new Set(['system', 'developer', 'tool', 'function']);
/** Content part types of the Responses API that chat completions does not use (it shares `refusal`). */
const RESPONSES_PARTS = new Set(['input_text', 'output_text', 'input_image', 'input_file']);

/** An item of the Responses API: a Responses item `type` on the item itself (no other format types its messages so), or a Responses content part. */
function isResponsesItem(m: Readonly<Record<string, unknown>>): boolean {
  const type = m['type'];
  if (typeof type === 'string' && RESPONSES_ITEM_TYPES.has(type)) return true;
  const content = m['content'];
  return Array.isArray(content) && content.some((p) => isRecord(p) && typeof p['type'] === 'string' && RESPONSES_PARTS.has(p['type']));
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null;
}

/** A LangChain message instance: it has the class's own type methods (a plain JSON object does not). */
function isLangChain(m: Readonly<Record<string, unknown>>): boolean {
  return typeof m['getType'] === 'function' || typeof m['_getType'] === 'function';
}

/**
 * The format a content part's shape belongs to, or `undefined` for a shape several formats share
 * (`text`) or none has. Type names used by two formats decide by the field only one of them has:
 * Anthropic's `image` and `document` blocks carry a `source`, the AI SDK's `image` part an
 * `image` and its `file` part a `data` (OpenAI's `file` part nests its fields under `file`).
 */
function formatOfPart(p: Readonly<Record<string, unknown>>): 'ai-sdk' | 'anthropic' | undefined {
  const type = p['type'];
  if (typeof type !== 'string') return undefined;
  if (AI_SDK_PARTS.has(type) || (type === 'image' && p['image'] !== undefined) || (type === 'file' && p['data'] !== undefined)) return 'ai-sdk';
  if (ANTHROPIC_BLOCKS.has(type) || ((type === 'image' || type === 'document') && p['source'] !== undefined)) return 'anthropic';
  return undefined;
}

/**
 * The format of `messages`, decided by the first rule that matches:
 *
 * 1. a message with LangChain's `getType()` / `_getType()` methods: `'langchain'`;
 * 2. a Responses API item: an item whose own `type` is one of the API's input item types
 *    (`message`, `function_call`, `function_call_output`, `reasoning`, `compaction`, …), or a
 *    content part `input_text`, `output_text`, `input_image` or `input_file`: `'openai-responses'`;
 * 3. an AI SDK part: typed `tool-call`, `tool-result`, `reasoning`, `reasoning-file`, `custom`,
 *    `tool-approval-request` or `tool-approval-response`, an `image` part with an `image` field or
 *    a `file` part with a `data` field: `'ai-sdk'`;
 * 4. an Anthropic block: any type of the Messages API's content blocks but `text` (`tool_use`,
 *    `tool_result`, `thinking`, `server_tool_use`, `mcp_tool_use`, `search_result`,
 *    `container_upload`, `compaction`, the server tools' results…), or an `image` or `document`
 *    block with a `source` field: `'anthropic'`;
 * 5. a `system`, `developer`, `tool` or `function` role, or `tool_calls` or `function_call` on a message: `'openai'`;
 * 6. otherwise (plain user and assistant text, which every format reads alike): `'anthropic'` when
 *    `options.system` (Anthropic's top-level system prompt) is given, else `'openai'`.
 *
 * Only shapes are read, never text. `messages` that is not an array is `INVALID_INPUT`; a
 * message that fits no format is left to `fitMessages` / `validateMessages` to report.
 *
 * @example
 * ```ts
 * detectMessageFormat([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }]); // 'anthropic'
 * ```
 */
export function detectMessageFormat(messages: readonly unknown[], options: { system?: unknown } = {}): MessageFormatName {
  return readingInput(() => detect(messageArray(messages), options), messages, options);
}

/**
 * The format `messages` show by a shape only it has (rules 1 to 4 of {@link detectMessageFormat}:
 * LangChain's classes, a Responses item, an AI SDK part, an Anthropic block), or `undefined`
 * when nothing tells (roles and plain text read alike in every format). @internal
 */
export function evidentFormat(messages: readonly unknown[]): MessageFormatName | undefined {
  let mask = 0;
  for (const m of messages) mask |= evidence(m);
  return evidentOf(mask);
}

/** What one message shows (bits: LangChain's classes, a Responses item, an AI SDK part, an Anthropic block; an array as a `tool` message's content is not one: OpenAI's takes text parts). @internal */
export function evidence(m: unknown): number {
  if (!isRecord(m)) return 0;
  let mask = (isLangChain(m) ? LANGCHAIN : 0) | (isResponsesItem(m) ? RESPONSES : 0);
  const content = m['content'];
  if (Array.isArray(content)) {
    for (const p of content) {
      if (!isRecord(p)) continue;
      const f = formatOfPart(p);
      if (f === 'ai-sdk') mask |= AI_SDK;
      else if (f === 'anthropic') mask |= ANTHROPIC;
    }
  }
  return mask;
}

const LANGCHAIN = 1;
const RESPONSES = 2;
const AI_SDK = 4;
const ANTHROPIC = 8;

/** The format the messages' {@link evidence}, or'ed, shows, by the first rule that matches. @internal */
export function evidentOf(mask: number): MessageFormatName | undefined {
  if ((mask & LANGCHAIN) !== 0) return 'langchain';
  if ((mask & RESPONSES) !== 0) return 'openai-responses';
  if ((mask & AI_SDK) !== 0) return 'ai-sdk';
  if ((mask & ANTHROPIC) !== 0) return 'anthropic';
  return undefined;
}

function detect(messages: readonly unknown[], options: { system?: unknown }): MessageFormatName {
  const evident = evidentFormat(messages);
  if (evident !== undefined) return evident;
  const records = messages.filter(isRecord);
  if (records.some((m) => (typeof m['role'] === 'string' && OPENAI_ROLES.has(m['role'])) || m['tool_calls'] !== undefined || m['function_call'] !== undefined)) return 'openai';
  return isRecord(options) && options.system !== undefined ? 'anthropic' : 'openai';
}
