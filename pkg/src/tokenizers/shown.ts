/**
 * How the adapters show a rejected encoding or model name in an error message: a short name made
 * of name characters as itself, anything else only by its type and length (never echoing text).
 * @internal
 * @module
 */

export function shown(value: unknown): string {
  if (typeof value === 'string') {
    return value.length <= 64 && /^[\w.:/-]+$/.test(value) ? `'${value}'` : `a string of length ${value.length}`;
  }
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}
