#!/usr/bin/env node
// `make bench`, sizes: the packed tarball (what `npm install ctxpack` downloads) and, for every
// JavaScript file package.json `exports` points at, what it adds to a user's bundle: esbuild,
// minified, gzipped (level 9), with the .wasm and the optional tokenizer peers left external (the
// .wasm is counted on its own line, and beside each entry that loads it: the entry plus the .wasm
// is what a cold start downloads and compiles). Fails when a size is over its budget below.
//
//   node bench/sizes.mjs [--write bench/SIZES.md]

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { entryComposition, entrySize, wasmCodeByModule, wasmSections, wasmSize } from './size-of.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const pkg = join(root, 'pkg');

/**
 * Budgets in bytes, gzipped but the tarball's. An entry that loads the core: itself plus the .wasm
 * at most 150 KB (issue 30's figure for the main entry, held for every entry). The tokenizer
 * adapters load nothing of the core (they import `ctxpack` by name): about 15 % over their size
 * when it was set, as the tarball's.
 */
const BUDGET = { tarball: 420_000, entryWithWasmGzip: 150_000, tokenizerGzip: 1_500 };

const KB = (n) => `${(n / 1000).toFixed(1)} KB`;

// The tarball, as npm packs it.
const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: pkg, encoding: 'utf8' }));

// Every JS target of `exports`, with the conditions that lead to it.
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const targets = [];
const walk = (subpath, node, conditions) => {
  if (typeof node === 'string') {
    if (/\.c?js$/.test(node)) targets.push({ subpath, conditions: conditions.join(' → ') || '(any)', file: node });
    return;
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'types') walk(subpath, value, [...conditions, key]);
};
for (const [subpath, node] of Object.entries(manifest.exports)) walk(subpath, node, []);

const rows = targets.map(({ subpath, conditions, file }) => {
  const core = !subpath.startsWith('./tokenizers/');
  return { subpath, conditions, file, ...entrySize(pkg, file), core };
});
const { raw: wasmRaw, gzip: wasmGzip } = wasmSize(pkg);
for (const r of rows) {
  r.counted = r.core ? r.gzip + wasmGzip : r.gzip;
  r.budget = r.core ? BUDGET.entryWithWasmGzip : BUDGET.tokenizerGzip;
}

const over = [];
if (packed.size > BUDGET.tarball) over.push(`tarball ${KB(packed.size)} > ${KB(BUDGET.tarball)}`);
for (const r of rows) {
  if (r.counted > r.budget) over.push(`${r.subpath} (${r.conditions}) ${KB(r.counted)} gz${r.core ? ' with the .wasm' : ''} > ${KB(r.budget)}`);
}

const lines = [
  '# Sizes',
  '',
  'Written by `node bench/sizes.mjs --write bench/SIZES.md` (part of `make bench`); budgets in the script, which fails when one is exceeded.',
  '',
  `- packed tarball (\`npm pack\`): **${KB(packed.size)}** (budget ${KB(BUDGET.tarball)}); unpacked ${KB(packed.unpackedSize)} in ${packed.entryCount} files`,
  `- \`wasm/ctxpack_bg.wasm\`: ${KB(wasmRaw)} raw, **${KB(wasmGzip)}** gzipped, shared by every entry below but the tokenizer adapters`,
  '',
  `Each entry bundled by esbuild, minified, gzipped; the .wasm, \`node:*\` and the tokenizer peers external. Budget: an entry that loads the core, with the .wasm, at most ${KB(BUDGET.entryWithWasmGzip)} (issue 30); a tokenizer adapter alone, ${KB(BUDGET.tokenizerGzip)}:`,
  '',
  '| export | conditions | file | minified | gzipped | with the .wasm | budget |',
  '|---|---|---|---:|---:|---:|---:|',
  ...rows.map((r) => `| \`${r.subpath}\` | ${r.conditions} | \`${r.file}\` | ${KB(r.min)} | ${KB(r.gzip)} | ${r.core ? `**${KB(r.counted)}**` : '—'} | ${KB(r.budget)} |`),
  '',
];

// Where the bytes are: the .wasm by section, its code by Rust module (from the copy with names
// `make wasm` keeps, when there is one), the main entry by source module.
const wasmBytes = readFileSync(join(pkg, 'wasm/ctxpack_bg.wasm'));
const sections = wasmSections(wasmBytes).filter((x) => x.raw >= 1000);
const named = join(root, 'target/ctxpack_bg.names.wasm');
const byModule = existsSync(named) ? wasmCodeByModule(readFileSync(named)) : [];
const codeTotal = byModule.reduce((sum, g) => sum + g.raw, 0);
const composition = await entryComposition(pkg, 'src/index.ts');
const jsTotal = composition.reduce((sum, c) => sum + c.bytes, 0);
const pct = (n, total) => `${((100 * n) / total).toFixed(1)} %`;
lines.push(
  '## Where the bytes are',
  '',
  `The .wasm by section (over 1 KB): ${sections.map((x) => `${x.name} ${KB(x.raw)} raw, ${KB(x.gzip)} gzipped`).join('; ')}.`,
  '',
);
if (byModule.length > 0) {
  lines.push(
    `Its code by Rust module, from the function names of wasm-bindgen's output before wasm-opt (\`target/ctxpack_bg.names.wasm\`, kept by \`make wasm\`; ${KB(codeTotal)} of function bodies there, ${KB(sections.find((x) => x.name === 'code')?.raw ?? 0)} of code after wasm-opt), the modules of at least 2 KB:`,
    '',
    '| module | functions | bytes | share |',
    '|---|---:|---:|---:|',
    ...byModule.filter((g) => g.raw >= 2000).map((g) => `| \`${g.group}\` | ${g.count} | ${KB(g.raw)} | ${pct(g.raw, codeTotal)} |`),
    '',
  );
}
lines.push(
  `The main entry (\`src/index.ts\`, bundled and minified for Node: ${KB(jsTotal)}) by source module, the 15 largest:`,
  '',
  '| module | bytes | share |',
  '|---|---:|---:|',
  ...composition.slice(0, 15).map((c) => `| \`${c.input}\` | ${KB(c.bytes)} | ${pct(c.bytes, jsTotal)} |`),
  '',
);

// What is written by hand below the marker (the findings) is kept as it is.
const MARKER = '<!-- Written by hand from here on; bench/sizes.mjs keeps it. -->';
const out = process.argv.indexOf('--write');
const target = out !== -1 ? join(process.cwd(), process.argv[out + 1]) : undefined;
const previous = target && existsSync(target) ? readFileSync(target, 'utf8') : '';
const kept = previous.includes(MARKER) ? previous.slice(previous.indexOf(MARKER)) : `${MARKER}\n`;
const text = `${lines.join('\n')}\n${kept}`;
process.stdout.write(text);
if (target) writeFileSync(target, text);
if (over.length) {
  console.error(`over budget: ${over.join('; ')}`);
  process.exit(1);
}
