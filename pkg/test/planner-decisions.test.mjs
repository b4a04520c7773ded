// From 256 candidates on, a plan's decisions are made when first read (planner/finish.ts): these
// tests pin down that the plan behaves as if they had been made with the rest of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateTokens, selectFragments } from 'ctxpack';
import { calculateBenefit, calculateScore } from 'ctxpack/acs';

const NOW = Date.UTC(2025, 0, 15, 12);
const GAZE = { entities: ['a', 'b', 'c'] };

/** n fragments with varied counts, entities, times and sources (fixed seed). */
function fragments(n, seed, extra = () => ({})) {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, (_, i) => ({
    id: `f${seed}-${i}`,
    cost_tokens: 20 + Math.floor(next() * 400),
    entities: GAZE.entities.filter(() => next() < 0.4),
    timestamp: NOW - Math.floor(next() * 1e8),
    source: `s${Math.floor(next() * 5)}`,
    citations: next() < 0.3 ? ['x'] : [],
    ...extra(i),
  }));
}

const plan = (candidates, tokens, options = {}) => selectFragments(candidates, GAZE, { tokens_max: tokens }, { now: NOW, ...options });

test('decisions read after later calls equal those of a plan read at once, for every strategy', () => {
  for (const slicer of ['ranked', 'packer', 'greedy', 'knapsack', 'exact']) {
    const a = fragments(300, 1);
    const expected = plan(a, 4000, { slicer }).decisions;
    const early = plan(a, 4000, { slicer });
    // Later calls reuse the planner's pooled columns; the first plan's decisions must not see them.
    for (let k = 2; k < 5; k++) plan(fragments(300 + k * 50, k), 2500 + k * 900, { slicer });
    assert.deepEqual(early.decisions, expected, slicer);
    assert.equal(early.decisions.filter((d) => d.included).length, early.fragments.length, slicer);
  }
});

test("a decision's score is the candidate's ACS score, the benefit for the packer, below and above the lazy threshold", () => {
  // The plan keeps no column of scores: decisions make them again from the benefits and counts.
  const countTokens = (text) => estimateTokens(text);
  for (const n of [40, 300]) {
    // Every third candidate is counted from its content (the packer counts only what it reaches).
    const a = fragments(n, 7, (i) => (i % 3 === 0 ? { cost_tokens: undefined, content: 'word '.repeat(5 + (i % 50)) } : {}));
    for (const slicer of ['ranked', 'packer', 'greedy', 'knapsack']) {
      const p = plan(a, 3000, { slicer, countTokens });
      for (const d of p.decisions) {
        const f = { ...a[d.index], cost_tokens: d.cost_tokens ?? 0 };
        const expected = slicer === 'packer' ? calculateBenefit(f, GAZE, { now: NOW }) : calculateScore(f, GAZE, { now: NOW });
        assert.equal(d.score, expected, `${slicer}, n ${n}, ${d.id}`);
      }
      const top = p.fragments.slice(0, 3).map((f) => p.decisions.find((d) => d.id === f.id).score);
      assert.deepEqual(p.metrics.top3_scores, top, `${slicer}, n ${n}`);
    }
  }
});

test("a decision's score agrees with the scoring under groups, variants, pins, a query and every strategy", () => {
  // metrics.top3_scores come from the scores the ranking used; decisions make theirs again.
  const scenarios = {
    groups: (i) => (i % 5 === 0 ? { group: `g${i % 15}` } : {}),
    variants: (i) => (i % 4 === 0 ? { variants: [{ id: `v${i}`, cost_tokens: 10, lod: 'summary' }] } : {}),
    pins: (i) => (i % 37 === 0 ? { pinned: true } : {}),
    query: (i) => ({ content: i % 2 === 0 ? 'alpha beta' : 'gamma' }),
  };
  const slicers = { groups: ['ranked', 'packer', 'greedy', 'knapsack', 'exact'], variants: ['ranked', 'packer', 'greedy', 'knapsack', 'exact'], pins: ['ranked', 'packer', 'greedy', 'knapsack', 'exact', 'count-knapsack'], query: ['ranked', 'packer', 'greedy', 'knapsack', 'exact', 'count-knapsack'] };
  for (const n of [40, 300]) {
    for (const [name, extra] of Object.entries(scenarios)) {
      const a = fragments(n, 11, extra);
      for (const slicer of slicers[name]) {
        const options = { slicer, ...(name === 'query' ? { query: 'alpha' } : {}), ...(slicer === 'count-knapsack' ? { countEntries: [] } : {}) };
        const p = plan(a, 3000, options);
        const byId = new Map(p.decisions.map((d) => [d.id, d]));
        const label = `${name}, ${slicer}, n ${n}`;
        assert.deepEqual(p.metrics.top3_scores, p.fragments.slice(0, 3).map((f) => byId.get(f.id).score), label);
        // The pinned candidates are planned by their own 'ranked' pass (pins.ts): scored by cost.
        if (slicer === 'packer') for (const d of p.decisions) if (!a[d.index].pinned) assert.equal(d.score, d.benefit, label);
        if (name !== 'query' && name !== 'pins' && slicer !== 'packer') {
          for (const d of p.decisions) assert.equal(d.score, calculateScore(a[d.index], GAZE, { now: NOW }), `${label}, ${d.id}`);
        }
      }
    }
  }
});

test('the decisions property: an accessor until read, then a data property holding one array', () => {
  const p = plan(fragments(400, 7), 20000);
  const before = Object.getOwnPropertyDescriptor(p, 'decisions');
  assert.equal(typeof before.get, 'function');
  assert.equal(before.enumerable, true);
  const first = p.decisions;
  const after = Object.getOwnPropertyDescriptor(p, 'decisions');
  assert.equal(after.value, first);
  assert.equal(p.decisions, first);
  assert.deepEqual(Object.keys(p), ['fragments', 'metrics', 'kvPolicy', 'decisions', 'warnings']);
});

test('an unread plan serialises, spreads and clones with its decisions', () => {
  const make = () => plan(fragments(300, 9), 15000);
  const expected = make().decisions;
  const [json, spread, clone] = [make(), make(), make()];
  plan(fragments(600, 10), 9000); // reuse the pool first
  assert.deepEqual(JSON.parse(JSON.stringify(json)).decisions, JSON.parse(JSON.stringify(expected)));
  assert.deepEqual({ ...spread }.decisions, expected);
  assert.deepEqual(structuredClone(clone).decisions, expected);
});

test('assigning decisions before reading them replaces them', () => {
  const p = plan(fragments(300, 3), 10000);
  p.decisions = [];
  assert.deepEqual(p.decisions, []);
});

test('a content the lazy packer never reached keeps cost_tokens null when read later', () => {
  const counted = [];
  const countTokens = (text) => (counted.push(text), text.length);
  const candidates = Array.from({ length: 300 }, (_, i) => ({ id: `c${i}`, content: 'x'.repeat(100 + i), entities: ['a'] }));
  const p = plan(candidates, 250, { slicer: 'packer', countTokens });
  plan(fragments(200, 5), 3000); // reuse the pool
  const unreached = p.decisions.filter((d) => d.cost_tokens === null);
  assert.ok(unreached.length > 0 && counted.length < candidates.length);
  assert.equal(unreached.length, candidates.length - counted.length);
  for (const d of p.decisions) if (d.cost_tokens !== null) assert.equal(d.cost_tokens, candidates[d.index].content.length);
});

test('placement keeps the decisions unmade until read, and right', () => {
  const a = fragments(500, 11);
  const expected = plan(a, 3000).decisions;
  const placed = plan(a, 3000, { order: 'input' });
  assert.equal(typeof Object.getOwnPropertyDescriptor(placed, 'decisions').get, 'function');
  plan(fragments(800, 12), 20000);
  assert.deepEqual(placed.decisions, expected);
});

test('below 256 candidates the decisions are made with the plan: a plain property', () => {
  const p = plan(fragments(255, 13), 8000);
  const d = Object.getOwnPropertyDescriptor(p, 'decisions');
  assert.equal(d.get, undefined);
  assert.equal(d.value.length, 255);
  const q = plan(fragments(256, 13), 8000);
  assert.equal(typeof Object.getOwnPropertyDescriptor(q, 'decisions').get, 'function');
});
