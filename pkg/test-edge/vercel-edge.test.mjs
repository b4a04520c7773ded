// The package's `edge-light` build in Vercel's Edge runtime emulation (edge-runtime /
// @edge-runtime/vm), installed from the packed tarball and bundled the way Vercel's bundlers do it
// (see vercel-harness.mjs): the .wasm arrives as a compiled WebAssembly.Module bound to a global,
// either from outside the sandbox (vercel dev, next dev/start) or from inside it (a deployed
// isolate), and nothing compiles WebAssembly from bytes. Plans are compared with Node's byte for
// byte, bad inputs must raise CtxpackError with code, field and index.
//
// Not covered: Vercel's deployed Edge network itself, and the webpack side of Next.js (its
// `?module` rule); the runtime here is Vercel's Node-based emulation of it.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { selectFragments } from 'ctxpack';
import { canonicalPlan } from './canonical.mjs';
import { bad, cases } from './cases.mjs';
import { installPacked } from './packed.mjs';
import { startEdgeFunction } from './vercel-harness.mjs';

let installed;
let entry;

before(() => {
  installed = installPacked({ prefix: 'ctxpack-vercel-', type: 'module' });
  entry = join(installed.app, 'handler.js');
  copyFileSync(new URL('./vercel-edge-src.js', import.meta.url), entry);
  copyFileSync(new URL('./canonical.mjs', import.meta.url), join(installed.app, 'canonical.mjs'));
});

after(() => installed?.cleanup());

for (const realm of ['host', 'sandbox']) {
  describe(`Vercel Edge runtime, Module compiled ${realm === 'host' ? 'outside the sandbox (vercel dev, next dev/start)' : 'inside the sandbox (as in a deployed isolate)'}`, () => {
    let fn;
    before(async () => {
      fn = await startEdgeFunction(entry, { realm });
    });

    test('the bundle takes dist/edge-light.js and reads the .wasm from a global Module binding', () => {
      assert.equal(fn.bindings.length, 1);
      assert.match(fn.bindings[0], /^wasm_[0-9a-f]{40}$/);
      assert.ok(fn.bundle.includes(`globalThis[${JSON.stringify(fn.bindings[0])}]`));
      assert.match(fn.bundle, /node_modules\/ctxpack\/dist\/edge-light\.js/);
      assert.doesNotMatch(fn.bundle, /readFileSync|node:fs/);
      // The runtime is Vercel's emulation, and compiling from bytes is refused in it.
      assert.equal(fn.runtime.evaluate('EdgeRuntime'), 'edge-runtime');
      assert.equal(fn.runtime.evaluate(`${fn.bindings[0]} instanceof WebAssembly.Module`), realm === 'sandbox');
      assert.throws(() => fn.runtime.evaluate('new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))'));
    });

    test('plans without init() first, like Node, byte for byte, for every slicer', async () => {
      for (const c of cases) {
        const { status, json } = await fn.dispatch(c);
        assert.equal(status, 200, JSON.stringify(json));
        const inNode = canonicalPlan(selectFragments(c.fragments, c.gaze, c.budgets, c.options));
        assert.ok(JSON.parse(inNode).fragments.length > 0);
        assert.equal(json.plan, inNode, `plan for slicer ${c.options.slicer}`);
      }
    });

    test('init() is idempotent and returns one promise', async () => {
      const { status, json } = await fn.dispatch({ op: 'init' });
      assert.equal(status, 200);
      assert.deepEqual(json, { sameInitPromise: true, initialized: true });
    });

    test('after 2,000 traps of the core, the same compiled Module is instantiated again and plans as before', async () => {
      const trapped = await fn.dispatch({ op: 'trap', times: 2000 });
      assert.equal(trapped.status, 200);
      assert.deepEqual(trapped.json.codes, ['INTERNAL']);
      const { status, json } = await fn.dispatch(cases[0]);
      assert.equal(status, 200);
      assert.equal(json.plan, canonicalPlan(selectFragments(cases[0].fragments, cases[0].gaze, cases[0].budgets, cases[0].options)));
    });

    test('memory returns under the 16 MiB limit after a large knapsack', async () => {
      const { json } = await fn.dispatch({ op: 'memory' });
      assert.equal(json.afterLarge, 0, 'the grown instance is discarded when the call returns');
      assert.ok(json.bytes > 0 && json.bytes <= 16 * 1024 * 1024, `${json.bytes} bytes`);
    });

    test('bad input gets a CtxpackError with code, field and index, and the function keeps serving', async () => {
      for (const { expect, ...c } of bad) {
        const { status, json } = await fn.dispatch(c);
        assert.equal(status, 400, JSON.stringify(json));
        assert.deepEqual(json, { ok: false, name: 'CtxpackError', ...expect });
      }
      const { status, json } = await fn.dispatch(cases[0]);
      assert.equal(status, 200);
      assert.equal(json.plan, canonicalPlan(selectFragments(cases[0].fragments, cases[0].gaze, cases[0].budgets, cases[0].options)));
    });
  });
}
