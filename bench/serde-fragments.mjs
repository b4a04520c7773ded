#!/usr/bin/env node
// `make bench`, the object path: fragment objects read by the shipped wasm (four structural
// getters) and by a build that reads them through serde-wasm-bindgen (`--features
// serde-fragments`, built by `make bench` into target/bench-serde), side by side in one process
// on the same objects; and what serde adds to the .wasm (function bodies by name in the
// unoptimised build, which keeps its name section).
//
//   node bench/serde-fragments.mjs [--write bench/RESULTS.md]   (appends its section)

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const SERDE_DIR = join(root, 'target/bench-serde/pkg');

async function load(dir) {
  const glue = await import(pathToFileURL(join(dir, 'ctxpack.js')).href);
  glue.initSync({ module: readFileSync(join(dir, 'ctxpack_bg.wasm')) });
  return glue;
}

const shipped = await load(join(root, 'pkg/wasm'));
const serde = await load(SERDE_DIR);

/** Deterministic fragments as a caller holds them: the four read properties and content never read. */
function fragments(n) {
  let seed = 42;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const kinds = ['tool', 'doc', 'msg', ''];
  return Array.from({ length: n }, (_, i) => ({
    id: `f${i}`,
    cost_tokens: 1 + Math.floor(rand() * 2000),
    score: Math.round(rand() * 1000) / 1000,
    kind: kinds[i % kinds.length],
    content: 'never read',
  }));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

const rows = [];
for (const n of [10_000, 100_000]) {
  const frags = fragments(n);
  const options = { targetTokens: n * 10 };
  const runs = { getters: [], serde: [] };
  const a = shipped.sliceObjects('greedy', frags, options);
  const b = serde.sliceObjectsSerde('greedy', frags, options);
  if (a.selected.join() !== b.selected.join()) throw new Error(`n = ${n}: the two readers select differently`);
  for (let round = 0; round < 15; round++) {
    for (const [name, run] of [
      ['getters', () => shipped.sliceObjects('greedy', frags, options)],
      ['serde', () => serde.sliceObjectsSerde('greedy', frags, options)],
    ]) {
      const t = performance.now();
      run();
      runs[name].push(performance.now() - t);
    }
  }
  const g = median(runs.getters);
  const s = median(runs.serde);
  rows.push({ n, g, s });
}

/** Sizes of function bodies in a wasm file with a name section, summed by name patterns. */
function codeByName(file, patterns) {
  const data = readFileSync(file);
  let i = 8;
  const leb = () => {
    let r = 0;
    let shift = 0;
    for (;;) {
      if (i >= data.length) throw new Error(`${file}: not a wasm module this script can read`);
      const x = data[i++];
      r += (x & 0x7f) * 2 ** shift;
      shift += 7;
      if (x < 0x80) return r;
    }
  };
  let imports = 0;
  const bodies = [];
  const names = new Map();
  while (i < data.length) {
    const id = data[i++];
    const size = leb();
    const end = i + size;
    if (id === 2) {
      const count = leb();
      for (let k = 0; k < count; k++) {
        // Module and field names (not `i += leb()`: that adds to `i` as it was before leb moved it).
        for (let name = 0; name < 2; name++) {
          const len = leb();
          i += len;
        }
        const kind = data[i++];
        if (kind === 0) { leb(); imports++; }
        else if (kind === 1) { i++; const flags = leb(); leb(); if (flags & 1) leb(); }
        else if (kind === 2) { const flags = leb(); leb(); if (flags & 1) leb(); }
        else if (kind === 3) i += 2;
        else leb();
      }
    } else if (id === 10) {
      const count = leb();
      for (let k = 0; k < count; k++) {
        const start = i;
        const len = leb();
        i += len;
        bodies.push(i - start);
      }
    } else if (id === 0) {
      const nameLen = leb();
      const name = data.subarray(i, i + nameLen).toString();
      i += nameLen;
      if (name === 'name') {
        while (i < end) {
          const sub = data[i++];
          const subSize = leb();
          const subEnd = i + subSize;
          if (sub === 1) {
            const count = leb();
            for (let k = 0; k < count; k++) {
              const idx = leb();
              const len = leb();
              names.set(idx, data.subarray(i, i + len).toString());
              i += len;
            }
          }
          i = subEnd;
        }
      }
    }
    i = end;
  }
  const total = bodies.reduce((t, b) => t + b, 0);
  let matched = 0;
  bodies.forEach((size, k) => {
    const name = names.get(k + imports) ?? '';
    if (patterns.some((p) => name.includes(p))) matched += size;
  });
  return { total, matched, named: names.size > 0 };
}

// The shipped build before wasm-bindgen (the Makefile's WASM_RAW: the crate is ctxpack-core).
const raw = join(root, 'target/wasm32-unknown-unknown/release/ctxpack_core.wasm');
// serde's own code, and Rust's float formatting, which only serde-wasm-bindgen's deserializer
// would bring (`Unexpected::Float`; the options have their own, src/wasm/de.rs): 0 is expected.
const attributed = codeByName(raw, ['serde']);
const floats = codeByName(raw, ['flt2dec', 'float_to_decimal', 'float_to_exponential']);
const shippedWasm = readFileSync(join(root, 'pkg/wasm/ctxpack_bg.wasm'));
const KB = (n) => `${(n / 1000).toFixed(1)} KB`;

const us = (ms, n) => ((ms * 1000) / n).toFixed(3);
const lines = [
  '',
  '## The object path: getters against serde-wasm-bindgen',
  '',
  'Written by `node bench/serde-fragments.mjs --write bench/RESULTS.md` (part of `make bench`, which builds the',
  'serde reader with `--features serde-fragments` into target/bench-serde): `sliceObjects(\'greedy\', …)` on the',
  'same `{ id, cost_tokens, score, kind, content }` objects, median of 15 alternating runs in one process.',
  '',
  '| n | four structural getters (shipped) | serde-wasm-bindgen `from_value` | µs per object, getters / serde | serde vs getters |',
  '|---:|---:|---:|---:|---:|',
  ...rows.map(({ n, g, s }) => `| ${n.toLocaleString('en')} | ${g.toFixed(1)} ms | ${s.toFixed(1)} ms | ${us(g, n)} / ${us(s, n)} | ${s > g ? '+' : ''}${(((s - g) / g) * 100).toFixed(0)} % |`),
  '',
  `What serde adds to the .wasm: ${attributed.named ? `${KB(attributed.matched)} of ${KB(attributed.total)} of code before wasm-opt is in functions named after serde or serde-wasm-bindgen (more is inlined into the boundary's own), and ${KB(floats.matched)} is Rust's float formatting` : 'the unoptimised build has no name section to attribute code by'}; the shipped .wasm is ${KB(shippedWasm.length)} raw, ${KB(gzipSync(shippedWasm, { level: 9 }).length)} gzipped.`,
  '',
];
const text = lines.join('\n');
process.stdout.write(text);
const w = process.argv.indexOf('--write');
if (w !== -1) {
  const file = process.argv[w + 1];
  const before = readFileSync(file, 'utf8');
  const cut = before.indexOf('\n## The object path: getters against serde-wasm-bindgen');
  writeFileSync(file, (cut === -1 ? before : before.slice(0, cut)).trimEnd() + '\n' + text);
}
