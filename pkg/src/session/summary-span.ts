/**
 * What a session's summary stands for: the run of messages a cut leaves out that it replaces, and
 * the index arithmetic between the history and the list a summary is inserted into
 * (summaries.ts holds the summaries' lifecycle: the jobs, their prices, the requests).
 *
 * @internal
 * @module
 */

import type { PreparedFit } from '../messages/pipeline.js';
import { thinkingOpening } from '../messages/structure.js';
import type { FormatAdapter, Turn } from '../messages/turns.js';
import { textKey } from '../tokens/cache.js';
import type { SessionFitResult } from './types.js';

/** A list with a summary at `at` (-1: none) standing for the original messages [job.start, job.end). */
export interface Planned {
  readonly at: number;
  readonly job: { readonly start: number; readonly end: number } | undefined;
}

/** The original index of the planned list's `k` (-1: the summary). */
export function origOf(rw: Planned, k: number): number {
  return rw.at < 0 || k < rw.at ? k : k === rw.at ? -1 : k - 1;
}

/** The planned list's index of the original message `i`. */
export function listOf(rw: Planned, i: number): number {
  return rw.at < 0 || i < rw.at ? i : i + 1;
}

/** The content of messages [start, end) of `list`, as the session reads it (role, tool ids, text). */
export function signatureOf(adapter: FormatAdapter, list: readonly unknown[], start: number, end: number): string | undefined {
  if (end > list.length) return undefined;
  const parts: string[] = [];
  for (let i = start; i < end; i++) {
    let t: Turn;
    try {
      t = adapter.read(list[i], i);
    } catch {
      return undefined;
    }
    parts.push(textKey(`${t.role}\u0001${t.calls.join('\u0002')}\u0001${t.results.join('\u0002')}\u0001${t.text}`));
  }
  return textKey(`${start}\u0003${parts.join('\u0003')}`);
}

/** The first index after the task: leading system messages, then the first user message's unit. */
export function afterTask(prep: PreparedFit<unknown>): number {
  const { turns, units } = prep;
  let i = 0;
  while (i < turns.length && turns[i]!.role === 'system') i++;
  if (i < turns.length && turns[i]!.role === 'user' && turns[i]!.prose) {
    for (const j of units.members.get(units.unitOf[i]!)!) i = Math.max(i, j + 1);
  }
  return i;
}

/**
 * The run of the planned list (`rw`, as cut by `r`) that a new summary would stand for:
 * [first, end), where `first` is the summary in use when it folds (its span ends at `spanEnd` in
 * the list, -1 without one), else the largest run of whole units the cut leaves out after the
 * task. `undefined`: nothing to summarise.
 */
export function summaryRun(prep: PreparedFit<unknown>, rw: Planned, r: SessionFitResult<unknown>): { first: number; end: number; spanEnd: number } | undefined {
  const { turns, units, pinned, broken } = prep;
  const n = turns.length;
  const overhead = prep.budget.perFragmentOverhead;
  /** The end of the run of whole units from `j`, contiguous, none pinned, broken or sent (j itself when there is none). */
  const runEnd = (from: number): number => {
    let j = from;
    while (j < n) {
      const members = units.members.get(units.unitOf[j]!)!;
      const last = Math.max(...members);
      if (Math.min(...members) !== j || last - j + 1 !== members.length) break;
      if (members.some((k) => pinned[k] === 1 || broken[k] !== 0 || r.decisions[k]!.included)) break;
      j = last + 1;
    }
    return j;
  };
  let first: number;
  let j: number;
  // A fold's new messages start after the summary in use and its span.
  const spanEnd = rw.job === undefined ? -1 : listOf(rw, rw.job.end);
  if (rw.at >= 0) {
    // The summary in use and the run after it: folded into one (its span's messages left out too).
    first = rw.at;
    j = runEnd(rw.at + 1);
    if (j <= spanEnd) return undefined; // a message of its span kept in full: nothing new to fold in
  } else {
    // The largest run the cut leaves out after the task (a cut by value may keep some units between),
    // before the thinking that opens the turn in flight, if it does: a user message after it would
    // end that turn, and the step after it would not open with thinking (Anthropic refuses it).
    // A fold's run stops there anyway: that message is pinned.
    first = afterTask(prep);
    j = first;
    let best = 0;
    const opening = thinkingOpening(turns);
    for (let k = first; k < (opening >= 0 ? opening : n); ) {
      const end = runEnd(k);
      if (end === k) {
        k = Math.max(...units.members.get(units.unitOf[k]!)!, k) + 1;
        continue;
      }
      let tokens = 0;
      for (let i = k; i < end; i++) tokens += r.decisions[i]!.cost_tokens + overhead;
      if (tokens > best) [best, first, j] = [tokens, k, end];
      k = end;
    }
  }
  return j === first ? undefined : { first, end: j, spanEnd };
}
