// The package inside workerd (the real Cloudflare Workers runtime, through miniflare): bundled the
// way wrangler does it (conditions workerd/worker/browser, the .wasm imported as a compiled
// module), planning requests exactly as a deployed edge function would, with the same plans as
// Node.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { knapsackSlice, selectFragments } from 'ctxpack';

const here = dirname(fileURLToPath(import.meta.url));
const pkgRoot = dirname(here);
const sample = JSON.parse(readFileSync(join(pkgRoot, '..', 'www', 'samples', 'agent-session.json'), 'utf8'));
let dir;
let mf;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxpack-worker-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(pkgRoot, join(dir, 'node_modules', 'ctxpack'), 'dir');
  copyFileSync(join(here, 'worker-src.js'), join(dir, 'worker-src.js'));
  const out = join(dir, 'dist');
  await build({
    entryPoints: [join(dir, 'worker-src.js')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    loader: { '.wasm': 'copy' },
    outdir: out,
    logLevel: 'warning',
  });
  mf = new Miniflare({
    modules: true,
    scriptPath: join(out, 'worker-src.js'),
    modulesRoot: out,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
  });
});

after(async () => {
  await mf?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function post(body) {
  const res = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

/** A plan without its timings, which differ run to run. */
function comparable(plan) {
  const { planner_ms: _ms, ...metrics } = plan.metrics;
  return { ...plan, metrics };
}

test('the worker bundle imports the .wasm as a module (no compile from bytes)', () => {
  const bundle = readFileSync(join(dir, 'dist', 'worker-src.js'), 'utf8');
  assert.match(bundle, /import \w+ from "\.\/ctxpack_bg-[\w-]+\.wasm"/);
  assert.doesNotMatch(bundle, /readFileSync/);
});

for (const slicer of ['acs', 'greedy', 'knapsack', 'count-knapsack', 'packer']) {
  test(`workerd plans the agent session like Node (${slicer})`, async () => {
    const options = { slicer, now: Date.parse(sample.now), requestId: 'edge-test' };
    if (slicer === 'count-knapsack') options.countEntries = [{ kind: 'system', requireCount: 2, capCount: 2 }];
    const { status, json } = await post({ fragments: sample.fragments, gaze: sample.gaze, budgets: sample.budgets, options });
    assert.equal(status, 200);
    const inNode = selectFragments(sample.fragments, sample.gaze, sample.budgets, options);
    assert.ok(inNode.fragments.length > 0);
    assert.deepEqual(comparable(json.plan), JSON.parse(JSON.stringify(comparable(inNode))));
  });
}

test('workerd runs the slicers directly', async () => {
  const items = [{ id: 'a', tokens: 60, score: 0.6 }, { id: 'b', tokens: 40, score: 0.4 }, { id: 'c', tokens: 10, score: 0.2 }];
  const { status, json } = await post({ op: 'knapsack', items, budget: { targetTokens: 100 }, options: { bucketSize: 1 } });
  assert.equal(status, 200);
  assert.deepEqual(json, JSON.parse(JSON.stringify(knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1 }))));
  assert.deepEqual(json.selected, ['b', 'a']);
});

test('a bad request gets a CtxpackError and the worker keeps serving', async () => {
  const bad = await post({ fragments: [{ id: 'x', cost_tokens: -1 }], gaze: { entities: [] }, budgets: { tokens_max: 10 } });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, 'INVALID_FIELD');
  assert.equal(bad.json.field, 'cost_tokens');
  assert.equal(bad.json.index, 0);
  const good = await post({ fragments: sample.fragments, gaze: sample.gaze, budgets: sample.budgets, options: { now: Date.parse(sample.now) } });
  assert.equal(good.status, 200);
  assert.ok(good.json.plan.fragments.length > 0);
});
