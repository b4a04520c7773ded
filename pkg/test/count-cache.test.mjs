// createCountCache: counts shared across fitMessages calls (issue 30). A count is found again only
// for the same text, counter and model; every result equals the one without the cache.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CtxpackError, createCountCache, createSession, estimateTokens, fitMessages, fitMessagesAsync } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';

const BUDGETS = { tokens_max: 3_000 };
const { messages: HISTORY } = agentSession(3, 'openai', 12);

/** A counter that records the texts it is asked to count. */
function spy(count = estimateTokens) {
  const seen = [];
  const f = (text, model) => {
    seen.push(text);
    return count(text, model);
  };
  return { f, seen };
}

/** The history up to the first user message at or after `n` (a request that ends with its task). */
const upTo = (n) => HISTORY.slice(0, HISTORY.findIndex((m, i) => i >= n && m.role === 'user') + 1);

const plain = (r) => ({ messages: r.messages, decisions: r.decisions });

test('a second call on a grown history counts only the new texts, with the same result as without the cache', () => {
  const countCache = createCountCache();
  const { f, seen } = spy();
  const half = upTo(40);
  fitMessages(half, { format: 'openai', budgets: BUDGETS, countTokens: f, countCache });
  const first = seen.length;
  assert.ok(first > 0);
  assert.equal(countCache.misses, first);
  const r = fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countTokens: f, countCache });
  const counted = seen.slice(first);
  // Only texts the first call did not have: none of the 40 messages' texts is counted again.
  assert.ok(counted.length <= HISTORY.length - half.length + 2, `counted ${counted.length} texts`);
  assert.ok(countCache.hits >= half.length - 2, `hits ${countCache.hits}`);
  assert.deepEqual(plain(r), plain(fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countTokens: f })));
  // The same history again: nothing counted at all.
  const before = seen.length;
  fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countTokens: f, countCache });
  assert.equal(seen.length, before);
});

test('counts are never read for another counter or another model', () => {
  const countCache = createCountCache();
  const twice = (t) => 2 * estimateTokens(t);
  const byModel = (t, model) => (model === 'big' ? 3 : 1) * estimateTokens(t);
  const fresh = (o) => plain(fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, ...o }));
  const shared = (o) => plain(fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countCache, ...o }));
  for (const o of [{}, { countTokens: twice }, { countTokens: byModel, model: 'small' }, { countTokens: byModel, model: 'big' }, { countTokens: twice }, {}]) {
    assert.deepEqual(shared(o), fresh(o));
  }
  const tokens = (o) => fitMessages(HISTORY, { format: 'openai', budgets: { tokens_max: 1e9 }, countCache, ...o }).metrics.tokens_selected;
  assert.ok(tokens({ countTokens: twice }) > tokens({}));
  assert.ok(tokens({ countTokens: byModel, model: 'big' }) > tokens({ countTokens: byModel, model: 'small' }));
});

test('property: with a shared cache every result equals the result without it (texts of equal length included)', () => {
  const countCache = createCountCache({ maxEntries: 8 });
  // A counter that depends on the text itself, not only its length: equal lengths must not share a count.
  const vowels = (t) => (t.match(/[aeiou]/g) ?? []).length + 1;
  const word = fc.stringMatching(/^[a-z]{4}$/);
  fc.assert(
    fc.property(fc.array(word, { minLength: 1, maxLength: 12 }), (words) => {
      const history = words.map((w, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: w }));
      if (history[history.length - 1].role !== 'user') history.push({ role: 'user', content: words[0] });
      const o = { format: 'openai', budgets: { tokens_max: 40 }, countTokens: vowels };
      assert.deepEqual(plain(fitMessages(history, { ...o, countCache })), plain(fitMessages(history, o)));
    }),
    { numRuns: 200, seed: 30 },
  );
  assert.ok(countCache.size <= 8, `size ${countCache.size} within maxEntries`);
});

test('fitMessagesAsync: calls in flight at once, evicting each other, still find every count they made', async () => {
  const countCache = createCountCache({ maxEntries: 3 });
  const slow = async (t) => {
    await new Promise((resolve) => setTimeout(resolve, (t.length * 7) % 5));
    return estimateTokens(t);
  };
  const histories = [upTo(20), upTo(45), HISTORY];
  const o = { format: 'openai', budgets: BUDGETS, countTokens: slow, concurrency: 2 };
  const together = await Promise.all(histories.map((h) => fitMessagesAsync(h, { ...o, countCache })));
  const alone = await Promise.all(histories.map((h) => fitMessagesAsync(h, o)));
  assert.deepEqual(together.map(plain), alone.map(plain));
  assert.ok(countCache.size <= 3);
});

test('bad values: maxEntries, a countCache not made by createCountCache, and sessions refuse one', () => {
  const bad = (f, field) => assert.throws(f, (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.field === field);
  bad(() => createCountCache({ maxEntries: 0 }), 'maxEntries');
  bad(() => createCountCache({ maxEntries: 1.5 }), 'maxEntries');
  bad(() => createCountCache('big'), 'options');
  bad(() => createCountCache({ max: 10 }), 'max');
  bad(() => fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countCache: new Map() }), 'countCache');
  bad(() => createSession({ format: 'openai', budgets: BUDGETS, countCache: createCountCache() }), 'countCache');
  assert.equal(createCountCache().size, 0);
});

test('clear forgets the counts and keeps the statistics', () => {
  const countCache = createCountCache();
  const { f, seen } = spy();
  fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countTokens: f, countCache });
  const misses = countCache.misses;
  assert.ok(countCache.size > 0);
  countCache.clear();
  assert.equal(countCache.size, 0);
  assert.equal(countCache.misses, misses);
  const before = seen.length;
  fitMessages(HISTORY, { format: 'openai', budgets: BUDGETS, countTokens: f, countCache });
  assert.ok(seen.length > before, 'counted again after clear');
});

test('a new counter function at every call finds nothing, and the cache keeps at most 8 counters, not one more per call', () => {
  const countCache = createCountCache();
  const o = { format: 'openai', budgets: BUDGETS, countCache };
  fitMessages(HISTORY, { ...o, countTokens: (t) => estimateTokens(t) });
  const one = countCache.size;
  for (let k = 0; k < 20; k++) fitMessages(HISTORY, { ...o, countTokens: (t) => estimateTokens(t) });
  assert.equal(countCache.hits, 0);
  assert.equal(countCache.size, 8 * one);
  assert.equal(countCache.misses, 21 * one, 'the statistics of dropped counters stay');
});
