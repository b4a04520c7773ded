// Property: whatever sequence of calls runs, failed ones included (traps of the core with raised
// table limits, refused inputs, calls that grow memory past the limit), every good call answers
// exactly as it does on a fresh module, and wasm memory stays within the limit after each call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CtxpackError, setWasmMemoryLimit, wasmMemoryBytes } from 'ctxpack';
import { budgetCurve, exactKnapsackSlice, greedySlice, knapsackSlice, sliceColumns } from 'ctxpack/slicers';

const RUNS = Number(process.env.CTXPACK_PROPERTY_RUNS ?? 40);
const LIMIT = 32 * 1024 * 1024;

const itemsArb = fc.array(
  fc.record({ tokens: fc.integer({ min: 0, max: 400 }), score: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.constantFrom(0, 0.5, 1)) }),
  { maxLength: 30 },
);

/** A call that must succeed, and the same call as JSON so that two runs can be compared. */
const goodArb = fc.record({
  kind: fc.constant('good'),
  slicer: fc.constantFrom('greedy', 'knapsack', 'exact', 'columns-knapsack'),
  items: itemsArb,
  budget: fc.integer({ min: 0, max: 3000 }),
});

/** A call that must fail or be discarded: a trap, a refused input, or a call that grows memory past the limit. */
const badArb = fc.record({
  kind: fc.constant('bad'),
  how: fc.constantFrom('trap-curve', 'trap-columns', 'refused', 'grow'),
});

function runGood(c) {
  const list = c.items.map((it, i) => ({ id: `i${i}`, ...it }));
  const budget = { targetTokens: c.budget };
  switch (c.slicer) {
    case 'greedy':
      return greedySlice(list, budget);
    case 'knapsack':
      return knapsackSlice(list, budget, { bucketSize: 1 });
    case 'exact':
      return exactKnapsackSlice(list, budget);
    default: {
      const r = sliceColumns('knapsack', { tokens: Uint32Array.from(c.items, (x) => x.tokens), scores: Float64Array.from(c.items, (x) => x.score) }, budget, { bucketSize: 7 });
      return { ...r, selected: [...r.selected] };
    }
  }
}

function runBad(c) {
  switch (c.how) {
    case 'trap-curve':
      // A billion budgets with the table limit raised: the core runs out of memory and traps.
      return budgetCurve([{ id: 'a', tokens: 10, score: 1 }], 1e9, { slicer: 'knapsack', maxTableBytes: 2 ** 52 });
    case 'trap-columns':
      // A keep table of about 400 GB, the limit raised past it: refused (TABLE_TOO_LARGE) or a trap, never a wrong answer after.
      return sliceColumns('knapsack', { tokens: new Uint32Array(1500).fill(2 ** 22), scores: new Float64Array(1500).fill(0.5) }, { targetTokens: 2 ** 31 }, { bucketSize: 1, maxTableBytes: 2 ** 52 });
    case 'refused':
      return greedySlice([{ id: 'x', tokens: -1, score: Number.NaN }], { targetTokens: 10 });
    case 'grow': {
      // About 48 MB of table under the default limit: it succeeds, and its instance is discarded after.
      const n = 2000;
      const tokens = new Uint32Array(n).map((_, i) => 50 + (i % 97));
      const scores = new Float64Array(n).map((_, i) => ((i * 7919) % 1000) / 1000);
      sliceColumns('knapsack', { tokens, scores }, { targetTokens: 190_000 }, { bucketSize: 1 });
      return undefined;
    }
  }
}

test('after any sequence of failed calls, every good call answers as on a fresh module, and memory stays within the limit', () => {
  setWasmMemoryLimit(LIMIT);
  fc.assert(
    fc.property(fc.array(fc.oneof(goodArb, badArb), { minLength: 1, maxLength: 12 }), (calls) => {
      // What each good call answers before anything failed in this sequence: the reference.
      const expected = calls.map((c) => (c.kind === 'good' ? JSON.stringify(runGood(c)) : undefined));
      calls.forEach((c, k) => {
        if (c.kind === 'good') {
          assert.equal(JSON.stringify(runGood(c)), expected[k], `call ${k}`);
        } else if (c.how === 'grow') {
          runBad(c);
        } else {
          assert.throws(
            () => runBad(c),
            (e) => e instanceof CtxpackError && (c.how === 'refused' ? e.code !== 'INTERNAL' : e.code === 'INTERNAL' || e.code === 'TABLE_TOO_LARGE'),
            `call ${k} (${c.how})`,
          );
        }
        assert.ok(wasmMemoryBytes() <= LIMIT, `call ${k}: ${wasmMemoryBytes()} bytes of wasm memory`);
      });
    }),
    { numRuns: RUNS },
  );
});
