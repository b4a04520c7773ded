/**
 * Non-text parts of messages (images, PDFs, audio, files): where each format puts them, read into
 * {@link MediaPart}s for the neutral Turn, and what they cost at a provider (the count stage of
 * fit.ts calls {@link countMedia}). Their bytes are never turned into text: the text of a message
 * is what the adapters collect around them (turns.ts `collectText`). The notes they go in as when
 * stubbed or cut are media-notes.ts.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { imageTokens, type MediaProvider } from '../core/media-bridge.js';
import { countPdfTokens, imageSizeOf, pdfPagesOf, type MediaInput } from '../tokens/media.js';
import { describeThrown } from '../tokens/counter.js';
import { textKey } from '../tokens/cache.js';
import { MAX_COST_TOKENS, isRecord } from '../validate/fields.js';
import { refusedThenable } from '../util/thenable.js';
import { jsonText, messageError } from './turns.js';

/**
 * What a non-text part is, as counted: a text file is read as text instead and never is one.
 * `'opaque'`: content the model reads that the caller cannot (the Responses API's encrypted
 * reasoning and compaction items, an item referenced by id): 0 tokens unless `countPart` counts
 * it, and in the part's descriptor, so that a session tells two of them apart.
 */
export type MediaKind = 'image' | 'pdf' | 'audio' | 'file' | 'opaque';

/** One non-text part of a message. */
export interface MediaPart {
  readonly kind: MediaKind;
  /** Its bytes, or base64 (bare or a `data:` URL). */
  readonly data?: MediaInput;
  /** Given by reference (a URL, a file id): no bytes to read. */
  readonly ref?: string;
  /** OpenAI's `detail` (or its AI SDK provider option). */
  readonly detail?: string;
  readonly mediaType?: string;
  /** The caller's part, as `countPart` receives it. */
  readonly part: Readonly<Record<string, unknown>>;
}

/** What a format says of a content part: its media, and what of it the model reads as text. */
export interface Recognized {
  readonly media?: MediaPart;
  /** Walked as text as any content is (a document's title, a text file's decoded content). */
  readonly text?: unknown;
}

/** An Anthropic `tool_use` block (LangChain keeps them in content too): its name and its input as the JSON it is sent as. */
const toolUse = (p: Part): Recognized => ({ text: [p['name'], jsonText(p['input'])] });

/** A format's reading of one content part; `undefined` when the part is not a non-text part. */
export type Recognizer = (part: Readonly<Record<string, unknown>>) => Recognized | undefined;

type Part = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
export const isBytes = (v: unknown): v is Uint8Array | ArrayBuffer | ArrayBufferView => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;

/** The kind of a media type; `'text'` for `text/*` (and JSON), read as text. */
function kindOf(mediaType: string | undefined, fallback: MediaKind): MediaKind | 'text' {
  if (mediaType === undefined) return fallback;
  const t = mediaType.toLowerCase();
  if (t === 'image' || t.startsWith('image/')) return 'image';
  if (t === 'application/pdf') return 'pdf';
  if (t.startsWith('audio/')) return 'audio';
  if (t.startsWith('text/') || t === 'application/json') return 'text';
  return 'file';
}

/** The media type a `data:` URL declares. */
function dataUrlType(url: string): string | undefined {
  const m = /^data:([^;,]+)/i.exec(url);
  return m?.[1];
}

/** A value that holds a file: bytes, a data URL or bare base64 (data), or a URL (ref). */
function located(v: unknown): { data?: MediaInput; ref?: string } {
  if (isBytes(v)) return { data: v };
  if (v instanceof URL) return v.protocol === 'data:' ? { data: v.href } : { ref: v.href };
  if (typeof v === 'string') {
    if (/^data:/i.test(v)) return { data: v };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return { ref: v };
    return { data: v };
  }
  return {};
}

/** The text of a text file given as bytes, base64 or a data URL. */
function decodedText(v: MediaInput): string {
  if (isBytes(v)) {
    const bytes = v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    return new TextDecoder().decode(bytes);
  }
  let body = v;
  if (/^data:/i.test(v)) {
    const comma = v.indexOf(',');
    const head = v.slice(0, Math.max(0, comma));
    body = v.slice(comma + 1);
    if (!/;base64$/i.test(head)) {
      try {
        return decodeURIComponent(body);
      } catch {
        return body;
      }
    }
  }
  try {
    const binary = atob(body.replace(/-/g, '+').replace(/_/g, '/').replace(/\s+/g, ''));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  } catch {
    return body; // not base64: the text as given
  }
}

/** A file part by its media type: media, or its text when it is a text file. */
function file(part: Part, where: { data?: MediaInput; ref?: string }, mediaType: string | undefined, fallback: MediaKind, detail?: string): Recognized {
  const kind = kindOf(mediaType ?? (typeof where.data === 'string' ? dataUrlType(where.data) : undefined), fallback);
  if (kind === 'text') return { text: where.data === undefined ? undefined : decodedText(where.data) };
  return { media: { kind, ...where, ...(detail === undefined ? {} : { detail }), ...(mediaType === undefined ? {} : { mediaType }), part } };
}

/**
 * OpenAI chat completions: `image_url` ({ url, detail }), `input_audio` ({ data, format }),
 * `file` ({ file_data: a data URL, file_id, filename }: PDFs).
 */
export const openaiMedia: Recognizer = (p) => {
  switch (p['type']) {
    case 'image_url': {
      const iu = p['image_url'];
      const url = typeof iu === 'string' ? iu : isRecord(iu) ? iu['url'] : undefined;
      const detail = isRecord(iu) ? str(iu['detail']) : undefined;
      return file(p, located(url), undefined, 'image', detail);
    }
    case 'input_audio': {
      const a = p['input_audio'];
      return { media: { kind: 'audio', ...(isRecord(a) ? located(a['data']) : {}), part: p } };
    }
    case 'file': {
      const f = p['file'];
      if (!isRecord(f)) return undefined;
      const where = f['file_data'] !== undefined ? located(f['file_data']) : { ref: str(f['file_id']) ?? '' };
      return { ...file(p, where, undefined, 'pdf'), text: f['filename'] };
    }
    default:
      return undefined;
  }
};

/**
 * OpenAI Responses: `input_text`, `output_text` and `refusal` parts as their text alone (not an
 * output's annotations or logprobs, which are not sent to the model as words); `input_image`
 * (`image_url`: a data URL or a URL, or `file_id`; `detail`), `input_file` (`file_data`: a data
 * URL, `file_url` or `file_id`; its `filename` is text) and a computer call's
 * `computer_screenshot` output.
 */
export const responsesMedia: Recognizer = (p) => {
  switch (p['type']) {
    case 'input_text':
    case 'output_text':
      return { text: p['text'] };
    case 'refusal':
      return { text: p['refusal'] };
    case 'input_image':
    case 'computer_screenshot': {
      // Bytes are recognised as data so that the adapter can refuse them (the API takes JSON).
      const url = isBytes(p['image_url']) ? p['image_url'] : str(p['image_url']);
      return file(p, url !== undefined ? located(url) : { ref: str(p['file_id']) ?? '' }, undefined, 'image', str(p['detail']));
    }
    case 'input_file': {
      const data = isBytes(p['file_data']) ? p['file_data'] : str(p['file_data']);
      const where = data !== undefined ? located(data) : { ref: str(p['file_url']) ?? str(p['file_id']) ?? '' };
      return { ...file(p, where, undefined, 'pdf'), text: p['filename'] };
    }
    default:
      return undefined;
  }
};

/**
 * Anthropic: `image` and `document` blocks with a `source` of type `base64`, `url` or `file`; a
 * document's `text` source is read as text (its `data`), a `content` source as its blocks; a
 * document's `title` and `context` are text too.
 */
export const anthropicMedia: Recognizer = (p) => {
  const type = p['type'];
  if (type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use') return toolUse(p);
  if (type === 'compaction' || type === 'web_search_result') {
    // Encrypted content, never text: an opaque part (counted by ANTHROPIC_OPAQUE), the rest of the block read as text.
    const encrypted = str(p['encrypted_content']);
    if (encrypted === undefined) return undefined;
    const { encrypted_content: _, ...visible } = p;
    return { media: { kind: 'opaque', data: encrypted, part: p }, text: visible };
  }
  if (type !== 'image' && type !== 'document') return undefined;
  const s = p['source'];
  if (!isRecord(s)) return undefined;
  const fallback: MediaKind = type === 'image' ? 'image' : 'pdf';
  const extra = type === 'document' ? [p['title'], p['context']] : undefined;
  switch (s['type']) {
    case 'base64':
      return { ...file(p, located(s['data']), str(s['media_type']), fallback), text: extra };
    case 'url':
      return { media: { kind: fallback, ref: str(s['url']) ?? '', part: p }, text: extra };
    case 'file':
      return { media: { kind: fallback, ref: str(s['file_id']) ?? '', part: p }, text: extra };
    case 'text':
      return { text: [s['data'], extra] };
    case 'content':
      return { text: [s['content'], extra] };
    default:
      return undefined;
  }
};

/** An AI SDK file's `data`: FileData ({ type: 'data' | 'url' | 'reference' | 'text' }), bytes, base64, a URL, a provider reference. */
function aiSdkData(v: unknown): { data?: MediaInput; ref?: string; text?: string } {
  if (isRecord(v) && !isBytes(v) && !(v instanceof URL)) {
    if (v['type'] === 'data') return located(v['data']);
    if (v['type'] === 'url') return { ref: String(v['url']) };
    if (v['type'] === 'text') return { text: typeof v['text'] === 'string' ? v['text'] : '' };
    return { ref: 'reference' }; // a provider reference: a file id per provider
  }
  return located(v);
}

/** Where {@link jsonWithMedia} hands `collectText` an Anthropic block it found in a JSON value. */
const IN_JSON = Symbol('an Anthropic block in an AI SDK json value');

/**
 * An AI SDK `json` output as the model reads it: its JSON text (jsonText), but the Anthropic
 * image and document blocks in it (a provider-executed tool's result: web_fetch's PDF, as
 * @ai-sdk/anthropic keeps it) are counted by the Anthropic rule, {@link anthropicMedia}, as the
 * `'anthropic'` format counts the same block: media, never their base64 as text. The JSON text
 * without those blocks, and each block, for `collectText` to find.
 */
function jsonWithMedia(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const blocks: { [IN_JSON]: unknown }[] = [];
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, v: unknown) => {
      if (!isRecord(v) || anthropicMedia(v)?.media === undefined) return v;
      blocks.push({ [IN_JSON]: v });
      return undefined;
    });
  } catch {
    return jsonText(value); // what JSON cannot write is read as any content is
  }
  return blocks.length === 0 ? (text ?? value) : [text, blocks];
}

/** The OpenAI detail an AI SDK part asks for (`providerOptions.openai.imageDetail`). */
function aiSdkDetail(p: Part): string | undefined {
  const po = p['providerOptions'];
  const openai = isRecord(po) ? po['openai'] : undefined;
  return isRecord(openai) ? str(openai['imageDetail']) : undefined;
}

/**
 * AI SDK (ai@7): `image` parts (`image`, `mediaType`), `file` parts (`data`, `mediaType`: text
 * files read as text), and the items of a tool result's `content` output (`file`, `file-data`,
 * `file-url`, `file-id`, `file-reference`, `image-data`, `image-url`, `image-file-id`,
 * `image-file-reference`, and ai@5's `media`).
 */
export const aiSdkMedia: Recognizer = (p) => {
  const nested = (p as { [IN_JSON]?: unknown })[IN_JSON];
  if (isRecord(nested)) return anthropicMedia(nested);
  const mediaType = str(p['mediaType']);
  const detail = aiSdkDetail(p);
  switch (p['type']) {
    // Sent as JSON text: a call's input, a tool result's `json` / `error-json` output.
    case 'tool-call':
      return { text: [p['toolName'], jsonText(p['input'])] };
    case 'json':
    case 'error-json':
      return { text: jsonWithMedia(p['value']) };
    case 'image':
      return file(p, aiSdkData(p['image']), mediaType ?? 'image', 'image', detail);
    case 'file': {
      const d = aiSdkData(p['data']);
      if (d.text !== undefined) return { text: d.text };
      return file(p, d, mediaType, 'file', detail);
    }
    case 'file-data':
    case 'media':
      return file(p, located(p['data']), mediaType, 'file', detail);
    case 'image-data':
      return file(p, located(p['data']), mediaType ?? 'image', 'image', detail);
    case 'file-url':
      return file(p, { ref: String(p['url']) }, mediaType, 'file', detail);
    case 'image-url':
      return file(p, { ref: String(p['url']) }, 'image', 'image', detail);
    case 'file-id':
    case 'file-reference':
      return file(p, { ref: 'reference' }, mediaType, 'file', detail);
    case 'image-file-id':
    case 'image-file-reference':
      return file(p, { ref: 'reference' }, 'image', 'image', detail);
    default:
      return undefined;
  }
};

/**
 * LangChain (@langchain/core 1.x): OpenAI-style `image_url` blocks (a string or { url, detail }),
 * standard blocks `{ type: 'image' | 'file' | 'audio' | 'video', source_type?, data | url | id |
 * fileId, mime_type | mimeType }` (a `source_type: 'text'` file is text), and the providers' own
 * blocks LangChain passes through (Anthropic's `source`, OpenAI's `input_audio` and `file`).
 */
export const langchainMedia: Recognizer = (p) => {
  const type = p['type'];
  if (type === 'tool_use') return toolUse(p);
  if (type === 'image_url' || type === 'input_audio') return openaiMedia(p);
  if (type === 'file' && isRecord(p['file'])) return openaiMedia(p);
  if ((type === 'image' || type === 'document') && isRecord(p['source'])) return anthropicMedia(p);
  if (type !== 'image' && type !== 'file' && type !== 'audio' && type !== 'video') return undefined;
  if (p['source_type'] === 'text') return { text: p['text'] };
  const mediaType = str(p['mime_type']) ?? str(p['mimeType']);
  const fallback: MediaKind = type === 'image' ? 'image' : type === 'audio' ? 'audio' : 'file';
  const id = str(p['id']) !== undefined && p['source_type'] === 'id' ? p['id'] : p['fileId'];
  const where = p['data'] !== undefined ? located(p['data']) : p['url'] !== undefined ? located(p['url']) : { ref: str(id) ?? '' };
  const detail = isRecord(p['metadata']) ? str(p['metadata']['detail']) : undefined;
  return file(p, where, mediaType ?? (type === 'image' ? 'image' : undefined), fallback, detail);
};

// ---- counting ----------------------------------------------------------------------------------

/** `countPart`'s second argument. */
export interface CountPartContext {
  provider: MediaProvider;
  model: string | undefined;
}

/** What counting reads of the options. */
export interface MediaRules {
  readonly provider: MediaProvider;
  readonly model: string | undefined;
  readonly countPart: ((part: unknown, context: CountPartContext) => unknown) | undefined;
}

/** Per call: the parts counted at an upper bound or not at all, for one warning each. */
export interface MediaTally {
  unknownImages: number;
  unknownPdfs: number;
  uncounted: number;
}

/**
 * Anthropic's encrypted content, by block type. A compaction's `encrypted_content` is "opaque
 * metadata from prior compaction, to be round-tripped verbatim" (@anthropic-ai/sdk): what the
 * model reads is its summary (`content`, counted as text), so 0. A web search result's stands for
 * the page content, and "web search results retrieved throughout a conversation are counted as
 * input tokens" (Anthropic's web search tool, "Usage and pricing"), in a relation to the blob no
 * document gives: one token per byte it decodes to, a bound (a token is at least one byte of the
 * text it reads) unless the text was compressed before it was encrypted. `countPart` counts
 * either better (the block is the part it receives).
 */
const ANTHROPIC_OPAQUE: Readonly<Record<string, (m: MediaPart) => number>> = {
  web_search_result: (m) => (typeof m.data === 'string' ? Math.ceil((m.data.length * 3) / 4) : 0),
};

/** A part's tokens and its descriptor (the prompt cache's identity of the part, never counted). */
export function countMediaPart(m: MediaPart, rules: MediaRules, index: number, k: number, tally: MediaTally | undefined): { tokens: number; key: string } {
  const key = descriptor(m);
  if (rules.countPart !== undefined) {
    let answer: unknown;
    try {
      answer = rules.countPart(m.part, { provider: rules.provider, model: rules.model });
    } catch (err) {
      throw new CtxpackError('TOKEN_COUNT_FAILED', `options.countPart threw ${describeThrown(err)} for messages[${index}] (its media part ${k}); it is this error's cause`, {
        field: 'countPart',
        index,
        cause: err,
      });
    }
    if (answer !== undefined) return { tokens: checkedPart(answer, index, k), key };
  }
  const model = rules.model ?? '';
  if (m.kind === 'image') {
    const size = m.data === undefined ? undefined : imageSizeOf(m.data);
    if (size === undefined && tally !== undefined) tally.unknownImages++;
    let tokens: number;
    try {
      tokens = imageTokens(rules.provider, model, m.detail ?? 'auto', size?.width ?? 0, size?.height ?? 0);
    } catch (err) {
      if (!(err instanceof CtxpackError) || err.code !== 'INVALID_OPTION') throw err;
      throw new CtxpackError('INVALID_FIELD', `messages[${index}] has an image (its media part ${k}) whose detail is not one ${rules.provider} takes, got ${describeValue(m.detail)}`, {
        field: 'detail',
        index,
      });
    }
    return { tokens, key: size === undefined ? key : `${key}|${size.width}x${size.height}` };
  }
  if (m.kind === 'pdf') {
    const pages = m.data === undefined ? undefined : pdfPagesOf(m.data);
    if (pages === undefined && tally !== undefined) tally.unknownPdfs++;
    return { tokens: countPdfTokens(pages === undefined ? undefined : { pages }, { provider: rules.provider, model }), key: `${key}|${pages ?? '?'}p` };
  }
  // Encrypted or referenced content: counted by its visible parts only (docs/messages.md), but
  // Anthropic's web search results, billed as input tokens, at a bound from their bytes.
  if (m.kind === 'opaque') {
    const type = String(m.part['type']);
    return { tokens: Object.hasOwn(ANTHROPIC_OPAQUE, type) ? ANTHROPIC_OPAQUE[type]!(m) : 0, key };
  }
  // Audio and other files: no provider documents a rule for them.
  if (tally !== undefined) tally.uncounted++;
  return { tokens: 0, key };
}

/** The warnings of a call's tally (one per kind, with stable code prefixes). */
export function mediaWarnings(t: MediaTally): string[] {
  const out: string[] = [];
  if (t.unknownImages > 0) {
    out.push(`image_size_unknown: ${t.unknownImages} image(s) counted at the model's maximum (given by URL or file id, or of a format whose size cannot be read)`);
  }
  if (t.unknownPdfs > 0) out.push(`pdf_pages_unknown: ${t.unknownPdfs} PDF(s) counted as 100 pages (given by URL or file id, or unreadable)`);
  if (t.uncounted > 0) {
    out.push(`media_not_counted: ${t.uncounted} part(s) (audio, or files of another type) counted as 0 tokens: no provider documents a rule for them (options.countPart counts them)`);
  }
  return out;
}

/** Sums two counts within the counts' range. */
export function addCounts(a: number, b: number): number {
  return Math.min(MAX_COST_TOKENS, a + b);
}

/** What `countPart` answered, checked as counters' answers are (tokens/counter.ts `checkedCount`). */
function checkedPart(answer: unknown, index: number, k: number): number {
  if (typeof answer === 'number' && Number.isInteger(answer) && answer >= 0 && answer <= MAX_COST_TOKENS) return answer;
  const promise = refusedThenable(answer);
  throw new CtxpackError(
    'TOKEN_COUNT_FAILED',
    `options.countPart must return undefined or an integer from 0 to 4294967295 for messages[${index}] (its media part ${k}), got ${promise ? 'a Promise (countPart is synchronous)' : describeValue(answer)}`,
    { field: 'countPart', index },
  );
}

/** Bytes hashed of a part for its descriptor: three windows of this many (head, middle, tail). */
const SAMPLE = 4096;

/**
 * A short deterministic descriptor of a part: its kind, detail, length and a hash of a bounded
 * sample of its bytes or base64 (head, middle, tail), so that a message whose image changes is
 * another message to the prompt cache, at a cost that does not grow with the image.
 */
function descriptor(m: MediaPart): string {
  const head = `${m.kind}|${m.detail ?? ''}`;
  if (m.data === undefined) return `${head}|ref|${textKey(m.ref ?? '')}`;
  if (typeof m.data === 'string') {
    const s = m.data;
    const mid = Math.max(0, (s.length >> 1) - SAMPLE / 2);
    const sample = s.length <= 3 * SAMPLE ? s : s.slice(0, SAMPLE) + s.slice(mid, mid + SAMPLE) + s.slice(-SAMPLE);
    return `${head}|${s.length}|${textKey(sample)}`;
  }
  const b = m.data instanceof ArrayBuffer ? new Uint8Array(m.data) : new Uint8Array(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  return `${head}|${b.length}b|${bytesKey(b)}`;
}

/** {@link textKey}'s hash over a sample of bytes. */
function bytesKey(b: Uint8Array): string {
  const windows = b.length <= 3 * SAMPLE ? [b] : [b.subarray(0, SAMPLE), b.subarray((b.length >> 1) - SAMPLE / 2, (b.length >> 1) + SAMPLE / 2), b.subarray(b.length - SAMPLE)];
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (const w of windows) {
    for (let i = 0; i < w.length; i++) {
      h1 = Math.imul(h1 ^ w[i]!, 2654435761);
      h2 = Math.imul(h2 ^ w[i]!, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return ((h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0'));
}

/**
 * The JSON APIs (OpenAI's chat completions, Anthropic's Messages) take a part's data as a string
 * (a URL, a `data:` URL or base64); bytes there (a Buffer, a Uint8Array) would be serialised as
 * `{ "type": "Buffer", "data": [...] }` or `{ "0": …}`, which the API refuses. The AI SDK and
 * LangChain take bytes and convert them. `INVALID_FIELD` naming the part (`content[k]`, or
 * `content` when the part is nested, e.g. in a tool result; `field` names another holder, as a
 * Responses output's `output`).
 */
export function refuseBytes(media: readonly MediaPart[], content: unknown, index: number, field = 'content'): void {
  for (const m of media) {
    if (m.data === undefined || typeof m.data === 'string') continue;
    const k = Array.isArray(content) ? content.indexOf(m.part) : -1;
    throw messageError(index, k >= 0 ? `${field}[${k}]` : field, "a part whose data is a string (a URL, a data: URL or base64), as the API takes JSON", m.data);
  }
}
