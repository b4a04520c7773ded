// Named tests for fitMessages' always-kept rules, its errors, and validateMessages' rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createSession, estimateTokens, fitMessages, validateMessages } from 'ctxpack';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { FORMATS, render } from './messages-histories.mjs';

const SECRET = 'SECRET-TEXT-42';
const call = (id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
const history = () => [
  { role: 'system', content: 'rules' },
  { role: 'user', content: `old question ${SECRET} `.repeat(20) },
  { role: 'assistant', content: 'old answer '.repeat(20) },
  { role: 'user', content: 'now do it' },
  { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
  { role: 'tool', tool_call_id: 'a', content: 'result a' },
  { role: 'tool', tool_call_id: 'b', content: 'result b' },
];
const reasons = (r) => r.decisions.map((d) => d.reason);

test('system messages, the latest user message and the step in flight (the last call with its results) are always kept', () => {
  const r = fitMessages(history(), { format: 'openai', budgets: { tokens_max: 40 } });
  assert.deepEqual(reasons(r), ['pinned', 'budget_exceeded', 'budget_exceeded', 'pinned', 'pinned', 'pinned', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);
});

test('one task, many tool steps: the steps before the last compete, so a long agent run is trimmed, not refused', () => {
  // An agent working on one task: after the task, only its own tool calls and results. Every
  // step but the last is a unit that can go; the task and the step in flight cannot.
  for (const format of FORMATS) {
    const events = [{ kind: 'user', text: 'fix the failing auth tests' }];
    for (let step = 0; step < 40; step++) {
      events.push({ kind: 'calls', calls: [{ id: `call_${step}`, name: 'read_file', args: { path: `src/f${step}.ts` }, result: 'const x = 1;\n'.repeat(60) }] });
    }
    const { messages, system } = render({ system: 'You are a coding agent.', events }, format);
    const options = { format, budgets: { tokens_max: 4000 }, ...(system === undefined ? {} : { system }) };
    const r = fitMessages(messages, options);
    assert.deepEqual(validateMessages(r.messages, format), [], format);
    assert.ok(r.messages.length < messages.length, `${format}: something was cut`);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, format);
    const task = system !== undefined ? 0 : 1; // the system prompt beside the messages, or first among them
    const last = messages.length - 1; // the last result; its call is the message before it
    for (const i of [task, last - 1, last]) assert.equal(r.decisions[i].reason, 'pinned', `${format}: message ${i}`);
    assert.ok(r.decisions.some((d) => d.reason === 'budget_exceeded' || d.reason === 'group_excluded'), `${format}: earlier steps compete`);
    // Sessions plan the same run turn by turn, each request valid and within the budget.
    const session = createSession({ ...options, cache: format === 'anthropic' ? 'anthropic' : 'openai' });
    const perStep = 2; // a call and its result, in every format
    for (let end = task + 1 + perStep; end <= messages.length; end += perStep) {
      const turn = session.fit(messages.slice(0, end));
      assert.deepEqual(validateMessages(turn.messages, format), [], `${format}: session turn of ${end} messages`);
      assert.ok(turn.metrics.budget_used <= turn.metrics.effective_budget, `${format}: session turn of ${end} messages`);
    }
  }
});

test('keep: the last N messages, or a predicate', () => {
  const h = history();
  assert.equal(fitMessages(h, { format: 'openai', budgets: { tokens_max: 1000 }, keep: 5 }).decisions[2].reason, 'pinned');
  const r = fitMessages(h, { format: 'openai', budgets: { tokens_max: 1000 }, keep: (_m, i) => i === 1 });
  assert.equal(r.decisions[1].reason, 'pinned');
});

test('what must be kept over the budget is PINNED_OVER_BUDGET, saying by how much', () => {
  assert.throws(
    () => fitMessages(history(), { format: 'openai', budgets: { tokens_max: 10 } }),
    (e) => e instanceof CtxpackError && e.code === 'PINNED_OVER_BUDGET' && /more than the effective budget 10/.test(e.message) && !e.message.includes(SECRET),
  );
});

test('an assistant message and all its parallel tool results go in or out together', () => {
  const h = [{ role: 'user', content: 'q' }, ...history().slice(4), { role: 'user', content: 'next' }];
  for (const tokens_max of [5, 10, 15, 20, 30, 100]) {
    let r;
    try {
      r = fitMessages(h, { format: 'openai', budgets: { tokens_max } });
    } catch (e) {
      assert.equal(e.code, 'PINNED_OVER_BUDGET');
      continue;
    }
    const inc = r.decisions.slice(1, 4).map((d) => d.included);
    assert.ok(inc.every((x) => x === inc[0]), `tokens_max ${tokens_max}`);
  }
});

test('orphaned calls and results in the input are left out, never sent', () => {
  const h = [
    { role: 'user', content: 'a' },
    { role: 'tool', tool_call_id: 'zz', content: 'orphan' },
    { role: 'assistant', content: null, tool_calls: [call('x')] },
    { role: 'user', content: 'b' },
  ];
  assert.deepEqual(validateMessages(h, 'openai').map((v) => [v.index, v.rule]), [[1, 'orphan_tool_result'], [2, 'missing_tool_result']]);
  const r = fitMessages(h, { format: 'openai', budgets: { tokens_max: 1000 } });
  assert.deepEqual(reasons(r), ['scored', 'invalid_structure', 'invalid_structure', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);
  assert.equal(r.warnings.length, 2);
});

test('LangChain: a tool call without an id (optional in its type) cannot be answered: left out, not a refusal', () => {
  const h = [
    new HumanMessage('q'),
    new AIMessage({ content: '', tool_calls: [{ name: 'search', args: {} }] }),
    new AIMessage('an answer'),
    new HumanMessage('q2'),
  ];
  assert.deepEqual(
    validateMessages(h, 'langchain').map((v) => [v.index, v.rule]),
    [[1, 'missing_tool_result']],
  );
  const r = fitMessages(h, { format: 'langchain', budgets: { tokens_max: 1000 } });
  assert.deepEqual(reasons(r), ['scored', 'invalid_structure', 'scored', 'pinned']);
  assert.equal(r.warnings.length, 1);
  // OpenAI's type requires the id: there it is a malformed message.
  assert.throws(
    () => fitMessages([{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'user', content: 'q2' }], { format: 'openai', budgets: { tokens_max: 1000 } }),
    { code: 'INVALID_FIELD', index: 1, field: 'tool_calls[0].id' },
  );
});

test('a broken message that must be kept is INVALID_MESSAGES', () => {
  const h = [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [call('x')] }];
  assert.throws(() => fitMessages(h, { format: 'openai', budgets: { tokens_max: 1000 } }), { code: 'INVALID_MESSAGES', index: 1 });
});

test('Anthropic: the system prompt is counted and the request starts with a user message', () => {
  const msgs = [
    { role: 'user', content: 'first '.repeat(200) },
    { role: 'assistant', content: 'reply' },
    { role: 'user', content: 'last' },
  ];
  // framing: false: the budget and pinned_tokens are sums of the texts' counts alone.
  const r = fitMessages(msgs, { format: 'anthropic', system: 'x'.repeat(40), budgets: { tokens_max: 30 }, framing: false });
  assert.deepEqual(reasons(r), ['budget_exceeded', 'first_not_user', 'pinned']);
  assert.equal(r.metrics.pinned_tokens, estimateTokens('x'.repeat(40)) + estimateTokens('last'));
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  assert.throws(() => fitMessages(msgs, { format: 'openai', system: 'x', budgets: { tokens_max: 30 } }), { code: 'INVALID_OPTION', field: 'system' });
});

test('Anthropic: a kept assistant message brings the user message before it (PINNED_OVER_BUDGET when that does not fit)', () => {
  const msgs = [
    { role: 'user', content: 'word '.repeat(2000) },
    { role: 'user', content: 'a short question' },
    { role: 'assistant', content: 'short answer' },
    { role: 'user', content: 'follow-up question' },
  ];
  const est = (t) => Math.ceil(t.length / 4);
  // keep: 2 pins the assistant message; it cannot open the request, so the nearest user message
  // before it is kept too: the input is valid, only the budget is short.
  const options = (tokens_max) => ({ format: 'anthropic', system: 'sys', keep: 2, budgets: { tokens_max }, countTokens: est });
  const r = fitMessages(msgs, options(100));
  assert.deepEqual(reasons(r), ['budget_exceeded', 'pinned', 'pinned', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  const big = [msgs[0], msgs[2], msgs[3]];
  assert.throws(() => fitMessages(big, options(1000)), (e) => e.code === 'PINNED_OVER_BUDGET' && /more than the effective budget 1000/.test(e.message));
  assert.deepEqual(reasons(fitMessages(big, options(3000))), ['pinned', 'pinned', 'pinned']);
  // Nothing before it from the user: the input itself cannot open with a user message.
  assert.throws(() => fitMessages([msgs[2], msgs[3]], options(3000)), { code: 'INVALID_MESSAGES', field: 'first_not_user', index: 0 });
  // The nearest user message before it breaks a rule (an orphaned tool result): the one before that opens the request.
  const withOrphan = [
    { role: 'user', content: 'task one' },
    { role: 'assistant', content: 'answer' },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'gone', content: 'r' }] },
    { role: 'assistant', content: 'kept one' },
    { role: 'user', content: 'q2' },
    { role: 'assistant', content: 'a2' },
  ];
  const r2 = fitMessages(withOrphan, { format: 'anthropic', keep: (m, i) => i === 3, budgets: { tokens_max: 1000 } });
  assert.deepEqual(reasons(r2), ['pinned', 'scored', 'invalid_structure', 'pinned', 'pinned', 'pinned']);
  assert.deepEqual(validateMessages(r2.messages, 'anthropic'), []);
});

test('Anthropic: a unit that would open the request is left out inside the selection, so its budget goes to others', () => {
  const est = (t) => Math.ceil(t.length / 4);
  const msgs = [
    { role: 'user', content: 'greetings and some long unrelated preamble '.repeat(40) }, // does not fit
    { role: 'assistant', content: 'the deploy token rotates every hour on the staging server '.repeat(3) }, // most relevant
    { role: 'user', content: 'ok thanks, what about lunch plans for friday afternoon' },
    { role: 'assistant', content: 'lunch at noon near the office on friday works for everyone' },
    { role: 'user', content: 'how often does the deploy token rotate on staging?' },
  ];
  const budget = est(msgs[4].content) + est(msgs[1].content) + est(msgs[2].content) + 4;
  const r = fitMessages(msgs, { format: 'anthropic', budgets: { tokens_max: budget }, countTokens: est });
  // Message 1 ranks first but nothing before it fits: it would open the request, so the walk holds
  // it back and it stays out; messages 2 and 3 take the budget it would have used.
  assert.deepEqual(reasons(r), ['budget_exceeded', 'first_not_user', 'scored', 'scored', 'pinned']);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  assert.equal(r.messages[0], msgs[2]);
  // The same history as OpenAI (no user-first rule) keeps message 1.
  const o = fitMessages(msgs, { format: 'openai', budgets: { tokens_max: budget }, countTokens: est });
  assert.equal(o.decisions[1].included, true);
});

test('validateMessages: each rule', () => {
  const rules = (m, f) => validateMessages(m, f).map((v) => v.rule);
  assert.deepEqual(rules([], 'openai'), ['no_messages']);
  assert.deepEqual(rules([{ role: 'user', content: 'a' }, { role: 'system', content: 's' }], 'ai-sdk'), ['system_in_messages']);
  assert.deepEqual(rules([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }], 'ai-sdk'), ['system_in_messages'], 'ai@7 refuses a system message first too');
  assert.deepEqual(rules([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'system', content: 's' }], { name: 'ai-sdk', allowSystemInMessages: false }), ['system_in_messages', 'system_in_messages']);
  assert.deepEqual(rules([{ role: 'user', content: 'a' }, { role: 'system', content: 's' }], 'openai'), [], 'chat completions take a system message anywhere');
  assert.deepEqual(rules([{ role: 'assistant', content: 'a' }], 'anthropic'), ['first_not_user']);
  assert.deepEqual(rules([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'q' }] }], 'anthropic'), ['orphan_tool_result']);
  assert.deepEqual(rules([{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'q', name: 'f', input: {} }] }], 'anthropic'), ['missing_tool_result']);
  assert.deepEqual(rules([{ role: 'user', content: 'x' }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'q', toolName: 'f', output: { type: 'text', value: '' } }] }], 'ai-sdk'), ['orphan_tool_result']);
  const bad = validateMessages([{ role: 'wizard', content: SECRET }], 'openai');
  assert.equal(bad[0].rule, 'malformed');
  assert.ok(!bad[0].message.includes(SECRET) && !bad[0].message.includes('wizard'));
  assert.throws(() => validateMessages([], 'gemini'), { code: 'INVALID_OPTION', field: 'format' });
  assert.throws(() => validateMessages('x', 'openai'), { code: 'INVALID_INPUT' });
});

test('errors name the field and index, never the text', () => {
  assert.throws(
    () => fitMessages([{ role: 'user', content: SECRET }, { role: SECRET }], { format: 'openai', budgets: { tokens_max: 10 } }),
    (e) => e.code === 'INVALID_FIELD' && e.index === 1 && e.field === 'role' && !e.message.includes(SECRET),
  );
  assert.throws(
    () => fitMessages([{ role: 'user', content: SECRET }], { format: 'openai', budgets: { tokens_max: 10 }, countTokens: () => { throw new Error(SECRET); } }),
    (e) => e.code === 'TOKEN_COUNT_FAILED' && e.index === 0 && /messages\[0\]/.test(e.message) && !e.message.includes(SECRET),
  );
  assert.throws(() => fitMessages([], { format: 'openai', budgets: { tokens_max: 1 }, slicer: 'count-knapsack' }), { code: 'INVALID_OPTION', field: 'slicer' });
});

test('hostile messages: cycles and shared structures cost linear time, throwing getters become CtxpackErrors', () => {
  const loop = { type: 'text', text: 'x' };
  loop.a = loop;
  loop.b = loop;
  const wide = [];
  for (let i = 0; i < 40; i++) wide.push(wide, wide);
  const r = fitMessages([{ role: 'user', content: [loop, { type: 'text', text: 'y', more: wide }] }], { format: 'openai', budgets: { tokens_max: 100 } });
  assert.equal(r.messages.length, 1);
  const trap = { role: 'user', get content() { throw new Error(SECRET); } };
  assert.throws(() => fitMessages([trap], { format: 'openai', budgets: { tokens_max: 100 } }), (e) => e instanceof CtxpackError && e.code === 'INVALID_FIELD' && e.index === 0 && !e.message.includes(SECRET));
  assert.equal(validateMessages([trap], 'openai')[0].rule, 'malformed');
});
