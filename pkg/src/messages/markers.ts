/**
 * Anthropic's `cache_control` markers on a request: counted over the tools, the system prompt and
 * the messages, and kept within the provider's limit (a format rule: every fitMessages request
 * obeys it; sessions place their own breakpoints within what is left, session/breakpoints.ts).
 *
 * @internal
 * @module
 */

import { isRecord } from '../validate/fields.js';

/**
 * Anthropic refuses a request with more `cache_control` breakpoints than this, counted over the
 * tools, the system prompt and the messages together.
 */
export const ANTHROPIC_MAX_MARKERS = 4;

/** Whether a block carries a marker (`cache_control: null` is none). */
function marked(block: unknown): boolean {
  return isRecord(block) && block['cache_control'] !== undefined && block['cache_control'] !== null;
}

/** Markers on a list of blocks, and on the blocks inside their `content` (a `tool_result`'s). */
function blockMarkers(blocks: unknown): number {
  if (!Array.isArray(blocks)) return 0;
  let count = 0;
  for (const b of blocks) {
    if (!isRecord(b)) continue;
    if (marked(b)) count++;
    count += blockMarkers(b['content']);
  }
  return count;
}

/** The markers a message carries. */
export function messageMarkers(message: unknown): number {
  return isRecord(message) ? blockMarkers(message['content']) : 0;
}

/** The markers of a top-level system prompt (a string has none). */
export function fixedMarkers(system: unknown): number {
  return blockMarkers(system);
}

/** A copy of `blocks` without their first `drop` markers (depth first, in order); the blocks themselves when none is dropped. */
function dropMarkers(blocks: readonly unknown[], drop: { left: number }): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let k = 0; k < blocks.length && drop.left > 0; k++) {
    const b = blocks[k];
    if (!isRecord(b)) continue;
    let copy: Record<string, unknown> | undefined;
    if (marked(b)) {
      const { cache_control: _, ...rest } = b;
      copy = rest;
      drop.left--;
    }
    const inner = b['content'];
    if (Array.isArray(inner) && drop.left > 0) {
      const dropped = dropMarkers(inner, drop);
      if (dropped !== inner) copy = { ...(copy ?? b), content: dropped };
    }
    if (copy !== undefined) (out ??= blocks.slice())[k] = copy;
  }
  return out ?? blocks;
}

/** A copy of `message` without its first `count` markers. */
function withoutMarkers<M>(message: M, count: number): M {
  const content = (message as Record<string, unknown>)['content'] as readonly unknown[];
  return { ...message, content: dropMarkers(content, { left: count }) } as M;
}

/**
 * Keeps a request within {@link ANTHROPIC_MAX_MARKERS}: the markers of messages `own` names (the
 * session's from an earlier turn, back in the history because the application sent our output
 * back as its history) are removed; then, while the messages' markers and `fixed` (the system
 * prompt's) exceed the limit, the earliest are removed. `messages` is updated in place with
 * copies; the caller's messages are never modified. Returns the caller's markers removed and the
 * markers left on the messages.
 */
export function capMarkers<M>(messages: M[], fixed: number, own?: (k: number) => boolean): { removed: number; left: number } {
  const counts = messages.map(messageMarkers);
  let left = 0;
  for (let k = 0; k < messages.length; k++) {
    if (counts[k]! > 0 && own?.(k) === true) {
      messages[k] = withoutMarkers(messages[k]!, counts[k]!);
      counts[k] = 0;
    }
    left += counts[k]!;
  }
  let excess = Math.max(0, Math.min(left, fixed + left - ANTHROPIC_MAX_MARKERS));
  const removed = excess;
  for (let k = 0; k < messages.length && excess > 0; k++) {
    const drop = Math.min(excess, counts[k]!);
    if (drop === 0) continue;
    messages[k] = withoutMarkers(messages[k]!, drop);
    excess -= drop;
  }
  return { removed, left: left - removed };
}
