// The core decides once, and the package and the page read it: every error code the Rust core can
// raise has its sentence in TypeScript (pkg/src/error-text.ts), written from the fields the wasm
// boundary gives and naming the field and the index; the strategy table and the option defaults
// are the core's (src/wasm/strategies.rs), the same in the built package and in the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as main from 'ctxpack';
import * as acs from 'ctxpack/acs';
import * as slicers from 'ctxpack/slicers';

const ctxpack = { ...main, ...acs, ...slicers };
import { importInternal } from './internal.mjs';

const internal = await importInternal(
  "export { CORE_ERROR_TEXT, coreErrorText } from './src/error-text.ts';\n" +
    "export { call } from './src/core/instance.ts';\n" +
    "export * as glue from './wasm/ctxpack.js';\n" +
    "export { BM25_DEFAULTS } from './src/ranking/relevance.ts';\n",
);
const { CORE_ERROR_TEXT, coreErrorText, call, glue, BM25_DEFAULTS } = internal;
const errorCodes = call(() => glue.errorCodes());

/** Per code, the fields of an error as the boundary gives them, index 7 and a field to name. */
const SAMPLES = {
  INVALID_SCORE: { field: 'score', index: 7, noun: 'candidates', value: NaN },
  INVALID_BUDGET: { field: 'maxTokens', reasonKind: 'atLeast', than: 'targetTokens', min: 10, got: 5 },
  INVALID_BUCKET_SIZE: { field: 'bucketSize', value: 0 },
  INVALID_COUNT_ENTRY: { field: 'entries', index: 7, problem: 'require_over_cap', requireCount: 3, capCount: 2 },
  TABLE_TOO_LARGE: { field: 'maxTableBytes', candidates: 10, capacity: 99, columns: 100, cells: 1000, bytes: 1125, limit: 64, unit: 'bytes', bucketHelps: true },
  COUNT_REQUIREMENT_SHORTFALL: { field: 'entries', index: 7, satisfied: 1, required: 2 },
  COUNT_REQUIREMENT_OVER_BUDGET: { requiredTokens: 120, targetTokens: 100, bucketSize: 1 },
  NOT_MONOTONIC: { field: 'slicer', slicer: 'exact-count' },
  INVALID_OPTION: { field: 'maxCells', reasonKind: 'range', what: 'an integer', min: 0, max: 9007199254740991, maxByName: true, got: '-1' },
  INVALID_FIELD: { field: 'cost_tokens', index: 7, noun: 'candidates', reasonKind: 'expected', expected: 'a non-negative integer', got: '-5' },
  INVALID_INPUT: { field: 'kind', index: 7, noun: 'candidates' },
};

test('every code the core can raise has its sentence in TypeScript', () => {
  assert.ok(errorCodes.length >= 10);
  assert.deepEqual([...errorCodes].sort(), Object.keys(CORE_ERROR_TEXT).sort());
  assert.deepEqual([...errorCodes].sort(), Object.keys(SAMPLES).sort(), 'a sample per code below');
});

for (const code of Object.keys(SAMPLES)) {
  test(`${code}: the sentence names the field and the index, from the fields alone`, () => {
    const e = { code, ...SAMPLES[code] };
    const text = coreErrorText(e);
    if (e.index !== undefined) assert.match(text, new RegExp(`\\[${e.index}\\]`), text);
    if (e.field !== undefined) assert.ok(text.includes(e.field), text);
    // The fields are all it reads: no message crosses.
    assert.equal(text, coreErrorText({ ...e }));
  });
}

test('a core error crosses as fields and the package writes its message', () => {
  const items = [{ id: 'a', tokens: 1, score: 0.5 }, { id: 'b', tokens: 1, score: 0.5, dependencies: ['b'] }];
  const err = (() => {
    try {
      ctxpack.greedySlice(items, { targetTokens: 10 }, { dependencies: 'require' });
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof ctxpack.CtxpackError);
  assert.equal(err.code, 'INVALID_FIELD');
  assert.equal(err.index, 1);
  assert.match(err.message, /\[1\]\.dependencies/);
});

test("the strategy table is the core's, in the package and in the page", async () => {
  const rust = call(() => glue.strategies());
  assert.deepEqual(ctxpack.STRATEGIES, rust);
  assert.deepEqual(ctxpack.OPTION_DEFAULTS, call(() => glue.optionDefaults()));
  assert.deepEqual(ctxpack.PLANNER_SLICERS, rust.map((s) => s.name));
  assert.equal(ctxpack.DEFAULT_BUCKET_SIZE, ctxpack.OPTION_DEFAULTS.bucketSize);
  assert.equal(ctxpack.DEFAULT_MAX_CONSECUTIVE_SKIPS, ctxpack.OPTION_DEFAULTS.maxConsecutiveSkips);
  const page = await import('../../www/src/strategy.js');
  assert.deepEqual(page.SLICERS, rust.map((s) => s.name));
  assert.deepEqual(page.COUNT_SLICERS, rust.filter((s) => s.options.includes('entries')).map((s) => s.name));
  // The page's strategy runs what the table says, through the package's functions.
  for (const row of rust) {
    const s = { slicer: row.name, bucketSize: 50, maxConsecutiveSkips: 2, countEntries: [], allowOvershoot: false, requireDependencies: false };
    const [fn, options] = page.sliceCall(s);
    assert.equal(typeof ctxpack[fn], 'function', fn);
    if (row.skipLimit !== null) assert.equal(options.maxConsecutiveSkips, row.skipLimit, row.name);
    const sim = page.simulationOptions(s);
    assert.equal(sim.slicer, row.monotonic ? row.engine : row.name, row.name);
  }
});

test("BM25's defaults are the core's, as the types document them", () => {
  assert.deepEqual({ ...BM25_DEFAULTS }, { k1: ctxpack.OPTION_DEFAULTS.bm25K1, b: ctxpack.OPTION_DEFAULTS.bm25B });
  // messages/types.ts: "Default 1.2", "Default 0.75".
  assert.deepEqual({ ...BM25_DEFAULTS }, { k1: 1.2, b: 0.75 });
});

test('NOT_MONOTONIC comes from the core for every strategy its table does not simulate', () => {
  const items = [{ id: 'a', tokens: 1, score: 0.5 }];
  for (const row of ctxpack.STRATEGIES.filter((s) => !s.monotonic)) {
    for (const run of [
      () => ctxpack.budgetCurve(items, 10, { slicer: row.name }),
      () => ctxpack.minBudgetFor(items, 'a', { slicer: row.name }),
      () => ctxpack.droppedUnderSlack(items, { targetTokens: 10 }, 1, { slicer: row.name }),
    ]) {
      assert.throws(run, (e) => e.code === 'NOT_MONOTONIC' && e.field === 'slicer' && e.message.includes(`'${row.name}'`));
    }
  }
});
