/**
 * A LangChain message with the session's breakpoint written on it as `@langchain/anthropic`
 * passes `cache_control` on (for `ctxpack/langchain`).
 *
 * @internal
 * @module
 */

import type { BaseMessage } from '@langchain/core/messages';
import type { cacheControlOf } from '../messages/markers.js';
import { lastMarkable } from '../session/breakpoints.js';
import { isRecord } from '../validate/fields.js';

/**
 * A copy of `message` (its class and fields) whose last block carries `cache_control`, where the
 * session placed a breakpoint (session/breakpoints.ts marks the last block that can carry one, the
 * rule read here too), as `@langchain/anthropic` passes it on:
 *
 * - a string content becomes one text block;
 * - an AI message's tool calls that its content does not hold as `tool_use` blocks, which
 *   `@langchain/anthropic` appends after the content, are written as those blocks here, so that
 *   the marker is on the message's last block on the wire (the prefix the session priced). The
 *   AI messages of `ChatAnthropic` hold them already.
 *
 * A message with nothing to mark is left as it is: the session places no breakpoint there.
 */
export function withCacheControl(message: BaseMessage, mark: ReturnType<typeof cacheControlOf>): BaseMessage {
  const content: unknown = message.content;
  let blocks: unknown[];
  if (typeof content === 'string') blocks = content === '' ? [] : [{ type: 'text', text: content }];
  else if (Array.isArray(content)) blocks = content.slice();
  else return message;
  blocks.push(...unheldToolUses(message, blocks));
  const last = lastMarkable(blocks);
  if (last < 0) return message;
  blocks[last] = { ...(blocks[last] as object), cache_control: mark };
  const copy = Object.assign(Object.create(Object.getPrototypeOf(message) as object) as BaseMessage, message, { content: blocks });
  const kwargs = (message as unknown as { lc_kwargs?: unknown }).lc_kwargs;
  if (isRecord(kwargs)) (copy as unknown as { lc_kwargs: unknown }).lc_kwargs = { ...kwargs, content: blocks };
  return copy;
}

/**
 * An AI message's tool calls that `blocks` hold no `tool_use` block for, as the blocks
 * `@langchain/anthropic` makes of them (`_convertLangChainToolCallToAnthropic`: `{ type, id, name,
 * input }`); none for another message, or a message of LangChain's v1 output (its blocks are
 * converted by another rule, which this does not rewrite).
 */
function unheldToolUses(message: BaseMessage, blocks: readonly unknown[]): unknown[] {
  const m = message as unknown as { tool_calls?: unknown; response_metadata?: unknown };
  if (message.getType() !== 'ai' || !Array.isArray(m.tool_calls)) return [];
  if (isRecord(m.response_metadata) && m.response_metadata['output_version'] === 'v1') return [];
  const held = new Set(blocks.filter((b) => isRecord(b) && (b['type'] === 'tool_use' || b['type'] === 'server_tool_use')).map((b) => (b as Record<string, unknown>)['id']));
  return m.tool_calls
    .filter((call): call is Record<string, unknown> => isRecord(call) && !held.has(call['id']))
    .map((call) => ({ type: 'tool_use', id: call['id'], name: call['name'], input: call['args'] }));
}
