// The agent every framework adapter's test runs (ai-sdk, langchain, openai-agents, mastra
// .test.mjs): a coding agent that reads a file of about 450 tokens at each of 64 steps against a
// budget of 22,000 tokens, and the prefix share its requests are measured by. For the adapters
// whose model is an AI SDK language model (ai-sdk, mastra): the fake model and the checks of the
// prompts it receives.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { estimateTokens, fitMessages, validateMessages } from 'ctxpack';
import { sdkCheck } from './sdk-check.mjs';

export const STEPS = 64;
export const BUDGET = 22_000;
export const INSTRUCTIONS = 'You are a coding agent. Read the files you need, one at a time, then fix the bug.';
export const TASK = 'Fix the login bug: sessions expire after one minute.';
/** The agent's one tool, as each framework defines it: its name, its description, and what it returns for a path (about 450 tokens). */
export const READ_FILE = {
  name: 'read_file',
  description: 'Reads a file of the repository.',
  read: (path) => `// ${path}\n${'export const line = "session token expiry";\n'.repeat(40)}`,
};

/** A message's tokens, as the prefix share counts them: its JSON, estimated. */
export const tokens = (m) => estimateTokens(JSON.stringify(m));

/**
 * The share of the requests' tokens that repeats the previous request's leading messages (what a
 * prompt cache can read). `view` is what is compared and counted of each message (default: the
 * message itself).
 */
export function prefixShare(requests, view = (m) => m) {
  let reused = 0;
  let total = 0;
  let previous = [];
  for (const request of requests) {
    const p = request.map(view);
    total += p.reduce((s, m) => s + tokens(m), 0);
    for (let i = 0; i < Math.min(p.length, previous.length) && isDeepStrictEqual(p[i], previous[i]); i++) reused += tokens(p[i]);
    previous = p;
  }
  return reused / total;
}

/** The AI SDK's fake model (ai/test): a read_file call at every call, generated or streamed, recording each prompt (and the tools) it receives. */
export function agentModel({ provider = 'mock-provider' } = {}) {
  const calls = [];
  const reply = (options) => {
    calls.push({ prompt: options.prompt, tools: options.tools });
    return { type: 'tool-call', toolCallId: `call_${calls.length}`, toolName: READ_FILE.name, input: JSON.stringify({ path: `src/auth/file${calls.length}.ts` }) };
  };
  const finish = { unified: 'tool-calls', raw: 'tool_use' };
  const usage = { inputTokens: { total: 10 }, outputTokens: { total: 10 } };
  const model = new MockLanguageModelV4({
    provider,
    modelId: 'claude-sonnet-4-5',
    doGenerate: async (options) => ({ content: [reply(options)], finishReason: finish, usage, warnings: [] }),
    doStream: async (options) => ({
      stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, reply(options), { type: 'finish', finishReason: finish, usage }]),
    }),
  });
  return { model, calls };
}

/** The language model prompt the SDK gives a model or middleware: the instructions are system messages in it. */
const FORMAT = { name: 'ai-sdk', allowSystemInMessages: true };
/** A message's text. */
export const text = (m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(''));

/**
 * The checks of every prompt the fake model got: valid (validateMessages, the SDK's
 * modelMessageSchema), the instructions first, the task and the step in flight in it, within the
 * budget (counted again here, with the tools); the late prompts cut, not the whole history.
 */
export function checkPrompts(calls, steps = STEPS) {
  assert.equal(calls.length, steps);
  for (const [k, { prompt, tools }] of calls.entries()) {
    assert.deepEqual(validateMessages(prompt, FORMAT), [], `step ${k}: an invalid prompt`);
    sdkCheck('ai-sdk', prompt);
    assert.ok(prompt[0].role === 'system' && text(prompt[0]) === INSTRUCTIONS, `step ${k}: the instructions are not first`);
    assert.ok(prompt.some((m) => m.role === 'user' && text(m) === TASK), `step ${k}: the task is missing`);
    if (k > 0) {
      const last = prompt.at(-1);
      assert.equal(last.role, 'tool', `step ${k}: the step in flight is missing`);
      assert.equal(last.content[0].toolCallId, `call_${k}`);
      assert.ok(prompt.at(-2).content.some((p) => p.type === 'tool-call' && p.toolCallId === `call_${k}`));
    }
    const counted = fitMessages(prompt, { format: FORMAT, budgets: { tokens_max: 10_000_000 }, tools });
    assert.ok(counted.metrics.prompt_tokens <= BUDGET, `step ${k}: ${counted.metrics.prompt_tokens} tokens`);
  }
  if (steps === STEPS) assert.ok(calls.at(-1).prompt.length < 2 + 2 * (STEPS - 1), 'the last prompt is the whole history');
}

/** The prompts that carry Anthropic breakpoints (`providerOptions.anthropic.cacheControl`), checked: at most 4, ephemeral, one on the last message. */
export function anthropicMarked(calls, label = '') {
  let marked = 0;
  for (const { prompt } of calls) {
    const marks = prompt.filter((m) => m.providerOptions?.anthropic?.cacheControl !== undefined);
    assert.ok(marks.length <= 4);
    for (const m of marks) assert.deepEqual(m.providerOptions.anthropic.cacheControl, { type: 'ephemeral' });
    if (marks.length > 0) {
      marked++;
      assert.equal(prompt.at(-1).providerOptions?.anthropic?.cacheControl?.type, 'ephemeral', `${label}: the last message carries no breakpoint`);
    }
  }
  return marked;
}
