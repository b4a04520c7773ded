/**
 * The request rules of each format, and `validateMessages`. Each rule is checked here and only
 * here; `fitMessages` uses the same checks on its input and on its result.
 *
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { adapterOf } from './formats.js';
import type { FormatAdapter, Turn } from './turns.js';
import { Undo } from './undo.js';
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
  return scanRules(turns, adapter).violations;
}

/** Tool messages: the assistant message whose calls the tool messages after it answer, and what is still open. */
interface Pending {
  readonly index: number;
  readonly open: Set<string>;
  approved: Set<string> | undefined;
  readonly approvals: Map<string, string> | undefined;
}

const copyPending = (p: Pending | undefined): Pending | undefined =>
  p === undefined ? undefined : { index: p.index, open: new Set(p.open), approved: p.approved === undefined ? undefined : new Set(p.approved), approvals: p.approvals === undefined ? undefined : new Map(p.approvals) };

/**
 * A rules scan's state before message `at`, to resume there on a later history that has the same
 * first `at` messages, read the same (structure-memo.ts). Consumed by the scan that resumes from
 * it: its sets and maps are the live ones, with the changes made from `at` on in `undo`.
 */
export interface RulesState {
  readonly at: number;
  /** The violations the steps before `at` found, in the order found: `found`'s first `count` (the live array). */
  readonly found: MessageViolation[];
  readonly count: number;
  /** Whether a message of another role than system came before `at`. */
  readonly other: boolean;
  /** Anthropic: the first message read before `at` (-1: none), the one a compaction block may open. */
  readonly opening: number;
  readonly pending: Pending | undefined;
  /** Anthropic, Responses: the call ids made before `at` (unique in the request). */
  readonly earlier: Set<string>;
  /** Responses: the calls not answered yet, by id (the first message making each), and the items' own ids. */
  readonly open: Map<string, number>;
  readonly ids: Set<string>;
  readonly undo: Undo;
}

/**
 * Every structure rule over the turns (`mask[i] === 1`: turn `i` left out, as `undefined`), by one
 * scan in order, from `from.at` on with `from` (else from the first), and the scan's state before
 * message `saveAt` (none without it). Step `i` says only what message `i` and those before it show:
 * each rule looks back (a result at its call before it, a call's results in the messages after it
 * checked when they come, when the next message that is not a tool message comes, or at the end),
 * and only a message's being the last (a prefill, a reasoning item with nothing after it) looks
 * at what follows. So the violations found before `at` and the state there hold for any history
 * with the same first `at` turns and more than `at` messages (the
 * steps before `at` found none of them the last); what the end says (calls still
 * unanswered) is said again at the end of every scan.
 */
export function scanRules(
  turns: readonly (Turn | undefined)[],
  adapter: FormatAdapter,
  mask?: Uint8Array,
  from?: RulesState,
  saveAt = -1,
): { violations: MessageViolation[]; state: RulesState | undefined } {
  const n = turns.length;
  const turnAt = (i: number): Turn | undefined => (mask?.[i] === 1 ? undefined : turns[i]);
  const start = from?.at ?? 0;
  const found = from?.found ?? [];
  found.length = from?.count ?? 0;
  const undo = from?.undo ?? new Undo();
  undo.rewind();
  const earlier = from?.earlier ?? new Set<string>();
  const open = from?.open ?? new Map<string, number>();
  const ids = from?.ids ?? new Set<string>();
  let other = from?.other ?? false;
  let opening = from?.opening ?? -1;
  // The approval maps are made only for a message that asks for approvals, and the set of calls
  // answered after an approval only when one is: most assistant messages just make calls, and a
  // 10,000-message history has thousands of them.
  let pending = copyPending(from?.pending);
  const close = (): void => {
    if (pending !== undefined && pending.open.size > 0) found.push(missing(pending.index));
    pending = undefined;
  };
  let state: RulesState | undefined;
  let prev = start > 0 ? turnAt(start - 1) : undefined;
  for (let i = start; i < n; prev = turnAt(i), i++) {
    if (i === saveAt) {
      state = { at: i, found, count: found.length, other, opening, pending: copyPending(pending), earlier, open, ids, undo };
      undo.on = true;
    }
    const t = turnAt(i);
    if (t !== undefined) {
      if (t.role === 'system' && adapter.noSystemMessages === true) {
        found.push(violation(i, 'system_in_messages', `messages[${i}] is a system message, which the API refuses among the messages (AI SDK: pass it as options.system, the call's instructions, or set allowSystemInMessages)`));
      } else if (t.role === 'system' && other && !adapter.systemAnywhere) found.push(violation(i, 'system_not_first', `messages[${i}] is a system message after the conversation started`));
      if (t.role !== 'system') other = true;
      const prefill = adapter.emptyLastAssistant === true && t.role === 'assistant' && i === n - 1;
      if (t.emptyContent === true && !prefill) found.push(violation(i, 'empty_content', `messages[${i}].content is empty or missing`));
      else if (t.emptyPart !== undefined) found.push(violation(i, 'empty_content', `messages[${i}].content[${t.emptyPart}] is a text block without text`));
      if (t.resultAfterOther !== undefined) {
        found.push(violation(i, 'tool_result_not_first', `messages[${i}].content[${t.resultAfterOther}] is a tool result after a block of another kind (tool results come first)`));
      }
      if (t.unknownPart !== undefined) {
        found.push(violation(i, 'unknown_part_type', `messages[${i}].content[${t.unknownPart}] has a type the ${adapter.name} format does not list for ${t.role} messages`));
      }
      duplicateCalls(t, i, adapter, earlier, undo, found);
    }
    if (i === 0 && adapter.firstFromUser && t !== undefined && t.role !== 'user' && t.compaction !== true) {
      found.push(violation(0, 'first_not_user', 'messages[0] must be from the user'));
    }
    if (adapter.compacts === 'all' && t !== undefined) {
      // Messages left out (undefined) do not count: fitMessages checks what it may send.
      if (opening < 0) opening = i;
      if (t.compaction === true && i !== opening) found.push(violation(i, 'compaction_not_first', `messages[${i}] opens with a compaction block but is not the first message`));
    }
    if (adapter.results === 'next-user') pairNextUser(prev, t, i, found);
    else if (adapter.results === 'by-id') {
      if (t !== undefined) pairById(t, i, n, open, ids, undo, found);
    } else if (t !== undefined) {
      if (t.role === 'tool') pending = answer(pending, t, i, found);
      else {
        close();
        pending = opened(t, i, found);
      }
    }
  }
  // What the end says: the calls left unanswered (Anthropic: by the last message, which nothing follows).
  const out = found.slice();
  if (n === 0) out.push(violation(0, 'no_messages', 'messages is empty'));
  if (adapter.results === 'next-user') {
    if (prev !== undefined) pairNextUser(prev, undefined, n, out);
  } else if (adapter.results === 'by-id') {
    for (const i of new Set(open.values())) out.push(missing(i));
  } else if (pending !== undefined && (pending as Pending).open.size > 0) out.push(missing((pending as Pending).index));
  return { violations: out.sort((a, b) => a.index - b.index), state };
}

/** Rule `duplicate_tool_call_id`: reported on the message that repeats an id (where the API reports it). */
function duplicateCalls(t: Turn, i: number, adapter: FormatAdapter, earlier: Set<string>, undo: Undo, out: MessageViolation[]): void {
  if (t.calls.length === 0) return;
  // One call cannot repeat an id within its message (no Set for the common case).
  const own = t.calls.length === 1 ? t.calls : new Set(t.calls);
  const size = Array.isArray(own) ? own.length : (own as Set<string>).size;
  if (size !== t.calls.length || (earlier.size > 0 && t.calls.some((id) => earlier.has(id)))) {
    out.push(violation(i, 'duplicate_tool_call_id', `messages[${i}] makes a tool call whose id another call in ${size !== t.calls.length ? 'the message' : 'an earlier message'} has`));
  }
  if (adapter.callIdsUniqueInRequest === true) for (const id of own) undo.add(earlier, id);
}

const missing = (i: number): MessageViolation =>
  violation(i, 'missing_tool_result', `messages[${i}] makes a tool call whose result does not follow where the format requires it`);
const orphan = (i: number): MessageViolation =>
  violation(i, 'orphan_tool_result', `messages[${i}] carries a tool result whose call is not in the message the format requires`);

/**
 * Anthropic: a `tool_use` needs its `tool_result` in the next message (from the user), and a
 * `tool_result` its `tool_use` in the one before. At message `i` (`t`; `undefined` past the end
 * or left out): its results against `prev`'s calls, and `prev`'s calls against its results.
 */
function pairNextUser(prev: Turn | undefined, t: Turn | undefined, i: number, out: MessageViolation[]): void {
  if (prev !== undefined && prev.calls.length > 0) {
    const results = new Set(t?.role === 'user' ? t.results : []);
    if (!prev.calls.every((id) => results.has(id))) out.push(missing(i - 1));
  }
  if (t !== undefined && t.results.length > 0) {
    const calls = new Set(prev?.role === 'assistant' ? prev.calls : []);
    if (new Set(t.results).size !== t.results.length || !t.results.every((id) => calls.has(id))) out.push(orphan(i));
  }
}

/**
 * Responses: an output answers the call of its id made before it, once, wherever it comes (its
 * call's id unique in the input: `duplicate_tool_call_id`); a call left unanswered is
 * `missing_tool_result` (said at the end). A reasoning item needs an item after it; an item's own
 * id is unique. At item `i` of `n`.
 */
function pairById(t: Turn, i: number, n: number, open: Map<string, number>, ids: Set<string>, undo: Undo, out: MessageViolation[]): void {
  if (t.itemId !== undefined) {
    if (ids.has(t.itemId)) out.push(violation(i, 'duplicate_item_id', `messages[${i}] has the id of an earlier item`));
    undo.add(ids, t.itemId);
  }
  if (t.results.length > 0 && !t.results.every((id) => undo.delete(open, id))) out.push(orphan(i));
  for (const id of t.calls) if (!open.has(id)) undo.set(open, id, i);
  if (t.joinsNext === true && i === n - 1) {
    out.push(violation(i, 'reasoning_without_item', `messages[${i}] is a reasoning item with no item after it`));
  }
}

/**
 * OpenAI, AI SDK, LangChain: the tool messages right after an assistant message answer each of its
 * calls, once. AI SDK approvals: a response to one of the message's approval requests answers the
 * call it names (which may still get its result after it, once). Tool message `i` against what
 * is `pending`; the calls still open when the next message of another role comes (`opened`) are
 * `missing_tool_result`.
 */
const NONE: readonly string[] = [];

function answer(pending: Pending | undefined, t: Turn, i: number, out: MessageViolation[]): Pending | undefined {
  const responses = t.approvalResponses ?? NONE;
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
  return pending;
}

/** A message of another role than tool (after `close`): results there are orphans; an assistant message's calls open. */
function opened(t: Turn, i: number, out: MessageViolation[]): Pending | undefined {
  const responses = t.approvalResponses ?? NONE;
  if (t.results.length + responses.length > 0) out.push(orphan(i));
  if (t.role === 'assistant' && t.calls.length + (t.approvalRequests?.length ?? 0) > 0) {
    const approvals = t.approvalRequests === undefined || t.approvalRequests.length === 0 ? undefined : new Map(t.approvalRequests);
    if (t.calls.length + (approvals?.size ?? 0) > 0) return { index: i, open: new Set(t.calls), approved: undefined, approvals }; // repeated ids: duplicate_tool_call_id
  }
  return undefined;
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
