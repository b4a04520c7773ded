/**
 * Time inputs, parsed identically in every runtime.
 *
 * `Date.parse` is implementation-defined for anything outside ECMAScript's date-time string
 * format, and that format reads offset-less date-times in the host's local time zone. Both would
 * make scores depend on the runtime or the machine's time zone, so ISO 8601 strings are parsed
 * here by a strict grammar with pure integer arithmetic.
 *
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';

/** Largest absolute epoch-ms value a `Date` can hold (ECMA-262 TimeClip). @internal */
export const MAX_EPOCH_MS = 8.64e15;

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

/**
 * `YYYY-MM-DD`, or `YYYY-MM-DD[T|t| ]hh:mm[:ss[.fraction]]` followed by a mandatory offset
 * `Z`, `z`, `±hh`, `±hhmm` or `±hh:mm`.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?))?$/;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = (month + 9) % 12;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function parseIso8601(text: string): number | undefined {
  const m = ISO_8601.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  let ms = daysFromCivil(year, month, day) * MS_PER_DAY;
  if (m[4] === undefined) return ms; // date only: UTC midnight, as ECMAScript does
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  // Fractions are truncated to whole milliseconds.
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  ms += ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMinutes = m[11] === undefined ? 0 : Number(m[11]);
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    const sign = m[9] === '-' ? -1 : 1;
    ms -= sign * (offsetHours * 60 + offsetMinutes) * MS_PER_MINUTE;
  }
  return ms;
}

function isDate(value: unknown): value is Date {
  return value instanceof Date || Object.prototype.toString.call(value) === '[object Date]';
}

/**
 * Converts a time input to milliseconds since the Unix epoch, or returns `undefined` when the
 * value is not a valid time input. See {@link toEpochMs} for the accepted forms.
 * @internal
 */
export function parseTimeInput(value: unknown): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') ms = parseIso8601(value);
  else if (isDate(value)) ms = Date.prototype.getTime.call(value);
  if (ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > MAX_EPOCH_MS) return undefined;
  return ms;
}

/**
 * Converts a fragment time field to milliseconds since the Unix epoch.
 *
 * Accepted, identically in every runtime and time zone:
 * - a valid `Date` (from any realm);
 * - a finite number of milliseconds since the epoch;
 * - an ISO 8601 / RFC 3339 string with a four-digit year: `YYYY-MM-DD` (UTC midnight), or a
 *   date-time `YYYY-MM-DDThh:mm[:ss[.fff…]]` with a mandatory offset `Z`, `±hh`, `±hhmm` or
 *   `±hh:mm`. `t` and a space may stand for `T`, `z` for `Z`, and `,` for the decimal point.
 *   Fractions beyond milliseconds are truncated.
 *
 * Rejected: date-times without an offset (their meaning depends on the host's time zone),
 * leap seconds (`:60`), `24:00`, impossible dates (`2023-02-29`), any other string, `NaN`,
 * infinities, and values outside the `Date` range (±8.64e15 ms).
 *
 * @param value The value to convert.
 * @param field Field name for the error, e.g. `'timestamp'`.
 * @param index Candidate index for the error; with it the message reads `candidates[3].timestamp …`.
 * @throws {CtxpackError} `INVALID_FIELD` naming `field` and `index`.
 */
export function toEpochMs(value: unknown, field: string, index?: number): number {
  const ms = parseTimeInput(value);
  if (ms === undefined) {
    const path = index === undefined ? field : `candidates[${index}].${field}`;
    throw new CtxpackError(
      'INVALID_FIELD',
      `${path} must be a valid Date, an ISO 8601 string with an offset, or epoch milliseconds, got ${describeValue(value)}`,
      index === undefined ? { field } : { field, index },
    );
  }
  return ms;
}

/**
 * Monotonic milliseconds: `performance.now()` (Node, browsers, workers), else `Date.now()`.
 * Only used to measure durations.
 */
export function monotonicMs(): number {
  const perf = (globalThis as { performance?: { now?: () => number } }).performance;
  return typeof perf?.now === 'function' ? perf.now() : Date.now();
}
