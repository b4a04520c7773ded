// Every request valid, whatever the caller does (issue 28): cache markers the caller placed or fed
// back, an edited saved state, LangChain's invalid tool calls, a history changed while counting,
// strategies that must keep what fits, overlapping async turns, and who is blamed for an error.
// Each test fails on the code before the fix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { convertCompletionsMessageToBaseMessage, convertMessagesToCompletionsMessageParams, convertMessagesToResponsesInput } from '@langchain/openai';
import { CtxpackError, createSession, estimateTokens, fitMessages, fitMessagesAsync, validateMessages } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';
import { chat } from './messages-histories.mjs';

/** The `cache_control` markers of a request: the system blocks' and every block's (tool results' inner blocks too). */
function markers(system, messages) {
  const count = (blocks) => (Array.isArray(blocks) ? blocks.reduce((n, b) => n + (b?.cache_control != null ? 1 : 0) + count(b?.content), 0) : 0);
  return count(system) + messages.reduce((n, m) => n + count(m.content), 0);
}

const words = (n, seed) => Array.from({ length: n }, (_, i) => `w${(i * 7919 + seed * 104729) % 997}`).join(' ');

test('cache markers: a system prompt with its own cache_control leaves room, never more than 4 in any request', () => {
  const { messages } = agentSession(5, 'anthropic', 14);
  const system = [
    { type: 'text', text: words(900, 1), cache_control: { type: 'ephemeral' } },
    { type: 'text', text: words(300, 2) },
  ];
  const session = createSession({ format: 'anthropic', system, budgets: { tokens_max: 12_000 }, cache: 'anthropic', breakpoints: true });
  let placed = 0;
  for (let end = 1; end < messages.length; end++) {
    if (messages[end].role !== 'user' || (end + 1 < messages.length && messages[end + 1].role !== 'assistant')) continue;
    const r = session.fit(messages.slice(0, end + 1));
    assert.ok(markers(system, r.messages) <= 4, `request after messages[${end}]: ${markers(system, r.messages)} markers`);
    assert.equal(r.cache.breakpoints.length, markers([], r.messages));
    placed = Math.max(placed, r.cache.breakpoints.length);
  }
  assert.equal(placed, 3, 'the session still places what the limit leaves');
});

test('cache markers: the session\'s output sent back as the next history never piles markers up', () => {
  const session = createSession({ format: 'anthropic', budgets: { tokens_max: 200_000 }, cache: 'anthropic', breakpoints: true });
  let history = [{ role: 'user', content: words(700, 0) }];
  let most = 0;
  for (let turn = 1; turn <= 10; turn++) {
    const r = session.fit(history);
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
    assert.ok(markers([], r.messages) <= 4, `turn ${turn}: ${markers([], r.messages)} markers`);
    assert.ok(r.warnings.every((w) => !w.startsWith('cache_markers_removed')), 'our own markers are not the caller\'s');
    most = Math.max(most, markers([], r.messages));
    // The application keeps what it sent (with our markers) and appends the reply and the next question.
    history = [...r.messages, { role: 'assistant', content: words(400, turn) }, { role: 'user', content: words(300, turn + 100) }];
  }
  assert.ok(most >= 2, 'breakpoints are placed at all');
});

test('cache markers: fitMessages keeps the caller\'s at most 4 with the system prompt\'s, removing the earliest', () => {
  const marked = (role, text) => ({ role, content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] });
  const history = [];
  for (let i = 0; i < 8; i++) history.push(marked(i % 2 === 0 ? 'user' : 'assistant', words(50, i)));
  history.push({ role: 'user', content: 'and now?' });
  const system = [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }];
  const r = fitMessages(history, { format: 'anthropic', system, budgets: { tokens_max: 100_000 } });
  assert.equal(r.messages.length, 9);
  assert.equal(markers(system, r.messages), 4);
  assert.deepEqual(r.messages.map((m) => markers([], [m])), [0, 0, 0, 0, 0, 1, 1, 1, 0], 'the latest markers stay');
  assert.ok(r.warnings.some((w) => w.startsWith('cache_markers_removed: 5 ')));
  assert.equal(history[0].content[0].cache_control.type, 'ephemeral', 'the caller\'s messages are untouched');
  const plain = fitMessages(history.slice(4), { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.deepEqual(plain.warnings, []);
  assert.equal(plain.messages[0], history[4], 'within the limit, the messages themselves');
});

test('an edited saved state (the tool call removed from state.previous) never makes an orphaned result', () => {
  const history = [
    { role: 'user', content: words(60, 1) },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: words(200, 2) }] },
    { role: 'assistant', content: words(40, 3) },
    { role: 'user', content: words(30, 4) },
  ];
  const first = createSession({ format: 'anthropic', budgets: { tokens_max: 50_000 }, cache: 'anthropic' });
  first.fit(history);
  const state = first.exportState();
  state.previous.entries = state.previous.entries.filter(([index]) => index !== 1);
  const next = createSession({ format: 'anthropic', budgets: { tokens_max: 50_000 }, cache: 'anthropic', state });
  const more = [...history, { role: 'assistant', content: words(20, 5) }, { role: 'user', content: words(20, 6) }];
  const r = next.fit(more);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  assert.ok(r.warnings.some((w) => w.startsWith('state_mismatch:')));
  assert.equal(r.messages.length, more.length, 'everything fits: everything is sent');

  // A state whose result is kept without its call: the same.
  const noCall = first.exportState();
  noCall.previous.entries = noCall.previous.entries.filter(([index]) => index !== 2);
  const r2 = createSession({ format: 'anthropic', budgets: { tokens_max: 50_000 }, cache: 'anthropic', state: noCall }).fit(more);
  assert.deepEqual(validateMessages(r2.messages, 'anthropic'), []);
  assert.ok(r2.warnings.some((w) => w.startsWith('state_mismatch:')));
  // Out of order entries are refused when the state is read.
  const shuffled = first.exportState();
  shuffled.previous.entries.reverse();
  assert.throws(() => createSession({ format: 'anthropic', budgets: { tokens_max: 50_000 }, state: shuffled }), (e) => e.code === 'INVALID_OPTION' && e.field === 'state.previous.entries');
});

test('LangChain: a call in invalid_tool_calls or additional_kwargs is a call; its ToolMessage is not an orphan', () => {
  const bad = new AIMessage({
    content: '',
    tool_calls: [],
    invalid_tool_calls: [{ type: 'invalid_tool_call', id: 'c1', name: 'search', args: '{"q": "unterminated', error: 'not JSON' }],
    additional_kwargs: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q": "unterminated' } }] },
  });
  const history = [new SystemMessage('sys'), new HumanMessage('find it'), bad, new ToolMessage({ tool_call_id: 'c1', content: 'error: bad arguments' }), new HumanMessage('try again')];
  assert.deepEqual(validateMessages(history, 'langchain'), []);
  const r = fitMessages(history, { format: 'langchain', budgets: { tokens_max: 10_000 } });
  assert.equal(r.messages.length, 5);
  // Without its result the call is unanswered: both go, or neither.
  const unanswered = fitMessages([history[0], history[1], bad, history[4]], { format: 'langchain', budgets: { tokens_max: 10_000 } });
  assert.ok(!unanswered.messages.includes(bad));
  assert.deepEqual(validateMessages(unanswered.messages, 'langchain'), []);
  // LangChain's own converter sends the invalid call: every call it sends has its result.
  const params = convertMessagesToCompletionsMessageParams({ messages: r.messages });
  const calls = params.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
  assert.deepEqual(calls, ['c1']);
  assert.deepEqual(params.filter((m) => m.role === 'tool').map((m) => m.tool_call_id), calls);
  const sent = convertMessagesToCompletionsMessageParams({ messages: unanswered.messages });
  assert.deepEqual(sent.flatMap((m) => m.tool_calls ?? []), [], 'and without it, the converter sends no call');
});

test('LangChain: an invalid call beside a valid one is not sent, so it needs no result (the step is kept, not refused or dropped)', () => {
  // LangChain's own parser on a reply with two parallel calls, one with arguments that are not JSON.
  const ai = convertCompletionsMessageToBaseMessage({
    message: { role: 'assistant', content: null, tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read_logs', arguments: '{"svc":"auth"}' } },
      { id: 'call_2', type: 'function', function: { name: 'read_db', arguments: '{"q": "select' } },
    ] },
    rawResponse: { id: 'r1', choices: [] },
  });
  assert.deepEqual([ai.tool_calls.map((c) => c.id), ai.invalid_tool_calls.map((c) => c.id)], [['call_1'], ['call_2']]);
  const step = [new SystemMessage('sys'), new HumanMessage('why does login fail?'), ai, new ToolMessage({ tool_call_id: 'call_1', content: 'auth: token expired' })];
  for (const history of [step, [...step, new HumanMessage('now fix it')]]) {
    assert.deepEqual(validateMessages(history, 'langchain'), []);
    const r = fitMessages(history, { format: 'langchain', budgets: { tokens_max: 10_000 } });
    assert.equal(r.messages.length, history.length, 'nothing left out');
    // What both OpenAI converters send: the valid call alone, with its result.
    const chat = convertMessagesToCompletionsMessageParams({ messages: r.messages });
    assert.deepEqual(chat.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)), ['call_1']);
    assert.deepEqual(chat.filter((m) => m.role === 'tool').map((m) => m.tool_call_id), ['call_1']);
    const responses = convertMessagesToResponsesInput({ messages: r.messages, zdrEnabled: false, model: 'gpt-4o' });
    assert.deepEqual(responses.filter((i) => i.type === 'function_call').map((i) => i.call_id), ['call_1']);
  }
  // A result for the invalid call answers a call no converter sends: an orphan.
  const orphan = [...step, new ToolMessage({ tool_call_id: 'call_2', content: 'error: bad arguments' }), new HumanMessage('again')];
  assert.deepEqual(validateMessages(orphan, 'langchain').map((v) => [v.index, v.rule]), [[4, 'orphan_tool_result']]);
});

test('the caller\'s array is read once: emptying it while the async counter runs loses nothing', async () => {
  const history = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'the task' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go on' }];
  let first = true;
  const countTokens = async (text) => {
    if (first) {
      first = false;
      history.length = 0;
    }
    return estimateTokens(text);
  };
  const r = await fitMessagesAsync(history, { format: 'openai', budgets: { tokens_max: 1000 }, countTokens });
  assert.deepEqual(r.messages.map((m) => m.content), ['sys', 'the task', 'ok', 'go on']);

  const again = [{ role: 'user', content: 'the task' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go on' }];
  const session = createSession({ format: 'anthropic', budgets: { tokens_max: 1000 }, countTokens: (text) => (again.splice(0, 1), estimateTokens(text)) });
  assert.equal(session.fit(again).messages.length, 3, 'a synchronous counter that edits the array changes nothing either');
});

test('every strategy keeps everything when everything fits (a 601-message chat at ten times its size)', () => {
  const { messages } = chat(3, 600);
  const size = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 10_000_000 } }).metrics.tokens_selected;
  for (const slicer of ['exact', 'knapsack', 'greedy', 'ranked', 'packer']) {
    const r = fitMessages(messages, { format: 'openai', slicer, budgets: { tokens_max: size * 10 } });
    assert.equal(r.messages.length, messages.length, slicer);
  }
});

test('the value-maximising strategies give a message of low but positive value a value: they fill what is left', () => {
  // Many short messages of almost no relevance (no shared word, recency near 0) and one huge one
  // that does not fit: the small ones all fit beside what is pinned.
  const history = [];
  for (let i = 0; i < 300; i++) history.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `note ${i} ${words(8, i)}` });
  history.push({ role: 'user', content: 'zzz '.repeat(40_000) });
  history.push({ role: 'assistant', content: 'ok' });
  history.push({ role: 'user', content: 'what now' });
  const all = fitMessages(history, { format: 'openai', budgets: { tokens_max: 10_000_000 } });
  // Room for the small ones even with the knapsack's sizes rounded up to its buckets of 100, not for the huge one.
  const small = all.decisions.slice(0, 300).reduce((a, d) => a + Math.ceil(d.cost_tokens / 100) * 100, 0);
  const budget = all.metrics.pinned_tokens + small + 100;
  assert.ok(all.decisions[300].cost_tokens > small);
  for (const slicer of ['exact', 'knapsack']) {
    const r = fitMessages(history, { format: 'openai', slicer, budgets: { tokens_max: budget } });
    const kept = r.decisions.slice(0, 300).filter((d) => d.included).length;
    assert.equal(kept, 300, `${slicer} keeps ${kept} of the 300 small messages`);
    assert.ok(!r.decisions[300].included);
  }
});

test('overlapping fitAsync turns run in call order: each text counted once, the latest turn remembered', async () => {
  const { messages } = agentSession(7, 'openai', 4);
  const ends = [];
  for (let i = 1; i < messages.length; i++) if ((messages[i].role === 'user' || messages[i].role === 'tool') && messages[i + 1]?.role === 'assistant') ends.push(i);
  const turns = ends.slice(0, 7);
  const counted = async (session, overlap) => {
    const calls = { n: 0 };
    const countTokens = async (text) => {
      calls.n++;
      await new Promise((resolve) => setTimeout(resolve, (text.length * 7) % 5));
      return estimateTokens(text);
    };
    const s = createSession({ format: 'openai', budgets: { tokens_max: 3000 }, cache: 'openai', countTokens, counterId: 'slow' });
    const results = [];
    if (overlap) results.push(...(await Promise.all(turns.map((end) => s.fitAsync(messages.slice(0, end + 1))))));
    else for (const end of turns) results.push(await s.fitAsync(messages.slice(0, end + 1)));
    return { calls: calls.n, results, state: s.exportState() };
  };
  const sequential = await counted(createSession, false);
  const overlapping = await counted(createSession, true);
  assert.equal(overlapping.calls, sequential.calls);
  assert.deepEqual(overlapping.results.map((r) => r.cache.prefixMessages), sequential.results.map((r) => r.cache.prefixMessages));
  assert.deepEqual(overlapping.state.previous, sequential.state.previous, 'the latest turn is remembered');
});

test('a synchronous fit while a fitAsync turn runs is SESSION_BUSY; the session works after', async () => {
  const session = createSession({ format: 'openai', budgets: { tokens_max: 1000 }, countTokens: async (t) => estimateTokens(t) });
  const history = [{ role: 'user', content: 'hi' }];
  const pending = session.fitAsync(history);
  assert.throws(() => session.fit(history), (e) => e instanceof CtxpackError && e.code === 'SESSION_BUSY');
  await pending;
  const sync = createSession({ format: 'openai', budgets: { tokens_max: 1000 } });
  assert.equal(sync.fit(history).messages.length, 1);
  assert.equal((await session.fitAsync(history)).messages.length, 1, 'a rejected turn does not block the next');
});

test('errors: the caller is blamed only for what the caller\'s code threw', () => {
  const budgets = { tokens_max: 1000 };
  // A getter of the caller's that throws: the caller's fault, with what it threw.
  const thrown = new Error('getter');
  const hostile = { role: 'user', get content() { throw thrown; } };
  assert.throws(() => fitMessages([hostile], { format: 'openai', budgets }), (e) => e.code === 'INVALID_FIELD' && e.index === 0 && e.cause === thrown);
  // A keep callback that throws: the caller's option, named.
  const boom = new TypeError('keep');
  assert.throws(
    () => fitMessages([{ role: 'user', content: 'a' }], { format: 'openai', budgets, keep: () => { throw boom; } }),
    (e) => e.code === 'INVALID_OPTION' && e.field === 'keep' && e.cause === boom,
  );
  // Our own code failing on plain input is INTERNAL, not the caller's fault.
  const original = Uint8Array.prototype.indexOf;
  const ours = new TypeError('ours');
  Uint8Array.prototype.indexOf = () => { throw ours; };
  try {
    assert.throws(
      () => fitMessages([{ role: 'user', content: 'a' }], { format: 'anthropic', budgets }),
      (e) => e instanceof CtxpackError && e.code === 'INTERNAL' && e.cause === ours,
    );
  } finally {
    Uint8Array.prototype.indexOf = original;
  }
});
