/**
 * Where the session puts prompt-cache breakpoints, and Anthropic's `cache_control` on copies of
 * the messages there (opt-in: it rewrites the message's last block).
 *
 * @internal
 * @module
 */

import { cacheControlOf, type MarkerTtl } from '../messages/markers.js';
import { isRecord } from '../validate/fields.js';
import type { Pricing } from './pricing.js';
import type { CacheBreakpoint } from './types.js';

/**
 * Blocks that cannot carry `cache_control` themselves: those of @anthropic-ai/sdk's
 * `BetaContentBlockParam` without the field (thinking, an MCP server's tool listing, a fallback
 * block; pkg/test/session.test.mjs reads the SDK's types).
 */
const NOT_MARKABLE = new Set(['thinking', 'redacted_thinking', 'mcp_tool_listing', 'fallback']);

/**
 * The breakpoints among `positions` (messages before each, in order of priority), at most `max`
 * (the profile's `maxBreakpoints` less the markers the caller placed), each with at least
 * `minCacheableTokens` before it and on a message that can carry one, and its lifetime (`ttlAt`
 * its message's index; messages/markers.ts `markerTtlAt`); with `apply`, the messages with
 * `cache_control` there (new objects).
 */
export function placeBreakpoints<M>(
  messages: M[],
  positions: readonly number[],
  tokensBefore: (before: number) => number,
  p: Pricing,
  apply: boolean,
  max: number = p.maxBreakpoints,
  ttlAt: (index: number) => MarkerTtl = () => (p.ttl === '1h' ? '1h' : '5m'),
): { messages: M[]; breakpoints: CacheBreakpoint[] } {
  const chosen: CacheBreakpoint[] = [];
  const out = apply ? messages.slice() : messages;
  for (const before of positions) {
    if (chosen.length >= max) break;
    if (before < 1 || before > messages.length || chosen.some((b) => b.index === before - 1)) continue;
    const tokens = tokensBefore(before);
    if (tokens < p.minCacheableTokens) continue;
    const ttl = ttlAt(before - 1);
    const marked = withCacheControl(messages[before - 1], ttl);
    if (marked === undefined) continue;
    if (apply) out[before - 1] = marked as M;
    chosen.push({ index: before - 1, tokens, ttl });
  }
  chosen.sort((a, b) => a.index - b.index);
  return { messages: out, breakpoints: chosen };
}

/** A copy of an Anthropic message whose last markable block has `cache_control`; `undefined` when it has none. */
function withCacheControl(message: unknown, ttl: MarkerTtl): unknown {
  if (!isRecord(message)) return undefined;
  const control = cacheControlOf(ttl);
  const content = message['content'];
  if (typeof content === 'string') return content.length === 0 ? undefined : { ...message, content: [{ type: 'text', text: content, cache_control: control }] };
  if (!Array.isArray(content)) return undefined;
  const k = lastMarkable(content);
  if (k < 0) return undefined;
  const blocks = content.slice();
  blocks[k] = { ...(content[k] as Record<string, unknown>), cache_control: control };
  return { ...message, content: blocks };
}

/** The index of the last block of `content` that can carry `cache_control`, -1 for none. */
export function lastMarkable(content: readonly unknown[]): number {
  let k = content.length - 1;
  while (k >= 0 && (!isRecord(content[k]) || NOT_MARKABLE.has(String((content[k] as Record<string, unknown>)['type'])))) k--;
  return k;
}
