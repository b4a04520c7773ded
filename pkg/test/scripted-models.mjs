// The scripted fake models of the 64-step tool agents (builtins.mjs's shape): each calls
// read_file at every call but the last, then answers, and records what it received. One for
// LangChain (a BaseChatModel of @langchain/core's: langchain's FakeToolCallingModel answers with
// the text of every message it received joined, so its replies grow with the prompt; the core's
// fakes make no tool calls), one for the AI SDK's LanguageModelV4 seam (its MockLanguageModelV4),
// which Mastra's Agent takes too.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { MockLanguageModelV4 } from 'ai/test';
import { ANSWER, filePath, STEPS, TOOL } from './builtins.mjs';

/** A chat model that calls read_file at each of `steps - 1` calls, then answers; it records what it receives in `calls`. */
export class ScriptedChatModel extends BaseChatModel {
  constructor(steps = STEPS, calls = []) {
    super({});
    this.steps = steps;
    this.calls = calls;
  }
  _llmType() {
    return 'scripted';
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    this.calls.push(messages);
    const n = this.calls.length;
    const message = n < this.steps
      ? new AIMessage({ content: '', tool_calls: [{ id: `call_${n}`, name: TOOL.name, args: { path: filePath(n) }, type: 'tool_call' }] })
      : new AIMessage(ANSWER);
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

/** A LanguageModelV4 that calls read_file at each of `steps - 1` calls, then answers; `prompts` records each prompt. */
export function scriptedLanguageModel(steps = STEPS) {
  const prompts = [];
  const usage = { inputTokens: { total: 10 }, outputTokens: { total: 10 } };
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      const n = prompts.length;
      return n < steps
        ? { content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: TOOL.name, input: JSON.stringify({ path: filePath(n) }) }], finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage, warnings: [] }
        : { content: [{ type: 'text', text: ANSWER }], finishReason: { unified: 'stop', raw: 'end_turn' }, usage, warnings: [] };
    },
  });
  return { model, prompts };
}
