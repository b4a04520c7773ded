#!/usr/bin/env node
// ctxpack command line: plan a context from a JSON file of fragments, or fit a chat history.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CtxpackError, defaultCacheFor, detectMessageFormat, estimateTokens, extractiveSummarizer, fitMessages, replaySession, selectFragments, summarizeReplay } from '../dist/node.js';

const USAGE = `usage: ctxpack plan <fragments.json | -> --budget N [options]
       ctxpack fit <history.json | -> --budget N [--format F] [--query TEXT] [--keep N] [--stub-tool-results] [--json]
       ctxpack replay <history.json | -> --budget N [--format F] [--cache anthropic|anthropic-auto|openai|none]
                      [--summarize extractive [--summary-cost IN,OUT]] [--json]
       ctxpack eval <history.json | -> --evidence I,J,… [--budgets 5,10,20,40] [--format F] [--json]

plan: the input is a JSON array of fragments, or an object { fragments, gaze?, budgets?, now? }.
fit:  the input is a chat history: a JSON array of messages, or an object { messages, system?,
      format?, budgets? }. The format (openai, openai-responses, anthropic, ai-sdk, langchain) is
      detected from the messages unless --format or "format" says it; "system" is the top-level
      system prompt (Anthropic's system, the Responses API's instructions, the AI SDK's). It
      prints every message in conversation order, kept or cut with the reason; --json prints the
      request's { messages, system? } instead. (plan given a chat history does the same.)
      --stub-tool-results lets a tool result go in as a short stub (fitMessages' stubToolResults).
eval: the same input, and the indexes of the messages its latest user message needs (--evidence,
      or "evidence": [...] in the input): the share of them each fitMessages strategy keeps at
      budgets given as percentages of the whole history (a message sent as a stub is not kept).
replay: the same input, replayed request by request (after each user or tool message) through
      one session (createSession, --cache default: anthropic for Anthropic histories, else
      openai): per turn the prompt tokens, the share that is the previous request's prefix, the
      share predicted cached and the input cost in uncached-token prices; --json prints the turns.
      --summarize extractive: what a cut leaves out is summarised (extractiveSummarizer: no model
      call, the lines with numbers, paths, names and decisions); per turn the summary in the
      request, its tokens and its call's cost, priced as a model's call at the session's default
      prices or at --summary-cost IN,OUT (input and output token prices in uncached-input units,
      e.g. 0.05,0.2 for a small model; 0,0 for the extractive summariser's own cost).

options:
  --budget N            token budget (tokens_max); overrides the file's tokens_max only (its
                        output_reserve, overhead_tokens, per_fragment_overhead and
                        safety_margin_percent still apply)
  --slicer S            ranked (default) | greedy | knapsack | count-knapsack | packer | exact | exact-count
  --gaze a,b,c          gaze entities; overrides the file's gaze
  --now ISO|ms          the clock for recency (default: the file's "now", else the current time)
  --bucket-size N       knapsack bucket size (default 100)
  --max-skips N         packer: stop after N consecutive misses (default 3; 0 never stops)
  --count KIND:REQ:CAP  count-knapsack constraint, repeatable (e.g. --count system:2:2)
  --lod-mix LOD:MIN:MAX the lod mix (lodMix) for count-knapsack / exact-count, repeatable
                        (e.g. --lod-mix macro:2: for at least 2 summaries; MAX empty: no cap)
  --kv-top-k N          pin the dependencies of the N best-ranked candidates (default 5; 0: off)
  --allow-overshoot     allow one fragment over budget when its benefit exceeds 0.9
  --require-dependencies
                        a fragment goes in only with the fragments it depends on
                        (fragments sharing a "group" always go in together)
  --estimate-tokens     count fragments that have content but no cost_tokens with the built-in
                        estimator (estimateTokens: word pieces as a byte-pair tokenizer splits
                        them; approximate)
  --json                print the whole plan as JSON
  --max-input-bytes N   read at most N bytes of input (default 67108864, 64 MiB); a larger input
                        is refused unread past the limit. JSON nested deeper than 256 levels is
                        refused too
  -h, --help            this text`;

function fail(message, code = 2) {
  process.stderr.write(`ctxpack: ${message}\n`);
  process.exit(code);
}

/**
 * The library's warnings, one stderr line each (`ctxpack: warning: …`), in every command and with
 * --json too: stdout holds only the report or the JSON (fit's is the request to send, so a
 * warning there would be sent), and a warning never changes the exit status.
 */
function warn(warnings) {
  for (const w of warnings) process.stderr.write(`ctxpack: warning: ${w}\n`);
}

/** A format as the header names it: its name, also when given as an object (`{ name: 'ai-sdk', allowSystemInMessages: true }`). */
const formatName = (format) => (typeof format === 'object' && format !== null ? String(format.name) : String(format));

/**
 * A table as text lines: each column as wide as its widest cell, header included (a Responses
 * item type, a 5-digit index, `group_excluded (with #18)`), then two spaces; the last column as
 * it is. Cells are never cut: every value the input can put in a column is bounded by the
 * library's validation (item types and roles are names from a fixed list).
 */
function columns(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c] ?? '').length)));
  return rows.map((row) => `  ${row.map((cell, c) => (c === row.length - 1 ? String(cell ?? '') : String(cell ?? '').padEnd(widths[c] + 2))).join('')}`.trimEnd());
}

/** A flag that takes a non-negative integer: its value, or undefined when absent; anything else is a usage error (exit 2). */
function integerFlag(values, flag) {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) fail(`--${flag} must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got '${v}'`);
  return Number(v);
}

// A reader that stopped reading (`ctxpack plan x.json | head -1`) is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

/** What a value from the input is, never the value itself (the input may be private text). */
function kindOf(value) {
  if (value === null) return 'null';
  if (typeof value === 'string') return `a string of length ${value.length}`;
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  return typeof value === 'object' ? 'an object' : typeof value === 'number' ? String(value) : typeof value;
}

/** Input read at most, unless --max-input-bytes says otherwise: 64 MiB, far above any real history. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * The input's bytes, at most `limit`: reading stops as soon as it passes the limit (`/dev/zero`
 * or an endless pipe must not fill the memory), and a regular file over it is refused unread.
 */
function readInput(file, where, limit) {
  const tooLarge = () => fail(`${where} is larger than the input limit of ${limit} bytes; raise it with --max-input-bytes N`);
  let fd;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > limit) tooLarge();
    const chunks = [];
    let total = 0;
    for (;;) {
      // One byte past the limit is enough to know the input is over it.
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) tooLarge();
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } catch (err) {
    fail(`cannot read ${where}: ${err.code ?? 'read failed'}`);
  } finally {
    if (fd !== undefined && fd !== 0) closeSync(fd);
  }
}

/**
 * The input file as JSON (a UTF-8 byte order mark is skipped), at most `limit` bytes. A syntax
 * error says where, never what; input nested deeper than {@link MAX_DEPTH} is refused the same way.
 */
function readJson(file, limit) {
  const where = file === '-' ? 'standard input' : file;
  const bytes = readInput(file, where, limit);
  let doc;
  try {
    let text = new TextDecoder().decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    doc = JSON.parse(text);
  } catch (err) {
    // A RangeError: a --max-input-bytes above what the runtime holds as one string.
    if (!(err instanceof SyntaxError)) fail(`cannot read ${where} as JSON: ${bytes.length} bytes are more than this runtime reads as one text (the input is not shown)`);
    const at = /position (\d+)/.exec(err.message);
    fail(`cannot read ${where} as JSON: a syntax error${at ? ` at character ${at[1]}` : ''} (the input is not shown)`);
  }
  if (deeperThan(doc, MAX_DEPTH)) fail(`cannot read ${where}: JSON nested deeper than ${MAX_DEPTH} levels (the input is not shown)`);
  return doc;
}

/**
 * Arrays and objects nested deeper than this are refused: real histories nest a few levels (tool
 * arguments a few more), and printing the input back (JSON.stringify) recurses, so 5,000 levels
 * overflowed the stack.
 */
const MAX_DEPTH = 256;

/** Whether `value` nests arrays or objects more than `max` levels deep (a walk with its own stack). */
function deeperThan(value, max) {
  const stack = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** The input's "budgets": every field reaches the planner; `--budget` replaces `tokens_max` only. */
function budgetsOf(doc, tokensMax) {
  const budgets = doc.budgets ?? {};
  if (budgets === null || typeof budgets !== 'object' || Array.isArray(budgets)) fail(`the input's "budgets" must be an object, got ${kindOf(budgets)}`);
  return tokensMax === undefined ? { ...budgets } : { ...budgets, tokens_max: tokensMax };
}

/** ISO 8601: a date, optionally with a time and a zone. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** The clock: `--now` (echoed: the caller typed it) or the input's "now" (described, never echoed). */
function clockOf(flag, fromInput) {
  const value = flag ?? fromInput;
  let now = NaN;
  if (typeof value === 'number') now = value;
  else if (typeof value === 'string' && /^\d+$/.test(value)) now = Number(value);
  else if (typeof value === 'string' && ISO_DATE.test(value)) now = Date.parse(value);
  if (typeof value === 'number' ? Number.isFinite(now) : Number.isSafeInteger(now)) return now;
  const got = flag !== undefined ? `'${flag}'` : kindOf(fromInput);
  fail(`${flag !== undefined ? '--now' : 'the input\'s "now"'} must be an ISO 8601 date (2026-11-20T12:00:00Z) or epoch milliseconds, got ${got}`);
}

/** `--max-input-bytes`: a positive integer, else the default. */
function maxInputBytes(flag) {
  if (flag === undefined) return MAX_INPUT_BYTES;
  if (!/^\d+$/.test(flag) || !Number.isSafeInteger(Number(flag)) || Number(flag) === 0) fail(`--max-input-bytes must be a positive integer, got '${flag}'`);
  return Number(flag);
}

/** The flags parseArgs reads. */
const OPTIONS = {
  budget: { type: 'string' },
  slicer: { type: 'string' },
  gaze: { type: 'string' },
  now: { type: 'string' },
  'bucket-size': { type: 'string' },
  'max-skips': { type: 'string' },
  count: { type: 'string', multiple: true },
  'lod-mix': { type: 'string', multiple: true },
  'kv-top-k': { type: 'string' },
  'allow-overshoot': { type: 'boolean' },
  'require-dependencies': { type: 'boolean' },
  'estimate-tokens': { type: 'boolean' },
  json: { type: 'boolean' },
  format: { type: 'string' },
  query: { type: 'string' },
  keep: { type: 'string' },
  'stub-tool-results': { type: 'boolean' },
  cache: { type: 'string' },
  summarize: { type: 'string' },
  'summary-cost': { type: 'string' },
  evidence: { type: 'string' },
  budgets: { type: 'string' },
  'max-input-bytes': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * `--flag -5` read as `--flag=-5`, for the flags that take a value: Node 20's parseArgs has no
 * `allowNegative` and refuses a value that starts with a dash as ambiguous, so `--budget -5` got
 * the parser's message instead of the flag's own. Only a value that reads as a negative number is
 * joined (no flag has a short form but -h, so it cannot be meant as one); after `--` nothing is.
 */
function joinNegativeValues(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return [...out, ...argv.slice(i)];
    const flag = /^--([^=]+)$/.exec(arg)?.[1];
    if (flag !== undefined && Object.hasOwn(OPTIONS, flag) && OPTIONS[flag].type === 'string' && /^-\.?\d/.test(argv[i + 1] ?? '')) {
      out.push(`${arg}=${argv[++i]}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

function main(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv),
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (err) {
    fail(`${err.message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!['plan', 'fit', 'replay', 'eval'].includes(positionals[0]) || positionals.length !== 2) fail(USAGE);

  const file = positionals[1];
  const input = readJson(file, maxInputBytes(values['max-input-bytes']));
  if (positionals[0] === 'replay') {
    replay(input, values);
    return;
  }
  if (positionals[0] === 'eval') {
    evaluate(input, values);
    return;
  }
  if (positionals[0] === 'fit' || isHistory(input)) {
    fit(input, values);
    return;
  }
  const doc = Array.isArray(input) ? { fragments: input } : input;
  if (doc === null || typeof doc !== 'object' || !Array.isArray(doc.fragments)) {
    fail('the input must be a JSON array of fragments or an object with a "fragments" array');
  }

  const integer = (flag) => integerFlag(values, flag);
  const budget = integer('budget') ?? doc.budgets?.tokens_max;
  if (budget === undefined) fail('--budget N is required (or "budgets": { "tokens_max": N } in the input)');
  const gaze = values.gaze !== undefined ? { entities: values.gaze.split(',').map((s) => s.trim()).filter(Boolean) } : doc.gaze ?? { entities: [] };

  const options = { slicer: values.slicer ?? 'ranked' };
  if (values.now !== undefined || doc.now !== undefined) options.now = clockOf(values.now, doc.now);
  if (values['bucket-size'] !== undefined) options.bucketSize = integer('bucket-size');
  if (values['max-skips'] !== undefined) options.maxConsecutiveSkips = integer('max-skips');
  if (values['allow-overshoot']) options.allow_overshoot = true;
  if (values['require-dependencies']) options.dependencies = 'require';
  if (values['estimate-tokens']) options.countTokens = estimateTokens;
  if (values['kv-top-k'] !== undefined) options.kvTopK = integer('kv-top-k');
  if (values['lod-mix']) {
    options.lodMix = {};
    for (const spec of values['lod-mix']) {
      const m = /^([^:]+):(\d*):(\d*)$/.exec(spec);
      if (!m) fail(`--lod-mix must look like LOD:MIN:MAX (MIN or MAX may be empty), got '${spec}'`);
      const bounds = {};
      if (m[2] !== '') bounds.min = Number(m[2]);
      if (m[3] !== '') bounds.max = Number(m[3]);
      options.lodMix[m[1]] = bounds;
    }
  }
  if (values.count) {
    options.countEntries = values.count.map((spec) => {
      const m = /^([^:]+):(\d+):(\d+)$/.exec(spec);
      if (!m) fail(`--count must look like KIND:REQUIRE:CAP, got '${spec}'`);
      return { kind: m[1], requireCount: Number(m[2]), capCount: Number(m[3]) };
    });
  }

  let plan;
  try {
    plan = selectFragments(doc.fragments, gaze, budgetsOf(doc, budget), options);
  } catch (err) {
    if (err instanceof CtxpackError) fail(`${err.code}: ${err.message}`, 1);
    throw err;
  }
  warn(plan.warnings);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
    return;
  }
  process.stdout.write(render(plan, doc.fragments, budget, options.slicer));
}

/** A chat history: an object with `messages`, or an array whose elements have a `role`. */
function isHistory(input) {
  if (Array.isArray(input)) return input.length > 0 && input.every((m) => m !== null && typeof m === 'object' && typeof m.role === 'string');
  return input !== null && typeof input === 'object' && Array.isArray(input.messages);
}

/** A chat history input (fit, replay): the messages, the format, and fitMessages' options. */
function historyOf(input, values, command) {
  const doc = Array.isArray(input) ? { messages: input } : input;
  if (doc === null || typeof doc !== 'object' || !Array.isArray(doc.messages)) fail(`${command}: the input must be a JSON array of messages or an object with a "messages" array`);
  const budget = integerFlag(values, 'budget') ?? doc.budgets?.tokens_max;
  if (budget === undefined) fail('--budget N is required (or "budgets": { "tokens_max": N } in the input)');
  const format = values.format ?? doc.format ?? detectMessageFormat(doc.messages, { system: doc.system });
  const options = { format, budgets: budgetsOf(doc, budget), countTokens: estimateTokens };
  if (doc.system !== undefined) options.system = doc.system;
  return { doc, format, options };
}

/** The summarisers `--summarize` names: none calls a model. */
const SUMMARIZERS = { extractive: () => extractiveSummarizer() };

/** `--summarize` and `--summary-cost` as session options (`summarize`, `summary`), or none. */
function summaryOptions(values) {
  if (values.summarize === undefined) {
    if (values['summary-cost'] !== undefined) fail('--summary-cost needs --summarize');
    return {};
  }
  const make = Object.hasOwn(SUMMARIZERS, values.summarize) ? SUMMARIZERS[values.summarize] : fail(`--summarize must be one of ${Object.keys(SUMMARIZERS).join(', ')}, got '${values.summarize}'`);
  const out = { summarize: make() };
  const cost = values['summary-cost'];
  if (cost !== undefined) {
    const m = /^(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/.exec(cost);
    if (!m) fail(`--summary-cost must be IN,OUT: two non-negative numbers (e.g. 0.05,0.2), got '${cost}'`);
    out.summary = { inputCost: Number(m[1]), outputCost: Number(m[2]) };
  }
  return out;
}

function replay(input, values) {
  const { doc, format, options } = historyOf(input, values, 'replay');
  options.cache = values.cache ?? defaultCacheFor(format);
  Object.assign(options, summaryOptions(values));
  let turns;
  try {
    turns = replaySession(doc.messages, options);
  } catch (err) {
    if (err instanceof CtxpackError) fail(`${err.code}: ${err.message}`, 1);
    throw err;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(turns, null, 2)}\n`);
    return;
  }
  const pad = (x, n) => String(x).padStart(n);
  const pct = (a, b) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)} %`);
  const lines = [`ctxpack replay (${formatName(format)}, cache ${typeof options.cache === 'string' ? options.cache : 'custom'}): ${turns.length} requests at ${options.budgets.tokens_max} tokens`, ''];
  const summaries = options.summarize !== undefined;
  lines.push(`  ${pad('turn', 4)} ${pad('history', 7)} ${pad('sent', 5)} ${pad('tokens', 7)} ${pad('prefix', 8)} ${pad('cached', 8)} ${pad('cost', 9)}  ${summaries ? `cut  ${'summary'.padEnd(24)} ${pad('tokens', 6)} ${pad('call', 6)}` : 'cut'}`);
  for (const t of turns) {
    let line = `  ${pad(t.turn, 4)} ${pad(t.historyMessages, 7)} ${pad(t.sentMessages, 5)} ${pad(t.promptTokens, 7)} ${pad(pct(t.prefixTokens, t.promptTokens), 8)} ${pad(pct(t.predictedCachedTokens, t.promptTokens), 8)} ${pad(t.predictedCost.toFixed(0), 9)}  ${t.cut ? 'cut' : summaries ? '   ' : ''}`;
    // The summary in the request: its call's cost on the turn it is first sent, "resent" after.
    if (t.summary) line += `  ${t.summary.id.padEnd(24)} ${pad(t.summary.tokens, 6)} ${pad(t.summary.first ? t.summary.callCost.toFixed(0) : 'resent', 6)}`;
    lines.push(line.trimEnd());
  }
  const sum = summarizeReplay(turns);
  const share = (x) => pct(x, 1);
  lines.push(
    '',
    `total: ${sum.promptTokens} prompt tokens, ${share(sum.prefixShare)} the previous request's prefix (sending the whole history every time would make it ${share(sum.appendOnlyShare)}: this is ${share(sum.ofAppendOnly)} of that), ` +
      `${share(sum.cachedShare)} predicted cached, ${share(sum.budgetUse)} of the budget used on average, cost ${sum.predictedCost.toFixed(0)} (uncached: ${sum.promptTokens})`,
  );
  // Only with --summarize. None sent says why (an empty history has no turns, hence no summary totals).
  if (summaries && !(sum.summaries > 0)) {
    lines.push(
      sum.cuts === 0
        ? 'summaries: none: no request cut the history, and a summary stands only for what a cut leaves out'
        : `summaries: none, though ${sum.cuts} of ${turns.length} requests cut: a summary goes in only for whole messages a cut leaves out after the task, where it fits without displacing a message kept in full and is worth more than its tokens and its call`,
    );
  } else if (summaries) {
    lines.push(
      `summaries: ${sum.summaries} made, in ${sum.summarizedRequests} of ${turns.length} requests; their calls cost ${sum.summaryCallCost.toFixed(0)}, so the replay costs ${sum.costWithSummaries.toFixed(0)} with them (in uncached-input prices)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The strategies `ctxpack eval` compares: fitMessages options beside the format and budgets. */
const EVAL_STRATEGIES = [
  ['fitMessages (defaults)', {}],
  ['stubToolResults', { stubToolResults: true }],
  ["slicer 'exact'", { slicer: 'exact' }],
  ['BM25 alone', { relevance: { neighbour: 0, recency: 0 } }],
  ['recency alone', { relevance: { neighbour: 0, recency: 1e9 } }],
];

/** A comma-separated list of non-negative integers, or fail naming the flag. */
function integers(text, what) {
  const parts = String(text).split(',').map((x) => x.trim());
  if (parts.some((x) => !/^\d+$/.test(x))) fail(`${what} must be comma-separated non-negative integers`);
  return parts.map(Number);
}

function evaluate(input, values) {
  const { doc, format, options } = historyOf(input, { ...values, budget: String(Number.MAX_SAFE_INTEGER) }, 'eval');
  const n = doc.messages.length;
  const evidence = values.evidence !== undefined ? integers(values.evidence, '--evidence') : Array.isArray(doc.evidence) ? doc.evidence : fail('--evidence I,J,… is required (or "evidence": [...] in the input)');
  if (evidence.length === 0 || evidence.some((i) => !Number.isInteger(i) || i < 0 || i >= n)) fail(`evidence must be message indexes from 0 to ${n - 1}`);
  const shares = integers(values.budgets ?? '5,10,20,40', '--budgets');
  if (shares.some((x) => x === 0 || x > 100)) fail('--budgets must be percentages from 1 to 100');
  const run = (extra, tokens_max) => fitMessages(doc.messages, { ...options, ...extra, budgets: { ...options.budgets, tokens_max } });
  let total;
  try {
    total = run({}, Number.MAX_SAFE_INTEGER).metrics.budget_used;
  } catch (err) {
    if (err instanceof CtxpackError) fail(`${err.code}: ${err.message}`, 1);
    throw err;
  }
  const rows = EVAL_STRATEGIES.map(([name, extra]) => ({
    strategy: name,
    recall: shares.map((share) => {
      try {
        const d = run(extra, Math.round((total * share) / 100)).decisions;
        return evidence.filter((i) => d[i].included && !d[i].stubbed).length / evidence.length;
      } catch (err) {
        if (err instanceof CtxpackError && err.code === 'PINNED_OVER_BUDGET') return null;
        throw err;
      }
    }),
  }));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ format, historyTokens: total, evidence, budgets: shares, rows }, null, 2)}\n`);
    return;
  }
  const pct = (x) => (x === null ? 'pinned>budget' : `${(100 * x).toFixed(1)} %`).padStart(13);
  const lines = [`ctxpack eval (${format}): ${evidence.length} evidence message${evidence.length > 1 ? 's' : ''} of ${n}, history ${total} tokens`, ''];
  lines.push(`  ${'strategy'.padEnd(24)}${shares.map((x) => `${x} %`.padStart(13)).join('')}`);
  for (const r of rows) lines.push(`  ${r.strategy.padEnd(24)}${r.recall.map(pct).join('')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function fit(input, values) {
  const { doc, format, options } = historyOf(input, values, 'fit');
  if (values.query !== undefined) options.query = values.query;
  if (values.keep !== undefined) options.keep = integerFlag(values, 'keep');
  if (values.slicer !== undefined) options.slicer = values.slicer;
  if (values['stub-tool-results']) options.stubToolResults = true;
  let r;
  try {
    r = fitMessages(doc.messages, options);
  } catch (err) {
    if (err instanceof CtxpackError) fail(`${err.code}: ${err.message}`, 1);
    throw err;
  }
  warn(r.warnings);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(doc.system === undefined ? { messages: r.messages } : { system: doc.system, messages: r.messages }, null, 2)}\n`);
    return;
  }
  const m = r.metrics;
  const lines = [`ctxpack fit (${formatName(format)}): ${m.messages_kept} of ${m.candidate_count} messages, ${m.budget_used} of ${m.effective_budget} tokens (${m.pinned_tokens} of them kept by rule)`, ''];
  const rows = [['#', 'role', 'tokens', 'score', '', 'reason', 'message']];
  for (const d of r.decisions) {
    const msg = doc.messages[d.index];
    const calls = (msg.tool_calls ?? []).length + (Array.isArray(msg.content) ? msg.content.filter((p) => p?.type === 'tool_use' || p?.type === 'tool-call').length : 0);
    const preview = (typeof msg.content === 'string' ? msg.content : msg.content == null ? '' : JSON.stringify(msg.content)).replace(/\s+/g, ' ').trim().slice(0, 48);
    const what = calls > 0 ? `[${calls} tool call${calls > 1 ? 's' : ''}] ${preview}` : preview;
    // A stub or a truncated tool result shows what is sent of what the message holds.
    const verdict = d.stubbed ? 'STUB' : d.truncated && d.included ? 'TRUNC' : d.included ? 'KEEP' : 'cut';
    const tokens = d.stubbed ? `${d.stub_tokens}/${d.cost_tokens}` : d.truncated ? `${d.truncated.to}/${d.truncated.from}` : d.cost_tokens;
    // The role column holds a Responses item's type where it has no role (`function_call_output`).
    rows.push([d.index, msg.role ?? msg.type, tokens, d.score.toFixed(2), verdict, `${d.reason}${d.unit !== d.index ? ` (with #${d.unit})` : ''}`, what]);
  }
  lines.push(...columns(rows));
  process.stdout.write(`${lines.join('\n')}\n`);
}

function render(plan, fragments, budget, slicer) {
  const m = plan.metrics;
  const byId = new Map(fragments.map((f) => [f.id, f]));
  const lines = [];
  const pad = (s, n) => String(s).padEnd(n);
  const num = (x, d = 3) => x.toFixed(d);
  lines.push(`ctxpack plan: ${plan.fragments.length} of ${m.candidate_count} fragments, ${m.tokens_selected} of ${budget} tokens, slicer ${slicer}`);
  const table = (title, decisions) => {
    lines.push('', `${title} (${decisions.length})`);
    lines.push(`  ${pad('rank', 5)}${pad('id', 30)}${pad('kind', 13)}${pad('tokens', 8)}${pad('score', 8)}${pad('benefit', 9)}reason`);
    for (const d of decisions) {
      const f = byId.get(d.id);
      // With variants: the version that went in, and its tokens.
      const version = d.versions?.find((v) => v.status === 'selected');
      const shown = version !== undefined && version.variant !== null ? `${d.id} [${d.variant_id ?? `variant ${version.variant}`}]` : d.id;
      const tokens = version !== undefined ? version.cost_tokens : d.cost_tokens;
      lines.push(`  ${pad(d.rank + 1, 5)}${pad(shown, 30)}${pad(f?.kind ?? '', 13)}${pad(tokens ?? '-', 8)}${pad(num(d.score), 8)}${pad(num(d.benefit), 9)}${d.reason}${d.group_reason ? ` (group: ${d.group_reason})` : ''}`);
    }
  };
  const byRank = [...plan.decisions].sort((a, b) => a.rank - b.rank);
  table('selected', byRank.filter((d) => d.included));
  table('excluded', byRank.filter((d) => !d.included));
  lines.push('', 'metrics');
  lines.push(`  request_id ${m.request_id}  planner_ms ${num(m.planner_ms, 2)}  candidates ${m.candidate_count}`);
  lines.push(`  tokens_selected ${m.tokens_selected}  mean_benefit ${num(m.mean_benefit)}  coverage_entities ${num(m.coverage_entities)}  diversity_score ${num(m.diversity_score)}`);
  lines.push(`  top3 ${m.top3_fragment_ids.map((id, i) => `${id} (${num(m.top3_scores[i])})`).join(', ')}`);
  lines.push(`  lod_mix ${Object.entries(m.lod_mix).map(([lod, x]) => `${lod} ${x.count} (${x.tokens} tokens)`).join(', ') || '-'}`);
  lines.push(`  kv_cache hits ${m.kv_cache_stats.hits} misses ${m.kv_cache_stats.misses} evictions ${m.kv_cache_stats.evictions}  cache_hit_rate ${num(m.cache_hit_rate)}`);
  lines.push('', 'kv policy');
  for (const key of ['pin', 'compress', 'evict']) lines.push(`  ${pad(key, 9)}${plan.kvPolicy[key].join(', ') || '-'}`);
  return `${lines.join('\n')}\n`;
}

main(process.argv.slice(2));
