// How sizes are measured, for bench/sizes.mjs (the budgets) and bench/cold.mjs (the sizes beside
// the cold start): what an `exports` entry adds to a user's bundle (esbuild, bundled and minified,
// the .wasm, `node:*`, ctxpack itself and the tokenizer peers external), and the .wasm, each
// gzipped at level 9.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { buildSync } = createRequire(join(root, 'pkg', 'package.json'))('esbuild');

export const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

/** `file` (relative to the package directory `pkg`, as `exports` names it) bundled and minified: `{ min, gzip }` in bytes. */
export function entrySize(pkg, file) {
  const result = buildSync({
    entryPoints: [join(pkg, file)],
    bundle: true,
    minify: true,
    write: false,
    format: file.endsWith('.cjs') ? 'cjs' : 'esm',
    platform: file.includes('node') ? 'node' : 'neutral',
    external: ['*.wasm', '*.wasm?module', 'node:*', 'ctxpack', 'js-tiktoken', 'js-tiktoken/*', 'gpt-tokenizer', 'gpt-tokenizer/*'],
    logLevel: 'error',
  });
  const bytes = result.outputFiles[0].contents;
  return { min: bytes.length, gzip: gz(bytes) };
}

/** The package's .wasm: `{ raw, gzip }` in bytes. */
export function wasmSize(pkg) {
  const bytes = readFileSync(join(pkg, 'wasm/ctxpack_bg.wasm'));
  return { raw: bytes.length, gzip: gz(bytes) };
}
