/**
 * Atomic units and pins. A unit is an assistant message with its tool calls together with every
 * message that carries their results (parallel calls included): kept whole or dropped whole.
 * Every other message is a unit of its own. Pinned: system messages, the latest user message and
 * everything after it (the agent step in flight), what `options.keep` names, and the whole unit
 * of any of these.
 *
 * @internal
 * @module
 */

import type { FormatAdapter, Turn } from './turns.js';

/** Units over the messages: `unitOf[i]` is the index of the first message of `i`'s unit. */
export interface Units {
  readonly unitOf: Int32Array;
  /** Members of each unit, by its first message's index (ascending). */
  readonly members: ReadonlyMap<number, readonly number[]>;
}

/** Pairs calls with results as the format places them (see validate.ts for the rules themselves). */
export function buildUnits(turns: readonly (Turn | undefined)[], adapter: FormatAdapter): Units {
  const n = turns.length;
  const unitOf = new Int32Array(n);
  for (let i = 0; i < n; i++) unitOf[i] = i;
  for (let i = 0; i < n; i++) {
    const t = turns[i];
    if (t?.role !== 'assistant' || t.calls.length === 0) continue;
    const calls = new Set(t.calls);
    if (adapter.results === 'next-user') {
      const next = turns[i + 1];
      if (next?.role === 'user' && next.results.some((id) => calls.has(id))) unitOf[i + 1] = unitOf[i]!;
      continue;
    }
    for (let j = i + 1; j < n && turns[j]?.role === 'tool'; j++) {
      if (turns[j]!.results.some((id) => calls.has(id))) unitOf[j] = unitOf[i]!;
    }
  }
  const members = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const u = unitOf[i]!;
    const list = members.get(u);
    if (list === undefined) members.set(u, [i]);
    else list.push(i);
  }
  return { unitOf, members };
}

/** What `options.keep` may be: the last N messages, or a predicate on `(message, index)`. */
export type KeepRule = number | ((message: unknown, index: number) => boolean);

/**
 * The pinned messages: system messages; the latest user message someone wrote (not one that only
 * carries tool results) and everything after it, or without one the last message; `keep`; then
 * whole units.
 */
export function pinnedMessages(messages: readonly unknown[], turns: readonly (Turn | undefined)[], units: Units, keep: KeepRule | undefined): Uint8Array {
  const n = turns.length;
  const pinned = new Uint8Array(n);
  let latest = n - 1;
  while (latest >= 0 && !(turns[latest]?.role === 'user' && turns[latest]!.prose)) latest--;
  for (let i = latest < 0 ? n - 1 : latest; i >= 0 && i < n; i++) pinned[i] = 1;
  for (let i = 0; i < n; i++) {
    if (turns[i]?.role === 'system') pinned[i] = 1;
    if (typeof keep === 'number' ? i >= n - keep : keep !== undefined && keep(messages[i], i)) pinned[i] = 1;
  }
  for (let i = 0; i < n; i++) if (pinned[i] === 1) for (const j of units.members.get(units.unitOf[i]!)!) pinned[j] = 1;
  return pinned;
}
