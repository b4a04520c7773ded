// The AI SDK format against the AI SDK itself (ai@7, its mock model; no network): tool approvals
// (`needsApproval`) and the system prompt beside the messages. Every fitted request must be one
// that `generateText` runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createSession, fitMessages, validateMessages } from 'ctxpack';

/** A model that answers 'ok' and records the prompts it was given. */
function mockModel() {
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

const executed = [];
const tools = {
  rm: tool({
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } } }),
    needsApproval: true,
    execute: async ({ path }) => {
      executed.push(path);
      return `deleted ${path}`;
    },
  }),
};

const call = (id, path) => ({ type: 'tool-call', toolCallId: id, toolName: 'rm', input: { path } });
const request = (approval, id) => ({ type: 'tool-approval-request', approvalId: approval, toolCallId: id });
const response = (approval, approved) => ({ type: 'tool-approval-response', approvalId: approval, approved });
const result = (id, value) => ({ type: 'tool-result', toolCallId: id, toolName: 'rm', output: { type: 'text', value } });

/** Old turns, an approved deletion that ran, then a new request awaiting its approval's run. */
function approvalHistory(approved) {
  return [
    { role: 'user', content: 'old question about the weather '.repeat(30) },
    { role: 'assistant', content: 'old answer about the weather '.repeat(30) },
    { role: 'user', content: 'delete a.txt' },
    { role: 'assistant', content: [call('t1', 'a.txt'), request('a1', 't1')] },
    { role: 'tool', content: [response('a1', true)] },
    { role: 'tool', content: [result('t1', 'deleted a.txt')] },
    { role: 'assistant', content: 'Deleted a.txt.' },
    { role: 'user', content: 'now delete b.txt' },
    { role: 'assistant', content: [call('t2', 'b.txt'), request('a2', 't2')] },
    { role: 'tool', content: [response('a2', approved)] },
  ];
}

test('AI SDK tool approvals: a response answers its call, and the approval stays with the call', async () => {
  for (const approved of [true, false]) {
    const history = approvalHistory(approved);
    assert.deepEqual(validateMessages(history, 'ai-sdk'), [], 'the history is valid as it is');
    const full = fitMessages(history, { format: 'ai-sdk', budgets: { tokens_max: 100_000 } });
    assert.equal(full.messages.length, history.length);
    assert.deepEqual(full.warnings, []);
    // The completed approval (call, response, result) is one unit; the pending one is the step in flight.
    const units = full.decisions.map((d) => d.unit);
    assert.equal(units[4], units[3]);
    assert.equal(units[5], units[3]);
    assert.equal(units[9], units[8]);
    for (const tokens_max of [5, 10, 14, 20, 30, 400, 100_000]) {
      let r;
      try {
        r = fitMessages(history, { format: 'ai-sdk', budgets: { tokens_max } });
      } catch (e) {
        assert.equal(e.code, 'PINNED_OVER_BUDGET', `${tokens_max}: ${e.message}`);
        continue;
      }
      assert.deepEqual(validateMessages(r.messages, 'ai-sdk'), [], `${tokens_max}`);
      const kept = new Set(r.decisions.filter((d) => d.included).map((d) => d.index));
      for (const i of [3, 4, 5]) assert.equal(kept.has(i), kept.has(3), `${tokens_max}: the approval unit is whole`);
      for (const i of [7, 8, 9]) assert.ok(kept.has(i), `${tokens_max}: the task and the step in flight`);
      const { model, prompts } = mockModel();
      executed.length = 0;
      await generateText({ model, messages: r.messages, tools });
      assert.deepEqual(executed, approved ? ['b.txt'] : [], `${tokens_max}: the approved tool runs`);
      assert.equal(prompts.length, 1);
    }
  }
});

test('AI SDK tool approvals: a response without its request, or answered twice, is left out', () => {
  const history = approvalHistory(true);
  const orphan = [...history.slice(0, 8), { role: 'tool', content: [response('zz', true)] }];
  assert.deepEqual(
    validateMessages(orphan, 'ai-sdk').map((v) => [v.index, v.rule]),
    [[8, 'orphan_tool_result']],
  );
  const twice = [...history, { role: 'tool', content: [response('a2', true)] }];
  assert.deepEqual(
    validateMessages(twice, 'ai-sdk').map((v) => [v.index, v.rule]),
    [[10, 'orphan_tool_result']],
  );
  // An approval of a call its message does not make: the SDK would find no call to run.
  const strayApproval = [history[7], { role: 'assistant', content: [request('a7', 'nowhere')] }, { role: 'tool', content: [response('a7', true)] }];
  assert.deepEqual(
    validateMessages(strayApproval, 'ai-sdk').map((v) => [v.index, v.rule]),
    [[1, 'missing_tool_result']],
  );
  const unanswered = [history[7], { role: 'assistant', content: [call('t9', 'c.txt'), request('a9', 't9')] }, { role: 'user', content: 'hm' }];
  assert.deepEqual(
    validateMessages(unanswered, 'ai-sdk').map((v) => [v.index, v.rule]),
    [[1, 'missing_tool_result']],
  );
});

test("AI SDK: options.system is counted and kept beside the messages (ai@7 refuses system messages in 'messages')", async () => {
  const system = 'You are a careful file assistant. '.repeat(10);
  const history = approvalHistory(true).slice(0, 8);
  const without = fitMessages(history, { format: 'ai-sdk', budgets: { tokens_max: 100_000 } });
  const r = fitMessages(history, { format: 'ai-sdk', system, budgets: { tokens_max: 100_000 } });
  assert.ok(r.metrics.pinned_tokens > without.metrics.pinned_tokens, 'the system prompt is counted');
  assert.ok(r.messages.every((m) => m.role !== 'system'), 'never returned among the messages');
  const { model, prompts } = mockModel();
  await generateText({ model, system, messages: r.messages });
  assert.equal(prompts[0][0].role, 'system');
  // A system message as the AI SDK's own type, and arrays of them, are system prompts too.
  const asMessage = fitMessages(history, { format: 'ai-sdk', system: { role: 'system', content: system }, budgets: { tokens_max: 100_000 } });
  assert.equal(asMessage.metrics.pinned_tokens, r.metrics.pinned_tokens);
  fitMessages(history, { format: 'ai-sdk', system: [{ role: 'system', content: system }], budgets: { tokens_max: 100_000 } });
  assert.throws(() => fitMessages(history, { format: 'ai-sdk', system: 42, budgets: { tokens_max: 100 } }), { code: 'INVALID_OPTION', field: 'system' });
  assert.throws(() => fitMessages(history, { format: 'langchain', system: 'x', budgets: { tokens_max: 100 } }), { code: 'INVALID_OPTION', field: 'system' });
  // Sessions take it per turn, as for Anthropic.
  const session = createSession({ format: 'ai-sdk', system, budgets: { tokens_max: 100_000 } });
  assert.equal(session.fit(history).metrics.pinned_tokens, r.metrics.pinned_tokens);
});

test('OpenAI takes a system message anywhere; the AI SDK (ai@7 by default) none among the messages', () => {
  const history = [
    { role: 'system', content: 'rules' },
    { role: 'user', content: 'hello' },
    { role: 'system', content: 'context update: the user is on the staging server' },
    { role: 'user', content: 'deploy' },
  ];
  assert.deepEqual(validateMessages(history, 'openai'), []);
  const r = fitMessages(history, { format: 'openai', budgets: { tokens_max: 1000 } });
  assert.deepEqual(
    r.decisions.map((d) => d.reason),
    ['pinned', 'scored', 'pinned', 'pinned'],
  );
  assert.deepEqual(
    validateMessages(history, 'ai-sdk').map((v) => [v.index, v.rule]),
    [[0, 'system_in_messages'], [2, 'system_in_messages']],
  );
});

test("AI SDK with allowSystemInMessages: a system message anywhere, as ai@7 takes it with the option of that name", async () => {
  const history = [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'hi' },
    { role: 'system', content: 'context update: the user is on the staging server' },
    { role: 'user', content: 'deploy' },
  ];
  const format = { name: 'ai-sdk', allowSystemInMessages: true };
  assert.deepEqual(validateMessages(history, format), []);
  assert.deepEqual(validateMessages(history, { name: 'ai-sdk', allowSystemInMessages: false }).map((v) => v.rule), ['system_in_messages']);
  const r = fitMessages(history, { format, budgets: { tokens_max: 1000 } });
  assert.deepEqual(r.decisions.map((d) => d.reason), ['scored', 'scored', 'pinned', 'pinned']);
  // Without the option the pinned system message breaks the rule: refused, as generateText refuses it.
  assert.throws(() => fitMessages(history, { format: 'ai-sdk', budgets: { tokens_max: 1000 } }), { code: 'INVALID_MESSAGES' });
  // What it returns, generateText runs when given the same option.
  const { model, prompts } = mockModel();
  await generateText({ model, messages: r.messages, allowSystemInMessages: true });
  assert.equal(prompts[0][2].role, 'system');
  assert.equal(createSession({ format, budgets: { tokens_max: 1000 } }).fit(history).messages.length, 4);
  // The option's own mistakes name it.
  assert.throws(() => validateMessages(history, { name: 'ai-sdk', allowSystemInMessages: 'yes' }), { code: 'INVALID_OPTION', field: 'format.allowSystemInMessages' });
  assert.throws(() => fitMessages(history, { format: { name: 'ai-sdk', strict: true }, budgets: { tokens_max: 1000 } }), { code: 'INVALID_OPTION', field: 'format.strict' });
  assert.throws(() => fitMessages(history, { format: { name: 'openai' }, budgets: { tokens_max: 1000 } }), { code: 'INVALID_OPTION', field: 'format' });
});

test('system_in_messages mirrors ai@7: generateText refuses what validateMessages reports, and takes the fit of the same history with the prompt as system', async () => {
  const history = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello' }];
  assert.deepEqual(validateMessages(history, 'ai-sdk').map((v) => v.rule), ['system_in_messages']);
  await assert.rejects(generateText({ model: mockModel().model, messages: history }), /System messages are not allowed/);
  assert.throws(() => fitMessages(history, { format: 'ai-sdk', budgets: { tokens_max: 1000 } }), { code: 'INVALID_MESSAGES', field: 'system_in_messages' });
  const r = fitMessages(history.slice(1), { format: 'ai-sdk', system: 'Be brief.', budgets: { tokens_max: 1000 } });
  assert.deepEqual(validateMessages(r.messages, 'ai-sdk'), []);
  const { model, prompts } = mockModel();
  await generateText({ model, instructions: 'Be brief.', messages: r.messages });
  assert.equal(prompts[0][0].role, 'system');
});

// A tool result the SDK sends as JSON (`output: { type: 'json', value }`, what a tool returning an
// object gives) and a call's `input` are read as the JSON text the provider gets: keys, quotes and
// braces count, and so does every field of the caller's data (an `id` there is data, not a
// message id). Before, only the values were read, `id` fields skipped: requests went over budget.
test('AI SDK: a json tool output and a call input are counted and cut as their JSON text', () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: 1000 + i, status: i % 3 ? 'ok' : 'failed', amount: i * 1.5 }));
  const history = (output, input = { table: 'payments' }) => [
    { role: 'user', content: 'Which payment ids failed?' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'query_db', input }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'query_db', output }] },
  ];
  const cost = (h, i) => fitMessages(h, { format: 'ai-sdk', budgets: { tokens_max: 1_000_000 } }).decisions[i].cost_tokens;
  // The json output costs what the same JSON sent as text costs.
  assert.equal(cost(history({ type: 'json', value: rows }), 2), cost(history({ type: 'text', value: JSON.stringify(rows) }), 2));
  assert.equal(cost(history({ type: 'error-json', value: rows }), 2), cost(history({ type: 'error-text', value: JSON.stringify(rows) }), 2));
  // A call's input: its keys count, and an `id` field's value too.
  const text = { type: 'text', value: 'ok' };
  assert.ok(cost(history(text, { table: 'payments', id: 'x'.repeat(400) }), 1) > cost(history(text, { table: 'payments', id: 'x' }), 1) + 50);
  assert.ok(cost(history(text, { ['k'.repeat(300)]: 1 }), 1) > cost(history(text, { k: 1 }), 1) + 30);
  // Cut to fit, the result is the head and tail of its JSON text: keys and ids still there.
  const cut = fitMessages(history({ type: 'json', value: rows }), { format: 'ai-sdk', budgets: { tokens_max: 2_000 } });
  const sent = cut.messages[2].content[0].output;
  assert.equal(sent.type, 'text');
  assert.ok(sent.value.startsWith('[{"id":1000,"status":"failed","amount":0}'), sent.value.slice(0, 80));
  assert.ok(sent.value.length < JSON.stringify(rows).length);
  assert.ok(cut.metrics.budget_used <= cut.metrics.effective_budget);
  // A value JSON cannot write is read by its values, as before, never a throw.
  const cyclic = { a: 'b' };
  cyclic.self = cyclic;
  assert.ok(cost(history({ type: 'json', value: { n: 10n, cyclic } }), 2) > 0);
});

// A new-user trial found the AI SDK counting a PDF fetched by Anthropic's web_fetch tool as the
// base64 text of its provider-executed result's json output (a 1-page PDF of 1.2 MB of base64 at
// 200,294 tokens), and a tool loop with that step in flight failing at 200k with PINNED_OVER_BUDGET.
test('a provider-executed json result (web_fetch) counts its nested PDF by the Anthropic rule, as the anthropic format counts the same block', async () => {
  const fit = fitMessages;
  const { sdkCheck } = await import('./sdk-check.mjs');
  // A 1-page PDF padded to 1.2 MB of base64, as a real fetched PDF weighs.
  const pdf = Buffer.from(`%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n% ${'A'.repeat(900_000)}\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1').toString('base64');
  // The shape @ai-sdk/anthropic gives generateText's response.messages for a web_fetch of a PDF.
  const document = { type: 'document', title: 'spec.pdf', source: { type: 'base64', mediaType: 'application/pdf', data: pdf } };
  const history = [
    { role: 'user', content: 'Fetch https://example.com/spec.pdf' },
    { role: 'assistant', content: [
      { type: 'tool-call', toolCallId: 'srvtoolu_1', toolName: 'web_fetch', input: { url: 'https://example.com/spec.pdf' }, providerExecuted: true },
      { type: 'tool-result', toolCallId: 'srvtoolu_1', toolName: 'web_fetch', output: { type: 'json', value: { type: 'web_fetch_result', url: 'https://example.com/spec.pdf', retrievedAt: '2025-01-01T00:00:00Z', content: document } } },
      { type: 'text', text: 'Fetched.' },
      { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'note', input: { text: 'fetched' } },
    ] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'note', output: { type: 'text', value: 'ok' } }] },
  ];
  sdkCheck('ai-sdk', history);
  const options = { provider: 'anthropic', budgets: { tokens_max: 200_000 } };
  const ai = fit(history, { format: 'ai-sdk', ...options }); // the step in flight, pinned: it fits
  const d = ai.decisions[1];
  // The same block in Anthropic's own format (the API's snake_case), counted by the same rule.
  const anthropicDoc = { type: 'document', title: 'spec.pdf', source: { type: 'base64', media_type: 'application/pdf', data: pdf } };
  const an = fit([history[0], { role: 'assistant', content: [{ type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'web_fetch_result', url: 'https://example.com/spec.pdf', retrieved_at: '2025-01-01T00:00:00Z', content: anthropicDoc } }] }, { role: 'user', content: 'ok' }], { format: 'anthropic', budgets: options.budgets });
  assert.equal(d.media_tokens, 3000 + 1640, 'one page at Anthropic\'s PDF rule');
  assert.equal(d.media_tokens, an.decisions[1].media_tokens);
  assert.ok(d.cost_tokens < d.media_tokens + 200, `the base64 is not text: ${d.cost_tokens}`);
  // Without nested media, a json output is still its JSON text, keys included.
  const plain = fit([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 's', toolName: 'x', input: {}, providerExecuted: true }, { type: 'tool-result', toolCallId: 's', toolName: 'x', output: { type: 'json', value: { answer: 42 } } }] }], { format: 'ai-sdk', budgets: options.budgets });
  assert.equal(plain.decisions[1].media_tokens ?? 0, 0);
});
