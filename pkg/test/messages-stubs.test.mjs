// fitMessages' stubToolResults: a tool result may go in as a stub (a new object whose result is a
// note, the ids kept) instead of in full or not at all. On seeded histories × the four formats ×
// budgets: every request is valid for its format and its SDK (the AI SDK's modelMessageSchema,
// LangChain's own ToolMessage class), the caller's objects are untouched, each kept message is the
// caller's own or its stub, and with 'exact' the kept value never falls below that without stubs (but for Anthropic, whose
// user-first rule is met by slicing again, not exactly).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelMessageSchema } from 'ai';
import { ToolMessage } from '@langchain/core/messages';
import { CtxpackError, createSession, fitMessages, validateMessages } from 'ctxpack';
import { FORMATS, randomHistory, render } from './messages-histories.mjs';

const BUDGETS = [150, 600, 3000, 20000];

/** The value a fit keeps as the knapsack adds it: Σ floor(10,000 × value), a stub's at the documented scale. */
function keptValue(r) {
  const scaled = (v) => Math.max(0, Math.floor(v * 10000));
  return r.decisions
    .filter((d) => d.included && d.reason !== 'pinned')
    .reduce((a, d) => a + scaled(d.stubbed ? d.score * Math.min(1, Math.sqrt(d.stub_tokens / d.cost_tokens)) : d.score), 0);
}

test('stubs: valid requests for every format and SDK, the caller\'s messages untouched, never less value with exact', () => {
  let stubbed = 0;
  let runs = 0;
  for (let seed = 0; seed < 80; seed++) {
    const history = randomHistory(seed);
    for (const format of FORMATS) {
      const { messages, system } = render(history, format);
      const before = format === 'langchain' ? undefined : JSON.stringify(messages);
      for (const tokens_max of BUDGETS) {
        for (const slicer of ['ranked', 'exact']) {
          const options = { format, system, budgets: { tokens_max }, slicer };
          let plain;
          let r;
          try {
            plain = fitMessages(messages, options);
            r = fitMessages(messages, { ...options, stubToolResults: true });
          } catch (err) {
            assert.ok(err instanceof CtxpackError && err.code === 'PINNED_OVER_BUDGET', String(err));
            continue;
          }
          runs++;
          const label = `seed ${seed} ${format} ${tokens_max} ${slicer}`;
          assert.deepEqual(validateMessages(r.messages, format), [], label);
          assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, label);
          let k = 0;
          for (const d of r.decisions) {
            if (!d.included) continue;
            const sent = r.messages[k++];
            if (d.stubbed) {
              stubbed++;
              assert.notEqual(sent, messages[d.index], `${label}: a stub is a new object`);
              assert.ok(d.stub_tokens < d.cost_tokens || d.cost_tokens === 0, label);
              if (format === 'ai-sdk') assert.ok(modelMessageSchema.safeParse(sent).success, `${label}: modelMessageSchema`);
              if (format === 'langchain') {
                assert.ok(sent instanceof ToolMessage, label);
                assert.equal(sent.tool_call_id, messages[d.index].tool_call_id, label);
              }
              assert.match(JSON.stringify(format === 'langchain' ? sent.content : sent), /tool result omitted: \d+ characters/, label);
            } else if (d.truncated) {
              assert.notEqual(sent, messages[d.index], `${label}: a truncated result is a new object`);
              assert.ok(d.truncated.to < d.truncated.from && d.cost_tokens === d.truncated.to, label);
              assert.match(JSON.stringify(format === 'langchain' ? sent.content : sent), /characters left out/, label);
            } else {
              assert.equal(sent, messages[d.index], `${label}: the caller's own object`);
            }
          }
          assert.equal(k, r.messages.length, label);
          if (before !== undefined) assert.equal(JSON.stringify(messages), before, `${label}: the input changed`);
          // More choices never lose value for the exact strategy; Anthropic's user-first rule is
          // met by leaving units out and slicing again, which is not exact, so it is not compared.
          if (slicer === 'exact' && format !== 'anthropic') assert.ok(keptValue(r) >= keptValue(plain), `${label}: stubs lost value`);
        }
      }
    }
  }
  assert.ok(runs > 1000, `${runs} runs`);
  assert.ok(stubbed > 100, `only ${stubbed} stubs went in`);
});

test('a large old tool result that cannot fit goes in as a stub, with its call, rather than leaving the pair out', () => {
  const messages = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Check the deploy logs for the staging token error.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_logs', arguments: '{"env":"staging"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'staging token error line '.repeat(400) },
    { role: 'assistant', content: 'The staging token expired at 09:00.' },
    { role: 'user', content: 'What did the staging token error say again?' },
  ];
  const budgets = { tokens_max: 120 };
  // Truncation off: the choice is between the whole result, its stub, or neither.
  const plain = fitMessages(messages, { format: 'openai', budgets, truncateToolResults: false });
  assert.equal(plain.decisions[3].included, false);
  const r = fitMessages(messages, { format: 'openai', budgets, stubToolResults: true, truncateToolResults: false });
  assert.equal(r.decisions[2].included, true);
  assert.equal(r.decisions[3].included, true);
  assert.equal(r.decisions[3].stubbed, true);
  const stub = r.messages.find((m) => m.role === 'tool');
  assert.deepEqual(stub, { role: 'tool', tool_call_id: 'c1', content: `[tool result omitted: ${messages[3].content.length} characters]` });
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);
  assert.equal(messages[3].content.length, 'staging token error line '.repeat(400).length, 'the caller\'s message is unchanged');
});

test('stubToolResults is a boolean', () => {
  const messages = [{ role: 'user', content: 'hi' }];
  assert.throws(() => fitMessages(messages, { format: 'openai', budgets: { tokens_max: 10 }, stubToolResults: 'yes' }), (e) => e.code === 'INVALID_OPTION' && e.field === 'stubToolResults');
  assert.throws(() => createSession({ format: 'openai', budgets: { tokens_max: 10 }, stubToolResults: 'yes' }).fit(messages), (e) => e.code === 'INVALID_OPTION' && e.field === 'stubToolResults');
});

/** An agent's history after `steps` steps: a task, then per step a call and a ~700-token result. */
function agentHistory(steps) {
  const h = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Find why the staging deploy fails.' }];
  for (let k = 0; k < steps; k++) {
    h.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/f${k}.ts"}` } }] });
    h.push({ role: 'tool', tool_call_id: `c${k}`, content: `// src/f${k}.ts\n${`export const value${k} = deploy(staging, ${k});\n`.repeat(120)}` });
  }
  return h;
}

test('a session takes stubToolResults: a message sent as its stub is sent as the same stub while in the reused prefix; the saved state remembers it', () => {
  const options = { format: 'openai', budgets: { tokens_max: 6_000 }, cache: 'openai', stubToolResults: true };
  const session = createSession(options);
  let previous;
  let stubbedInPrefix = 0;
  let stubs = 0;
  for (let k = 1; k <= 30; k++) {
    const history = agentHistory(k);
    const r = session.fit(history);
    assert.deepEqual(validateMessages(r.messages, 'openai'), [], `turn ${k}`);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, `turn ${k}`);
    stubs += r.decisions.filter((d) => d.stubbed).length;
    stubbedInPrefix += r.decisions.filter((d) => d.stubbed && d.reason === 'cached_prefix').length;
    if (previous !== undefined) {
      // What the session says it reuses is the previous request's bytes, stubs included.
      const n = r.cache.prefixMessages;
      assert.equal(JSON.stringify(r.messages.slice(0, n)), JSON.stringify(previous.slice(0, n)), `turn ${k}: the reused prefix`);
    }
    // A session continued from the saved state plans the next turn as this one would.
    if (k === 20) {
      const next = agentHistory(21);
      const restored = createSession({ ...options, state: JSON.parse(JSON.stringify(session.exportState())) }).fit(next);
      const same = createSession({ ...options, state: JSON.parse(JSON.stringify(session.exportState())) }).fit(next);
      assert.equal(JSON.stringify(restored.messages), JSON.stringify(same.messages));
      assert.ok(restored.cache.prefixMessages > 0 && restored.decisions.some((d) => d.stubbed && d.reason === 'cached_prefix'), 'the restored session forces the remembered stubs');
      assert.equal(JSON.stringify(restored.messages.slice(0, restored.cache.prefixMessages)), JSON.stringify(r.messages.slice(0, restored.cache.prefixMessages)));
    }
    previous = r.messages;
  }
  assert.ok(stubs > 0, 'the session sent stubs');
  assert.ok(stubbedInPrefix > 0, 'a stub was reused as the same stub on a later turn');
});
