/**
 * The package's string hashes, each written once:
 *
 * - FNV-1a 64 over UTF-8 ({@link fnv1a64}, the {@link Fnv1a64} state it is computed with): ids in
 *   logs (spec: "hash fragment IDs only if required for privacy") and the default request id. Not
 *   a cryptographic hash: it hides ids from casual reading and keeps them joinable across log
 *   lines, but a known id can be confirmed by hashing it.
 * - FNV-1a 32 over UTF-16 code units ({@link fnv1a32Units}): the planner's id index.
 *
 * The planner needs both of every candidate id. {@link Fnv1a64.update} computes the second in the
 * same pass over the characters (at 100k ids, a second pass costs about 1.5 ms).
 *
 * @module
 */

/** The 32-bit FNV offset basis and prime. */
const FNV32_OFFSET = 0x811c9dc5 | 0;
const FNV32_PRIME = 0x0100_0193;

/**
 * FNV-1a 32 over the UTF-16 code units of `text`, as an int32 (what {@link Fnv1a64.update}
 * returns for the same text).
 * @internal
 */
export function fnv1a32Units(text: string): number {
  let h = FNV32_OFFSET;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV32_PRIME);
  return h;
}

/** The high 32 bits of `x * 0x1b3` for `x` read as unsigned: `x`'s 16-bit halves times 0x1b3. */
function carryOf(x: number): number {
  return ((x >>> 16) * 0x1b3 + (((x & 0xffff) * 0x1b3) >>> 16)) >>> 16;
}

/**
 * FNV-1a 64 over UTF-8, fed a piece at a time: the same bits as the pieces joined, when no piece
 * ends inside a surrogate pair that the next one completes. Lone surrogates are encoded as U+FFFD,
 * as `TextEncoder` does. The 64-bit state is two 32-bit halves in int32 arithmetic (the 64-bit
 * prime is 2^40 + 0x1b3): the low half of the product is `Math.imul`, and the carry into the high
 * half comes from 16-bit limbs off that critical path, so engines compile it to integer
 * instructions, identically in every runtime.
 * @internal
 */
export class Fnv1a64 {
  private hi = 0xcbf29ce4 | 0;
  private lo = 0x84222325 | 0;

  /**
   * Hashes `text`, after a NUL byte with `separated`. Returns {@link fnv1a32Units} of `text`,
   * computed in the same pass.
   */
  update(text: string, separated = false): number {
    let hi = this.hi;
    let lo = this.lo;
    let units = FNV32_OFFSET;
    if (separated) {
      const x = lo; // lo ^ 0
      lo = Math.imul(x, 0x1b3);
      hi = (Math.imul(hi, 0x1b3) + carryOf(x) + (x << 8)) | 0;
    }
    for (let i = 0; i < text.length; i++) {
      let cp = text.charCodeAt(i);
      units = Math.imul(units ^ cp, FNV32_PRIME);
      if (cp < 0x80) {
        // One round, inlined: xor the byte into the low half, multiply by 2^40 + 0x1b3 mod 2^64.
        const x = lo ^ cp;
        lo = Math.imul(x, 0x1b3);
        hi = (Math.imul(hi, 0x1b3) + carryOf(x) + (x << 8)) | 0;
        continue;
      }
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
          units = Math.imul(units ^ next, FNV32_PRIME);
          i++;
        }
      }
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate
      this.hi = hi;
      this.lo = lo;
      if (cp < 0x800) {
        this.byte(0xc0 | (cp >> 6));
        this.byte(0x80 | (cp & 0x3f));
      } else if (cp < 0x10000) {
        this.byte(0xe0 | (cp >> 12));
        this.byte(0x80 | ((cp >> 6) & 0x3f));
        this.byte(0x80 | (cp & 0x3f));
      } else {
        this.byte(0xf0 | (cp >> 18));
        this.byte(0x80 | ((cp >> 12) & 0x3f));
        this.byte(0x80 | ((cp >> 6) & 0x3f));
        this.byte(0x80 | (cp & 0x3f));
      }
      hi = this.hi;
      lo = this.lo;
    }
    this.hi = hi;
    this.lo = lo;
    return units;
  }

  /** One round (see `update`). */
  private byte(b: number): void {
    const x = this.lo ^ b;
    this.lo = Math.imul(x, 0x1b3);
    this.hi = (Math.imul(this.hi, 0x1b3) + carryOf(x) + (x << 8)) | 0;
  }

  /** The hash as 16 lowercase hex digits. */
  digest(): string {
    return (this.hi >>> 0).toString(16).padStart(8, '0') + (this.lo >>> 0).toString(16).padStart(8, '0');
  }
}

/**
 * FNV-1a 64 of the UTF-8 encoding of `text`, as 16 lowercase hex digits.
 *
 * Computed with two 32-bit halves (no BigInt), identically in every runtime. Lone surrogates are
 * encoded as U+FFFD, as `TextEncoder` does. Matches the reference vectors, e.g.
 * `fnv1a64('') === 'cbf29ce484222325'` and `fnv1a64('a') === 'af63dc4c8601ec8c'`.
 */
export function fnv1a64(text: string): string {
  const h = new Fnv1a64();
  h.update(text);
  return h.digest();
}

/** Hashes a fragment id for logs: {@link fnv1a64} of the id. */
export function hashId(id: string): string {
  return fnv1a64(id);
}
