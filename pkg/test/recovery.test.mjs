// A failed call never poisons the module, and memory comes back: after a wasm trap the package
// discards the instance and the next call runs on a fresh one made from the same compiled module;
// after a call that grew linear memory past the limit, the same. Plans after 10,000 traps are
// byte-identical to a fresh process's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { CtxpackError, selectFragments, setWasmMemoryLimit, wasmMemoryBytes } from 'ctxpack';
import { budgetCurve, greedySlice, sliceColumns } from 'ctxpack/slicers';

/** Fixed inputs and what the package answers for them, as JSON (the clock-dependent fields dropped). */
function plans(pkg) {
  const NOW = Date.parse('2026-11-20T12:00:00Z');
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const frags = Array.from({ length: 300 }, (_, i) => ({
    id: `f${i}`,
    cost_tokens: 20 + Math.floor(rand() * 400),
    kind: ['doc', 'code', 'chat'][i % 3],
    entities: rand() < 0.4 ? ['auth'] : ['db'],
    timestamp: NOW - Math.floor(rand() * 1e9),
  }));
  const out = [];
  for (const slicer of ['ranked', 'greedy', 'knapsack', 'packer', 'exact']) {
    const p = pkg.selectFragments(frags, { entities: ['auth'] }, { tokens_max: 9000 }, { now: NOW, slicer });
    delete p.metrics.planner_ms;
    delete p.metrics.request_id;
    out.push(p);
  }
  const tokens = Uint32Array.from(frags, (f) => f.cost_tokens);
  const scores = Float64Array.from(frags, () => rand());
  for (const slicer of ['greedy', 'knapsack', 'exact']) {
    const r = pkg.sliceColumns(slicer, { tokens, scores }, { targetTokens: 5000 });
    out.push({ ...r, selected: [...r.selected] });
  }
  return JSON.stringify(out);
}

/** A trap the core hits at once: a budget curve of a billion budgets, its table limit raised. */
const trap = () => budgetCurve([{ id: 'a', tokens: 10, score: 1 }], 1e9, { slicer: 'knapsack', maxTableBytes: 2 ** 52 });

test('a trap comes back as INTERNAL with the trap as cause, and says the core was restarted', () => {
  assert.throws(trap, (e) => {
    assert.ok(e instanceof CtxpackError);
    assert.equal(e.code, 'INTERNAL');
    assert.ok(e.cause instanceof WebAssembly.RuntimeError, String(e.cause));
    assert.match(e.message, /the core was restarted/);
    return true;
  });
  assert.equal(greedySlice([{ id: 'a', tokens: 1, score: 1 }], { targetTokens: 1 }).selected.length, 1);
});

test('10,000 traps in a row, then plans byte-identical to a fresh process', () => {
  const fresh = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `import * as main from 'ctxpack'; import * as slicers from 'ctxpack/slicers'; process.stdout.write((${plans.toString()})({ ...main, ...slicers }));`],
    { cwd: new URL('.', import.meta.url), encoding: 'utf8' },
  );
  for (let i = 0; i < 10_000; i++) {
    assert.throws(trap, (e) => e instanceof CtxpackError && e.code === 'INTERNAL');
  }
  assert.equal(plans({ selectFragments, sliceColumns }), fresh);
});

test('memory returns: after a call that grew memory past the limit, the next call runs on a fresh instance', () => {
  const LIMIT = 32 * 1024 * 1024;
  setWasmMemoryLimit(LIMIT);
  // A knapsack under the default 64 MiB table limit: about 48 MB of table.
  const n = 2000;
  const tokens = new Uint32Array(n).map((_, i) => 50 + (i % 97));
  const scores = new Float64Array(n).map((_, i) => ((i * 7919) % 1000) / 1000);
  const big = sliceColumns('knapsack', { tokens, scores }, { targetTokens: 190_000 }, { bucketSize: 1 });
  assert.ok(big.totalTokens > 0);
  assert.equal(wasmMemoryBytes(), 0, 'the grown instance is discarded when the call returns');
  const small = sliceColumns('greedy', { tokens: Uint32Array.of(1, 2), scores: Float64Array.of(1, 1) }, { targetTokens: 3 });
  assert.equal(small.selected.length, 2);
  const after = wasmMemoryBytes();
  assert.ok(after > 0 && after <= LIMIT, `wasm memory ${after} bytes after a small call, limit ${LIMIT}`);
});

test('setWasmMemoryLimit refuses what is not a positive number', () => {
  for (const bad of [0, -1, NaN, '32', null, undefined]) {
    assert.throws(() => setWasmMemoryLimit(bad), (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION');
  }
  setWasmMemoryLimit(Infinity);
  setWasmMemoryLimit(32 * 1024 * 1024);
});
