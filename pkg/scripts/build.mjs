// Builds pkg/dist from pkg/src: one self-contained bundle per runtime (ESM for browsers, Node,
// workerd and Vercel Edge; CommonJS for require()), each with its own way of finding the .wasm,
// plus the .d.ts files from tsc. The .wasm itself stays one file in pkg/wasm, imported or read
// by the bundles, never inlined. The tokenizer adapters (dist/tokenizers/*) are bundles of their
// own that import their tokenizer, an optional peer dependency, and ctxpack itself (for
// CtxpackError) by name: neither is ever bundled into them.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
rmSync(join(root, 'dist'), { recursive: true, force: true });

// The glue wasm-bindgen generates keeps its one instance in module-level state and refuses a
// second `initSync` while it has one. bridge.ts discards an instance after a trap (and after a
// call that grew memory past the limit) and instantiates the same compiled module again, so the
// glue gets one more export: `__ctxpack_reset()` forgets the instance and every cache of it and
// returns the compiled module. Added once (the marker) each time wasm-bindgen rewrote the glue;
// the build fails if the glue no longer has the state the reset clears.
const GLUE = join(root, 'wasm', 'ctxpack.js');
const GLUE_TYPES = join(root, 'wasm', 'ctxpack.d.ts');
const RESET_MARKER = '// ctxpack: __ctxpack_reset';
{
  const glue = readFileSync(GLUE, 'utf8');
  if (!glue.includes(RESET_MARKER)) {
    const state = ['let wasmModule, wasmInstance, wasm;', 'let WASM_VECTOR_LEN = 0;', 'let __wbg_init_promise;', 'if (wasm !== undefined) return wasm;'];
    const caches = [...glue.matchAll(/^let (cached\w+Memory0) = null;$/gm)].map((m) => m[1]);
    const missing = state.filter((s) => !glue.includes(s));
    if (missing.length > 0 || caches.length === 0) {
      throw new Error(`pkg/wasm/ctxpack.js no longer has the shape __ctxpack_reset expects (missing: ${missing.join(' ') || 'cached memory views'}); update pkg/scripts/build.mjs`);
    }
    writeFileSync(GLUE, `${glue}
${RESET_MARKER} (added by pkg/scripts/build.mjs): forget the instance, keep the compiled module.
export function __ctxpack_reset() {
    const module = wasmModule;
    wasm = undefined;
    wasmInstance = undefined;
    wasmModule = undefined;
    WASM_VECTOR_LEN = 0;
    __wbg_init_promise = undefined;
${caches.map((c) => `    ${c} = null;`).join('\n')}
    return module;
}
`);
    writeFileSync(GLUE_TYPES, `${readFileSync(GLUE_TYPES, 'utf8')}
${RESET_MARKER}: forgets the instance and its caches; returns the compiled module (undefined before the first load).
export function __ctxpack_reset(): WebAssembly.Module | undefined;
`);
  }
}

// Types first: tsc checks everything and writes the declarations.
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--emitDeclarationOnly'], { stdio: 'inherit' });

// The same declarations for require(): in a "type": "module" package a .d.ts declares an ES
// module, so TypeScript (node16/nodenext) would take `require('ctxpack')` for a require of ESM
// (TS1479) though Node loads dist/node.cjs. Each .cjs entry gets CommonJS declarations of its own,
// as TypeScript's modules reference asks of dual packages: dist/cjs/**/*.d.cts, copies of the
// .d.ts files whose relative `./x.js` specifiers become `./x.cjs` (resolved to `./x.d.cts`).
// The adapters' type-only imports from their tokenizer become `import type … with
// { 'resolution-mode': 'import' }`: js-tiktoken declares only ES types (TS1541 from a CommonJS
// file otherwise), and these are types, which the ES declarations give alike (TypeScript ≥ 5.3).
const dts = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? dts(join(dir, e.name)) : e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []);
/** `import { type A, type B } from 'pkg';` or `import type { A, B } from 'pkg';`, for a bare 'pkg'. */
const typeOnlyImport = /^import (type )?\{([^}]*)\} from '([^.'][^']*)';$/gm;
const esmTypes = (line, typeKeyword, names, from) => {
  const list = names.split(',').map((n) => n.trim()).filter(Boolean);
  if (!typeKeyword && !list.every((n) => n.startsWith('type '))) return line;
  const bare = list.map((n) => n.replace(/^type /, '')).join(', ');
  return `import type { ${bare} } from '${from}' with { 'resolution-mode': 'import' };`;
};
for (const file of dts(join(root, 'dist'))) {
  const out = join(root, 'dist', 'cjs', relative(join(root, 'dist'), file).replace(/\.d\.ts$/, '.d.cts'));
  const text = readFileSync(file, 'utf8')
    .replace(/(['"])(\.\.?\/[^'"\n]*?)\.js\1/g, '$1$2.cjs$1')
    .replace(typeOnlyImport, esmTypes);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
}

/** Swaps the default (browser) loader for a runtime's own. */
const loader = (name) => ({
  name: 'ctxpack-loader',
  setup(b) {
    b.onResolve({ filter: /\/loaders\/browser\.js$/ }, () => ({ path: join(root, 'src/loaders', `${name}.ts`) }));
  },
});

// The public entries: `ctxpack` (the front doors) and the subpaths of the building blocks. They
// share one instance of the core (and one CtxpackError class), so each runtime's ESM build splits
// them into shared chunks, and the CommonJS entries read one shared bundle (esbuild cannot split
// CommonJS): dist/internal.cjs holds every module, each .cjs entry picks its names from it.
// `ai-sdk` imports only types from `ai` (an optional peer dependency): nothing of the SDK is bundled.
const ENTRIES = { index: 'src/index.ts', slicers: 'src/slicers.ts', acs: 'src/acs.ts', 'ai-sdk': 'src/ai-sdk.ts' };

const common = {
  bundle: true,
  target: 'es2022',
  external: ['*.wasm', '*.wasm?module', 'node:*'],
  legalComments: 'none',
  logLevel: 'warning',
};

// Output names per runtime: the front door keeps its historical name (dist/index.js for
// browsers, dist/node.js, dist/workerd.js, dist/edge-light.js), a subpath is `<prefix><name>.js`.
const targets = [
  { prefix: '', main: 'index', loader: 'browser', platform: 'neutral' },
  { prefix: 'node-', main: 'node', loader: 'node', platform: 'node' },
  { prefix: 'workerd-', main: 'workerd', loader: 'workerd', platform: 'neutral' },
  { prefix: 'edge-light-', main: 'edge-light', loader: 'edge-light', platform: 'neutral' },
];
for (const t of targets) {
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).map(([name, src]) => [name === 'index' ? t.main : `${t.prefix}${name}`, join(root, src)]));
  await build({
    ...common,
    entryPoints,
    format: 'esm',
    platform: t.platform,
    splitting: true,
    outdir: join(root, 'dist'),
    // Beside the entries, not in a folder: the loaders find ../wasm/ from the file their code is in.
    chunkNames: `${t.main}-chunk-[hash]`,
    plugins: [loader(t.loader)],
  });
}

// CommonJS: every module once, in dist/internal.cjs (an entry that re-exports all of them), then
// one small .cjs per entry with exactly that entry's names, read from its ES build.
const ALL = join(root, 'dist', '.all.ts');
writeFileSync(ALL, Object.values(ENTRIES).map((src) => `export * from ${JSON.stringify(join(root, src))};`).join('\n'));
await build({ ...common, entryPoints: [ALL], format: 'cjs', platform: 'node', outfile: join(root, 'dist', 'internal.cjs'), plugins: [loader('node-cjs')] });
rmSync(ALL);
for (const name of Object.keys(ENTRIES)) {
  const esm = await import(join(root, 'dist', name === 'index' ? 'node.js' : `node-${name}.js`));
  const names = Object.keys(esm).sort();
  const out = name === 'index' ? 'node.cjs' : `${name}.cjs`;
  writeFileSync(
    join(root, 'dist', out),
    `'use strict';\n// ctxpack${name === 'index' ? '' : `/${name}`} for require(): its names from the one shared bundle (scripts/build.mjs).\n` +
      `const all = require('./internal.cjs');\n` +
      names.map((n) => `exports.${n} = all.${n};`).join('\n') + '\n',
  );
}

// The tokenizer adapters: ESM and CommonJS, the tokenizer and ctxpack external.
const TOKENIZERS = { 'js-tiktoken': ['js-tiktoken'], 'gpt-tokenizer': ['gpt-tokenizer', 'gpt-tokenizer/*'] };
/** `../errors.js` from an adapter is ctxpack's own CtxpackError: import the package, so that `instanceof` holds. */
const errorsFromPackage = {
  name: 'ctxpack-errors-from-package',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/errors\.js$/ }, (args) =>
      args.importer.includes(`${join('src', 'tokenizers')}`) ? { path: 'ctxpack', external: true } : undefined,
    );
  },
};
for (const [name, external] of Object.entries(TOKENIZERS)) {
  for (const [format, ext] of [['esm', 'js'], ['cjs', 'cjs']]) {
    await build({
      entryPoints: [join(root, 'src/tokenizers', `${name}.ts`)],
      bundle: true,
      target: 'es2022',
      format,
      platform: 'neutral',
      external,
      plugins: [errorsFromPackage],
      outfile: join(root, 'dist/tokenizers', `${name}.${ext}`),
      legalComments: 'none',
      logLevel: 'warning',
    });
  }
}

// The package's README is the repository's: one source, copied at build time (pkg/README.md is
// build output, git-ignored; tests/bundlers checks that the packed tarball carries it unchanged).
copyFileSync(join(root, '..', 'README.md'), join(root, 'README.md'));
