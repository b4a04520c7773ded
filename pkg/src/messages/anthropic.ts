/**
 * Anthropic Messages: `user` / `assistant` messages whose content is a string or blocks;
 * `tool_use` blocks in an assistant message are answered by `tool_result` blocks in the next user
 * message; `thinking` and `redacted_thinking` blocks are part of their message, so they stay with
 * their turn. The system prompt is not a message (`options.system`).
 *
 * @internal
 * @module
 */

import { collectText, joinText, messageError, messageRecord, readCallId, readParts, type FormatAdapter, type Turn } from './turns.js';

function read(message: unknown, index: number): Turn {
  const m = messageRecord(message, index);
  const role = m['role'];
  if (role !== 'user' && role !== 'assistant') throw messageError(index, 'role', "'user' or 'assistant' (the system prompt goes in options.system)", role);
  const blocks = readParts(m['content'], index, 'content', true);
  const calls: string[] = [];
  const results: string[] = [];
  let prose = typeof m['content'] === 'string';
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    if (role === 'assistant' && b['type'] === 'tool_use') calls.push(readCallId(b['id'], index, `content[${k}].id`));
    else if (role === 'user' && b['type'] === 'tool_result') results.push(readCallId(b['tool_use_id'], index, `content[${k}].tool_use_id`));
    else prose = true;
  }
  return { role, calls, results, prose: role === 'user' && prose, text: joinText(collectText(m['content'])) };
}

/** A user message whose `tool_result` blocks hold `note` (their ids, `is_error` and the other blocks kept). */
function stub(message: unknown, note: string): unknown {
  const m = message as { content: readonly Record<string, unknown>[] };
  return { ...m, content: m.content.map((b) => (b['type'] === 'tool_result' ? { ...b, content: note } : b)) };
}

/** The Anthropic Messages adapter. */
export const anthropic: FormatAdapter = {
  name: 'anthropic',
  read,
  results: 'next-user',
  firstFromUser: true,
  systemAnywhere: false,
  systemOption: { accepts: (v) => typeof v === 'string' || Array.isArray(v), requirement: 'a string or an array of text blocks' },
  stub,
};
