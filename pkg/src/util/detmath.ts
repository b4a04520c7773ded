/**
 * `exp` and `log` that give the same bits in every JavaScript engine.
 *
 * `Math.exp` and `Math.log` are implementation-approximated: engines may and do differ in the last
 * bit (the cross-runtime test found Node 20 and Chromium 156 disagreeing on `Math.exp`). Plans must
 * be byte-identical in Node, browsers and workerd, so the scoring uses these ports of fdlibm's
 * `__ieee754_exp` and `__ieee754_log` (Sun Microsystems, 1993; freely usable with its notice,
 * reproduced below). They use only IEEE 754 basic operations, which every engine rounds alike;
 * their error is below 1 ulp.
 *
 * ====================================================
 * Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
 *
 * Developed at SunSoft, a Sun Microsystems, Inc. business.
 * Permission to use, copy, modify, and distribute this
 * software is freely granted, provided that this notice
 * is preserved.
 * ====================================================
 *
 * @internal
 * @module
 */

const view = new DataView(new ArrayBuffer(8));

function high(x: number): number {
  view.setFloat64(0, x);
  return view.getInt32(0);
}

function low(x: number): number {
  view.setFloat64(0, x);
  return view.getUint32(4);
}

function withHigh(x: number, hi: number): number {
  view.setFloat64(0, x);
  view.setInt32(0, hi);
  return view.getFloat64(0);
}

const HUGE = 1.0e300;
const TWOM1000 = 9.33263618503218878990e-302;
const O_THRESHOLD = 7.09782712893383973096e2;
const U_THRESHOLD = -7.45133219101941108420e2;
const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.44269504088896338700;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;

/** e^x, bit-identical in every engine (fdlibm `__ieee754_exp`): {@link expColumn} of one value. */
export function exp(x: number): number {
  ONE[0] = x;
  expColumn(ONE, ONE, 1);
  return ONE[0]!;
}

const ONE = new Float64Array(1);

/**
 * `out[i] = exp(xs[i])` for `i < n` (`out` may be `xs`). The loop holds the function's body, so
 * that a column of values is computed without a call per value: a call boxes its argument and its
 * result as heap numbers, two allocations per value that a 100k-candidate scoring pass would make.
 */
export function expColumn(xs: Float64Array, out: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    let x = xs[i]!;
    let hx = high(x);
    const xsb = (hx >>> 31) & 1;
    hx &= 0x7fffffff;
    if (hx >= 0x40862e42) {
      if (hx >= 0x7ff00000) {
        if (((hx & 0xfffff) | low(x)) !== 0) out[i] = x + x; // NaN
        else out[i] = xsb === 0 ? x : 0; // exp(±Infinity)
        continue;
      }
      if (x > O_THRESHOLD) {
        out[i] = HUGE * HUGE;
        continue;
      }
      if (x < U_THRESHOLD) {
        out[i] = TWOM1000 * TWOM1000;
        continue;
      }
    }
    let hi = 0;
    let lo = 0;
    let k = 0;
    if (hx > 0x3fd62e42) {
      if (hx < 0x3ff0a2b2) {
        hi = xsb === 0 ? x - LN2_HI : x + LN2_HI;
        lo = xsb === 0 ? LN2_LO : -LN2_LO;
        k = 1 - xsb - xsb;
      } else {
        k = Math.trunc(INV_LN2 * x + (xsb === 0 ? 0.5 : -0.5));
        hi = x - k * LN2_HI;
        lo = k * LN2_LO;
      }
      x = hi - lo;
    } else if (hx < 0x3e300000) {
      out[i] = 1 + x;
      continue;
    }
    const t = x * x;
    const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    if (k === 0) {
      out[i] = 1 - ((x * c) / (c - 2) - x);
      continue;
    }
    const y = 1 - (lo - (x * c) / (2 - c) - hi);
    if (k >= -1021) out[i] = withHigh(y, high(y) + (k << 20));
    else out[i] = withHigh(y, high(y) + ((k + 1000) << 20)) * TWOM1000;
  }
}

const TWO54 = 1.80143985094819840000e16;
const LG1 = 6.666666666666735130e-1;
const LG2 = 3.999999999940941908e-1;
const LG3 = 2.857142874366239149e-1;
const LG4 = 2.222219843214978396e-1;
const LG5 = 1.818357216161805012e-1;
const LG6 = 1.531383769920937332e-1;
const LG7 = 1.479819860511658591e-1;

/** ln x, bit-identical in every engine (fdlibm `__ieee754_log`). */
export function log(x: number): number {
  let hx = high(x);
  const lx = low(x);
  let k = 0;
  if (hx < 0x00100000) {
    if (((hx & 0x7fffffff) | lx) === 0) return -Infinity; // log(±0)
    if (hx < 0) return NaN; // log(negative)
    k -= 54;
    x *= TWO54; // subnormal: scale up
    hx = high(x);
  }
  if (hx >= 0x7ff00000) return x + x;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  let i = (hx + 0x95f64) & 0x100000;
  x = withHigh(x, hx | (i ^ 0x3ff00000)); // normalize x or x/2
  k += i >> 20;
  const f = x - 1;
  if ((0x000fffff & (2 + hx)) < 3) {
    // |f| < 2^-20
    if (f === 0) return k === 0 ? 0 : k * LN2_HI + k * LN2_LO;
    const r = f * f * (0.5 - 0.33333333333333333 * f);
    return k === 0 ? f - r : k * LN2_HI - (r - k * LN2_LO - f);
  }
  const s = f / (2 + f);
  const z = s * s;
  i = hx - 0x6147a;
  const w = z * z;
  const j = 0x6b851 - hx;
  const t1 = w * (LG2 + w * (LG4 + w * LG6));
  const t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
  i |= j;
  const r = t2 + t1;
  if (i > 0) {
    const hfsq = 0.5 * f * f;
    return k === 0 ? f - (hfsq - s * (hfsq + r)) : k * LN2_HI - (hfsq - (s * (hfsq + r) + k * LN2_LO) - f);
  }
  return k === 0 ? f - s * (f - r) : k * LN2_HI - (s * (f - r) - k * LN2_LO - f);
}
