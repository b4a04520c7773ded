/**
 * OpenAI chat completions messages: `system` / `developer` / `user` / `assistant` (with
 * `tool_calls`, or the deprecated `function_call`) / `tool` (with `tool_call_id`) / the deprecated
 * `function` (with `name`, the result of a `function_call`).
 *
 * @internal
 * @module
 */

import { openaiMedia, refuseBytes, type MediaPart } from './media.js';
import { replaceContentMedia } from './media-notes.js';
import { collectText, firstUnknownPart, joinText, messageError, messageRecord, readCallId, readParts, readToolCalls, replaceMessageText, withMedia, withName, type FormatAdapter, type Turn } from './turns.js';
import { isRecord } from '../validate/fields.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

/**
 * The content part types each role takes (openai 7, `ChatCompletion*MessageParam`): a user
 * message's text, images, audio and files; an assistant's text and refusals; the others' text.
 */
const PART_TYPES: Readonly<Record<(typeof ROLES)[number], readonly string[]>> = {
  system: ['text'],
  developer: ['text'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  assistant: ['text', 'refusal'],
  tool: ['text'],
  function: ['text'],
};

/**
 * The id a deprecated `function_call` and the `function` message answering it share: the
 * function's name (they carry no id; the API pairs a result with the call just before it, and a
 * tool message run joins the assistant message whose calls it answers, structure.ts). Led by a
 * control character no API id holds.
 */
const functionId = (name: string): string => `\u0002function ${name}`;

function read(message: unknown, index: number): Turn {
  const m = messageRecord(message, index);
  const role = m['role'];
  if (!(ROLES as readonly unknown[]).includes(role)) throw messageError(index, 'role', `one of ${ROLES.join(', ')}`, role);
  const content = m['content'];
  if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
    throw messageError(index, 'content', 'a string, an array of parts or null', content);
  }
  // Each part an object, as in every format ("must be an object, got null").
  const unknownPart = Array.isArray(content) ? firstUnknownPart(readParts(content, index, 'content', true), PART_TYPES[role as (typeof ROLES)[number]]) : undefined;
  const media: MediaPart[] = [];
  const text = collectText(content, [], { recognize: openaiMedia, out: media });
  refuseBytes(media, content, index);
  const calls: string[] = [];
  const results: string[] = [];
  if (role === 'assistant') {
    // "Invalid 'messages[i].tool_calls': empty array" (the API's refusal; openai-node's parse() once
    // returned every message so, and a history that keeps them fails on its next request).
    const list = m['tool_calls'];
    if (Array.isArray(list) && list.length === 0) throw messageError(index, 'tool_calls', 'absent or a non-empty array (the API refuses an empty one)', list);
    readToolCalls(list, index, calls, text, (call) => call['function'] ?? call['custom']);
  }
  if (role === 'assistant' && m['function_call'] !== undefined && m['function_call'] !== null) {
    const call = m['function_call'];
    const name = isRecord(call) ? call['name'] : undefined;
    if (typeof name !== 'string' || name.length === 0) throw messageError(index, 'function_call.name', 'a non-empty string', name);
    calls.push(functionId(name));
    collectText(call, text);
  }
  if (role === 'tool') results.push(readCallId(m['tool_call_id'], index, 'tool_call_id'));
  if (role === 'function') {
    const name = m['name'];
    if (typeof name !== 'string' || name.length === 0) throw messageError(index, 'name', 'a non-empty string (the function whose result it is)', name);
    results.push(functionId(name));
  }
  const turnRole = role === 'developer' || role === 'system' ? 'system' : role === 'function' ? 'tool' : (role as Turn['role']);
  const emptyContent = (content === undefined || content === null) && !hasOtherContent(m, role, calls);
  const turn = withName(withMedia({ role: turnRole, calls, results, prose: turnRole === 'user' && !emptyContent, text: joinText(text) }, media), m['name']);
  if (unknownPart !== undefined) return { ...turn, unknownPart }; // content is an array: not empty
  return emptyContent ? { ...turn, emptyContent: true } : turn;
}

/**
 * What stands in for `content` (openai 6, `ChatCompletion*MessageParam`): `content` is required in
 * system, developer, user and tool messages; an assistant message's is "Required unless
 * `tool_calls` or `function_call` is specified". A previous audio reply (`audio: { id }`) also
 * comes without content, so it counts too.
 */
function hasOtherContent(m: Readonly<Record<string, unknown>>, role: unknown, calls: readonly string[]): boolean {
  if (role !== 'assistant') return false;
  return calls.length > 0 || (m['function_call'] !== undefined && m['function_call'] !== null) || (m['audio'] !== undefined && m['audio'] !== null);
}

/** A `tool` message with `note` as its content. */
function replaceResults(message: unknown, replace: (text: string) => string): unknown {
  const m = message as Record<string, unknown>;
  return { ...m, content: replace(joinText(collectText(m['content'], [], { recognize: openaiMedia, out: [] }))) };
}

/** The OpenAI chat completions adapter. */
export const openai: FormatAdapter = { name: 'openai', read, results: 'tool-messages', firstFromUser: false, systemAnywhere: true, replaceResults,
  replaceMedia: (m, only) => replaceContentMedia(m, openaiMedia, undefined, only),
  replaceText: replaceMessageText,
};
