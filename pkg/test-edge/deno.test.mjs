// The package under Deno 2 (the real runtime, from the `deno` npm package), as a Deno user gets it:
// the packed tarball installed by npm into a project's node_modules, `import … from 'ctxpack'`
// resolved by Deno through package.json. Deno takes the `node` → `import` condition
// (dist/node.js), which reads the .wasm next to it: the only permission the program needs is
// --allow-read of that one file. Deno fetches nothing: --cached-only and --no-remote, DENO_DIR in a
// temp dir, and every proxy variable pointing at a closed local port. `deno check` type-checks a
// TypeScript user of the package too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { selectFragments } from 'ctxpack';
import { canonicalPlan } from './canonical.mjs';
import { bad, cases } from './cases.mjs';
import { installPacked } from './packed.mjs';

const denoBin = createRequire(import.meta.url).resolve('deno/bin.cjs');
let installed;
let wasmPath;

before(() => {
  installed = installPacked({ prefix: 'ctxpack-deno-', type: 'module' });
  for (const f of ['main.js', 'typed.ts']) copyFileSync(new URL(`./deno-app/${f}`, import.meta.url), join(installed.app, f));
  copyFileSync(new URL('./canonical.mjs', import.meta.url), join(installed.app, 'canonical.mjs'));
  wasmPath = join(installed.app, 'node_modules', 'ctxpack', 'wasm', 'ctxpack_bg.wasm');
  assert.ok(existsSync(wasmPath), 'the tarball carries the .wasm');
});

after(() => installed?.cleanup());

const closed = 'http://127.0.0.1:9';

/** Runs deno in the installed project, offline; stdin is `input` as JSON. */
function deno(args, input = null) {
  return spawnSync(process.execPath, [denoBin, ...args], {
    cwd: installed.app,
    input: input === null ? '' : JSON.stringify(input),
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      DENO_DIR: join(installed.root, 'deno-dir'),
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      HTTP_PROXY: closed,
      HTTPS_PROXY: closed,
      ALL_PROXY: closed,
      NPM_CONFIG_REGISTRY: `${closed}/`,
    },
  });
}

/** `deno run` of the program with the given permissions. */
const denoRun = (permissions, input) => deno(['run', '--cached-only', '--no-remote', '--no-prompt', '--no-lock', ...permissions, 'main.js'], input);

const input = { cases, bad: bad.map(({ expect: _e, ...c }) => c) };

test('without --allow-read Deno refuses to load the .wasm (the permission is needed, and is enough)', () => {
  const r = denoRun([], input);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /NotCapable|Requires read access/);
  assert.ok(r.stderr.includes('ctxpack_bg.wasm'), r.stderr);
  // The error says what is wrong (a permission), not that the code was bundled away; each path once.
  assert.match(r.stderr, /CtxpackError/);
  assert.match(r.stderr, /may not read it/);
  assert.match(r.stderr, /--allow-read/);
  assert.doesNotMatch(r.stderr, /bundled away/);
  const paths = [...r.stderr.matchAll(/(\S+ctxpack_bg\.wasm) \(/g)].map((m) => m[1]);
  assert.equal(new Set(paths).size, paths.length, `a path tried twice: ${paths}`);
});

test('Deno plans like Node, byte for byte, and raises CtxpackError with code, field and index', () => {
  const r = denoRun([`--allow-read=${wasmPath}`], input);
  assert.equal(r.status, 0, `deno failed:\n${r.stderr}`);
  const out = JSON.parse(r.stdout);
  assert.match(out.deno, /^2\./);
  // The condition Deno picks: node → import, the build that reads the .wasm from disk.
  assert.ok(out.resolved.endsWith('/node_modules/ctxpack/dist/node.js'), out.resolved);
  assert.equal(out.sameInitPromise, true, 'init() returns one promise');
  assert.equal(out.initialized, true);
  assert.equal(out.plans.length, cases.length);
  cases.forEach((c, i) => {
    const inNode = canonicalPlan(selectFragments(c.fragments, c.gaze, c.budgets, c.options));
    assert.ok(JSON.parse(inNode).fragments.length > 0);
    assert.equal(out.plans[i], inNode, `plan for slicer ${c.options.slicer}`);
  });
  assert.equal(out.afterErrors, out.plans[0]);
  assert.deepEqual(out.errors, bad.map((b) => ({ threw: true, isCtxpackError: true, name: 'CtxpackError', ...b.expect })));
  // Nothing was written into the project (no deno.lock), and DENO_DIR stayed in the temp dir.
  assert.deepEqual(readdirSync(installed.app).sort(), ['canonical.mjs', 'main.js', 'node_modules', 'package.json', 'typed.ts']);
});

test('deno check type-checks a TypeScript user of the package against its declarations', () => {
  const r = deno(['check', '--no-remote', '--no-lock', 'typed.ts']);
  assert.equal(r.status, 0, `deno check failed:\n${r.stdout}${r.stderr}`);
});
