/**
 * The planner's and the logs' string hashes, each written once:
 *
 * - FNV-1a 64 over UTF-8 ({@link fnv1a64}): ids in logs (spec: "hash fragment IDs only if
 *   required for privacy"). Not a cryptographic hash: it hides ids from casual reading and keeps
 *   them joinable across log lines, but a known id can be confirmed by hashing it.
 * - FNV-1a 32 over UTF-16 code units ({@link fnv1a32Units}): the planner's id index, and what the
 *   default request id hashes of each id.
 * - {@link Words64}: a 64-bit hash of 32-bit words (two MurmurHash3 x86_32 streams), the default
 *   request id.
 *
 * The token cache's text keys are another hash (`textKey`, tokens/cache.ts): their format is part
 * of the session states callers keep, so it stays as it is. None of these is keyed: a session's
 * `stateKey` makes its keys SipHash-2-4 instead (src/state_key.rs).
 *
 * @module
 */

/** The 32-bit FNV offset basis and prime. */
const FNV32_OFFSET = 0x811c9dc5 | 0;
const FNV32_PRIME = 0x0100_0193;

/**
 * FNV-1a 32 over the UTF-16 code units of `text`, as an int32.
 * @internal
 */
export function fnv1a32Units(text: string): number {
  let h = FNV32_OFFSET;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV32_PRIME);
  return h;
}

/**
 * A 64-bit hash of a sequence of 32-bit words: MurmurHash3 x86_32 of the words' little-endian
 * bytes, twice, with seeds 0 and 0x9747b28c, the two results written as 16 hex digits (seed 0's
 * first). A few integer operations per word: the default request id hashes a word per candidate
 * id instead of every character twice more.
 * @internal
 */
export class Words64 {
  private a = 0;
  private b = 0x9747b28c | 0;
  private words = 0;

  /** Hashes the next word (its low 32 bits). */
  word(w: number): void {
    let k = Math.imul(w, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    let a = this.a ^ k;
    a = (a << 13) | (a >>> 19);
    this.a = (Math.imul(a, 5) + 0xe6546b64) | 0;
    let b = this.b ^ k;
    b = (b << 13) | (b >>> 19);
    this.b = (Math.imul(b, 5) + 0xe6546b64) | 0;
    this.words++;
  }

  /** Hashes the 64 bits of a number (IEEE 754, low word first). */
  number(x: number): void {
    BITS_F64[0] = x;
    this.word(BITS_U32[LOW]!);
    this.word(BITS_U32[1 - LOW]!);
  }

  /** The hash as 16 lowercase hex digits. */
  digest(): string {
    const bytes = this.words * 4;
    return hex32(fmix32(this.a ^ bytes)) + hex32(fmix32(this.b ^ bytes));
  }
}

const BITS_F64 = new Float64Array(1);
const BITS_U32 = new Uint32Array(BITS_F64.buffer);
/** Index of the low word of a double in {@link BITS_U32} (the platform's byte order). */
const LOW = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** MurmurHash3's finalizer. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two hex digits per byte value. */
const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * `x` (read as unsigned) as 8 lowercase hex digits, a byte at a time from a table (`toString(16)`
 * and `padStart` cost more).
 * @internal
 */
export function hex32(x: number): string {
  return HEX_BYTES[x >>> 24]! + HEX_BYTES[(x >>> 16) & 0xff]! + HEX_BYTES[(x >>> 8) & 0xff]! + HEX_BYTES[x & 0xff]!;
}

/** The high 32 bits of `x * 0x1b3` for `x` read as unsigned: `x`'s 16-bit halves times 0x1b3. */
function carryOf(x: number): number {
  return ((x >>> 16) * 0x1b3 + (((x & 0xffff) * 0x1b3) >>> 16)) >>> 16;
}

/**
 * FNV-1a 64 of the UTF-8 encoding of `text`, as 16 lowercase hex digits.
 *
 * Lone surrogates are encoded as U+FFFD, as `TextEncoder` does. The 64-bit state is two 32-bit
 * halves in int32 arithmetic (the 64-bit prime is 2^40 + 0x1b3): the low half of the product is
 * `Math.imul`, and the carry into the high half comes from 16-bit limbs, so engines compile it to
 * integer instructions, identically in every runtime. Matches the reference vectors, e.g.
 * `fnv1a64('') === 'cbf29ce484222325'` and `fnv1a64('a') === 'af63dc4c8601ec8c'`.
 */
export function fnv1a64(text: string): string {
  let hi = 0xcbf29ce4 | 0;
  let lo = 0x84222325 | 0;
  // One round: xor the byte into the low half, multiply by 2^40 + 0x1b3 mod 2^64.
  const round = (byte: number): void => {
    const x = lo ^ byte;
    lo = Math.imul(x, 0x1b3);
    hi = (Math.imul(hi, 0x1b3) + carryOf(x) + (x << 8)) | 0;
  };
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp < 0x80) {
      round(cp);
      continue;
    }
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate
    if (cp < 0x800) {
      round(0xc0 | (cp >> 6));
      round(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      round(0xe0 | (cp >> 12));
      round(0x80 | ((cp >> 6) & 0x3f));
      round(0x80 | (cp & 0x3f));
    } else {
      round(0xf0 | (cp >> 18));
      round(0x80 | ((cp >> 12) & 0x3f));
      round(0x80 | ((cp >> 6) & 0x3f));
      round(0x80 | (cp & 0x3f));
    }
  }
  return hex32(hi) + hex32(lo);
}

/** Hashes a fragment id for logs: {@link fnv1a64} of the id. */
export function hashId(id: string): string {
  return fnv1a64(id);
}
