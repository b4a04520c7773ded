/**
 * Per-message framing: the tokens a provider adds around each message (its role, its name, the
 * separators) and once per request (the reply's priming), counted by default so that callers no
 * longer guess `per_fragment_overhead`. The one table of it is {@link FRAMING}; docs/messages.md
 * ("Counting") cites its sources. count.ts applies it, so fitMessages and sessions charge the
 * same figures.
 *
 * @internal
 * @module
 */

import type { MediaProvider } from '../core/media-bridge.js';
import type { Turn } from './turns.js';

/** The tokens a provider frames messages with, besides the role's and the name's own tokens. */
export interface FramingRule {
  /** Per message, besides its role's tokens (counted with the caller's counter). */
  readonly message: number;
  /** Per message with a `name`, besides the name's tokens. */
  readonly name: number;
  /** Once per request: the reply's priming (`<|start|>assistant<|message|>`). */
  readonly reply: number;
  /** Whether the provider documents these figures, or they are an approximation. */
  readonly documented: boolean;
}

/**
 * Per provider. OpenAI: the cookbook's `num_tokens_from_messages` ("How to count tokens with
 * tiktoken"): 3 tokens per message, the role's and the content's tokens, 1 more for a name (and
 * its tokens), 3 for the reply. Anthropic and Gemini document no framing: OpenAI's figures, an
 * approximation (docs/messages.md says so).
 */
export const FRAMING: Readonly<Record<MediaProvider, FramingRule>> = {
  openai: { message: 3, name: 1, reply: 3, documented: true },
  anthropic: { message: 3, name: 1, reply: 3, documented: false },
  gemini: { message: 3, name: 1, reply: 3, documented: false },
};

/** The role text a message's framing counts: as the API reads it (OpenAI's `developer`), else the neutral role. */
export function roleText(turn: Turn): string {
  return turn.sentRole ?? turn.role;
}

/** The texts framing counts (each role and name once), with per message the index of its role's and its name's (-1 without). */
export interface FramingTexts {
  readonly texts: readonly string[];
  readonly role: Int32Array;
  readonly name: Int32Array;
  /** The index of `'system'`, the role `options.system` is framed as (-1 without `options.system`). */
  readonly system: number;
}

/** The distinct role and name texts of `turns` (and `'system'` when the request has `options.system`). */
export function framingTexts(turns: readonly Turn[], hasSystem: boolean): FramingTexts {
  const index = new Map<string, number>();
  const texts: string[] = [];
  const at = (t: string): number => {
    let k = index.get(t);
    if (k === undefined) {
      k = texts.push(t) - 1;
      index.set(t, k);
    }
    return k;
  };
  const role = new Int32Array(turns.length);
  const name = new Int32Array(turns.length).fill(-1);
  turns.forEach((t, i) => {
    role[i] = at(roleText(t));
    if (t.name !== undefined) name[i] = at(t.name);
  });
  return { texts, role, name, system: hasSystem ? at('system') : -1 };
}

/**
 * What framing charges, from the counts of {@link FramingTexts.texts} (`counts`): per message
 * (`messages`), and once per request (`request`: the reply's priming and `options.system`'s own
 * framing as a system message). All 0 without a rule (`framing: false`).
 */
export function framingCosts(rule: FramingRule | undefined, f: FramingTexts, counts: ArrayLike<number>): { messages: Uint32Array; request: number } {
  const n = f.role.length;
  const messages = new Uint32Array(n);
  if (rule === undefined) return { messages, request: 0 };
  for (let i = 0; i < n; i++) {
    const name = f.name[i]!;
    messages[i] = rule.message + counts[f.role[i]!]! + (name >= 0 ? rule.name + counts[name]! : 0);
  }
  const request = rule.reply + (f.system >= 0 ? rule.message + counts[f.system]! : 0);
  return { messages, request };
}
