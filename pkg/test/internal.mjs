// The package's @internal modules for tests and the bench: bundled on the fly from src/ with the
// Node loader (as scripts/build.mjs bundles dist/node.js), since dist/ holds only the public entry
// points. The bundle finds the .wasm in pkg/wasm as dist/node.js does.
import { build } from 'esbuild';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Imports `exports` (an ES module's source, paths relative to pkg/) bundled with the Node loader. */
export async function importInternal(source) {
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    external: ['*.wasm', 'node:*'],
    logLevel: 'warning',
    // The loader looks for ../wasm beside the module: pretend to be dist/node.js.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(root, 'dist', 'node.js')).href) },
    plugins: [
      {
        name: 'ctxpack-node-loader',
        setup(b) {
          b.onResolve({ filter: /\/loaders\/browser\.js$/ }, () => ({ path: join(root, 'src/loaders/node.ts') }));
        },
      },
    ],
  });
  const file = join(mkdtempSync(join(tmpdir(), 'ctxpack-internal-')), 'bundle.mjs');
  writeFileSync(file, result.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

/** src/tokens/media.ts and the bridge's media calls. */
export const importMedia = () =>
  importInternal(
    "export * from './src/tokens/media.ts';\n" +
      "export { imageSize, imageSizeBase64, imageTokens, pdfPages, pdfTokens } from './src/core/media-bridge.ts';\n" +
      "export { wasmMemoryBytes } from './src/core/bridge.ts';\n" +
      "export { CtxpackError } from './src/errors.ts';\n",
  );

/** A session's structure passes (src/messages/structure-memo.ts) and what they are checked against. */
export const importStructure = () =>
  importInternal(
    "export { HistoryMemo } from './src/messages/history.ts';\n" +
      "export { historyStructure } from './src/messages/structure-memo.ts';\n" +
      "export { prepareFit } from './src/messages/pipeline.ts';\n" +
      "export { adapterOf } from './src/messages/formats.ts';\n" +
      "export { readTurn } from './src/messages/turns.ts';\n",
  );

/** `createSession` and `fitMessages` from src/, with the switch of BM25's direct path for short histories (src/messages/relevance.ts `setDirectChars`). */
export const importRelevance = () =>
  importInternal(
    "export { createSession } from './src/session/session.ts';\n" +
      "export { fitMessages } from './src/messages/fit.ts';\n" +
      "export { setDirectChars } from './src/messages/relevance.ts';\n",
  );
