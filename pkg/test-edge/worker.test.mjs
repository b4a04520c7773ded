// The package inside workerd (the real Cloudflare Workers runtime, through miniflare): bundled the
// way wrangler does it (conditions workerd/worker/browser, the .wasm imported as a compiled
// module), planning requests exactly as a deployed edge function would, with the same plans as
// Node.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fitMessages, selectFragments } from 'ctxpack';
import { knapsackSlice } from 'ctxpack/slicers';
import { startWorker } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sample = JSON.parse(readFileSync(join(here, '..', '..', 'www', 'samples', 'agent-session.json'), 'utf8'));
let worker;

before(async () => {
  worker = await startWorker(join(here, 'worker-src.js'));
});

after(async () => {
  await worker?.dispose();
});

const post = (body) => worker.dispatch(body);

/** A plan without its timings, which differ run to run. */
function comparable(plan) {
  const { planner_ms: _ms, ...metrics } = plan.metrics;
  return { ...plan, metrics };
}

test('the worker bundle imports the .wasm as a module (no compile from bytes)', () => {
  const bundle = readFileSync(worker.bundlePath, 'utf8');
  assert.match(bundle, /import \w+ from "\.\/ctxpack_bg-[\w-]+\.wasm"/);
  assert.doesNotMatch(bundle, /readFileSync/);
});

for (const slicer of ['ranked', 'greedy', 'knapsack', 'count-knapsack', 'packer']) {
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

test('workerd fits a chat history like Node, decisions and relevance values alike', async () => {
  const messages = JSON.parse(readFileSync(new URL('../../www/samples/agent-chat.openai.json', import.meta.url), 'utf8'));
  const options = { format: 'openai', budgets: { tokens_max: 4500 } };
  const { status, json } = await post({ op: 'fit', messages, options });
  assert.equal(status, 200);
  const inNode = fitMessages(messages, options);
  assert.deepEqual(json, JSON.parse(JSON.stringify({ messages: inNode.messages, decisions: inNode.decisions })));
});

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

test('after traps of the core, workerd instantiates its precompiled module again and plans as before', async () => {
  const trapped = await post({ op: 'trap', times: 2000 });
  assert.equal(trapped.status, 200);
  assert.deepEqual(trapped.json.codes, ['INTERNAL']);
  assert.equal(trapped.json.count, 2000);
  assert.match(trapped.json.message, /the core was restarted/);
  const options = { now: Date.parse(sample.now), requestId: 'edge-test' };
  const { json } = await post({ fragments: sample.fragments, gaze: sample.gaze, budgets: sample.budgets, options });
  assert.deepEqual(comparable(json.plan), JSON.parse(JSON.stringify(comparable(selectFragments(sample.fragments, sample.gaze, sample.budgets, options)))));
});

test('workerd: memory returns under the 16 MiB limit after a large knapsack', async () => {
  const { status, json } = await post({ op: 'memory' });
  assert.equal(status, 200);
  assert.equal(json.afterLarge, 0, 'the grown instance is discarded when the call returns');
  assert.ok(json.bytes > 0 && json.bytes <= 16 * 1024 * 1024, `${json.bytes} bytes`);
});
