/**
 * A small deterministic string hash for privacy-preserving logs (spec: "hash fragment IDs only if
 * required for privacy"). Not a cryptographic hash: it hides ids from casual reading and keeps
 * them joinable across log lines, but a known id can be confirmed by hashing it.
 *
 * @module
 */

const FNV_OFFSET_HI = 0xcbf29ce4;
const FNV_OFFSET_LO = 0x84222325;
/** The 64-bit FNV prime is 2^40 + 0x1b3. */
const FNV_PRIME_LOW_PART = 0x1b3;
const TWO_POW_32 = 0x1_0000_0000;

/**
 * FNV-1a 64 of the UTF-8 encoding of `text`, as 16 lowercase hex digits.
 *
 * Computed with two 32-bit halves (no BigInt), identically in every runtime. Lone surrogates are
 * encoded as U+FFFD, as `TextEncoder` does. Matches the reference vectors, e.g.
 * `fnv1a64('') === 'cbf29ce484222325'` and `fnv1a64('a') === 'af63dc4c8601ec8c'`.
 */
export function fnv1a64(text: string): string {
  let hi = FNV_OFFSET_HI;
  let lo = FNV_OFFSET_LO;
  // One FNV-1a round: xor the byte into the low half, then multiply by 2^40 + 0x1b3 modulo 2^64.
  // Every intermediate is an integer below 2^53, so the double arithmetic is exact, and `>>> 0`
  // reduces modulo 2^32.
  const step = (byte: number): void => {
    const x = (lo ^ byte) >>> 0;
    const loProduct = x * FNV_PRIME_LOW_PART;
    lo = loProduct >>> 0;
    hi = (hi * FNV_PRIME_LOW_PART + (loProduct - lo) / TWO_POW_32 + ((x << 8) >>> 0)) >>> 0;
  };
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp < 0x80) {
      step(cp);
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
      step(0xc0 | (cp >> 6));
      step(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      step(0xe0 | (cp >> 12));
      step(0x80 | ((cp >> 6) & 0x3f));
      step(0x80 | (cp & 0x3f));
    } else {
      step(0xf0 | (cp >> 18));
      step(0x80 | ((cp >> 12) & 0x3f));
      step(0x80 | ((cp >> 6) & 0x3f));
      step(0x80 | (cp & 0x3f));
    }
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** Hashes a fragment id for logs: {@link fnv1a64} of the id. */
export function hashId(id: string): string {
  return fnv1a64(id);
}
