// A new question re-plans when what it gives value pays for the cache write: a turn whose new
// messages fit appends, unless the text relevance is measured against changed and a cut by value
// brings back more than it costs in that request (docs/sessions.md, "A new question").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createSession } from 'ctxpack';

const TOPICS = ['logging', 'billing', 'retries', 'timeouts', 'caching', 'queues', 'tracing', 'backups', 'alerts', 'quotas', 'schemas', 'indexes'];

/** A task, then one read_file unit per topic, each with its database's port, about 375 tokens each. */
function agentHistory() {
  const history = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Review the service configuration.' }];
  TOPICS.forEach((topic, k) => {
    const fact = `The ${topic} database listens on port ${6500 + k} behind pgbouncer.
`;
    history.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `config/${topic}.yaml` }) } }] });
    history.push({ role: 'tool', tool_call_id: `c${k}`, content: `# config/${topic}.yaml\n${fact}${`${topic}: enabled: true level: standard window: 30s\n`.repeat(25)}` });
  });
  history.push({ role: 'assistant', content: 'I have read the configuration.' });
  return history;
}

/** A session fed the history request by request; returns it and the last result. */
function replayed(history, budget) {
  const session = createSession({ format: 'openai', budgets: { tokens_max: budget }, cache: 'openai' });
  let last;
  for (let end = 2; end <= history.length; end++) if (history[end - 1].role !== 'assistant') last = session.fit(history.slice(0, end));
  return { session, last };
}

const BUDGET = 3000;
const FACT = 5; // the tool result of the billing unit (the second)

test('a new question that gives a left-out message value brings it back with a cut, though the append fits', () => {
  const history = agentHistory();
  const { session, last } = replayed(history, BUDGET);
  assert.equal(last.decisions[FACT].included, false, 'an earlier cut left the fact out');
  const question = [...history, { role: 'user', content: 'Which port does the billing database listen on?' }];
  const r = session.fit(question);
  assert.ok(r.cache.cut, 'the turn cuts');
  assert.ok(r.decisions[FACT].included && r.decisions[FACT - 1].included, 'the unit with the fact is back, whole');
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
});

test('a new question that gives nothing left out more value appends, as any turn whose new messages fit', () => {
  const history = agentHistory();
  const { session } = replayed(history, BUDGET);
  const r = session.fit([...history, { role: 'user', content: 'Thanks, go on.' }]);
  assert.equal(r.cache.cut, false, 'the turn appends');
  assert.equal(r.decisions[FACT].included, false);
});

test('the same question again appends: only a changed question is weighed', () => {
  const history = agentHistory();
  const { session } = replayed(history, BUDGET);
  const ask = { role: 'user', content: 'Which port does the billing database listen on?' };
  assert.ok(session.fit([...history, ask]).cache.cut);
  const r = session.fit([...history, ask, { role: 'assistant', content: 'Port 6501, I think.' }, { ...ask }]);
  assert.equal(r.cache.cut, false, 'the same question: appended');
});

test('a session restored from a state weighs the next question as the original does (the question is remembered as a hash)', () => {
  const history = agentHistory();
  const { session } = replayed(history, BUDGET);
  const state = JSON.parse(JSON.stringify(session.exportState()));
  assert.match(state.previous.query, /^[0-9a-f]{16}(:\d+)?$/);
  assert.ok(!JSON.stringify(state).includes('configuration'), 'no text in the state');
  const question = [...history, { role: 'user', content: 'Which port does the billing database listen on?' }];
  const restored = createSession({ format: 'openai', budgets: { tokens_max: BUDGET }, cache: 'openai', state });
  assert.deepEqual(restored.fit(question).decisions, session.fit(question).decisions);
});

test('a question whose value does not pay for rewriting the prompt appends', () => {
  // At 3,500 tokens the billing unit (about 2.3× the kept value per token, 375 tokens) would come
  // back only by rewriting about 2,800 tokens the cache holds: worth less than the write.
  const history = agentHistory();
  const { session } = replayed(history, 3500);
  const r = session.fit([...history, { role: 'user', content: 'Which port does the billing database listen on?' }]);
  assert.equal(r.cache.cut, false);
  assert.equal(r.decisions[FACT].included, false);
});

test('replanOnQuestion: false appends whenever the new messages fit; a non-boolean is INVALID_OPTION', () => {
  const history = agentHistory();
  const session = createSession({ format: 'openai', budgets: { tokens_max: BUDGET }, cache: 'openai', replanOnQuestion: false });
  for (let end = 2; end <= history.length; end++) if (history[end - 1].role !== 'assistant') session.fit(history.slice(0, end));
  const r = session.fit([...history, { role: 'user', content: 'Which port does the billing database listen on?' }]);
  assert.equal(r.cache.cut, false);
  assert.equal(r.decisions[FACT].included, false);
  assert.throws(
    () => createSession({ format: 'openai', replanOnQuestion: 'yes' }),
    (err) => err instanceof CtxpackError && err.code === 'INVALID_OPTION' && err.field === 'replanOnQuestion',
  );
});
