/**
 * The structure of a history (its units, what its latest compaction stands for, the rules it
 * breaks, the messages pinned for what they are), kept across a session's reads so that a turn
 * scans only what is new (issue 30). The units and the rules are each one scan over the messages
 * in order (structure.ts `scanUnits`, validate.ts `scanRules`), whose state can be saved before a
 * message and resumed there: from scratch is the same scan from an empty state, so each rule is
 * written once.
 *
 * Where a turn resumes: before the previous history's last message. That is safe when the memo
 * vouches that every message before it is unchanged (history.ts `same`, of the read just before
 * this one, with the same adapter), and the history has at least as many messages as then:
 * - each step of both scans decides only what message `i` and the messages before it show (a
 *   message joins the unit of one before it; a result is checked against calls before it, a
 *   call's results when they come or at the end), so what the steps before the boundary said,
 *   and the state there, are what they would say now;
 * - the one thing a step reads of what follows is whether its message is the last (a prefill, a
 *   reasoning item with nothing after it): that is the previous last message, which is scanned
 *   again, and no message before it can have become the last, as the history did not shrink;
 * - what can change for earlier messages is said after the scan, from its state: the calls still
 *   unanswered, and (Responses) units that a later item merges by id, which the scan keeps as a
 *   union and answers afresh;
 * - the rules read the messages with the compacted ones left out, and the latest compaction marks
 *   the messages before it: the scans resume only when the marks before the boundary are those
 *   of the previous turn (the latest compaction is where it was, or it was and is at or after
 *   the boundary);
 * - the messages pinned for what they are (system messages, compactions) are each one's own
 *   answer: those before the boundary stay listed.
 * Anything else (an edit before the boundary, a truncation, another adapter, a read the memo did
 * not see) scans from the first message.
 *
 * @internal
 * @module
 */

import { compactedFrom, latestCompaction, pinnableMessages, scanUnits, type Units, type UnitsState } from './structure.js';
import type { FormatAdapter, Turn } from './turns.js';
import type { MessageViolation } from './types.js';
import { scanRules, type RulesState } from './validate.js';

/** A history's structure, as fitMessages' preparation uses it (pipeline.ts `prepareFit`). @internal */
export interface HistoryStructure {
  readonly units: Units;
  /** Per message, 1 when the latest compaction stands for it (structure.ts `compactedItems`). */
  readonly compacted: Uint8Array;
  /** The structure rules the turns break with the compacted ones left out (validate.ts `structureViolations`). */
  readonly violations: readonly MessageViolation[];
  /** The messages pinned for what they are, system messages and compactions (structure.ts `pinnableMessages`). */
  readonly pinnable: readonly number[];
}

/** The structure of `turns`, from scratch. @internal */
export function historyStructure(turns: readonly Turn[], adapter: FormatAdapter): HistoryStructure {
  return new StructureMemo().of(turns, adapter, 0, 0);
}

/** What a turn keeps for the next: both scans' states before its last message. */
interface Kept {
  readonly adapter: FormatAdapter;
  /** The memo's read this structure is of. */
  readonly read: number;
  readonly length: number;
  /** The latest compaction (-1: none), and the latest before the last message. */
  readonly last: number;
  readonly before: number;
  readonly compacted: Uint8Array;
  readonly units: UnitsState;
  readonly rules: RulesState;
  readonly pinnable: number[];
}

/** A history's structure, kept from one read of a session's history memo to the next. @internal */
export class StructureMemo {
  private kept: Kept | undefined;

  /** Whether the last call resumed the previous one's scans (for tests). */
  resumed = false;

  /**
   * The structure of `turns`, the history memo's read `read`, whose first `same` messages are
   * those of read `read - 1` unchanged (history.ts).
   */
  of(turns: readonly Turn[], adapter: FormatAdapter, read: number, same: number): HistoryStructure {
    const kept = this.kept;
    this.kept = undefined; // its maps are the scans' live ones: consumed, whatever happens below
    const n = turns.length;
    // The boundary: the previous history's last message (see the module's comment for why it is safe).
    const at = kept === undefined ? -1 : kept.length - 1;
    const prefix = kept !== undefined && kept.adapter === adapter && kept.read === read - 1 && same >= at && n >= kept.length;
    const compacts = adapter.compacts;
    const latestFrom = (to: number, before: number): number => {
      if (compacts === undefined) return -1;
      if (!prefix) return latestCompaction(turns, 0, to);
      const tail = latestCompaction(turns, at, to);
      return tail >= 0 ? tail : before;
    };
    const last = latestFrom(n, kept?.before ?? -1);
    const resume = prefix && Math.min(last, at) === Math.min(kept!.last, at);
    const from = resume ? at : 0;
    const marks = new Uint8Array(n);
    if (resume) marks.set(kept!.compacted.subarray(0, at));
    const compacted = compactedFrom(turns, compacts, last, marks, from);
    const units = scanUnits(turns, adapter, resume ? kept!.units : undefined, n - 1);
    const rules = scanRules(turns, adapter, compacts === undefined ? undefined : compacted, resume ? kept!.rules : undefined, n - 1);
    // Each message's answer is its own: those before the boundary stay (an ascending list).
    const pinnable = resume ? kept!.pinnable : [];
    while (pinnable.length > 0 && pinnable[pinnable.length - 1]! >= from) pinnable.pop();
    pinnableMessages(turns, from, pinnable);
    if (n > 0) {
      const before = latestFrom(n - 1, kept?.before ?? -1);
      this.kept = { adapter, read, length: n, last, before, compacted, units: units.state!, rules: rules.state!, pinnable };
    }
    this.resumed = resume;
    return { units: units.units, compacted, violations: rules.violations, pinnable: pinnable.slice() };
  }
}
