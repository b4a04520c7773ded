/**
 * LangChain.js `BaseMessage` instances, recognised by their own type (`getType()`, `_getType()` or
 * `type`): `system` / `developer`, `human`, `ai` (with `tool_calls`), `tool` (with
 * `tool_call_id`). No runtime dependency on LangChain.
 *
 * @internal
 * @module
 */

import { collectText, joinText, messageError, messageRecord, readCallId, readToolCalls, type FormatAdapter, type Turn } from './turns.js';

const TYPES: Readonly<Record<string, Turn['role']>> = { system: 'system', developer: 'system', human: 'user', ai: 'assistant', tool: 'tool' };

/** The message's LangChain type; a throwing getter or method reads as no type. */
function typeOf(m: Readonly<Record<string, unknown>>): unknown {
  try {
    for (const method of ['getType', '_getType']) {
      const f = m[method];
      if (typeof f === 'function') return (f as () => unknown).call(m);
    }
    return m['type'];
  } catch {
    return undefined;
  }
}

function read(message: unknown, index: number): Turn {
  const m = messageRecord(message, index);
  const type = typeOf(m);
  const role = typeof type === 'string' && Object.hasOwn(TYPES, type) ? TYPES[type]! : undefined;
  if (role === undefined) throw messageError(index, 'type', `one of ${Object.keys(TYPES).join(', ')} (a LangChain message)`, type);
  const text = collectText(m['content']);
  const calls: string[] = [];
  const results: string[] = [];
  if (role === 'assistant') readToolCalls(m['tool_calls'], index, calls, text, (call) => [call['name'], call['args']], true);
  if (role === 'tool') results.push(readCallId(m['tool_call_id'], index, 'tool_call_id'));
  return { role, calls, results, prose: role === 'user', text: joinText(text) };
}

/**
 * A new instance of the tool message's own class (LangChain's `ToolMessage`, constructed from its
 * fields as LangChain constructs it) with `note` as content; `undefined` if that class refuses.
 */
function stub(message: unknown, note: string): unknown {
  const m = message as Record<string, unknown> & { constructor: new (fields: object) => unknown };
  try {
    return new m.constructor({
      content: note,
      tool_call_id: m['tool_call_id'],
      name: m['name'],
      id: m['id'],
      status: m['status'],
      additional_kwargs: m['additional_kwargs'],
      response_metadata: m['response_metadata'],
    });
  } catch {
    return undefined;
  }
}

/** The LangChain.js adapter. */
export const langchain: FormatAdapter = { name: 'langchain', read, results: 'tool-messages', firstFromUser: false, systemAnywhere: false, stub };
