/**
 * Atomic units and pins. A unit is an assistant message with its tool calls together with every
 * message that carries their results (parallel calls included) or, in the AI SDK, the responses to
 * its tool approval requests: kept whole or dropped whole.
 * Every other message is a unit of its own. Pinned: system messages, the latest user message
 * someone typed (the task), the last message's unit (the agent step in flight: the latest call
 * and its results), the first step after the task when its assistant message opens with the
 * model's thinking (Anthropic refuses the turn without it), what `options.keep` names, and the
 * whole unit of any of these. The steps between the task and the last one compete like any other
 * message: an agent that works on one task for hundreds of steps would otherwise pin its whole
 * history.
 *
 * @internal
 * @module
 */

import { CtxpackError } from '../errors.js';
import type { FormatAdapter, Turn } from './turns.js';
import { Undo } from './undo.js';

/** Units over the messages: `unitOf[i]` is the index of the first message of `i`'s unit. */
export interface Units {
  readonly unitOf: Int32Array;
  /** Members of each unit, by its first message's index (ascending). */
  readonly members: UnitMembers;
}

/** The members of a unit by its first message's index, ascending; `undefined` for an index that names no unit. */
export interface UnitMembers {
  get(unit: number): readonly number[] | undefined;
}

/** Pairs calls with results as the format places them (see validate.ts for the rules themselves). */
export function buildUnits(turns: readonly (Turn | undefined)[], adapter: FormatAdapter): Units {
  return scanUnits(turns, adapter).units;
}

/**
 * A units scan's state before message `at`, to resume there on a later history that has the same
 * first `at` messages (structure-memo.ts). Consumed by the scan that resumes from it: its maps are
 * the live ones, with the changes made from `at` on in `undo`.
 */
export interface UnitsState {
  readonly at: number;
  /** Per message before `at`: the scan's array there (a unit's first message; by-id, the union's parent, which a later message may still merge). */
  readonly root: Int32Array;
  /** Tool messages: the assistant message before `at` whose tool messages run up to `at`, or -1. */
  readonly owner: number;
  /** By id: the latest message making each call id. */
  readonly callAt: Map<string, number>;
  readonly undo: Undo;
}

/**
 * The units, by one scan over the messages in order (from `from.at` on with `from`, else from the
 * first), and the scan's state before message `saveAt` (none without it). Each step decides only
 * whether message `i` joins the unit of a message before it, by looking at it and at those before
 * it: tool messages join the assistant message their run follows, an Anthropic user message the
 * assistant message just before, a Responses item the item of its call, the call before it, the
 * program it names, the reasoning item just before it, or the reasoning item whose response it is
 * part of. So the steps before `at` and the state there hold for any history with the same first
 * `at` messages; a later message may still merge
 * earlier units by id (Responses), which is why the state keeps the union, not the answer.
 */
export function scanUnits(turns: readonly (Turn | undefined)[], adapter: FormatAdapter, from?: UnitsState, saveAt = -1): { units: Units; state: UnitsState | undefined } {
  const n = turns.length;
  const start = from?.at ?? 0;
  const unitOf = new Int32Array(n);
  if (from !== undefined) unitOf.set(from.root);
  for (let i = start; i < n; i++) unitOf[i] = i;
  const undo = from?.undo ?? new Undo();
  undo.rewind();
  const callAt = from?.callAt ?? new Map<string, number>();
  let state: UnitsState | undefined;
  if (adapter.results === 'by-id') {
    const find = (i: number): number => {
      while (unitOf[i] !== i) i = unitOf[i] = unitOf[unitOf[i]!]!;
      return i;
    };
    const join = (a: number, b: number): void => {
      const x = find(a);
      const y = find(b);
      if (x < y) unitOf[y] = x;
      else unitOf[x] = y;
    };
    // Whether the items before `i` end in a response's items after its reasoning item (Turn.fromModel).
    let reasoning = openReasoning(turns, start);
    for (let i = start; i < n; i++) {
      if (i === saveAt) {
        state = { at: i, root: unitOf.slice(0, i), owner: -1, callAt, undo };
        undo.on = true;
      }
      byId(turns, i, join, callAt, undo, reasoning);
      const t = turns[i];
      reasoning = t?.fromModel === true && (reasoning || t.joinsNext === true);
    }
    for (let i = 0; i < n; i++) unitOf[i] = find(i);
    return { units: withMembers(unitOf), state };
  }
  let owner = from?.owner ?? -1;
  let calls: (id: string) => boolean = () => false;
  let approvals: ((id: string) => boolean) | undefined;
  const own = (i: number): void => {
    const t = turns[i]!;
    calls = memberOf(t.calls);
    approvals = t.approvalRequests === undefined ? undefined : memberOf(t.approvalRequests.map(([approval]) => approval));
  };
  if (owner >= 0) own(owner);
  for (let i = start; i < n; i++) {
    if (i === saveAt) state = { at: i, root: unitOf.slice(0, i), owner, callAt, undo };
    const t = turns[i];
    if (adapter.results === 'next-user') {
      // An Anthropic user message joins the assistant message just before it when it answers one of its calls.
      const prev = turns[i - 1];
      if (t?.role === 'user' && prev?.role === 'assistant' && (prev.calls.length > 0 || prev.approvalRequests !== undefined) && t.results.some(memberOf(prev.calls))) unitOf[i] = i - 1;
      continue;
    }
    // Tool messages join the assistant message whose calls their run follows, each when it answers one of them.
    if (t?.role === 'tool') {
      if (owner >= 0 && (t.results.some(calls) || (approvals !== undefined && t.approvalResponses?.some(approvals) === true))) unitOf[i] = owner;
      continue;
    }
    owner = t?.role === 'assistant' && (t.calls.length > 0 || t.approvalRequests !== undefined) ? i : -1;
    if (owner >= 0) own(owner);
  }
  return { units: withMembers(unitOf), state };
}

/** Whether an id is in `ids`: a look through the list for the few calls of one message, a Set beyond. */
function memberOf(ids: readonly string[]): (id: string) => boolean {
  if (ids.length <= 8) return (id) => ids.includes(id);
  const set = new Set(ids);
  return (id) => set.has(id);
}

function withMembers(unitOf: Int32Array): Units {
  // Per message, the next member of its unit (-1 after the last): a unit's list is made when
  // asked (most are one message, and few are asked), never one array per message.
  const n = unitOf.length;
  const next = new Int32Array(n).fill(-1);
  const last = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const u = unitOf[i]!;
    if (last[u]! >= 0) next[last[u]!] = i;
    last[u] = i;
  }
  const made = new Map<number, readonly number[]>();
  const get = (unit: number): readonly number[] | undefined => {
    if (!Number.isInteger(unit) || unit < 0 || unit >= n || unitOf[unit] !== unit) return undefined;
    if (next[unit] === -1) return [unit];
    let list = made.get(unit);
    if (list === undefined) {
      const members: number[] = [];
      for (let j = unit; j >= 0; j = next[j]!) members.push(j);
      made.set(unit, (list = members));
    }
    return list;
  };
  return { unitOf, members: { get } };
}

/**
 * Units of the Responses API, where an item names what it belongs to: an output joins its call's
 * unit (the latest call with that id before it), wherever it comes; calls one after another (the
 * parallel calls of one model turn, which a reasoning item before them precedes) share a unit; a
 * reasoning item joins the next item's, and every item the model output after it up to one it
 * did not (`reasoning`: the items before `i` end in such a run); an item a program made joins the
 * program's. Each unit is named by its first item (the union's root is its smallest index). One
 * step: item `i`.
 */
function byId(turns: readonly (Turn | undefined)[], i: number, join: (a: number, b: number) => void, callAt: Map<string, number>, undo: Undo, reasoning: boolean): void {
  const t = turns[i];
  if (t === undefined) return;
  // An item the model output after a reasoning item, up to one it did not, is that response's.
  if (reasoning && t.fromModel === true) join(i - 1, i);
  if (t.calls.length > 0 && (turns[i - 1]?.calls.length ?? 0) > 0) join(i - 1, i);
  for (const id of t.results) if (callAt.has(id)) join(callAt.get(id)!, i);
  for (const id of t.attachedTo ?? []) if (callAt.has(id)) join(callAt.get(id)!, i);
  for (const id of t.calls) undo.set(callAt, id, i);
  // The reasoning item just before joins this one (the step of the reasoning item cannot know the next).
  if (turns[i - 1]?.joinsNext === true) join(i - 1, i);
}

/** Whether the items before `at` end in a run of items the model output that a reasoning item opened (a scan resumed there continues it). */
function openReasoning(turns: readonly (Turn | undefined)[], at: number): boolean {
  for (let j = at - 1; j >= 0 && turns[j]?.fromModel === true; j--) if (turns[j]!.joinsNext === true) return true;
  return false;
}

/** `broken`'s mark for an item that the latest compaction item stands for (1 marks a rule broken). */
export const COMPACTED = 2;

/**
 * The messages the latest compaction stands for, never sent (`COMPACTED`):
 * - Responses (`compacts: 'model'`): the model's items before the latest `compaction` item (its
 *   messages, calls, outputs, reasoning, earlier compactions). System and developer messages and
 *   the user's messages before it stay candidates: the compacted window OpenAI returns keeps the
 *   user's messages beside the compaction item, and instructions are not what it summarises.
 * - Anthropic (`compacts: 'all'`): every message before the assistant message that opens with
 *   the latest `compaction` block, which then opens the request (the API takes the block only as
 *   the first of the conversation, in place of what it summarises).
 */
export function compactedItems(turns: readonly (Turn | undefined)[], compacts: FormatAdapter['compacts']): Uint8Array {
  return compactedFrom(turns, compacts, compacts === undefined ? -1 : latestCompaction(turns, 0, turns.length), new Uint8Array(turns.length), 0);
}

/** {@link compactedItems} into `out` from message `from` on, the latest compaction being `last` (-1: none). */
export function compactedFrom(turns: readonly (Turn | undefined)[], compacts: FormatAdapter['compacts'], last: number, out: Uint8Array, from: number): Uint8Array {
  if (compacts === undefined) return out;
  for (let i = from; i < last; i++) if (turns[i] !== undefined && (compacts === 'all' || (turns[i]!.role !== 'system' && turns[i]!.role !== 'user'))) out[i] = 1;
  return out;
}

/** The latest compaction among messages `from` to `to - 1`, or -1. */
export function latestCompaction(turns: readonly (Turn | undefined)[], from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) if (turns[i]?.compaction === true) return i;
  return -1;
}

/** What `options.keep` may be: the last N messages, or a predicate on `(message, index)`. */
export type KeepRule = number | ((message: unknown, index: number) => boolean);

/** `keep(message, index)`; what it throws is the caller's: `INVALID_OPTION` naming `keep` and the message, with the thrown value as `cause`. */
function kept(keep: (message: unknown, index: number) => unknown, message: unknown, index: number): boolean {
  try {
    return Boolean(keep(message, index));
  } catch (err) {
    throw new CtxpackError('INVALID_OPTION', `options.keep threw for messages[${index}] (the thrown value is this error's cause)`, { field: 'keep', index, cause: err });
  }
}

/**
 * The pinned messages: system messages and the latest compaction item (`pinnable`, as
 * {@link pinnableMessages} lists them); the latest user message someone wrote (not one that only
 * carries tool results); the first assistant message of the turn in flight when it opens with
 * the model's thinking (`Turn.opensWithThinking`); the last message; `keep`; then whole units;
 * and with `firstFromUser`, when the first of them is not a user message, the nearest user message before it that is a
 * unit of its own and breaks no rule (`broken`: it could not be sent), so that `keep` never makes
 * a request that has to open with an assistant. Items `broken` marks `COMPACTED` are never pinned.
 */
export function pinnedMessages(
  messages: readonly unknown[],
  turns: readonly (Turn | undefined)[],
  units: Units,
  keep: KeepRule | undefined,
  firstFromUser: boolean,
  broken: Uint8Array,
  pinnable: readonly number[] = pinnableMessages(turns, 0, []),
): Uint8Array {
  const n = turns.length;
  const pinned = new Uint8Array(n);
  const latest = latestUserMessage(turns);
  if (latest >= 0) pinned[latest] = 1;
  if (n > 0) pinned[n - 1] = 1;
  // The turn in flight opens with the model's thinking: kept with the step in flight (Turn.opensWithThinking).
  const opening = thinkingOpening(turns);
  if (opening >= 0) pinned[opening] = 1;
  for (const i of pinnable) pinned[i] = 1;
  if (typeof keep === 'number') for (let i = Math.max(0, n - keep); i < n; i++) pinned[i] = 1;
  else if (keep !== undefined) for (let i = 0; i < n; i++) if (kept(keep, messages[i], i)) pinned[i] = 1;
  pinWholeUnits(pinned, units);
  // What a compaction stands for is never sent, whatever pins it (a unit across the compaction
  // then breaks a rule and says so).
  for (let i = 0; i < n; i++) if (broken[i] === COMPACTED) pinned[i] = 0;
  if (firstFromUser) {
    // A pinned unit that would open the request (Anthropic: it must start with a user message;
    // system messages go apart) brings the nearest user message before it that starts a unit of
    // its own, if there is one.
    let first = pinned.indexOf(1);
    while (first >= 0 && turns[first]?.role === 'system') first = pinned.indexOf(1, first + 1);
    if (first >= 0 && turns[first]?.role !== 'user' && turns[first]?.compaction !== true) {
      let j = first - 1;
      while (j >= 0 && !(turns[j]?.role === 'user' && units.unitOf[j] === j && broken[j] === 0)) j--;
      if (j >= 0) pinned[j] = 1;
    }
  }
  return pinned;
}

/**
 * Appends to `out` the messages from `from` on that are pinned for what they are: system messages,
 * and compactions (Responses: the latest stands for everything the model did before it; the
 * earlier ones are COMPACTED, unpinned by {@link pinnedMessages}). Each message's answer is its
 * own, so a session keeps the list from one turn to the next (structure-memo.ts).
 */
export function pinnableMessages(turns: readonly (Turn | undefined)[], from: number, out: number[]): number[] {
  for (let i = from; i < turns.length; i++) if (turns[i]?.role === 'system' || turns[i]?.compaction === true) out.push(i);
  return out;
}

/**
 * The first assistant message of the turn in flight, or -1: after the latest user message that
 * carries no tool result (Anthropic chains a turn's steps through the user messages that carry
 * their results, with text beside them or not) and is not a step's screenshot.
 */
function openingOfTurnInFlight(turns: readonly (Turn | undefined)[]): number {
  let i = turns.length - 1;
  while (i >= 0 && !(turns[i]?.role === 'user' && turns[i]!.results.length === 0 && !toolMedia(turns, i))) i--;
  for (i++; i < turns.length; i++) if (turns[i]?.role === 'assistant') return i;
  return -1;
}

/**
 * The first assistant message of the turn in flight when it opens with the model's thinking
 * (`Turn.opensWithThinking`), else -1. With thinking on, Anthropic refuses a request whose turn in
 * flight does not open with the thinking it began with: that message is pinned, and no user
 * message may be put after it (a session's summary waits for the turn to end).
 */
export function thinkingOpening(turns: readonly (Turn | undefined)[]): number {
  const opening = openingOfTurnInFlight(turns);
  return opening >= 0 && turns[opening]!.opensWithThinking === true ? opening : -1;
}

/** Pins every member of a unit that has a pinned member. */
function pinWholeUnits(pinned: Uint8Array, units: Units): void {
  for (let i = 0; i < pinned.length; i++) if (pinned[i] === 1) for (const j of units.members.get(units.unitOf[i]!)!) pinned[j] = 1;
}

/**
 * The latest user message someone wrote, or -1: not one that only carries tool results, nor one
 * that carries media right after a tool's result (a computer-use agent's screenshot, which chat
 * formats cannot put in a tool message, so the agent sends it as a user message of the step).
 */
export function latestUserMessage(turns: readonly (Turn | undefined)[]): number {
  let latest = turns.length - 1;
  while (latest >= 0 && !(turns[latest]?.role === 'user' && turns[latest]!.prose && !toolMedia(turns, latest))) latest--;
  return latest;
}

/** Whether user message `i` carries media and follows a tool's result (or another such message). */
function toolMedia(turns: readonly (Turn | undefined)[], i: number): boolean {
  if ((turns[i]!.media?.length ?? 0) === 0) return false;
  for (let j = i - 1; j >= 0; j--) {
    const t = turns[j];
    if (t === undefined) continue;
    if (t.results.length > 0) return true;
    if (!(t.role === 'user' && (t.media?.length ?? 0) > 0)) return false;
  }
  return false;
}
