// Runs a Worker source file in workerd (through miniflare) with the package bundled the way
// wrangler bundles it: conditions workerd/worker/browser, the .wasm imported as a compiled module.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

const pkgRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * Bundles `source` against the package and starts it; returns { dispatch, bundlePath, dispose }.
 * `nodeCompat`: as a Worker with the `nodejs_compat` flag (what LangChain needs): `node:*` left to
 * workerd, and packages without `exports` resolved by their main fields, as wrangler does.
 */
export async function startWorker(source, { nodeCompat = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxpack-worker-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(pkgRoot, join(dir, 'node_modules', 'ctxpack'), 'dir');
  const out = join(dir, 'dist');
  await build({
    entryPoints: [source],
    // 'ctxpack' resolves through the link, as an installed dependency would.
    nodePaths: [join(dir, 'node_modules')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    loader: { '.wasm': 'copy' },
    ...(nodeCompat ? { mainFields: ['browser', 'module', 'main'], external: ['node:*'] } : {}),
    outdir: out,
    logLevel: 'warning',
  });
  const bundlePath = join(out, basename(source));
  const mf = new Miniflare({
    modules: true,
    scriptPath: bundlePath,
    modulesRoot: out,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    ...(nodeCompat ? { compatibilityFlags: ['nodejs_compat'] } : {}),
  });
  return {
    bundlePath,
    /** POSTs `body` as JSON; resolves with { status, json }. */
    async dispatch(body) {
      const res = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify(body) });
      return { status: res.status, json: await res.json() };
    },
    async dispose() {
      await mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
