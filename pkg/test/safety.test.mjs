// Safety of the shipped bundles: no eval or Function constructor, no network module, and in Node
// no file access beyond the package's own .wasm (checked under Node's permission model).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const wasm = fileURLToPath(new URL('../wasm/ctxpack_bg.wasm', import.meta.url));
const bundles = readdirSync(dist).filter((f) => /\.(c?js)$/.test(f));

test('no bundle uses eval, the Function constructor or a network module', () => {
  assert.ok(bundles.includes('node.js') && bundles.includes('index.js') && bundles.includes('workerd.js'));
  for (const file of bundles) {
    const code = readFileSync(join(dist, file), 'utf8');
    assert.doesNotMatch(code, /\beval\s*\(/, `${file}: eval`);
    assert.doesNotMatch(code, /new\s+Function\s*\(|[^.\w]Function\s*\(/, `${file}: Function constructor`);
    assert.doesNotMatch(code, /['"]node:(net|http|https|http2|dgram|tls|child_process|worker_threads)['"]/, `${file}: network or process module`);
    assert.doesNotMatch(code, /\b(XMLHttpRequest|WebSocket|sendBeacon)\b/, `${file}: network API`);
  }
  // fetch appears only in the browser path of the wasm-bindgen glue (init with a URL). The Node
  // builds (ESM: node.js, node-<subpath>.js and their chunks; CommonJS: the .cjs files) import
  // these Node modules and no other, together.
  for (const files of [bundles.filter((f) => f.startsWith('node') && f.endsWith('.js')), bundles.filter((f) => f.endsWith('.cjs'))]) {
    assert.ok(files.length >= 3, files.join());
    const imports = files.flatMap((file) => [...readFileSync(join(dist, file), 'utf8').matchAll(/(?:from\s*|require\()\s*['"](node:[\w/]+)['"]/g)].map((m) => m[1]));
    assert.deepEqual([...new Set(imports)].sort(), ['node:fs', 'node:module', 'node:path', 'node:url'], files.join());
  }
});

test('in Node the package reads nothing but its own .wasm (permission model)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctxpack-perm-'));
  try {
    const script = join(dir, 'plan.mjs');
    writeFileSync(
      script,
      `import { selectFragments } from ${JSON.stringify(join(dist, 'node.js'))};
const plan = selectFragments([{ id: 'a', cost_tokens: 10, entities: ['x'] }], { entities: ['x'] }, { tokens_max: 100 }, { now: 0 });
console.log(plan.fragments.length);`,
    );
    const run = (allowed) =>
      spawnSync(process.execPath, ['--experimental-permission', ...allowed.map((p) => `--allow-fs-read=${p}`), script], { encoding: 'utf8' });
    const ok = run([script, join(dist, '*'), wasm]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), '1');
    // Without the .wasm the first plan fails: the package reads it, and only it.
    const denied = run([script, join(dist, '*')]);
    assert.notEqual(denied.status, 0);
    assert.match(denied.stderr, /ERR_ACCESS_DENIED/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
