/**
 * The request rules of each format, and `validateMessages`. Each rule is checked here and only
 * here; `fitMessages` uses the same checks on its input and on its result.
 *
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { adapterOf } from './formats.js';
import type { FormatAdapter, Turn } from './turns.js';
import type { AiSdkFormat, MessageFormat, MessageViolation, MessageRule } from './types.js';

/** The messages read into turns; a malformed message is `undefined` there and a `'malformed'` violation. */
export interface ReadTurns {
  readonly turns: readonly (Turn | undefined)[];
  readonly violations: MessageViolation[];
}

/**
 * `messages` must be an array (`INVALID_INPUT` otherwise). It comes back as a copy, taken once at
 * entry: what a token counter or a callback does to the caller's array later (or the application
 * while an async counter runs) changes nothing. Holes are `undefined` in the copy:
 * `JSON.stringify` sends a hole as `null`, so it is a message like any other non-object
 * (malformed), and every reader sees it (`map` and `forEach` skip holes).
 */
export function messageArray(messages: unknown): readonly unknown[] {
  if (!Array.isArray(messages)) {
    throw new CtxpackError('INVALID_INPUT', `messages must be an array, got ${describeValue(messages)}`, { field: 'messages' });
  }
  return Array.from(messages);
}

/** Reads every message; malformed ones become violations (their error message, which never holds text). */
export function readTurns(messages: readonly unknown[], adapter: FormatAdapter): ReadTurns {
  const violations: MessageViolation[] = [];
  const turns = messages.map((m, i) => {
    try {
      return adapter.read(m, i);
    } catch (err) {
      const message = err instanceof CtxpackError ? err.message : `messages[${i}] could not be read: reading it threw`;
      violations.push({ index: i, rule: 'malformed', message });
      return undefined;
    }
  });
  return { turns, violations };
}

function violation(index: number, rule: MessageRule, message: string): MessageViolation {
  return { index, rule, message };
}

/**
 * The structure rules over read turns (`undefined`: a malformed message, skipped):
 * - `no_messages`: the list is empty (every provider refuses an empty conversation);
 * - `system_not_first`: a system (or developer) message after a message of another role (not a
 *   rule of OpenAI's chat completions, which take one anywhere);
 * - `system_in_messages` (AI SDK without `allowSystemInMessages`): any system message, which ai@7
 *   refuses among the messages ("Use the instructions option instead");
 * - `first_not_user` (Anthropic): the first message is not from the user;
 * - `missing_tool_result`: a tool call without its result (OpenAI, AI SDK, LangChain: in the tool
 *   messages right after the call; Anthropic: in the very next message, from the user);
 * - `orphan_tool_result`: a tool result whose call is not where the format requires it, or that
 *   answers a call already answered;
 * - `duplicate_tool_call_id`: a tool call whose id another call of its message has (a result names
 *   its call by id, so neither could be answered alone), or, where the format wants ids unique in
 *   the request (Anthropic: "`tool_use` ids must be unique"), an earlier message;
 * - `empty_content`: a message without content as its format reads it (Anthropic: an empty or
 *   blank string or an empty array, except in a last assistant message, a prefill; or a text block without text. OpenAI:
 *   no `content`, and for an assistant message no tool calls either);
 * - `tool_result_not_first` (Anthropic): a tool result after a block of another kind in its message;
 * - `reasoning_without_item` (Responses): a reasoning item with no item after it ("provided
 *   without its required following item");
 * - `duplicate_item_id` (Responses): an item whose `id` an earlier item has ("Duplicate item
 *   found with id");
 * - `unknown_part_type` (OpenAI chat, AI SDK: the formats whose API lists the part types each
 *   role takes): a part of another type, or without one. Advisory in `fitMessages`, which sends
 *   the part as it is and warns: it is the caller's, a newer API may take it, and leaving its
 *   message out would lose what the caller meant to send;
 * - `compaction_not_first` (Anthropic): an assistant message that opens with a `compaction` block
 *   after another message (the API takes the block only as the first of the conversation:
 *   compaction_block_misplaced). Such a message may open the request: `first_not_user` allows it.
 */
export function structureViolations(turns: readonly (Turn | undefined)[], adapter: FormatAdapter): MessageViolation[] {
  const out: MessageViolation[] = [];
  if (turns.length === 0) out.push(violation(0, 'no_messages', 'messages is empty'));
  let other = false;
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    if (t === undefined) continue;
    if (t.role === 'system' && adapter.noSystemMessages === true) {
      out.push(violation(i, 'system_in_messages', `messages[${i}] is a system message, which the API refuses among the messages (AI SDK: pass it as options.system, the call's instructions, or set allowSystemInMessages)`));
    } else if (t.role === 'system' && other && !adapter.systemAnywhere) out.push(violation(i, 'system_not_first', `messages[${i}] is a system message after the conversation started`));
    if (t.role !== 'system') other = true;
    const prefill = adapter.emptyLastAssistant === true && t.role === 'assistant' && i === turns.length - 1;
    if (t.emptyContent === true && !prefill) out.push(violation(i, 'empty_content', `messages[${i}].content is empty or missing`));
    else if (t.emptyPart !== undefined) out.push(violation(i, 'empty_content', `messages[${i}].content[${t.emptyPart}] is a text block without text`));
    if (t.resultAfterOther !== undefined) {
      out.push(violation(i, 'tool_result_not_first', `messages[${i}].content[${t.resultAfterOther}] is a tool result after a block of another kind (tool results come first)`));
    }
    if (t.unknownPart !== undefined) {
      out.push(violation(i, 'unknown_part_type', `messages[${i}].content[${t.unknownPart}] has a type the ${adapter.name} format does not list for ${t.role} messages`));
    }
  }
  duplicateCalls(turns, adapter, out);
  const first = turns[0];
  if (adapter.firstFromUser && first !== undefined && first.role !== 'user' && first.compaction !== true) {
    out.push(violation(0, 'first_not_user', 'messages[0] must be from the user'));
  }
  if (adapter.compacts === 'all') {
    // Messages left out (undefined) do not count: fitMessages checks what it may send.
    const opening = turns.findIndex((t) => t !== undefined);
    turns.forEach((t, i) => {
      if (t?.compaction === true && i !== opening) out.push(violation(i, 'compaction_not_first', `messages[${i}] opens with a compaction block but is not the first message`));
    });
  }
  if (adapter.results === 'next-user') pairNextUser(turns, out);
  else if (adapter.results === 'by-id') pairById(turns, out);
  else pairToolMessages(turns, out);
  return out.sort((a, b) => a.index - b.index);
}

/** Rule `duplicate_tool_call_id`: reported on the message that repeats an id (where the API reports it). */
function duplicateCalls(turns: readonly (Turn | undefined)[], adapter: FormatAdapter, out: MessageViolation[]): void {
  const earlier = new Set<string>();
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    if (t === undefined || t.calls.length === 0) continue;
    // One call cannot repeat an id within its message (no Set for the common case).
    const own = t.calls.length === 1 ? t.calls : new Set(t.calls);
    const size = Array.isArray(own) ? own.length : (own as Set<string>).size;
    if (size !== t.calls.length || (earlier.size > 0 && t.calls.some((id) => earlier.has(id)))) {
      out.push(violation(i, 'duplicate_tool_call_id', `messages[${i}] makes a tool call whose id another call in ${size !== t.calls.length ? 'the message' : 'an earlier message'} has`));
    }
    if (adapter.callIdsUniqueInRequest === true) for (const id of own) earlier.add(id);
  }
}

const missing = (i: number): MessageViolation =>
  violation(i, 'missing_tool_result', `messages[${i}] makes a tool call whose result does not follow where the format requires it`);
const orphan = (i: number): MessageViolation =>
  violation(i, 'orphan_tool_result', `messages[${i}] carries a tool result whose call is not in the message the format requires`);

/** Anthropic: a `tool_use` needs its `tool_result` in the next message (from the user), and a `tool_result` its `tool_use` in the one before. */
function pairNextUser(turns: readonly (Turn | undefined)[], out: MessageViolation[]): void {
  turns.forEach((t, i) => {
    if (t === undefined) return;
    if (t.results.length > 0) {
      const prev = turns[i - 1];
      const calls = new Set(prev?.role === 'assistant' ? prev.calls : []);
      if (new Set(t.results).size !== t.results.length || !t.results.every((id) => calls.has(id))) out.push(orphan(i));
    }
    if (t.calls.length > 0) {
      const next = turns[i + 1];
      const results = new Set(next?.role === 'user' ? next.results : []);
      if (!t.calls.every((id) => results.has(id))) out.push(missing(i));
    }
  });
}

/**
 * Responses: an output answers the call of its id made before it, once, wherever it comes (its
 * call's id unique in the input: `duplicate_tool_call_id`); a call left unanswered is
 * `missing_tool_result`. A reasoning item needs an item after it; an item's own id is unique.
 */
function pairById(turns: readonly (Turn | undefined)[], out: MessageViolation[]): void {
  const open = new Map<string, number>();
  const ids = new Set<string>();
  turns.forEach((t, i) => {
    if (t === undefined) return;
    if (t.itemId !== undefined) {
      if (ids.has(t.itemId)) out.push(violation(i, 'duplicate_item_id', `messages[${i}] has the id of an earlier item`));
      ids.add(t.itemId);
    }
    if (t.results.length > 0 && !t.results.every((id) => open.delete(id))) out.push(orphan(i));
    for (const id of t.calls) if (!open.has(id)) open.set(id, i);
    if (t.joinsNext === true && i === turns.length - 1) {
      out.push(violation(i, 'reasoning_without_item', `messages[${i}] is a reasoning item with no item after it`));
    }
  });
  for (const i of new Set(open.values())) out.push(missing(i));
}

/**
 * OpenAI, AI SDK, LangChain: the tool messages right after an assistant message answer each of its
 * calls, once. AI SDK approvals: a response to one of the message's approval requests answers the
 * call it names (which may still get its result after it, once).
 */
const NONE: readonly string[] = [];

function pairToolMessages(turns: readonly (Turn | undefined)[], out: MessageViolation[]): void {
  // The approval maps are made only for a message that asks for approvals, and the set of calls
  // answered after an approval only when one is: most assistant messages just make calls, and a
  // 10,000-message history has thousands of them, each checked on every session turn.
  let pending: { index: number; open: Set<string>; approved: Set<string> | undefined; approvals: Map<string, string> | undefined } | undefined;
  const close = (): void => {
    if (pending !== undefined && pending.open.size > 0) out.push(missing(pending.index));
    pending = undefined;
  };
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    if (t === undefined) continue;
    const responses = t.approvalResponses ?? NONE;
    if (t.role === 'tool') {
      let ok = pending !== undefined && t.results.length + responses.length > 0;
      for (const id of t.results) if (pending?.open.delete(id) !== true && pending?.approved?.delete(id) !== true) ok = false;
      for (const approval of responses) {
        const call = pending?.approvals?.get(approval);
        if (pending === undefined || call === undefined) ok = false;
        else {
          pending.approvals!.delete(approval); // answered once
          if (pending.open.delete(call)) (pending.approved ??= new Set()).add(call);
        }
      }
      if (!ok) out.push(orphan(i));
      continue;
    }
    close();
    if (t.results.length + responses.length > 0) out.push(orphan(i));
    if (t.role === 'assistant' && t.calls.length + (t.approvalRequests?.length ?? 0) > 0) {
      const approvals = t.approvalRequests === undefined || t.approvalRequests.length === 0 ? undefined : new Map(t.approvalRequests);
      if (t.calls.length + (approvals?.size ?? 0) > 0) pending = { index: i, open: new Set(t.calls), approved: undefined, approvals }; // repeated ids: duplicate_tool_call_id
    }
  }
  close();
}

/**
 * Every rule the messages break for `format`, in message order: an empty list when a provider
 * would accept them as a conversation. Malformed messages are `'malformed'` violations (with
 * the field at fault); see {@link structureViolations} for the others. Messages are read, never
 * modified; violation messages name indexes, never text.
 *
 * @throws CtxpackError `INVALID_INPUT` when `messages` is not an array, `INVALID_OPTION` for an unknown `format`.
 */
export function validateMessages(messages: readonly unknown[], format: MessageFormat | AiSdkFormat): MessageViolation[] {
  const adapter = adapterOf(format);
  const { turns, violations } = readTurns(messageArray(messages), adapter);
  return [...violations, ...structureViolations(turns, adapter)].sort((a, b) => a.index - b.index);
}
