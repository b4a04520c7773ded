// Alternative versions of a fragment (docs/variants.md) through selectFragments: the version the
// core chose, what the decisions say of the others, the package agreeing with a brute force over
// the versions, validation, and top-K key promotion in the KV policy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateTokens, selectFragments } from 'ctxpack';
import { generateKVPolicy } from 'ctxpack/acs';
import { rng, scaled as scaledValue } from './rng.mjs';

const now = Date.parse('2026-01-01T00:00:00Z');
const gaze = { entities: ['auth', 'session'] };
const SLICERS = ['ranked', 'packer', 'greedy', 'knapsack', 'exact'];

/** The README's example: a long tool result with a summary and a stub. */
const toolSession = () => [
  {
    id: 'search',
    cost_tokens: 4210,
    lod: 'micro',
    entities: ['auth'],
    timestamp: now - 1000,
    variants: [
      { id: 'summary', cost_tokens: 350, lod: 'macro' },
      { id: 'stub', content: '[search result omitted: 4,210 tokens]', lod: 'atomic' },
    ],
  },
  { id: 'doc', cost_tokens: 1500, entities: ['auth'], timestamp: now - 1000 },
  { id: 'chat', cost_tokens: 800, entities: ['session'], timestamp: now },
];

test('a long tool result goes in whole, as its summary, or as its stub, as the budget shrinks', () => {
  for (const slicer of SLICERS) {
    const at = (tokens_max) => selectFragments(toolSession(), gaze, { tokens_max }, { now, slicer, countTokens: estimateTokens });
    const big = at(10_000).decisions[0];
    assert.equal(big.variant, null, slicer);
    assert.deepEqual(big.versions.map((v) => v.status), ['selected', 'other_version', 'other_version'], slicer);
    const mid = at(2700);
    assert.equal(mid.decisions[0].variant, 0, slicer);
    assert.equal(mid.decisions[0].variant_id, 'summary', slicer);
    assert.deepEqual(mid.decisions[0].versions.map((v) => v.status), ['too_large', 'selected', 'other_version'], slicer);
    assert.equal(mid.metrics.total_cost_tokens, 350 + 1500 + 800, slicer);
    const small = at(2400).decisions[0];
    assert.equal(small.variant_id, 'stub', slicer);
    assert.equal(small.versions[2].cost_tokens, estimateTokens('[search result omitted: 4,210 tokens]'));
    // The full fragment's count stays in cost_tokens.
    assert.equal(small.cost_tokens, 4210);
  }
});

test('a variant is worth the full score times sqrt(cost / full cost) unless benefit_scale says otherwise', () => {
  const plan = selectFragments(toolSession(), gaze, { tokens_max: 2700 }, { now, slicer: 'exact', countTokens: estimateTokens });
  const [full, summary] = plan.decisions[0].versions;
  assert.ok(Math.abs(summary.score - full.score * Math.sqrt(350 / 4210)) < 1e-12);
  const scaled = toolSession();
  scaled[0].variants[0].benefit_scale = 0.9;
  const again = selectFragments(scaled, gaze, { tokens_max: 2700 }, { now, slicer: 'exact', countTokens: estimateTokens });
  assert.ok(Math.abs(again.decisions[0].versions[1].score - full.score * 0.9) < 1e-12);
});

/** The best total scaled value over every choice of at most one version per candidate. */
function bruteForce(versions, budget) {
  let best = 0;
  const go = (i, left, value) => {
    if (i === versions.length) {
      best = Math.max(best, value);
      return;
    }
    go(i + 1, left, value);
    for (const v of versions[i]) if (v.cost <= left) go(i + 1, left - v.cost, value + v.value);
  };
  go(0, budget, 0);
  return best;
}

test("the package agrees with a brute force over the versions: 'exact' is optimal, every strategy takes one version at most", () => {
  const r = rng(0x7a11).next;
  for (let round = 0; round < 150; round++) {
    const n = 1 + Math.floor(r() * 7);
    const fragments = [];
    for (let i = 0; i < n; i++) {
      const f = { id: `f${i}`, cost_tokens: 1 + Math.floor(r() * 400), entities: r() < 0.6 ? ['auth'] : [], timestamp: now - Math.floor(r() * 1e8) };
      const k = Math.floor(r() * 3);
      if (k > 0) f.variants = Array.from({ length: k }, (_, j) => ({ cost_tokens: Math.floor(r() * 200), lod: j === 0 ? 'macro' : 'atomic' }));
      fragments.push(f);
    }
    const tokens_max = 1 + Math.floor(r() * 900);
    for (const slicer of SLICERS) {
      const plan = selectFragments(fragments, gaze, { tokens_max }, { now, slicer });
      let tokens = 0;
      let value = 0;
      for (const d of plan.decisions) {
        const versions = d.versions ?? [{ status: d.included ? 'selected' : 'not_selected', cost_tokens: d.cost_tokens, score: d.score }];
        const chosen = versions.filter((v) => v.status === 'selected');
        assert.ok(chosen.length <= 1, `${slicer}: two versions of ${d.id}`);
        assert.equal(chosen.length === 1, d.included, slicer);
        if (chosen.length === 1) {
          tokens += chosen[0].cost_tokens;
          value += scaledValue(chosen[0].score);
        }
      }
      assert.equal(plan.metrics.total_cost_tokens, tokens, slicer);
      assert.ok(tokens <= tokens_max, slicer);
      if (slicer === 'exact') {
        const all = plan.decisions.map((d) =>
          (d.versions ?? [{ cost_tokens: d.cost_tokens, score: d.score }]).map((v) => ({ cost: v.cost_tokens, value: scaledValue(v.score) })),
        );
        assert.equal(value, bruteForce(all, tokens_max), `round ${round}`);
      }
    }
  }
});

test('a group goes in whole whatever version each member takes', () => {
  const fragments = [
    { id: 'call', cost_tokens: 40, group: 't1', entities: ['auth'], timestamp: now },
    { id: 'result', cost_tokens: 3000, group: 't1', entities: ['auth'], timestamp: now, variants: [{ id: 'stub', cost_tokens: 15, lod: 'atomic' }] },
    { id: 'note', cost_tokens: 300, entities: ['session'], timestamp: now },
  ];
  for (const slicer of SLICERS) {
    const plan = selectFragments(fragments, gaze, { tokens_max: 400 }, { now, slicer });
    assert.deepEqual(plan.decisions.map((d) => d.included), [true, true, true], slicer);
    assert.equal(plan.decisions[1].variant_id, 'stub', slicer);
  }
});

test('bad variants are refused naming the candidate and the field', () => {
  const base = { id: 'a', cost_tokens: 10 };
  const refuse = (variants, field, options = {}) =>
    assert.throws(
      () => selectFragments([{ id: 'z', cost_tokens: 1 }, { ...base, variants }], gaze, { tokens_max: 100 }, { now, ...options }),
      (e) => e.code === 'INVALID_FIELD' && e.field === field && e.index === 1 && !e.message.includes('secret'),
    );
  refuse('secret', 'variants');
  refuse([null], 'variants[0]');
  refuse([{ cost_tokens: -1, lod: 'macro' }], 'variants[0].cost_tokens');
  refuse([{ cost_tokens: 5 }], 'variants[0].lod');
  refuse([{ cost_tokens: 5, lod: 'macro', benefit_scale: 1.5 }], 'variants[0].benefit_scale');
  refuse([{ cost_tokens: 5, lod: 'macro', benefit_scale: Number.NaN }], 'variants[0].benefit_scale');
  refuse([{ id: 'x', cost_tokens: 5, lod: 'macro' }, { id: 'x', cost_tokens: 4, lod: 'atomic' }], 'variants[1].id');
  refuse([{ content: 'secret text', lod: 'macro' }], 'variants[0].cost_tokens');
});

test('a counter that fails on a variant names the variant', () => {
  const fragments = [{ id: 'a', cost_tokens: 10, variants: [{ content: 'secret', lod: 'atomic' }] }];
  assert.throws(
    () => selectFragments(fragments, gaze, { tokens_max: 100 }, { now, countTokens: () => -1 }),
    (e) => e.code === 'TOKEN_COUNT_FAILED' && e.field === 'variants[0].content' && e.index === 0 && !e.message.includes('secret'),
  );
});

test('the count-constrained strategies refuse variants', () => {
  const fragments = [{ id: 'a', cost_tokens: 10, variants: [{ cost_tokens: 2, lod: 'atomic' }] }];
  for (const slicer of ['count-knapsack', 'exact-count']) {
    assert.throws(
      () => selectFragments(fragments, gaze, { tokens_max: 100 }, { now, slicer }),
      (e) => e.code === 'INVALID_OPTION' && e.field === 'variants',
    );
  }
});

// Spec, memory management rules: "Promote keys referenced by top-K candidate fragments to reduce thrash".
test('Promote keys referenced by top-K candidate fragments to reduce thrash: the best-ranked candidate is too large, its keys are pinned anyway', () => {
  const fragments = [
    { id: 'big', cost_tokens: 1200, entities: ['auth', 'session'], timestamp: now, dependencies: ['schema'] },
    { id: 'small', cost_tokens: 100, timestamp: now - 1e7 },
    { id: 'schema', cost_tokens: 3000, timestamp: now - 1e9 },
  ];
  const plan = selectFragments(fragments, gaze, { tokens_max: 1000 }, { now });
  assert.equal(plan.decisions[0].rank, 0);
  assert.equal(plan.decisions[0].included, false);
  assert.ok(plan.kvPolicy.pin.includes('schema'));
  // K = 0 turns promotion off; K = 1 reaches the best candidate only.
  assert.ok(!selectFragments(fragments, gaze, { tokens_max: 1000 }, { now, kvTopK: 0 }).kvPolicy.pin.includes('schema'));
  assert.ok(selectFragments(fragments, gaze, { tokens_max: 1000 }, { now, kvTopK: 1 }).kvPolicy.pin.includes('schema'));
});

test('top-K promotion reaches only the first K candidates of the ranking', () => {
  const ranked = [
    { id: 'a', cost_tokens: 1, dependencies: ['k1'] },
    { id: 'b', cost_tokens: 1, dependencies: ['k2'] },
    { id: 'c', cost_tokens: 1, dependencies: ['k3'] },
  ];
  const policy = generateKVPolicy([], { now, rankedCandidates: ranked, kvTopK: 2 });
  assert.deepEqual(policy.pin, ['k1', 'k2']);
  assert.deepEqual(generateKVPolicy([], { now, rankedCandidates: ranked }).pin, ['k1', 'k2', 'k3']);
  assert.deepEqual(generateKVPolicy([], { now }).pin, []);
  // A promoted key that is also selected is pinned, not compressed.
  const big = { id: 'k1', cost_tokens: 900, benefit: 0.5 };
  assert.deepEqual(generateKVPolicy([big], { now, rankedCandidates: ranked, kvTopK: 1 }), { pin: ['k1'], compress: [], evict: [] });
  assert.throws(() => generateKVPolicy([], { now, kvTopK: -1 }), (e) => e.code === 'INVALID_OPTION' && e.field === 'kvTopK');
  assert.throws(() => generateKVPolicy([], { now, rankedCandidates: 'x' }), (e) => e.code === 'INVALID_OPTION' && e.field === 'rankedCandidates');
});

// Spec, objectives: "Balance LOD mix per lod_mix".
test('Balance LOD mix per lod_mix: the count-constrained strategies take at least min and at most max fragments of each lod', () => {
  const fragments = [];
  for (let i = 0; i < 6; i++) fragments.push({ id: `micro${i}`, cost_tokens: 100, lod: 'micro', entities: ['auth'], timestamp: now });
  for (let i = 0; i < 3; i++) fragments.push({ id: `macro${i}`, cost_tokens: 100, lod: 'macro', timestamp: now - 1e9 });
  const lodMix = { macro: { min: 2 }, micro: { max: 3 } };
  for (const slicer of ['count-knapsack', 'exact-count']) {
    const plain = selectFragments(fragments, gaze, { tokens_max: 600 }, { now, slicer });
    assert.equal(plain.metrics.lod_mix.micro.count, 6, slicer);
    const mixed = selectFragments(fragments, gaze, { tokens_max: 600 }, { now, slicer, lodMix });
    assert.equal(mixed.metrics.lod_mix.macro.count >= 2, true, slicer);
    assert.equal(mixed.metrics.lod_mix.micro.count <= 3, true, slicer);
    assert.equal(mixed.metrics.lod_mix.micro.tokens, 100 * mixed.metrics.lod_mix.micro.count, slicer);
  }
  // The other strategies report it in warnings, and still report the achieved mix.
  const acs = selectFragments(fragments, gaze, { tokens_max: 600 }, { now, lodMix });
  assert.ok(acs.warnings.some((w) => w.includes('lodMix')));
  assert.equal(acs.metrics.lod_mix.micro.count, 6);
});

test('the achieved lod mix counts the version that went in', () => {
  const plan = selectFragments(toolSession(), gaze, { tokens_max: 2700 }, { now, slicer: 'exact', countTokens: estimateTokens });
  assert.deepEqual({ ...plan.metrics.lod_mix.macro }, { count: 1, tokens: 350 });
  assert.deepEqual({ ...plan.metrics.lod_mix.default }, { count: 2, tokens: 2300 });
});

test('lodMix is refused when malformed or beside countEntries, naming the entry by position', () => {
  const fragments = [{ id: 'a', cost_tokens: 10, lod: 'macro' }];
  const refuse = (options, field) =>
    assert.throws(
      () => selectFragments(fragments, gaze, { tokens_max: 100 }, { now, slicer: 'count-knapsack', ...options }),
      (e) => e.code === 'INVALID_OPTION' && e.field === field,
    );
  refuse({ lodMix: 'x' }, 'lodMix');
  refuse({ lodMix: { macro: 3 } }, 'lodMix');
  refuse({ lodMix: { macro: { min: -1 } } }, 'lodMix.min');
  refuse({ lodMix: { macro: { min: 3, max: 2 } } }, 'lodMix.min');
  refuse({ lodMix: { macro: { min: 1 } }, countEntries: [] }, 'lodMix');
});

test('a lod named like an Object.prototype member stays a plain key of metrics.lod_mix', () => {
  const plan = selectFragments([{ id: 'a', cost_tokens: 5, lod: '__proto__' }, { id: 'b', cost_tokens: 7, lod: 'constructor' }], gaze, { tokens_max: 100 }, { now });
  assert.deepEqual(Object.keys(plan.metrics.lod_mix).sort(), ['__proto__', 'constructor']);
  assert.equal(plan.metrics.lod_mix.constructor.tokens, 7);
  assert.equal(Object.getPrototypeOf(plan.metrics.lod_mix), Object.prototype);
});
