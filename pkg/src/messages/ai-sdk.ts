/**
 * Vercel AI SDK `ModelMessage`s: `system` / `user` / `assistant` (with `tool-call` and `reasoning`
 * parts) / `tool` (with `tool-result` parts), paired by `toolCallId`. Reasoning parts are part of
 * their message. Provider-executed tool calls (`providerExecuted: true`) carry their result in the
 * same assistant message, so they need no `tool` message. Tool approvals (`needsApproval`): a
 * `tool-approval-request` part names its call, and a `tool-approval-response` in the tool messages
 * after it answers that call (the SDK runs it, or sends it back denied) until its result comes.
 *
 * @internal
 * @module
 */

import { shownName } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { aiSdkMedia, type MediaPart } from './media.js';
import { replaceContentMedia } from './media-notes.js';
import { collectText, firstUnknownPart, joinText, messageError, messageRecord, readCallId, readParts, replacedResult, replaceMessageText, unanswerableCall, withMedia, withThinking, type FormatAdapter, type Turn } from './turns.js';

const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

/** The part types each role's content takes (ai@7's `modelMessageSchema`; a system message's content is a string). */
const PART_TYPES: Readonly<Record<(typeof ROLES)[number], readonly string[]>> = {
  system: [],
  user: ['text', 'image', 'file'],
  assistant: ['text', 'custom', 'file', 'reasoning', 'reasoning-file', 'tool-call', 'tool-result', 'tool-approval-request'],
  tool: ['tool-result', 'tool-approval-response'],
};

function read(message: unknown, index: number): Turn {
  const m = messageRecord(message, index);
  const role = m['role'];
  if (!(ROLES as readonly unknown[]).includes(role)) throw messageError(index, 'role', `one of ${ROLES.join(', ')}`, role);
  if (role === 'system' && typeof m['content'] !== 'string') throw messageError(index, 'content', 'a string', m['content']);
  const parts = readParts(m['content'], index, 'content', role !== 'tool');
  const calls: string[] = [];
  const results: string[] = [];
  const approvalRequests: [string, string][] = [];
  const approvalResponses: string[] = [];
  const callIds = new Set<unknown>(); // every call of the message, provider-executed ones too
  for (const p of parts) if (p['type'] === 'tool-call') callIds.add(p['toolCallId']);
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    if (p['type'] === 'tool-result') readResultPart(p, index, k);
    if (role === 'assistant' && p['type'] === 'tool-call' && p['providerExecuted'] !== true) {
      calls.push(readCallId(p['toolCallId'], index, `content[${k}].toolCallId`));
    } else if (role === 'assistant' && p['type'] === 'tool-approval-request') {
      const approval = readCallId(p['approvalId'], index, `content[${k}].approvalId`);
      const call = readCallId(p['toolCallId'], index, `content[${k}].toolCallId`);
      // An approval of no call of its message: the SDK finds no call to run or deny.
      if (!callIds.has(call)) calls.push(unanswerableCall(`messages[${index}].content[${k}] approves no call of its message`));
      approvalRequests.push([approval, call]);
    } else if (role === 'tool' && p['type'] === 'tool-result') {
      results.push(readCallId(p['toolCallId'], index, `content[${k}].toolCallId`));
    } else if (role === 'tool' && p['type'] === 'tool-approval-response') {
      approvalResponses.push(readCallId(p['approvalId'], index, `content[${k}].approvalId`));
    }
  }
  const media: MediaPart[] = [];
  const text = joinText(collectText(m['content'], [], { recognize: aiSdkMedia, out: media }));
  const unknownPart = firstUnknownPart(parts, PART_TYPES[role as (typeof ROLES)[number]]);
  const read = withThinking(withMedia({ role: role as Turn['role'], calls, results, prose: role === 'user', text }, media), m['content']);
  const turn = unknownPart === undefined ? read : { ...read, unknownPart };
  if (approvalRequests.length > 0) return { ...turn, approvalRequests };
  if (approvalResponses.length > 0) return { ...turn, approvalResponses };
  return turn;
}

/**
 * What a `tool-result` part needs besides its call's id (ai@7's schema: "toolName: string,
 * output: ToolResultOutput"): without them `generateText` refuses the whole prompt, and a stub
 * would make up the output. A malformed message, as a missing id is.
 */
function readResultPart(p: Readonly<Record<string, unknown>>, index: number, k: number): void {
  if (typeof p['toolName'] !== 'string') throw messageError(index, `content[${k}].toolName`, 'a string', p['toolName']);
  const output = p['output'];
  if (!isRecord(output)) throw messageError(index, `content[${k}].output`, "an object (the AI SDK's ToolResultOutput: { type: 'text', value } …)", output);
  if (!(OUTPUT_TYPES as readonly unknown[]).includes(output['type'])) throw messageError(index, `content[${k}].output.type`, `one of ${OUTPUT_TYPES.join(', ')}`, output['type']);
}

/** The types of a tool result's output (ai@7's `ToolResultOutput`). */
const OUTPUT_TYPES = ['text', 'json', 'execution-denied', 'error-text', 'error-json', 'content'] as const;

/** A tool message whose `tool-result` parts have `{ type: 'text', value: note }` as their output. */
function replaceResults(message: unknown, replace: (text: string) => string, keepMedia = false): unknown {
  const m = message as { content: readonly Record<string, unknown>[] };
  const replaced = (output: unknown): { type: string; value: unknown } => {
    // A `content` output keeps its media items when cut (truncation), its text as one text item.
    if (keepMedia && isRecord(output) && output['type'] === 'content') {
      const value = replacedResult(output['value'], aiSdkMedia, replace, (text) => ({ type: 'text', text }));
      if (Array.isArray(value)) return { type: 'content', value };
    }
    // An error result stays an error (`error-text`); any other becomes text.
    const error = isRecord(output) && typeof output['type'] === 'string' && output['type'].startsWith('error');
    return { type: error ? 'error-text' : 'text', value: replace(joinText(collectText(output, [], { recognize: aiSdkMedia, out: [] }))) };
  };
  return { ...m, content: m.content.map((p) => (p['type'] === 'tool-result' ? { ...p, output: replaced(p['output']) } : p)) };
}

/** The AI SDK `ModelMessage` adapter. */
export const aiSdk: FormatAdapter = {
  name: 'ai-sdk',
  read,
  results: 'tool-messages',
  firstFromUser: false,
  systemAnywhere: false,
  // "System messages are not allowed in the prompt or messages fields. Use the instructions option
  // instead." (ai@7's standardizePrompt, unless allowSystemInMessages is set).
  noSystemMessages: true,
  // generateText's `system` (`instructions`): ai@7 refuses system messages in `messages` unless
  // told otherwise, so the system prompt goes beside them.
  systemOption: {
    accepts: (v) => typeof v === 'string' || isRecord(v) || (Array.isArray(v) && v.every(isRecord)),
    requirement: 'a string, a system message or an array of system messages',
  },
  replaceResults,
  // image and file parts, and the media items of a tool result's content output, as text parts.
  replaceMedia: (m, only) => replaceContentMedia(m, aiSdkMedia, undefined, only),
  replaceText: replaceMessageText,
};

/** The AI SDK format when the caller passes `allowSystemInMessages: true` to ai@7: system messages anywhere. */
const aiSdkSystemAnywhere: FormatAdapter = (({ noSystemMessages: _, ...rest }) => ({ ...rest, systemAnywhere: true }))(aiSdk);

/**
 * The AI SDK format with its options, `format: { name: 'ai-sdk', allowSystemInMessages }`: the
 * option of generateText, streamText and ToolLoopAgent of the same name, which lets system
 * messages stand anywhere in `messages` (ai@7 refuses every system message there by default:
 * pass the system prompt as `options.system`, the call's `instructions`).
 */
export function aiSdkWith(options: Readonly<Record<string, unknown>>): FormatAdapter {
  for (const key of Object.keys(options)) {
    if (key !== 'name' && key !== 'allowSystemInMessages') throw invalidOption(`format.${shownName(key)}`, 'absent (the ai-sdk format takes allowSystemInMessages)', options[key]);
  }
  const allow = options['allowSystemInMessages'];
  if (allow !== undefined && typeof allow !== 'boolean') throw invalidOption('format.allowSystemInMessages', 'a boolean', allow);
  return allow === true ? aiSdkSystemAnywhere : aiSdk;
}
