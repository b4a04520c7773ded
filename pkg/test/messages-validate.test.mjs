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

test('Anthropic empty_content: an empty or blank string or an empty array, or a text block without text; a last assistant message may be empty (a prefill)', () => {
  // A string is sent as one text block: whitespace alone is refused as a blank block is (a trial finding).
  for (const content of ['', [], '  \n']) {
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
  // An empty tool_calls is refused by itself (below), before its message is read as empty.
  assert.deepEqual(rules([q, { role: 'assistant', content: null, tool_calls: [] }, { role: 'user', content: 'r' }], 'openai'), [[1, 'malformed']]);
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

// Found by a new-user trial: parts the API refuses passed validateMessages and went out as they came.
test("OpenAI tool_calls: [] is malformed: the API refuses an empty array (\"Invalid 'messages[1].tool_calls': empty array\")", () => {
  const m = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', tool_calls: [] }, { role: 'user', content: 'r' }];
  assert.deepEqual(rules(m, 'openai'), [[1, 'malformed']]);
  assert.throws(() => fitMessages(m, { format: 'openai', budgets }), { code: 'INVALID_FIELD', index: 1, field: 'tool_calls' });
  const { tool_calls: _, ...without } = m[1];
  assert.deepEqual(rules([m[0], without, m[2]], 'openai'), [], 'absent is fine');
  // LangChain's AIMessage has tool_calls [] by default, and its converters send none: not refused.
  assert.deepEqual(validateMessages([new HumanMessage('q'), new AIMessage('a'), new HumanMessage('r')], 'langchain'), []);
});

test('Responses: an output given as parts has objects for parts, as a message does (output: [null] is malformed)', () => {
  const call = { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' };
  const m = (output) => [{ role: 'user', content: 'q' }, call, { type: 'function_call_output', call_id: 'c', output }];
  assert.ok(rules(m([null]), 'openai-responses').some(([i, rule]) => i === 2 && rule === 'malformed'));
  assert.throws(() => fitMessages(m([null]), { format: 'openai-responses', budgets }), { code: 'INVALID_FIELD', index: 2, field: 'output[0]' });
  assert.throws(() => fitMessages(m([{ type: 'input_text', text: 7 }]), { format: 'openai-responses', budgets }), { code: 'INVALID_FIELD', index: 2, field: 'output[0].text' });
  assert.deepEqual(rules(m([{ type: 'input_text', text: 'r' }]), 'openai-responses'), []);
  assert.deepEqual(rules(m('r'), 'openai-responses'), []);
});

test('a text part whose text is not a string is malformed in every format that types its parts (OpenAI, Anthropic, AI SDK, Responses)', () => {
  for (const [format, part] of [['openai', { type: 'text' }], ['anthropic', { type: 'text', text: 5 }], ['ai-sdk', { type: 'text', text: { value: SECRET } }], ['openai-responses', { type: 'input_text', text: null }]]) {
    const m = [{ role: 'user', content: [{ type: 'text', text: 'q' }, part] }];
    if (format === 'openai-responses') m[0].content[0].type = 'input_text';
    assert.deepEqual(rules(m, format), [[0, 'malformed']], format);
    assert.throws(() => fitMessages(m, { format, budgets }), (e) => e.code === 'INVALID_FIELD' && e.field === 'content[1].text' && !e.message.includes(SECRET), format);
  }
});

test('an AI SDK tool result output of an unknown type is malformed (ai@7: text, json, execution-denied, error-text, error-json, content)', async () => {
  const { modelMessageSchema } = await import('ai');
  const tool = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'txt', value: 'ok' } }] };
  assert.equal(modelMessageSchema.safeParse(tool).success, false);
  const m = [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} }] }, tool];
  assert.throws(() => fitMessages(m, { format: 'ai-sdk', budgets }), { code: 'INVALID_FIELD', index: 2, field: 'content[0].output.type' });
  for (const output of [{ type: 'json', value: { a: 1 } }, { type: 'execution-denied' }, { type: 'error-json', value: {} }, { type: 'content', value: [{ type: 'text', text: 'x' }] }]) {
    const ok = [m[0], m[1], { role: 'tool', content: [{ ...tool.content[0], output }] }];
    assert.equal(modelMessageSchema.safeParse(ok[2]).success, true, output.type);
    assert.deepEqual(validateMessages(ok, 'ai-sdk'), [], output.type);
  }
});

test('OpenAI content: [null] is malformed, as in every other format: validateMessages reports it, fitMessages refuses it', () => {
  const m = [{ role: 'user', content: [null] }];
  assert.deepEqual(rules(m, 'openai'), [[0, 'malformed']]);
  assert.throws(() => fitMessages(m, { format: 'openai', budgets }), { code: 'INVALID_FIELD', index: 0, field: 'content[0]', message: 'messages[0].content[0] must be an object, got null' });
});

test('AI SDK tool-result without output (or toolName) is malformed: ai@7 refuses it, and a stub would make up its output', async () => {
  const { modelMessageSchema } = await import('ai');
  const tc = { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} };
  const history = (part) => [{ role: 'user', content: 'q' }, { role: 'assistant', content: [tc] }, { role: 'tool', content: [part] }];
  for (const [part, field] of [
    [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f' }, 'content[0].output'],
    [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: `${SECRET} as a bare string` }, 'content[0].output'],
    [{ type: 'tool-result', toolCallId: 'c1', output: { type: 'text', value: 'r' } }, 'content[0].toolName'],
  ]) {
    const m = history(part);
    assert.equal(modelMessageSchema.safeParse(m[2]).success, false, 'the SDK refuses it');
    assert.ok(validateMessages(m, 'ai-sdk').some((v) => v.index === 2 && v.rule === 'malformed'));
    assert.throws(() => fitMessages(m, { format: 'ai-sdk', budgets }), (e) => e.code === 'INVALID_FIELD' && e.index === 2 && e.field === field && !e.message.includes(SECRET));
  }
  const ok = history({ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'text', value: 'r' } });
  assert.equal(modelMessageSchema.safeParse(ok[2]).success, true);
  assert.deepEqual(validateMessages(ok, 'ai-sdk'), []);
});

test('unknown_part_type: OpenAI chat and the AI SDK list the part types each role takes; fitMessages sends another as it is and warns', async () => {
  const { modelMessageSchema } = await import('ai');
  // Each listed type passes the SDK's own schema (AI SDK) and validateMessages alike.
  const listed = [
    { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image', image: 'https://example.com/a.png' }, { type: 'file', data: 'https://example.com/a.pdf', mediaType: 'application/pdf' }] },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 'b' }] },
  ];
  for (const m of listed) assert.equal(modelMessageSchema.safeParse(m).success, true);
  assert.deepEqual(validateMessages(listed, 'ai-sdk'), []);
  const cases = [
    ['ai-sdk', [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }], 1, true],
    ['ai-sdk', [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }], 0, true],
    ['openai', [{ role: 'user', content: [{ type: 'input_text', text: 'a' }] }], 0, false],
    ['openai', [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }, { role: 'user', content: 'q' }], 0, false],
    ['openai', [{ role: 'user', content: [{ text: 'no type' }] }], 0, false],
  ];
  for (const [format, m, k, schema] of cases) {
    const v = validateMessages(m, format).filter((x) => x.rule === 'unknown_part_type');
    assert.equal(v.length, 1, `${format}: ${JSON.stringify(m)}`);
    assert.equal(v[0].message, `messages[${v[0].index}].content[${k}] has a type the ${format} format does not list for ${m[v[0].index].role} messages`);
    if (schema) assert.equal(modelMessageSchema.safeParse(m[v[0].index]).success, false, 'the SDK refuses it too');
    const r = fitMessages(m, { format, budgets: { tokens_max: 10_000 } }); // an image's tokens and all
    assert.equal(r.messages.length, m.length, 'nothing left out for it');
    assert.ok(r.messages.includes(m[v[0].index]), 'the message goes out as it came');
    assert.ok(r.warnings.some((w) => w.includes('(rule unknown_part_type): sent as it is')));
  }
  // The same parts under the formats that take them.
  assert.deepEqual(validateMessages([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }, { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }], 'openai'), []);
  assert.deepEqual(validateMessages([{ role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }, { role: 'user', content: 'q' }], 'openai'), []);
});
