/**
 * Errors thrown by ctxpack.
 *
 * Every failure surfaces as a {@link CtxpackError} with a stable machine-readable
 * {@link CtxpackErrorCode}. Messages name the offending field and index
 * (for example `candidates[3].cost_tokens must be a non-negative integer, got -5`)
 * and never echo string values, so fragment content, ids and other user text
 * cannot leak into logs through an error message.
 *
 * @module
 */

/**
 * Stable error codes, the type being {@link CtxpackErrorCode}.
 *
 * - `INVALID_INPUT`: the candidates argument is not an array.
 * - `INVALID_FIELD`: a candidate, the gaze, or a field of either is malformed.
 * - `DUPLICATE_ID`: two candidates share an id.
 * - `INVALID_BUDGET`: `budgets` is missing, a budget (`tokens_max`, `output_reserve`,
 *   `overhead_tokens`, `per_fragment_overhead`) is not a non-negative safe integer,
 *   `safety_margin_percent` is not a number in [0, 100), or a budget name is unknown.
 * - `INVALID_OPTION`: an option has the wrong type or range.
 * - `INVALID_SCORE`: a score that the core (`sliceColumns`, `sliceObjects`) or `applyTieBreaking`
 *   reads is not a finite number; the slicer functions that take item objects give `INVALID_FIELD`.
 * - `INVALID_BUCKET_SIZE`: the knapsack bucket size is not a positive integer.
 * - `INVALID_COUNT_ENTRY`: a count-knapsack entry is malformed.
 * - `TABLE_TOO_LARGE`: the knapsack DP table would exceed `maxTableBytes` (raised by the core).
 * - `COUNT_REQUIREMENT_SHORTFALL`: a count requirement cannot be met and scarcity is `'throw'`
 *   (raised by the core).
 * - `COUNT_REQUIREMENT_OVER_BUDGET`: the exact count-constrained slice with scarcity `'throw'`:
 *   every kind has enough candidates, but the lightest way to meet every requirement does not fit
 *   the budget (raised by the core).
 * - `NOT_MONOTONIC`: budget simulation (`budgetCurve`, `minBudgetFor`, `droppedUnderSlack`) asked
 *   of a count-constrained strategy, whose selection is not monotonic in the budget (`field` is
 *   `'slicer'`).
 * - `TOKEN_COUNT_FAILED`: `options.countTokens` threw, or returned something other than an integer
 *   from 0 to 4294967295, for a fragment's `content` (`field` is `'content'`, `index` the
 *   candidate; a thrown error is kept as `cause`; the message never contains the text).
 * - `INVALID_EMBEDDING`: `options.embed` (`fitMessagesAsync`, a session's `fitAsync`) resolved to
 *   something other than one vector per text it was given, each an array of finite numbers of the
 *   same length (`field` is `'embed'`, `index` the text in the array `embed` received; the message
 *   never contains a text). A throw or rejection is not an error: a warning, and BM25 alone.
 * - `INVALID_MESSAGES`: `fitMessages` was given messages that break a rule of their format
 *   (`validateMessages`) among those it must keep (system messages, the latest user message, the
 *   last message's unit, `options.keep`): no subset of them is a valid request (`index` is the
 *   message, `field` the rule); or a LangChain message that carries `cache_control` markers past
 *   Anthropic's limit and whose class refuses a copy without them (`field` `'cache_control'`).
 * - `PINNED_OVER_BUDGET`: what `fitMessages` must keep (system prompt and messages, the latest
 *   user message, the last message's unit, `options.keep`) alone exceeds the effective budget;
 *   the message says by how many tokens.
 * - `SESSION_BUSY`: a session's synchronous `fit` was called while one of its `fitAsync` turns is
 *   still running. Overlapping `fitAsync` turns run one after another in call order, each planned
 *   after the previous one; a synchronous turn cannot wait, so it is refused.
 * - `NOT_INITIALIZED`: the WebAssembly core was used before initialization (raised by the core).
 * - `WASM_LOAD_FAILED`: the package's own .wasm file could not be found or fetched where the
 *   runtime's loader looks for it, usually because a bundler moved the code away from it without
 *   emitting the file; the message names the one line of bundler configuration that fixes it
 *   (also in docs/runtimes.md), and `cause` keeps the underlying error.
 * - `INTERNAL`: a broken invariant; please report it.
 */
export const ERROR_CODES = Object.freeze([
  'INVALID_INPUT',
  'INVALID_FIELD',
  'DUPLICATE_ID',
  'INVALID_BUDGET',
  'INVALID_OPTION',
  'INVALID_SCORE',
  'INVALID_BUCKET_SIZE',
  'INVALID_COUNT_ENTRY',
  'TABLE_TOO_LARGE',
  'COUNT_REQUIREMENT_SHORTFALL',
  'COUNT_REQUIREMENT_OVER_BUDGET',
  'NOT_MONOTONIC',
  'TOKEN_COUNT_FAILED',
  'INVALID_EMBEDDING',
  'INVALID_MESSAGES',
  'PINNED_OVER_BUDGET',
  'SESSION_BUSY',
  'NOT_INITIALIZED',
  'WASM_LOAD_FAILED',
  'INTERNAL',
] as const);

/**
 * A stable error code: one of {@link ERROR_CODES}. The Rust core's codes (`CtxpackError::code`)
 * are all here; test/error-codes.test.mjs checks the two lists and that every code is raised.
 */
export type CtxpackErrorCode = (typeof ERROR_CODES)[number];

/** Optional structured details attached to a {@link CtxpackError}. */
export interface CtxpackErrorDetails {
  /** See {@link CtxpackError.field}. */
  field?: string;
  /** See {@link CtxpackError.index}. */
  index?: number;
  /** See {@link CtxpackError.otherIndex}. */
  otherIndex?: number;
  /** The underlying error, if this one wraps another. */
  cause?: unknown;
}

/** The brand of a `CtxpackError`, the same symbol in every copy of the package (`Symbol.for`). */
const BRAND = Symbol.for('ctxpack.CtxpackError');

/**
 * The one error class ctxpack throws.
 *
 * `field` and `index` locate the problem:
 * - For an element of an indexed collection (`candidates`, `options.previousCache`,
 *   `options.countEntries`, a cache passed to the eviction helpers, the scored list passed to
 *   `applyTieBreaking`), `index` is the element's position and `field` is the property path
 *   inside the element (`'cost_tokens'`, `'timestamp'`, `'entities'`…), or the collection name
 *   (`'candidates'`) when the element itself is not an object.
 * - Otherwise `field` is the path of the value (`'gaze.entities'`, `'budgets.tokens_max'`) or, for
 *   `INVALID_OPTION`, the option name (`'slicer'`, `'weights.alpha'`), and `index` is absent or
 *   the position inside that array (`gaze.entities[2]` → `index: 2`).
 */
export class CtxpackError extends Error {
  /**
   * `err instanceof CtxpackError` is true of an error of any copy of the package: the ES module
   * and CommonJS builds each have their own class (an application that loads both, through a
   * dependency, would see `false` for the other's), so instances carry a registered brand.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  override readonly name = 'CtxpackError';
  /** Machine-readable code; stable across versions. */
  readonly code: CtxpackErrorCode;
  // `declare`: absent details stay absent (`'index' in err` is false) instead of being defined as undefined.
  /** The offending field; see the class documentation. */
  declare readonly field?: string;
  /** Index of the offending element; see the class documentation. */
  declare readonly index?: number;
  /** For `DUPLICATE_ID`: the index of the first element that carries the id. */
  declare readonly otherIndex?: number;

  constructor(code: CtxpackErrorCode, message: string, details: CtxpackErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    Object.defineProperty(this, BRAND, { value: true });
    this.code = code;
    const self = this as { field?: string; index?: number; otherIndex?: number };
    if (details.field !== undefined) self.field = details.field;
    if (details.index !== undefined) self.index = details.index;
    if (details.otherIndex !== undefined) self.otherIndex = details.otherIndex;
  }
}
// The class's own name, which the minified build renames: `console.log(err)` prints
// `CtxpackError [CtxpackError]: …`, not a minifier's letter. The build keeps no other names
// (esbuild's keepNames redefined the name of every closure each time it was made: about a tenth
// of a 20-item slice).
Object.defineProperty(CtxpackError, 'name', { value: 'CtxpackError' });

/**
 * Runs `read`, which reads the caller's values (`inputs`). The package's own code throws only
 * `CtxpackError` (the core's errors, a token counter's and a callback's become one where they
 * happen), so anything else is either what reading a caller's value threw (a getter, a Proxy
 * trap, a revoked Proxy) or a bug of ours. To tell which, `inputs` are read again, every own
 * property to the depth the package reads: if that throws, the caller's code threw and the error
 * is `INVALID_INPUT` with the caller's thrown value as `cause`; if it does not, the fault is ours:
 * `INTERNAL`, with what was thrown as `cause`. Never a raw exception.
 */
export function readingInput<T>(read: () => T, ...inputs: unknown[]): T {
  try {
    return read();
  } catch (err) {
    throw blame(err, inputs);
  }
}

/**
 * `err`, raised over a list derived from the caller's (the planner's candidates pinned first, an
 * adapter's views with stand-ins among them), with the indexes it names mapped back to the
 * caller's: `index`, `otherIndex` and each `collection[k]` in its message become `origin[k]` (an
 * index `origin` does not cover stays as it is). Code, field and cause are kept. @internal
 */
export function reindexed(err: CtxpackError, collection: string, origin: readonly number[]): CtxpackError {
  const back = (k: number): number => origin[k] ?? k;
  const message = err.message.replace(new RegExp(`${collection}\\[(\\d+)\\]`, 'g'), (_, d: string) => `${collection}[${back(Number(d))}]`);
  return new CtxpackError(err.code, message, {
    ...(err.field === undefined ? {} : { field: err.field }),
    ...(err.index === undefined ? {} : { index: back(err.index) }),
    ...(err.otherIndex === undefined ? {} : { otherIndex: back(err.otherIndex) }),
    ...(err.cause === undefined ? {} : { cause: err.cause }),
  });
}

/** The `CtxpackError` for `err`, thrown while reading `inputs`; see {@link readingInput}. @internal */
export function blame(err: unknown, inputs: readonly unknown[]): CtxpackError {
  if (err instanceof CtxpackError) return err;
  const thrown = rereadThrows(inputs);
  if (thrown !== NOTHING_THROWN) {
    return new CtxpackError(
      'INVALID_INPUT',
      "the input could not be read: a getter or a Proxy trap threw, or a Proxy was revoked (the thrown value is this error's cause)",
      { cause: thrown },
    );
  }
  return new CtxpackError('INTERNAL', 'an internal error while reading valid input: please report it (what was thrown is this error\'s cause)', { cause: err });
}

const NOTHING_THROWN = Symbol('nothing thrown');
/** Deeper than this the package reads nothing (turns.ts collectText's MAX_DEPTH). */
const REREAD_DEPTH = 32;
/** Values re-read at most, so that the check stays bounded on huge inputs. */
const REREAD_VALUES = 1_000_000;

/** Reads every own enumerable property of `inputs`, depth first; what the first read that threw threw, else {@link NOTHING_THROWN}. */
function rereadThrows(inputs: readonly unknown[]): unknown {
  const seen = new Set<object>();
  let budget = REREAD_VALUES;
  const visit = (v: unknown, depth: number): void => {
    if (typeof v !== 'object' || v === null || depth > REREAD_DEPTH || seen.has(v) || budget-- <= 0) return;
    seen.add(v);
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) visit(v[i], depth + 1);
    else for (const key of Object.keys(v)) visit((v as Record<string, unknown>)[key], depth + 1);
  };
  try {
    for (const v of inputs) visit(v, 0);
  } catch (thrown) {
    return thrown;
  }
  return NOTHING_THROWN;
}

/** The most characters of a caller's id or property name that a message or warning shows. */
export const MAX_SHOWN_NAME = 100;

/**
 * A caller's id or property name (an unknown option's key) as a message, a warning or an error's
 * `field` shows it: at most {@link MAX_SHOWN_NAME} characters, then an ellipsis. The one way a
 * caller's string enters a message; any other caller string (content, kinds) is named by its
 * index or described by {@link describeValue}, never shown.
 */
export function shownName(name: string): string {
  if (name.length <= MAX_SHOWN_NAME) return name;
  // Never cut a surrogate pair in half.
  const end = /[\uD800-\uDBFF]/.test(name[MAX_SHOWN_NAME - 1]!) ? MAX_SHOWN_NAME - 1 : MAX_SHOWN_NAME;
  return `${name.slice(0, end)}…`;
}

/** A name as the near-miss check compares it: lowercase, without `_` and `-`. */
function foldName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** Levenshtein distance of `a` and `b`, or `limit + 1` once it is sure to exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  // Optimal string alignment: two letters swapped (`cahce`) are one edit, as a typist makes them.
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * `'; did you mean <name>?'` when `key` is a near miss of one of `known` (the same name in another
 * case or with `_`/`-` changed, as `tokensMax` for `tokens_max`, or one or two letters off or
 * swapped; or, in `elsewhere`, by its folded name, what another library calls it), else
 * `''`. The first closest name wins, so the hint is deterministic.
 * @internal
 */
export function didYouMean(key: string, known: readonly string[], elsewhere: Readonly<Record<string, string>> = {}): string {
  const k = foldName(key);
  const limit = k.length >= 8 ? 2 : k.length >= 4 ? 1 : 0;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of known) {
    const d = editDistance(k, foldName(name), limit);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  best ??= elsewhere[k];
  return best === undefined ? '' : `; did you mean ${best}?`;
}

/**
 * Describes a received value for an error message without echoing any text it contains.
 * Numbers, booleans, `null` and `undefined` are shown; strings only by length.
 * @internal
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  switch (typeof value) {
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `bigint ${String(value)}`;
    case 'string':
      return `a string of length ${value.length}`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      if (Array.isArray(value)) return `an array of length ${value.length}`;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : 'a Date';
      return 'an object';
  }
}
