// Number formats shared by the views.

const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 });
const PERCENT = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

/** 32,000 */
export const tokens = (n) => INTEGER.format(n);
/** 0.1234 */
export const score = (n) => DECIMAL.format(n);
/** 12.5% */
export const percent = (n) => PERCENT.format(n);
/** 1.23 ms */
export const ms = (n) => `${n.toFixed(2)} ms`;
