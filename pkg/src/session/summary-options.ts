/**
 * The options of a session's summaries (`summarize`, `summary`), read once with their defaults;
 * what the summariser is asked by default; its default prices.
 *
 * @internal
 * @module
 */

import { isRecord } from '../validate/fields.js';
import { invalidOption, unknownOption } from '../validate/options.js';
import type { Pricing } from './pricing.js';
import type { Summarizer } from './types.js';

/** What the summariser is asked by default (`summary.instruction` replaces it). */
export const DEFAULT_SUMMARY_INSTRUCTION =
  'Summarise the conversation below for the assistant that continues it: it will no longer see these messages. ' +
  'Keep every fact it may need: numbers, names, identifiers, file paths, commands and their results, decisions taken and why, errors met, ' +
  'and the questions still open. Drop greetings, chit-chat and repetition. Write plain prose or short bullet points, no preamble.';

/** The options of the summaries, read. */
export interface Read {
  readonly summarize: Summarizer;
  readonly instruction: string;
  readonly maxTokens: number | undefined;
  readonly wait: boolean;
  readonly timeoutMs: number;
  readonly inputCost: number;
  readonly outputCost: number;
  readonly toMessage: ((text: string) => unknown) | undefined;
}

/**
 * The summariser's prices per token in units of the session's uncached input token, when the
 * caller gives none: the same model as the agent's (input 1), its output at the provider's usual
 * ratio (Anthropic's models: output 5× input; OpenAI's: 4×, gpt-4o and gpt-4.1; without a cache: 4).
 */
export function defaultSummaryPrices(p: Pricing): { inputCost: number; outputCost: number } {
  return { inputCost: 1, outputCost: p.maxBreakpoints > 0 || p.readCost === 0.1 ? 5 : 4 };
}

const SUMMARY_KEYS = ['instruction', 'maxTokens', 'wait', 'timeoutMs', 'inputCost', 'outputCost', 'toMessage'];

export function readOptions(summarize: unknown, value: unknown, p: Pricing): Read {
  if (typeof summarize !== 'function') throw invalidOption('summarize', 'a function (the messages to summarise) => text or a message, or a Promise of one', summarize);
  if (value !== undefined && !isRecord(value)) throw invalidOption('summary', 'an object', value);
  const o = (value ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!SUMMARY_KEYS.includes(key)) throw unknownOption('summary.', key, 'a summary option', SUMMARY_KEYS);
  }
  const num = (key: string, integer: boolean): number | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isSafeInteger(v))) throw invalidOption(`summary.${key}`, integer ? 'a non-negative integer' : 'a finite non-negative number', v);
    return v;
  };
  const instruction = o['instruction'];
  if (instruction !== undefined && typeof instruction !== 'string') throw invalidOption('summary.instruction', 'a string', instruction);
  const wait = o['wait'];
  if (wait !== undefined && typeof wait !== 'boolean') throw invalidOption('summary.wait', 'a boolean', wait);
  const toMessage = o['toMessage'];
  if (toMessage !== undefined && typeof toMessage !== 'function') throw invalidOption('summary.toMessage', 'a function (text) => message', toMessage);
  const prices = defaultSummaryPrices(p);
  return {
    summarize: summarize as Summarizer,
    instruction: instruction ?? DEFAULT_SUMMARY_INSTRUCTION,
    maxTokens: num('maxTokens', true),
    wait: wait ?? false,
    timeoutMs: num('timeoutMs', true) ?? 120_000,
    inputCost: num('inputCost', false) ?? prices.inputCost,
    outputCost: num('outputCost', false) ?? prices.outputCost,
    toMessage: toMessage as Read['toMessage'],
  };
}
