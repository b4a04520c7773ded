/**
 * Anthropic Messages: `user` / `assistant` messages whose content is a string or blocks;
 * `tool_use` blocks in an assistant message are answered by `tool_result` blocks in the next user
 * message; `thinking` and `redacted_thinking` blocks are part of their message, so they stay with
 * their turn. The system prompt is not a message (`options.system`). In a user message the
 * `tool_result` blocks come first: "In the user message containing tool results, the tool_result
 * blocks must come FIRST in the content array. Any text must come AFTER all tool results"
 * (Anthropic's tool use guide, "Handling results from client tools").
 *
 * @internal
 * @module
 */

import { anthropicMedia, refuseBytes, type MediaPart } from './media.js';
import { replaceContentMedia } from './media-notes.js';
import { collectText, joinText, messageError, messageRecord, readCallId, readParts, replacedResult, replaceMessageText, withMedia, withThinking, type FormatAdapter, type Turn } from './turns.js';

function read(message: unknown, index: number): Turn {
  const m = messageRecord(message, index);
  const role = m['role'];
  if (role !== 'user' && role !== 'assistant') throw messageError(index, 'role', "'user' or 'assistant' (the system prompt goes in options.system)", role);
  const content = m['content'];
  const blocks = readParts(content, index, 'content', true);
  const calls: string[] = [];
  const results: string[] = [];
  let prose = typeof content === 'string' && content.length > 0;
  let emptyPart: number | undefined;
  let resultAfterOther: number | undefined;
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    if (role === 'assistant' && b['type'] === 'tool_use') calls.push(readCallId(b['id'], index, `content[${k}].id`));
    else if (role === 'user' && b['type'] === 'tool_result') {
      results.push(readCallId(b['tool_use_id'], index, `content[${k}].tool_use_id`));
      if (prose && resultAfterOther === undefined) resultAfterOther = k;
    } else prose = true;
    // The API refuses a text block whose text is empty or only whitespace ("text content blocks
    // must be non-empty" / "must contain non-whitespace text").
    if (b['type'] === 'text' && typeof b['text'] === 'string' && b['text'].trim() === '' && emptyPart === undefined) emptyPart = k;
  }
  const media: MediaPart[] = [];
  const text = joinText(collectText(content, [], { recognize: anthropicMedia, out: media }));
  refuseBytes(media, content, index);
  const turn = withThinking(withMedia({ role, calls, results, prose: role === 'user' && prose, text }, media), content);
  // Server-side compaction (compact_20260112, or a `compaction` config) answers with an assistant
  // message that opens with a `compaction` block: sent back, it must be the first block of the
  // request, in place of every message it summarises (the API refuses it elsewhere:
  // compaction_block_misplaced). A block whose content is null is a failed compaction, which the
  // server treats as a no-op.
  const opening = blocks[0];
  if (role === 'assistant' && opening !== undefined && opening['type'] === 'compaction' && typeof opening['content'] === 'string') (turn as { compaction?: true }).compaction = true;
  // "all messages must have non-empty content except for the optional final assistant message"
  // (the API's own refusal): an empty string or array. A string is sent as one text block, so one of
  // whitespace only is refused as a blank block is ("must contain non-whitespace text").
  const emptyContent = typeof content === 'string' ? content.trim() === '' : Array.isArray(content) && content.length === 0;
  if (!emptyContent && emptyPart === undefined && resultAfterOther === undefined) return turn;
  return {
    ...turn,
    ...(emptyContent ? { emptyContent: true as const } : {}),
    ...(emptyPart === undefined ? {} : { emptyPart }),
    ...(resultAfterOther === undefined ? {} : { resultAfterOther }),
  };
}

/** A user message whose `tool_result` blocks hold `replace(their text)` (their ids, `is_error` and the other blocks kept). */
function replaceResults(message: unknown, replace: (text: string) => string, keepMedia = false): unknown {
  const m = message as { content: readonly Record<string, unknown>[] };
  const textPart = keepMedia ? (text: string) => ({ type: 'text', text }) : undefined;
  return { ...m, content: m.content.map((b) => (b['type'] === 'tool_result' ? { ...b, content: replacedResult(b['content'], anthropicMedia, replace, textPart) } : b)) };
}

/** The Anthropic Messages adapter. */
export const anthropic: FormatAdapter = {
  name: 'anthropic',
  read,
  results: 'next-user',
  firstFromUser: true,
  compacts: 'all',
  systemAnywhere: false,
  emptyLastAssistant: true,
  // The API refuses a repeated id anywhere in the request ("`tool_use` ids must be unique").
  callIdsUniqueInRequest: true,
  systemOption: { accepts: (v) => typeof v === 'string' || Array.isArray(v), requirement: 'a string or an array of text blocks' },
  replaceResults,
  // Images and documents, in tool results too, as text blocks (their cache_control kept).
  replaceMedia: (m, only) => replaceContentMedia(m, anthropicMedia, undefined, only),
  replaceText: replaceMessageText,
};
