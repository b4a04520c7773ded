/**
 * `ctxpack/ai-sdk`: a session in the Vercel AI SDK (ai@7) in one line, as `prepareStep` or as
 * middleware for `wrapLanguageModel`. Both fit through `createSession` (format `'ai-sdk'`), so
 * selection, validity and the cut are the session's; this file only finds the run or the
 * conversation. Picking the cache profile from the model and writing the session's breakpoints
 * as `providerOptions.anthropic.cacheControl` are prompts.ts's, shared with `ctxpack/mastra`.
 * The SDK is never imported at run time: its types only (docs/ai-sdk.md).
 *
 * @module
 */

import type { LanguageModel, LanguageModelMiddleware, ModelMessage, ToolSet } from 'ai';
import { readingInput } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { PromptConversation, promptKey, promptOptions, type PromptOptions } from './prompts.js';
import { Conversations, readAdapterOptions } from './sessions.js';

/** Options of `ctxpackPrepareStep` and `ctxpackLanguageModelMiddleware`: a session's, less what the SDK's call gives. */
export type AiSdkOptions = PromptOptions;

/** What `prepareStep` receives that the helper reads (the SDK passes more). */
export interface PrepareStepInput {
  steps: readonly unknown[];
  messages: ModelMessage[];
  instructions?: unknown;
  model?: LanguageModel;
}

const OPTIONS = promptOptions('ctxpack/ai-sdk', "the SDK's call");
const STEP_OPTIONS = promptOptions('ctxpack/ai-sdk', "the SDK's call", true);

/**
 * A `prepareStep` for generateText, streamText or ToolLoopAgent that fits each step's messages
 * to the budget through a session, one per agent run (the SDK's `steps` array names the run), so
 * that each step appends to the last request and the provider's prompt cache holds:
 *
 * ```ts
 * const result = await generateText({ model, tools, instructions, messages, stopWhen,
 *   prepareStep: ctxpackPrepareStep({ budgets: { tokens_max: 22_000 }, tools }) });
 * ```
 *
 * The SDK does not pass `prepareStep` the tools: give them as `tools` to have them counted.
 *
 * The SDK carries the messages a step returns into the next step; the helper keeps the whole
 * history itself, so a message left out at one step may come back at a later one. Bad options
 * are a `CtxpackError` (`INVALID_OPTION`, `INVALID_BUDGET`) here, or at the first step for those
 * only a fit reads.
 */
export function ctxpackPrepareStep(options: AiSdkOptions & { /** The call's tools, which the SDK does not pass prepareStep: their names, descriptions and JSON schemas are counted. */ tools?: ToolSet }): (step: PrepareStepInput) => Promise<{ messages: ModelMessage[] }> {
  const o = readAdapterOptions(options, STEP_OPTIONS);
  const runs = new WeakMap<object, { conversation: PromptConversation; history: ModelMessage[]; sent: ModelMessage[] }>();
  const alone = {}; // the run of a caller that passes no `steps` array
  return async (step) => {
    const run = readingInput(() => {
      if (!isRecord(step) || !Array.isArray(step.messages)) throw invalidOption('step.messages', "an array (prepareStep's argument from the AI SDK)", isRecord(step) ? step.messages : step);
      const messages = step.messages;
      const key = Array.isArray(step.steps) ? step.steps : alone;
      let r = runs.get(key);
      if (r === undefined) {
        r = { conversation: new PromptConversation(o, step.model), history: messages.slice(), sent: [] };
        runs.set(key, r);
      } else {
        // What the SDK passes is what the last step returned, then the step's new messages.
        const sent = r.sent;
        const appended = messages.length >= sent.length && sent.every((m, i) => messages[i] === m);
        r.history = appended ? [...r.history, ...messages.slice(sent.length)] : messages.slice();
      }
      return r;
    }, step);
    run.sent = await run.conversation.fit(run.history, step.instructions, o.tools);
    return { messages: run.sent };
  };
}

/**
 * Middleware for `wrapLanguageModel` that fits the prompt of every call (generateText,
 * streamText, ToolLoopAgent; each step of a tool loop is a call) to the budget. The prompt is the
 * SDK's provider-level prompt (the instructions as leading system messages, then the messages),
 * which ctxpack reads as the `'ai-sdk'` format; the tools' JSON schemas are counted. Each
 * conversation (its leading system messages and first message) has its own session, so that
 * steps and later turns append to the last request.
 *
 * ```ts
 * const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: 200_000 } }) });
 * ```
 */
export function ctxpackLanguageModelMiddleware(options: AiSdkOptions): LanguageModelMiddleware {
  const o = readAdapterOptions(options, OPTIONS);
  const conversations = new Conversations<PromptConversation>(o.maxSessions);
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params, model }) => {
      const { prompt, conversation } = readingInput(() => {
        if (!isRecord(params) || !Array.isArray(params.prompt)) throw invalidOption('params.prompt', 'an array of messages (the language model prompt)', isRecord(params) ? params.prompt : params);
        return { prompt: params.prompt, conversation: conversations.get(promptKey(params.prompt), () => new PromptConversation(o, model)) };
      }, params);
      const fitted = await conversation.fit(prompt, undefined, params.tools);
      return { ...params, prompt: fitted };
    },
  };
}
