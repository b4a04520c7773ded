/**
 * `ctxpack/tokenizers/js-tiktoken`: token counters backed by
 * [js-tiktoken](https://www.npmjs.com/package/js-tiktoken), the pure-JavaScript port of OpenAI's
 * tiktoken, for `selectFragments`'s `options.countTokens`.
 *
 * js-tiktoken is an optional peer dependency: install it yourself (`npm install js-tiktoken`);
 * ctxpack never bundles it. Its full build carries every vocabulary (about 5 MB of JavaScript);
 * each vocabulary is parsed on first use (a few hundred milliseconds) and then kept for the life
 * of the module.
 *
 * Counts are exactly `encoding.encode(text, [], []).length`: special-token strings such as
 * `<|endoftext|>` in the text are counted as the plain text they are (which is how a chat API
 * tokenizes user content) instead of making tiktoken throw.
 *
 * ```js
 * import { selectFragments } from 'ctxpack';
 * import { countTokens, forModel } from 'ctxpack/tokenizers/js-tiktoken';
 *
 * selectFragments(chunks, gaze, { tokens_max: 128_000 }, { countTokens, model: 'gpt-4o' });
 * selectFragments(chunks, gaze, { tokens_max: 128_000 }, { countTokens: forModel('gpt-4o') });
 * ```
 *
 * @module
 */

import { getEncoding, getEncodingNameForModel, type Tiktoken, type TiktokenEncoding, type TiktokenModel } from 'js-tiktoken';
import { CtxpackError } from '../errors.js';
import { shown } from './shown.js';
import type { TokenCounter } from '../tokens/counter.js';

/** The encoding `countTokens` uses when it is given no model: `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5). */
export const DEFAULT_ENCODING: TiktokenEncoding = 'o200k_base';

const encoders = new Map<string, Tiktoken>();

function encoder(name: string, option: string): Tiktoken {
  let enc = encoders.get(name);
  if (enc === undefined) {
    try {
      enc = getEncoding(name as TiktokenEncoding);
    } catch (err) {
      throw new CtxpackError('INVALID_OPTION', `${option} is not an encoding js-tiktoken knows, got ${shown(name)}`, {
        field: option,
        cause: err,
      });
    }
    encoders.set(name, enc);
  }
  return enc;
}

function encodingOf(model: string, option: string): string {
  if (typeof model !== 'string') throw new CtxpackError('INVALID_OPTION', `${option} must be a string, got ${shown(model)}`, { field: option });
  try {
    return getEncodingNameForModel(model as TiktokenModel);
  } catch (err) {
    throw new CtxpackError('INVALID_OPTION', `${option} is not a model js-tiktoken knows, got ${shown(model)}; use forEncoding() for other models`, {
      field: option,
      cause: err,
    });
  }
}

function counter(enc: Tiktoken): TokenCounter {
  return (text: string): number => enc.encode(text, [], []).length;
}

/**
 * A counter for one encoding, e.g. `forEncoding('cl100k_base')`. It ignores the `model` argument.
 * @throws {CtxpackError} `INVALID_OPTION` (`field: 'encoding'`) for a name js-tiktoken does not know.
 */
export function forEncoding(encoding: TiktokenEncoding): TokenCounter {
  if (typeof encoding !== 'string') {
    throw new CtxpackError('INVALID_OPTION', `encoding must be a string, got ${shown(encoding)}`, { field: 'encoding' });
  }
  return counter(encoder(encoding, 'encoding'));
}

/**
 * A counter for one model's encoding, e.g. `forModel('gpt-4o')`: the encoding js-tiktoken's
 * `encodingForModel` would pick (one parsed vocabulary serves every model that uses it). It
 * ignores the `model` argument.
 * @throws {CtxpackError} `INVALID_OPTION` (`field: 'model'`) for a model js-tiktoken does not know.
 */
export function forModel(model: TiktokenModel): TokenCounter {
  return counter(encoder(encodingOf(model, 'model'), 'model'));
}

/**
 * A ready `options.countTokens`: counts with the encoding of the `model` it is called with
 * (`options.model`), or with {@link DEFAULT_ENCODING} when there is none.
 * @throws {CtxpackError} `INVALID_OPTION` (`field: 'model'`) for a model js-tiktoken does not know;
 *   `selectFragments` reports it as `TOKEN_COUNT_FAILED` with this error as its cause.
 */
export function countTokens(text: string, model?: string): number {
  const enc = encoder(model === undefined ? DEFAULT_ENCODING : encodingOf(model, 'model'), 'model');
  return enc.encode(text, [], []).length;
}
