// The public TypeScript types, checked by compiling a fixture against dist/*.d.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

test('the public types accept what they should and reject what they should', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const fixture = fileURLToPath(new URL('./fixtures/public-types.ts', import.meta.url));
  const args = [tsc, '--noEmit', '--strict', '--exactOptionalPropertyTypes', '--target', 'es2022', '--module', 'es2022'];
  args.push('--moduleResolution', 'bundler', '--skipLibCheck', fixture);
  try {
    execFileSync(process.execPath, args, { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
  }
});

// The package as packed and installed into a CommonJS project (no "type"), compiled as TypeScript
// under node16 resolution: a .cts file `require`s it (import = require, and import, which compiles
// to require) and a .mts file imports it. The require condition must give CommonJS declarations
// (dist/cjs/index.d.cts): ES declarations there are TS1479 ("The current file is a CommonJS module
// whose imports will produce 'require' calls; however, the referenced file is an ECMAScript
// module") — arethetypeswrong's "masquerading as ESM". No --skipLibCheck: the .d.cts files
// themselves are checked, so a broken specifier in them fails too.
test('CommonJS and ES TypeScript consumers under node16 get declarations of their own module format', async (t) => {
  const { installPacked, pkgRoot } = await import('../test-edge/packed.mjs');
  const installed = installPacked({ prefix: 'ctxpack-types-' });
  t.after(() => installed.cleanup());
  const { app } = installed;
  // The optional peers, for the adapters' declarations: linked from pkg/node_modules.
  for (const dep of ['js-tiktoken', 'gpt-tokenizer', 'ai', '@openai', 'langchain', '@langchain', '@mastra', 'zod', 'langsmith']) {
    symlinkSync(join(pkgRoot, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
  }
  for (const f of ['cjs-consumer.cts', 'esm-consumer.mts', 'ai-sdk-consumer.cts', 'ai-sdk-consumer.mts', 'openai-agents-consumer.cts', 'openai-agents-consumer.mts', 'langchain-consumer.cts', 'langchain-consumer.mts', 'mastra-consumer.cts', 'mastra-consumer.mts']) copyFileSync(fileURLToPath(new URL(`./fixtures/${f}`, import.meta.url)), join(app, f));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compile = (files = ['cjs-consumer.cts', 'esm-consumer.mts'], extra = []) => {
    const args = [tsc, '--noEmit', '--strict', '--exactOptionalPropertyTypes', '--target', 'es2022', '--module', 'node16', '--moduleResolution', 'node16', ...extra];
    args.push('--listFiles', ...files);
    try {
      return { ok: true, out: execFileSync(process.execPath, args, { cwd: app, encoding: 'utf8', stdio: 'pipe' }) };
    } catch (err) {
      return { ok: false, out: `${err.stdout}${err.stderr}` };
    }
  };

  const r = compile();
  assert.ok(r.ok, `tsc reported errors:\n${r.out}`);
  const files = r.out.split('\n').map((l) => l.trim().replaceAll('\\', '/'));
  const has = (suffix) => files.some((f) => f.endsWith(`/node_modules/ctxpack/${suffix}`));
  for (const f of ['dist/cjs/index.d.cts', 'dist/cjs/errors.d.cts', 'dist/cjs/tokenizers/js-tiktoken.d.cts', 'dist/cjs/tokenizers/gpt-tokenizer.d.cts']) assert.ok(has(f), `${f} was not used`);
  for (const f of ['dist/index.d.ts', 'dist/tokenizers/js-tiktoken.d.ts', 'dist/tokenizers/gpt-tokenizer.d.ts']) assert.ok(has(f), `${f} was not used`);

  // ctxpack/ai-sdk with the AI SDK installed. --skipLibCheck: the SDK's own declarations need
  // Node's types and fail strict checks of their own; the fixtures' @ts-expect-error lines show
  // that ours resolved the SDK's types (an unresolved import would make them `any`).
  const ai = compile(['ai-sdk-consumer.cts', 'ai-sdk-consumer.mts'], ['--skipLibCheck']);
  assert.ok(ai.ok, `tsc reported errors:\n${ai.out}`);
  const aiFiles = ai.out.split('\n').map((l) => l.trim().replaceAll('\\', '/'));
  for (const f of ['dist/cjs/ai-sdk.d.cts', 'dist/ai-sdk.d.ts']) assert.ok(aiFiles.some((l) => l.endsWith(`/node_modules/ctxpack/${f}`)), `${f} was not used`);
  // ctxpack/openai-agents with the Agents SDK installed, likewise.
  const agents = compile(['openai-agents-consumer.cts', 'openai-agents-consumer.mts'], ['--skipLibCheck']);
  assert.ok(agents.ok, `tsc reported errors:\n${agents.out}`);
  const agentsFiles = agents.out.split('\n').map((l) => l.trim().replaceAll('\\', '/'));
  for (const f of ['dist/cjs/openai-agents.d.cts', 'dist/openai-agents.d.ts']) assert.ok(agentsFiles.some((l) => l.endsWith(`/node_modules/ctxpack/${f}`)), `${f} was not used`);

  // ctxpack/langchain with langchain installed, likewise.
  const lc = compile(['langchain-consumer.cts', 'langchain-consumer.mts'], ['--skipLibCheck']);
  assert.ok(lc.ok, `tsc reported errors:\n${lc.out}`);
  const lcFiles = lc.out.split('\n').map((l) => l.trim().replaceAll('\\', '/'));
  for (const f of ['dist/cjs/langchain.d.cts', 'dist/langchain.d.ts']) assert.ok(lcFiles.some((l) => l.endsWith(`/node_modules/ctxpack/${f}`)), `${f} was not used`);

  // ctxpack/mastra with @mastra/core installed, likewise.
  const ma = compile(['mastra-consumer.cts', 'mastra-consumer.mts'], ['--skipLibCheck']);
  assert.ok(ma.ok, `tsc reported errors:\n${ma.out}`);
  const maFiles = ma.out.split('\n').map((l) => l.trim().replaceAll('\\', '/'));
  for (const f of ['dist/cjs/mastra.d.cts', 'dist/mastra.d.ts']) assert.ok(maFiles.some((l) => l.endsWith(`/node_modules/ctxpack/${f}`)), `${f} was not used`);

  // The control: the same project with one declaration file for both conditions fails as it used to.
  const manifestPath = join(app, 'node_modules', 'ctxpack', 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.exports['.'].types = manifest.exports['.'].types.default;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const control = compile();
  assert.equal(control.ok, false);
  assert.match(control.out, /cjs-consumer\.cts.*error TS1479/);
});

// arethetypeswrong (dev-only, offline on the packed tarball): every entry point resolves to
// declarations of the right module format under node10 (moduleResolution "node", which ignores
// `exports`: package.json's `typesVersions` maps the tokenizer subpaths for it), node16 (from
// CommonJS and from ESM) and bundler resolution: attw's strict profile.
test('arethetypeswrong finds no problem in the packed package (node10, node16 from CJS and ESM, bundler)', async (t) => {
  const { packInto } = await import('../test-edge/packed.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'ctxpack-attw-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tarball = packInto(dir);
  const require = createRequire(import.meta.url);
  const attw = join(dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist', 'index.js');
  let out;
  try {
    out = execFileSync(process.execPath, [attw, '--exclude-entrypoints', 'ctxpack_bg.wasm', '--format', 'json', tarball], { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    assert.fail(`attw reported problems:\n${err.stdout}${err.stderr}`);
  }
  const { analysis, problems } = JSON.parse(out);
  assert.deepEqual(Object.keys(analysis.entrypoints).sort(), ['.', './acs', './ai-sdk', './langchain', './mastra', './openai-agents', './package.json', './slicers', './tokenizers/gpt-tokenizer', './tokenizers/js-tiktoken']);
  const beyondNode10 = Object.values(problems).flat().filter((p) => p.resolutionKind !== 'node10');
  assert.deepEqual(beyondNode10, []);
  const root = analysis.entrypoints['.'].resolutions;
  assert.equal(root['node16-cjs'].resolution.fileName, '/node_modules/ctxpack/dist/cjs/index.d.cts');
  assert.equal(root['node16-esm'].resolution.fileName, '/node_modules/ctxpack/dist/index.d.ts');
});
