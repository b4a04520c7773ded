/**
 * `ctxpack/mastra`: a session in a Mastra agent (`@mastra/core` 1.x) in one line, as an input
 * processor. Its `processLLMRequest` runs before every model call of the agent's loop (each step
 * of a tool loop is a call), after Mastra has converted its message list to the AI SDK's
 * language model prompt; the fitted prompt goes to the model for that call only, so the message
 * list, memory and the UI keep every message. The prompt is fitted as `ctxpack/ai-sdk`'s
 * middleware fits it (prompts.ts); this file only finds the conversation and the step's tools.
 * Mastra is never imported at run time: its types only (docs/mastra.md).
 *
 * @module
 */

import type { InputProcessor, ProcessInputStepArgs, ProcessLLMRequestArgs, ProcessLLMRequestResult } from '@mastra/core/processors';
import { readingInput } from '../errors.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { ownMarker, PromptConversation, promptKey, promptOptions, type PromptOptions } from './prompts.js';
import { Conversations, readAdapterOptions } from './sessions.js';

/** Options of `ctxpackInputProcessor`: a session's, less what the agent's call gives. */
export type MastraOptions = PromptOptions;

const OPTIONS = promptOptions('ctxpack/mastra', "the agent's call");
/** Where the step's tools wait, in the processor's state of the request, for `processLLMRequest` (which is not given them). */
const TOOLS = 'ctxpack.tools';

/**
 * An input processor for a Mastra agent (`inputProcessors`) that fits the prompt of every model
 * call to the budget through a session per conversation, so that each step appends to the last
 * request and the provider's prompt cache holds:
 *
 * ```ts
 * const agent = new Agent({ id, name, instructions, model, tools,
 *   inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: 128_000 } })] });
 * ```
 *
 * The agent's instructions (the leading system messages) and the task are always kept, a tool
 * call never goes without its result, and the tools (name, description, JSON schema) are
 * counted. A conversation is its memory thread, or else its system messages and first message.
 * Bad options are a `CtxpackError` (`INVALID_OPTION`, `INVALID_BUDGET`) here.
 */
export function ctxpackInputProcessor(options: MastraOptions): InputProcessor {
  const o = readAdapterOptions(options, OPTIONS);
  const conversations = new Conversations<PromptConversation>(o.maxSessions);
  return {
    id: 'ctxpack',
    name: 'ctxpack',
    // The step's tools, as the model will receive them, for the fit of this step's prompt.
    processInputStep: ({ tools, state }: ProcessInputStepArgs) => {
      if (isRecord(state)) state[TOOLS] = toolsToCount(tools);
    },
    processLLMRequest: async ({ prompt, model, messageList, state }: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> => {
      const conversation = readingInput(() => {
        if (!Array.isArray(prompt)) throw invalidOption('prompt', "an array of messages (processLLMRequest's prompt from Mastra)", prompt);
        return conversations.get(threadKey(messageList) ?? `text\u0001${promptKey(prompt)}`, () => new PromptConversation(o, model));
      }, prompt);
      const tools = isRecord(state) ? state[TOOLS] : undefined;
      return { prompt: await conversation.fit(prompt, undefined, tools) };
    },
  } as InputProcessor;
}

/** The tools as the model receives them (`{ type, name, description, inputSchema }`): Mastra's hold their JSON schema in `parameters.jsonSchema`. */
function toolsToCount(tools: unknown): unknown {
  if (!isRecord(tools)) return undefined;
  return Object.entries(tools).map(([name, t]) => {
    if (!isRecord(t)) return { name };
    const parameters = t['parameters'];
    const schema = isRecord(parameters) && isRecord(parameters['jsonSchema']) ? parameters['jsonSchema'] : undefined;
    return { type: 'function', name, description: t['description'], ...(schema !== undefined ? { inputSchema: schema } : {}), ...ownMarker(t) };
  });
}

/** The conversation's memory thread: the `threadId` Mastra gives the messages of a thread; undefined without memory. */
function threadKey(messageList: unknown): string | undefined {
  const list = isRecord(messageList) ? messageList['get'] : undefined;
  const all = isRecord(list) && isRecord(list['all']) ? list['all'] : undefined;
  const db = all !== undefined && typeof all['db'] === 'function' ? (all['db'] as () => unknown)() : undefined;
  if (!Array.isArray(db)) return undefined;
  const thread = db.find((m) => isRecord(m) && typeof m['threadId'] === 'string') as { threadId: string } | undefined;
  return thread === undefined ? undefined : `thread\u0001${thread.threadId}`;
}
