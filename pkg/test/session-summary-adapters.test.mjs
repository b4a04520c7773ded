// The framework adapters take a summariser as a session option (`summarize`, `summary`): a
// 64-step AI SDK agent through ctxpackPrepareStep and ctxpackLanguageModelMiddleware, with the
// AI SDK's fake model, gets valid prompts (validateMessages, modelMessageSchema) holding the
// task, the step in flight and, after the cuts, the summary of what was cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { ctxpackLanguageModelMiddleware, ctxpackPrepareStep } from 'ctxpack/ai-sdk';
import { agentModel, BUDGET, checkPrompts, INSTRUCTIONS, READ_FILE, STEPS, TASK, text } from './adapter-agents.mjs';
import { standInSummary } from './summary-stand-in.mjs';

const tools = {
  [READ_FILE.name]: tool({
    description: READ_FILE.description,
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => READ_FILE.read(path),
  }),
};

for (const glue of ['prepareStep', 'middleware']) {
  test(`ai-sdk ${glue}: a 64-step agent with a summariser gets valid prompts, the summary after the cuts, each span summarised once`, async () => {
    const { model, calls } = agentModel();
    const asked = [];
    const fits = [];
    const options = {
      budgets: { tokens_max: BUDGET },
      summarize: async ({ messages, maxTokens }) => {
        asked.push(JSON.stringify(messages));
        return standInSummary(messages, maxTokens);
      },
      summary: { inputCost: 0.05, outputCost: 0.2 },
      onFit: (r) => fits.push(r),
    };
    const args = glue === 'middleware' ? { model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware(options) }) } : { model, prepareStep: ctxpackPrepareStep({ ...options, tools }) }; // prepareStep is not given the tools: they are counted when passed
    await generateText({ ...args, tools, instructions: INSTRUCTIONS, prompt: TASK, stopWhen: stepCountIs(STEPS) });
    checkPrompts(calls);
    const withSummary = calls.filter(({ prompt }) => prompt.some((m) => m.role === 'user' && text(m).startsWith('[Summary of earlier messages')));
    assert.ok(withSummary.length > 0, 'a prompt carries the summary');
    assert.ok(fits.some((r) => r.summary && r.summary.tokens > 0));
    assert.equal(new Set(asked).size, asked.length, 'no span summarised twice');
  });
}
