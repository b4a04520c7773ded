/**
 * The summariser's answer as a message (summaries.ts): the user message of the format a text
 * becomes.
 *
 * @internal
 * @module
 */

import type { FormatAdapter, Turn } from '../messages/turns.js';
import { isRecord } from '../validate/fields.js';

/**
 * A user message of the format with `text`: `{ role: 'user', content }` (OpenAI, the Responses
 * API; Anthropic and the AI SDK with one text part), or for LangChain a new message of the class of the
 * history's first human message (no runtime dependency on LangChain); `undefined` without one.
 */
export function userMessage(adapter: FormatAdapter, text: string, history: readonly unknown[]): unknown {
  // Anthropic: blocks (a cache marker adds to them, the bytes stay). The AI SDK: parts, the one
  // shape both a ModelMessage and a language model's prompt (middleware, Mastra) accept.
  if (adapter.name === 'anthropic' || adapter.name === 'ai-sdk') return { role: 'user', content: [{ type: 'text', text }] };
  if (adapter.name !== 'langchain') return { role: 'user', content: text };
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    let t: Turn;
    try {
      t = adapter.read(m, i);
    } catch {
      continue;
    }
    if (t.role !== 'user' || !isRecord(m)) continue;
    const ctor = (m as { constructor?: unknown }).constructor;
    if (typeof ctor !== 'function' || ctor === Object) return undefined;
    try {
      return new (ctor as new (fields: { content: string }) => unknown)({ content: text });
    } catch {
      return undefined;
    }
  }
  return undefined;
}
