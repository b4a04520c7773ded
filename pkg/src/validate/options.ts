/**
 * Validated readers of option bags, shared by the public functions. Not part of the public API.
 * Every failure is a `CtxpackError` with code `INVALID_OPTION` and `field` set to the option name.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue, didYouMean, shownName } from '../errors.js';
import { MAX_COST_TOKENS, isRecord, type Unchecked } from './fields.js';
import type { ScoringWeights } from '../types.js';
import type { DependencyMode } from '../core/types.js';

/** Default weights of the benefit formula (spec: α = 0.6, β = 0.3, γ = 0.1). */
export const DEFAULT_WEIGHTS: Readonly<ScoringWeights> = Object.freeze({ alpha: 0.6, beta: 0.3, gamma: 0.1 });

/** Builds an `INVALID_OPTION` error for option `name`. */
export function invalidOption(name: string, requirement: string, value: unknown, index?: number): CtxpackError {
  const shown = index === undefined ? name : name.replace(/^([^.]+)/, `$1[${index}]`);
  return new CtxpackError(
    'INVALID_OPTION',
    `options.${shown} must be ${requirement}, got ${describeValue(value)}`,
    index === undefined ? { field: name } : { field: name, index },
  );
}

/**
 * `INVALID_OPTION` for a key outside `known` at `options.<prefix><key>`: what the key is not
 * (`kind`), the known names and the nearest of them, so a typo is one glance to fix.
 */
export function unknownOption(prefix: string, key: string, kind: string, known: readonly string[]): CtxpackError {
  const field = `${prefix}${shownName(key)}`;
  return new CtxpackError('INVALID_OPTION', `options.${field} is not ${kind} (known: ${known.join(', ') || 'none'})${didYouMean(key, known)}`, { field });
}

/** `undefined` → `{}`; a non-array object → itself; anything else → `INVALID_OPTION` (`field: 'options'`). */
export function optionsRecord(options: unknown): Unchecked {
  if (options === undefined) return {};
  if (!isRecord(options)) {
    throw new CtxpackError('INVALID_OPTION', `options must be an object or undefined, got ${describeValue(options)}`, {
      field: 'options',
    });
  }
  return options;
}

/** `now`: finite epoch milliseconds; default `fallback`, else `Date.now()`. */
export function readNow(o: Unchecked, fallback?: number): number {
  const now = o['now'];
  if (now === undefined) return fallback ?? Date.now();
  if (typeof now !== 'number' || !Number.isFinite(now)) throw invalidOption('now', 'a finite number of epoch milliseconds', now);
  return now;
}

/** `weights`: partial `{ alpha, beta, gamma }`, each finite and non-negative; missing ones take the defaults; other keys are rejected. */
export function readWeights(o: Unchecked): ScoringWeights {
  const w = o['weights'];
  // A literal, not `{ ...DEFAULT_WEIGHTS }`: spreading the frozen defaults takes V8's slow path,
  // a measurable part of a 20-candidate call.
  const out: ScoringWeights = { alpha: DEFAULT_WEIGHTS.alpha, beta: DEFAULT_WEIGHTS.beta, gamma: DEFAULT_WEIGHTS.gamma };
  if (w === undefined) return out;
  if (!isRecord(w)) throw invalidOption('weights', 'an object with optional alpha, beta, gamma', w);
  for (const key of Object.keys(w)) {
    if (key !== 'alpha' && key !== 'beta' && key !== 'gamma') {
      throw unknownOption('weights.', key, 'a weight', ['alpha', 'beta', 'gamma']);
    }
  }
  for (const key of ['alpha', 'beta', 'gamma'] as const) {
    const v = w[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw invalidOption(`weights.${key}`, 'a finite non-negative number', v);
    }
    out[key] = v;
  }
  return out;
}

/** A non-negative safe integer option, with a default when absent. */
export function readCount(o: Unchecked, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = o[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw invalidOption(name, `a non-negative integer no greater than ${max}`, v);
  }
  return v;
}

/** A boolean option, with a default when absent. */
export function readBoolean(o: Unchecked, name: string, fallback: boolean): boolean {
  const v = o[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw invalidOption(name, 'a boolean', v);
  return v;
}

/** A string option restricted to `allowed`, with a default when absent. */
export function readEnum<T extends string>(o: Unchecked, name: string, allowed: readonly T[], fallback: T): T {
  const v = o[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalidOption(name, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, v);
  }
  return v as T;
}

/** A function option; `undefined` when absent. */
export function readFunction<F extends (...args: never[]) => unknown>(o: Unchecked, name: string): F | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'function') throw invalidOption(name, 'a function', v);
  return v as F;
}

/** A non-empty string option; `undefined` when absent. */
export function readNonEmptyString(o: Unchecked, name: string): string | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0) throw invalidOption(name, 'a non-empty string', v);
  return v;
}

/**
 * Rejects option names outside `known`, so a misspelt option never passes silently; `owner` names
 * the function (or the slicer) in the message, which lists the known names.
 */
export function rejectUnknownOptions(o: Unchecked, known: readonly string[], owner: string): void {
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) throw unknownOption('', key, `an option of ${owner}`, known);
  }
}

/** `dependencies`: `'ignore'` (default) or `'require'`. */
export function readDependencyMode(o: Unchecked): DependencyMode {
  return readEnum(o, 'dependencies', ['ignore', 'require'] as const, 'ignore');
}

/** {@link readDependencyMode}, then removes `dependencies` from `o`: the core's own options never carry it. */
export function takeDependencyMode(o: Record<string, unknown>): DependencyMode {
  const mode = readDependencyMode(o);
  delete o['dependencies'];
  return mode;
}

/** `undefined` → `{}`; an object → a shallow copy the caller may edit; anything else → `INVALID_OPTION`. */
export function optionsCopy(options: unknown): Record<string, unknown> {
  return { ...optionsRecord(options) };
}

/**
 * `options.lodMix` as count entries over `lod`: `{ [lod]: { min?, max? } }`, each a non-negative
 * integer (`max` absent: no cap), `min ≤ max`; refused beside `countEntries` (both would set what
 * is counted). Entries are named by their position, never by the caller's `lod` string.
 */
export function readLodMix(o: Unchecked): { kind: string; requireCount: number; capCount: number }[] {
  const mix = o['lodMix'];
  if (o['countEntries'] !== undefined) {
    throw new CtxpackError('INVALID_OPTION', 'options.lodMix and options.countEntries cannot be given together: both set what is counted', {
      field: 'lodMix',
    });
  }
  if (!isRecord(mix)) throw invalidOption('lodMix', 'an object { [lod]: { min?, max? } }', mix);
  return Object.keys(mix).map((lod, k) => {
    const bounds = mix[lod];
    if (!isRecord(bounds)) throw invalidOption('lodMix', 'an object { min?, max? } per lod', bounds, k);
    const read = (name: 'min' | 'max', fallback: number): number => {
      const v = bounds[name];
      if (v === undefined) return fallback;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_COST_TOKENS) {
        throw invalidOption(`lodMix.${name}`, `a non-negative integer no greater than ${MAX_COST_TOKENS}`, v, k);
      }
      return v;
    };
    const min = read('min', 0);
    const max = read('max', MAX_COST_TOKENS);
    if (min > max) throw invalidOption('lodMix.min', `no greater than max (${max})`, min, k);
    return { kind: lod, requireCount: min, capCount: max };
  });
}
