#!/usr/bin/env node
// `make bench`, cold start (issue 30): a fresh Node process imports ctxpack and makes its first
// `fitMessages` call on 4 messages, the way a serverless function's cold start does. Two ways of
// calling: at once (the call right after `await import`, in the same turn of the event loop) and
// after the event loop turned (the call 20 ms later, as a request reaches a function that was
// loaded before: work the import started in the background has had time to finish). This build
// and an earlier one side by side, the builds alternating (before, after, before, …) so that what
// else the machine does weighs on both alike; the medians over the processes. Beside the times:
// the .wasm and the main JS entry (`ctxpack` for Node's `import`), bundled, minified and gzipped
// as bench/sizes.mjs measures them. Nothing here asserts a time; the run fails if a build's first
// call keeps other messages than the other build's.
//
//   node bench/cold.mjs [--before <dir>] [--write bench/RESULTS.md] [--smoke]
//     <dir>: an earlier build's package directory (its dist/ and wasm/); without it this build
//     alone. `--smoke`: 2 processes per build and way (make test-bench).

import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { entrySize, wasmSize } from './size-of.mjs';
import { median } from './stats.mjs';
import { putSection } from './write-section.mjs';

const here = fileURLToPath(import.meta.url);
const root = dirname(dirname(here));
const SECTION = '## Cold start';
const RUNS = 25;
/** The issue's figures: import plus the first call, and the .wasm plus the main JS entry gzipped. */
const TARGET_MS = 10;
const TARGET_BYTES = 150_000;

const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant that answers briefly.' },
  { role: 'user', content: 'What is the capital of France?' },
  { role: 'assistant', content: 'Paris.' },
  { role: 'user', content: 'And of Germany?' },
];

/**
 * One cold start: the program a fresh process runs (`node --input-type=module -e`), importing
 * nothing before the package, so that the import pays for whatever it loads. It prints the import's
 * and the first call's elapsed times, the process's CPU time from the import to the end of the call
 * (every thread: V8 compiles on background threads; the wait included, as the work the import starts
 * in the background, the .wasm's compile and the warm-up call, runs in it) and what the call kept.
 */
const childProgram = (dir, later) => `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const c0 = cpu();
const t0 = performance.now();
const { fitMessages } = await import(${JSON.stringify(pathToFileURL(join(dir, 'dist/node.js')).href)});
const t1 = performance.now();
let t2 = t1;
${later ? 'await new Promise((r) => setTimeout(r, 20));\nt2 = performance.now();' : ''}
const result = fitMessages(${JSON.stringify(MESSAGES)}, { format: 'openai', budgets: { tokens_max: 1000 } });
const t3 = performance.now();
const c3 = cpu();
const kept = result.decisions.filter((d) => d.included).map((d) => d.index).join(',');
process.stdout.write(JSON.stringify({ importMs: t1 - t0, callMs: t3 - t2, cpuMs: c3 - c0, kept }));
`;

function run(dir, later) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', childProgram(dir, later)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cold start of ${dir}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

const ms = (x) => x.toFixed(1);
const KB = (n) => `${(n / 1000).toFixed(1)} KB`;

async function main(args) {
  const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const smoke = args.includes('--smoke');
  const runs = smoke ? 2 : RUNS;
  const builds = [];
  if (at('--before') !== undefined) builds.push({ name: 'before', dir: resolve(at('--before')) });
  builds.push({ name: 'this build', dir: join(root, 'pkg') });
  const failures = [];
  const loadBefore = os.loadavg()[0];
  for (const b of builds) {
    b.wasm = wasmSize(b.dir);
    b.entry = entrySize(b.dir, './dist/node.js');
    b.ways = { now: [], later: [] };
  }
  for (let i = 0; i < runs; i++) {
    for (const way of ['now', 'later']) for (const b of builds) b.ways[way].push(run(b.dir, way === 'later'));
  }
  const kept = new Set(builds.flatMap((b) => [...b.ways.now, ...b.ways.later].map((r) => r.kept)));
  if (kept.size !== 1) failures.push(`the first calls kept different messages: ${[...kept].join(' / ')}`);
  const rows = builds.map((b) => {
    const now = b.ways.now;
    const later = b.ways.later;
    const total = median(now.map((r) => r.importMs + r.callMs));
    const sum = b.wasm.gzip + b.entry.gzip;
    return {
      ...b,
      total,
      line:
        `| ${b.name} | ${ms(median(now.map((r) => r.importMs)))} | ${ms(median(now.map((r) => r.callMs)))} | **${ms(total)}** | ` +
        `${ms(median(now.map((r) => r.cpuMs)))} | ` +
        `${ms(median(later.map((r) => r.callMs)))} | ${ms(median(later.map((r) => r.importMs + r.callMs)))} | ${ms(median(later.map((r) => r.cpuMs)))} | ` +
        `${KB(b.wasm.gzip)} | ${KB(b.entry.gzip)} | **${KB(sum)}** |`,
      sum,
    };
  });
  const mine = rows[rows.length - 1];
  // The machine's load: elapsed times on a shared machine mean little when it exceeds its cores.
  const load = `load average ${loadBefore.toFixed(1)} before the run, ${os.loadavg()[0].toFixed(1)} after, on ${os.cpus().length} cores`;
  const section = `${SECTION}

Produced by \`node bench/cold.mjs${builds.length > 1 ? ' --before <dir>' : ''}\` (part of \`make bench\`), on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version} (${load}).${smoke ? ' **Smoke run**: the figures mean nothing.' : ''} A fresh Node process per figure: \`await import('ctxpack')\`, then the first \`fitMessages\` of 4 messages (OpenAI format), timed inside the process (Node's own start-up not included); medians of ${runs} processes per build and way, the builds alternating.${builds.length > 1 ? ` *before*: \`${builds[0].dir.startsWith(root) ? builds[0].dir.slice(root.length + 1) : builds[0].dir}\`.` : ''} *At once*: the call right after the import. *Later*: the call 20 ms after the import (the event loop turned, as when a request reaches a function loaded earlier; the wait is not counted). *CPU*: the process's CPU time from the import to the end of the call, every thread (V8 compiles on background threads), the wait included (what the import starts in the background runs in it: the .wasm's compile, and the warm-up call of core/instance.ts): on a busy machine it moves less than the elapsed times. Sizes: the .wasm, and \`ctxpack\` as Node's \`import\` resolves it (\`dist/node.js\`) bundled and minified, each gzipped at level 9 (bench/sizes.mjs).

| build | import (ms) | first call, at once (ms) | import + first call, at once (ms) | CPU, at once (ms) | first call, later (ms) | import + first call, later (ms) | CPU, later (ms) | .wasm gzipped | JS entry gzipped | sum |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.map((r) => r.line).join('\n')}

Targets (issue 30): import + first call at most ${TARGET_MS} ms: ${ms(mine.total)} ms, **${mine.total <= TARGET_MS ? 'met' : 'missed'}**; .wasm + JS entry at most ${KB(TARGET_BYTES)} gzipped: ${KB(mine.sum)}, **${mine.sum <= TARGET_BYTES ? 'met' : 'missed'}**.
`;
  putSection(section, SECTION, at('--write'), failures);
}

await main(process.argv.slice(2));
