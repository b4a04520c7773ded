// ACS benefit/cost model v0, against hand-computed numbers at a fixed clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError } from '../dist/index.js';
import { DEFAULT_WEIGHTS, calculateBenefit, calculateEntityOverlap, calculateRecencyScore, calculateScore, calculateScoringComponents } from '../dist/acs.js';

const NOW = Date.UTC(2025, 0, 15, 12); // 2025-01-15T12:00:00Z
const HOUR = 3_600_000;
const near = (actual, expected, eps = 1e-15) => assert.ok(Math.abs(actual - expected) <= eps, `expected ${expected}, got ${actual}`);

test('entity overlap is |fragment ∩ gaze| / |gaze|', () => {
  assert.equal(calculateEntityOverlap(['a', 'b', 'z'], ['a', 'b', 'c', 'd']), 0.5);
  assert.equal(calculateEntityOverlap(['c'], ['a', 'b', 'c']), 1 / 3);
  assert.equal(calculateEntityOverlap(['z'], ['a']), 0);
  assert.equal(calculateEntityOverlap(['a', 'b'], ['a', 'b']), 1);
});

test('entity overlap: empty gaze → 0, missing fragment entities → 0', () => {
  assert.equal(calculateEntityOverlap(['a'], []), 0);
  assert.equal(calculateEntityOverlap(undefined, ['a']), 0);
  assert.equal(calculateEntityOverlap([], ['a']), 0);
});

test('entity overlap counts duplicates once (the seed filter would give 1.0 and 0.5 here)', () => {
  assert.equal(calculateEntityOverlap(['a', 'a'], ['a', 'b']), 0.5);
  assert.equal(calculateEntityOverlap(['a', 'a', 'a'], ['a']), 1);
  assert.equal(calculateEntityOverlap(['a'], ['a', 'a']), 1);
});

test('entity overlap matches exactly: no case folding or trimming', () => {
  assert.equal(calculateEntityOverlap(['Paris', 'paris '], ['paris']), 0);
});

test('recency is exp(-ageHours / 168)', () => {
  near(calculateRecencyScore(NOW - 168 * HOUR, { now: NOW }), 0.36787944117144233);
  near(calculateRecencyScore(NOW - 84 * HOUR, { now: NOW }), 0.6065306597126334);
  assert.equal(calculateRecencyScore(NOW, { now: NOW }), 1);
  near(calculateRecencyScore('2025-01-08T12:00:00Z', { now: NOW }), 0.36787944117144233);
  near(calculateRecencyScore(new Date(NOW - 168 * HOUR), { now: NOW }), 0.36787944117144233);
});

test('recency: a missing timestamp scores 0', () => {
  assert.equal(calculateRecencyScore(undefined, { now: NOW }), 0);
});

test('recency: a future timestamp is clamped to age 0 → 1 (the seed formula would give e ≈ 2.718 here)', () => {
  assert.equal(calculateRecencyScore(NOW + 168 * HOUR, { now: NOW }), 1);
});

test('recency reads Date.now() when no clock is given', () => {
  const r = calculateRecencyScore(Date.now() - 168 * HOUR);
  assert.ok(Math.abs(r - Math.exp(-1)) < 1e-6);
});

test('benefit = 0.6·overlap + 0.3·recency + 0.1·citations, score = benefit / (1 + cost/1000)', () => {
  const gaze = { entities: ['a', 'b', 'c', 'd'] };
  const f = { id: 'f', cost_tokens: 500, entities: ['a', 'b'], timestamp: NOW - 168 * HOUR, citations: ['doi:1'] };
  // 0.6·0.5 + 0.3·e^-1 + 0.1·1.0
  near(calculateBenefit(f, gaze, { now: NOW }), 0.5103638323514327);
  near(calculateScore(f, gaze, { now: NOW }), 0.3402425549009551);

  const g = { id: 'g', cost_tokens: 250, entities: ['a'], timestamp: NOW - 84 * HOUR };
  // 0.6·(1/3) + 0.3·e^-0.5 + 0.1·0.5 (no citations)
  const gaze3 = { entities: ['a', 'b', 'c'] };
  near(calculateBenefit(g, gaze3, { now: NOW }), 0.43195919791379);
  near(calculateScore(g, gaze3, { now: NOW }), 0.345567358331032);
});

test('benefit: missing citations count as an empty list (0.5); a bare fragment scores 0.05', () => {
  const bare = { id: 'x', cost_tokens: 0 };
  assert.equal(calculateBenefit(bare, { entities: [] }, { now: NOW }), 0.1 * 0.5);
  assert.equal(calculateBenefit({ ...bare, citations: [] }, { entities: [] }, { now: NOW }), 0.1 * 0.5);
  assert.equal(calculateScore(bare, { entities: [] }, { now: NOW }), 0.05);
});

test('benefit lies in [0, 1] with the default weights even for adversarial inputs', () => {
  const f = { id: 'x', cost_tokens: 0, entities: ['a', 'a', 'a', 'a'], timestamp: NOW + 1e9, citations: [1, 2, 3] };
  const b = calculateBenefit(f, { entities: ['a'] }, { now: NOW });
  assert.ok(b <= 1);
  near(b, 1); // 0.6 + 0.3 + 0.1 rounds to 0.9999999999999999 in binary floating point
});

test('weights are configurable; unspecified ones keep their defaults', () => {
  const f = { id: 'f', cost_tokens: 1000, entities: ['a'], timestamp: NOW, citations: [] };
  const gaze = { entities: ['a', 'b'] };
  assert.equal(calculateBenefit(f, gaze, { now: NOW, weights: { alpha: 1, beta: 0, gamma: 0 } }), 0.5);
  assert.equal(calculateScore(f, gaze, { now: NOW, weights: { alpha: 1, beta: 0, gamma: 0 } }), 0.25);
  near(calculateBenefit(f, gaze, { now: NOW, weights: { gamma: 0 } }), 0.6 * 0.5 + 0.3 * 1);
  assert.deepEqual({ ...DEFAULT_WEIGHTS }, { alpha: 0.6, beta: 0.3, gamma: 0.1 });
  assert.ok(Object.isFrozen(DEFAULT_WEIGHTS));
});

test('a fragment own score and benefit fields are ignored', () => {
  const f = { id: 'f', cost_tokens: 0, score: 99, benefit: 99 };
  assert.equal(calculateScore(f, { entities: [] }, { now: NOW }), 0.05);
});

test('calculateScoringComponents exposes every part', () => {
  const f = { id: 'f', cost_tokens: 500, entities: ['a', 'b'], timestamp: NOW - 168 * HOUR, citations: ['doi:1'] };
  const c = calculateScoringComponents(f, { entities: ['a', 'b', 'c', 'd'] }, { now: NOW });
  assert.equal(c.entity_overlap, 0.5);
  near(c.recency, 0.36787944117144233);
  assert.equal(c.citation_availability, 1);
  near(c.benefit, 0.5103638323514327);
  near(c.score, 0.3402425549009551);
});

test('scoring is deterministic at a fixed clock', () => {
  const f = { id: 'f', cost_tokens: 123, entities: ['a'], timestamp: '2024-12-01T00:00:00Z' };
  const a = calculateScore(f, { entities: ['a', 'b'] }, { now: NOW });
  const b = calculateScore(structuredClone(f), { entities: ['a', 'b'] }, { now: NOW });
  assert.equal(a, b);
});

test('scoring validates its inputs', () => {
  const gaze = { entities: ['a'] };
  const is = (code, field) => (err) => err instanceof CtxpackError && err.code === code && err.field === field;
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: -1 }, gaze, { now: NOW }), is('INVALID_FIELD', 'cost_tokens'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1, entities: 'a' }, gaze, { now: NOW }), is('INVALID_FIELD', 'entities'));
  assert.throws(
    () => calculateScore({ id: 'f', cost_tokens: 1, entities: [1] }, gaze, { now: NOW }),
    (err) => is('INVALID_FIELD', 'entities')(err) && /^fragment\.entities\[0\] must be a string/.test(err.message),
  );
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1, citations: 3 }, gaze, { now: NOW }), is('INVALID_FIELD', 'citations'));
  assert.throws(
    () => calculateScore({ id: 'f', cost_tokens: 1, timestamp: 'yesterday' }, gaze, { now: NOW }),
    is('INVALID_FIELD', 'timestamp'),
  );
  assert.throws(() => calculateScore(null, gaze, { now: NOW }), is('INVALID_FIELD', 'fragment'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1 }, { entities: 'a' }, { now: NOW }), is('INVALID_FIELD', 'gaze.entities'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1 }, null, { now: NOW }), is('INVALID_FIELD', 'gaze'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1 }, gaze, { now: Number.NaN }), is('INVALID_OPTION', 'now'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1 }, gaze, { weights: { alpha: -1 } }), is('INVALID_OPTION', 'weights.alpha'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1 }, gaze, { weights: { alhpa: 1 } }), is('INVALID_OPTION', 'weights.alhpa'));
  assert.throws(() => calculateScore({ id: 'f', cost_tokens: 1 }, gaze, 'fast'), is('INVALID_OPTION', 'options'));
  assert.throws(() => calculateEntityOverlap(['a'], 'a'), is('INVALID_FIELD', 'gazeEntities'));
  assert.throws(() => calculateRecencyScore('soon', { now: NOW }), is('INVALID_FIELD', 'timestamp'));
});
