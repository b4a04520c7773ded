// The model's thinking and reasoning where the providers require it. Anthropic, with thinking on,
// refuses a request whose turn in flight (the tool-use loop since the latest user message) does
// not open with the thinking its first assistant message had: "Expected `thinking` or
// `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant`
// message must start with a thinking block". Claude thinks once at the start of a turn, so the
// later steps of the loop carry none: the first step is kept with the step in flight, in every
// format that carries thinking (Anthropic's blocks, the AI SDK's and LangChain's as their
// Anthropic converters send them), in fitMessages and in sessions. The Responses API refuses an
// item of a response without that response's reasoning item ("Item 'fc_…' of type
// 'function_call' was provided without its required 'reasoning' item"): the reasoning item and
// every item of its response are one unit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatAnthropic } from '@langchain/anthropic';
import { createSession, fitMessages, validateMessages } from 'ctxpack';
import { keptCheck, sdkCheck } from './sdk-check.mjs';

const big = (word, n) => (word + ' ').repeat(n);
const SIGNATURE = 'EqQBCkYIBBgCIkB'.repeat(8);
const STEPS = 12;

/** A non-interleaved thinking tool loop: the task, the first step with thinking, then steps without. */
function anthropicLoop() {
  const h = [{ role: 'user', content: 'Find why the build fails and fix it.' }];
  for (let i = 0; i <= STEPS; i++) {
    const thinking = i === 0 ? [{ type: 'thinking', thinking: 'I should read every source file.', signature: SIGNATURE }] : [];
    h.push({ role: 'assistant', content: [...thinking, { type: 'tool_use', id: `toolu_${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } }] });
    h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: big(`export const v${i} = ${i};`, 80) }] });
  }
  return h;
}

function aiSdkLoop() {
  const h = [{ role: 'user', content: 'Find why the build fails and fix it.' }];
  for (let i = 0; i <= STEPS; i++) {
    const reasoning = i === 0 ? [{ type: 'reasoning', text: 'I should read every source file.', providerOptions: { anthropic: { signature: SIGNATURE } } }] : [];
    h.push({ role: 'assistant', content: [...reasoning, { type: 'tool-call', toolCallId: `call_${i}`, toolName: 'read_file', input: { path: `src/f${i}.ts` } }] });
    h.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${i}`, toolName: 'read_file', output: { type: 'text', value: big(`export const v${i} = ${i};`, 80) } }] });
  }
  return h;
}

function langchainLoop() {
  const h = [new HumanMessage('Find why the build fails and fix it.')];
  for (let i = 0; i <= STEPS; i++) {
    const thinking = i === 0 ? [{ type: 'thinking', thinking: 'I should read every source file.', signature: SIGNATURE }] : [];
    const call = { id: `toolu_${i}`, name: 'read_file', args: { path: `src/f${i}.ts` }, type: 'tool_call' };
    h.push(new AIMessage({ content: [...thinking, { type: 'tool_use', id: call.id, name: call.name, input: call.args }], tool_calls: [call] }));
    h.push(new ToolMessage({ content: big(`export const v${i} = ${i};`, 80), tool_call_id: call.id }));
  }
  return h;
}

/** Anthropic's check on the request body: the turn in flight (after the latest user message without a tool_result) opens with thinking. */
function opensWithThinking(messages) {
  let i = messages.length - 1;
  while (i >= 0 && !(messages[i].role === 'user' && !(Array.isArray(messages[i].content) && messages[i].content.some((b) => b.type === 'tool_result')))) i--;
  const first = messages.slice(i + 1).find((m) => m.role === 'assistant');
  return first !== undefined && ['thinking', 'redacted_thinking'].includes(first.content[0]?.type);
}

const BUDGETS = [1_500, 3_000, 6_000, 20_000];

test('Anthropic: the step whose message opens with the turn\'s thinking is kept with the step in flight, at every budget', () => {
  const h = anthropicLoop();
  for (const tokens_max of BUDGETS) {
    const r = fitMessages(h, { format: 'anthropic', system: 'You are a coding agent.', budgets: { tokens_max } });
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), [], `${tokens_max}`);
    assert.equal(r.decisions[1].reason, 'pinned', `${tokens_max}: the loop's first step`);
    assert.ok(r.decisions[2].included, `${tokens_max}: with its results`);
    assert.ok(opensWithThinking(r.messages), `${tokens_max}`);
    keptCheck('anthropic', h, r.messages);
  }
  // Some later steps of the loop are cut at the small budget: the case the rule is about.
  const small = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 3_000 } });
  assert.ok(small.decisions.some((d) => !d.included));
});

test('Anthropic: a user message with tool results and text beside them does not end the turn in flight', () => {
  const h = anthropicLoop();
  // Claude Code's reminders: text after the results, in the same user message.
  h[4] = { role: 'user', content: [...h[4].content, { type: 'text', text: 'Reminder: keep going.' }] };
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 3_000 } });
  assert.equal(r.decisions[1].reason, 'pinned');
  assert.ok(opensWithThinking(r.messages));
});

test('Anthropic: a session keeps the opening step on every turn of the loop, and drops it once a new task starts', () => {
  const h = anthropicLoop();
  const s = createSession({ format: 'anthropic', system: 'You are a coding agent.', budgets: { tokens_max: 3_000 }, cache: 'anthropic', breakpoints: true });
  for (let end = 2; end < h.length; end += 2) {
    const r = s.fit(h.slice(0, end + 1));
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), [], `after messages[${end}]`);
    assert.ok(opensWithThinking(r.messages), `after messages[${end}]`);
  }
  // A new task: the earlier loop is history, its thinking may go.
  const next = [...h, { role: 'assistant', content: 'Fixed.' }, { role: 'user', content: 'Now write the changelog.' }];
  const r = s.fit(next);
  assert.notEqual(r.decisions[1].reason, 'pinned');
});

test('the AI SDK: a reasoning part opening the turn in flight is kept, and its Anthropic request opens with thinking', () => {
  const h = aiSdkLoop();
  for (const tokens_max of BUDGETS) {
    const r = fitMessages(h, { format: 'ai-sdk', provider: 'anthropic', budgets: { tokens_max } });
    sdkCheck('ai-sdk', r.messages, h);
    assert.equal(r.decisions[1].reason, 'pinned', `${tokens_max}`);
    assert.equal(r.messages.find((m) => m.role === 'assistant').content[0].type, 'reasoning', `${tokens_max}`);
  }
});

test('LangChain: thinking blocks opening the turn in flight are kept, and reach the API first through the real ChatAnthropic', async () => {
  const h = langchainLoop();
  // The real ChatAnthropic over the real Anthropic client, whose fetch records the request body and answers locally.
  const bodies = [];
  const fetch = async (_url, init) => {
    bodies.push(JSON.parse(init.body));
    const reply = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Fixed.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } };
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-test', maxRetries: 0, clientOptions: { fetch } });
  for (const tokens_max of BUDGETS) {
    const r = fitMessages(h, { format: 'langchain', provider: 'anthropic', budgets: { tokens_max } });
    sdkCheck('langchain', r.messages);
    assert.equal(r.decisions[1].reason, 'pinned', `${tokens_max}`);
    await model.invoke(r.messages);
    const sent = bodies.at(-1).messages;
    assert.ok(opensWithThinking(sent), `${tokens_max}: ${JSON.stringify(sent.map((m) => m.content[0]?.type ?? 'text'))}`);
  }
});

test('a loop whose first step has no thinking pins nothing more', () => {
  const h = anthropicLoop();
  h[1] = { role: 'assistant', content: h[1].content.slice(1) };
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 3_000 } });
  assert.notEqual(r.decisions[1].reason, 'pinned');
});

// The Responses API: reasoning and every item of its response.
const F = 'openai-responses';
const rs = (id) => ({ type: 'reasoning', id, summary: [{ type: 'summary_text', text: 'Think about it.' }], encrypted_content: `gAAAA${id}` });
const msg = (id, text) => ({ type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
const fc = (id) => ({ type: 'function_call', id: `fc_${id}`, call_id: id, name: 'read_file', arguments: '{"path":"a.ts"}', status: 'completed' });
const out = (id, n) => ({ type: 'function_call_output', call_id: id, output: big('export const x = 1;', n) });
const search = (id) => ({ type: 'web_search_call', id, status: 'completed', action: { type: 'search', query: 'build failure' } });

test('Responses: a reasoning item stays with every item of its response (a preamble before a call; a message after a hosted search)', () => {
  const items = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the build.' }] },
    // A GPT-5 preamble: reasoning, a message, then the call.
    rs('rs_1'),
    msg('msg_1', 'I will read the file first.'),
    fc('a'),
    out('a', 60),
    // A hosted search, then the answer, in one response.
    rs('rs_2'),
    search('ws_1'),
    msg('msg_2', big('The search says the build needs Node 22.', 12)),
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Then what?' }] },
    rs('rs_3'),
    msg('msg_3', 'Upgrade Node.'),
    fc('b'),
    out('b', 60),
  ];
  assert.deepEqual(validateMessages(items, F), []);
  const units = fitMessages(items, { format: F, budgets: { tokens_max: 100_000 } }).decisions.map((d) => d.unit);
  assert.deepEqual(units, [0, 1, 1, 1, 1, 5, 5, 5, 8, 9, 9, 9, 9]);
  let cut = 0;
  for (let tokens_max = 40; tokens_max < 900; tokens_max += 20) {
    let r;
    try {
      r = fitMessages(items, { format: F, budgets: { tokens_max } });
    } catch (e) {
      assert.equal(e.code, 'PINNED_OVER_BUDGET');
      continue;
    }
    assert.deepEqual(validateMessages(r.messages, F), [], `${tokens_max}`);
    sdkCheck(F, r.messages, items);
    if (r.messages.length < items.length) cut++;
  }
  assert.ok(cut > 0, 'some budgets cut the history');
});

test('Responses: the rule holds in a session resumed item by item (the scan continues a response across turns)', () => {
  const items = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the build.' }] },
    rs('rs_1'),
    msg('msg_1', 'I will read the files.'),
    fc('a'),
    out('a', 200),
    rs('rs_2'),
    msg('msg_2', 'And the other one.'),
    fc('b'),
    out('b', 200),
    rs('rs_3'),
    fc('c'),
    out('c', 200),
  ];
  const s = createSession({ format: F, budgets: { tokens_max: 700 }, cache: 'openai' });
  // Every prefix, so that the scan is resumed in the middle of a response (after rs_2, after msg_2).
  for (let end = 0; end < items.length; end++) {
    const now = items.slice(0, end + 1);
    let r;
    try {
      r = s.fit(now);
    } catch (e) {
      // A history ending on a call waits for its output; on a reasoning item, for its item.
      assert.ok(['INVALID_MESSAGES', 'PINNED_OVER_BUDGET'].includes(e.code), e.message);
      continue;
    }
    sdkCheck(F, r.messages, now);
  }
  const whole = s.fit(items);
  assert.deepEqual(whole.decisions.map((d) => d.unit), fitMessages(items, { format: F, budgets: { tokens_max: 700 } }).decisions.map((d) => d.unit));
});
