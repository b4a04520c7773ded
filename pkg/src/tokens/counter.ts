/**
 * Token counting: the counter type `selectFragments` takes as `options.countTokens`, the built-in
 * estimator, and the per-call plumbing that counts each fragment's `content` at most once and
 * checks what the counter answers.
 *
 * Real tokenizers are optional adapters with their own entry points, so that no vocabulary is
 * bundled with ctxpack: `ctxpack/tokenizers/js-tiktoken` and `ctxpack/tokenizers/gpt-tokenizer`.
 *
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { MAX_COST_TOKENS } from '../validate/fields.js';
import { refusedThenable } from '../util/thenable.js';
import { estimatePieces } from './estimate.js';

/**
 * Counts the tokens of a text, synchronously: a non-negative integer no greater than 4294967295.
 *
 * `selectFragments` calls it as `countTokens(fragment.content, options.model)` for each fragment
 * that has no `cost_tokens`, at most once per fragment per call. It never sees anything but the
 * text and the model name. A counter may ignore `model` (the adapters' `forEncoding` / `forModel`
 * counters do) or use it to pick a vocabulary (the adapters' `countTokens` does).
 */
export type TokenCounter = (text: string, model?: string) => number;

/**
 * A token count for when no tokenizer is at hand, from the text's characters alone: words split
 * where a byte-pair vocabulary splits them (case changes, digits in threes, long words),
 * punctuation, line breaks, and per character for Chinese, Japanese, Korean and other scripts
 * (the rules: tokens/estimate.ts).
 *
 * **Approximate, and on the high side.** On prose, code, JSON, logs, CSV, SQL, YAML, ids,
 * base64, HTML, Chinese, Russian and German it gives 0.93–1.21 times the larger of OpenAI's
 * o200k_base and cl100k_base counts (pkg/test/estimate.test.mjs), where one characters-per-token ratio is off by up to four times (JSON and
 * logs take about 2.5 characters a token, Chinese about 1, English prose 4.4). Other providers'
 * vocabularies differ; use a real tokenizer (`ctxpack/tokenizers/*`), or a
 * `budgets.safety_margin_percent`, when the budget is tight. One pass over the text; `model` is
 * ignored.
 *
 * @example
 * ```js
 * import { estimateTokens } from 'ctxpack';
 * estimateTokens('Hello, world'); // 3
 * estimateTokens('{"id":"usr_8f3a","score":98.25}'); // 18 (o200k_base: 16)
 * ```
 *
 * @returns An integer ≥ 0; 0 for the empty string, at least 1 for any other.
 * @throws {CtxpackError} `INVALID_INPUT` when `text` is not a string.
 */
export function estimateTokens(text: string, model?: string): number {
  void model;
  if (typeof text !== 'string') {
    throw new CtxpackError('INVALID_INPUT', `text must be a string, got ${describeValue(text)}`, { field: 'text' });
  }
  return estimatePieces(text);
}

/**
 * A fixed-ratio estimator: `ceil(text.length / charsPerToken)`, in UTF-16 code units, for text
 * of one known kind where a ratio measured on it beats {@link estimateTokens}' rules (for
 * example `createEstimator(1)` for Chinese under cl100k_base).
 *
 * @param charsPerToken A finite number > 0.
 * @throws {CtxpackError} `INVALID_OPTION` (`field: 'charsPerToken'`) for anything else.
 */
export function createEstimator(charsPerToken: number): TokenCounter {
  if (typeof charsPerToken !== 'number' || !Number.isFinite(charsPerToken) || charsPerToken <= 0) {
    throw new CtxpackError('INVALID_OPTION', `charsPerToken must be a finite number greater than 0, got ${describeValue(charsPerToken)}`, {
      field: 'charsPerToken',
    });
  }
  return (text: string): number => {
    if (typeof text !== 'string') {
      throw new CtxpackError('INVALID_INPUT', `text must be a string, got ${describeValue(text)}`, { field: 'text' });
    }
    return Math.ceil(text.length / charsPerToken);
  };
}

/**
 * One `selectFragments` call's counts: given `cost_tokens`, else `content` counted on first use
 * (never twice, never sent anywhere but to the counter). Not part of the public API.
 * @internal
 */
export class CallCounts {
  /** How many contents were counted (calls of the counter) in this call. */
  counted = 0;
  /** Candidates whose content is still to be counted. */
  private remaining = 0;

  /**
   * @param costs Per candidate: its `cost_tokens`, or 0 while its content is to be counted. Taken
   *   over: counts are written into it as they are made (see {@link CallCounts.costs}).
   * @param contents Per candidate: the content to count when it has no `cost_tokens`, else
   *   `undefined`; or `undefined` when every candidate has `cost_tokens`. Taken over too.
   */
  constructor(
    /** Per candidate: its count when known (given, or counted already), else 0. */
    readonly costs: Uint32Array,
    private readonly contents: (string | undefined)[] | undefined,
    private readonly counter: TokenCounter | undefined,
    private readonly model: string | undefined,
  ) {
    if (contents !== undefined) for (const text of contents) if (text !== undefined) this.remaining++;
  }

  /** The count of candidate `index` if it is known without counting. */
  known(index: number): number | undefined {
    return this.contents !== undefined && this.contents[index] !== undefined ? undefined : this.costs[index];
  }

  /** Whether some candidate's content has to be counted. */
  get needsCounting(): boolean {
    return this.remaining > 0;
  }

  /**
   * The count of candidate `index`: given, cached, or counted now.
   * @throws {CtxpackError} `TOKEN_COUNT_FAILED` when the counter throws or answers anything but an
   *   integer from 0 to 4294967295; `INTERNAL` if there is no counter (validation prevents it).
   */
  get(index: number): number {
    const text = this.contents === undefined ? undefined : this.contents[index];
    if (text === undefined) return this.costs[index]!;
    const n = this.count(text, 'content', index);
    this.remaining--;
    this.costs[index] = n;
    this.contents![index] = undefined;
    return n;
  }

  /**
   * The count of `text`, candidate `index`'s `field` (`'content'`, `'variants[2].content'`), with
   * the counter's checks.
   * @throws {CtxpackError} As {@link CallCounts.get}, naming `field`.
   */
  count(text: string, field: string, index: number): number {
    if (this.counter === undefined) {
      throw new CtxpackError('INTERNAL', `candidates[${index}].${field} has neither a count nor a counter`);
    }
    let answer: unknown;
    try {
      answer = this.model === undefined ? this.counter(text) : this.counter(text, this.model);
    } catch (err) {
      throw counterThrew(err, index, field);
    }
    const n = checkedCount(answer, index, field);
    this.counted++;
    return n;
  }
}

/**
 * `TOKEN_COUNT_FAILED` for a counter that threw (or whose Promise rejected) on candidate `index`;
 * the thrown value is the cause. Shared by every counting path.
 * @internal
 */
export function counterThrew(err: unknown, index: number, field = 'content'): CtxpackError {
  return new CtxpackError(
    'TOKEN_COUNT_FAILED',
    `options.countTokens threw ${describeThrown(err)} for candidates[${index}].${field}; it is this error's cause`,
    { field, index, cause: err },
  );
}

/**
 * What a counter answered for candidate `index`, checked: an integer from 0 to 4294967295, else
 * `TOKEN_COUNT_FAILED` (a Promise says to use an async entry point).
 * @internal
 */
export function checkedCount(n: unknown, index: number, field = 'content'): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_COST_TOKENS) {
    const promise = refusedThenable(n);
    throw new CtxpackError(
      'TOKEN_COUNT_FAILED',
      `options.countTokens must return an integer from 0 to 4294967295 for candidates[${index}].${field}, got ${promise ? 'a Promise (counters are synchronous here: fitMessagesAsync and session.fitAsync take async ones)' : describeValue(n)}`,
      { field, index },
    );
  }
  return n;
}

/** Names what a counter threw without repeating its message, which may quote the text. @internal */
export function describeThrown(err: unknown): string {
  if (!(err instanceof Error)) return describeValue(err);
  return `${/^[aeiou]/i.test(err.name) ? 'an' : 'a'} ${err.name}`;
}
