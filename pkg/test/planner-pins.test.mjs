// `pinned: true` in selectFragments, for every strategy, and `options.order`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, selectFragments } from 'ctxpack';
import { PLANNER_SLICERS } from 'ctxpack/acs';
import { closure, edges } from './reach.mjs';
import { items, rng } from './rng.mjs';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const frags = () => [
  { id: 'a', cost_tokens: 50, entities: ['x'], timestamp: NOW - 3_600_000 },
  { id: 'b', cost_tokens: 400, entities: [], pinned: true, timestamp: NOW - 7_200_000 },
  { id: 'c', cost_tokens: 60, entities: ['x'], group: 'g', timestamp: NOW - 60_000 },
  { id: 'd', cost_tokens: 10, entities: [], group: 'g', timestamp: NOW },
  { id: 'e', cost_tokens: 30, entities: ['x'], dependencies: ['b'] },
];

for (const slicer of PLANNER_SLICERS) {
  test(`pinned fragments are kept and counted first with slicer '${slicer}'`, () => {
    const options = { now: NOW, slicer, ...(slicer.includes('count') ? { countEntries: [] } : {}) };
    const r = selectFragments(frags(), { entities: ['x'] }, { tokens_max: 480 }, options);
    const d = Object.fromEntries(r.decisions.map((x) => [x.id, x]));
    assert.equal(d.b.reason, 'pinned');
    assert.ok(d.b.included);
    assert.ok(r.fragments.some((f) => f.id === 'b'));
    assert.ok(r.metrics.budget_used <= 480);
    assert.equal(r.decisions.length, 5);
    assert.deepEqual(r.decisions.map((x) => x.index), [0, 1, 2, 3, 4]);
  });
}

test('a group with a pinned member is pinned whole; required dependencies of a pinned fragment too', () => {
  const f = frags();
  f[3].pinned = true;
  f[4].pinned = true;
  f[1].pinned = false;
  const r = selectFragments(f, { entities: ['x'] }, { tokens_max: 500 }, { now: NOW, dependencies: 'require' });
  const reasons = Object.fromEntries(r.decisions.map((x) => [x.id, x.reason]));
  assert.deepEqual([reasons.c, reasons.d, reasons.e, reasons.b], ['pinned', 'pinned', 'pinned', 'pinned']);
});

/** The ids a plan pins. */
const pinnedIds = (plan) => plan.decisions.filter((d) => d.reason === 'pinned').map((d) => d.id);
const plain = (id, extra) => ({ id, cost_tokens: 10, timestamp: NOW, ...extra });
const planOf = (f, dependencies) => selectFragments(f, { entities: [] }, { tokens_max: 10_000 }, { now: NOW, dependencies });

test('pinning follows a chain of required dependencies transitively, and only under require', () => {
  // a needs b, b needs c; d needs a (not pulled in by a).
  const f = [plain('a', { pinned: true, dependencies: ['b'] }), plain('b', { dependencies: ['c', 'elsewhere'] }), plain('c'), plain('d', { dependencies: ['a'] })];
  assert.deepEqual(pinnedIds(planOf(f, 'require')), ['a', 'b', 'c']);
  assert.deepEqual(pinnedIds(planOf(f, 'ignore')), ['a']);
});

test('pinning a member of a dependency cycle pins the cycle', () => {
  const f = [plain('a', { dependencies: ['b'] }), plain('b', { dependencies: ['c'] }), plain('c', { pinned: true, dependencies: ['a'] }), plain('d')];
  assert.deepEqual(pinnedIds(planOf(f, 'require')), ['a', 'b', 'c']);
});

test("a required dependency of a pinned group's member pulls the dependency's group, not the other way", () => {
  const f = [plain('a', { group: 'x', pinned: true }), plain('b', { group: 'x', dependencies: ['c'] }), plain('c', { group: 'y' }), plain('d', { group: 'y' }), plain('e')];
  assert.deepEqual(pinnedIds(planOf(f, 'require')), ['a', 'b', 'c', 'd']);
  assert.deepEqual(pinnedIds(planOf(f, 'ignore')), ['a', 'b']);
  const g = f.map(({ pinned: _p, ...x }) => x);
  g[3].pinned = true;
  assert.deepEqual(pinnedIds(planOf(g, 'require')), ['c', 'd']);
});

test('a pinned self-dependency under require is refused as unpinned, naming the candidate; ignored otherwise', () => {
  for (const pinned of [true, false]) {
    // Ids outside the call before it still count: the field names the caller's position.
    const f = [plain('a'), plain('b', { pinned, dependencies: ['zz', 'a', 'b'] })];
    assert.throws(() => planOf(f, 'require'), (e) => e.code === 'INVALID_FIELD' && e.index === 1 && e.field === 'dependencies[2]' && e.message === 'candidates[1].dependencies[2] must name another item, not the item itself');
    assert.deepEqual(pinnedIds(planOf(f, 'ignore')), pinned ? ['b'] : []);
  }
});

test('a candidate that is not an object beside a pinned one is INVALID_FIELD naming it, not a TypeError', () => {
  for (const dependencies of ['ignore', 'require']) {
    for (const bad of [null, 5]) {
      const f = [plain('a', { pinned: true, group: 'g' }), bad, plain('c', { group: 'g' })];
      assert.throws(() => planOf(f, dependencies), (e) => e instanceof CtxpackError && e.code === 'INVALID_FIELD' && e.index === 1);
    }
  }
});

test('what is pinned is what the pinned fragments reach over groups and required dependencies (random plans)', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed);
    const f = items(r, { maxN: 14, groupP: 0.4, depP: 0.4 }).map(({ tokens, score: _s, ...it }) => ({ ...it, cost_tokens: tokens, timestamp: NOW }));
    const seeds = [];
    f.forEach((x, i) => r.chance(0.2) && ((x.pinned = true), seeds.push(i)));
    for (const mode of ['ignore', 'require']) {
      const want = [...closure(edges(f, mode), ...seeds)].sort((a, b) => a - b).map((i) => f[i].id);
      assert.deepEqual(pinnedIds(planOf(f, mode)), want, `seed ${seed} ${mode}`);
    }
  }
});

test('pinned fragments over the budget: PINNED_OVER_BUDGET saying by how much; a non-boolean pinned is INVALID_FIELD', () => {
  assert.throws(() => selectFragments(frags(), { entities: [] }, { tokens_max: 300 }, { now: NOW }), (e) => e instanceof CtxpackError && e.code === 'PINNED_OVER_BUDGET' && /100 more than the effective budget 300/.test(e.message));
  const f = frags();
  f[2].pinned = 'yes';
  assert.throws(() => selectFragments(f, { entities: [] }, { tokens_max: 300 }), { code: 'INVALID_FIELD', field: 'pinned', index: 2 });
  const g = frags();
  g[4].cost_tokens = -1;
  assert.throws(() => selectFragments(g, { entities: [] }, { tokens_max: 3000 }), { code: 'INVALID_FIELD', index: 4 });
});

test('order: rank (default), input, chronological, u-shaped', () => {
  const f = frags().map(({ pinned: _p, group: _g, ...x }) => x);
  const ids = (order) => selectFragments(f, { entities: ['x'] }, { tokens_max: 10_000 }, order === undefined ? { now: NOW } : { now: NOW, order }).fragments.map((x) => x.id);
  const rank = ids();
  assert.deepEqual(ids('rank'), rank);
  assert.deepEqual(ids('input'), ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(ids('chronological'), ['e', 'b', 'a', 'c', 'd']);
  assert.deepEqual(ids('u-shaped'), [rank[0], rank[2], rank[4], rank[3], rank[1]]);
  assert.throws(() => ids('random'), { code: 'INVALID_OPTION', field: 'order' });
});

test('query: fragments with content rank by BM25 relevance without entities', () => {
  const f = [
    { id: 'weather', content: 'the weather today is sunny and warm', cost_tokens: 20 },
    { id: 'dog', content: 'we adopted a golden retriever puppy named Rex', cost_tokens: 20 },
    { id: 'misc', content: 'lunch was pasta again', cost_tokens: 20 },
  ];
  const r = selectFragments(f, { entities: [] }, { tokens_max: 20 }, { now: NOW, query: 'What is the name of the puppy we adopted?' });
  assert.deepEqual(r.fragments.map((x) => x.id), ['dog']);
  assert.ok(r.decisions[1].benefit > r.decisions[0].benefit);
  assert.throws(() => selectFragments(f, { entities: [] }, { tokens_max: 20 }, { query: 3 }), { code: 'INVALID_OPTION', field: 'query' });
});
