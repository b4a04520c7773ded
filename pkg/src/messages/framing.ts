/**
 * Per-message framing: the tokens a provider adds around each message (its role, its name, the
 * separators) and once per request (the reply's priming), counted by default so that callers no
 * longer guess `per_fragment_overhead`. The one table of it is {@link FRAMING}; docs/messages.md
 * ("Framing") cites its sources. count.ts applies it, so fitMessages and sessions charge the same
 * figures.
 *
 * @internal
 * @module
 */

import type { MediaProvider } from '../core/media-bridge.js';
import type { Turn } from './turns.js';

/** The tokens a provider frames messages with, besides a name's own tokens. */
export interface FramingRule {
  /** Per message, with its role. */
  readonly message: number;
  /** Per message with a `name`, besides the name's tokens (counted with the caller's counter). */
  readonly name: number;
  /** Once per request: the reply's priming (`<|start|>assistant<|message|>`). */
  readonly reply: number;
  /** Whether the provider documents these figures, or they are an approximation. */
  readonly documented: boolean;
}

/**
 * Per provider. OpenAI: the cookbook's `num_tokens_from_messages` ("How to count tokens with
 * tiktoken"): 3 tokens per message plus the tokens of its role, its content and its name, 1 more
 * for a name, 3 for the reply. Every role (system, developer, user, assistant, tool) is 1 token
 * in OpenAI's chat encodings (cl100k_base, o200k_base), so a message's framing is 4. Anthropic and
 * Gemini document no framing: OpenAI's figures, an approximation (docs/messages.md says so).
 */
export const FRAMING: Readonly<Record<MediaProvider, FramingRule>> = {
  openai: { message: 4, name: 1, reply: 3, documented: true },
  anthropic: { message: 4, name: 1, reply: 3, documented: false },
  gemini: { message: 4, name: 1, reply: 3, documented: false },
};

/** The names framing counts (each once), with per message the index of its name's (-1 without). */
export interface FramingTexts {
  readonly texts: readonly string[];
  readonly name: Int32Array;
}

/** The distinct names of `turns`. */
export function framingTexts(turns: readonly Turn[]): FramingTexts {
  const index = new Map<string, number>();
  const texts: string[] = [];
  const name = new Int32Array(turns.length).fill(-1);
  turns.forEach((t, i) => {
    if (t.name === undefined) return;
    let k = index.get(t.name);
    if (k === undefined) {
      k = texts.push(t.name) - 1;
      index.set(t.name, k);
    }
    name[i] = k;
  });
  return { texts, name };
}

/**
 * What framing charges, from the counts of {@link FramingTexts.texts} (`counts`): per message
 * (`messages`), and once per request (`request`: the reply's priming, and `options.system`'s own
 * framing as a system message when the request has one, `system`: the part before the messages,
 * which a prompt cache can hold; the reply's priming comes after them). All 0 without a rule
 * (`framing: false`).
 */
export function framingCosts(
  rule: FramingRule | undefined,
  f: FramingTexts,
  counts: ArrayLike<number>,
  hasSystem: boolean,
): { messages: Uint32Array; request: number; system: number } {
  const n = f.name.length;
  const messages = new Uint32Array(n);
  if (rule === undefined) return { messages, request: 0, system: 0 };
  for (let i = 0; i < n; i++) {
    const name = f.name[i]!;
    messages[i] = rule.message + (name >= 0 ? rule.name + counts[name]! : 0);
  }
  const system = hasSystem ? rule.message : 0;
  return { messages, request: rule.reply + system, system };
}
