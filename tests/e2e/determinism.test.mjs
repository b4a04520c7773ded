// The same 500 seeded cases planned in Node, in headless Chromium (the browser bundle, as the
// preview page loads it) and in workerd (the Worker bundle) give byte-identical plans.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { selectFragments } from '../../pkg/dist/node.js';
import { canonicalPlan, makeCases } from './cases.mjs';
import { launchChromium, ROOT, startServer } from './harness.mjs';

const CASES = makeCases(500, 20261122);
const pkgRequire = createRequire(join(ROOT, 'pkg', 'package.json'));
const { startWorker } = await import(pathToFileURL(join(ROOT, 'pkg', 'test-edge', 'harness.mjs')));
const digest = (plans) => createHash('sha256').update(plans.join('\n')).digest('hex');

let server;
let browser;
let worker;

before(async () => {
  pkgRequire.resolve('miniflare'); // fail early with a clear message when pkg/node_modules is missing
  server = await startServer();
  browser = await launchChromium({ width: 800, height: 600 });
  worker = await startWorker(join(ROOT, 'tests', 'e2e', 'determinism-worker.js'));
});

after(async () => {
  await browser?.close();
  server?.child.kill();
  await worker?.dispose();
});

test('500 seeded cases: Node, Chromium and workerd plan byte-identically', { timeout: 120_000 }, async () => {
  const inNode = CASES.map((c) => canonicalPlan(selectFragments(c.fragments, c.gaze, c.budgets, c.options)));
  assert.ok(inNode.filter((p) => JSON.parse(p).ids.length > 0).length > 300, 'most cases select something');

  const { page } = browser;
  await page.goto(new URL('samples/agent-session.json', server.url).href); // same origin, no app running
  // The page's CSP forbids eval, so plans come back whole and are put in canonical form here.
  const fromChromium = await page.evaluate(async (cases) => {
    const m = await import('/pkg/dist/index.js');
    await m.init();
    // Serialised in the page, so that no transport can round a number.
    return JSON.stringify(JSON.parse(cases).map((c) => m.selectFragments(c.fragments, c.gaze, c.budgets, c.options)));
  }, JSON.stringify(CASES));
  const inChromium = JSON.parse(fromChromium).map(canonicalPlan);

  const inWorkerd = [];
  for (let i = 0; i < CASES.length; i += 100) {
    const { status, json } = await worker.dispatch({ cases: CASES.slice(i, i + 100) });
    assert.equal(status, 200);
    inWorkerd.push(...json.map(canonicalPlan));
  }

  const firstDifference = (a, b) => {
    let k = 0;
    while (k < a.length && a[k] === b[k]) k++;
    return `at character ${k}: …${a.slice(Math.max(0, k - 80), k + 80)}… vs …${b.slice(Math.max(0, k - 80), k + 80)}…`;
  };
  for (let i = 0; i < CASES.length; i++) {
    assert.ok(inChromium[i] === inNode[i], `case ${i}: Chromium differs from Node ${firstDifference(inChromium[i], inNode[i])}`);
    assert.ok(inWorkerd[i] === inNode[i], `case ${i}: workerd differs from Node ${firstDifference(inWorkerd[i], inNode[i])}`);
  }
  console.log(`determinism: ${CASES.length} cases, plans sha256 ${digest(inNode)} in Node, Chromium and workerd`);
});
