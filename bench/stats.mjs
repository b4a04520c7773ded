// The statistics the bench scripts print, in one place: the median (of an even count, the upper
// of the middle two), the mean, and a quantile by nearest rank.

/** The median of `xs` (the upper middle value of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** The arithmetic mean of `xs`. */
export const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;

/** The `q` quantile of `xs` (0 < q ≤ 1) by nearest rank: the smallest value with at least q of `xs` at or below it. */
export const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)];
