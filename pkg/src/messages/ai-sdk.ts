/**
 * Vercel AI SDK `ModelMessage`s: `system` / `user` / `assistant` (with `tool-call` and `reasoning`
 * parts) / `tool` (with `tool-result` parts), paired by `toolCallId`. Reasoning parts are part of
 * their message. Provider-executed tool calls (`providerExecuted: true`) carry their result in the
 * same assistant message, so they need no `tool` message.
 *
 * @internal
 * @module
 */

import { collectText, joinText, messageError, messageRecord, readCallId, readParts, type FormatAdapter, type Turn } from './turns.js';

const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

function read(message: unknown, index: number): Turn {
  const m = messageRecord(message, index);
  const role = m['role'];
  if (!(ROLES as readonly unknown[]).includes(role)) throw messageError(index, 'role', `one of ${ROLES.join(', ')}`, role);
  if (role === 'system' && typeof m['content'] !== 'string') throw messageError(index, 'content', 'a string', m['content']);
  const parts = readParts(m['content'], index, 'content', role !== 'tool');
  const calls: string[] = [];
  const results: string[] = [];
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    if (role === 'assistant' && p['type'] === 'tool-call' && p['providerExecuted'] !== true) {
      calls.push(readCallId(p['toolCallId'], index, `content[${k}].toolCallId`));
    } else if (role === 'tool' && p['type'] === 'tool-result') {
      results.push(readCallId(p['toolCallId'], index, `content[${k}].toolCallId`));
    }
  }
  return { role: role as Turn['role'], calls, results, prose: role === 'user', text: joinText(collectText(m['content'])) };
}

/** A tool message whose `tool-result` parts have `{ type: 'text', value: note }` as their output. */
function stub(message: unknown, note: string): unknown {
  const m = message as { content: readonly Record<string, unknown>[] };
  return { ...m, content: m.content.map((p) => (p['type'] === 'tool-result' ? { ...p, output: { type: 'text', value: note } } : p)) };
}

/** The AI SDK `ModelMessage` adapter. */
export const aiSdk: FormatAdapter = { name: 'ai-sdk', read, results: 'tool-messages', firstFromUser: false, stub };
