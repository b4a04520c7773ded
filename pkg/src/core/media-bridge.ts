/**
 * The core's media calls: image sizes from header windows (bytes or base64), the providers' token
 * rules for images and PDFs (src/media in the crate). Only small windows cross into wasm, never a
 * whole file; tokens/media.ts wraps them for every kind of input.
 *
 * @internal
 * @module
 */

import * as glue from '../../wasm/ctxpack.js';
import { call } from './instance.js';

/** An image's format and stored size (EXIF orientation not applied: no rule depends on it). */
export interface ImageSize {
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'gif' | 'webp';
}

/** The provider whose token rules count an image or a PDF. */
export type MediaProvider = 'openai' | 'anthropic' | 'gemini';

const IMAGE_FORMATS = [undefined, 'png', 'jpeg', 'gif', 'webp'] as const;

/** The core's `mediaLimits()`: window bytes, window characters, windows per image, PDF bytes scanned. */
let limits: Uint32Array | undefined;
function mediaLimits(): Uint32Array {
  return (limits ??= call(() => glue.mediaLimits()));
}

/** The PDF bytes the core scans for pages (the rest is never copied into wasm memory). */
export function pdfScanBytes(): number {
  return mediaLimits()[3]!;
}

/**
 * Follows the core's image probe from offset 0: `probeAt(offset)` passes the window there and
 * returns the probe's answer (`[0]` unknown, `[1, w, h, format]` found, `[2, next]` go on).
 * At most `mediaLimits()[2]` windows, each moving forward.
 */
function followProbe(probeAt: (offset: number) => Float64Array | undefined): ImageSize | undefined {
  const rounds = mediaLimits()[2]!;
  let offset = 0;
  for (let round = 0; round < rounds; round++) {
    const r = probeAt(offset);
    if (r === undefined) return undefined;
    if (r[0] === 1) return { width: r[1]!, height: r[2]!, format: IMAGE_FORMATS[r[3]!]! };
    if (r[0] !== 2 || !(r[1]! > offset)) return undefined;
    offset = r[1]!;
  }
  return undefined;
}

/**
 * The size of a PNG, JPEG, GIF or WebP image from its header; `undefined` when the format is
 * another, or the header is malformed or truncated. Only windows of 4 KiB cross into wasm memory
 * (the first, then one per JPEG segment longer than a window), whatever the image's size.
 */
export function imageSize(bytes: Uint8Array): ImageSize | undefined {
  const windowBytes = mediaLimits()[0]!;
  return call(() =>
    followProbe((offset) => {
      if (offset > bytes.length) return undefined;
      const end = Math.min(offset + windowBytes, bytes.length);
      return glue.imageProbe(bytes.subarray(offset, end), offset, end === bytes.length);
    }),
  );
}

/**
 * {@link imageSize} of an image in base64 (standard or URL-safe, padded or not, bare or as a
 * `data:<mime>;base64,` URL): only the windows the header needs are sliced off the text and
 * decoded (base64 maps 4 characters to 3 bytes, so a JPEG's long segments are skipped unread).
 * Whitespace in the payload limits the read to the first window.
 */
export function imageSizeBase64(text: string): ImageSize | undefined {
  const windowChars = mediaLimits()[1]!;
  // Characters cross as the bytes TextEncoder writes (ASCII for base64): passing a string costs
  // the glue a JavaScript loop over its characters, many times this.
  const scratch = (charScratch ??= new Uint8Array(windowChars * 3));
  const ascii = (from: number, end: number): Uint8Array => scratch.subarray(0, encoder.encodeInto(text.slice(from, end), scratch).written);
  return call(() => {
    const start = glue.base64PayloadStart(ascii(0, 256));
    if (start < 0) return undefined;
    return followProbe((offset) => {
      const from = start + Math.floor(offset / 3) * 4;
      if (from > text.length) return undefined;
      const end = Math.min(from + windowChars, text.length);
      return glue.imageProbeBase64(ascii(from, end), offset, end === text.length);
    });
  });
}

const encoder = new TextEncoder();
/** The bytes of a window of characters (3 per character at most, for any text). */
let charScratch: Uint8Array | undefined;

/**
 * Tokens of a `width × height` image sent to `model` at `provider` with `detail` (OpenAI's
 * `detail`, Gemini's `media_resolution`; Anthropic ignores it), by the provider's documented
 * rule (src/media/rules). A side of 0 means the size is unknown and counts the rule's documented
 * maximum.
 *
 * @throws {CtxpackError} `INVALID_OPTION` naming `provider`, `detail`, `width` or `height`.
 */
export function imageTokens(provider: MediaProvider, model: string, detail: string, width: number, height: number): number {
  return call(() => glue.imageTokens(provider, model, detail, width, height));
}

/**
 * The estimated page count of a PDF (its linearization dictionary, else its page objects in the
 * first {@link pdfScanBytes} bytes, scaled to its length); `undefined` when unknown.
 */
export function pdfPages(bytes: Uint8Array): number | undefined {
  return pdfPagesWindow(bytes.subarray(0, pdfScanBytes()), bytes.length);
}

/** {@link pdfPages} of a PDF of `totalLength` bytes whose first bytes (at most {@link pdfScanBytes}) are `head`. */
export function pdfPagesWindow(head: Uint8Array, totalLength: number): number | undefined {
  const pages = call(() => glue.pdfPages(head.subarray(0, pdfScanBytes()), totalLength));
  return pages === 0 ? undefined : pages;
}

/**
 * Estimated tokens of a PDF of `pages` pages (0: unknown, counted as 100) sent to `model` at
 * `provider`: text and a page image per page (OpenAI, Anthropic), or the page's image tokens
 * (Gemini).
 *
 * @throws {CtxpackError} `INVALID_OPTION` naming `provider`, `detail` or `pages`.
 */
export function pdfTokens(provider: MediaProvider, model: string, detail: string, pages: number): number {
  return call(() => glue.pdfTokens(provider, model, detail, pages));
}
