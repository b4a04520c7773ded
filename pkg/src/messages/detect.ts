/**
 * `detectMessageFormat`: which of the four formats a chat history is written in, from the shapes
 * of its messages. The CLI and the preview page use it for histories that do not say.
 *
 * @module
 */

import { readingInput } from '../errors.js';
import type { MessageFormatName } from './turns.js';
import { messageArray } from './validate.js';

const AI_SDK_PARTS = new Set(['tool-call', 'tool-result', 'reasoning', 'tool-approval-request', 'tool-approval-response']);
const ANTHROPIC_PARTS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result']);
const OPENAI_ROLES = new Set(['system', 'developer', 'tool']);

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null;
}

/** A LangChain message instance: it has the class's own type methods (a plain JSON object does not). */
function isLangChain(m: Readonly<Record<string, unknown>>): boolean {
  return typeof m['getType'] === 'function' || typeof m['_getType'] === 'function';
}

function partTypes(m: Readonly<Record<string, unknown>>): string[] {
  const content = m['content'];
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).map((p) => p['type']).filter((t): t is string => typeof t === 'string');
}

/**
 * The format of `messages`, decided by the first rule that matches:
 *
 * 1. a message with LangChain's `getType()` / `_getType()` methods: `'langchain'`;
 * 2. a content part typed `tool-call`, `tool-result` or `reasoning` (or a `tool` message whose
 *    content is an array): `'ai-sdk'`;
 * 3. a content part typed `tool_use`, `tool_result`, `thinking` or `redacted_thinking`: `'anthropic'`;
 * 4. a `system`, `developer` or `tool` role, or `tool_calls` on a message: `'openai'`;
 * 5. otherwise (plain user and assistant text, which every format reads alike): `'anthropic'` when
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

function detect(messages: readonly unknown[], options: { system?: unknown }): MessageFormatName {
  const records = messages.filter(isRecord);
  if (records.some(isLangChain)) return 'langchain';
  const types = records.flatMap(partTypes);
  if (types.some((t) => AI_SDK_PARTS.has(t)) || records.some((m) => m['role'] === 'tool' && Array.isArray(m['content']))) return 'ai-sdk';
  if (types.some((t) => ANTHROPIC_PARTS.has(t))) return 'anthropic';
  if (records.some((m) => (typeof m['role'] === 'string' && OPENAI_ROLES.has(m['role'])) || m['tool_calls'] !== undefined)) return 'openai';
  return isRecord(options) && options.system !== undefined ? 'anthropic' : 'openai';
}
