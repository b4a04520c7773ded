/**
 * Images and PDFs counted the way providers count them, over the core's readers and rules
 * (src/media in the Rust crate; `core/media-bridge.ts` for the calls).
 *
 * **Input.** An image or PDF may come as a `Uint8Array` (a Node `Buffer` is one), an
 * `ArrayBuffer`, any other `ArrayBufferView`, or a string: bare base64 (standard or URL-safe) or
 * a `data:<mime>;base64,` URL. Bytes are never turned into a string, and only small windows of
 * them (or of the text) cross into wasm memory: counting an 8 MB image costs a few 4 KiB copies.
 *
 * **Images.** The size is read from the PNG, JPEG, GIF or WebP header. The provider's rule then
 * gives the tokens; an image whose size is unknown (another format, a URL with no bytes) counts
 * the rule's documented maximum, so that an estimate errs on the side of more tokens.
 *
 * **PDFs.** The pages are counted from the bytes (an estimate: see `pdfPages`); the tokens per
 * page are estimates too (text plus a page image at OpenAI and Anthropic, the page's image
 * tokens at Gemini). A PDF whose pages are unknown counts 100 pages.
 *
 * @internal The public shape is decided with the message adapters.
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import {
  imageSize as sizeOfBytes,
  imageSizeBase64,
  imageTokens,
  pdfPages as pagesOfBytes,
  pdfPagesWindow,
  pdfScanBytes,
  pdfTokens,
  type ImageSize,
  type MediaProvider,
} from '../core/media-bridge.js';

export type { ImageSize, MediaProvider };

/** Bytes, or base64 text (bare or a `data:` URL). */
export type MediaInput = Uint8Array | ArrayBuffer | ArrayBufferView | string;

/** Which rule counts the media: the provider, the model (matched by prefix in the core's table), the detail. */
export interface MediaCountOptions {
  provider: MediaProvider;
  model: string;
  /** OpenAI's `detail` (`low` | `high` | `auto`), Gemini's `media_resolution`; default `auto`. */
  detail?: string;
}

/** `input` as bytes without copying, or `undefined` for a string. */
function bytesOf(input: MediaInput): Uint8Array | undefined {
  if (typeof input === 'string') return undefined;
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new CtxpackError('INVALID_INPUT', `media must be a Uint8Array, an ArrayBuffer, a typed array or a base64 string, got ${describeValue(input)}`, {
    field: 'media',
  });
}

/**
 * The stored size of an image (PNG, JPEG, GIF, WebP) from its header; `undefined` when unknown.
 *
 * @throws {CtxpackError} `INVALID_INPUT` for an input of another type.
 */
export function imageSizeOf(input: MediaInput): ImageSize | undefined {
  const bytes = bytesOf(input);
  return bytes === undefined ? imageSizeBase64(input as string) : sizeOfBytes(bytes);
}

/**
 * Tokens of an image at `options.provider` / `options.model`: from its bytes or base64, from a
 * known size, or, for `undefined` (an image by URL), the rule's documented maximum.
 *
 * @throws {CtxpackError} `INVALID_OPTION` naming `provider` or `detail`; `INVALID_INPUT` for media of another type.
 */
export function countImageTokens(image: MediaInput | { width: number; height: number } | undefined, options: MediaCountOptions): number {
  let size: { width: number; height: number } | undefined;
  if (image !== undefined && typeof image === 'object' && 'width' in image && 'height' in image && !ArrayBuffer.isView(image)) {
    size = image;
  } else if (image !== undefined) {
    size = imageSizeOf(image);
  }
  return imageTokens(options.provider, options.model, options.detail ?? 'auto', size?.width ?? 0, size?.height ?? 0);
}

/** The URL-safe base64 alphabet's two characters, as `atob` wants them. */
function standardBase64(text: string): string {
  return text.replace(/-/g, '+').replace(/_/g, '/').replace(/\s+/g, '');
}

/**
 * The first `max` bytes of base64 text (bare or a `data:` URL) and the decoded length of the
 * whole, or `undefined` when it is not base64.
 */
function decodeHead(text: string, max: number): { head: Uint8Array; total: number } | undefined {
  let start = 0;
  if (/^data:/i.test(text)) {
    const comma = text.indexOf(',');
    if (comma < 0 || comma > 256 || !/;base64$/i.test(text.slice(0, comma))) return undefined;
    start = comma + 1;
  }
  const chars = Math.ceil(max / 3) * 4;
  let binary: string;
  try {
    binary = atob(standardBase64(text.slice(start, start + chars)).replace(/=+$/, ''));
  } catch {
    return undefined;
  }
  const head = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) head[i] = binary.charCodeAt(i);
  // All of it decoded: its exact length; else 3 bytes per 4 characters of the rest.
  const whole = start + chars >= text.length;
  return { head, total: whole ? head.length : Math.floor(((text.length - start) * 3) / 4) };
}

/**
 * The estimated page count of a PDF from its bytes or base64; `undefined` when unknown. Reads at
 * most the first 4 MiB (decoding only as much base64).
 *
 * @throws {CtxpackError} `INVALID_INPUT` for an input of another type.
 */
export function pdfPagesOf(input: MediaInput): number | undefined {
  const bytes = bytesOf(input);
  if (bytes !== undefined) return pagesOfBytes(bytes);
  const decoded = decodeHead(input as string, pdfScanBytes());
  return decoded === undefined ? undefined : pdfPagesWindow(decoded.head, decoded.total);
}

/**
 * Estimated tokens of a PDF at `options.provider` / `options.model`: from its bytes or base64, a
 * known page count, or, for `undefined` (a PDF by URL or file id), 100 pages.
 *
 * @throws {CtxpackError} `INVALID_OPTION` naming `provider` or `detail`; `INVALID_INPUT` for media of another type.
 */
export function countPdfTokens(pdf: MediaInput | { pages: number } | undefined, options: MediaCountOptions): number {
  let pages: number | undefined;
  if (pdf !== undefined && typeof pdf === 'object' && 'pages' in pdf && !ArrayBuffer.isView(pdf)) {
    pages = pdf.pages;
  } else if (pdf !== undefined) {
    pages = pdfPagesOf(pdf);
  }
  return pdfTokens(options.provider, options.model, options.detail ?? 'auto', pages ?? 0);
}
