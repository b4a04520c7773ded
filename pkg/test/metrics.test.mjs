// Metric helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError } from '../dist/index.js';
import { calculateCacheHitRate, calculateCoverage, calculateDiversityScore, calculateKVCacheStats, calculateMeanBenefit } from '../dist/acs.js';

const NOW = Date.UTC(2025, 0, 15, 12);
const f = (id, extra = {}) => ({ id, cost_tokens: 100, ...extra });

test('coverage@entities: fraction of distinct gaze entities mentioned by the selection', () => {
  const gaze = { entities: ['a', 'b', 'c', 'd'] };
  assert.equal(calculateCoverage([f('1', { entities: ['a', 'z'] }), f('2', { entities: ['a', 'c'] })], gaze), 0.5);
  assert.equal(calculateCoverage([f('1', { entities: ['a', 'b', 'c', 'd'] })], gaze), 1);
  assert.equal(calculateCoverage([], gaze), 0);
  assert.equal(calculateCoverage([f('1', { entities: ['a'] })], { entities: [] }), 0);
  assert.equal(calculateCoverage([f('1', { entities: ['a'] })], { entities: ['a', 'a', 'b'] }), 0.5);
});

test('diversity_score: distinct sources / selected; a sourceless fragment is its own source', () => {
  assert.equal(calculateDiversityScore([]), 0);
  assert.equal(calculateDiversityScore([f('1', { source: 's' }), f('2', { source: 's' })]), 0.5);
  assert.equal(calculateDiversityScore([f('1', { source: 's' }), f('2', { source: 't' })]), 1);
  assert.equal(calculateDiversityScore([f('1', { source: 's' }), f('2', { source: 's' }), f('3'), f('4')]), 0.75);
  // A source named like a sourceless fragment's id does not collide with it.
  assert.equal(calculateDiversityScore([f('x'), f('2', { source: 'x' })]), 1);
});

test('mean benefit uses the ACS formula, ignoring fragment benefit fields', () => {
  const gaze = { entities: ['a', 'b'] };
  // Benefits: 0.6·1 + 0 + 0.1·1 = 0.7 and 0 + 0 + 0.05 = 0.05 → mean 0.375.
  const mean = calculateMeanBenefit([f('1', { entities: ['a', 'b'], citations: [1], benefit: 9 }), f('2')], gaze, { now: NOW });
  assert.ok(Math.abs(mean - 0.375) < 1e-15, String(mean));
  assert.equal(calculateMeanBenefit([], gaze, { now: NOW }), 0);
});

test('kv_cache_stats: hits and misses against the previous cache; evictions from the policy', () => {
  const previousCache = [
    { id: 'a', lastAccessTime: NOW, sizeTokens: 1 },
    { id: 'b', lastAccessTime: NOW, sizeTokens: 1 },
  ];
  const kvPolicy = { pin: [], compress: [], evict: ['b', 'z'] };
  const stats = calculateKVCacheStats([f('a'), f('c'), f('d')], kvPolicy, previousCache);
  assert.deepEqual(stats, { hits: 1, misses: 2, evictions: 2 });
  assert.deepEqual(calculateKVCacheStats([f('a')], { pin: [], compress: [], evict: [] }), { hits: 0, misses: 1, evictions: 0 });
  assert.equal(calculateCacheHitRate(stats), 1 / 3);
  assert.equal(calculateCacheHitRate({ hits: 0, misses: 0 }), 0);
});

test('metric helpers validate their inputs', () => {
  const is = (code, field, index) => (err) =>
    err instanceof CtxpackError && err.code === code && err.field === field && err.index === index;
  assert.throws(() => calculateCoverage('x', { entities: [] }), is('INVALID_INPUT', 'selected', undefined));
  assert.throws(() => calculateCoverage([f('1', { entities: [1] })], { entities: [] }), is('INVALID_FIELD', 'entities', 0));
  assert.throws(
    () => calculateDiversityScore([f('1'), f('2', { source: 3 })]),
    (err) => is('INVALID_FIELD', 'source', 1)(err) && err.message.startsWith('selected[1].source'),
  );
  assert.throws(() => calculateKVCacheStats([f('a')], {}), is('INVALID_INPUT', 'kvPolicy.evict', undefined));
});
