/**
 * `ctxpack/tokenizers/gpt-tokenizer`: token counters backed by
 * [gpt-tokenizer](https://www.npmjs.com/package/gpt-tokenizer), for `selectFragments`'s
 * `options.countTokens`.
 *
 * gpt-tokenizer is an optional peer dependency: install it yourself (`npm install gpt-tokenizer`);
 * ctxpack never bundles it. This module resolves encodings by name at run time, so it imports
 * gpt-tokenizer's `resolveEncoding`, which loads every vocabulary (about 5 MB of JavaScript); each
 * is prepared on first use and then kept for the life of the module. (If one encoding is all you
 * need and bundle size matters, `import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'`
 * and pass `(text) => countTokens(text, { disallowedSpecial: new Set() })` instead.)
 *
 * Counts are exactly `encoding.countTokens(text, { disallowedSpecial: new Set() })`: special-token
 * strings such as `<|endoftext|>` in the text are counted as the plain text they are (which is how a
 * chat API tokenizes user content) instead of making gpt-tokenizer throw.
 *
 * ```js
 * import { selectFragments } from 'ctxpack';
 * import { countTokens, forModel } from 'ctxpack/tokenizers/gpt-tokenizer';
 *
 * selectFragments(chunks, gaze, { tokens_max: 128_000 }, { countTokens, model: 'gpt-4o' });
 * selectFragments(chunks, gaze, { tokens_max: 128_000 }, { countTokens: forModel('gpt-4o') });
 * ```
 *
 * @module
 */

import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { DEFAULT_ENCODING as GPT_TOKENIZER_DEFAULT, modelToEncodingMap, type EncodingName, type ModelName } from 'gpt-tokenizer/mapping';
import { resolveEncoding } from 'gpt-tokenizer/resolveEncoding';
import { CtxpackError } from '../errors.js';
import type { TokenCounter } from '../tokens/counter.js';
import { shown } from './shown.js';

/**
 * The encoding for a model gpt-tokenizer does not map, and the one `countTokens` uses when it is
 * given no model: gpt-tokenizer's own default, `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5).
 */
export const DEFAULT_ENCODING: EncodingName = GPT_TOKENIZER_DEFAULT;

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const encodings = new Map<string, GptEncoding>();

function encoding(name: string, option: string): GptEncoding {
  let enc = encodings.get(name);
  if (enc === undefined) {
    if (typeof name !== 'string') throw new CtxpackError('INVALID_OPTION', `${option} must be a string, got ${shown(name)}`, { field: option });
    try {
      enc = GptEncoding.getEncodingApi(name as EncodingName, resolveEncoding);
    } catch (err) {
      throw new CtxpackError('INVALID_OPTION', `${option} is not an encoding gpt-tokenizer knows, got ${shown(name)}`, {
        field: option,
        cause: err,
      });
    }
    encodings.set(name, enc);
  }
  return enc;
}

/** gpt-tokenizer's rule (`GptEncoding.getEncodingApiForModel`): the mapped encoding, else the default. */
function encodingOf(model: string): string {
  if (typeof model !== 'string') throw new CtxpackError('INVALID_OPTION', `model must be a string, got ${shown(model)}`, { field: 'model' });
  return Object.prototype.hasOwnProperty.call(modelToEncodingMap, model) ? modelToEncodingMap[model as ModelName] : DEFAULT_ENCODING;
}

function counter(enc: GptEncoding): TokenCounter {
  return (text: string): number => enc.countTokens(text, NO_SPECIAL);
}

/**
 * A counter for one encoding, e.g. `forEncoding('cl100k_base')`. It ignores the `model` argument.
 * @throws {CtxpackError} `INVALID_OPTION` (`field: 'encoding'`) for a name gpt-tokenizer does not know.
 */
export function forEncoding(name: EncodingName): TokenCounter {
  return counter(encoding(name, 'encoding'));
}

/**
 * A counter for one model, e.g. `forModel('gpt-4o')`: the encoding gpt-tokenizer uses for that
 * model (its `modelToEncodingMap`, and {@link DEFAULT_ENCODING} for models it does not map, as
 * gpt-tokenizer itself does). Plain-text counts depend only on the encoding. It ignores the
 * `model` argument.
 */
export function forModel(model: ModelName): TokenCounter {
  return counter(encoding(encodingOf(model), 'model'));
}

/**
 * A ready `options.countTokens`: counts with the encoding of the `model` it is called with
 * (`options.model`, as {@link forModel}), or with {@link DEFAULT_ENCODING} when there is none.
 */
export function countTokens(text: string, model?: string): number {
  return encoding(model === undefined ? DEFAULT_ENCODING : encodingOf(model), 'model').countTokens(text, NO_SPECIAL);
}
