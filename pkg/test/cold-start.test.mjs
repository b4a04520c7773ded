// The cold start in Node (issue 30): importing the package starts compiling the .wasm in the
// background (src/loaders/node-find.ts, compileEarly); a first call that comes after the event
// loop turned instantiates that compiled module, one that comes at once compiles the bytes itself;
// once the compile is done, a small warm-up call loads the core unless a call came first
// (src/core/instance.ts, warmUpWhenCompiled).
// Each case in a fresh process of its own, through the built package (ESM and CommonJS).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const pkg = fileURLToPath(new URL('..', import.meta.url));

/**
 * A program that counts the synchronous compiles (`new WebAssembly.Module`) and plans 4 messages,
 * at once after loading the package or after `wait` ms; it prints the count and what was kept.
 */
function program({ cjs, wait, from = pkg }) {
  const load = cjs
    ? `require(${JSON.stringify(join(from, 'dist/node.cjs'))})`
    : `await import(${JSON.stringify(join(from, 'dist/node.js'))})`;
  return `
let compiles = 0;
WebAssembly.Module = new Proxy(WebAssembly.Module, { construct(target, args) { compiles++; return Reflect.construct(target, args); } });
const { fitMessages } = ${load};
${wait > 0 ? `await new Promise((r) => setTimeout(r, ${wait}));` : ''}
const messages = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'What is the capital of France?' },
  { role: 'assistant', content: 'Paris.' },
  { role: 'user', content: 'And of Germany?' },
];
let out;
try {
  const r = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 1000 } });
  out = { compiles, kept: r.decisions.filter((d) => d.included).map((d) => d.index) };
} catch (err) {
  out = { compiles, error: err.code, name: err.name };
}
console.log(JSON.stringify(out));
`;
}

/** Runs `source` as an ES module (CommonJS programs too: `require` from createRequire) in a fresh Node. */
function run(source, cwd = pkg) {
  const text = `import { createRequire } from 'node:module';\nconst require = createRequire(${JSON.stringify(join(cwd, 'x.js'))});\n${source}`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', text], { cwd, encoding: 'utf8' }));
}

for (const cjs of [false, true]) {
  const how = cjs ? 'require()' : 'import';
  test(`${how}: a first call after the event loop turned instantiates the module compiled in the background, compiling nothing itself`, () => {
    // 2 s: the background compile takes a few ms; a loaded machine may need more.
    const r = run(program({ cjs, wait: 2000 }));
    assert.deepEqual(r, { compiles: 0, kept: [0, 1, 2, 3] });
  });

  test(`${how}: a first call at once, before the background compile is done, plans the same (compiling the bytes itself if it must)`, () => {
    const r = run(program({ cjs, wait: 0 }));
    assert.deepEqual(r.kept, [0, 1, 2, 3]);
    assert.ok(r.compiles <= 1, `compiled ${r.compiles} times`);
  });

  test(`${how}: once the background compile is done, a warm-up call loads the core before any call of the caller's; the first call then plans the same`, () => {
    const load = cjs ? `require(${JSON.stringify(join(pkg, 'dist/node.cjs'))})` : `await import(${JSON.stringify(join(pkg, 'dist/node.js'))})`;
    const r = run(`
const { fitMessages, isInitialized, wasmMemoryBytes } = ${load};
const atImport = isInitialized();
// Up to 10 s for the background compile and the warm-up (a few ms on an idle machine).
for (let i = 0; i < 1000 && !isInitialized(); i++) await new Promise((r) => setTimeout(r, 10));
const warmed = isInitialized() && wasmMemoryBytes() > 0;
const r = fitMessages([{ role: 'user', content: 'Hello?' }, { role: 'assistant', content: 'Hi.' }, { role: 'user', content: 'Bye.' }], { format: 'openai', budgets: { tokens_max: 1000 } });
console.log(JSON.stringify({ atImport, warmed, kept: r.decisions.filter((d) => d.included).map((d) => d.index) }));
`);
    assert.deepEqual(r, { atImport: false, warmed: true, kept: [0, 1, 2] });
  });

  test(`${how}: a process that only loads the package exits by itself (the warm-up never holds it)`, () => {
    const load = cjs ? `require(${JSON.stringify(join(pkg, 'dist/node.cjs'))})` : `await import(${JSON.stringify(join(pkg, 'dist/node.js'))})`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `import { createRequire } from 'node:module';\nconst require = createRequire(${JSON.stringify(join(pkg, 'x.js'))});\n${load};`], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
  });

  test(`${how}: without its .wasm the package still loads; the first call fails with WASM_LOAD_FAILED`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxpack-cold-'));
    try {
      // The bundles alone, no wasm/ beside them and no node_modules/ctxpack to resolve.
      cpSync(join(pkg, 'dist'), join(dir, 'pkg', 'dist'), { recursive: true });
      writeFileSync(join(dir, 'pkg', 'package.json'), JSON.stringify({ type: 'module' }));
      const r = run(program({ cjs, wait: 100, from: join(dir, 'pkg') }), dir);
      assert.deepEqual(r, { compiles: 0, error: 'WASM_LOAD_FAILED', name: 'CtxpackError' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('Node without WebAssembly (--jitless): the import does not throw; the first call fails as a CtxpackError', () => {
  const text = `const { fitMessages } = await import(${JSON.stringify(join(pkg, 'dist/node.js'))});
try { fitMessages([{ role: 'user', content: 'hi' }], { format: 'openai', budgets: { tokens_max: 100 } }); console.log('planned'); }
catch (err) { console.log(err.name, err.code); }`;
  const r = spawnSync(process.execPath, ['--jitless', '--input-type=module', '-e', text], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^CtxpackError \w+\n$/);
});
