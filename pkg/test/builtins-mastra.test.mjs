// docs/mastra.md, "Beside Mastra's own": the same 64-step tool agent through a Mastra
// Agent (@mastra/core 1.71, the AI SDK's MockLanguageModelV4 as its model) with Mastra's own input
// processors for a long history, as its docs show them; each prompt the model received measured
// by builtins.mjs, the page's table checked against the run, ctxpack's input processor beside them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent } from '@mastra/core/agent';
import { TokenLimiter, ToolCallFilter } from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ctxpackInputProcessor } from 'ctxpack/mastra';
import { ANSWER, BUDGET, checkTable, countText, fileText, measure, STEPS, SYSTEM, TASK, TOOL } from './builtins.mjs';
import { scriptedLanguageModel } from './scripted-models.mjs';

/** The language model prompts the fake model receives carry the instructions as system messages. */
const PROMPT = { name: 'ai-sdk', allowSystemInMessages: true };

const readFile = createTool({ id: TOOL.name, description: TOOL.description, inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => fileText(path) });

// Mastra's docs (docs-guides-context-engineering.md): TokenLimiter to fit a token budget, and
// ToolCallFilter for old tool calls with TokenLimiter after it "as a final budget guard".
/** `[label, the Agent's inputProcessors]` per row. */
const ROWS = [
  ['`inputProcessors: [new TokenLimiter(22_000)]`', () => [new TokenLimiter(BUDGET)]],
  ['`inputProcessors: [new ToolCallFilter({ filterAfterToolSteps: 2 }), new TokenLimiter(22_000)]`', () => [new ToolCallFilter({ filterAfterToolSteps: 2 }), new TokenLimiter(BUDGET)]],
  ["`inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: 22_000 }, countTokens: forEncoding('o200k_base') })]`", () => [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET }, countTokens: countText })]],
];

test("Mastra's TokenLimiter and ToolCallFilter beside ctxpack's input processor on one 64-step agent: docs/mastra.md's table", async () => {
  const measured = [];
  for (const [label, inputProcessors] of ROWS) {
    const { model, prompts } = scriptedLanguageModel();
    const agent = new Agent({ id: 'coder', name: 'coder', instructions: SYSTEM, model, tools: { [TOOL.name]: readFile }, inputProcessors: inputProcessors() });
    const result = await agent.generate(TASK, { maxSteps: STEPS + 1 });
    assert.equal(result.text, ANSWER, label);
    assert.equal(prompts.length, STEPS, label);
    measured.push([label, measure(prompts, { format: PROMPT })]);
  }
  checkTable('docs/mastra.md', "Beside Mastra's own", measured);
});
