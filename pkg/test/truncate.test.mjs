// Oversized tool results are truncated instead of failing the request (truncateToolResults): in
// every format the pair stays valid, the request fits, the same bytes go out on every later turn,
// an async counter gives the same cut, and the option turns it off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, estimateTokens, fitMessages, fitMessagesAsync, validateMessages } from 'ctxpack';
import { FORMATS, render } from './messages-histories.mjs';
import { sdkCheck } from './sdk-check.mjs';

const log = (n) => Array.from({ length: n }, (_, i) => `line ${i}: GET /api/item/${(i * 7919) % 1000} 200 ${i % 97}ms`).join('\n');

/** A task, one call whose result is `resultTokens` large (about), in flight, in `format`. */
function agent(format, resultText, extraCalls = []) {
  return render(
    {
      system: 'You are a coding agent.',
      events: [
        { kind: 'user', text: 'Find why the staging deploy fails.' },
        { kind: 'calls', calls: [{ id: 'c1', name: 'read_logs', args: { env: 'staging' }, result: resultText }, ...extraCalls], split: false },
      ],
    },
    format,
  );
}

for (const format of FORMATS) {
  test(`${format}: a tool result larger than the budget, in flight, is truncated: valid, within budget, its pair kept`, () => {
    const big = log(4000); // about 37k tokens by the estimator
    const { messages, system } = agent(format, big);
    const budgets = { tokens_max: 22_000 };
    assert.ok(estimateTokens(big) > budgets.tokens_max);
    const r = fitMessages(messages, { format, system, budgets });
    assert.deepEqual(validateMessages(r.messages, format), []);
    sdkCheck(format, r.messages);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
    assert.equal(r.messages.length, messages.length, 'the task, the call and its result');
    const d = r.decisions.find((x) => x.truncated);
    assert.ok(d, 'a decision says truncated');
    assert.ok(d.truncated.from > budgets.tokens_max && d.truncated.to <= Math.floor(r.metrics.effective_budget / 2));
    const sent = JSON.stringify(format === 'langchain' ? r.messages.map((m) => m.content) : r.messages);
    assert.match(sent, /\[… \d+ characters left out …\]/);
    assert.ok(sent.includes('line 0: GET') && sent.includes('line 3999: GET'), 'the head and the tail are kept');
    assert.throws(() => fitMessages(messages, { format, system, budgets, truncateToolResults: false }), (e) => e.code === 'PINNED_OVER_BUDGET');
  });
}

test('the truncated result is the same bytes on every later turn of a session (the prompt cache holds)', () => {
  const { messages } = agent('openai', log(4000));
  const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai' });
  const history = messages.slice();
  let first;
  for (let turn = 0; turn < 6; turn++) {
    const r = session.fit(history);
    const tool = r.messages.find((m) => m.role === 'tool');
    first ??= tool.content;
    assert.equal(tool.content, first, `turn ${turn}`);
    if (turn > 0) assert.ok(r.cache.prefixMessages >= 4, `turn ${turn}: the prefix through the truncated result is reused`);
    history.push({ role: 'assistant', content: `step ${turn} done` }, { role: 'user', content: `and step ${turn + 1}?` });
  }
});

test('several results in flight that fit one by one but not together share what is left (water-filling)', () => {
  const calls = [2, 3].map((k) => ({ id: `c${k}`, name: 'read_logs', args: { k }, result: log(700 + k) }));
  const { messages } = agent('openai', log(700), calls);
  const budgets = { tokens_max: 24_000 };
  const each = messages.filter((m) => m.role === 'tool').map((m) => estimateTokens(m.content));
  assert.ok(each.every((t) => t < budgets.tokens_max / 2) && each.reduce((a, b) => a + b) > budgets.tokens_max, 'each under the cap, together over');
  const r = fitMessages(messages, { format: 'openai', budgets });
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
  const cut = r.decisions.filter((d) => d.truncated);
  assert.equal(cut.length, 3);
  const sizes = cut.map((d) => d.truncated.to);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) < 300, `one common size: ${sizes}`);
});

test('maxTokens caps every tool result, kept by rule or not; invalid values are INVALID_OPTION', () => {
  const { messages } = agent('openai', log(300));
  const r = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 100_000 }, truncateToolResults: { maxTokens: 500 } });
  const d = r.decisions.find((x) => x.truncated);
  // The cap is on the result's text; the decision's count adds the message's framing.
  assert.ok(estimateTokens(r.messages[d.index].content) <= 500 && d.cost_tokens === d.truncated.to);
  const whole = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 100_000 } });
  assert.ok(whole.decisions.every((x) => x.truncated === undefined), 'under half the budget: sent whole');
  for (const bad of ['yes', { maxTokens: -1 }, { maxTokens: 1.5 }, { max: 3 }]) {
    assert.throws(() => fitMessages(messages, { format: 'openai', budgets: { tokens_max: 1000 }, truncateToolResults: bad }), (e) => e.code === 'INVALID_OPTION' && e.field.startsWith('truncateToolResults'));
  }
});

test('an async counter gives the same truncation as a synchronous one, each text counted once', async () => {
  const { messages, system } = agent('anthropic', log(4000));
  const options = { format: 'anthropic', system, budgets: { tokens_max: 22_000 } };
  const sync = fitMessages(messages, options);
  const seen = new Map();
  const countTokens = async (text) => {
    seen.set(text, (seen.get(text) ?? 0) + 1);
    return estimateTokens(text);
  };
  const async = await fitMessagesAsync(messages, { ...options, countTokens });
  assert.deepEqual(async.messages, sync.messages);
  assert.deepEqual(async.decisions, sync.decisions);
  assert.ok([...seen.values()].every((n) => n === 1), 'no text counted twice');
});

test('a cut never splits a surrogate pair', () => {
  const emoji = '😀'.repeat(20_000);
  const { messages } = agent('openai', emoji);
  const r = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 4000 } });
  const tool = r.messages.find((m) => m.role === 'tool').content;
  assert.ok(r.decisions.some((d) => d.truncated));
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(tool), 'no lone surrogate');
});

test('with a system prompt beside the messages, the results in flight still share what is left, alike with an async counter', async () => {
  const calls = [2, 3].map((k) => ({ id: `c${k}`, name: 'read_logs', args: { k }, result: log(1100 + k) }));
  const { messages, system } = agent('anthropic', log(1100), calls);
  const options = { format: 'anthropic', system: `${system} ${'Be exact. '.repeat(200)}`, budgets: { tokens_max: 24_000 } };
  const sync = fitMessages(messages, options);
  assert.deepEqual(validateMessages(sync.messages, 'anthropic'), []);
  assert.ok(sync.metrics.budget_used <= sync.metrics.effective_budget);
  assert.equal(sync.decisions.filter((d) => d.truncated).length, 1, 'one message carries the three results');
  const async = await fitMessagesAsync(messages, { ...options, countTokens: async (t) => estimateTokens(t) });
  assert.deepEqual(async.decisions, sync.decisions);
});

// ---- truncateUserMessage: a pasted user message too large for the budget ----------------------

/** A task pasted with a log of `lines` lines, then the assistant's first reply pending: the task is in flight. */
function pasted(format, text) {
  return render({ system: 'You are a coding agent.', events: [{ kind: 'user', text }] }, format);
}

for (const format of FORMATS) {
  test(`${format}: a pasted user message larger than the budget is PINNED_OVER_BUDGET, or truncated with truncateUserMessage`, () => {
    const task = `Why does this fail?\n${log(4000)}`;
    const { messages, system } = pasted(format, task);
    const before = JSON.stringify(format === 'langchain' ? messages.map((m) => m.content) : messages);
    const budgets = { tokens_max: 22_000 };
    assert.throws(() => fitMessages(messages, { format, system, budgets }), { code: 'PINNED_OVER_BUDGET' });
    const r = fitMessages(messages, { format, system, budgets, truncateUserMessage: true });
    assert.deepEqual(validateMessages(r.messages, format), []);
    sdkCheck(format, r.messages);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
    assert.equal(r.messages.length, messages.length);
    const d = r.decisions.find((x) => x.truncated);
    assert.equal(d.reason, 'pinned');
    assert.ok(d.truncated.from > budgets.tokens_max && d.truncated.to < d.truncated.from);
    const sent = JSON.stringify(format === 'langchain' ? r.messages.map((m) => m.content) : r.messages);
    assert.match(sent, /Why does this fail\?/, 'the head');
    assert.match(sent, /line 3999: /, 'the tail');
    assert.match(sent, /\[… \d+ characters left out …\]/);
    assert.equal(JSON.stringify(format === 'langchain' ? messages.map((m) => m.content) : messages), before, "the caller's messages are untouched");
  });
}

test('truncateUserMessage cuts text parts only: an image beside the text stays', () => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const messages = [{ role: 'user', content: [{ type: 'text', text: log(4000) }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }];
  const r = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 10_000 }, truncateUserMessage: true });
  assert.equal(r.messages[0].content[1], messages[0].content[1]);
  assert.match(r.messages[0].content[0].text, /^line 0: [^]*\[… \d+ characters left out …\][^]*line 3999: /);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
});

test('with truncateToolResults: false, truncateUserMessage still cuts the task, and the tool results stay whole', () => {
  const { messages, system } = agent('openai', log(300));
  const big = messages.map((m) => (m.role === 'user' ? { ...m, content: `Why?\n${log(4000)}` } : m));
  const r = fitMessages(big, { format: 'openai', system, budgets: { tokens_max: 22_000 }, truncateToolResults: false, truncateUserMessage: true });
  const cut = r.decisions.filter((d) => d.truncated).map((d) => big[d.index].role);
  assert.deepEqual(cut, ['user']);
  assert.equal(r.messages.find((m) => m.role === 'tool').content, log(300));
});

test('the pasted message shares the room with the results in flight, the largest cut first', () => {
  const { messages, system } = agent('openai', log(3000));
  const big = messages.map((m) => (m.role === 'user' ? { ...m, content: `Why?\n${log(500)}` } : m));
  const r = fitMessages(big, { format: 'openai', system, budgets: { tokens_max: 8_000 }, truncateUserMessage: true });
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
  const byRole = Object.fromEntries(r.decisions.filter((d) => d.truncated).map((d) => [big[d.index].role, d.truncated]));
  assert.ok(byRole.tool && byRole.user, 'both cut');
  // Water-filling: both cut to about one common size.
  assert.ok(Math.abs(byRole.tool.to - byRole.user.to) < 0.2 * byRole.tool.to, JSON.stringify(byRole));
});

test('truncateUserMessage: the same bytes on every later turn of a session, alike with an async counter; invalid values are INVALID_OPTION', async () => {
  const { messages, system } = pasted('anthropic', `Why does this fail?\n${log(4000)}`);
  const options = { format: 'anthropic', system, budgets: { tokens_max: 22_000 }, truncateUserMessage: true };
  const s = createSession(options);
  const first = s.fit(messages);
  const again = s.fit(messages);
  assert.equal(JSON.stringify(again.messages), JSON.stringify(first.messages));
  const a = await fitMessagesAsync(messages, { ...options, countTokens: async (t) => estimateTokens(t) });
  assert.equal(JSON.stringify(a.messages), JSON.stringify(first.messages));
  assert.throws(() => fitMessages(messages, { ...options, truncateUserMessage: 'yes' }), { code: 'INVALID_OPTION' });
});

test('the system prompt alone over the budget is PINNED_OVER_BUDGET even with truncateUserMessage', () => {
  const messages = [{ role: 'user', content: 'Hi' }];
  assert.throws(() => fitMessages(messages, { format: 'anthropic', system: log(4000), budgets: { tokens_max: 22_000 }, truncateUserMessage: true }), {
    code: 'PINNED_OVER_BUDGET',
    // Nothing was cut ('Hi' is short): the message says what is over, and claims no truncation.
    message: /^what must be kept \(system prompt, tools, the latest user message, the last step, options\.keep\) takes \d+ tokens, \d+ more than the effective budget 22000; the most is options\.system, \d+ tokens, which is never cut$/,
  });
});
