// Ranking and the six tie-break rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError } from '../dist/index.js';
import { SCORE_TIE_TOLERANCE, applyTieBreaking } from '../dist/acs.js';
import { rng } from './rng.mjs';

const T0 = Date.UTC(2025, 0, 1);

/** A scored fragment where every tie-break field is equal unless overridden. */
const sf = (id, score, extra = {}) => ({
  fragment: { id, cost_tokens: 100, timestamp: T0, citations: [], ...extra },
  score,
});
const ids = (ranked) => ranked.map((s) => s.fragment.id);
const rank = (list, options) => ids(applyTieBreaking(list, options));

/** Uniform in [0, 1) from `seed` (mulberry32, rng.mjs). */
const prng = (seed) => rng(seed).next;
function shuffled(list, rand) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
function permutations(list) {
  if (list.length <= 1) return [list];
  return list.flatMap((x, i) => permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((p) => [x, ...p]));
}

test('score descending decides first', () => {
  assert.deepEqual(rank([sf('a', 0.2), sf('b', 0.9), sf('c', 0.5)]), ['b', 'c', 'a']);
});

test('rule 1, freshness: newer timestamp first', () => {
  const pair = [sf('a', 0.5, { timestamp: T0 }), sf('b', 0.5, { timestamp: T0 + 1 })];
  assert.deepEqual(rank(pair), ['b', 'a']);
  assert.deepEqual(rank(pair.toReversed()), ['b', 'a']);
  // Mixed representations compare by instant; a missing timestamp is the oldest.
  assert.deepEqual(rank([sf('a', 0.5, { timestamp: '2025-01-01T00:00:00.001Z' }), sf('b', 0.5, { timestamp: new Date(T0) })]), ['a', 'b']);
  assert.deepEqual(rank([sf('a', 0.5, { timestamp: undefined }), sf('b', 0.5, { timestamp: -8.64e15 })]), ['b', 'a']);
});

test('rule 2, citation confidence: more citations first', () => {
  const pair = [sf('a', 0.5, { citations: ['x'] }), sf('b', 0.5, { citations: ['x', 'y'] })];
  assert.deepEqual(rank(pair), ['b', 'a']);
  assert.deepEqual(rank(pair.toReversed()), ['b', 'a']);
  assert.deepEqual(rank([sf('a', 0.5, { citations: undefined }), sf('b', 0.5, { citations: ['x'] })]), ['b', 'a']);
});

test('rule 3, cohesion: fewer unresolved dependencies first', () => {
  // 'a' depends on an id that is not in the list; 'b' depends on 'a', which is.
  const pair = [sf('a', 0.5, { dependencies: ['missing'] }), sf('b', 0.5, { dependencies: ['a'] })];
  assert.deepEqual(rank(pair), ['b', 'a']);
  assert.deepEqual(rank(pair.toReversed()), ['b', 'a']);
  // Each distinct unresolved id counts once.
  assert.deepEqual(rank([sf('a', 0.5, { dependencies: ['m', 'n'] }), sf('b', 0.5, { dependencies: ['m', 'm', 'm'] })]), ['b', 'a']);
  // A dependency on itself or on any listed id is resolved.
  assert.deepEqual(rank([sf('a', 0.5, { dependencies: ['x'] }), sf('b', 0.5, { dependencies: ['b', 'a'] })]), ['b', 'a']);
});

test('rule 4, diversity: prefer a source not among the last N picks', () => {
  const list = [sf('p', 0.9, { source: 'S' }), sf('a', 0.5, { source: 'S' }), sf('b', 0.5, { source: 'T' })];
  assert.deepEqual(rank(list), ['p', 'b', 'a']);
  assert.deepEqual(rank(list.toReversed()), ['p', 'b', 'a']);
  // Disabled: rule 6 decides.
  assert.deepEqual(rank(list, { diversityWindow: 0 }), ['p', 'a', 'b']);
});

test('rule 4 walks the tie group pick by pick, falling back to the first remaining', () => {
  const list = [
    sf('p', 0.9, { source: 'S' }),
    sf('a1', 0.5, { source: 'S' }),
    sf('a2', 0.5, { source: 'S' }),
    sf('b1', 0.5, { source: 'T' }),
    sf('c1', 0.5, { source: 'U' }),
  ];
  // N = 3: window {S} → b1; {S,T} → c1; {S,T,U} → all conflict → a1; then a2.
  assert.deepEqual(rank(list), ['p', 'b1', 'c1', 'a1', 'a2']);
  // N = 1: window {S} → b1; {T} → a1; {S} → c1; {U} → a2.
  assert.deepEqual(rank(list, { diversityWindow: 1 }), ['p', 'b1', 'a1', 'c1', 'a2']);
  // N larger than the list behaves like the whole list.
  assert.deepEqual(rank(list, { diversityWindow: 1e9 }), ['p', 'b1', 'c1', 'a1', 'a2']);
});

test('rule 4: fragments without source never conflict but take a window slot', () => {
  const list = [sf('p', 0.9, { source: 'S' }), sf('q', 0.8), sf('a', 0.5, { source: 'S' }), sf('b', 0.5, { source: 'T' })];
  assert.deepEqual(rank(list, { diversityWindow: 2 }), ['p', 'q', 'b', 'a']);
  // With N = 1 the sourceless pick pushed S out of the window, so rule 6 decides.
  assert.deepEqual(rank(list, { diversityWindow: 1 }), ['p', 'q', 'a', 'b']);
});

test('rule 4 ranks below rules 1–3 and above rules 5–6', () => {
  const p = sf('p', 0.9, { source: 'S' });
  // Freshness beats diversity.
  assert.deepEqual(rank([p, sf('a', 0.5, { source: 'S', timestamp: T0 + 1 }), sf('b', 0.5, { source: 'T' })]), ['p', 'a', 'b']);
  // Citations beat diversity.
  assert.deepEqual(rank([p, sf('a', 0.5, { source: 'S', citations: [1] }), sf('b', 0.5, { source: 'T' })]), ['p', 'a', 'b']);
  // Cohesion beats diversity.
  assert.deepEqual(rank([p, sf('a', 0.5, { source: 'S' }), sf('b', 0.5, { source: 'T', dependencies: ['zz'] })]), ['p', 'a', 'b']);
  // Diversity beats size.
  assert.deepEqual(rank([p, sf('a', 0.5, { source: 'S', cost_tokens: 1 }), sf('b', 0.5, { source: 'T', cost_tokens: 999 })]), [
    'p',
    'b',
    'a',
  ]);
});

test('rule 5, size: smaller cost first', () => {
  const pair = [sf('a', 0.5, { cost_tokens: 200 }), sf('b', 0.5, { cost_tokens: 100 })];
  assert.deepEqual(rank(pair), ['b', 'a']);
  assert.deepEqual(rank(pair.toReversed()), ['b', 'a']);
});

test('rule 6, id: UTF-16 code-unit order, not locale order', () => {
  const pair = [sf('a', 0.5), sf('B', 0.5)];
  assert.deepEqual(rank(pair), ['B', 'a']); // 'B' (0x42) < 'a' (0x61); localeCompare would say the opposite
  assert.deepEqual(rank(pair.toReversed()), ['B', 'a']);
  // Astral characters compare by surrogate code units: U+FF5E ('～') > U+D83D (high surrogate of '😀').
  assert.deepEqual(rank([sf('～', 0.5), sf('😀', 0.5)]), ['😀', '～']);
});

test('scores within 0.001 are tied; further apart they are not', () => {
  assert.equal(SCORE_TIE_TOLERANCE, 0.001);
  // Tied: the fresher one wins although its score is lower.
  assert.deepEqual(rank([sf('a', 0.5009), sf('b', 0.5, { timestamp: T0 + 1 })]), ['b', 'a']);
  // Not tied: score decides.
  assert.deepEqual(rank([sf('a', 0.502), sf('b', 0.5, { timestamp: T0 + 1 })]), ['a', 'b']);
});

test('tie groups are anchored at their highest score, independent of input order', () => {
  // 0.5016 and 0.5008 are within 0.001, 0.5008 and 0.5000 too, but 0.5016 and 0.5000 are not.
  // Groups: {x: 0.5016, y: 0.5008} then {z: 0.5000}. Within the first, the newer y wins.
  const list = [sf('x', 0.5016), sf('y', 0.5008, { timestamp: T0 + 2 }), sf('z', 0.5, { timestamp: T0 + 5 })];
  for (const p of permutations(list)) assert.deepEqual(rank(p), ['y', 'x', 'z']);
});

test('the ranking does not depend on input order (random inputs with every feature)', () => {
  const rand = prng(42);
  for (let round = 0; round < 200; round++) {
    const n = 1 + Math.floor(rand() * 25);
    const list = Array.from({ length: n }, (_, i) =>
      sf(`f${i}`, [0.1, 0.1005, 0.2, 0.2008, 0.3][Math.floor(rand() * 5)], {
        timestamp: T0 + Math.floor(rand() * 3),
        citations: Array.from({ length: Math.floor(rand() * 3) }),
        cost_tokens: 100 * Math.floor(rand() * 3),
        source: rand() < 0.2 ? undefined : `s${Math.floor(rand() * 3)}`,
        dependencies: rand() < 0.5 ? [] : [`f${Math.floor(rand() * n * 2)}`],
      }),
    );
    const expected = rank(list);
    for (let k = 0; k < 3; k++) assert.deepEqual(rank(shuffled(list, rand)), expected);
  }
});

/**
 * The seed's applyTieBreaking, transcribed. One deliberate change: the id fallback compares code
 * units instead of calling localeCompare (on the ids used below the two agree).
 */
function seedSort(candidates) {
  return [...candidates]
    .sort((a, b) => b.score - a.score)
    .sort((a, b) => {
      if (Math.abs(a.score - b.score) > 0.001) return b.score - a.score;
      const freshnessA = a.fragment.timestamp.getTime();
      const freshnessB = b.fragment.timestamp.getTime();
      if (freshnessA !== freshnessB) return freshnessB - freshnessA;
      const citationsA = a.fragment.citations.length;
      const citationsB = b.fragment.citations.length;
      if (citationsA !== citationsB) return citationsB - citationsA;
      const costA = a.fragment.cost_tokens;
      const costB = b.fragment.cost_tokens;
      if (costA !== costB) return costA - costB;
      return a.fragment.id < b.fragment.id ? -1 : a.fragment.id > b.fragment.id ? 1 : 0;
    });
}

test('without sources and dependencies the order equals the seed sort where its comparator is consistent', () => {
  const rand = prng(2025);
  for (let round = 0; round < 500; round++) {
    const n = 1 + Math.floor(rand() * 40);
    // Scores are equal or at least 0.01 apart, so the seed comparator is a consistent order.
    const levels = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, i) => 0.05 + 0.01 * i + 0.1 * Math.floor(rand() * 5));
    const list = Array.from({ length: n }, (_, i) => ({
      fragment: {
        id: `id-${String(i).padStart(3, '0')}`,
        cost_tokens: Math.floor(rand() * 4) * 250,
        timestamp: new Date(T0 + Math.floor(rand() * 4) * 1000),
        citations: Array.from({ length: Math.floor(rand() * 3) }, (_, c) => `c${c}`),
      },
      score: levels[Math.floor(rand() * levels.length)],
    }));
    const input = shuffled(list, rand);
    assert.deepEqual(ids(applyTieBreaking(input)), ids(seedSort(input)), `round ${round}`);
  }
});

/** The documented procedure, written naively (quadratic) as an oracle for the optimized one. */
function referenceRank(list, windowSize = 3) {
  const all = new Set(list.map((s) => s.fragment.id));
  const k = list.map((s) => ({
    s,
    id: s.fragment.id,
    score: s.score,
    fresh: s.fragment.timestamp ?? -Infinity,
    cites: (s.fragment.citations ?? []).length,
    unresolved: new Set((s.fragment.dependencies ?? []).filter((d) => !all.has(d))).size,
    source: s.fragment.source,
    cost: s.fragment.cost_tokens,
  }));
  const r123 = (a, b) => (a.fresh !== b.fresh ? (a.fresh > b.fresh ? -1 : 1) : b.cites - a.cites || a.unresolved - b.unresolved);
  const r56 = (a, b) => a.cost - b.cost || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const rules = (a, b) => r123(a, b) || r56(a, b);
  const sorted = [...k].sort((a, b) => (a.score !== b.score ? b.score - a.score : rules(a, b)));
  const out = [];
  for (let start = 0; start < sorted.length; ) {
    let end = start + 1;
    while (end < sorted.length && Math.abs(sorted[start].score - sorted[end].score) <= 0.001) end++;
    const remaining = sorted.slice(start, end).sort(rules);
    while (remaining.length > 0) {
      const window = windowSize === 0 ? [] : out.slice(-windowSize).map((x) => x.source);
      const tied = remaining.filter((x) => r123(x, remaining[0]) === 0);
      const pick = tied.find((x) => x.source === undefined || !window.includes(x.source)) ?? remaining[0];
      remaining.splice(remaining.indexOf(pick), 1);
      out.push(pick);
    }
    start = end;
  }
  return out.map((x) => x.id);
}

test('the ranking equals a naive transcription of the documented procedure (random inputs)', () => {
  const rand = prng(314);
  for (let round = 0; round < 400; round++) {
    const n = 1 + Math.floor(rand() * 30);
    const windowSize = Math.floor(rand() * 5);
    const list = Array.from({ length: n }, (_, i) =>
      sf(`f${String(i).padStart(2, '0')}`, [0.4, 0.4004, 0.4008, 0.4012, 0.6][Math.floor(rand() * 5)], {
        timestamp: rand() < 0.1 ? undefined : T0 + Math.floor(rand() * 2),
        citations: rand() < 0.1 ? undefined : Array.from({ length: Math.floor(rand() * 2) }),
        cost_tokens: 100 * Math.floor(rand() * 2),
        source: rand() < 0.25 ? undefined : `s${Math.floor(rand() * 3)}`,
        dependencies: rand() < 0.7 ? undefined : [`f${String(Math.floor(rand() * n * 2)).padStart(2, '0')}`],
      }),
    );
    assert.deepEqual(rank(list, { diversityWindow: windowSize }), referenceRank(list, windowSize), `round ${round}`);
  }
});

test('the ranking equals the naive transcription on every path: the comparators (up to 256 items) and the radix passes (n up to 400)', () => {
  const rand = prng(2718);
  // Scores spread wide (no dense buckets), clustered (dense buckets), and from a few values (ties);
  // timestamps integral (one primary key) or fractional (the two-word key).
  for (let round = 0; round < 48; round++) {
    const n = [40, 90, 256, 257, 300, 400][round % 6];
    const spread = Math.floor(round / 6) % 4;
    const list = Array.from({ length: n }, (_, i) =>
      sf(`f${String(i).padStart(3, '0')}`, spread === 0 ? rand() * 40 : spread === 1 ? 0.4 + rand() * 0.01 : [0.4, 0.4004, 0.4008, 0.6][Math.floor(rand() * 4)], {
        timestamp: rand() < 0.1 ? undefined : T0 + (spread === 3 ? rand() * 1e9 : Math.floor(rand() * 1e9)),
        citations: Array.from({ length: Math.floor(rand() * 2) }),
        cost_tokens: 100 * Math.floor(rand() * 3),
        source: rand() < 0.25 ? undefined : `s${Math.floor(rand() * 4)}`,
      }),
    );
    const windowSize = Math.floor(rand() * 4);
    assert.deepEqual(rank(list, { diversityWindow: windowSize }), referenceRank(list, windowSize), `round ${round}, n ${n}`);
  }
});

test('returns a new array with the same entries and does not mutate the input', () => {
  const list = [sf('a', 0.1), sf('b', 0.9)];
  const snapshot = structuredClone(list);
  const out = applyTieBreaking(list);
  assert.notEqual(out, list);
  assert.equal(out[0], list[1]);
  assert.equal(out[1], list[0]);
  assert.deepEqual(list, snapshot);
  assert.deepEqual(applyTieBreaking([]), []);
});

test('extra properties of the scored entries are kept', () => {
  const out = applyTieBreaking([{ ...sf('a', 0.5), benefit: 0.7, index: 3 }]);
  assert.equal(out[0].benefit, 0.7);
  assert.equal(out[0].index, 3);
});

test('validation: scores, fragments, options', () => {
  const is = (code, field, index) => (err) =>
    err instanceof CtxpackError && err.code === code && err.field === field && err.index === index;
  assert.throws(() => applyTieBreaking([sf('a', 0.5), sf('b', Number.NaN)]), is('INVALID_SCORE', 'score', 1));
  assert.throws(
    () => applyTieBreaking([sf('a', 0.5), { fragment: { id: 'b', cost_tokens: 1 }, score: '1' }]),
    is('INVALID_SCORE', 'score', 1),
  );
  assert.throws(
    () => applyTieBreaking([sf('a', 0.5, { timestamp: 'later' })]),
    (err) => is('INVALID_FIELD', 'timestamp', 0)(err) && err.message.startsWith('scored[0].fragment.timestamp'),
  );
  assert.throws(() => applyTieBreaking([sf('a', 0.5, { source: 7 })]), is('INVALID_FIELD', 'source', 0));
  assert.throws(() => applyTieBreaking([sf('a', 0.5, { dependencies: 'b' })]), is('INVALID_FIELD', 'dependencies', 0));
  assert.throws(() => applyTieBreaking([null]), is('INVALID_FIELD', 'scored', 0));
  assert.throws(
    () => applyTieBreaking('x'),
    (err) => err.code === 'INVALID_INPUT',
  );
  assert.throws(() => applyTieBreaking([], { diversityWindow: -1 }), is('INVALID_OPTION', 'diversityWindow', undefined));
  assert.throws(() => applyTieBreaking([], { diversityWindow: 1.5 }), is('INVALID_OPTION', 'diversityWindow', undefined));
});

test('a large all-tied group from few sources stays fast', () => {
  const list = Array.from({ length: 20000 }, (_, i) => sf(`f${String(i).padStart(5, '0')}`, 0.5, { source: `s${i % 3 === 0 ? 1 : 0}` }));
  const t = performance.now();
  const out = rank(list);
  assert.ok(performance.now() - t < 2000);
  assert.equal(out.length, 20000);
  assert.equal(new Set(out).size, 20000);
});
