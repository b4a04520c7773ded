// Budget simulation in the package (budgetCurve, minBudgetFor, droppedUnderSlack) against per-budget
// reruns of the slicer functions on seeded random instances, with and without groups; the
// NOT_MONOTONIC refusal of the count-constrained strategies; options and errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError } from 'ctxpack';
import { budgetCurve, droppedUnderSlack, exactKnapsackSlice, greedySlice, knapsackSlice, minBudgetFor, packerSlice } from 'ctxpack/slicers';
import { items as randomItems, rng, valueOf } from './rng.mjs';

/** The strategies with random options: the simulation's options and the slicer function that reruns them. */
function strategies(r) {
  const bucketSize = r.int(1, 9);
  const maxConsecutiveSkips = r.int(0, 3);
  return [
    [{ slicer: 'greedy' }, (l, t) => greedySlice(l, { targetTokens: t })],
    [{ slicer: 'knapsack', bucketSize }, (l, t) => knapsackSlice(l, { targetTokens: t }, { bucketSize })],
    [{ slicer: 'exact' }, (l, t) => exactKnapsackSlice(l, { targetTokens: t })],
    [{ slicer: 'packer', maxConsecutiveSkips }, (l, t) => packerSlice(l, { targetTokens: t }, { maxConsecutiveSkips })],
  ];
}

test('budgetCurve: every point is the value of a rerun at that budget, groups included', () => {
  const r = rng(81);
  for (let round = 0; round < 160; round++) {
    const list = randomItems(r, { maxN: 10, maxTokens: 40, groupP: round % 2 === 0 ? 0 : 0.5 });
    const maxBudget = r.int(0, 160);
    for (const [options, rerun] of strategies(r)) {
      const curve = budgetCurve(list, maxBudget, options);
      assert.ok(curve instanceof Float64Array);
      assert.equal(curve.length, maxBudget + 1);
      for (let t = 0; t <= maxBudget; t++) {
        assert.equal(curve[t], valueOf(list, rerun(list, t).selected), `${options.slicer} round ${round} budget ${t}: ${JSON.stringify(list)}`);
      }
    }
  }
});

/** first and stableFrom by scanning reruns over 0..=ceiling. */
function scan(list, id, ceiling, rerun) {
  let first = null;
  let lastOut = -1;
  let atCeiling = false;
  for (let t = 0; t <= ceiling; t++) {
    const selected = rerun(list, t).selected.includes(id);
    if (selected && first === null) first = t;
    if (!selected) lastOut = t;
    if (t === ceiling) atCeiling = selected;
  }
  return { first, stableFrom: atCeiling ? lastOut + 1 : null };
}

test('minBudgetFor: first and stableFrom equal a scan of reruns, groups included', () => {
  const r = rng(82);
  let gaps = 0;
  for (let round = 0; round < 120; round++) {
    const list = randomItems(r, { maxN: 8, maxTokens: 30, groupP: round % 2 === 0 ? 0 : 0.5 });
    for (const [options, rerun] of strategies(r)) {
      for (const it of list) {
        const m = minBudgetFor(list, it.id, options);
        assert.equal(m.ceiling, m.saturation);
        const label = `${options.slicer} round ${round} ${it.id}: ${JSON.stringify(list)}`;
        assert.deepEqual({ first: m.first, stableFrom: m.stableFrom }, scan(list, it.id, m.ceiling + 2, rerun), label);
        if (m.first !== null && m.stableFrom !== null && m.first < m.stableFrom - 1) gaps++;
        const ceiling = r.int(0, m.ceiling);
        const c = minBudgetFor(list, it.id, { ...options, maxBudget: ceiling });
        assert.deepEqual({ first: c.first, stableFrom: c.stableFrom }, scan(list, it.id, ceiling, rerun), `${label} ceiling ${ceiling}`);
      }
    }
  }
  assert.ok(gaps > 0, 'no item was in, out, then in again');
});

test('droppedUnderSlack: the difference of two reruns, both ways, dependencies included', () => {
  const r = rng(83);
  for (let round = 0; round < 300; round++) {
    const list = randomItems(r, { maxN: 12, maxTokens: 60, groupP: 0.3, depP: 0.3 });
    const budget = { targetTokens: r.int(0, 300) };
    const slack = r.int(0, 320);
    const dependencies = r.pick(['ignore', 'require']);
    for (const [options] of strategies(r)) {
      const { slicer, ...rest } = options;
      const run = { greedy: greedySlice, knapsack: knapsackSlice, exact: exactKnapsackSlice, packer: packerSlice }[slicer];
      const d = droppedUnderSlack(list, budget, slack, { ...options, dependencies });
      const at = run(list, budget, { ...rest, dependencies });
      const under = run(list, { targetTokens: Math.max(0, budget.targetTokens - slack) }, { ...rest, dependencies });
      assert.equal(d.shrunkBudget, Math.max(0, budget.targetTokens - slack));
      assert.deepEqual(d.atBudget, at);
      assert.deepEqual(d.atShrunkBudget, under);
      assert.deepEqual(d.dropped, at.selected.filter((id) => !under.selected.includes(id)));
      assert.deepEqual(d.added, under.selected.filter((id) => !at.selected.includes(id)));
    }
  }
});

test('the count-constrained strategies are refused: NOT_MONOTONIC', () => {
  const list = [{ id: 'a', tokens: 10, score: 0.5, kind: 'tool' }];
  for (const slicer of ['count-knapsack', 'exact-count']) {
    for (const call of [
      () => budgetCurve(list, 100, { slicer }),
      () => minBudgetFor(list, 'a', { slicer }),
      () => droppedUnderSlack(list, { targetTokens: 100 }, 10, { slicer, entries: [] }),
    ]) {
      assert.throws(call, (e) => e instanceof CtxpackError && e.code === 'NOT_MONOTONIC' && e.field === 'slicer' && e.message.includes(slicer));
    }
  }
});

test('simulation options and errors', () => {
  const list = [
    { id: 'a', tokens: 10, score: 0.5 },
    { id: 'b', tokens: 20, score: 0.4, dependencies: ['a'] },
  ];
  const refuses = (call, code, field) =>
    assert.throws(call, (e) => {
      assert.ok(e instanceof CtxpackError, String(e));
      assert.equal(e.code, code, e.message);
      if (field !== undefined) assert.equal(e.field, field, e.message);
      return true;
    });
  refuses(() => budgetCurve(list, 10, { slicer: 'quick' }), 'INVALID_OPTION', 'slicer');
  refuses(() => budgetCurve(list, 10, undefined), 'INVALID_OPTION', 'options');
  refuses(() => budgetCurve(list, -1, { slicer: 'greedy' }), 'INVALID_OPTION', 'maxBudget');
  refuses(() => budgetCurve(list, 1.5, { slicer: 'greedy' }), 'INVALID_OPTION', 'maxBudget');
  refuses(() => budgetCurve(list, 10, { slicer: 'greedy', bucketSize: 3 }), 'INVALID_OPTION', 'bucketSize');
  refuses(() => budgetCurve(list, 10, { slicer: 'knapsack', maxConsecutiveSkips: 3 }), 'INVALID_OPTION', 'maxConsecutiveSkips');
  refuses(() => budgetCurve(list, 10, { slicer: 'greedy', dependencies: 'require' }), 'INVALID_OPTION', 'dependencies');
  refuses(() => budgetCurve(list, 10, { slicer: 'knapsack', bucketSize: 0 }), 'INVALID_BUCKET_SIZE');
  refuses(() => budgetCurve([{ id: 'a', tokens: -1, score: 1 }], 10, { slicer: 'greedy' }), 'INVALID_FIELD', 'tokens');
  refuses(() => budgetCurve(list, 10_000_000, { slicer: 'greedy', maxTableBytes: 1 << 20 }), 'TABLE_TOO_LARGE');
  const many = Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, tokens: 100 + i, score: 0.5 }));
  refuses(() => budgetCurve(many, 100_000, { slicer: 'exact', maxCells: 1000 }), 'TABLE_TOO_LARGE');
  refuses(() => minBudgetFor(many, 'm3', { slicer: 'knapsack', bucketSize: 1, maxCells: 1000 }), 'TABLE_TOO_LARGE');
  refuses(() => minBudgetFor(list, 'zz', { slicer: 'greedy' }), 'INVALID_INPUT', 'id');
  refuses(() => minBudgetFor(list, 'a', { slicer: 'greedy', maxBudget: -2 }), 'INVALID_OPTION', 'maxBudget');
  refuses(() => droppedUnderSlack(list, { targetTokens: 10 }, -1, { slicer: 'greedy' }), 'INVALID_OPTION', 'slack');
  refuses(() => droppedUnderSlack(list, null, 1, { slicer: 'greedy' }), 'INVALID_BUDGET', 'budget');
  // The defaults answer: the knapsack at its default bucket of 100.
  assert.deepEqual(Array.from(budgetCurve(list, 200, { slicer: 'knapsack' })).filter((_, t) => t % 100 === 0), [0, 5000, 9000]); // 10 and 20 tokens take a bucket each
  assert.deepEqual(minBudgetFor(list, 'b', { slicer: 'exact' }), { first: 30, stableFrom: 30, ceiling: 30, saturation: 30 }); // alone, 'a' is worth more
  // A grouped item answers for its group.
  const grouped = list.map((it) => ({ ...it, group: 'g' }));
  assert.deepEqual(minBudgetFor(grouped, 'a', { slicer: 'greedy' }), { first: 30, stableFrom: 30, ceiling: 30, saturation: 30 });
});

test('a realistic greedy curve: 10 000 items to 128 000 tokens, checked at sampled budgets', () => {
  const r = rng(84);
  const list = Array.from({ length: 10_000 }, (_, i) => ({ id: `f${i}`, tokens: r.int(20, 900), score: r.next() }));
  const t0 = performance.now();
  const curve = budgetCurve(list, 128_000, { slicer: 'greedy' });
  const ms = performance.now() - t0;
  for (const t of [0, 1, 5_000, 64_000, 128_000]) assert.equal(curve[t], valueOf(list, greedySlice(list, { targetTokens: t }).selected), `${t}`);
  for (let t = 2; t <= 128_000; t++) assert.ok(curve[t] >= curve[t - 1], `greedy's curve fell at ${t}`);
  assert.ok(ms < 5000, `${ms} ms`);
});
