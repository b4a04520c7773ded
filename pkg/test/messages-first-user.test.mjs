// Anthropic's rule that a request starts with a user message, as a constraint of the selection
// (src/problem in the crate), not a retry: histories where fitMessages used to slice again and
// again, every strategy's request valid and within budget, and 'exact' at the optimum of a brute
// force over small random histories.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitMessages, validateMessages } from 'ctxpack';
import { rng } from './rng.mjs';

const STRATEGIES = ['exact', 'knapsack', 'greedy', 'ranked', 'packer'];
// The knapsack rounds sizes up to 100-token buckets: on these small budgets it keeps little, validly.
const FINE = STRATEGIES.filter((s) => s !== 'knapsack');
const est = (t) => Math.ceil(t.length / 4);
const reasons = (r) => r.decisions.map((d) => d.reason);

/** Every strategy's request is valid for Anthropic, opens with a user message and fits. */
function checkAll(msgs, options) {
  const out = {};
  for (const slicer of STRATEGIES) {
    // framing: false: the budgets here are sums of the texts' counts.
    const r = fitMessages(msgs, { format: 'anthropic', framing: false, ...options, slicer });
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), [], slicer);
    if (r.messages.length > 0) assert.equal(r.messages[0].role, 'user', slicer);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, slicer);
    out[slicer] = r;
  }
  return out;
}

test('a unit that would open the request is left out inside the selection; what it would take goes to others', () => {
  const msgs = [
    { role: 'user', content: 'greetings and some long unrelated preamble '.repeat(40) }, // does not fit
    { role: 'assistant', content: 'the deploy token rotates every hour on the staging server '.repeat(3) }, // most relevant
    { role: 'user', content: 'ok thanks, what about lunch plans for friday afternoon' },
    { role: 'assistant', content: 'lunch at noon near the office on friday works for everyone' },
    { role: 'user', content: 'how often does the deploy token rotate on staging?' },
  ];
  const budget = est(msgs[4].content) + est(msgs[1].content) + est(msgs[2].content) + 4;
  const all = checkAll(msgs, { budgets: { tokens_max: budget }, countTokens: est });
  for (const slicer of FINE) {
    assert.equal(all[slicer].decisions[1].reason, 'first_not_user', slicer);
    assert.equal(all[slicer].messages[0], msgs[2], slicer);
  }
  assert.deepEqual(reasons(all.ranked), ['budget_exceeded', 'first_not_user', 'scored', 'scored', 'pinned']);
});

test('many assistant units ranked above any user message that fits: one selection, past the old 8 rounds', () => {
  // 12 exchanges: a long user message that never fits, then a short, relevant assistant answer.
  // The old loop dropped the leading answers a few per round and gave up after 8 rounds.
  const msgs = [];
  for (let k = 0; k < 12; k++) {
    msgs.push({ role: 'user', content: `unrelated long paste number ${k} `.repeat(60) });
    msgs.push({ role: 'assistant', content: `the staging deploy token rotates hourly, note ${k}` });
  }
  msgs.push({ role: 'user', content: 'a short one' });
  msgs.push({ role: 'assistant', content: 'the staging deploy token again' });
  msgs.push({ role: 'user', content: 'how often does the staging deploy token rotate?' });
  const all = checkAll(msgs, { budgets: { tokens_max: 200 }, countTokens: est });
  for (const slicer of FINE) {
    const r = all[slicer];
    // Every answer before the short user message would open the request.
    for (let i = 1; i < 24; i += 2) assert.equal(r.decisions[i].reason, 'first_not_user', `${slicer} ${i}`);
    assert.equal(r.decisions[24].included, true, slicer);
    assert.equal(r.decisions[25].included, true, slicer);
  }
});

test('tool units cannot open the request; a kept assistant message brings a user message, or INVALID_MESSAGES', () => {
  const use = (id) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'search', input: { q: 'token' } }] });
  const result = (id, text) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
  const msgs = [
    { role: 'user', content: 'context '.repeat(300) },
    use('t1'),
    result('t1', 'the deploy token rotates hourly'),
    { role: 'assistant', content: 'found it: the deploy token rotates hourly' },
    { role: 'user', content: 'thanks' },
    use('t2'),
    result('t2', 'deploy token docs'),
    { role: 'user', content: 'and the deploy token on staging?' },
  ];
  const all = checkAll(msgs, { budgets: { tokens_max: 80 }, countTokens: est });
  for (const slicer of FINE) {
    const r = all[slicer];
    for (const i of [1, 2, 3]) assert.equal(r.decisions[i].reason, 'first_not_user', `${slicer} ${i}`);
  }
  // A pinned assistant message with no user message before it cannot be sent.
  assert.throws(
    () => fitMessages([{ role: 'assistant', content: 'hello' }, { role: 'user', content: 'q' }], { format: 'anthropic', keep: 2, budgets: { tokens_max: 100 } }),
    { code: 'INVALID_MESSAGES', field: 'first_not_user', index: 0 },
  );
});

test('everything fits: every strategy keeps everything that can be sent', () => {
  const msgs = [
    { role: 'assistant', content: 'an assistant message first' },
    { role: 'user', content: 'a question' },
    { role: 'assistant', content: 'an answer' },
    { role: 'user', content: 'the last question' },
  ];
  const all = checkAll(msgs, { budgets: { tokens_max: 10_000 } });
  for (const slicer of STRATEGIES) assert.deepEqual(reasons(all[slicer]), ['first_not_user', 'scored', 'scored', 'pinned'], slicer);
});

// ---- 'exact' against a brute force ----

const WORDS = 'deploy token staging rotate lunch friday office server hourly config log error retry cache'.split(' ');

/** A small random Anthropic history: text turns and tool pairs, ending on a user question (or an assistant step). */
function history(r) {
  const text = (n) => Array.from({ length: n }, () => r.pick(WORDS)).join(' ');
  const msgs = [];
  const turns = r.int(2, 7);
  let role = r.chance(0.25) ? 'assistant' : 'user';
  for (let k = 0; k < turns; k++) {
    if (role === 'assistant' && r.chance(0.3)) {
      const id = `t${k}`;
      msgs.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read', input: {} }] });
      msgs.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text(r.int(1, 40)) }] });
      role = 'assistant';
      continue;
    }
    msgs.push({ role, content: text(r.int(1, 40)) });
    role = role === 'user' ? (r.chance(0.8) ? 'assistant' : 'user') : r.chance(0.8) ? 'user' : 'assistant';
  }
  msgs.push({ role: 'user', content: text(r.int(1, 6)) });
  if (r.chance(0.2)) msgs.push({ role: 'assistant', content: text(r.int(1, 6)) });
  return msgs;
}

/** The integer value 'exact' maximises for a message of value v (the core's lift). */
const worth = (v) => Math.max(0, Math.floor(((1.5 + v * (10000 - 2)) / 10000) * 10000));

/** The best total worth under the rule, by brute force over the competing units. */
function brute(msgs, r, overhead) {
  const room = r.metrics.effective_budget - r.metrics.pinned_tokens;
  const fixed = r.decisions.filter((d) => d.reason === 'pinned').map((d) => d.index);
  const byUnit = new Map();
  for (const d of r.decisions) {
    if (d.reason === 'pinned' || d.reason === 'invalid_structure') continue;
    if (!byUnit.has(d.unit)) byUnit.set(d.unit, []);
    byUnit.get(d.unit).push(d);
  }
  const units = [...byUnit.values()];
  let best = -1;
  for (let mask = 0; mask < 1 << units.length; mask++) {
    let tokens = 0;
    let value = 0;
    let first = fixed.length > 0 ? Math.min(...fixed) : Infinity;
    for (let u = 0; u < units.length; u++) {
      if ((mask & (1 << u)) === 0) continue;
      for (const d of units[u]) {
        tokens += d.cost_tokens + overhead;
        value += worth(d.score);
        first = Math.min(first, d.index);
      }
    }
    if (room <= 0 && mask !== 0) continue; // no budget selects nothing
    if (tokens > room || (first !== Infinity && msgs[first].role !== 'user')) continue;
    best = Math.max(best, value);
  }
  return best;
}

test("'exact' reaches the brute-force optimum under the rule on small random histories", () => {
  const r = rng(0xf1257);
  let checked = 0;
  let constrained = 0;
  for (let c = 0; c < 400; c++) {
    const msgs = history(r);
    const overhead = r.pick([0, 4]);
    const total = msgs.reduce((a, m) => a + est(JSON.stringify(m.content)) + overhead, 0);
    const options = { format: 'anthropic', countTokens: est, truncateToolResults: false, budgets: { tokens_max: r.int(10, total + 20), per_fragment_overhead: overhead } };
    let all;
    try {
      all = checkAll(msgs, options);
    } catch (err) {
      if (err.code === 'PINNED_OVER_BUDGET' || err.code === 'INVALID_MESSAGES') continue;
      throw err;
    }
    const exact = all.exact;
    const best = brute(msgs, exact, overhead);
    const got = exact.decisions.filter((d) => d.included && d.reason !== 'pinned').reduce((a, d) => a + worth(d.score), 0);
    assert.equal(got, best, `case ${c}: ${JSON.stringify(msgs)} ${JSON.stringify(options.budgets)}`);
    checked++;
    if (exact.decisions.some((d) => d.reason === 'first_not_user')) constrained++;
  }
  assert.ok(checked >= 200, `checked ${checked}`);
  assert.ok(constrained >= 20, `constrained ${constrained}`);
});

// A new-user trial found the AI SDK and LangChain formats bound for Claude (provider: 'anthropic')
// opening with an assistant message after a cut: Claude on Bedrock refuses that.
test("provider 'anthropic' in another format: the request opens with a user message after its system messages", async () => {
  const { render, randomHistory } = await import('./messages-histories.mjs');
  const { SystemMessage, HumanMessage, AIMessage } = await import('@langchain/core/messages');
  const opener = (format, messages) => {
    const m = messages.find((x) => (format === 'langchain' ? x.getType() !== 'system' : x.role !== 'system'));
    return m === undefined ? undefined : format === 'langchain' ? (m.getType() === 'human' ? 'user' : m.getType()) : m.role;
  };
  // The trial's case: the long task cut, the assistant reply after it would open the request.
  const h = [new SystemMessage('sys'), new HumanMessage('Long task description '.repeat(200)), new AIMessage('Sure, apples.'), new HumanMessage('ok')];
  const open = fitMessages(h, { format: 'langchain', budgets: { tokens_max: 200 } });
  assert.equal(opener('langchain', open.messages), 'ai', 'without the provider an assistant may open (OpenAI takes it)');
  const r = fitMessages(h, { format: 'langchain', provider: 'anthropic', budgets: { tokens_max: 200 } });
  assert.deepEqual(reasons(r), ['pinned', 'budget_exceeded', 'first_not_user', 'pinned']);
  assert.equal(opener('langchain', r.messages), 'user');
  let cut = 0;
  for (let seed = 1; seed <= 60; seed++) {
    for (const format of ['ai-sdk', 'langchain']) {
      const { messages, system } = render(randomHistory(seed), format);
      for (const tokens_max of [150, 400, 1200]) {
        let res;
        try {
          res = fitMessages(messages, { format, provider: 'anthropic', budgets: { tokens_max }, ...(system === undefined ? {} : { system }) });
        } catch (e) {
          assert.ok(e.code === 'PINNED_OVER_BUDGET' || e.code === 'INVALID_MESSAGES', `${format} seed ${seed}: ${e.code}`);
          continue;
        }
        assert.deepEqual(validateMessages(res.messages, format), [], `${format} seed ${seed}`);
        const first = opener(format, res.messages);
        if (first !== undefined) assert.equal(first, 'user', `${format} seed ${seed} at ${tokens_max}`);
        assert.ok(res.metrics.budget_used <= res.metrics.effective_budget);
        if (res.messages.length < messages.length) cut++;
      }
    }
  }
  assert.ok(cut > 50, `the budgets cut (${cut} requests)`);
});
