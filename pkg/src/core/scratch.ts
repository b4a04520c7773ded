/**
 * Reusable typed arrays for the planner's temporaries.
 *
 * Planning 100k candidates takes some 15 MB of typed arrays that never outlive the call. Engines
 * count typed-array memory as external memory, and allocating that much afresh on every call
 * brings on frequent full garbage collections, each of which marks everything the caller keeps
 * alive (their fragments, typically far more than the plan itself). So the arrays of one call are
 * kept for the next: a {@link Scratch} hands out views of pooled buffers, and the pool is reused by
 * the next call once this one releases it.
 *
 * - Only up to {@link POOLED_MAX_LENGTH} items: larger calls allocate afresh (so the pool holds at
 *   most a few MB).
 * - Not reentrant: a call made while the pool is in use (from a token counter or a logger) gets a
 *   scratch of its own.
 * - Views may hold data from an earlier call unless asked for `zeroed`.
 * - {@link Scratch.array} pools plain arrays the same way, for columns of strings that the call
 *   fills entirely and that nothing keeps after it (at 100k candidates, each is an 800 KB array
 *   that would otherwise outlive a young-generation collection and wait for a full one). A pooled
 *   array holds the last call's values until the next call of the same size overwrites them.
 *
 * @internal
 * @module
 */

/** Longest array the pool keeps (2^17 = 131072 items). */
export const POOLED_MAX_LENGTH = 1 << 17;

/** Typed arrays handed out by one call, in order; the pool's buffers are reused in the same order. */
export class Scratch {
  private readonly u8s: Uint8Array[] = [];
  private readonly u32s: Uint32Array[] = [];
  private readonly f64s: Float64Array[] = [];
  // The view each slot last handed out: a call with the same n as the last gets it again instead
  // of a new view (about 40 of them for a small call, each an allocation).
  private readonly u8Views: Uint8Array[] = [];
  private readonly u32Views: Uint32Array[] = [];
  private readonly f64Views: Float64Array[] = [];
  private readonly tables: Uint32Array[] = [];
  private readonly tableViews: Uint32Array[] = [];
  private readonly arrays: unknown[][] = [];
  private nextU8 = 0;
  private nextU32 = 0;
  private nextF64 = 0;
  private nextTable = 0;
  private nextArray = 0;

  constructor(private readonly pooled: boolean) {}

  u8(n: number, zeroed = false): Uint8Array {
    return take(this.u8s, this.u8Views, this.nextU8++, n, zeroed, this.pooled, Uint8Array);
  }

  u32(n: number, zeroed = false): Uint32Array {
    return take(this.u32s, this.u32Views, this.nextU32++, n, zeroed, this.pooled, Uint32Array);
  }

  f64(n: number, zeroed = false): Float64Array {
    return take(this.f64s, this.f64Views, this.nextF64++, n, zeroed, this.pooled, Float64Array);
  }

  /**
   * A zeroed `Uint32Array` of `size` slots for a hash table over up to {@link POOLED_MAX_LENGTH}
   * items (at most half full, so up to twice that length): pooled like the columns, which a
   * table of a pooled call's items would otherwise not be.
   */
  table(size: number): Uint32Array {
    return take(this.tables, this.tableViews, this.nextTable++, size, true, this.pooled, Uint32Array, 2 * POOLED_MAX_LENGTH);
  }

  /**
   * A plain array of length `n` whose every entry the caller sets before reading it: the pool's,
   * when the last call took one of this length in this slot, else a new one (which the pool keeps).
   */
  array<T>(n: number): T[] {
    if (!this.pooled || n > POOLED_MAX_LENGTH) return new Array<T>(n);
    const slot = this.nextArray++;
    let array = this.arrays[slot];
    if (array === undefined || array.length !== n) {
      array = new Array<unknown>(n);
      this.arrays[slot] = array;
    }
    return array as T[];
  }

  /** Makes every buffer available again (the views handed out must no longer be used). */
  reset(): void {
    this.nextU8 = 0;
    this.nextU32 = 0;
    this.nextF64 = 0;
    this.nextTable = 0;
    this.nextArray = 0;
  }
}

type TypedArray = Uint8Array | Uint32Array | Float64Array;

function take<A extends TypedArray>(
  buffers: A[],
  views: A[],
  slot: number,
  n: number,
  zeroed: boolean,
  pooled: boolean,
  Kind: new (n: number) => A,
  max = POOLED_MAX_LENGTH,
): A {
  if (!pooled || n > max) return new Kind(n);
  let buffer = buffers[slot];
  let view = views[slot];
  if (buffer === undefined || buffer.length < n) {
    // Grown to the next power of two, so that slightly larger calls reuse it too.
    let size = 1024;
    while (size < n) size *= 2;
    buffer = new Kind(size);
    buffers[slot] = buffer;
    view = undefined;
  } else if (zeroed) {
    buffer.fill(0, 0, n);
  }
  if (view === undefined || view.length !== n) {
    view = buffer.subarray(0, n) as A;
    views[slot] = view;
  }
  return view;
}

let pool: Scratch | undefined;
let inUse = false;

/** The pool, or a fresh scratch when the pool is in use (a call from inside a call). */
export function acquireScratch(): Scratch {
  if (inUse) return new Scratch(false);
  inUse = true;
  return (pool ??= new Scratch(true));
}

/** Gives back what {@link acquireScratch} returned. */
export function releaseScratch(scratch: Scratch): void {
  if (scratch !== pool) return;
  scratch.reset();
  inUse = false;
}
