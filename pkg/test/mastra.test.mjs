// ctxpack/mastra with the real Mastra (@mastra/core 1.71: Agent, createTool, MessageList) and the
// AI SDK's own fake model (MockLanguageModelV4 from ai/test, in adapter-agents.mjs, which Mastra
// takes as a language model): 64-step tool agents through agent.generate and agent.stream with ctxpackInputProcessor
// among the agent's inputProcessors. Every prompt the model receives must be valid (by
// validateMessages, and by the AI SDK's modelMessageSchema), hold the instructions, the task and
// the step in flight, fit the budget with the tools counted, and reuse the previous prompt's
// prefix at least as much as a plain session given the same histories; the message list keeps
// every message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent } from '@mastra/core/agent';
import { MessageList } from '@mastra/core/agent/message-list';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { CtxpackError, createSession, estimateTokens } from 'ctxpack';
import { ctxpackInputProcessor } from 'ctxpack/mastra';
import { agentModel, anthropicMarked, BUDGET, checkPrompts, INSTRUCTIONS, prefixShare, READ_FILE, STEPS, TASK } from './adapter-agents.mjs';

const FORMAT = { name: 'ai-sdk', allowSystemInMessages: true };
const readFile = createTool({
  id: READ_FILE.name,
  description: READ_FILE.description,
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => READ_FILE.read(path),
});

/** A processor that records the prompt Mastra built, before ctxpack's: the unfitted histories. */
function recorder(unfitted) {
  return { id: 'recorder', processLLMRequest: ({ prompt }) => void unfitted.push(prompt) };
}

/** A plain session's prompts for the same histories, for the prefix comparison. */
function plainSession(histories, tools) {
  const session = createSession({ format: FORMAT, budgets: { tokens_max: BUDGET }, cache: 'openai' });
  return histories.map((prompt) => session.fit(prompt, { tools }).messages);
}

test('generate: a 64-step tool agent gets valid prompts within budget, the message list keeps every message, prefix reuse at least a plain session\'s', async () => {
  const { model, calls } = agentModel();
  const unfitted = [];
  const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model, tools: { read_file: readFile },
    inputProcessors: [recorder(unfitted), ctxpackInputProcessor({ budgets: { tokens_max: BUDGET } })] });
  const result = await agent.generate(TASK, { maxSteps: STEPS });
  assert.equal(result.steps.length, STEPS);
  checkPrompts(calls);
  // Mastra's message list is never fitted: the last prompt it built is the whole history.
  assert.equal(unfitted.at(-1).length, 1 + 1 + 2 * (STEPS - 1));
  const ours = prefixShare(calls.map((c) => c.prompt));
  const plain = prefixShare(plainSession(unfitted, calls[0].tools));
  assert.ok(ours >= plain, `prefix share ${ours} < a plain session's ${plain}`);
  assert.ok(ours > 0.5, `prefix share ${ours}`);
});

test('stream: a 64-step tool agent, streamed, gets valid prompts within budget', async () => {
  const { model, calls } = agentModel();
  const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model, tools: { read_file: readFile },
    inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET } })] });
  const stream = await agent.stream(TASK, { maxSteps: STEPS });
  assert.equal((await stream.steps).length, STEPS);
  checkPrompts(calls);
});

test('the tools are counted as the model receives them: name, description and JSON schema', async () => {
  const tokens = [];
  for (const tools of [{}, { read_file: readFile }]) {
    const { model } = agentModel();
    const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model, tools,
      inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET }, onFit: (r) => tokens.push(r.metrics.prompt_tokens) })] });
    await agent.generate(TASK, { maxSteps: 1 });
  }
  const [bare, withTool] = tokens;
  assert.ok(withTool >= bare + estimateTokens(`${READ_FILE.description} {"type":"object","properties":{"path":{"type":"string"}}}`), `${bare} → ${withTool}`);
});

test('Anthropic: the session breakpoints reach the model as providerOptions.anthropic.cacheControl, at most 4, on the last message', async () => {
  const { model, calls } = agentModel({ provider: 'anthropic.messages' });
  const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model, tools: { read_file: readFile },
    inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET } })] });
  await agent.generate(TASK, { maxSteps: STEPS });
  const marked = anthropicMarked(calls);
  assert.ok(marked >= STEPS - 4, `${marked} prompts marked`);
  // Not Anthropic's model: no markers.
  const other = agentModel({ provider: 'openai.chat' });
  await new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model: other.model, tools: { read_file: readFile },
    inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET } })] }).generate(TASK, { maxSteps: 8 });
  assert.ok(other.calls.every(({ prompt }) => prompt.every((m) => m.providerOptions?.anthropic === undefined)));
});

test('Anthropic: a marker the caller put on a tool counts against the four (a new-user trial finding)', async () => {
  const { model, calls } = agentModel({ provider: 'anthropic.messages' });
  const cached = createTool({ id: READ_FILE.name, description: READ_FILE.description, inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => READ_FILE.read(path),
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } });
  const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model, tools: { read_file: cached }, inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: BUDGET } })] });
  await agent.generate(TASK, { maxSteps: 12 });
  for (const [k, { prompt, tools }] of calls.entries()) {
    const inTools = tools.filter((t) => t.providerOptions?.anthropic?.cacheControl !== undefined).length;
    assert.equal(inTools, 1, `request ${k}: the tool reaches the model with its marker`);
    const inPrompt = prompt.filter((m) => m.providerOptions?.anthropic?.cacheControl !== undefined).length;
    assert.ok(inPrompt + inTools <= 4, `request ${k}: ${inPrompt} + ${inTools} markers`);
  }
});

test('interleaved conversations through one processor keep a session each', async () => {
  const fits = [];
  const processor = ctxpackInputProcessor({ budgets: { tokens_max: 4_000 }, onFit: (r) => fits.push(r.cache) });
  const run = (task) => new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS, model: agentModel().model, tools: { read_file: readFile }, inputProcessors: [processor] })
    .generate(task, { maxSteps: 10 });
  await Promise.all([run(TASK), run('Add a test for the token refresh.')]);
  assert.equal(fits.length, 20);
  // Every step after each conversation's first appends to (or cuts) that conversation's last request.
  const appended = fits.filter((c) => c.prefixMessages > 0).length;
  assert.ok(appended >= 16, `${appended} of 20 steps reused a prefix`);
});

test('a memory thread is the conversation: a later turn whose window starts elsewhere continues its session', async () => {
  const fits = [];
  const { processLLMRequest } = ctxpackInputProcessor({ budgets: { tokens_max: BUDGET }, onFit: (r) => fits.push(r.cache) });
  const system = { role: 'system', content: INSTRUCTIONS };
  const turn = (threadId, first) => {
    const messageList = new MessageList({ threadId, resourceId: 'user-1' }).add({ role: 'user', content: first }, 'input');
    return processLLMRequest({ prompt: [system, { role: 'user', content: [{ type: 'text', text: first }] }], messageList, model: {}, state: {}, stepNumber: 0, steps: [] });
  };
  await turn('thread-1', TASK);
  await turn('thread-1', 'Now add a test.'); // the same thread, another first message: the same session
  await turn('thread-2', 'Now add a test.'); // another thread: a new session
  assert.deepEqual(fits.map((c) => c.prefixMessages > 0), [false, true, false]);
});

test('options: bad ones are a CtxpackError naming the field, when the processor is made', () => {
  const cases = [
    [undefined, 'INVALID_BUDGET', 'budgets'],
    [{}, 'INVALID_BUDGET', 'budgets'],
    [{ budgets: { tokens_max: -1 } }, 'INVALID_BUDGET'],
    [{ budgets: { tokens_max: 1_000 }, format: 'openai' }, 'INVALID_OPTION', 'format'],
    [{ budgets: { tokens_max: 1_000 }, system: 'x' }, 'INVALID_OPTION', 'system'],
    [{ budgets: { tokens_max: 1_000 }, tools: [] }, 'INVALID_OPTION', 'tools'],
    [{ budgets: { tokens_max: 1_000 }, cache: 'fast' }, 'INVALID_OPTION', 'cache'],
    [{ budgets: { tokens_max: 1_000 }, breakpoints: 'yes' }, 'INVALID_OPTION', 'breakpoints'],
    [{ budgets: { tokens_max: 1_000 }, onFit: 1 }, 'INVALID_OPTION', 'onFit'],
    [{ budgets: { tokens_max: 1_000 }, maxSessions: -1 }, 'INVALID_OPTION', 'maxSessions'],
    [{ budgets: { tokens_max: 1_000 }, colour: 'red' }, 'INVALID_OPTION', 'colour'],
  ];
  for (const [options, code, field] of cases) {
    assert.throws(() => ctxpackInputProcessor(options), (e) => e instanceof CtxpackError && e.code === code && (field === undefined || e.field === field), JSON.stringify(options));
  }
});

test('odd prompts are a CtxpackError naming the field, never the content', async () => {
  const { processLLMRequest } = ctxpackInputProcessor({ budgets: { tokens_max: 1_000 } });
  const call = (prompt) => processLLMRequest({ prompt, model: {}, state: {}, stepNumber: 0, steps: [] });
  await assert.rejects(call('SECRET'), (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.field === 'prompt' && !e.message.includes('SECRET'));
  await assert.rejects(call([{ role: 'robot', content: 'SECRET' }]), (e) => e instanceof CtxpackError && e.code === 'INVALID_FIELD' && !e.message.includes('SECRET'));
  const onFit = () => {
    throw new Error('boom');
  };
  await assert.rejects(ctxpackInputProcessor({ budgets: { tokens_max: 1_000 }, onFit }).processLLMRequest({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], model: {}, state: {} }),
    (e) => e instanceof CtxpackError && e.field === 'onFit');
});

test('what must be kept exceeds the budget: the run fails with PINNED_OVER_BUDGET and the model is never called', async () => {
  const { model, calls } = agentModel();
  const agent = new Agent({ id: 'coder', name: 'coder', instructions: INSTRUCTIONS.repeat(200), model, tools: { read_file: readFile },
    inputProcessors: [ctxpackInputProcessor({ budgets: { tokens_max: 500 } })] });
  const err = await agent.generate(TASK, { maxSteps: 2 }).then(() => undefined, (e) => e);
  // Mastra's workflow steps give back what a step threw as a new Error with its name, message,
  // code and field: the CtxpackError's, but not its class.
  assert.ok(err instanceof Error, `${err}`);
  assert.deepEqual([err.name, err.code, err.field], ['CtxpackError', 'PINNED_OVER_BUDGET', 'budgets']);
  assert.ok(!err.message.includes(INSTRUCTIONS));
  assert.equal(calls.length, 0);
});
