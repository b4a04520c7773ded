// Groups and dependencies at scale, through the package: a long dependency chain and a huge group
// plan at all (a quadratic step or a recursion or argument spread on input size would time out,
// overflow the stack, or throw a RangeError). No timing assertion: the machines are shared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectFragments } from 'ctxpack';
import { exactKnapsackSlice, greedySlice, groupUnits } from 'ctxpack/slicers';

const NOW = Date.UTC(2026, 10, 20);

test('a 100k-long dependency chain plans with selectFragments (greedy, ranked, exact) under dependencies: require', () => {
  const n = 100_000;
  const fragments = Array.from({ length: n }, (_, i) => ({
    id: `f${i}`,
    cost_tokens: 1 + (i % 7),
    timestamp: NOW,
    ...(i > 0 ? { dependencies: [`f${i - 1}`] } : {}),
  }));
  for (const slicer of ['greedy', 'ranked', 'exact']) {
    const plan = selectFragments(fragments, { entities: [] }, { tokens_max: 2000 }, { now: NOW, slicer, dependencies: 'require' });
    const kept = new Set(plan.fragments.map((f) => f.id));
    // Closed under dependencies: a kept f_i keeps f_{i-1}, so what is kept is a prefix of the chain.
    for (const id of kept) {
      const i = Number(id.slice(1));
      if (i > 0) assert.ok(kept.has(`f${i - 1}`), `${slicer}: ${id} without its dependency`);
    }
    assert.ok(plan.metrics.budget_used <= 2000, slicer);
    assert.ok(kept.size > 0, `${slicer}: the chain's head fits`);
  }
});

// The crate's own tests (tests/groups.rs, tests/wasm.rs) take a group of a million members; here a
// third of that keeps the test's memory modest beside the suite's other files running at once.
test('a group of 300k members slices whole or not at all, and groupUnits reports one unit', () => {
  const n = 300_000;
  const items = new Array(n);
  for (let i = 0; i < n; i++) items[i] = { id: `m${i}`, tokens: 1, score: 0.5, group: 'g' };
  items.push({ id: 'alone', tokens: 10, score: 0.1 });
  const out = greedySlice(items, { targetTokens: 100 });
  assert.deepEqual(out.selected, ['alone']);
  assert.equal(out.decisions[0].reason, 'group_excluded');
  const all = exactKnapsackSlice(items, { targetTokens: n + 10 });
  assert.equal(all.selected.length, n + 1);
  const units = groupUnits(items);
  assert.equal(units.unitCount, 2);
  assert.equal(units.unitSize[0], n);
  assert.equal(units.unitTokens[0], n);
});

test('pinning a member of a 150k-member group pins the group whole (no argument spread on its size)', () => {
  const n = 150_000;
  const fragments = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, cost_tokens: 1, group: 'g', timestamp: NOW, ...(i === 0 ? { pinned: true } : {}) }));
  const plan = selectFragments(fragments, { entities: [] }, { tokens_max: n }, { now: NOW });
  assert.equal(plan.fragments.length, n);
  assert.ok(plan.decisions.every((d) => d.reason === 'pinned'));
});

test('pinning the tail of a 100k-long dependency chain under require pins the whole chain (the core walks it once)', () => {
  const n = 100_000;
  const fragments = Array.from({ length: n }, (_, i) => ({
    id: `f${i}`,
    cost_tokens: 1,
    timestamp: NOW,
    ...(i > 0 ? { dependencies: [`f${i - 1}`] } : {}),
    ...(i === n - 1 ? { pinned: true } : {}),
  }));
  fragments.push({ id: 'free', cost_tokens: 1, timestamp: NOW });
  const plan = selectFragments(fragments, { entities: [] }, { tokens_max: n + 1 }, { now: NOW, dependencies: 'require' });
  assert.equal(plan.decisions.filter((d) => d.reason === 'pinned').length, n);
  assert.notEqual(plan.decisions[n].reason, 'pinned');
});
