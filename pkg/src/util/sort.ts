/**
 * Sorting helpers for the planner's hot paths: permutations of item indexes (`Uint32Array`) ordered
 * by columns of typed arrays, so that ranking 100k candidates never calls a comparator from
 * `Array.prototype.sort` (each such call crosses from the engine's sort into JavaScript).
 *
 * - {@link radixSort}: stable LSD radix sort by unsigned 32-bit keys, up to 13 bits per pass,
 *   skipping the passes whose digit is the same for every item. O(n) per pass.
 * - {@link mergeSort}: stable merge sort of a range with a comparator, for what has no numeric key
 *   (ids) and for small inputs; {@link sortDescending}, the same by one column of numbers.
 * - {@link orderedBits}: the 64 bits of a double as two unsigned 32-bit words whose unsigned order
 *   is the numeric order.
 *
 * @internal
 * @module
 */

/** Widest digit of a radix pass: 8192 buckets, whose histogram stays in the L1 cache. */
const MAX_DIGIT_BITS = 13;

/** One histogram, reused by every pass of every call (calls never nest). */
const counts = new Uint32Array(1 << MAX_DIGIT_BITS);

/**
 * Sorts `order` (a permutation of the items `0..n-1`) stably by `keys`, each a column of unsigned
 * 32-bit values indexed by item, ascending; `keys[0]` is the least significant key, the last the
 * most significant. Returns the sorted permutation: `order` itself or `scratch`, whichever holds
 * it (both have length n; the other one is garbage afterwards).
 *
 * `bits[k]` bounds `keys[k]`: every value is below `2 ** bits[k]`. A key takes passes of equal
 * digits of at most 13 bits (fewer for small n), and a pass whose digit is the same for every item
 * is skipped after its histogram.
 */
export function radixSort(order: Uint32Array, scratch: Uint32Array, keys: readonly Uint32Array[], bits: readonly number[]): Uint32Array {
  const n = order.length;
  let from = order;
  let to = scratch;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const width = bits[k]!;
    if (width === 0 || n === 0) continue;
    // Digits of at most 13 bits, and no wider than n needs: a pass costs n + 2^digit.
    const maxDigit = Math.min(MAX_DIGIT_BITS, Math.max(4, 32 - Math.clz32(n)));
    const digit = Math.ceil(width / Math.ceil(width / maxDigit));
    const radix = 1 << digit;
    const mask = radix - 1;
    for (let shift = 0; shift < width; shift += digit) {
      // Histogram over the items (in item order: it does not depend on the current permutation).
      counts.fill(0, 0, radix);
      for (let i = 0; i < n; i++) counts[(key[i]! >>> shift) & mask]!++;
      // A digit that every item shares leaves the order as it is.
      if (counts[(key[0]! >>> shift) & mask] === n) continue;
      let sum = 0;
      for (let d = 0; d < radix; d++) {
        const c = counts[d]!;
        counts[d] = sum;
        sum += c;
      }
      for (let p = 0; p < n; p++) {
        const item = from[p]!;
        to[counts[(key[item]! >>> shift) & mask]!++] = item;
      }
      const t = from;
      from = to;
      to = t;
    }
  }
  return from;
}

/** Below this length a range is sorted by insertion. */
const INSERTION_MAX = 12;

/**
 * Sorts `a[lo..hi)` stably by `compare` (negative: the first argument goes first). `tmp` is
 * scratch space at least as long as `a` (only `tmp[lo..hi)` is used).
 */
export function mergeSort(a: Uint32Array, lo: number, hi: number, tmp: Uint32Array, compare: (x: number, y: number) => number): void {
  if (hi - lo <= INSERTION_MAX) {
    for (let i = lo + 1; i < hi; i++) {
      const x = a[i]!;
      let j = i - 1;
      while (j >= lo && compare(x, a[j]!) < 0) {
        a[j + 1] = a[j]!;
        j--;
      }
      a[j + 1] = x;
    }
    return;
  }
  const mid = (lo + hi) >>> 1;
  mergeSort(a, lo, mid, tmp, compare);
  mergeSort(a, mid, hi, tmp, compare);
  if (compare(a[mid]!, a[mid - 1]!) >= 0) return; // already in order
  for (let i = lo; i < mid; i++) tmp[i] = a[i]!;
  let i = lo;
  let j = mid;
  let k = lo;
  while (i < mid && j < hi) a[k++] = compare(a[j]!, tmp[i]!) < 0 ? a[j++]! : tmp[i++]!;
  while (i < mid) a[k++] = tmp[i++]!;
}

/**
 * {@link mergeSort} of `a[lo..hi)` by `keys[item]` descending (stable), with the comparison
 * written out: through a comparator, the calls cost 7 % of a 100-candidate plan.
 */
export function sortDescending(a: Uint32Array, lo: number, hi: number, tmp: Uint32Array, keys: Float64Array): void {
  if (hi - lo <= INSERTION_MAX) {
    for (let i = lo + 1; i < hi; i++) {
      const x = a[i]!;
      const key = keys[x]!;
      let j = i - 1;
      while (j >= lo && keys[a[j]!]! < key) {
        a[j + 1] = a[j]!;
        j--;
      }
      a[j + 1] = x;
    }
    return;
  }
  const mid = (lo + hi) >>> 1;
  sortDescending(a, lo, mid, tmp, keys);
  sortDescending(a, mid, hi, tmp, keys);
  if (!(keys[a[mid]!]! > keys[a[mid - 1]!]!)) return; // already in order
  for (let i = lo; i < mid; i++) tmp[i] = a[i]!;
  let i = lo;
  let j = mid;
  let k = lo;
  while (i < mid && j < hi) a[k++] = keys[a[j]!]! > keys[tmp[i]!]! ? a[j++]! : tmp[i++]!;
  while (i < mid) a[k++] = tmp[i++]!;
}

/** The identity permutation of `n` items, in `order` when given (its length is n). */
export function identity(n: number, order: Uint32Array = new Uint32Array(n)): Uint32Array {
  for (let i = 0; i < n; i++) order[i] = i;
  return order;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** Index of the high word of a double in `u32` (the platform's byte order). */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * Writes into `hi[i]`, `lo[i]` the bits of `x` mapped so that unsigned `(hi, lo)` order is the
 * numeric order of `x` (negative numbers have every bit flipped, the others only the sign bit).
 * `x` must not be NaN; pass `x + 0` to make -0 and +0 one key.
 */
export function orderedBits(x: number, hi: Uint32Array, lo: Uint32Array, i: number): void {
  f64[0] = x;
  const h = u32[HIGH]!;
  const l = u32[1 - HIGH]!;
  if (h >>> 31 === 1) {
    hi[i] = ~h >>> 0;
    lo[i] = ~l >>> 0;
  } else {
    hi[i] = (h | 0x8000_0000) >>> 0;
    lo[i] = l;
  }
}
