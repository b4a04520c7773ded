// Named tests for the request rules added in issue 28: repeated tool call ids, empty content,
// Anthropic's tool results first, and holes in the messages array; each through validateMessages
// and through fitMessages (a broken unit is left out, a broken one that must be kept is refused).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, fitMessages, validateMessages } from 'ctxpack';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

const SECRET = 'SECRET-TEXT-42';
const budgets = { tokens_max: 1000 };
const rules = (m, f) => validateMessages(m, f).map((v) => [v.index, v.rule]);
const reasons = (r) => r.decisions.map((d) => d.reason);
const use = (id) => ({ type: 'tool_use', id, name: 'f', input: {} });
const result = (id) => ({ type: 'tool_result', tool_use_id: id, content: 'r' });
const call = (id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });

test('Anthropic duplicate_tool_call_id: a tool_use id repeated in one message or anywhere in the request', () => {
  const inOne = [{ role: 'user', content: 'q' }, { role: 'assistant', content: [use('t1'), use('t1')] }, { role: 'user', content: [result('t1')] }];
  assert.deepEqual(rules(inOne, 'anthropic'), [[1, 'duplicate_tool_call_id']]);
  const across = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [use('t1')] },
    { role: 'user', content: [result('t1')] },
    { role: 'assistant', content: [use('t1')] },
    { role: 'user', content: [result('t1')] },
    { role: 'assistant', content: 'done' },
    { role: 'user', content: 'next' },
  ];
  assert.deepEqual(rules(across, 'anthropic'), [[3, 'duplicate_tool_call_id']]);
  const r = fitMessages(across, { format: 'anthropic', budgets });
  assert.deepEqual(reasons(r), ['scored', 'scored', 'scored', 'invalid_structure', 'invalid_structure', 'scored', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  // The step in flight cannot be left out.
  assert.throws(() => fitMessages(across.slice(0, 5), { format: 'anthropic', budgets }), { code: 'INVALID_MESSAGES', field: 'duplicate_tool_call_id', index: 3 });
});

test('OpenAI, AI SDK, LangChain duplicate_tool_call_id: two calls of one message with one id; a later message may reuse it', () => {
  const openai = [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [call('c1'), call('c1')] }, { role: 'tool', tool_call_id: 'c1', content: 'r' }, { role: 'user', content: 'next' }];
  assert.deepEqual(rules(openai, 'openai'), [[1, 'duplicate_tool_call_id']]);
  assert.deepEqual(reasons(fitMessages(openai, { format: 'openai', budgets })), ['scored', 'invalid_structure', 'invalid_structure', 'pinned']);
  const again = [openai[0], { role: 'assistant', content: null, tool_calls: [call('c1')] }, openai[2], { role: 'assistant', content: null, tool_calls: [call('c1')] }, openai[2], openai[3]];
  assert.deepEqual(rules(again, 'openai'), []);
  const tc = (id) => ({ type: 'tool-call', toolCallId: id, toolName: 'f', input: {} });
  const ai = [{ role: 'user', content: 'q' }, { role: 'assistant', content: [tc('c1'), tc('c1')] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'text', value: 'r' } }] }];
  assert.deepEqual(rules(ai, 'ai-sdk'), [[1, 'duplicate_tool_call_id']]);
  const lc = [
    new HumanMessage('q'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'f', args: {} }, { id: 'c1', name: 'f', args: {} }] }),
    new ToolMessage({ content: 'r', tool_call_id: 'c1' }),
  ];
  assert.deepEqual(rules(lc, 'langchain'), [[1, 'duplicate_tool_call_id']]);
});

test('Anthropic tool_result_not_first: a block before a tool_result in a user message', () => {
  const h = (content) => [{ role: 'user', content: 'q' }, { role: 'assistant', content: [use('t1'), use('t2')] }, { role: 'user', content }, { role: 'assistant', content: 'ok' }, { role: 'user', content: SECRET }];
  assert.deepEqual(rules(h([result('t1'), result('t2'), { type: 'text', text: 'and now?' }]), 'anthropic'), [], 'text after the results');
  const bad = validateMessages(h([result('t1'), { type: 'text', text: SECRET }, result('t2')]), 'anthropic');
  assert.deepEqual(bad.map((v) => [v.index, v.rule]), [[2, 'tool_result_not_first']]);
  assert.match(bad[0].message, /messages\[2\]\.content\[2\]/);
  assert.ok(!bad[0].message.includes(SECRET));
  assert.deepEqual(rules(h([{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }, result('t1'), result('t2')]), 'anthropic'), [[2, 'tool_result_not_first']]);
  const r = fitMessages(h([{ type: 'text', text: 'here:' }, result('t1'), result('t2')]), { format: 'anthropic', budgets });
  assert.deepEqual(reasons(r), ['scored', 'invalid_structure', 'invalid_structure', 'scored', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
});

test('Anthropic empty_content: an empty string or array, or a text block without text; a last assistant message may be empty (a prefill)', () => {
  for (const content of ['', []]) {
    assert.deepEqual(rules([{ role: 'user', content: 'q' }, { role: 'assistant', content }, { role: 'user', content: 'r' }], 'anthropic'), [[1, 'empty_content']]);
    assert.deepEqual(rules([{ role: 'user', content }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'r' }], 'anthropic'), [[0, 'empty_content']]);
    assert.deepEqual(rules([{ role: 'user', content: 'q' }, { role: 'assistant', content }], 'anthropic'), [], 'the final assistant message');
    assert.deepEqual(rules([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }, { role: 'user', content }], 'anthropic'), [[2, 'empty_content']]);
  }
  for (const text of ['', '  \n']) {
    assert.deepEqual(rules([{ role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'text', text }] }], 'anthropic'), [[0, 'empty_content']]);
  }
  // An empty user message is not the task: the one before it is, and the empty one is left out.
  const h = [{ role: 'user', content: 'the task' }, { role: 'assistant', content: '' }, { role: 'user', content: [] }, { role: 'assistant', content: 'a' }];
  const r = fitMessages(h, { format: 'anthropic', budgets });
  assert.deepEqual(reasons(r), ['pinned', 'invalid_structure', 'invalid_structure', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  assert.throws(() => fitMessages([h[0], h[1], h[2]], { format: 'anthropic', budgets }), { code: 'INVALID_MESSAGES', field: 'empty_content', index: 2 });
});

test('OpenAI empty_content: content is required but for an assistant message with tool calls (openai ChatCompletion*MessageParam)', () => {
  const q = { role: 'user', content: 'q' };
  assert.deepEqual(rules([q, { role: 'assistant', content: null }, { role: 'user', content: 'r' }], 'openai'), [[1, 'empty_content']]);
  assert.deepEqual(rules([q, { role: 'assistant' }, { role: 'user', content: 'r' }], 'openai'), [[1, 'empty_content']]);
  assert.deepEqual(rules([q, { role: 'assistant', content: null, tool_calls: [] }, { role: 'user', content: 'r' }], 'openai'), [[1, 'empty_content']]);
  assert.deepEqual(rules([q, { role: 'assistant', content: null, tool_calls: [call('c')] }, { role: 'tool', tool_call_id: 'c', content: 'r' }], 'openai'), []);
  assert.deepEqual(rules([q, { role: 'assistant', content: null, audio: { id: 'audio_1' } }], 'openai'), [], 'a previous audio reply');
  assert.deepEqual(rules([q, { role: 'assistant', content: '' }], 'openai'), [], 'an empty string is content');
  assert.deepEqual(rules([{ role: 'system', content: null }, q], 'openai'), [[0, 'empty_content']]);
  assert.deepEqual(rules([{ role: 'user' }], 'openai'), [[0, 'empty_content']]);
  const r = fitMessages([q, { role: 'assistant', content: null }, { role: 'user', content: 'r' }], { format: 'openai', budgets });
  assert.deepEqual(reasons(r), ['scored', 'invalid_structure', 'pinned']);
});

test('holes and undefined elements are malformed messages: validateMessages reports them, fitMessages and sessions refuse them', () => {
  const msg = { role: 'user', content: 'q' };
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [, msg];
  assert.equal(JSON.stringify(sparse), `[null,${JSON.stringify(msg)}]`);
  for (const format of ['openai', 'anthropic', 'ai-sdk', 'langchain']) {
    const m = format === 'langchain' ? new HumanMessage('q') : msg;
    assert.deepEqual(rules([, m], format), [[0, 'malformed']], format); // eslint-disable-line no-sparse-arrays
    assert.deepEqual(rules([undefined, m], format), [[0, 'malformed']], format);
    assert.deepEqual(rules(new Array(2), format), [[0, 'malformed'], [1, 'malformed']], format);
  }
  const tail = [msg, , msg]; // eslint-disable-line no-sparse-arrays
  assert.throws(() => fitMessages(tail, { format: 'openai', budgets }), { code: 'INVALID_FIELD', index: 1 });
  assert.throws(() => fitMessages(sparse, { format: 'anthropic', budgets }), { code: 'INVALID_FIELD', index: 0 });
  assert.throws(() => createSession({ format: 'openai', budgets }).fit(tail), { code: 'INVALID_FIELD', index: 1 });
});
