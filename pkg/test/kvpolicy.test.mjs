// KV policy heuristics, memory management rules and cache eviction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError } from '../dist/index.js';
import { DEFAULT_MAX_KV_SIZE, calculateEvictionScore, generateKVPolicy, selectEvictionCandidates } from '../dist/acs.js';

const NOW = Date.UTC(2025, 0, 15, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const f = (id, extra = {}) => ({ id, cost_tokens: 100, benefit: 0.5, ...extra });
const policy = (selected, options = {}) => generateKVPolicy(selected, { now: NOW, ...options });
const EMPTY = { pin: [], compress: [], evict: [] };

test('seed rule 1: macro fragments are pinned', () => {
  assert.deepEqual(policy([f('m', { lod: 'macro', cost_tokens: 900, benefit: 0.4 })]), { pin: ['m'], compress: [], evict: [] });
});

test('seed rule 2: large (> 500 tokens) fragments with 0.3 ≤ benefit ≤ 0.6 are compressed', () => {
  assert.deepEqual(policy([f('a', { cost_tokens: 501, benefit: 0.3 })]).compress, ['a']);
  assert.deepEqual(policy([f('a', { cost_tokens: 501, benefit: 0.6 })]).compress, ['a']);
  assert.deepEqual(policy([f('a', { cost_tokens: 500, benefit: 0.5 })]), EMPTY);
  assert.deepEqual(policy([f('a', { cost_tokens: 501, benefit: 0.29 })]), EMPTY);
  assert.deepEqual(policy([f('a', { cost_tokens: 501, benefit: 0.61 })]), EMPTY);
  assert.deepEqual(policy([f('a', { cost_tokens: 900, benefit: 0.5, lod: 'micro' })]).compress, ['a']);
});

test('seed rule 3: benefit < 0.2 and last access older than 24 h are evicted', () => {
  assert.deepEqual(policy([f('a', { benefit: 0.19, lastAccessTime: NOW - DAY - 1 })]).evict, ['a']);
  assert.deepEqual(policy([f('a', { benefit: 0.19, lastAccessTime: new Date(NOW - 2 * DAY) })]).evict, ['a']);
  assert.deepEqual(policy([f('a', { benefit: 0.19, lastAccessTime: NOW - DAY })]), EMPTY); // not strictly older
  assert.deepEqual(policy([f('a', { benefit: 0.2, lastAccessTime: NOW - 2 * DAY })]), EMPTY);
  assert.deepEqual(policy([f('a', { benefit: 0.1 })]), EMPTY); // unknown last access
});

test('seed rules: first match wins (macro beats compress and evict)', () => {
  assert.deepEqual(policy([f('a', { lod: 'macro', cost_tokens: 900, benefit: 0.1, lastAccessTime: 0 })]), {
    pin: ['a'],
    compress: [],
    evict: [],
  });
});

test('missing benefit is unknown: neither compressed nor evicted', () => {
  assert.deepEqual(
    policy([
      { id: 'a', cost_tokens: 900 },
      { id: 'b', cost_tokens: 1, lastAccessTime: 0 },
    ]),
    EMPTY,
  );
});

test('last access falls back to the previous cache entry', () => {
  const previousCache = [{ id: 'a', lastAccessTime: NOW - 3 * DAY, sizeTokens: 100 }];
  assert.deepEqual(policy([f('a', { benefit: 0.1 })], { previousCache }).evict, ['a']);
  // The fragment's own field wins.
  assert.deepEqual(policy([f('a', { benefit: 0.1, lastAccessTime: NOW })], { previousCache }), EMPTY);
});

test('dependencies of a selected fragment are pinned, selected or not', () => {
  assert.deepEqual(policy([f('a', { dependencies: ['k1', 'k2'] })]), { pin: ['k1', 'k2'], compress: [], evict: [] });
});

test('pin wins: a dependency is never also compressed or evicted', () => {
  const selected = [
    f('big', { cost_tokens: 900, benefit: 0.5 }),
    f('stale', { benefit: 0.1, lastAccessTime: 0 }),
    f('user', { dependencies: ['big', 'stale', 'big'] }),
  ];
  assert.deepEqual(policy(selected), { pin: ['big', 'stale'], compress: [], evict: [] });
});

test('each id appears in at most one list, even with repeated fragments', () => {
  const p = policy([f('a', { cost_tokens: 900, benefit: 0.5 }), f('a', { benefit: 0.1, lastAccessTime: 0 })]);
  assert.deepEqual(p, { pin: [], compress: ['a'], evict: [] });
});

test('soft backoff: beyond maxKvSize the lowest-benefit unlisted keys are compressed', () => {
  const selected = [f('a', { benefit: 0.9 }), f('b', { benefit: 0.7 }), f('c', { benefit: 0.8 }), f('d', { benefit: 0.95 })];
  assert.deepEqual(policy(selected, { maxKvSize: 2 }), { pin: [], compress: ['b', 'c'], evict: [] });
  assert.deepEqual(policy(selected, { maxKvSize: 4 }), EMPTY);
  assert.deepEqual(policy(selected, { maxKvSize: 0 }).compress, ['b', 'c', 'a', 'd']);
  // Equal benefits: id order.
  assert.deepEqual(policy([f('z'), f('y'), f('x')], { maxKvSize: 1 }).compress, ['x', 'y']);
});

test('soft backoff counts pins and never demotes them', () => {
  const selected = [f('m', { lod: 'macro' }), f('a', { benefit: 0.9, dependencies: ['k'] }), f('b', { benefit: 0.8 })];
  // Full keys: m, k (pinned) + a, b → 4 > 3 → demote one: b (lower benefit).
  assert.deepEqual(policy(selected, { maxKvSize: 3 }), { pin: ['m', 'k'], compress: ['b'], evict: [] });
  // Pins alone exceed the limit: everything else is demoted, pins stay.
  assert.deepEqual(policy(selected, { maxKvSize: 1 }), { pin: ['m', 'k'], compress: ['b', 'a'], evict: [] });
});

test('soft backoff demotes new keys before already cached ones', () => {
  const selected = [f('cached', { benefit: 0.3 }), f('new1', { benefit: 0.9 }), f('new2', { benefit: 0.8 })];
  const previousCache = [{ id: 'cached', lastAccessTime: NOW, sizeTokens: 100 }];
  assert.deepEqual(policy(selected, { maxKvSize: 2, previousCache }).compress, ['new2']);
  assert.deepEqual(policy(selected, { maxKvSize: 1, previousCache }).compress, ['new2', 'new1']);
});

test('capacity eviction: previous keys beyond maxKvSize go, highest eviction score first', () => {
  const previousCache = [
    { id: 'fresh', lastAccessTime: NOW, sizeTokens: 100, lastBenefit: 0.5 },
    { id: 'old', lastAccessTime: NOW - 30 * DAY, sizeTokens: 100 },
    { id: 'huge', lastAccessTime: NOW - HOUR, sizeTokens: 5000 },
    { id: 'kept', lastAccessTime: NOW - 40 * DAY, sizeTokens: 100 },
  ];
  // Resident after selecting 'x' and keeping 'kept' (selected): 5 > 3 → evict 2 of fresh/old/huge.
  const p = policy([f('x'), f('kept')], { maxKvSize: 3, previousCache });
  assert.deepEqual(p.evict, ['old', 'huge']); // scores: kept 6.97 (selected), old 6.68, huge 5.69, fresh −0.9
  assert.deepEqual(p.pin, []);
  // Pinned previous keys are not evictable either.
  const q = policy([f('x', { dependencies: ['huge'] })], { maxKvSize: 2, previousCache });
  assert.deepEqual(q.pin, ['huge']);
  assert.deepEqual(q.evict, ['kept', 'old', 'fresh']); // 5 resident, limit 2 → evict 3 of kept/old/fresh
  // Within capacity: nothing.
  assert.deepEqual(policy([f('x')], { maxKvSize: 64, previousCache }).evict, []);
});

test('capacity eviction counts rule evictions as already gone', () => {
  const previousCache = [
    { id: 'a', lastAccessTime: NOW - 3 * DAY, sizeTokens: 10 },
    { id: 'b', lastAccessTime: NOW, sizeTokens: 10 },
  ];
  // 'a' is selected and evicted by rule 3; resident = {b, c} = 2 ≤ 2 → no capacity eviction.
  assert.deepEqual(policy([f('a', { benefit: 0.1 }), f('c')], { maxKvSize: 2, previousCache }).evict, ['a']);
});

test('the default maximum KV size is 64', () => {
  assert.equal(DEFAULT_MAX_KV_SIZE, 64);
  const selected = Array.from({ length: 66 }, (_, i) => f(`k${String(i).padStart(2, '0')}`, { benefit: 0.5 + i / 1000 }));
  assert.deepEqual(policy(selected).compress, ['k00', 'k01']);
});

test('eviction score = ln(1 + ageHours) + sizeTokens/1000 − 2·lastBenefit', () => {
  const score = calculateEvictionScore({ id: 'a', lastAccessTime: NOW - HOUR, sizeTokens: 2000, lastBenefit: 0.25 }, { now: NOW });
  assert.ok(Math.abs(score - 2.1931471805599454) < 1e-15, String(score)); // ln 2 + 2 − 0.5
  assert.equal(calculateEvictionScore({ id: 'a', lastAccessTime: NOW, sizeTokens: 0 }, { now: NOW }), 0);
  assert.equal(
    calculateEvictionScore({ id: 'a', lastAccessTime: '2025-01-15T12:00:00Z', sizeTokens: 500, lastBenefit: 1 }, { now: NOW }),
    -1.5,
  );
});

test('eviction score clamps a future last access to age 0', () => {
  assert.equal(calculateEvictionScore({ id: 'a', lastAccessTime: NOW + 10 * DAY, sizeTokens: 1000 }, { now: NOW }), 1);
});

test('selectEvictionCandidates: nothing within capacity, else the highest scores', () => {
  const cache = [
    { id: 'a', lastAccessTime: NOW, sizeTokens: 100 },
    { id: 'b', lastAccessTime: NOW - 10 * DAY, sizeTokens: 100 },
    { id: 'c', lastAccessTime: NOW, sizeTokens: 3000 },
    { id: 'd', lastAccessTime: NOW - 10 * DAY, sizeTokens: 100, lastBenefit: 3 },
  ];
  assert.deepEqual(selectEvictionCandidates(cache, 4, { now: NOW }), []);
  assert.deepEqual(selectEvictionCandidates(cache, 2, { now: NOW }), ['b', 'c']); // ln(241) ≈ 5.48 > 3.0
  assert.deepEqual(selectEvictionCandidates(cache, 0, { now: NOW }), ['b', 'c', 'a', 'd']);
  assert.deepEqual(selectEvictionCandidates([], 0, { now: NOW }), []);
});

test('selectEvictionCandidates breaks ties by id code units, whatever the input order', () => {
  const cache = ['b', 'C', 'a', 'B'].map((id) => ({ id, lastAccessTime: NOW, sizeTokens: 100 }));
  assert.deepEqual(selectEvictionCandidates(cache, 1, { now: NOW }), ['B', 'C', 'a']);
  assert.deepEqual(selectEvictionCandidates(cache.toReversed(), 1, { now: NOW }), ['B', 'C', 'a']);
});

test('selectEvictionCandidates defaults to 64 entries', () => {
  const cache = Array.from({ length: 65 }, (_, i) => ({ id: `k${i}`, lastAccessTime: NOW - i * HOUR, sizeTokens: 1 }));
  assert.deepEqual(selectEvictionCandidates(cache, undefined, { now: NOW }), ['k64']);
});

test('validation of cache entries and options', () => {
  const is = (code, field, index) => (err) =>
    err instanceof CtxpackError && err.code === code && err.field === field && err.index === index;
  const ok = { id: 'a', lastAccessTime: NOW, sizeTokens: 1 };
  assert.throws(() => selectEvictionCandidates([ok, { ...ok, id: 'b', sizeTokens: -1 }], 1), is('INVALID_FIELD', 'sizeTokens', 1));
  assert.throws(() => selectEvictionCandidates([{ ...ok, lastAccessTime: 'then' }], 1), is('INVALID_FIELD', 'lastAccessTime', 0));
  assert.throws(() => selectEvictionCandidates([{ ...ok, lastBenefit: Number.NaN }], 1), is('INVALID_FIELD', 'lastBenefit', 0));
  assert.throws(
    () => selectEvictionCandidates([ok, ok], 1),
    (err) => is('DUPLICATE_ID', 'cache', 1)(err) && err.otherIndex === 0,
  );
  assert.throws(() => selectEvictionCandidates([ok], -1), is('INVALID_OPTION', 'maxSize', undefined));
  assert.throws(() => calculateEvictionScore({ ...ok, id: '' }), is('INVALID_FIELD', 'id', undefined));
  assert.throws(
    () => generateKVPolicy([f('a', { benefit: Number.NaN })]),
    (err) => is('INVALID_FIELD', 'benefit', 0)(err) && err.message.startsWith('selected[0].benefit'),
  );
  assert.throws(() => generateKVPolicy([f('a')], { maxKvSize: -1 }), is('INVALID_OPTION', 'maxKvSize', undefined));
  assert.throws(
    () => generateKVPolicy([f('a')], { previousCache: [{ ...ok, sizeTokens: 'x' }] }),
    (err) => is('INVALID_OPTION', 'previousCache.sizeTokens', 0)(err) && err.message.startsWith('options.previousCache[0].sizeTokens'),
  );
  assert.throws(() => generateKVPolicy([f('a')], { previousCache: {} }), is('INVALID_OPTION', 'previousCache', undefined));
  assert.throws(
    () => generateKVPolicy('a'),
    (err) => err.code === 'INVALID_INPUT',
  );
});

test('generateKVPolicy does not mutate its inputs', () => {
  const selected = [f('a', { dependencies: ['b'] }), f('b', { cost_tokens: 900 })];
  const previousCache = [{ id: 'z', lastAccessTime: 0, sizeTokens: 1 }];
  const snapshot = structuredClone([selected, previousCache]);
  policy(selected, { previousCache, maxKvSize: 0 });
  assert.deepEqual([selected, previousCache], snapshot);
});
