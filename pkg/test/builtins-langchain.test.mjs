// docs/langchain.md, "Beside LangChain's own": the same 64-step tool agent through createAgent
// (langchain@1) with LangChain's own ways of keeping a history small, as its docs show them, and
// with ctxpack's middleware; each request the model received measured by builtins.mjs, the page's
// table checked against the run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, createMiddleware, summarizationMiddleware, tool } from 'langchain';
import { HumanMessage, trimMessages } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { z } from 'zod';
import { ctxpackAgentMiddleware } from 'ctxpack/langchain';
import { BUDGET, checkTable, countText, fileText, measure, STEPS, SYSTEM, TASK, TOOL } from './builtins.mjs';
import { ScriptedChatModel } from './scripted-models.mjs';

const readFile = tool(async ({ path }) => fileText(path), { ...TOOL, schema: z.object({ path: z.string() }) });

/** The summarizer of summarizationMiddleware: one of the core's fakes, its calls counted. */
class Summarizer extends FakeListChatModel {
  calls = 0;
  constructor() {
    super({ responses: ['The agent read some files of src/auth.'] });
  }
  async _generate(...args) {
    this.calls++;
    return super._generate(...args);
  }
}

/**
 * `[label, middleware, extra calls]` per row, the label naming the options as the test passes them;
 * `tokenCounter` is LangChain's convention (a count of messages), here o200k_base and 4 a message.
 */
function rows() {
  const counter = (messages) => messages.reduce((n, m) => n + countText(m.text) + 4, 0); // o200k_base, 4 a message
  const trim = createMiddleware({ name: 'trim', wrapModelCall: async (request, handler) => handler({ ...request,
    messages: await trimMessages(request.messages, { maxTokens: BUDGET, strategy: 'last', tokenCounter: counter, startOn: 'human', includeSystem: true }) }) });
  const summarizer = new Summarizer();
  return [
    ["`trimMessages` in `wrapModelCall` (`maxTokens: 22_000, strategy: 'last', tokenCounter, startOn: 'human', includeSystem: true`)", trim, () => 0],
    ['`summarizationMiddleware` (`trigger: { tokens: 22_000 }, keep: { messages: 20 }, tokenCounter`)', summarizationMiddleware({ model: summarizer, trigger: { tokens: BUDGET }, keep: { messages: 20 }, tokenCounter: counter }), () => summarizer.calls],
    ['`ctxpackAgentMiddleware({ budgets: { tokens_max: 22_000 }, tokenCounter })`', ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, tokenCounter: counter }), () => 0],
  ];
}

test("LangChain's trimMessages and summarizationMiddleware beside ctxpack's middleware on one 64-step agent: docs/langchain.md's table", async () => {
  const measured = [];
  for (const [label, middleware, extraCalls] of rows()) {
    const model = new ScriptedChatModel();
    const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [middleware] });
    const { messages } = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
    assert.equal(model.calls.length, STEPS, label);
    // Only summarizationMiddleware rewrites the agent's state: the task is gone from it too.
    assert.equal(messages.some((m) => HumanMessage.isInstance(m) && m.text === TASK), !label.startsWith('`summarization'), label);
    const m = measure(model.calls, { format: 'langchain', extraCalls: extraCalls() });
    // trimMessages: a request without the task is the system prompt alone (docs/langchain.md).
    if (label.startsWith('`trimMessages')) assert.equal(model.calls.filter((r) => r.length === 1).length, STEPS - m.taskKept);
    measured.push([label, m]);
  }
  const ours = measured.at(-1)[1];
  assert.deepEqual([ours.valid, ours.taskKept, ours.withinBudget], [STEPS, STEPS, STEPS]);
  checkTable('docs/langchain.md', "Beside LangChain's own", measured);
});
