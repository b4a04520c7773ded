/**
 * Media as notes: the text a non-text part goes in as (`[PDF omitted: 12 pages]`), and the copies
 * of a message or value with its media replaced by those notes, in each format's text part:
 * stubs (`stubMedia`) and the second cut of truncation (truncate.ts) make them. media.ts reads
 * and counts the parts.
 *
 * @internal
 * @module
 */

import { imageSizeOf, pdfPagesOf } from '../tokens/media.js';
import { isRecord } from '../validate/fields.js';
import { isBytes, type MediaPart, type Recognizer } from './media.js';

/**
 * The text a non-text part goes in as when its message is sent as a stub (`stubMedia`):
 * `[image omitted: 1568×980]` (the stored size from the header; `[image omitted]` without bytes
 * to read), `[PDF omitted: 12 pages]`, `[audio omitted]`, `[file omitted]`. It depends on the
 * part alone, so the stub is the same bytes on every turn.
 */
export function mediaNote(m: MediaPart): string {
  if (m.kind === 'image') {
    const size = m.data === undefined ? undefined : imageSizeOf(m.data);
    return size === undefined ? '[image omitted]' : `[image omitted: ${size.width}×${size.height}]`;
  }
  if (m.kind === 'pdf') {
    const pages = m.data === undefined ? undefined : pdfPagesOf(m.data);
    return pages === undefined ? '[PDF omitted]' : `[PDF omitted: ${pages} page${pages === 1 ? '' : 's'}]`;
  }
  return `[${m.kind} omitted]`;
}

/** A format's text part for a stub's note, in place of `part`; `undefined` where text cannot stand (the part is kept). */
export type TextPartOf = (note: string, part: Readonly<Record<string, unknown>>) => object | undefined;

/** The text part of the formats whose text parts are `{ type: 'text', text }` (Anthropic's keeps the part's `cache_control`). */
export const plainTextPart: TextPartOf = (note, part) =>
  part['cache_control'] === undefined ? { type: 'text', text: note } : { type: 'text', text: note, cache_control: part['cache_control'] };

/**
 * `value` with every non-text part `recognize` finds (an opaque one excepted) replaced by
 * `textPart(its note)`: new arrays and objects along the way, the rest shared; `value` itself
 * when nothing was replaced. Bytes are never walked.
 */
export function replaceMediaParts(value: unknown, recognize: Recognizer, textPart: TextPartOf, depth = 0): unknown {
  if (depth >= 32 || typeof value !== 'object' || value === null || isBytes(value) || isServerToolResult(value)) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v: unknown, k) => {
      const w = replaceMediaParts(v, recognize, textPart, depth + 1);
      if (w !== v) (out ??= value.slice())[k] = w;
    });
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  const found = recognize(value);
  if (found !== undefined) {
    if (found.media === undefined || found.media.kind === 'opaque') return value;
    return textPart(mediaNote(found.media), value) ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const v = value[key];
    const w = replaceMediaParts(v, recognize, textPart, depth + 1);
    if (w !== v) (out ??= { ...value })[key] = w;
  }
  return out ?? value;
}

/** {@link replaceMediaParts} of an assistant's parts, its `tool-result` parts (provider-executed) aside. */
function replaceParts(parts: readonly unknown[], recognize: Recognizer, textPart: TextPartOf): readonly unknown[] {
  let out: unknown[] | undefined;
  parts.forEach((p, k) => {
    if (isRecord(p) && p['type'] === 'tool-result') return;
    const w = replaceMediaParts(p, recognize, textPart, 1);
    if (w !== p) (out ??= parts.slice())[k] = w;
  });
  return out ?? parts;
}

/**
 * A server tool's result, which the provider ran and whose schema fixes what it holds (Anthropic's
 * `web_fetch_tool_result`: its `content.content` must be a `document`, @anthropic-ai/sdk's
 * `BetaWebFetchBlockParam`): left whole by stubbing, never a text part in place of its document
 * or image. Anthropic's `*_tool_result` blocks but the client's `tool_result` (LangChain passes
 * them through as they are).
 */
function isServerToolResult(value: object): boolean {
  const type = (value as Record<string, unknown>)['type'];
  return typeof type === 'string' && type.endsWith('_tool_result');
}

/**
 * `recognize` restricted to the parts of `only` (the `part` objects of {@link MediaPart}s): any
 * other part is recognised as no media, so it stays as it is. `recognize` itself without `only`.
 * The second cut of truncation (truncate.ts) replaces a step in flight's media one by one, the
 * largest first.
 */
export function onlyParts(recognize: Recognizer, only: ReadonlySet<object> | undefined): Recognizer {
  if (only === undefined) return recognize;
  return (p) => {
    const found = recognize(p);
    if (found?.media === undefined || only.has(found.media.part)) return found;
    const { media: _, ...rest } = found;
    return rest;
  };
}

/**
 * A copy of `message` whose `content` has its non-text parts as text parts ({@link replaceMediaParts}); `undefined` when it has none.
 * An assistant message's `tool-result` parts (the AI SDK's provider-executed tools, whose results
 * the provider sends back as they came) are left whole, as Anthropic's server tool results are.
 * With `only`, just those parts ({@link onlyParts}).
 */
export function replaceContentMedia(message: unknown, recognize: Recognizer, textPart: TextPartOf = plainTextPart, only?: ReadonlySet<object>): Record<string, unknown> | undefined {
  const m = message as Record<string, unknown>;
  const r = onlyParts(recognize, only);
  const content = m['role'] === 'assistant' && Array.isArray(m['content']) ? replaceParts(m['content'], r, textPart) : replaceMediaParts(m['content'], r, textPart);
  return content === m['content'] ? undefined : { ...m, content };
}

