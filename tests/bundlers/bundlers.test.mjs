// Every consumer builds a tiny app against the packed tarball and runs it for real: it must plan
// EXPECTED_IDS with no bundler configuration, or, where the tool cannot emit the .wasm by itself
// (esbuild and Rollup in browsers, a Node bundle without node_modules), fail with CtxpackError
// WASM_LOAD_FAILED naming the one line of configuration, and plan once that line is added.
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { EXPECTED_IDS } from './apps/shared/plan.js';
import { BIN, freshApp, HERE, installPacked, lastJson, launchChromium, run, SCRATCH, serveStatic, start, stop, stopAll, tool } from './harness.mjs';

let chromium;
before(async () => {
  installPacked();
  chromium = await launchChromium();
});
after(async () => {
  await chromium?.close();
  stopAll();
});

const planned = (result, what) => assert.deepEqual(result, { ok: true, ids: EXPECTED_IDS }, `${what}: ${JSON.stringify(result)}`);
const loadFailed = (result, hint, what) => {
  assert.equal(result.ok, false, `${what} planned without its .wasm: ${JSON.stringify(result)}`);
  assert.equal(result.name, 'CtxpackError', `${what}: ${JSON.stringify(result)}`);
  assert.equal(result.code, 'WASM_LOAD_FAILED', `${what}: ${JSON.stringify(result)}`);
  assert.ok(result.message.includes(hint), `${what}: the message should name ${hint}: ${result.message}`);
};

/** A free loopback port, for tools that want a number up front. */
function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Serves a browser build's output folder (with an index.html loading `script`) and plans in Chromium. */
async function planInChromium(outDir, script, { module = true, html = true, spaFallback = false } = {}) {
  if (html) writeFileSync(join(outDir, 'index.html'), `<!doctype html><meta charset="utf-8"><body><script ${module ? 'type="module" ' : ''}src="./${script}"></script>`);
  const server = await serveStatic(outDir, { spaFallback });
  try {
    return await chromium.visit(server.url);
  } finally {
    await server.close();
  }
}

const out = (name) => {
  const dir = join(SCRATCH, 'out', name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
};

test('Node without a bundler: ESM import and CommonJS require plan', () => {
  planned(lastJson(run(process.execPath, ['apps/node/main.mjs'])), 'import');
  planned(lastJson(run(process.execPath, ['apps/node/main.cjs'])), 'require');
});

test('Vite: production build in Chromium', async () => {
  const dir = out('vite');
  tool('vite', ['build', 'apps/browser', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn']);
  planned(await planInChromium(dir, null, { html: false }), 'vite build');
});

test('Vite: dev server in Chromium', async () => {
  const port = await freePort();
  const { child, url } = await start(process.execPath, [BIN.vite, 'apps/browser', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: SCRATCH,
    ready: /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/,
  });
  try {
    planned(await chromium.visit(url), 'vite dev');
  } finally {
    stop(child);
  }
});

for (const mode of ['production', 'development']) {
  test(`webpack 5: ${mode} build in Chromium`, async () => {
    const dir = out(`webpack-${mode}`);
    tool('webpack', ['--mode', mode, '--entry', './apps/browser/main.js', '--output-path', dir, '--no-stats']);
    planned(await planInChromium(dir, 'main.js', { module: false }), `webpack ${mode}`);
  });
}

test('Rollup: fails with WASM_LOAD_FAILED naming importMetaAssets(), plans with it', async () => {
  tool('rollup', ['-c', 'apps/browser/rollup.config.mjs', '--silent']);
  loadFailed(await planInChromium(join(SCRATCH, 'out/rollup'), 'main.js'), 'importMetaAssets()', 'rollup');
  tool('rollup', ['-c', 'apps/browser/rollup-assets.config.mjs', '--silent']);
  planned(await planInChromium(join(SCRATCH, 'out/rollup-assets'), 'main.js'), 'rollup + importMetaAssets');
});

test('esbuild browser: fails with WASM_LOAD_FAILED naming --loader:.wasm=file, plans with it', async () => {
  const plain = out('esbuild-browser');
  tool('esbuild', ['apps/browser/main.js', '--bundle', '--minify', '--format=esm', `--outdir=${plain}`, '--log-level=warning']);
  loadFailed(await planInChromium(plain, 'main.js'), '--loader:.wasm=file', 'esbuild browser');
  // A host that answers every missing path with index.html (status 200): still WASM_LOAD_FAILED, not a compile error.
  const spa = await planInChromium(plain, 'main.js', { spaFallback: true });
  loadFailed(spa, '--loader:.wasm=file', 'esbuild browser, single-page-app host');
  assert.match(spa.message, /got text\/html, not WebAssembly/);
  const configured = out('esbuild-browser-wasm-url');
  tool('esbuild', ['apps/browser/main-wasm-url.js', '--bundle', '--minify', '--format=esm', '--loader:.wasm=file', `--outdir=${configured}`, '--log-level=warning']);
  planned(await planInChromium(configured, 'main-wasm-url.js'), 'esbuild browser + file loader');
});

test('esbuild Node bundles (ESM, CommonJS, ESM source to CommonJS) plan; without node_modules, WASM_LOAD_FAILED, then plan with wasm/ copied', () => {
  const dir = out('esbuild-node');
  const bundles = [
    ['apps/node/main.mjs', 'esm', 'esm.mjs'],
    ['apps/node/main.cjs', 'cjs', 'cjs.cjs'],
    ['apps/node/main.mjs', 'cjs', 'esm-to-cjs.cjs'],
  ];
  const away = mkdtempSync(join(tmpdir(), 'ctxpack-bundle-alone-'));
  mkdirSync(join(away, 'dist'));
  mkdirSync(join(away, 'wasm'));
  copyFileSync(join(SCRATCH, 'node_modules/ctxpack/wasm/ctxpack_bg.wasm'), join(away, 'wasm/ctxpack_bg.wasm'));
  try {
    for (const [entry, format, file] of bundles) {
      const bundle = join(dir, file);
      tool('esbuild', [entry, '--bundle', '--minify', '--platform=node', `--format=${format}`, `--outfile=${bundle}`, '--log-level=error']);
      planned(lastJson(run(process.execPath, [bundle], { cwd: dir })), `esbuild node ${file}`);
      // The bundle alone, far from any node_modules: the error names the fix.
      copyFileSync(bundle, join(away, file));
      loadFailed(lastJson(run(process.execPath, [join(away, file)], { cwd: away })), '--external:ctxpack', `esbuild node ${file} without node_modules`);
      // One of the fixes it names: the .wasm copied to a wasm/ folder beside the bundle's folder.
      copyFileSync(bundle, join(away, 'dist', file));
      planned(lastJson(run(process.execPath, [join(away, 'dist', file)], { cwd: away })), `esbuild node ${file} with wasm/ copied beside`);
    }
  } finally {
    rmSync(away, { recursive: true, force: true });
  }
});

/** Requests a Next server's Node and edge routes and its client component page; each must plan. */
async function checkNext(base, what) {
  for (const route of ['api/node', 'api/edge']) {
    const res = await fetch(new URL(route, base));
    assert.equal(res.status, 200, `${what} ${route}: ${res.status} ${await res.clone().text()}`);
    planned(await res.json(), `${what} ${route}`);
  }
  planned(await chromium.visit(base), `${what} client component`);
}

/** Starts `next <args>` on a free loopback port in `app`, runs checkNext, always kills it. */
async function withNext(app, args, what) {
  const port = await freePort();
  const { child } = await start(process.execPath, [BIN.next, ...args, '-H', '127.0.0.1', '-p', String(port)], { cwd: app, ready: /Ready in/ });
  try {
    await checkNext(`http://127.0.0.1:${port}/`, what);
  } finally {
    stop(child);
  }
}

for (const bundler of ['turbopack', 'webpack']) {
  test(`Next.js (${bundler}): next build && next start, Node route, edge route, client component`, async () => {
    const app = freshApp('next', `next-${bundler}`);
    tool('next', ['build', `--${bundler}`], { cwd: app });
    await withNext(app, ['start'], `next ${bundler}`);
  });
}

test("Next.js (turbopack): output 'standalone' moved away from the project plans with the one tracing line; without the .wasm, the error names it", async () => {
  // The usual Docker / self-hosted setup: Next copies only the files its tracer finds into
  // .next/standalone, and it cannot see the .wasm that ctxpack reads at run time. The README's
  // line (outputFileTracingIncludes) adds it; here the path is relative to this app's folder,
  // whose node_modules are two folders up.
  const app = freshApp('next', 'next-standalone');
  const wasm = 'node_modules/ctxpack/wasm/ctxpack_bg.wasm';
  writeFileSync(
    join(app, 'next.config.mjs'),
    `export default { output: 'standalone', outputFileTracingRoot: ${JSON.stringify(HERE)}, outputFileTracingIncludes: { '/*': ['../../${wasm}'] } };\n`,
  );
  tool('next', ['build', '--turbopack'], { cwd: app });
  const away = mkdtempSync(join(tmpdir(), 'ctxpack-next-standalone-'));
  try {
    cpSync(join(app, '.next/standalone'), away, { recursive: true });
    const appDir = join(away, relative(HERE, app));
    cpSync(join(app, '.next/static'), join(appDir, '.next/static'), { recursive: true });
    const serve = async (what, check) => {
      const port = await freePort();
      const { child } = await start(process.execPath, ['server.js'], { cwd: appDir, env: { PORT: String(port), HOSTNAME: '127.0.0.1' }, ready: /Ready in/ });
      try {
        await check(`http://127.0.0.1:${port}/`, what);
      } finally {
        stop(child);
      }
    };
    await serve('next standalone', checkNext);
    rmSync(join(away, relative(HERE, join(SCRATCH, wasm))));
    await serve('next standalone without the .wasm', async (base, what) => {
      const res = await fetch(new URL('api/node', base));
      loadFailed(await res.json(), 'outputFileTracingIncludes', what);
    });
  } finally {
    rmSync(away, { recursive: true, force: true });
  }
});

test('Next.js (turbopack): next dev, Node route, edge route, client component', async () => {
  await withNext(freshApp('next', 'next-dev'), ['dev', '--turbopack'], 'next dev');
});
