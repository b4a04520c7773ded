/**
 * Anthropic's `cache_control` markers on a request: counted over the tools, the system prompt and
 * the messages (Anthropic's, LangChain's and the AI SDK's), and kept within the provider's limit
 * (a format rule: every fitMessages request in the Anthropic and LangChain formats obeys it;
 * sessions place their own breakpoints within what is left, session/breakpoints.ts).
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

/** The markers a message carries on its blocks (Anthropic's, LangChain's). */
function blockMessageMarkers(message: unknown): number {
  return isRecord(message) ? blockMarkers(message['content']) : 0;
}

/** The formats whose messages carry Anthropic's `cache_control` on their content blocks, where {@link capMarkers} keeps a request within the limit. */
export function capsMarkers(format: string): boolean {
  return format === 'anthropic' || format === 'langchain';
}

/**
 * The markers of an AI SDK value (a message, a part, a system message, a tool): its own
 * `providerOptions.anthropic.cacheControl` ({@link ownControl}), those of its parts, and those of a
 * tool result's `output` and of its `content` items. `@ai-sdk/anthropic` counts a part's marker,
 * else its output's, else the message's own on its last part, a thinking part's too (counted,
 * then not sent): counted here every one, so never fewer than the SDK counts.
 */
function aiSdkMarkers(value: unknown, depth = 0): number {
  if (depth > 6) return 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + aiSdkMarkers(v, depth + 1), 0);
  if (!isRecord(value)) return 0;
  let n = (ownControl(value) !== undefined ? 1 : 0) + aiSdkMarkers(value['content'], depth + 1);
  const output = value['output'];
  if (isRecord(output)) n += (ownControl(output) !== undefined ? 1 : 0) + (output['type'] === 'content' ? aiSdkMarkers(output['value'], depth + 1) : 0);
  return n;
}

/** A LangChain tool's markers: its own `cache_control` (an Anthropic tool), or its `extras.cache_control`, which `@langchain/anthropic` sends with the tool. */
function langchainToolMarkers(tool: unknown): number {
  if (!isRecord(tool)) return 0;
  const extras = tool['extras'];
  return (marked(tool) ? 1 : 0) + (marked(extras) ? 1 : 0);
}

/**
 * The caller's markers a request in `format` carries in its messages: Anthropic's and LangChain's
 * `cache_control` on content blocks and on the blocks of their `content` (a `tool_result`'s, a
 * LangChain tool message's), the AI SDK's `providerOptions` ({@link aiSdkMarkers}); none in the
 * other formats. Never fewer than the SDK that sends the request counts toward Anthropic's
 * {@link ANTHROPIC_MAX_MARKERS}, so that a session plans no breakpoint that is not sent.
 */
export function messageMarkers(format: string, message: unknown): number {
  if (capsMarkers(format)) return blockMessageMarkers(message);
  return format === 'ai-sdk' ? aiSdkMarkers(message) : 0;
}

/**
 * The caller's markers on what a request in `format` sends before its messages: `options.system`
 * (Anthropic's blocks, the AI SDK's system messages; a string has none) and `options.tools`
 * (Anthropic's tools, a LangChain tool's `extras`, the AI SDK's tools, an array or its `ToolSet`
 * object), as {@link messageMarkers} counts.
 */
export function fixedMarkers(format: string, system: unknown, tools: unknown): number {
  switch (format) {
    case 'anthropic':
      return blockMarkers(system) + blockMarkers(tools);
    case 'langchain':
      return blockMarkers(system) + (Array.isArray(tools) ? tools.reduce((n: number, t) => n + langchainToolMarkers(t), 0) : 0);
    case 'ai-sdk':
      return aiSdkMarkers(system) + aiSdkMarkers(isRecord(tools) && !Array.isArray(tools) ? Object.values(tools) : tools);
    default:
      return 0;
  }
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

/** A copy of `message` without its first `count` markers (`rebuild(message, content)`); `undefined` when `rebuild` refuses. */
function withoutMarkers<M>(message: M, count: number, rebuild: (message: M, content: readonly unknown[]) => M | undefined): M | undefined {
  return rebuild(message, dropMarkers((message as Record<string, unknown>)['content'] as readonly unknown[], { left: count }));
}

/**
 * Keeps a request within {@link ANTHROPIC_MAX_MARKERS}: the markers of messages `own` names (the
 * session's from an earlier turn, back in the history because the application sent our output
 * back as its history) are removed; then, while the messages' markers and `fixed` (the system
 * prompt's and the tools') exceed the limit, the earliest are removed. `messages` is updated in
 * place with copies (`rebuild`: how a message of the format is copied with other content,
 * turns.ts `copyWithContent`); the caller's messages are never modified. Returns the
 * caller's markers removed and the markers left on the messages; `refused`, when markers past
 * the limit stay because `rebuild` could copy no message that carries them, the first of those.
 */
export function capMarkers<M>(
  messages: M[],
  fixed: number,
  own: ((k: number) => boolean) | undefined,
  rebuild: (message: M, content: readonly unknown[]) => M | undefined,
): { removed: number; left: number; refused?: number } {
  const counts = messages.map(blockMessageMarkers);
  let refused: number | undefined;
  const drop = (k: number, count: number): boolean => {
    const copy = withoutMarkers(messages[k]!, count, rebuild);
    if (copy === undefined) {
      refused ??= k;
      return false;
    }
    messages[k] = copy;
    return true;
  };
  let left = 0;
  for (let k = 0; k < messages.length; k++) {
    if (counts[k]! > 0 && own?.(k) === true && drop(k, counts[k]!)) counts[k] = 0;
    left += counts[k]!;
  }
  let excess = Math.max(0, Math.min(left, fixed + left - ANTHROPIC_MAX_MARKERS));
  let removed = 0;
  for (let k = 0; k < messages.length && excess > 0; k++) {
    const count = Math.min(excess, counts[k]!);
    if (count === 0 || !drop(k, count)) continue;
    excess -= count;
    removed += count;
  }
  return { removed, left: left - removed, ...(excess > 0 ? { refused: refused! } : {}) };
}

// ---- lifetimes ---------------------------------------------------------------------------------

/** A cache marker's lifetime: Anthropic's `ttl`, 5 minutes unless it says `'1h'`. */
export type MarkerTtl = '5m' | '1h';

/** The `cache_control` ctxpack writes for a lifetime (the 5-minute one is the API's default: no `ttl`). */
export function cacheControlOf(ttl: MarkerTtl): { type: 'ephemeral'; ttl?: '1h' } {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/**
 * The marker a value carries itself, in any format ctxpack reads: `cache_control` (Anthropic's
 * blocks and tools, LangChain's blocks), or the AI SDK's `providerOptions.anthropic.cacheControl`
 * (or `cache_control`); `undefined` for none (`cache_control: null` is none).
 */
export function ownControl(value: Readonly<Record<string, unknown>>): unknown {
  const po = value['providerOptions'];
  const anthropic = isRecord(po) ? po['anthropic'] : undefined;
  const control = isRecord(anthropic) ? (anthropic['cacheControl'] ?? anthropic['cache_control'] ?? value['cache_control']) : value['cache_control'];
  return control === null ? undefined : control;
}

/**
 * The markers in `value` (messages, their parts, tools, a system prompt), in processing order:
 * each value's own, then those in its `content`, to 4 levels (a message, its parts, the blocks of
 * a part's content; deeper is not a marker's place).
 */
export function controlsIn(value: unknown, out: unknown[] = [], depth = 0): unknown[] {
  if (depth > 4) return out;
  if (Array.isArray(value)) {
    for (const v of value) controlsIn(v, out, depth + 1);
    return out;
  }
  if (!isRecord(value)) return out;
  const own = ownControl(value);
  if (own !== undefined) out.push(own);
  return controlsIn(value['content'], out, depth + 1);
}

/** A marker's lifetime: `'1h'` only when its `ttl` says so. */
function ttlOf(control: unknown): MarkerTtl {
  return isRecord(control) && control['ttl'] === '1h' ? '1h' : '5m';
}

/**
 * Where the first 5-minute marker stands in Anthropic's processing order (tools, system prompt,
 * messages): -1 in `tools` or `system`, else the index of the first of `messages` holding one
 * (`skip`: messages not looked at), `Infinity` without any.
 */
export function firstShortMarker(tools: unknown, system: unknown, messages: readonly unknown[], skip?: (k: number) => boolean): number {
  const short = (v: unknown): boolean => controlsIn(v).some((c) => ttlOf(c) === '5m');
  if (short(tools) || short(system)) return -1;
  for (let k = 0; k < messages.length; k++) if (skip?.(k) !== true && short(messages[k])) return k;
  return Infinity;
}

/**
 * Where the last 1-hour marker stands among `messages`: the index of the last message holding
 * one, -1 without any (tools and system prompt come before every message: a 1-hour marker there
 * never follows a breakpoint ctxpack writes).
 */
export function lastLongMarker(messages: readonly unknown[]): number {
  for (let k = messages.length - 1; k >= 0; k--) if (controlsIn(messages[k]).some((c) => ttlOf(c) === '1h')) return k;
  return -1;
}

/**
 * The lifetime of a marker ctxpack writes on `messages[index]`, given the first 5-minute marker
 * before it (`shortAt`, {@link firstShortMarker}) and the last 1-hour marker after it (`longAt`,
 * {@link lastLongMarker}). Anthropic refuses a request in which a 1-hour marker comes after a
 * 5-minute one ("A ttl='1h' cache_control block must not come after a ttl='5m' cache_control
 * block. Blocks are processed in the following order: tools, system, messages"), so:
 *
 * - `'1h'` is shortened to `'5m'` on that message and after it (`shortAt`); ctxpack's own markers
 *   after a shortened one are after the same 5-minute marker, so none is longer than one before it;
 * - `'5m'` is lengthened to `'1h'` on a message at or before `longAt` (the caller's 1-hour marker
 *   is after it, or on the same message, where ctxpack marks the last block). That costs nothing:
 *   Anthropic bills every token up to the last 1-hour marker as a 1-hour write whatever the
 *   markers before it say ("Mixing different TTLs": 1-hour writes for B − A, B the highest 1-hour
 *   `cache_control` block), and ctxpack's lengthened markers are all before it.
 */
export function markerTtlAt(wanted: MarkerTtl, index: number, shortAt: number, longAt = -1): MarkerTtl {
  if (wanted === '1h') return index >= shortAt ? '5m' : '1h';
  return index <= longAt ? '1h' : '5m';
}
