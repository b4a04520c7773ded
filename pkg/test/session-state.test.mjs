// A session's exported state: bounded when read back (a hostile state costs no more than the
// bounds).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createSession } from 'ctxpack';

const refused = (f, field, index) =>
  assert.throws(f, (err) => err instanceof CtxpackError && err.code === 'INVALID_OPTION' && err.field === field && err.index === index, field);

/** A state as exportState() writes it, with `patch` applied. */
function stateWith(patch) {
  const s = createSession({ format: 'openai', budgets: { tokens_max: 1000 } });
  s.fit([{ role: 'user', content: 'hello' }]);
  return { ...s.exportState(), ...patch };
}

/** A count pair whose key no text has (`i` distinct). */
const pair = (i) => [`${i.toString(16).padStart(16, '0')}:${i % 1000}`, i % 97];

test('state.growth: a million figures are refused before any is read; a longer list than used keeps the last 16', () => {
  refused(() => createSession({ format: 'openai', state: stateWith({ growth: new Array(1_000_000).fill(1) }) }), 'state.growth', undefined);
  refused(() => createSession({ format: 'openai', state: stateWith({ growth: new Array(1025).fill(1) }) }), 'state.growth', undefined);
  const growth = Array.from({ length: 100 }, (_, i) => i);
  const s = createSession({ format: 'openai', state: stateWith({ growth }) });
  assert.deepEqual(s.exportState().growth, growth.slice(-16));
});

test('state.counts: only the last maxCachedCounts pairs (the most recent) are read; over 2^20 is refused unread', () => {
  // A million pairs whose first is malformed: the first 950 000 are never looked at.
  const counts = Array.from({ length: 1_000_000 }, (_, i) => pair(i));
  counts[0] = ['not a key', -1];
  const t0 = performance.now();
  const s = createSession({ format: 'openai', state: stateWith({ counts }) });
  const ms = performance.now() - t0;
  assert.equal(s.countCache.size, 50_000);
  assert.deepEqual(s.exportState().counts, counts.slice(-50_000), 'the most recently used, in their order');
  assert.ok(ms < 1000, `imported in ${ms.toFixed(0)} ms`);
  // With a smaller cache, fewer; a malformed pair among those read is named by its index.
  const small = createSession({ format: 'openai', maxCachedCounts: 10, state: stateWith({ counts }) });
  assert.deepEqual(small.exportState().counts, counts.slice(-10));
  const bad = counts.slice(-10);
  bad[9] = ['x', 1];
  refused(() => createSession({ format: 'openai', maxCachedCounts: 10, state: stateWith({ counts: bad }) }), 'state.counts', 9);
  // Over 2^20 pairs: refused before any is read (holes, not pairs).
  refused(() => createSession({ format: 'openai', state: stateWith({ counts: new Array(2 ** 20 + 1) }) }), 'state.counts', undefined);
  // ...unless the session keeps that many itself.
  assert.doesNotThrow(() => createSession({ format: 'openai', maxCachedCounts: 2 ** 20 + 1, state: stateWith({ counts: counts.slice(-5) }) }));
});

test('state.previous: more entries than n, or breakpoints than entries, are refused before they are read', () => {
  const previous = { n: 2, system: '', entries: [[0, '0123456789abcdef:3', 10], [1, '0123456789abcdef:4', 20]], head: 1, breakpoints: [[1, 10]], systemTokens: 0, promptTokens: 20 };
  assert.doesNotThrow(() => createSession({ format: 'openai', state: stateWith({ previous }) }));
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, entries: new Array(3).fill(previous.entries[0]) } }) }), 'state.previous.entries', undefined);
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, n: 5_000_000, entries: new Array(5_000_000) } }) }), 'state.previous.entries', undefined);
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, breakpoints: [[1, 10], [2, 20], [2, 20]] } }) }), 'state.previous.breakpoints', undefined);
});
