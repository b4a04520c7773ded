// Budgets beyond tokens_max: output reserve, fixed overhead, per-fragment overhead and safety
// margin change the effective budget exactly as documented, for every strategy, and show in
// the metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError, effectiveBudget, selectFragments } from 'ctxpack';
import { rng } from './rng.mjs';

const NOW = Date.UTC(2025, 0, 15, 12);
const GAZE = { entities: ['a', 'b', 'c', 'd'] };
const SLICERS = ['ranked', 'greedy', 'knapsack', 'count-knapsack', 'packer'];
// bucketSize 1: the knapsacks are exact; no skip limit: the packer walks to the end. So every
// strategy fills the budget the same way below.
const DEFAULTS = { knapsack: { bucketSize: 1 }, 'count-knapsack': { bucketSize: 1 }, packer: { maxConsecutiveSkips: 0 } };
const plan = (candidates, budgets, options = {}) => {
  const o = { ...DEFAULTS[options.slicer ?? 'ranked'], ...options };
  if (!o.slicer?.includes('knapsack')) delete o.bucketSize;
  if (o.slicer !== 'count-knapsack') delete o.countEntries;
  return selectFragments(candidates, GAZE, budgets, { now: NOW, ...o });
};
/** Ten fragments of 100 tokens. */
const TEN = Array.from({ length: 10 }, (_, i) => ({ id: `f${i}`, cost_tokens: 100, entities: ['a', 'b', 'c', 'd'].slice(0, 1 + (i % 4)) }));

/** Uniform in [0, 1) from `seed` (mulberry32, rng.mjs). */
const prng = (seed) => rng(seed).next;

test('effective budget = floor((tokens_max − output_reserve − overhead_tokens) × (100 − margin) / 100), exactly', () => {
  const cases = [
    [{ tokens_max: 1000 }, 1000],
    [{ tokens_max: 1000, output_reserve: 200 }, 800],
    [{ tokens_max: 1000, overhead_tokens: 300 }, 700],
    [{ tokens_max: 1000, safety_margin_percent: 10 }, 900], // 1000 × 0.9 is 900.0000000000001 in binary
    [{ tokens_max: 1000, output_reserve: 200, overhead_tokens: 300, safety_margin_percent: 10 }, 450],
    [{ tokens_max: 100, safety_margin_percent: 7 }, 93], // 100 × 0.93 is 93.00000000000001
    [{ tokens_max: 999, safety_margin_percent: 2.5 }, 974], // 974.025
    [{ tokens_max: 3, safety_margin_percent: 50 }, 1], // 1.5
    [{ tokens_max: 1000, safety_margin_percent: 0.1 }, 999],
    [{ tokens_max: 1000, safety_margin_percent: 1e-7 }, 999], // 999.999999
    [{ tokens_max: 1000, safety_margin_percent: 99.99 }, 0], // 0.1
    [{ tokens_max: 128_000, output_reserve: 4_000, overhead_tokens: 1_500, safety_margin_percent: 5 }, 116_375],
    [{ tokens_max: 1000, output_reserve: 1000 }, 0],
    [{ tokens_max: 1000, output_reserve: 800, overhead_tokens: 800 }, 0],
    [{ tokens_max: Number.MAX_SAFE_INTEGER, safety_margin_percent: 1 }, Number(((2n ** 53n - 1n) * 99n) / 100n)],
    [{ tokens_max: 0, safety_margin_percent: 50 }, 0],
    [{ tokens_max: 1000, per_fragment_overhead: 50 }, 1000], // per-fragment overhead is charged per fragment instead
  ];
  for (const [budgets, expected] of cases) {
    assert.equal(effectiveBudget(budgets), expected, JSON.stringify(budgets));
    assert.equal(plan(TEN, budgets).metrics.effective_budget, expected, JSON.stringify(budgets));
  }
});

test('reserves, overhead and margin change what every strategy selects, as documented', () => {
  // [budgets, fragments of 100 tokens that fit]
  const cases = [
    [{ tokens_max: 1000 }, 10],
    [{ tokens_max: 1000, output_reserve: 200 }, 8],
    [{ tokens_max: 1000, overhead_tokens: 300 }, 7],
    [{ tokens_max: 1000, safety_margin_percent: 10 }, 9],
    [{ tokens_max: 1000, per_fragment_overhead: 25 }, 8], // 8 × 125 = 1000
    [{ tokens_max: 1000, per_fragment_overhead: 26 }, 7], // 8 × 126 > 1000
    [{ tokens_max: 1000, output_reserve: 100, overhead_tokens: 150, safety_margin_percent: 20, per_fragment_overhead: 4 }, 5], // 600 / 104
    [{ tokens_max: 1000, output_reserve: 950 }, 0],
  ];
  for (const slicer of SLICERS) {
    for (const [budgets, fit] of cases) {
      const label = `${slicer} ${JSON.stringify(budgets)}`;
      const r = plan(TEN, budgets, { slicer });
      assert.equal(r.fragments.length, fit, label);
      const pfo = budgets.per_fragment_overhead ?? 0;
      const m = r.metrics;
      assert.equal(m.tokens_selected, 100 * fit, label);
      assert.equal(m.budget_used, (100 + pfo) * fit, label);
      assert.equal(m.prompt_tokens, (budgets.overhead_tokens ?? 0) + (100 + pfo) * fit, label);
      assert.ok(m.budget_used <= m.effective_budget, label);
      assert.ok(m.prompt_tokens + (budgets.output_reserve ?? 0) <= budgets.tokens_max, label);
      // What does not fit is budget_exceeded (or the knapsacks' not_in_optimal_set), not dropped silently.
      if (fit > 0 && fit < 10) assert.ok(r.decisions.some((d) => !d.included && d.reason !== 'no_budget'), label);
    }
  }
});

test('the per-fragment overhead is charged for selection, not scored', () => {
  const r = plan(TEN, { tokens_max: 1000, per_fragment_overhead: 40 });
  const base = plan(TEN, { tokens_max: 1000 });
  assert.deepEqual(
    r.decisions.map((d) => [d.score, d.benefit, d.rank, d.cost_tokens]),
    base.decisions.map((d) => [d.score, d.benefit, d.rank, d.cost_tokens]),
  );
  // A 0-token fragment still costs its overhead.
  const zero = plan([{ id: 'z', cost_tokens: 0 }], { tokens_max: 3, per_fragment_overhead: 4 }, { allow_overshoot: false });
  assert.deepEqual(zero.fragments, []);
  assert.match(zero.warnings[0], /every candidate exceeds the effective budget 3/);
});

test('every strategy keeps Σ(cost_tokens + per_fragment_overhead) within the effective budget on random inputs', () => {
  const rand = prng(11);
  for (let round = 0; round < 150; round++) {
    const n = Math.floor(rand() * 30);
    const candidates = Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      cost_tokens: Math.floor(rand() * 500),
      entities: ['a', 'b', 'c', 'd'].filter(() => rand() < 0.5),
      kind: rand() < 0.3 ? 'tool' : 'doc',
    }));
    const budgets = {
      tokens_max: Math.floor(rand() * 4000),
      output_reserve: Math.floor(rand() * 500),
      overhead_tokens: Math.floor(rand() * 500),
      per_fragment_overhead: Math.floor(rand() * 20),
      safety_margin_percent: Math.floor(rand() * 300) / 10,
    };
    const effective = effectiveBudget(budgets);
    for (const slicer of SLICERS) {
      const r = plan(candidates, budgets, { slicer, bucketSize: 1 + Math.floor(rand() * 50), countEntries: [{ kind: 'tool', requireCount: 0, capCount: 2 }] });
      const label = `round ${round} ${slicer}`;
      const used = r.fragments.reduce((sum, f) => sum + f.cost_tokens + budgets.per_fragment_overhead, 0);
      assert.equal(r.metrics.budget_used, used, label);
      assert.equal(r.metrics.effective_budget, effective, label);
      assert.ok(used <= effective, `${label}: ${used} > ${effective}`);
      if (effective === 0) assert.ok(r.decisions.every((d) => d.reason === 'no_budget'), label);
    }
  }
});

test('an effective budget of 0 is an empty plan with a warning (tokens_max 0 stays silent)', () => {
  for (const slicer of SLICERS) {
    const r = plan(TEN, { tokens_max: 1000, output_reserve: 600, overhead_tokens: 400 }, { slicer });
    assert.deepEqual(r.fragments, []);
    assert.ok(r.decisions.every((d) => d.reason === 'no_budget'));
    assert.deepEqual(r.warnings, [
      'the effective budget is 0 (tokens_max 1000, output_reserve 600, overhead_tokens 400, safety_margin_percent 0): nothing can be selected',
    ]);
    assert.equal(r.metrics.prompt_tokens, 400); // the fixed overhead alone
    assert.deepEqual(plan(TEN, { tokens_max: 0 }, { slicer }).warnings, []);
  }
});

test('overshoot and count requirements are judged against the effective budget', () => {
  const strong = [{ id: 'big', cost_tokens: 500, entities: ['a', 'b', 'c', 'd'], timestamp: NOW, citations: [1] }];
  const r = plan(strong, { tokens_max: 1000, output_reserve: 600 }, { allow_overshoot: true });
  assert.deepEqual(r.fragments.map((f) => f.id), ['big']);
  assert.match(r.warnings[0], /^budget overshoot: every candidate exceeds the effective budget 400/);
  assert.ok(r.metrics.budget_used > r.metrics.effective_budget);
  const required = plan([{ id: 's', cost_tokens: 300, lod: 'macro' }], { tokens_max: 1000, overhead_tokens: 800 }, {
    slicer: 'count-knapsack',
    countEntries: [{ kind: 'macro', requireCount: 1, capCount: 1 }],
  });
  assert.deepEqual(required.fragments.map((f) => f.id), ['s']);
  assert.match(required.warnings.at(-1), /selection exceeds the effective budget 200 by 100 tokens/);
});

const expectBudgetError = (budgets, field) =>
  assert.throws(
    () => plan(TEN, budgets),
    (err) => {
      assert.ok(err instanceof CtxpackError, String(err));
      assert.deepEqual([err.code, err.field], ['INVALID_BUDGET', field], err.message);
      return true;
    },
  );

test('every budget is validated, naming the field', () => {
  for (const bad of [-1, 1.5, '10', Number.NaN, 2 ** 53, null]) {
    for (const field of ['output_reserve', 'overhead_tokens', 'per_fragment_overhead']) {
      expectBudgetError({ tokens_max: 1000, [field]: bad }, `budgets.${field}`);
    }
  }
  expectBudgetError({ tokens_max: 1000, per_fragment_overhead: 2 ** 32 }, 'budgets.per_fragment_overhead');
  for (const bad of [-0.5, 100, 150, Number.NaN, Number.POSITIVE_INFINITY, '5', null]) {
    expectBudgetError({ tokens_max: 1000, safety_margin_percent: bad }, 'budgets.safety_margin_percent');
  }
  expectBudgetError({ tokens_max: 1000, output_reserves: 100 }, 'budgets.output_reserves');
  expectBudgetError({ tokens_max: -1, output_reserve: 'x' }, 'budgets.tokens_max'); // tokens_max first
  assert.throws(() => plan(TEN, { tokens_max: 1000, safety_margin_percent: 100 }), /budgets\.safety_margin_percent must be a number from 0 to less than 100, got 100/);
  assert.throws(() => plan(TEN, { tokens_max: 1000, margin: 5 }), /budgets\.margin is not a budget \(known: tokens_max, output_reserve, overhead_tokens, per_fragment_overhead, safety_margin_percent\)/);
  assert.throws(() => effectiveBudget({ tokens_max: 1000, output_reserve: -1 }), (e) => e.code === 'INVALID_BUDGET');
  // The boundaries are accepted.
  assert.equal(plan(TEN, { tokens_max: 1000, per_fragment_overhead: 2 ** 32 - 1 - 100 }).fragments.length, 0);
  assert.equal(plan(TEN, { tokens_max: 1000, safety_margin_percent: 0 }).fragments.length, 10);
});

test('cost_tokens + per_fragment_overhead above 2^32 − 1 is an INVALID_FIELD naming the fragment', () => {
  const candidates = [{ id: 'a', cost_tokens: 10 }, { id: 'b', cost_tokens: 2 ** 32 - 10 }];
  assert.throws(
    () => plan(candidates, { tokens_max: 1000, per_fragment_overhead: 10 }),
    (err) =>
      err instanceof CtxpackError &&
      err.code === 'INVALID_FIELD' &&
      err.field === 'cost_tokens' &&
      err.index === 1 &&
      err.message === 'candidates[1].cost_tokens (4294967286) plus budgets.per_fragment_overhead (10) exceeds 4294967295',
  );
  // A counted one too.
  assert.throws(
    () => plan([{ id: 'c', content: 'text' }], { tokens_max: 1000, per_fragment_overhead: 10 }, { countTokens: () => 2 ** 32 - 5 }),
    (err) => err.code === 'INVALID_FIELD' && err.index === 0,
  );
});

test('a misspelt budget is named with its near miss before tokens_max is reported missing', () => {
  const cases = [
    [{ tokensMax: 100 }, 'budgets.tokensMax', 'did you mean tokens_max?'],
    [{ tokens_max: 100, outputReserve: 4 }, 'budgets.outputReserve', 'did you mean output_reserve?'],
    [{ 'overhead-tokens': 1, tokens_max: 10 }, 'budgets.overhead-tokens', 'did you mean overhead_tokens?'],
  ];
  for (const [budgets, field, hint] of cases) {
    assert.throws(() => effectiveBudget(budgets), (e) => e.code === 'INVALID_BUDGET' && e.field === field && e.message.endsWith(hint));
  }
  // Nothing close: no hint.
  assert.throws(() => effectiveBudget({ tokens_max: 1, window: 2 }), (e) => e.field === 'budgets.window' && !e.message.includes('did you mean'));
});

test('fitMessages names what leaves an effective budget of 0 when the kept messages do not fit', async () => {
  const { fitMessages } = await import('ctxpack');
  const history = [{ role: 'user', content: 'hello there' }];
  assert.throws(
    () => fitMessages(history, { format: 'openai', budgets: { tokens_max: 10, output_reserve: 20 } }),
    (e) => e.code === 'PINNED_OVER_BUDGET' && e.message.includes('effective budget 0 (tokens_max 10, output_reserve 20, overhead_tokens 0, safety_margin_percent 0 leave nothing to fill)'),
  );
  // A budget that is merely too small says nothing of the reserve.
  assert.throws(
    () => fitMessages(history, { format: 'openai', budgets: { tokens_max: 3 } }),
    (e) => e.code === 'PINNED_OVER_BUDGET' && !e.message.includes('leave nothing'),
  );
});
