#!/usr/bin/env node
// `make bench-compare`: this build against an earlier one, side by side in one run. The front
// doors (fitMessages, a session's turn, selectFragments) and the slicers at 20, 1,000 and 100,000
// fragments or items (histories: 20, 1,000 and 10,000 messages), generated from fixed seeds. Each
// measurement is a child process of its own that loads both builds and alternates their calls
// (before, after, before, after, …), so that what else the machine does weighs on both alike (a
// process per build swung by 2.5× on a loaded machine). Time: the median of the calls after up
// to 8 warm-up calls each. The same selection is required of both builds (the kept indexes or ids,
// compared by hash, where both builds size the items alike): a difference fails the run, a time
// never does.
//
//   node bench/compare.mjs --before <dir> [--write bench/RESULTS.md] [--smoke] [--only <case>,<case>…]
//     <dir>: an earlier build's package directory (its dist/ and wasm/, as pkg/ holds them);
//     make bench-compare builds one from a git revision (BEFORE=<rev>, default HEAD~1).
//   node bench/compare.mjs --child '<json>'   # one measurement (spawned below)

import { createHash } from 'node:crypto';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { rng } from '../pkg/test/rng.mjs';
import { importBuild, runChild } from './child.mjs';
import { putSection } from './write-section.mjs';

const here = fileURLToPath(import.meta.url);
const root = dirname(dirname(here));
const SECTION = '## Against the previous build';

// ---- what is measured ----

/** A generated tool-heavy agent history of about `n` messages (OpenAI format). */
async function history(n) {
  const { agentSession } = await import(pathToFileURL(join(root, 'pkg/test/agent-sessions.mjs')).href);
  // About 7 messages a round; the history is cut at a round's end so that every call has its result.
  const { messages } = agentSession(1, 'openai', Math.max(1, Math.ceil(n / 7)));
  let end = Math.min(n, messages.length);
  while (end < messages.length && messages[end].role !== 'user') end++;
  return messages.slice(0, end);
}

/** `n` fragments as the ACS planner takes them. */
function fragments(n) {
  const r = rng(7);
  const entities = ['auth', 'db', 'cache', 'queue', 'api', 'ui'];
  const now = Date.parse('2026-11-01T00:00:00Z');
  return Array.from({ length: n }, (_, i) => ({
    id: `f${i}`,
    cost_tokens: r.int(20, 600),
    kind: ['doc', 'code', 'chat'][i % 3],
    entities: [r.pick(entities), r.pick(entities)],
    timestamp: now - r.int(0, 30 * 86_400_000),
    citations: Array.from({ length: r.int(0, 3) }, (_, k) => `src${k}`),
  }));
}

/** `n` scored items for the slicer functions. */
function items(n) {
  const r = rng(11);
  return Array.from({ length: n }, (_, i) => ({ id: `i${i}`, tokens: r.int(1, 800), score: r.next() }));
}

/** {@link items} in groups of three (a tool call, its result, a note), every fifth with a shorter version. */
function structured(n) {
  const r = rng(13);
  return items(n).map((it, i) => {
    const out = { ...it, group: `g${Math.floor(i / 3)}` };
    if (i % 5 === 0) out.variants = [{ tokens: Math.max(1, it.tokens >> 3), score: it.score * r.next() }];
    return out;
  });
}

/**
 * The cases: each builds its input once, then `run(lib)` is timed; `kept(result)` is compared
 * across builds where `sizes(result)` (what each build counts the items as) are the same.
 */
const CASES = {
  // Histories stop at 10,000 messages: at 100,000 one fitMessages call of the earlier build took
  // minutes (the per-turn cost of long histories is issue 30's).
  fitMessages: {
    sizes: [20, 1_000, 10_000],
    input: history,
    budget: (n) => Math.max(2_000, n * 40),
    run: (lib, input, budget) => lib.fitMessages(input, { format: 'openai', budgets: { tokens_max: budget } }),
    kept: (r) => r.decisions.filter((d) => d.included).map((d) => d.index),
    counted: (r) => r.decisions.map((d) => d.cost_tokens),
  },
  // One tool result of about 100,000 tokens among a short history (issue 27: counting a huge text
  // result is no slower than before; it is truncated to the budget's share).
  'fitMessages (one tool result of n words)': {
    sizes: [100_000],
    size: (input, n) => n,
    input: async (n) => {
      const r = rng(5);
      const words = ['error', 'at', 'line', 'build', 'failed', 'module', 'src/app.ts', '42', 'warning', 'test'];
      const log = Array.from({ length: n }, () => r.pick(words)).join(' ');
      return [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Why does the build fail?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{"path":"build.log"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: log },
        { role: 'assistant', content: 'The log shows a failing module.' },
        { role: 'user', content: 'Which one?' },
      ];
    },
    budget: () => 16_000,
    run: (lib, input, budget) => lib.fitMessages(input, { format: 'openai', budgets: { tokens_max: budget } }),
    kept: (r) => r.decisions.filter((d) => d.included).map((d) => d.index),
    counted: (r) => r.decisions.map((d) => d.cost_tokens),
  },
  // A session's first fit: a restored session (a serverless function's), or an agent's first step
  // over a long history given at once.
  'session (first fit)': {
    sizes: [20, 1_000, 10_000],
    input: history,
    budget: (n) => Math.max(2_000, n * 40),
    prepare: (lib, input, budget) => ({ history: input, options: { format: 'openai', budgets: { tokens_max: budget }, cache: 'openai' } }),
    run: (lib, p) => {
      const session = lib.createSession(p.options);
      const t0 = performance.now();
      const r = session.fit(p.history);
      return { result: r, ms: performance.now() - t0 };
    },
    kept: (r) => r.decisions.filter((d) => d.included).map((d) => d.index),
    counted: (r) => r.decisions.map((d) => d.cost_tokens),
  },
  // A warm session's turn with a new question: the history without its last two rounds, then
  // without its last (a new question too: since 6e65503 the first new question after a first fit
  // builds the index the first fit no longer does), both untimed; then the last round's turn.
  'session turn': {
    sizes: [20, 1_000, 10_000],
    input: history,
    budget: (n) => Math.max(2_000, n * 40),
    prepare: (lib, input, budget) => {
      const roundStart = (end) => {
        let cut = end - 1;
        while (cut > 1 && input[cut].role !== 'user') cut--;
        return cut;
      };
      const last = roundStart(input.length);
      const earlier = roundStart(last);
      return { history: input, warm: [input.slice(0, earlier), input.slice(0, last)], options: { format: 'openai', budgets: { tokens_max: budget }, cache: 'openai' } };
    },
    run: (lib, p) => {
      const session = lib.createSession(p.options);
      for (const h of p.warm) session.fit(h);
      const t0 = performance.now();
      const r = session.fit(p.history);
      return { result: r, ms: performance.now() - t0 };
    },
    kept: (r) => r.decisions.filter((d) => d.included).map((d) => d.index),
    counted: (r) => r.decisions.map((d) => d.cost_tokens),
  },
  selectFragments: {
    sizes: [20, 1_000, 100_000],
    input: async (n) => fragments(n),
    budget: (n) => Math.max(500, n * 60),
    run: (lib, input, budget) => lib.selectFragments(input, { entities: ['auth', 'db'] }, { tokens_max: budget }, { now: Date.parse('2026-11-02T00:00:00Z') }),
    kept: (r) => r.fragments.map((f) => f.id),
  },
  greedySlice: {
    sizes: [20, 1_000, 100_000],
    input: async (n) => items(n),
    budget: (n) => Math.max(500, n * 80),
    run: (lib, input, budget) => lib.greedySlice(input, { targetTokens: budget }),
    kept: (r) => r.selected,
  },
  knapsackSlice: {
    sizes: [20, 1_000, 100_000],
    input: async (n) => items(n),
    // At most 50,000 tokens: the knapsack table grows with items × budget (its 64 MiB limit).
    budget: (n) => Math.min(50_000, Math.max(500, n * 80)),
    run: (lib, input, budget) => lib.knapsackSlice(input, { targetTokens: budget }),
    kept: (r) => r.selected,
  },
  'greedySlice (groups+variants)': {
    sizes: [20, 1_000, 100_000],
    input: async (n) => structured(n),
    budget: (n) => Math.max(500, n * 80),
    run: (lib, input, budget) => lib.greedySlice(input, { targetTokens: budget }),
    kept: (r) => r.decisions.filter((d) => d.included).map((d) => `${d.id}:${d.variant}`),
  },
  'knapsackSlice (groups)': {
    sizes: [20, 1_000, 100_000],
    input: async (n) => structured(n).map(({ variants: _v, ...it }) => it),
    budget: (n) => Math.min(50_000, Math.max(500, n * 80)),
    run: (lib, input, budget) => lib.knapsackSlice(input, { targetTokens: budget }),
    kept: (r) => r.selected,
  },
  exactKnapsackSlice: {
    sizes: [20, 1_000, 100_000],
    input: async (n) => items(n),
    // At most 50,000 tokens: the knapsack table grows with items × budget (its 64 MiB limit).
    budget: (n) => Math.min(50_000, Math.max(500, n * 80)),
    run: (lib, input, budget) => lib.exactKnapsackSlice(input, { targetTokens: budget }),
    kept: (r) => r.selected,
  },
};

// ---- one measurement, in a child ----

/** Untimed calls of each build before the timed ones (fewer when they take over 5 s). */
const WARM_CALLS = 8;
/**
 * Timed calls of each build at most, within 3 s: a call at 20 items takes tens of microseconds,
 * and the median of 200 of them (8 ms of calls) moved by 10-15 % between runs.
 */
const MAX_CALLS = 5_000;

async function child({ dirs, name, n, smoke }) {
  const c = CASES[name];
  const libs = await Promise.all(dirs.map(importBuild));
  const input = await c.input(n);
  const budget = c.budget(n);
  const prepared = libs.map((lib) => (c.prepare ? c.prepare(lib, input, budget) : input));
  const once = (k) => {
    if (c.prepare) return c.run(libs[k], prepared[k]);
    const t0 = performance.now();
    const result = c.run(libs[k], prepared[k], budget);
    return { result, ms: performance.now() - t0 };
  };
  // Warm-up: each module instantiated, its code paths compiled. One call is not enough: a
  // session's turn runs unoptimised for its first ten or so calls in a process (at 1,000
  // messages 20-70 ms against 2-14 ms once compiled), so up to WARM_CALLS each, within 5 s.
  const firsts = libs.map((_, k) => once(k));
  const warmUntil = performance.now() + (smoke ? 0 : 5_000);
  for (let w = 1; w < WARM_CALLS && performance.now() < warmUntil; w++) for (let k = 0; k < libs.length; k++) once(k);
  // The builds' calls alternate within the process, so that a busy machine weighs on both alike.
  const times = libs.map(() => []);
  const deadline = performance.now() + (smoke ? 0 : 3_000);
  do for (let k = 0; k < libs.length; k++) times[k].push(once(k).ms);
  while (times[0].length < (smoke ? 1 : 3) || (performance.now() < deadline && times[0].length < MAX_CALLS));
  const out = times.map((ts, k) => {
    ts.sort((a, b) => a - b);
    const hash = (value) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
    const r = firsts[k].result;
    return { ms: ts[ts.length >> 1], calls: ts.length, kept: hash(c.kept(r)), counted: c.counted ? hash(c.counted(r)) : '', messages: c.size ? c.size(input, n) : Array.isArray(input) ? input.length : n };
  });
  process.stdout.write(JSON.stringify(out));
}

// ---- the run ----

/** Both builds in one child process, their calls alternating: `[before, after]`. */
function measure(dirs, name, n, smoke) {
  return runChild(here, ['--child', JSON.stringify({ dirs, name, n, smoke })], { nodeArgs: ['--max-old-space-size=8192'] });
}

const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

async function main(args) {
  const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const before = at('--before');
  if (before === undefined) throw new Error('--before <dir>: an earlier build (its dist/ and wasm/); make bench-compare builds one');
  const beforeDir = resolve(before);
  const afterDir = join(root, 'pkg');
  const smoke = args.includes('--smoke');
  const rounds = smoke ? 1 : 3;
  const rows = [];
  const failures = [];
  const only = at('--only')?.split(',');
  for (const [name, c] of Object.entries(CASES)) {
    if (only !== undefined && !only.includes(name)) continue;
    for (const size of smoke ? [20, 1_000] : c.sizes) {
      const b = [];
      const a = [];
      for (let k = 0; k < rounds; k++) {
        // Each round a fresh process; which build is called first alternates between rounds.
        const [x, y] = k % 2 === 0 ? measure([beforeDir, afterDir], name, size, smoke) : measure([afterDir, beforeDir], name, size, smoke).reverse();
        b.push(x);
        a.push(y);
      }
      const med = (xs) => xs.map((x) => x.ms).sort((p, q) => p - q)[xs.length >> 1];
      // A selection is compared only when both builds count the items alike: messages are
      // sized by the build (the estimator and each provider's framing changed after fe14830).
      const alike = a[0].counted === b[0].counted;
      const row = { name, n: a[0].messages, before: med(b), after: med(a), same: a[0].kept === b[0].kept, alike };
      if (alike && !row.same) failures.push(`${name} n=${row.n}: the builds keep different items`);
      rows.push(row);
      process.stderr.write(`compare: ${name} n=${row.n}: before ${ms(row.before)} ms, after ${ms(row.after)} ms${!alike ? ' (sized differently)' : row.same ? '' : ' DIFFERENT SELECTION'}\n`);
    }
  }
  const rev = at('--before-rev');
  const section = `${SECTION}

Produced by \`make bench-compare\` (\`node bench/compare.mjs --before <dir>\`)${rev ? `, the earlier build being \`${rev}\`` : ''}, on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}.${smoke ? ' **Smoke run**: the figures mean nothing.' : ''} Both builds run in the same process, their calls alternating (up to ${WARM_CALLS} untimed warm-up calls each first, within 5 s), so that a busy machine weighs on both alike; each figure is the median of those calls, then the median of ${rounds} such processes (which build goes first alternates). Inputs: a generated tool-heavy agent history (OpenAI format; budget 40 tokens a message, at least 2,000), fragments with entities and timestamps, scored items. "Same" compares what each build keeps.

| call | n | before (ms) | after (ms) | after / before | same selection |
|---|---:|---:|---:|---:|---|
${rows.map((r) => `| ${r.name} | ${r.n.toLocaleString('en-US')} | ${ms(r.before)} | ${ms(r.after)} | ${(r.after / r.before).toFixed(2)} | ${!r.alike ? 'sized differently' : r.same ? 'yes' : '**no**'} |`).join('\n')}
${rows.some((r) => !r.alike) ? `
*Sized differently*: the builds count the same messages as different sizes (each message's \`cost_tokens\`), so what they keep is not compared: since \`fe14830\` the estimator counts whitespace and some scripts as byte-pair vocabularies do, and each provider's framing of a message is counted as that provider frames it. Where the sizes are the same, a different selection fails the run.
` : ''}`;
  putSection(section, SECTION, at('--write'), failures);
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(JSON.parse(args[1]));
else await main(args);
