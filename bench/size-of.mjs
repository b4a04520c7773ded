// How sizes are measured, for bench/sizes.mjs (the budgets) and bench/cold.mjs (the sizes beside
// the cold start): what an `exports` entry adds to a user's bundle (esbuild, bundled and minified,
// the .wasm, `node:*`, ctxpack itself and the tokenizer peers external), and the .wasm, each
// gzipped at level 9.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { build, buildSync } = createRequire(join(root, 'pkg', 'package.json'))('esbuild');

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

/** The sections of a .wasm: `[{ name, raw, gzip }]` (custom sections as `custom:<name>`). */
export function wasmSections(bytes) {
  const out = [];
  walkSections(bytes, (id, start, end, customName) => {
    const names = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'];
    out.push({ name: id === 0 ? `custom:${customName}` : names[id] ?? `section ${id}`, raw: end - start, gzip: gz(bytes.subarray(start, end)) });
  });
  return out;
}

/**
 * Where a .wasm's code goes, from its `name` section (wasm-bindgen's output keeps it; `make wasm`
 * copies it to target/ctxpack_bg.names.wasm before wasm-opt strips the names): each function's body
 * size, grouped by the Rust module it comes from (`ctxpack_core::slicers::exact`, `core::slice`,
 * `dlmalloc`…). `[{ group, raw, count }]`, largest first; the body sizes are before wasm-opt.
 */
export function wasmCodeByModule(bytes) {
  let imported = 0;
  const bodies = [];
  const names = new Map();
  walkSections(bytes, (id, start, end, customName, r) => {
    if (id === 2) {
      r.p = start;
      const n = r.leb();
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < 2; k++) {
          const len = r.leb(); // the module's name, then the field's
          r.p += len;
        }
        const kind = bytes[r.p++];
        if (kind === 0) { r.leb(); imported++; } else if (kind === 1) { r.p++; if (bytes[r.p++] & 1) { r.leb(); r.leb(); } else r.leb(); } else if (kind === 2) { if (bytes[r.p++] & 1) { r.leb(); r.leb(); } else r.leb(); } else if (kind === 3) r.p += 2; else if (kind === 4) { r.p++; r.leb(); }
      }
    } else if (id === 10) {
      r.p = start;
      const n = r.leb();
      for (let i = 0; i < n; i++) { const len = r.leb(); bodies.push(len); r.p += len; }
    } else if (id === 0 && customName === 'name') {
      while (r.p < end) {
        const sub = bytes[r.p++];
        const len = r.leb();
        const next = r.p + len;
        if (sub === 1) {
          const n = r.leb();
          for (let i = 0; i < n; i++) { const index = r.leb(); const l = r.leb(); names.set(index, Buffer.from(bytes.subarray(r.p, r.p + l)).toString()); r.p += l; }
        }
        r.p = next;
      }
    }
  });
  const groups = new Map();
  bodies.forEach((raw, i) => {
    const group = moduleOf(names.get(i + imported) ?? '');
    const g = groups.get(group) ?? { group, raw: 0, count: 0 };
    g.raw += raw;
    g.count++;
    groups.set(group, g);
  });
  return [...groups.values()].sort((a, b) => b.raw - a.raw);
}

/** The module a (demangled) function name comes from: the first crate path in it, two levels deep. */
function moduleOf(name) {
  const clean = name.replace(/\[[0-9a-f]+\]/g, '');
  const own = clean.match(/\bctxpack_core::([A-Za-z_0-9]+)/);
  if (own) return `ctxpack_core::${own[1]}`;
  const path = clean.match(/\b(ctxpack_core|core|alloc|std|serde_core|serde|serde_wasm_bindgen|wasm_bindgen|js_sys|dlmalloc|hashbrown|siphasher|compiler_builtins)::([A-Za-z_0-9]+)/);
  if (path) return ['ctxpack_core', 'core', 'alloc', 'std'].includes(path[1]) ? `${path[1]}::${path[2]}` : path[1];
  if (/^__wbg|wbindgen|externref/.test(clean)) return 'wasm_bindgen';
  return name === '' ? '(unnamed)' : '(other)';
}

function walkSections(bytes, visit) {
  const r = {
    p: 8,
    leb() {
      let v = 0;
      let shift = 0;
      let b;
      do { b = bytes[this.p++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
      return v;
    },
  };
  while (r.p < bytes.length) {
    const id = bytes[r.p++];
    const len = r.leb();
    const start = r.p;
    let customName;
    if (id === 0) { const l = r.leb(); customName = Buffer.from(bytes.subarray(r.p, r.p + l)).toString(); r.p += l; }
    visit(id, start, start + len, customName, r);
    r.p = start + len;
  }
}

/**
 * What an entry is made of, by source module: `src` (relative to `pkg`, `src/index.ts`) bundled
 * and minified as pkg/scripts/build.mjs builds it for Node (the Node loader swapped in), through
 * esbuild's metafile. `[{ input, bytes }]`, the minified bytes each module adds, largest first.
 */
export async function entryComposition(pkg, src) {
  const nodeLoader = {
    name: 'node-loader',
    setup(b) {
      b.onResolve({ filter: /\/loaders\/browser\.js$/ }, () => ({ path: join(pkg, 'src/loaders/node.ts') }));
    },
  };
  const result = await build({
    entryPoints: [join(pkg, src)],
    bundle: true,
    minify: true,
    write: false,
    metafile: true,
    outdir: join(pkg, 'dist'),
    format: 'esm',
    platform: 'node',
    external: ['*.wasm', '*.wasm?module', 'node:*'],
    plugins: [nodeLoader],
    logLevel: 'error',
  });
  const [output] = Object.values(result.metafile.outputs).filter((o) => o.entryPoint);
  return Object.entries(output.inputs).map(([input, v]) => ({ input: relative(pkg, join(process.cwd(), input)), bytes: v.bytesInOutput })).sort((a, b) => b.bytes - a.bytes);
}
