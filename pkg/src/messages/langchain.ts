/**
 * LangChain.js `BaseMessage` instances, recognised by their own type (`getType()`, `_getType()` or
 * `type`): `system` / `developer`, `human`, `ai` (with `tool_calls`), `tool` (with
 * `tool_call_id`). No runtime dependency on LangChain.
 *
 * @internal
 * @module
 */

import { isRecord } from '../validate/fields.js';
import { langchainMedia, type MediaPart } from './media.js';
import { onlyParts, plainTextPart, replaceMediaParts } from './media-notes.js';
import { collectText, joinText, jsonText, messageError, messageRecord, readCallId, readToolCalls, replacedResult, replaceContentText, unanswerableCall, withMedia, withName, withThinking, type FormatAdapter, type Turn } from './turns.js';

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
  const media: MediaPart[] = [];
  const text = collectText(m['content'], [], { recognize: langchainMedia, out: media });
  const calls: string[] = [];
  const results: string[] = [];
  if (role === 'assistant') {
    readToolCalls(m['tool_calls'], index, calls, text, (call) => [call['name'], jsonText(call['args'])], true);
    otherCalls(m, index, calls, text);
  }
  if (role === 'tool') results.push(readCallId(m['tool_call_id'], index, 'tool_call_id'));
  return withName(withThinking(withMedia({ role, calls, results, prose: role === 'user', text: joinText(text) }, media), m['content']), m['name']);
}

/**
 * The tool calls an AI message carries besides `tool_calls` that LangChain's converters send to
 * the provider, so each needs its result like any other call (@langchain/openai's completions and
 * Responses converters, @langchain/anthropic's): the provider's raw calls in
 * `additional_kwargs.tool_calls`, sent only when `tool_calls` is empty (a reply whose arguments are
 * not JSON: LangChain's parser moves such a call to `invalid_tool_calls` and keeps the raw one
 * there), and `tool_use` / `tool_call` content blocks. `invalid_tool_calls` itself is never sent:
 * beside a valid call it is dropped, and a result for it would be an orphan. A call already read
 * (same id) is not read twice; one without an id is unanswerable (as in `readToolCalls`).
 */
function otherCalls(m: Readonly<Record<string, unknown>>, index: number, calls: string[], text: string[]): void {
  const seen = new Set(calls);
  const add = (list: unknown, where: string, textOf: (c: Readonly<Record<string, unknown>>) => unknown): void => {
    if (!Array.isArray(list)) return;
    for (let k = 0; k < list.length; k++) {
      const c: unknown = list[k];
      if (!isRecord(c) || (where === 'content' && c['type'] !== 'tool_use' && c['type'] !== 'tool_call')) continue;
      const id = c['id'];
      if (typeof id === 'string' && id.length > 0) {
        if (seen.has(id)) continue;
        seen.add(id);
        calls.push(id);
      } else calls.push(unanswerableCall(`messages[${index}].${where}[${k}] has no id`));
      if (where !== 'content') collectText(textOf(c), text); // content blocks are in the message's text already
    }
  };
  const kwargs = m['additional_kwargs'];
  const toolCalls = m['tool_calls'];
  // The converters' own test: `message.tool_calls?.length`.
  if (isRecord(kwargs) && !(Array.isArray(toolCalls) && toolCalls.length > 0)) add(kwargs['tool_calls'], 'additional_kwargs.tool_calls', (c) => c['function']);
  add(m['content'], 'content', () => undefined);
}

/**
 * A new instance of the tool message's own class (LangChain's `ToolMessage`, constructed from its
 * fields as LangChain constructs it) with `replace(its text)` as content; `undefined` if that
 * class refuses.
 */
function replaceResults(message: unknown, replace: (text: string) => string, keepMedia = false): unknown {
  const m = message as Record<string, unknown> & { constructor: new (fields: object) => unknown };
  const textPart = keepMedia ? (text: string) => ({ type: 'text', text }) : undefined;
  try {
    return new m.constructor({
      content: replacedResult(m['content'], langchainMedia, replace, textPart),
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

/**
 * A new instance of the message's own class from its own fields (LangChain's `lc_*` bookkeeping
 * left to the constructor) with `content`; `undefined` if that class refuses.
 */
function withContent(message: unknown, content: unknown): unknown {
  const m = message as Record<string, unknown> & { constructor: new (fields: object) => unknown };
  const fields = Object.fromEntries(Object.entries(m).filter(([key]) => !key.startsWith('lc_') && key !== 'type'));
  try {
    return new m.constructor({ ...fields, content });
  } catch {
    return undefined;
  }
}

/** A new message of its class whose image, file and audio blocks are text blocks with their notes; `undefined` without any. */
function replaceMedia(message: unknown, only?: ReadonlySet<object>): unknown {
  const content = (message as Record<string, unknown>)['content'];
  const replaced = replaceMediaParts(content, onlyParts(langchainMedia, only), plainTextPart);
  return replaced === content ? undefined : withContent(message, replaced);
}

/** The LangChain.js adapter. */
export const langchain: FormatAdapter = {
  name: 'langchain',
  read,
  results: 'tool-messages',
  firstFromUser: false,
  systemAnywhere: false,
  replaceResults,
  replaceMedia,
  replaceText: (m, replace) => withContent(m, replaceContentText((m as Record<string, unknown>)['content'], replace)),
  withContent,
};
