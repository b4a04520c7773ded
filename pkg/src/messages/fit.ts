/**
 * `fitMessages`: a chat history in, the messages of a valid request under the budget out. The
 * stages it runs are in pipeline.ts and choose.ts.
 *
 * @module
 */

import { readingInput } from '../errors.js';
import { callCache } from '../tokens/shared.js';
import { invalidOption, readCount } from '../validate/options.js';
import type { Unchecked } from '../validate/fields.js';
import { countFit, prefillFit } from './count.js';
import { competing, fitQuery, prepareFit, scoreFit, type PreparedFit } from './pipeline.js';
import { chooseFit } from './choose.js';
import { embedNeedsAsync, embedRelevance } from './caller.js';
import { CountCache } from '../tokens/cache.js';
import type { FitMessagesAsyncOptions, FitMessagesOptions, FitMessagesResult } from './types.js';

/**
 * Fits a chat history to a token budget and returns the messages of a request its provider accepts.
 *
 * 1. **Validate**: `messages` (`INVALID_INPUT`), each message as its format reads it
 *    (`INVALID_FIELD` naming `messages[i].<field>`), the options (`INVALID_OPTION`, budgets
 *    `INVALID_BUDGET`).
 * 2. **Structure**: an assistant message with tool calls and every message carrying their results
 *    form one atomic unit. Messages that break a rule of the format (`validateMessages`: an orphaned
 *    call or result, a duplicate call id, empty content, Anthropic's tool results not first) are left out (`invalid_structure`); if one of them must be kept, the call fails
 *    with `INVALID_MESSAGES`.
 * 3. **Pin**: system messages (and Anthropic's `options.system`), the latest user message, the
 *    last message (the step in flight), and `options.keep`, each with its whole unit. If they
 *    alone exceed the effective budget: `PINNED_OVER_BUDGET`, saying by how many tokens.
 * 4. **Score** the other messages by relevance to `options.query` (default: the latest user
 *    message's text): see relevance.ts and docs/messages.md.
 * 5. **Select** with `options.slicer` (default `'ranked'`: by value, highest first, each unit that still fits what
 *    the pins leave), units whole, in one call of the core. Anthropic: the request starts with a
 *    user message, a constraint of the selection (units that would open it otherwise are left out,
 *    `first_not_user`), not a retry.
 */
export function fitMessages<M>(messages: readonly M[], options: FitMessagesOptions<M>): FitMessagesResult<M> {
  return readingInput(() => {
    const prep = prepareFit(messages, options);
    if (prep.caller.embed !== undefined) throw embedNeedsAsync('fitMessages', 'fitMessagesAsync', prep.caller.embed);
    return chooseFit(scoreFit(countFit(prep, callCache(prep.options['countCache'], prep.counter, prep.model))));
  }, messages, options);
}

/** Default of `concurrency`: counts in flight at once with an async counter. */
export const DEFAULT_CONCURRENCY = 8;

/**
 * {@link fitMessages} with a counter that may return a Promise (a provider's count-tokens
 * endpoint, LangChain's `getNumTokens`): each distinct text is counted once, at most
 * `options.concurrency` (default 8) at a time, then the same selection runs. A rejection is
 * `TOKEN_COUNT_FAILED` naming the message, with the rejection as its `cause`.
 */
export async function fitMessagesAsync<M>(messages: readonly M[], options: FitMessagesAsyncOptions<M>): Promise<FitMessagesResult<M>> {
  const prep = readingInput(() => prepareFit(messages, options, ['concurrency']), messages, options);
  const cache = readingInput(() => callCache(prep.options['countCache'], prep.counter, prep.model), prep.list, prep.options);
  await prefillFit(prep, cache, readConcurrency(prep.options));
  const embedded = await embedFit(prep, prep.caller.embedCache === undefined ? new CountCache<Float32Array>(0) : undefined);
  return readingInput(() => chooseFit(scoreFit(countFit(prep, cache), undefined, embedded)), prep.list, prep.options);
}

/**
 * The caller's relevance from `options.embed` (caller.ts), through `cache` (a session's) or else
 * `options.embedCache` (or a cache of this call alone); `undefined` without `embed`. @internal
 */
export async function embedFit(prep: PreparedFit<unknown>, cache: CountCache<Float32Array> | undefined): Promise<Float64Array | undefined> {
  const { embed, embedCache } = prep.caller;
  if (embed === undefined) return undefined;
  const through = cache ?? new CountCache<Float32Array>(0, undefined, embedCache!.of(embed, undefined));
  return embedRelevance(prep.texts.messages, fitQuery(prep), competing(prep), embed, through, prep.warnings);
}

/** `options.concurrency`: an integer ≥ 1. */
export function readConcurrency(o: Unchecked): number {
  const c = readCount(o, 'concurrency', DEFAULT_CONCURRENCY);
  if (c < 1) throw invalidOption('concurrency', 'an integer of at least 1', c);
  return c;
}
