// The scores' exp and log are engine-independent ports of fdlibm (pkg/src/util/detmath.ts): they must stay
// within 1 ulp of the engine's Math.exp / Math.log, so that the seed's formulas keep their meaning.
// (tests/e2e/determinism.test.mjs checks that Node, Chromium and workerd agree to the bit.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calculateEvictionScore, calculateRecencyScore } from 'ctxpack/acs';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;
const ulp = (x) => {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, Math.abs(x));
  b.setBigUint64(0, b.getBigUint64(0) + 1n);
  return b.getFloat64(0) - Math.abs(x);
};
let seed = 1;
const rand = () => (seed = (Math.imul(seed, 48271) >>> 0) % 2147483647) / 2147483647;

test('recency = exp(-age / 168 h) within 1 ulp of Math.exp, from seconds to centuries', () => {
  for (let i = 0; i < 100_000; i++) {
    const t = NOW - Math.round(10 ** (rand() * 10 - 3) * HOUR); // 0.001 h to 10 million h, whole ms
    const got = calculateRecencyScore(t, { now: NOW });
    const want = Math.exp(-((NOW - t) / (1000 * 60 * 60)) / 168);
    assert.ok(Math.abs(got - want) <= ulp(want), `t ${t}: ${got} vs Math.exp ${want}`);
  }
  assert.equal(calculateRecencyScore(NOW, { now: NOW }), 1);
  assert.equal(calculateRecencyScore(NOW - 1e9 * HOUR, { now: NOW }), 0);
});

test('eviction score = log(1 + age h) + size/1000 − 2·benefit, the log within 1 ulp of Math.log', () => {
  for (let i = 0; i < 100_000; i++) {
    const t = NOW - Math.round(10 ** (rand() * 8 - 2) * HOUR);
    const got = calculateEvictionScore({ id: 'k', lastAccessTime: t, sizeTokens: 0 }, { now: NOW });
    const want = Math.log(1 + (NOW - t) / (1000 * 60 * 60));
    assert.ok(Math.abs(got - want) <= ulp(want), `t ${t}: ${got} vs Math.log ${want}`);
  }
  assert.equal(calculateEvictionScore({ id: 'k', lastAccessTime: NOW, sizeTokens: 0 }, { now: NOW }), 0);
});
