// A coding agent: 64 steps, each reading a file of 500 to 60,000 tokens, in each of the five
// formats, fitted by a session at a 64k budget at every step (the structure of
// messages-media-agent.test.mjs): every request valid (validateMessages, the SDKs' own checks, and
// for the AI SDK and LangChain the request passed to their fake models), within budget, never an
// exception, the task and the step in flight present (its result truncated where it is over half
// the budget), and every message sent truncated the same bytes on every later request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createSession, estimateTokens } from 'ctxpack';
import { checkAgentRequest } from './sdk-check.mjs';

const STEPS = 64;
const TASK = 'The login tests fail since the session refactor; find the cause and fix it.';
const SYSTEM = 'You are a coding agent. Read files with read_file before you change them.';
const BUDGET = { tokens_max: 64_000, output_reserve: 2_000 };

/** Step k's file: about 500 to 60,000 tokens of source (by the default counter), the same text for the same k. */
function file(k) {
  const target = k === 0 ? 60_000 : 500 + ((k * 7919) % 60) * 1_000;
  const line = (j) => `export function handler${k}_${j}(req: Request): Response { return session.verify(req.headers.get('cookie') ?? '', ${j}); }`;
  const per = estimateTokens(`${line(100)}\n`); // a typical line: its numbers of up to 3 digits
  return Array.from({ length: Math.max(1, Math.round(target / per)) }, (_, j) => line(j)).join('\n');
}

/** Step k's messages in `format`: the read_file call and its result. */
function step(format, k, text) {
  const id = `call_${k}`;
  const path = `src/auth/file${k}.ts`;
  switch (format) {
    case 'openai':
      return [
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }] },
        { role: 'tool', tool_call_id: id, content: text },
      ];
    case 'openai-responses':
      return [
        { type: 'function_call', call_id: id, name: 'read_file', arguments: JSON.stringify({ path }) },
        { type: 'function_call_output', call_id: id, output: text },
      ];
    case 'anthropic':
      return [
        { role: 'assistant', content: [{ type: 'text', text: `Reading ${path}.` }, { type: 'tool_use', id, name: 'read_file', input: { path } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
      ];
    case 'ai-sdk':
      return [
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: text } }] },
      ];
    case 'langchain':
      return [new AIMessage({ content: '', tool_calls: [{ id, name: 'read_file', args: { path } }] }), new ToolMessage({ tool_call_id: id, content: text })];
  }
}

const first = {
  openai: () => [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }],
  'openai-responses': () => [{ role: 'user', content: TASK }],
  anthropic: () => [{ role: 'user', content: TASK }],
  'ai-sdk': () => [{ role: 'user', content: TASK }],
  langchain: () => [new SystemMessage(SYSTEM), new HumanMessage(TASK)],
};
const systemOf = { 'openai-responses': SYSTEM, anthropic: SYSTEM, 'ai-sdk': SYSTEM };
const isTask = (m) => (m instanceof HumanMessage ? m.content === TASK : m.role === 'user' && m.content === TASK);
/** A message as bytes (a LangChain message by its class and fields). */
const bytes = (m) => (m instanceof HumanMessage || m instanceof AIMessage || m instanceof ToolMessage || m instanceof SystemMessage ? `${m.getType()}:${JSON.stringify(m.content)}:${m.tool_call_id ?? ''}` : JSON.stringify(m));

/** The AI SDK's mock model, which records each prompt generateText converts from the messages. */
function aiSdkModel() {
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, warnings: [] };
    },
  });
  return { model, prompts };
}

const files = Array.from({ length: STEPS }, (_, k) => file(k));

test('the files span 500 to 60,000 tokens', () => {
  const sizes = files.map((f) => estimateTokens(f));
  assert.ok(Math.min(...sizes) >= 400 && Math.min(...sizes) <= 700, `smallest ${Math.min(...sizes)}`);
  assert.ok(Math.max(...sizes) >= 58_000 && Math.max(...sizes) <= 61_000, `largest ${Math.max(...sizes)}`);
});

for (const format of ['openai', 'openai-responses', 'anthropic', 'ai-sdk', 'langchain']) {
  test(`${format}: a 64-step coding agent reading files of 500 to 60,000 tokens stays valid and within budget at every step`, async () => {
    const session = createSession({ format, budgets: BUDGET, ...(systemOf[format] ? { system: systemOf[format] } : {}) });
    const history = first[format]();
    const sdk = format === 'ai-sdk' ? aiSdkModel() : undefined;
    const fake = format === 'langchain' ? new FakeListChatModel({ responses: ['ok'] }) : undefined;
    /** Per history index: the bytes it was first sent truncated as, once its step was no longer in flight. */
    const sentCut = new Map();
    let trimmed = false;
    let truncatedSteps = 0;
    for (let k = 0; k < STEPS; k++) {
      const added = step(format, k, files[k]);
      history.push(...added);
      const r = session.fit(history);
      checkAgentRequest(format, r, k, isTask);
      const callIndex = history.length - added.length;
      assert.ok(r.decisions.slice(callIndex).every((d) => d.included && d.reason === 'pinned'), `step ${k}: the step in flight`);
      const inFlight = r.decisions[history.length - 1];
      if (inFlight.truncated) {
        truncatedSteps++;
        assert.ok(inFlight.truncated.from > r.metrics.effective_budget / 2 && inFlight.truncated.to <= Math.floor(r.metrics.effective_budget / 2), `step ${k}: ${JSON.stringify(inFlight.truncated)}`);
      }
      // Every truncated message is the same bytes on every later request that has it.
      let j = 0;
      for (const d of r.decisions) {
        if (!d.included) continue;
        const sent = r.messages[j++];
        if (!d.truncated || d.index >= callIndex) continue;
        const b = bytes(sent);
        if (sentCut.has(d.index)) assert.equal(b, sentCut.get(d.index), `step ${k}: messages[${d.index}] changed since it was first sent truncated`);
        else sentCut.set(d.index, b);
      }
      trimmed ||= r.decisions.some((d) => !d.included);
      if (sdk) await generateText({ model: sdk.model, system: SYSTEM, messages: r.messages });
      if (fake) assert.equal((await fake.invoke(r.messages)).content, 'ok');
    }
    assert.ok(trimmed, 'the history outgrew the budget: the test trims');
    assert.ok(truncatedSteps >= 10, `${truncatedSteps} steps read a file over half the budget`);
    assert.ok(sentCut.size >= 1, 'a truncated result was sent again on a later request');
    if (sdk) assert.equal(sdk.prompts.length, STEPS);
  });
}
