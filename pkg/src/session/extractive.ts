/**
 * `extractiveSummarizer`: a summariser with no model call (docs/sessions.md, "Summaries"). It
 * keeps, from the texts of the messages it is given, the lines that carry a number, a path, a name
 * in mixed capitals or a decision word, each once and in order, up to a length. Deterministic in
 * every runtime, synchronous (a session has its summary at once, `replaySession` included), and
 * the same for every strategy: the command line (`ctxpack replay --summarize extractive`), the
 * preview page, the tests and the evaluation use it where a model would summarise.
 *
 * @module
 */

import { CtxpackError, describeValue, readingInput } from '../errors.js';
import { estimateTokens } from '../tokens/counter.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption, optionsRecord, rejectUnknownOptions } from '../validate/options.js';
import type { SummarizeRequest } from './types.js';

/** `extractiveSummarizer(options)`. */
export interface ExtractiveSummarizerOptions {
  /**
   * The summary's length at most, in tokens as `estimateTokens` counts them (each line's, and one
   * per line break). Default: the length the session asks for (`request.maxTokens`), else 500.
   */
  maxTokens?: number;
}

/** A summariser that answers at once with the summary's text (a `Summarizer` for `createSession({ summarize })`). */
export type ExtractiveSummarizer = (request: Pick<SummarizeRequest<unknown>, 'messages'> & Partial<SummarizeRequest<unknown>>) => string;

/** The length when neither the options nor the request say one. */
const DEFAULT_MAX_TOKENS = 500;
/** What a summary with nothing to keep says (the session refuses empty text). */
const NOTHING = 'Nothing to keep.';
/** A line worth keeping: a digit, a path or a decision word (any case)… */
const KEEP = /\d|[\w.-]+\/[\w./-]+|\b(decided|decision|because|error|failed|fixed|todo|open question|must|should)\b/i;
/** …or a name in mixed capitals (CamelCase), case-sensitive: under `i` it would be any word of three letters. */
const CAMEL = /\b[A-Z][a-z]+[A-Z]\w*/;
/** The fields of a message (any format, LangChain's serialised `kwargs` included) whose strings are read, after `content` (`value`: the AI SDK's tool output). */
const TEXT_KEYS = ['text', 'output', 'value', 'arguments', 'input', 'args', 'result', 'tool_calls', 'function'];
/** Nesting read at most: a message is never deeper. */
const MAX_DEPTH = 8;
const OPTION_KEYS = ['maxTokens'];

/** The fields that hold a tool call's arguments: every string in them is read, whatever its key. */
const ARGUMENT_KEYS = new Set(['arguments', 'input', 'args']);

/** Every string in `value` (a message of any format), in order; `all`: every string of an object, not only its text fields. */
function strings(value: unknown, out: string[], depth: number, all = false): string[] {
  if (depth > MAX_DEPTH || value === null || value === undefined) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out, depth + 1, all);
  else if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (all) {
      for (const v of Object.values(o)) strings(v, out, depth + 1, true);
      return out;
    }
    const content = o['content'] ?? (isRecord(o['kwargs']) ? o['kwargs']['content'] : undefined);
    if (content !== undefined) strings(content, out, depth + 1);
    for (const key of TEXT_KEYS) if (key in o) strings(o[key], out, depth + 1, ARGUMENT_KEYS.has(key));
  }
  return out;
}

/** The extractive summary of `messages`: the kept lines, one a line, at most `maxTokens` tokens. */
function summarise(messages: readonly unknown[], maxTokens: number): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  let tokens = 0;
  for (const text of strings(messages, [], -1)) {
    for (const line of text.split(/\n|(?<=[.!?])\s+/)) {
      const l = line.trim();
      if (l === '' || seen.has(l) || !(KEEP.test(l) || CAMEL.test(l))) continue;
      const more = estimateTokens(l) + (kept.length > 0 ? 1 : 0); // the line, and its line break
      if (tokens + more > maxTokens) return kept.join('\n') || NOTHING;
      seen.add(l);
      kept.push(l);
      tokens += more;
    }
  }
  return kept.join('\n') || NOTHING;
}

/**
 * A summariser with no model call, for `createSession({ summarize })`, the adapters' `summarize`,
 * `replaySession` and `ctxpack replay --summarize extractive`: from every string of the messages
 * (their content, tool calls' arguments and tool results), the sentences and lines that carry a
 * number, a file path, a CamelCase name or a decision word (decided, because, error, failed,
 * fixed, todo, must, should, open question), each once, in order, until the next one would pass
 * `maxTokens` tokens (`estimateTokens` of each line, and one per line break). Nothing kept:
 * `'Nothing to keep.'`. It answers synchronously, so a session has its summary as soon as it asks.
 *
 * It ignores `request.instruction`: it is a stand-in for a model, cheaper and worse, that keeps
 * the facts a model is told to keep and none of the sense that joins them.
 *
 * @param options `maxTokens` (a positive integer): the summary's length at most; by default the
 *   one the session asks for.
 * @throws {CtxpackError} `INVALID_OPTION` for options that are not an object, an unknown key
 *   (with its near miss) or a `maxTokens` that is not a positive integer; the summariser throws
 *   `INVALID_INPUT` when `request.messages` is not an array or cannot be read (a getter or a
 *   Proxy trap that throws).
 *
 * @example
 * ```js
 * import { createSession, extractiveSummarizer } from 'ctxpack';
 *
 * const session = createSession({ format: 'openai', budgets: { tokens_max: 8_000 }, cache: 'openai', summarize: extractiveSummarizer() });
 * ```
 */
export function extractiveSummarizer(options?: ExtractiveSummarizerOptions): ExtractiveSummarizer {
  const o = optionsRecord(options);
  rejectUnknownOptions(o, OPTION_KEYS, 'extractiveSummarizer');
  const max = o['maxTokens'];
  if (max !== undefined && (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1)) throw invalidOption('maxTokens', 'a positive integer', max);
  // A getter or Proxy trap that throws in the request: INVALID_INPUT (readingInput), never a raw throw.
  return (request) =>
    readingInput(() => {
      const messages = isRecord(request) ? request.messages : undefined;
      if (!Array.isArray(messages)) throw new CtxpackError('INVALID_INPUT', `request.messages must be an array, got ${describeValue(messages)}`, { field: 'messages' });
      const asked = request.maxTokens;
      const tokens = (max as number | undefined) ?? (typeof asked === 'number' && Number.isFinite(asked) && asked >= 1 ? Math.floor(asked) : DEFAULT_MAX_TOKENS);
      return summarise(messages, tokens);
    }, request);
}
