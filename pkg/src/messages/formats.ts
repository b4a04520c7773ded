/**
 * The format adapters by name.
 *
 * @internal
 * @module
 */

import { CtxpackError, describeValue, didYouMean } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import { aiSdk, aiSdkWith } from './ai-sdk.js';
import { anthropic } from './anthropic.js';
import { langchain } from './langchain.js';
import { openai } from './openai.js';
import { openaiResponses } from './responses.js';
import type { FormatAdapter, MessageFormatName } from './turns.js';

const ADAPTERS: Readonly<Record<MessageFormatName, FormatAdapter>> = { openai, 'openai-responses': openaiResponses, anthropic, 'ai-sdk': aiSdk, langchain };

/** The formats, in documentation order. */
export const MESSAGE_FORMATS: readonly MessageFormatName[] = Object.freeze(Object.keys(ADAPTERS) as MessageFormatName[]);

/**
 * The adapter of `format`: a name, or `{ name: 'ai-sdk', allowSystemInMessages }` (a format with
 * options); anything else is `INVALID_OPTION` with `field: 'format'`.
 */
export function adapterOf(format: unknown): FormatAdapter {
  if (typeof format === 'string' && Object.hasOwn(ADAPTERS, format)) return ADAPTERS[format as MessageFormatName];
  if (isRecord(format) && format['name'] === 'ai-sdk') return aiSdkWith(format);
  throw new CtxpackError('INVALID_OPTION', `options.format must be one of ${MESSAGE_FORMATS.join(', ')}, got ${describeValue(format)}${typeof format === 'string' ? didYouMean(format, MESSAGE_FORMATS) : ''}`, {
    field: 'format',
  });
}
