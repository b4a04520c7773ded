/**
 * Reading a session's exported state back: every field checked, so a corrupted or foreign state
 * is `INVALID_OPTION` naming the field, never a wrong plan; and the session's `stateKey`, under
 * which a state's keys are a keyed hash of the texts (docs/sessions.md, "What a state reveals").
 *
 * @internal
 * @module
 */

import { stateKeyCheck, stateKeyDerive, stateTextKey } from '../core/bridge.js';
import { CtxpackError, describeValue } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import type { PreviousRequest, SessionState, SessionStateWarning } from './types.js';

function bad(field: string, requirement: string, value: unknown, index?: number): CtxpackError {
  return new CtxpackError('INVALID_OPTION', `options.${field}${index === undefined ? '' : `[${index}]`} must be ${requirement}, got ${describeValue(value)}`, {
    field,
    ...(index === undefined ? {} : { index }),
  });
}

/**
 * The most a state may carry; beyond, it is no state exportState() wrote, and reading it is
 * refused before any entry is looked at, so a hostile state costs no more than these bounds.
 * `exportState()` writes at most 16 growth figures (the constructor keeps the last 16 of a longer
 * list) and at most one entry per message sent, and every breakpoint lies after a distinct entry.
 * Counts are bounded where they are imported (tokens/cache.ts, `MAX_IMPORTED_COUNTS`).
 */
export const MAX_STATE_GROWTH = 1024;
export const MAX_STATE_ENTRIES = 1 << 20;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isKey = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{16}(:\d+)?$/.test(v);

/** A session's `stateKey`, read: the key of a text, and the check value its states carry. */
export interface StateKeying {
  textKey(text: string): string;
  check: string;
}

/** The shortest `stateKey`, in bytes (a string's in UTF-8): 128 bits. */
const MIN_STATE_KEY_BYTES = 16;

/** `options.stateKey`: absent, or a string or `Uint8Array` of at least 16 bytes. */
export function readStateKey(value: unknown): StateKeying | undefined {
  if (value === undefined) return undefined;
  const secret = typeof value === 'string' ? new TextEncoder().encode(value) : value instanceof Uint8Array ? value : undefined;
  if (secret === undefined || secret.length < MIN_STATE_KEY_BYTES) {
    // Only the secret's type and size are told, never a value (describeValue shows numbers).
    const got = secret !== undefined ? `${secret.length} bytes` : value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new CtxpackError('INVALID_OPTION', `options.stateKey must be a string or Uint8Array of at least ${MIN_STATE_KEY_BYTES} bytes (a random secret, kept apart from the state), got ${got}`, { field: 'stateKey' });
  }
  const key = stateKeyDerive(secret);
  return { textKey: (text) => stateTextKey(key, text), check: stateKeyCheck(key) };
}

/**
 * `options.state` as `exportState()` wrote it, for a session whose `stateKey` gives `keyCheck`
 * (`undefined` without one). A state written under another key, or with a key where the session
 * has none or the other way round, is not read further: `state` is null, with the warning.
 * Counts are checked when imported (tokens/cache.ts).
 */
export function readState(value: unknown, keyCheck: string | undefined): { state: SessionState | null; warning?: SessionStateWarning } {
  if (!isRecord(value) || value['version'] !== 1) throw bad('state', 'a state exportState() returned (version 1)', value);
  const written = value['keyCheck'];
  if (written !== undefined && !(typeof written === 'string' && /^[0-9a-f]{16}$/.test(written))) throw bad('state.keyCheck', '16 hex digits or absent', written);
  if (written !== keyCheck) {
    const why =
      keyCheck === undefined ? 'was exported with a stateKey, and this session has none'
      : written === undefined ? 'was exported without a stateKey, and this session has one'
      : 'was exported with another stateKey';
    return { state: null, warning: { code: 'STATE_KEY_MISMATCH', message: `options.state ${why}: it is ignored, and the session starts without counts or a previous request` } };
  }
  const counter = value['counter'];
  const model = value['model'];
  if (counter !== null && typeof counter !== 'string') throw bad('state.counter', 'a string or null', counter);
  if (model !== null && typeof model !== 'string') throw bad('state.model', 'a string or null', model);
  const growth = value['growth'];
  if (Array.isArray(growth) && growth.length > MAX_STATE_GROWTH) throw bad('state.growth', `at most ${MAX_STATE_GROWTH} numbers`, growth);
  if (!Array.isArray(growth) || !growth.every((g) => typeof g === 'number' && Number.isFinite(g) && g >= 0)) {
    throw bad('state.growth', 'an array of non-negative numbers', growth);
  }
  const state: SessionState = { version: 1, counter, model, counts: value['counts'] as SessionState['counts'], previous: readPrevious(value['previous']), growth: [...growth] };
  if (written !== undefined) state.keyCheck = written;
  return { state };
}

function readPrevious(p: unknown): PreviousRequest | null {
  if (p === null) return null;
  if (!isRecord(p)) throw bad('state.previous', 'an object or null', p);
  for (const key of ['n', 'head', 'systemTokens', 'promptTokens']) if (!isCount(p[key])) throw bad(`state.previous.${key}`, 'a non-negative integer', p[key]);
  const system = p['system'];
  if (system !== '' && !isKey(system)) throw bad('state.previous.system', "a hash or ''", system);
  const entries = p['entries'];
  if (!Array.isArray(entries)) throw bad('state.previous.entries', 'an array', entries);
  if (entries.length > Math.min(p['n'] as number, MAX_STATE_ENTRIES)) throw bad('state.previous.entries', `at most n and at most ${MAX_STATE_ENTRIES} entries`, entries);
  entries.forEach((e: unknown, i) => {
    if (!Array.isArray(e) || e.length !== 3 || !isCount(e[0]) || e[0] >= (p['n'] as number) || !isKey(e[1]) || !isCount(e[2]) || (i > 0 && e[0] <= (entries[i - 1] as number[])[0]!)) {
      throw bad('state.previous.entries', '[index, hash, tokens], indexes ascending below n', e, i);
    }
  });
  const breakpoints = p['breakpoints'];
  if (!Array.isArray(breakpoints)) throw bad('state.previous.breakpoints', 'an array', breakpoints);
  if (breakpoints.length > entries.length) throw bad('state.previous.breakpoints', 'at most one per entry', breakpoints);
  breakpoints.forEach((b: unknown, i) => {
    if (!Array.isArray(b) || b.length !== 2 || !isCount(b[0]) || !isCount(b[1])) throw bad('state.previous.breakpoints', '[messages, tokens]', b, i);
  });
  if ((p['head'] as number) > entries.length) throw bad('state.previous.head', 'at most the number of entries', p['head']);
  const query = p['query'];
  if (query !== undefined && !isKey(query)) throw bad('state.previous.query', 'a hash or absent', query);
  return {
    n: p['n'] as number,
    system: system as string,
    entries: entries.map((e: [number, string, number]) => [e[0], e[1], e[2]]),
    head: p['head'] as number,
    breakpoints: breakpoints.map((b: [number, number]) => [b[0], b[1]]),
    systemTokens: p['systemTokens'] as number,
    promptTokens: p['promptTokens'] as number,
    ...(query === undefined ? {} : { query: query as string }),
  };
}
