#!/usr/bin/env node
// `make bench`, issue 30 at scale (after bench/sessions.mjs): a turn costs what is new, measured
// over whole long sessions, side by side with an earlier build in one run. Generated tool-heavy
// OpenAI agent histories (pkg/test/agent-sessions.mjs, seed 1, whole rounds), `estimateTokens`:
//
//  1. the whole long session: `replaySession` through the history's requests at a 200,000-token
//     budget, this build and the earlier one (`--before`), each in a child process of its own;
//     the whole time, and the time per turn at the end of the history (median, mean, 90th
//     percentile: a turn whose new question makes the session re-plan costs more than the rest);
//  2. memory of a 10,000-message session: peak RSS growth and wasm linear memory, a session
//     through every turn and through the last turns only, and what stays in the JS heap;
//  3. `ctxpack replay` (the CLI) on 2,000, 4,000 and 8,000 messages, both builds: wall time
//     per message, to see whether it grows with the history or faster;
//  4. LangChain's `trimMessages` and the AI SDK's `pruneMessages` beside `fitMessages` on the
//     same histories (1,000 and 10,000 messages): time per call, and what each keeps.
//
//   node bench/scale.mjs --before <dir> [--before-rev <rev>] [--write bench/RESULTS.md]
//     <dir>: the earlier build's package directory (its dist/, wasm/ and bin/, as pkg/ holds them);
//     `make bench` passes fe14830's (the build before issues 26 and 30), made as bench-compare makes it.
//   node bench/scale.mjs --before pkg --smoke   # tiny sizes, once each (make test-bench)
//   node bench/scale.mjs --child '<json>'       # one measurement (spawned below)
//
// Nothing here asserts a time; a run fails only if a ctxpack request is invalid or over budget.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { importBuild, runChild } from './child.mjs';
import { machineLine } from './machine.mjs';
import { mean, median, quantile } from './stats.mjs';
import { putSection } from './write-section.mjs';

const here = fileURLToPath(import.meta.url);
const root = dirname(dirname(here));
const { agentSession } = await import(pathToFileURL(join(root, 'pkg/test/agent-sessions.mjs')).href);
const SECTION = '## At scale (issue 30)';
const BUDGET = 200_000;
const OPTIONS = { format: 'openai', budgets: { tokens_max: BUDGET }, cache: 'openai' };
/** MB of V8 heap beyond the history's that the capped memory run allows (with wasm and the young generation, about the 128 MB target). */
const HEAP_ROOM = 64;

/**
 * Sizes. `replayTurns`: how many of the 10,000-message history's requests the whole-session
 * replay takes (all of them: fe14830 replays them in about 5-6 minutes here, within the ~8
 * minutes allowed; `null` is all). `tail`: the turns at the end the per-turn figures are of.
 */
const SIZES = {
  full: { session: 10_000, replayTurns: null, tail: 100, memory: 10_000, memoryLast: 100, cli: [2_000, 4_000, 8_000], others: [1_000, 10_000] },
  smoke: { session: 120, replayTurns: null, tail: 10, memory: 150, memoryLast: 5, cli: [30, 60], others: [60] },
};

// ---- the histories ----

/** The rounds of `agentSession(1, …)` that hold about the first `n` messages of its OpenAI rendering (whole rounds: every call has its result). */
function roundsFor(n) {
  const { messages } = agentSession(1, 'openai', Math.max(1, Math.ceil(n / 7)));
  let rounds = 0;
  for (let i = 0; i < n && i < messages.length; i++) if (messages[i].role === 'user') rounds++;
  return Math.max(1, rounds);
}

/** The history of `rounds` rounds in `format`: `{ messages, system? }`. */
const historyOf = (rounds, format = 'openai') => agentSession(1, format, rounds);

/** A request's failures: over budget, or (when `validate`) not a valid request. */
function check(lib, r, format, where, validate) {
  const out = [];
  if (r.metrics.budget_used > r.metrics.effective_budget) out.push(`${where}: over budget (${r.metrics.budget_used} of ${r.metrics.effective_budget})`);
  if (validate && lib.validateMessages(r.messages, format).length > 0) out.push(`${where}: invalid request`);
  return out;
}

const gc = () => globalThis.gc?.();
const memory = () => ({ rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, peak: process.resourceUsage().maxRSS * 1024 });

// ---- 1. the whole long session (a child per build) ----

async function replayChild({ dir, rounds, turns, tail, smoke }) {
  const lib = await importBuild(dir);
  const { messages: all } = historyOf(rounds);
  const ends = lib.requestEnds(all, 'openai');
  const count = Math.min(turns ?? ends.length, ends.length);
  const history = all.slice(0, ends[count - 1] + 1);
  gc();
  const m0 = memory();
  const failures = [];
  const per = [];
  let checks = 0;
  const t0 = performance.now();
  let mark = t0;
  // A turn: from the end of the previous turn's callback to this one's (the request sliced, the
  // session's fit, the replay's own figures of the turn); the checks are not counted.
  const out = lib.replaySession(history, OPTIONS, (r, end) => {
    const t = performance.now();
    per.push(t - mark);
    failures.push(...check(lib, r, 'openai', `replay, the request after messages[${end}]`, smoke || end === history.length - 1));
    mark = performance.now();
    checks += mark - t;
  });
  const wholeMs = performance.now() - t0 - checks;
  const m1 = memory();
  const last = per.slice(-tail);
  return {
    turns: out.length,
    messages: history.length,
    tailFrom: ends[count - last.length] + 1,
    wholeMs,
    median: median(last),
    mean: mean(last),
    p90: quantile(last, 0.9),
    max: Math.max(...last),
    rss0: m0.rss,
    peak: m1.peak,
    wasm: lib.wasmMemoryBytes(),
    failures,
  };
}

// ---- 2. memory (a child per way) ----

async function memoryChild({ rounds, last, smoke }) {
  const lib = await importBuild(join(root, 'pkg'));
  // The module instantiated and a session's code loaded before anything is measured.
  lib.createSession(OPTIONS).fit([{ role: 'user', content: 'a warm-up question' }]);
  const { messages } = historyOf(rounds);
  const ends = lib.requestEnds(messages, 'openai');
  gc();
  const m0 = memory();
  const wasm0 = lib.wasmMemoryBytes();
  let session = lib.createSession(OPTIONS);
  const from = last === null ? 0 : Math.max(0, ends.length - last - 1);
  const failures = [];
  for (let k = from; k < ends.length; k++) {
    const r = session.fit(messages.slice(0, ends[k] + 1));
    failures.push(...check(lib, r, 'openai', `memory, the request after messages[${ends[k]}]`, smoke || k === ends.length - 1));
  }
  const m1 = memory();
  const wasm1 = lib.wasmMemoryBytes();
  gc();
  const kept = memory();
  session = undefined;
  gc();
  const dropped = memory();
  return {
    messages: messages.length,
    turns: ends.length - from,
    firstFit: ends[from] + 1,
    rss0: m0.rss,
    heap0: m0.heap,
    // The peak may predate the session (generating the history): then the growth is at most this.
    peakGrowth: Math.max(0, m1.peak - m0.rss),
    peakBefore: m1.peak === m0.peak,
    wasm0,
    wasm1,
    heapSession: kept.heap - m0.heap,
    heapDropped: dropped.heap - m0.heap,
    failures,
  };
}

// ---- 4. trimMessages and pruneMessages beside fitMessages (a child per size) ----

async function othersChild({ n, rounds, smoke }) {
  const lib = await importBuild(join(root, 'pkg'));
  const { trimCounter, trimMessages, pruneMessages } = await import(pathToFileURL(join(dirname(here), 'others.mjs')).href);
  const budget = Math.max(2_000, n * 40);
  const lc = historyOf(rounds, 'langchain').messages;
  const sdk = historyOf(rounds, 'ai-sdk');
  // What a request holds, as ctxpack counts a request (estimateTokens, each message framed as its
  // provider frames it, the reply primed): the kept messages all fitted at an unbounded budget
  // (NaN when ctxpack refuses them as a request).
  const tokensOf = (messages, format, system) => {
    try {
      return lib.fitMessages(messages, { format, system, budgets: { tokens_max: 1e12 } }).metrics.budget_used;
    } catch {
      return NaN;
    }
  };
  const reps = smoke ? 1 : n >= 5_000 ? 3 : 5;
  const timed = async (call) => {
    const times = [];
    let result;
    for (let k = 0; k < reps; k++) {
      const t = performance.now();
      result = await call();
      times.push(performance.now() - t);
    }
    return { result, ms: median(times) };
  };
  const failures = [];
  const rows = [];
  const row = (history, call, { result, ms }, messages, format, system, bounded) => {
    const whole = history === 'LangChain' ? lc : sdk.messages;
    rows.push({ history, call, ms, kept: messages.length, of: whole.length, whole: tokensOf(whole, format, system), tokens: tokensOf(messages, format, system), bounded, valid: lib.validateMessages(messages, format).length === 0 });
    if (call.startsWith('ctxpack')) failures.push(...check(lib, result, format, `${call} on ${n} messages (${format})`, true));
  };
  // Warm-up: each call's code compiled before the timed calls.
  lib.fitMessages([{ role: 'user', content: 'a warm-up question' }], { format: 'openai', budgets: { tokens_max: budget } });
  const fitLc = await timed(() => lib.fitMessages(lc, { format: 'langchain', budgets: { tokens_max: budget } }));
  row('LangChain', 'ctxpack `fitMessages`', fitLc, fitLc.result.messages, 'langchain', undefined, true);
  const trim = await timed(() => trimMessages(lc, { maxTokens: budget, tokenCounter: trimCounter(lib.estimateTokens, 4), strategy: 'last', includeSystem: true, startOn: 'human' }));
  row('LangChain', "`trimMessages` (`strategy: 'last'`)", trim, trim.result, 'langchain', undefined, true);
  const fitSdk = await timed(() => lib.fitMessages(sdk.messages, { format: 'ai-sdk', system: sdk.system, budgets: { tokens_max: budget } }));
  row('AI SDK', 'ctxpack `fitMessages`', fitSdk, fitSdk.result.messages, 'ai-sdk', sdk.system, true);
  const prune = await timed(() => pruneMessages({ messages: sdk.messages, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }));
  row('AI SDK', '`pruneMessages`', prune, prune.result, 'ai-sdk', sdk.system, false);
  return { n, budget, rows, failures };
}

// ---- 3. the CLI (a process per build and size) ----

function cli(dir, file) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(dir, 'bin/ctxpack.js'), 'replay', file, '--budget', String(BUDGET), '--format', 'openai'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  return { ms, ok: r.status === 0, error: r.status === 0 ? '' : r.stderr.slice(0, 500) };
}

// ---- the run ----

const child = (spec, nodeArgs = ['--expose-gc']) => runChild(here, ['--child', JSON.stringify(spec)], { nodeArgs });
const log = (line) => process.stderr.write(`scale: ${line}\n`);
const n = (x) => x.toLocaleString('en-US');
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const s = (x) => (x / 1000).toFixed(1);
const mb = (b) => `${(b / 2 ** 20).toFixed(0)} MB`;

async function main(args) {
  const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const smoke = args.includes('--smoke');
  const size = SIZES[smoke ? 'smoke' : 'full'];
  if (at('--before') === undefined) throw new Error('--before <dir>: the earlier build (its dist/, wasm/ and bin/); make bench passes fe14830\'s');
  const before = resolve(at('--before'));
  if (!existsSync(join(before, 'dist/node.js'))) throw new Error(`${before}: no build there (make bench-compare BEFORE=<rev> makes one in .cache/bench-before/<rev>)`);
  const after = join(root, 'pkg');
  const beforeName = at('--before-rev') ?? relative(root, before);
  const started = performance.now();
  const failures = [];

  // 4. trimMessages and pruneMessages
  const others = size.others.map((k) => {
    const r = child({ part: 'others', n: k, rounds: roundsFor(k), smoke }, []);
    failures.push(...r.failures);
    log(`others at ${n(k)}: ${r.rows.map((x) => `${x.history} ${x.call} ${ms(x.ms)} ms`).join(', ')}`);
    return r;
  });

  // 2. memory
  const memRounds = roundsFor(size.memory);
  const mem = [null, size.memoryLast].map((last) => {
    const r = child({ part: 'memory', rounds: memRounds, last, smoke });
    failures.push(...r.failures);
    log(`memory, ${last === null ? 'every turn' : `the last ${last} turns`}: peak RSS +${mb(r.peakGrowth)}, wasm ${mb(r.wasm1)}, JS heap kept ${mb(r.heapSession)}`);
    return r;
  });
  // Most of the peak is garbage V8 had not yet collected, as the heap kept shows: the session
  // through every turn again, V8's heap capped at the history's heap plus HEAP_ROOM, so that its
  // collector must work within it: does the session fit, and how far does RSS grow then?
  const cap = Math.ceil(mem[0].heap0 / 2 ** 20) + HEAP_ROOM;
  try {
    const r = runChild(here, ['--child', JSON.stringify({ part: 'memory', rounds: memRounds, last: null, smoke })], { nodeArgs: ['--expose-gc', `--max-old-space-size=${cap}`] });
    failures.push(...r.failures);
    mem.push({ ...r, cap });
    log(`memory, every turn, heap capped at ${cap} MB: peak RSS +${mb(r.peakGrowth)}`);
  } catch (err) {
    mem.push({ cap, error: String(err.message).includes('heap out of memory') ? 'ran out of memory (the heap limit)' : String(err.message).split('\n')[0] });
    log(`memory, every turn, heap capped at ${cap} MB: ${mem[2].error}`);
  }

  // 3. the CLI
  const dirOf = mkdtempSync(join(os.tmpdir(), 'ctxpack-scale-'));
  const cliRows = [];
  try {
    for (const k of size.cli) {
      const { messages } = historyOf(roundsFor(k));
      const file = join(dirOf, `history-${k}.json`);
      writeFileSync(file, JSON.stringify(messages));
      const row = { messages: messages.length };
      for (const [name, dir] of [['before', before], ['after', after]]) {
        const r = cli(dir, file);
        if (!r.ok) failures.push(`ctxpack replay (${name}) on ${n(messages.length)} messages: ${r.error}`);
        row[name] = r.ms;
      }
      cliRows.push(row);
      log(`ctxpack replay on ${n(messages.length)} messages: before ${s(row.before)} s, after ${s(row.after)} s`);
    }
  } finally {
    rmSync(dirOf, { recursive: true, force: true });
  }

  // 1. the whole long session
  const rounds = roundsFor(size.session);
  const replay = {};
  for (const [name, dir] of [['before', before], ['after', after]]) {
    replay[name] = child({ part: 'replay', dir, rounds, turns: size.replayTurns, tail: size.tail, smoke });
    failures.push(...replay[name].failures.map((f) => `${name}: ${f}`));
    log(`the whole session, ${name}: ${n(replay[name].turns)} turns, ${n(replay[name].messages)} messages, ${s(replay[name].wholeMs)} s; the last ${size.tail} turns median ${ms(replay[name].median)} ms, mean ${ms(replay[name].mean)} ms`);
  }
  const totalMs = performance.now() - started;
  putSection(report({ smoke, size, beforeName, others, mem, cliRows, replay, totalMs }), SECTION, at('--write'), failures);
}

// ---- the report ----

function report({ smoke, size, beforeName, others, mem, cliRows, replay, totalMs }) {
  const b = replay.before;
  const a = replay.after;
  const ratio = b.wholeMs / a.wholeMs;
  const judged = (ok) => (smoke ? 'not judged (smoke)' : ok ? 'met' : '**missed**');
  const replayed = size.replayTurns === null ? `all ${n(a.turns)} requests of the ${n(a.messages)}-message history` : `the first ${n(a.turns)} requests (${n(a.messages)} messages) of the history`;
  const replayRow = (name, r) => `| ${name} | ${n(r.turns)} | ${n(r.messages)} | ${s(r.wholeMs)} | ${ms(r.median)} | ${ms(r.mean)} | ${ms(r.p90)} | ${ms(r.max)} | ${mb(r.peak)} | ${mb(r.wasm)} |`;
  const [all, tail, capped] = mem;
  const memRow = (what, r) =>
    r.error !== undefined
      ? `| ${what} | — | — | ${r.error} | — | — | — | — |`
      : `| ${what} | ${n(r.turns)} | ${mb(r.rss0)} | ${mb(r.heap0)} | ${r.peakBefore ? 'at most ' : ''}${mb(r.peakGrowth)} | ${mb(r.wasm0)} → ${mb(r.wasm1)} | ${mb(r.heapSession)} | ${mb(r.heapDropped)} |`;
  const worst = Math.max(all.peakGrowth, tail.peakGrowth);
  const cliFirst = cliRows[0];
  const cliLast = cliRows.at(-1);
  const perMessage = (row, k) => (row[k] / row.messages).toFixed(2);
  const otherRows = others.flatMap((o) =>
    o.rows.map((r) => `| ${n(r.of)} | ${r.history} | ${r.call} | ${ms(r.ms)} | ${n(r.kept)} | ${Number.isNaN(r.tokens) ? 'not a request ctxpack reads' : n(r.tokens)} | ${r.bounded ? `${n(o.budget)}${r.tokens > o.budget ? ' (**over**)' : ''}` : `none (the history: ${n(r.whole)})`} | ${r.valid ? 'yes' : '**no**'} |`),
  );
  return `${SECTION}

Produced by \`node bench/scale.mjs --before <dir> --write bench/RESULTS.md\` (part of \`make bench\`),
the earlier build being \`${beforeName}\`${beforeName === 'fe14830' ? ' (before issues 26 and 30)' : ''}, on ${machineLine()}; the
whole run took ${s(totalMs)} s.${smoke ? ' **Smoke run**: tiny sizes; the figures mean nothing.' : ''}
Generated tool-heavy OpenAI agent histories (\`pkg/test/agent-sessions.mjs\`, seed 1: rounds of a
user request, one to six steps of tool calls, some parallel, 6 % of results large, and a reply;
whole rounds), counted with \`estimateTokens\`, \`cache: 'openai'\`. Each figure in a child process
of its own.

### The whole long session

\`replaySession(history, { format: 'openai', budgets: { tokens_max: 200_000 }, cache: 'openai' })\`
through ${replayed}, each build in its own process.${size.replayTurns === null && !smoke ? `
The whole history: the build before replays it in about 5 minutes on this machine (320 s, loaded,
when this script was written), within the 8 minutes a step of \`make bench\` may take. (The issue's
358 s was a 2,000-turn session of 9,758 messages; this generator asks for a reply after every user
message and every round of tool results: ${n(a.turns)} requests in ${n(a.messages)} messages.)` : ''}
*A turn*: from the end of one turn to the end of the next (the request sliced from the history,
\`session.fit\`, the replay's figures of the turn); the checks (over budget each turn, a valid
request at the last) not counted. Per-turn figures are of the last ${size.tail} turns (from message
${n(a.tailFrom)} on): the median is the common turn; the mean and the 90th percentile carry the turns
where a new question makes the session re-plan. *Peak RSS*: the child's, the history and the
replay's kept turns included.

| build | turns | messages at the end | whole session (s) | last ${size.tail} turns: median (ms) | mean (ms) | 90th percentile (ms) | slowest (ms) | peak RSS | wasm at the end |
|--|--:|--:|--:|--:|--:|--:|--:|--:|--:|
${replayRow(`before (\`${beforeName}\`)`, b)}
${replayRow('this build', a)}

| target (issue 30) | measured | |
|--|--|--|
| the whole session at least 30× faster than the build before | ${s(b.wholeMs)} s against ${s(a.wholeMs)} s: ${ratio.toFixed(1)}× | ${judged(ratio >= 30)} |

### Memory of a ${n(all.messages)}-message session

The history generated first (its objects stay in the process), a GC, then a new session
(\`session.fit\`, the results dropped each turn, as a live agent does) through *every turn* of the
history from the first, or through *the last ${n(tail.turns - 1)} turns* after one first fit of the history
up to message ${n(tail.firstFit)}. *Peak RSS growth*: the child's peak RSS (\`process.resourceUsage().maxRSS\`)
less its RSS after generating the history${all.peakBefore || tail.peakBefore ? ' (*at most*: the peak predates the session, so the session added at most this)' : ''}. *wasm*: linear memory before the session and
at the end. *JS heap kept*: the heap used after a GC at the end with the session alive, less
before it (what the session holds in JS); *after dropping it*: the same once the session is let
go. The last row runs the first again with V8's heap capped at the heap with the history plus
${HEAP_ROOM} MB (\`--max-old-space-size\`), so that the collector must keep the turns' garbage within it,
as an isolate with a memory limit would: when it completes, what the peak without a cap has
beyond it is garbage V8 had not yet collected.

| way | turns | RSS with the history | JS heap with the history | peak RSS growth | wasm | JS heap kept | after dropping it |
|--|--:|--:|--:|--:|--:|--:|--:|
${memRow('every turn', all)}
${memRow(`the last ${n(tail.turns - 1)} turns after one fit`, tail)}
${memRow(`every turn, \`--max-old-space-size=${capped.cap}\``, capped)}

For the whole-session replay above (\`replaySession\`, which also keeps each turn's figures), the
child's RSS was ${mb(a.rss0)} with the history generated and peaked at ${mb(a.peak)} (this build).

| target (issue 30) | measured | |
|--|--|--|
| a 10,000-message session within 128 MB of process growth | peak RSS growth ${mb(worst)} (every turn: ${mb(all.peakGrowth)}; the last turns: ${mb(tail.peakGrowth)})${capped.error === undefined ? `; with the heap capped: ${mb(capped.peakGrowth)}` : `; with the heap capped: ${capped.error}`} | ${judged(worst <= 128 * 2 ** 20)}${capped.error === undefined && !smoke ? ` (with the heap capped: ${capped.peakGrowth <= 128 * 2 ** 20 ? 'met' : '**missed**'})` : ''} |

### \`ctxpack replay\` as the history grows

\`node bin/ctxpack.js replay <file> --budget ${BUDGET} --format openai\` of each build on the history
written to a temporary file, wall time of the whole process (Node's start-up included), one run
each. Linear in the history means a constant time per message.

| messages | before (s) | before, ms per message | this build (s) | this build, ms per message |
|--:|--:|--:|--:|--:|
${cliRows.map((r) => `| ${n(r.messages)} | ${s(r.before)} | ${perMessage(r, 'before')} | ${s(r.after)} | ${perMessage(r, 'after')} |`).join('\n')}

| target (issue 30) | measured | |
|--|--|--|
| \`ctxpack replay\` linear in the history (read here as: the time per message at the largest history at most 1.5× at the smallest) | this build: ${perMessage(cliFirst, 'after')} ms per message at ${n(cliFirst.messages)}, ${perMessage(cliLast, 'after')} at ${n(cliLast.messages)}: ${(cliLast.after / cliLast.messages / (cliFirst.after / cliFirst.messages)).toFixed(1)}× (before: ${perMessage(cliFirst, 'before')} and ${perMessage(cliLast, 'before')}: ${(cliLast.before / cliLast.messages / (cliFirst.before / cliFirst.messages)).toFixed(1)}×) | ${judged(cliLast.after / cliLast.messages <= 1.5 * (cliFirst.after / cliFirst.messages))} |

### LangChain's \`trimMessages\` and the AI SDK's \`pruneMessages\` beside \`fitMessages\`

The same histories rendered for LangChain (\`@langchain/core\` messages, the system prompt first)
and for the AI SDK (\`ai\`'s \`ModelMessage\`s, the system prompt beside them), budget 40 tokens a
message (as the per-turn table of the Sessions section). \`trimMessages\`: \`strategy: 'last'\`,
\`includeSystem\`, \`startOn: 'human'\`, its \`tokenCounter\` \`estimateTokens\` of each message's text
plus 4, remembered within the call (bench/others.mjs). \`pruneMessages\` has no budget: it drops
reasoning and tool calls by rule (\`reasoning: 'before-last-message'\`, \`toolCalls:
'before-last-2-messages'\`, \`emptyMessages: 'remove'\`), so it keeps what the rule leaves, whatever
its size. *Tokens*: the kept messages as ctxpack counts a request (\`estimateTokens\`, each message
framed as its provider frames it, the system prompt and the reply's priming included). ms: the
median of ${smoke ? '1 call' : '5 calls (3 at 10,000 messages)'}. *Valid*: \`validateMessages\` finds nothing wrong.

| messages | history | call | ms per call | messages kept | tokens kept | budget | valid |
|--:|--|--|--:|--:|--:|--:|--|
${otherRows.join('\n')}
`;
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const spec = JSON.parse(args[1]);
  const run = { replay: replayChild, memory: memoryChild, others: othersChild }[spec.part];
  process.stdout.write(`${JSON.stringify(await run(spec))}\n`);
} else await main(args);
