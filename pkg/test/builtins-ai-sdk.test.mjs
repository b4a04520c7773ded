// docs/ai-sdk.md, "Beside the AI SDK's own": the same 64-step tool agent through generateText
// (ai@7, its MockLanguageModelV4, scripted-models.mjs) with nothing, with the SDK's pruneMessages in prepareStep as its
// docs show it, and with ctxpack's prepareStep and middleware; each prompt the model received
// measured by builtins.mjs, the page's table checked against the run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, jsonSchema, pruneMessages, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { ctxpackLanguageModelMiddleware, ctxpackPrepareStep } from 'ctxpack/ai-sdk';
import { BUDGET, checkTable, countText, fileText, measure, STEPS, SYSTEM, TASK, TOOL } from './builtins.mjs';
import { scriptedLanguageModel } from './scripted-models.mjs';

/** The language model prompts the fake model receives carry the instructions as system messages. */
const PROMPT = { name: 'ai-sdk', allowSystemInMessages: true };

const tools = {
  [TOOL.name]: tool({
    description: TOOL.description,
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => fileText(path),
  }),
};

// The AI SDK's context management (docs/03-agents/04-loop-control.mdx, "Context Management"): in
// prepareStep, pruneMessages once an estimate passes a threshold, its returned messages the base of
// later steps; and (the pruneMessages reference page) pruning at every step.
const estimate = (messages) => JSON.stringify(messages).length / 4;
const pruneOverThreshold = ({ messages }) => {
  if (estimate(messages) > BUDGET) return { messages: pruneMessages({ messages, reasoning: 'all', toolCalls: 'before-last-3-messages', emptyMessages: 'remove' }) };
  return undefined;
};
const pruneEveryStep = ({ messages }) => ({ messages: pruneMessages({ messages, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }) });

/** `[label, the options of generateText it adds]` per row. */
const ROWS = [
  ['nothing (the whole history every step)', (model) => ({ model })],
  ["`pruneMessages` in `prepareStep` when `JSON.stringify(messages).length / 4 > 22_000` (`reasoning: 'all', toolCalls: 'before-last-3-messages', emptyMessages: 'remove'`)", (model) => ({ model, prepareStep: pruneOverThreshold })],
  ["`pruneMessages` in `prepareStep` at every step (`reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove'`)", (model) => ({ model, prepareStep: pruneEveryStep })],
  ["`ctxpackPrepareStep({ budgets: { tokens_max: 22_000 }, countTokens: forEncoding('o200k_base') })`", (model) => ({ model, prepareStep: ctxpackPrepareStep({ budgets: { tokens_max: BUDGET }, countTokens: countText }) })],
  ["`wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: 22_000 }, countTokens: forEncoding('o200k_base') }) })`", (model) => ({ model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: BUDGET }, countTokens: countText }) }) })],
];

test("the AI SDK's pruneMessages beside ctxpack's prepareStep and middleware on one 64-step agent: docs/ai-sdk.md's table", async () => {
  const measured = [];
  for (const [label, glue] of ROWS) {
    const { model, prompts } = scriptedLanguageModel();
    const { steps } = await generateText({ ...glue(model), tools, instructions: SYSTEM, messages: [{ role: 'user', content: TASK }], stopWhen: stepCountIs(STEPS + 1) });
    assert.equal(steps.length, STEPS, label);
    measured.push([label, measure(prompts, { format: PROMPT })]);
  }
  for (const [, m] of measured.slice(-2)) assert.deepEqual([m.valid, m.taskKept, m.withinBudget], [STEPS, STEPS, STEPS]);
  checkTable('docs/ai-sdk.md', "Beside the AI SDK's own", measured);
});
