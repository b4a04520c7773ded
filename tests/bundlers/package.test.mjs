// What the packed tarball itself must carry: the repository's README (pkg/README.md is copied from
// it at build time, never committed) and bundles whose inlined wasm-bindgen glue has no default
// .wasm URL, which webpack and Next resolved at build time though init always passes its own input.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PKG, ROOT, run } from './harness.mjs';

let dir;
let files;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxpack-tarball-'));
  const [{ filename, files: listed }] = JSON.parse(run('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', dir], { cwd: PKG }));
  files = listed.map((f) => f.path);
  run('tar', ['-xzf', join(dir, filename), '-C', dir]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the tarball ships README.md, identical to the repository README', () => {
  assert.ok(files.includes('README.md'), `README.md not packed: ${files.join(', ')}`);
  assert.equal(readFileSync(join(dir, 'package', 'README.md'), 'utf8'), readFileSync(join(ROOT, 'README.md'), 'utf8'));
});

test('the glue ships only inlined in the bundles, without its default .wasm URL (wasm-bindgen --omit-default-module-path)', () => {
  // wasm/ holds the .wasm alone: the glue's standalone copy is imported by nothing.
  assert.deepEqual(files.filter((f) => f.startsWith('wasm/')), ['wasm/ctxpack_bg.wasm']);
  // Only the browser build (its entries and their shared chunks, beside them in dist/) names the
  // .wasm by URL, relative to itself, for bundlers to emit; once.
  const dist = files.filter((f) => /^dist\/[^/]+\.c?js$/.test(f)).map((f) => f.slice('dist/'.length));
  const browserFiles = dist.filter((f) => /^(index|slicers|acs)\.js$|^index-chunk-/.test(f));
  assert.ok(browserFiles.includes('index.js') && browserFiles.some((f) => f.startsWith('index-chunk-')), dist.join(', '));
  for (const bundle of dist.filter((f) => !browserFiles.includes(f))) {
    assert.doesNotMatch(readFileSync(join(dir, 'package', 'dist', bundle), 'utf8'), /new URL\(/, bundle);
  }
  const urls = browserFiles.flatMap((f) => readFileSync(join(dir, 'package', 'dist', f), 'utf8').match(/new URL\([^)]*\)/g) ?? []);
  // The bundles are minified: the pattern without its spaces, which bundlers recognise alike.
  assert.deepEqual(urls, ['new URL("../wasm/ctxpack_bg.wasm",import.meta.url)']);
});
