// The framework adapters take a summariser as a session option (`summarize`, `summary`): 64-step
// agents through the real SDKs with fake models (the AI SDK's ctxpackPrepareStep and
// ctxpackLanguageModelMiddleware with MockLanguageModelV4; LangChain's createAgent with a scripted
// BaseChatModel; Mastra's Agent with MockLanguageModelV4; the OpenAI Agents SDK's run() with its
// real OpenAIResponsesModel over a local fetch) get valid requests (validateMessages and
// the SDKs' own checks) holding the task and the step in flight and, after the cuts, the summary of
// what was cut: one summary message per request that has one, resent byte-identical on every later
// request until a cut folds it into the next, each span summarised once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { createAgent, tool as langchainTool } from 'langchain';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { OpenAIResponsesModel, Agent as OpenAIAgent, run, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { extractiveSummarizer, fitMessages, validateMessages } from 'ctxpack';
import { ctxpackLanguageModelMiddleware, ctxpackPrepareStep } from 'ctxpack/ai-sdk';
import { ctxpackAgentMiddleware } from 'ctxpack/langchain';
import { ctxpackInputProcessor } from 'ctxpack/mastra';
import { ctxpackInputFilter } from 'ctxpack/openai-agents';
import { agentModel, BUDGET, checkPrompts, INSTRUCTIONS, READ_FILE, STEPS, TASK, text } from './adapter-agents.mjs';
import { ScriptedChatModel } from './scripted-models.mjs';
import { sdkCheck } from './sdk-check.mjs';

const HEADING = '[Summary of earlier messages';
/** A small model's prices: summaries pay in these runs. */
const CHEAP = { inputCost: 0.05, outputCost: 0.2 };

/** extractiveSummarizer, recording each span it is given. */
function recordingSummarizer() {
  const asked = [];
  const extractive = extractiveSummarizer();
  return { asked, summarize: async (request) => (asked.push(JSON.stringify(request.messages)), extractive(request)) };
}

/**
 * The summaries in the requests the model got (`requests[k]`, fitted as `fits[k]`): a request
 * whose fit has a summary holds exactly one summary message (`isSummary`), one without holds none;
 * the same summary is resent byte-identical (`json`) on the following requests, and a new one
 * enters only where the session cuts. Returns the number of requests with a summary.
 */
function checkSummaries(requests, fits, isSummary, json, asked) {
  assert.equal(fits.length, requests.length, 'one fit per model call');
  let previous;
  let carried = 0;
  for (const [k, request] of requests.entries()) {
    const r = fits[k];
    const found = request.filter(isSummary);
    if (!r.summary) {
      assert.equal(found.length, 0, `request ${k}: a summary message without a summary`);
      previous = undefined;
      continue;
    }
    carried++;
    assert.equal(found.length, 1, `request ${k}: one summary message`);
    assert.ok(r.summary.tokens > 0 && r.summary.callCost > 0);
    const bytes = json(found[0]);
    if (previous?.id === r.summary.id) assert.equal(bytes, previous.bytes, `request ${k}: summary ${r.summary.id} resent byte-identical`);
    else assert.ok(r.cache.cut, `request ${k}: a new summary enters at a cut`);
    previous = { id: r.summary.id, bytes };
  }
  assert.ok(carried > 0, 'a request carries a summary');
  assert.ok(new Set(fits.filter((r) => r.summary).map((r) => r.summary.id)).size >= 1);
  assert.equal(new Set(asked).size, asked.length, 'no span summarised twice');
  return carried;
}

/** An AI SDK prompt message as sent, without provider options (where cache markers go). */
const promptJson = (m) => JSON.stringify({ ...m, providerOptions: undefined });
const isPromptSummary = (m) => m.role === 'user' && text(m).startsWith(HEADING);

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
    const { asked, summarize } = recordingSummarizer();
    const fits = [];
    const options = {
      budgets: { tokens_max: BUDGET },
      summarize,
      summary: CHEAP,
      onFit: (r) => fits.push(r),
    };
    const args = glue === 'middleware' ? { model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware(options) }) } : { model, prepareStep: ctxpackPrepareStep({ ...options, tools }) }; // prepareStep is not given the tools: they are counted when passed
    await generateText({ ...args, tools, instructions: INSTRUCTIONS, prompt: TASK, stopWhen: stepCountIs(STEPS) });
    checkPrompts(calls);
    checkSummaries(calls.map((c) => c.prompt), fits, isPromptSummary, promptJson, asked);
  });
}

// LangChain: createAgent with the scripted chat model and ctxpackAgentMiddleware.
const langchainReadFile = langchainTool(async ({ path }) => READ_FILE.read(path), { name: READ_FILE.name, description: READ_FILE.description, schema: z.object({ path: z.string() }) });
const { $schema: _, ...readFileSchema } = z.toJSONSchema(langchainReadFile.schema);
const COUNTED_TOOLS = [{ name: READ_FILE.name, description: READ_FILE.description, parameters: readFileSchema }];

test('langchain createAgent: a 64-step agent with a summariser gets valid requests, the summary resent byte-identical until the next cut, each span summarised once', async () => {
  const model = new ScriptedChatModel();
  const { asked, summarize } = recordingSummarizer();
  const fits = [];
  const agent = createAgent({ model, tools: [langchainReadFile], systemPrompt: INSTRUCTIONS, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, summarize, summary: CHEAP, onFit: (r) => fits.push(r) })] });
  const result = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  assert.equal(model.calls.length, STEPS);
  for (const [k, request] of model.calls.entries()) {
    assert.deepEqual(validateMessages(request, 'langchain'), [], `step ${k}: an invalid request`);
    sdkCheck('langchain', request);
    assert.ok(SystemMessage.isInstance(request[0]) && request[0].text === INSTRUCTIONS, `step ${k}: the system prompt is not first`);
    assert.ok(request.some((m) => HumanMessage.isInstance(m) && m.text === TASK), `step ${k}: the task is missing`);
    if (k > 0) {
      assert.equal(request.at(-1).getType(), 'tool', `step ${k}: the step in flight is missing`);
      assert.equal(request.at(-1).tool_call_id, `call_${k}`);
    }
    const counted = fitMessages(request, { format: 'langchain', budgets: { tokens_max: 10_000_000 }, tools: COUNTED_TOOLS });
    assert.ok(counted.metrics.prompt_tokens <= BUDGET, `step ${k}: ${counted.metrics.prompt_tokens} tokens`);
  }
  const isSummary = (m) => HumanMessage.isInstance(m) && m.text.startsWith(HEADING);
  checkSummaries(model.calls, fits, isSummary, (m) => JSON.stringify(m), asked);
  // The summary is a message of the history's human message class, and the graph's state never holds it.
  assert.ok(!result.messages.some(isSummary), 'the state keeps the messages, not the summary');
});

// Mastra: an Agent with the AI SDK's fake model and ctxpackInputProcessor.
const mastraReadFile = createTool({ id: READ_FILE.name, description: READ_FILE.description, inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => READ_FILE.read(path) });

for (const call of ['generate', 'stream']) {
  test(`mastra Agent.${call}: a 64-step agent with a summariser gets valid prompts, the summary resent byte-identical until the next cut, each span summarised once`, async () => {
    const { model, calls } = agentModel();
    const { asked, summarize } = recordingSummarizer();
    const fits = [];
    const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model, tools: { read_file: mastraReadFile },
      inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET }, summarize, summary: CHEAP, onFit: (r) => fits.push(r) })] });
    if (call === 'generate') await agent.generate(TASK, { maxSteps: STEPS });
    else await (await agent.stream(TASK, { maxSteps: STEPS })).consumeStream();
    checkPrompts(calls);
    checkSummaries(calls.map((c) => c.prompt), fits, isPromptSummary, promptJson, asked);
  });
}

// The OpenAI Agents SDK: run() with the real Responses model over the real `openai` client, whose fetch answers locally.
setTracingDisabled(true);
const agentsReadFile = agentsTool({ name: READ_FILE.name, description: READ_FILE.description, parameters: z.object({ path: z.string() }), execute: async ({ path }) => READ_FILE.read(path) });

test('openai-agents run(): a 64-step agent with a summariser sends valid Responses API requests, the summary resent byte-identical until the next cut', async () => {
  const bodies = [];
  const fetch = async (_url, init) => {
    bodies.push(JSON.parse(init.body));
    const k = bodies.length;
    const output = k <= STEPS
      ? [{ type: 'function_call', id: `fc_${k}`, call_id: `call_${k}`, name: READ_FILE.name, arguments: JSON.stringify({ path: `src/auth/file${k}.ts` }), status: 'completed' }]
      : [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Fixed.', annotations: [] }] }];
    const body = { id: `resp_${k}`, object: 'response', created_at: 0, model: 'gpt-5', status: 'completed', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [],
      usage: { input_tokens: 10, output_tokens: 10, total_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const model = new OpenAIResponsesModel(new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 }), 'gpt-5');
  const { asked, summarize } = recordingSummarizer();
  const fits = [];
  const agent = new OpenAIAgent({ name: 'coder', instructions: INSTRUCTIONS, model, tools: [agentsReadFile] });
  const result = await run(agent, TASK, { maxTurns: 100, callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: BUDGET }, summarize, summary: CHEAP, onFit: (r) => fits.push(r) }) });
  assert.equal(result.finalOutput, 'Fixed.');
  const inputs = bodies.map((b) => b.input);
  assert.equal(inputs.length, STEPS + 1);
  const userText = (m) => (m.role === 'user' ? (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('')) : '');
  for (const [k, input] of inputs.entries()) {
    assert.deepEqual(validateMessages(input, 'openai-responses'), [], `request ${k}: invalid`);
    sdkCheck('openai-responses', input);
    assert.ok(input.some((m) => userText(m) === TASK), `request ${k}: the task is missing`);
    if (k > 0) assert.equal(input.at(-1).call_id, `call_${k}`, `request ${k}: the step in flight is missing`);
    const counted = fitMessages(input, { format: 'openai-responses', system: INSTRUCTIONS, budgets: { tokens_max: 10_000_000 } });
    assert.ok(counted.metrics.prompt_tokens <= BUDGET, `request ${k}: ${counted.metrics.prompt_tokens} tokens`);
  }
  checkSummaries(inputs, fits, (m) => userText(m).startsWith(HEADING), (m) => JSON.stringify(m), asked);
});
