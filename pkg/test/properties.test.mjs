// Property tests (fast-check) over selectFragments and every slicer function: the budget holds
// (except the documented overshoot and count-knapsack overrun), every candidate gets exactly one
// decision, the same input gives the same output, and the object and columnar paths agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { selectFragments } from 'ctxpack';
import { countConstrainedKnapsackSlice, greedySlice, knapsackSlice, packerSlice, sliceColumns, sliceObjects } from 'ctxpack/slicers';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const RUNS = Number(process.env.CTXPACK_PROPERTY_RUNS ?? 400);
const KINDS = ['tool', 'Tool', 'msg', 'doc', ''];

const fragmentArb = (i) =>
  fc.record({
    cost_tokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })),
    entities: fc.subarray(['auth', 'db', 'ui', 'ops']),
    ageHours: fc.double({ min: 0, max: 2000, noNaN: true }),
    citations: fc.nat(2),
    lod: fc.constantFrom('macro', 'micro', 'atomic'),
    kind: fc.constantFrom(...KINDS),
    source: fc.option(fc.constantFrom('chat', 'docs', 'web'), { nil: undefined }),
    dependsOn: fc.option(fc.nat(40), { nil: undefined }),
  }).map((r) => {
    const f = {
      id: `f${i}`,
      cost_tokens: r.cost_tokens,
      entities: r.entities,
      timestamp: NOW - Math.round(r.ageHours * 3_600_000),
      citations: Array.from({ length: r.citations }, (_, k) => `c${k}`),
      lod: r.lod,
      kind: r.kind,
    };
    if (r.source !== undefined) f.source = r.source;
    if (r.dependsOn !== undefined) f.dependencies = [`f${r.dependsOn}`];
    return f;
  });

const fragmentsArb = fc.nat(40).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => fragmentArb(i))));

const optionsArb = fc.oneof(
  fc.record({ slicer: fc.constant('ranked') }),
  fc.record({ slicer: fc.constant('greedy') }),
  fc.record({ slicer: fc.constant('knapsack'), bucketSize: fc.constantFrom(1, 7, 100) }),
  fc.record({
    slicer: fc.constant('count-knapsack'),
    bucketSize: fc.constantFrom(1, 10),
    countEntries: fc.constant([{ kind: 'tool', requireCount: 1, capCount: 2 }, { kind: 'doc', requireCount: 0, capCount: 1 }]),
  }),
  fc.record({ slicer: fc.constant('packer'), maxConsecutiveSkips: fc.nat(4) }),
);

test('selectFragments: budget, one decision each, deterministic', () => {
  fc.assert(
    fc.property(fragmentsArb, fc.nat(20_000), optionsArb, fc.boolean(), (fragments, tokensMax, options, overshoot) => {
      const opts = { ...options, now: NOW, allow_overshoot: overshoot };
      const plan = selectFragments(fragments, { entities: ['auth', 'db'] }, { tokens_max: tokensMax }, opts);
      const again = selectFragments(fragments, { entities: ['auth', 'db'] }, { tokens_max: tokensMax }, opts);
      assert.deepEqual({ ...again, metrics: { ...again.metrics, planner_ms: 0 } }, { ...plan, metrics: { ...plan.metrics, planner_ms: 0 } });

      assert.equal(plan.decisions.length, fragments.length);
      assert.deepEqual(plan.decisions.map((d) => d.index), fragments.map((_, i) => i));
      const included = new Set(plan.decisions.filter((d) => d.included).map((d) => d.id));
      assert.deepEqual(new Set(plan.fragments.map((f) => f.id)), included);
      assert.equal(plan.fragments.length, included.size);
      const used = plan.fragments.reduce((t, f) => t + f.cost_tokens, 0);
      assert.equal(plan.metrics.tokens_selected, used);
      const overshot = plan.decisions.some((d) => d.reason === 'overshoot');
      const required = plan.decisions.some((d) => d.reason === 'required');
      if (overshot) {
        assert.equal(plan.fragments.length, 1);
        assert.ok(overshoot);
      } else if (!(options.slicer === 'count-knapsack' && required)) {
        assert.ok(used <= tokensMax, `${used} > ${tokensMax}`);
      }
    }),
    { numRuns: RUNS },
  );
});

const itemsArb = fc.nat(40).chain((n) =>
  fc.tuple(
    ...Array.from({ length: n }, (_, i) =>
      fc.record({
        id: fc.constant(`i${i}`),
        tokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2000 })),
        score: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.constantFrom(0, 0.5, 1)),
        kind: fc.constantFrom(...KINDS),
      }),
    ),
  ),
);

const sliceCases = [
  ['greedy', (items, budget) => greedySlice(items, budget), {}],
  ['knapsack', (items, budget) => knapsackSlice(items, budget, { bucketSize: 7 }), { bucketSize: 7 }],
  [
    'count-knapsack',
    (items, budget) => countConstrainedKnapsackSlice(items, budget, { entries: [{ kind: 'TOOL', requireCount: 1, capCount: 2 }], bucketSize: 5 }),
    { entries: [{ kind: 'TOOL', requireCount: 1, capCount: 2 }], bucketSize: 5 },
  ],
  ['packer', (items, budget) => packerSlice(items, budget, { maxConsecutiveSkips: 2 }), { maxConsecutiveSkips: 2 }],
];

for (const [name, slice, coreOptions] of sliceCases) {
  test(`${name}: budget, one decision each, deterministic, object and columnar paths agree`, () => {
    fc.assert(
      fc.property(itemsArb, fc.nat(10_000), (items, target) => {
        const budget = { targetTokens: target };
        const r = slice(items, budget);
        assert.deepEqual(slice(items, budget), r);
        assert.equal(r.decisions.length, items.length);
        const selected = new Set(r.selected);
        assert.equal(selected.size, r.selected.length);
        for (const d of r.decisions) assert.equal(d.included, selected.has(d.id));
        const used = items.filter((it) => selected.has(it.id)).reduce((t, it) => t + it.tokens, 0);
        assert.equal(r.totalTokens, used);
        if (r.overBudget) {
          assert.equal(name, 'count-knapsack');
          assert.equal(r.overrunTokens, used - target);
        } else {
          assert.ok(used <= target);
        }

        const kindNames = [...new Set(items.map((it) => it.kind))];
        const columns = {
          tokens: Uint32Array.from(items, (it) => it.tokens),
          scores: Float64Array.from(items, (it) => it.score),
          kinds: Uint32Array.from(items, (it) => kindNames.indexOf(it.kind)),
          kindNames,
        };
        const objects = items.map((it) => ({ id: it.id, cost_tokens: it.tokens, score: it.score, kind: it.kind }));
        const viaColumns = sliceColumns(name, columns, budget, coreOptions);
        assert.deepEqual(sliceObjects(name, objects, budget, coreOptions), viaColumns);
        assert.deepEqual(Array.from(viaColumns.selected, (i) => items[i].id), r.selected);
      }),
      { numRuns: RUNS },
    );
  });
}
