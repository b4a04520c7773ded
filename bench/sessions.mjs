#!/usr/bin/env node
// `make bench`, sessions (issue 15), side by side in one run:
//  1. long tool-heavy generated agent sessions (pkg/test/agent-sessions.mjs) replayed request by
//     request at a 24k budget: the share of prompt tokens that are the previous request's exact
//     prefix (recomputed here from the messages sent, not taken from the session's report), next
//     to the append-only bound (nothing ever cut), and the budget used, for a session, fitMessages
//     afresh each turn, and a recency window;
//  2. the cost of one turn with js-tiktoken at the end of an 80-round history: a session, the
//     history tokenized once per turn (fitMessages), and LangChain's trimMessages;
//  3. large input (issue 28, bench/large-input.mjs): a huge latest user message (a 0.75 MB log,
//     30,000 distinct words) over a long chat, fitMessages and session.fit, time and memory.
//  4. a turn of a long-lived session at 1,000 and 10,000 messages, and fitMessages on the same
//     histories (issue 30: a turn costs what is new).
//
//   node bench/sessions.mjs [--write bench/RESULTS.md]   # replaces the "Sessions" section
//   node bench/sessions.mjs --smoke                      # tiny sizes, once each
//   node bench/sessions.mjs --before <dir>               # 3. also on an earlier build (<dir>/dist, <dir>/wasm)
//
// Nothing here asserts a time; the smoke run fails only if a request is invalid or over budget,
// or (3.) a selection is wrong.

import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { largeInput } from './large-input.mjs';
import { turnCounts, turnsAt } from './session-turns.mjs';
import { trimCounter, trimMessages } from './others.mjs';
import { median } from './stats.mjs';
import { putSection } from './write-section.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const lib = await import(pathToFileURL(join(root, 'pkg/dist/node.js')).href);
const { forEncoding } = await import(pathToFileURL(join(root, 'pkg/dist/tokenizers/js-tiktoken.js')).href);
const { agentSession } = await import(pathToFileURL(join(root, 'pkg/test/agent-sessions.mjs')).href);

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const out = args.includes('--write') ? args[args.indexOf('--write') + 1] : undefined;
const before = args.includes('--before') ? args[args.indexOf('--before') + 1] : undefined;
const BUDGET = 24_000;
const SEEDS = smoke ? [1] : [1, 2, 3];
const ROUNDS = smoke ? 8 : 80;
const MESSAGE_FRAME = 4;
const REPLY_FRAME = 3;

// ---- 1. prefix reuse ----

/** Leading messages of `sent` equal (as JSON) to `previous`'s, and their tokens with the system prompt's. */
function prefixTokens(previous, sent, base) {
  if (previous === undefined) return 0;
  let tokens = base;
  for (let k = 0; k < sent.length && k < previous.length && sent[k].json === previous[k].json; k++) tokens += sent[k].tokens;
  return tokens;
}

/** A recency window: pinned messages, then whole units from the newest back, until one does not fit. */
function recencyWindow(decisions, budget) {
  const units = new Map();
  for (const d of decisions) (units.get(d.unit) ?? units.set(d.unit, []).get(d.unit)).push(d);
  let used = decisions.filter((d) => d.reason === 'pinned').reduce((a, d) => a + d.cost_tokens, 0);
  const kept = new Set(decisions.filter((d) => d.reason === 'pinned').map((d) => d.index));
  for (const unit of [...units.keys()].sort((a, b) => b - a)) {
    const members = units.get(unit);
    if (members.some((d) => kept.has(d.index) || d.reason === 'invalid_structure')) continue;
    const cost = members.reduce((a, d) => a + d.cost_tokens, 0);
    if (used + cost > budget) break;
    used += cost;
    for (const d of members) kept.add(d.index);
  }
  return [...kept].sort((a, b) => a - b);
}

function replay(format, seed) {
  const { messages, system } = agentSession(seed, format, ROUNDS);
  const cache = format;
  // Framing, as docs/messages.md (*Framing*) documents it: a message's count includes its own; the
  // system prompt given beside the messages is framed like a message, and each request primes the
  // reply once, after the messages (never part of a prefix).
  const base = system === undefined ? 0 : lib.estimateTokens(system) + MESSAGE_FRAME;
  const ends = lib.requestEnds(messages, format);
  const json = messages.map((m) => JSON.stringify(m));
  const rows = { session: [], fresh: [], window: [], bound: [] };
  const previous = {};
  const session = lib.createSession({ format, system, budgets: { tokens_max: BUDGET }, cache });
  const record = (name, indexes, costs, budgetUsed) => {
    const sent = indexes.map((i) => ({ json: json[i], tokens: costs[i] }));
    const prompt = base + REPLY_FRAME + sent.reduce((a, s) => a + s.tokens, 0);
    if (budgetUsed !== undefined && budgetUsed !== prompt) throw new Error(`${name}: ${budgetUsed} tokens reported, ${prompt} recounted`);
    rows[name].push({ prompt, prefix: prefixTokens(previous[name], sent, base) });
    previous[name] = sent;
  };
  for (const end of ends) {
    const now = messages.slice(0, end + 1);
    const kept = (r) => r.decisions.filter((d) => d.included).map((d) => d.index);
    const s = session.fit(now);
    const costs = s.decisions.map((d) => d.cost_tokens);
    if (lib.validateMessages(s.messages, format).length > 0) throw new Error(`session: invalid request after messages[${end}]`);
    if (s.metrics.budget_used > s.metrics.effective_budget) throw new Error(`session: over budget after messages[${end}]`);
    record('session', kept(s), costs, s.metrics.budget_used);
    const f = lib.fitMessages(now, { format, system, budgets: { tokens_max: BUDGET } });
    record('fresh', kept(f), costs, f.metrics.budget_used);
    const windowed = recencyWindow(f.decisions, BUDGET - base - REPLY_FRAME);
    record('window', windowed, costs);
    record('bound', now.map((_, i) => i), costs);
  }
  return rows;
}

const shareOf = (rows) => rows.reduce((a, r) => a + r.prefix, 0) / rows.reduce((a, r) => a + r.prompt, 0);
const useOf = (rows) => rows.reduce((a, r) => a + Math.min(r.prompt, BUDGET) / BUDGET, 0) / rows.length;

const reuse = [];
for (const format of ['openai', 'anthropic']) {
  for (const seed of SEEDS) {
    const t0 = performance.now();
    const rows = replay(format, seed);
    const bound = shareOf(rows.bound);
    reuse.push({
      format,
      seed,
      turns: rows.session.length,
      historyTokens: rows.bound.at(-1).prompt,
      bound,
      ...Object.fromEntries(['session', 'fresh', 'window'].map((k) => [k, { share: shareOf(rows[k]), ofBound: shareOf(rows[k]) / bound, use: useOf(rows[k]) }])),
    });
    process.stderr.write(`sessions: ${format} seed ${seed}: ${rows.session.length} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
}

// ---- 2. per-turn cost with js-tiktoken ----

const tiktoken = forEncoding('o200k_base');
const { messages: lc } = agentSession(1, 'langchain', ROUNDS);
const lcEnds = lib.requestEnds(lc, 'langchain');
const LAST = smoke ? 2 : 5;
const warm = lib.createSession({ format: 'langchain', budgets: { tokens_max: BUDGET }, cache: 'openai', countTokens: tiktoken, counterId: 'o200k_base' });
const tWarm = performance.now();
for (const end of lcEnds.slice(0, -LAST)) warm.fit(lc.slice(0, end + 1));
const warmMs = performance.now() - tWarm;
process.stderr.write(`sessions: js-tiktoken session replayed ${lcEnds.length - LAST} turns in ${(warmMs / 1000).toFixed(1)} s\n`);
// A stateless caller with a shared count cache, through the same turns.
const countCache = lib.createCountCache();
const tCached = performance.now();
for (const end of lcEnds.slice(0, -LAST)) lib.fitMessages(lc.slice(0, end + 1), { format: 'langchain', budgets: { tokens_max: BUDGET }, countTokens: tiktoken, countCache });
const warmCachedMs = performance.now() - tCached;
const sessionMs = [];
const freshMs = [];
const cachedMs = [];
for (const end of lcEnds.slice(-LAST)) {
  const now = lc.slice(0, end + 1);
  let t = performance.now();
  warm.fit(now);
  sessionMs.push(performance.now() - t);
  t = performance.now();
  lib.fitMessages(now, { format: 'langchain', budgets: { tokens_max: BUDGET }, countTokens: tiktoken });
  freshMs.push(performance.now() - t);
  t = performance.now();
  lib.fitMessages(now, { format: 'langchain', budgets: { tokens_max: BUDGET }, countTokens: tiktoken, countCache });
  cachedMs.push(performance.now() - t);
}
// trimMessages counts every shrinking prefix of the history: the counter it gets remembers each
// message's count within the call (bench/others.mjs), as a careful caller would.
const counterFor = () => trimCounter(tiktoken);
let t = performance.now();
await trimMessages(lc, { maxTokens: BUDGET, tokenCounter: counterFor(), strategy: 'last', includeSystem: true, startOn: 'human' });
const trimMs = performance.now() - t;
process.stderr.write(`sessions: trimMessages ${(trimMs / 1000).toFixed(1)} s\n`);
const historyTokens = counterFor()(lc);
const cost = { session: median(sessionMs), fresh: median(freshMs), cached: median(cachedMs), warmCachedMs, trim: trimMs, warmMs, turns: lcEnds.length, messages: lc.length, historyTokens };

// ---- 4. per turn as the history grows (issue 30) ----

// The measurement is bench/session-turns.mjs's, which also runs it on its own beside an earlier build (--before).
const { last: LAST_TURNS, warm: WARM_TURNS } = turnCounts(smoke);
const growth = (smoke ? [100, 400] : [1_000, 10_000]).map((n) => ({ n, ...turnsAtWith(n) }));
function turnsAtWith(n) {
  const r = turnsAt(lib, n, { smoke });
  // The same turns with each history an equal copy, as frameworks that rebuild their messages each step pass them.
  const copies = turnsAt(lib, n, { smoke, fits: 0, copies: true }).turn;
  process.stderr.write(`sessions: a turn at ${r.messages} messages ${r.turn.toFixed(2)} ms (mean ${r.turnMean.toFixed(2)}, p90 ${r.turnP90.toFixed(2)}; of copies ${copies.toFixed(2)}), fitMessages ${r.fit.toFixed(1)} ms\n`);
  return { ...r, copies };
}

// ---- 3. large input ----

const large = largeInput({ smoke, before, log: (line) => process.stderr.write(`sessions: ${line}`) });

// ---- the report ----

const pct = (x) => `${(100 * x).toFixed(1)} %`;
const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
const meanOf = (key, sub) => reuse.reduce((a, r) => a + r[key][sub], 0) / reuse.length;
const minOf = (key, sub) => Math.min(...reuse.map((r) => r[key][sub]));
const rows = reuse.map((r) => `| ${r.format} | ${r.seed} | ${r.turns} | ${r.historyTokens} | ${pct(r.bound)} | ${pct(r.session.share)} (${pct(r.session.ofBound)}) | ${pct(r.session.use)} | ${pct(r.fresh.share)} (${pct(r.fresh.ofBound)}) | ${pct(r.fresh.use)} | ${pct(r.window.share)} (${pct(r.window.ofBound)}) | ${pct(r.window.use)} |`);
const met = (ok) => (smoke ? 'not judged (smoke)' : ok ? 'met' : '**missed**');
const section = `## Sessions (issue 15)

Produced by \`node bench/sessions.mjs --write bench/RESULTS.md\` (part of \`make bench\`).${smoke ? ' **Smoke run**: tiny sizes; the figures mean nothing.' : ''}

### Prefix reuse

Generated tool-heavy agent sessions (\`pkg/test/agent-sessions.mjs\`: ${ROUNDS} rounds of a user
request, one to six steps of tool calls, some parallel, 6 % of results large, and a reply) replayed
request by request (after each user or tool message) at \`tokens_max\` ${BUDGET}, counted with
\`estimateTokens\`. *Prefix share*: the prompt tokens that are the previous request's exact prefix
(leading messages equal as JSON, with the system prompt), over all prompt tokens, recomputed here
from the messages sent; in brackets, as a share of the *append-only bound* (every message sent
every turn, nothing ever cut). *Use*: the prompt over the budget, averaged over turns. *Session*:
\`createSession\` with \`cache\` set to the format's provider; *fitMessages*: afresh each turn; *recency
window*: the pinned messages, then whole units from the newest back until one does not fit.

| format | seed | turns | history at the end (tokens) | append-only bound | session: prefix share | use | fitMessages: prefix share | use | recency window: prefix share | use |
|--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}

### Cost of a turn

One LangChain history of ${cost.messages} messages (${ROUNDS} rounds, ${cost.turns} requests,
${cost.historyTokens} o200k tokens at the end), js-tiktoken (\`forEncoding('o200k_base')\`), budget ${BUDGET}.
Medians of the last ${LAST} turns, ms per turn:

| | ms per turn |
|--|--:|
| session (\`session.fit\`, counts cached; replaying the ${cost.turns - LAST} turns before took ${ms(cost.warmMs)} ms in all) | ${ms(cost.session)} |
| \`fitMessages\`, tokenizing the history each turn | ${ms(cost.fresh)} |
| \`fitMessages\` with a shared count cache (\`createCountCache()\` as \`countCache\`; the turns before took ${ms(cost.warmCachedMs)} ms in all) | ${ms(cost.cached)} |
| LangChain \`trimMessages\` (strategy \`'last'\`, one call at the last turn; its counter memoises each message's count within the call, without which it recounts every shrinking prefix, N × the history per turn) | ${ms(cost.trim)} |

### Targets

| target | measured | |
|--|--|--|
| prefix share ≥ 90 % of the append-only bound | session: mean ${pct(meanOf('session', 'ofBound'))}, lowest ${pct(minOf('session', 'ofBound'))} (fitMessages ${pct(meanOf('fresh', 'ofBound'))}, recency window ${pct(meanOf('window', 'ofBound'))}) | ${met(minOf('session', 'ofBound') >= 0.9)} |
| budget used ≥ 70 % on average | session: mean ${pct(meanOf('session', 'use'))}, lowest ${pct(minOf('session', 'use'))} | ${met(minOf('session', 'use') >= 0.7)} |
| \`fitMessages\` with a shared count cache ≥ 5× cheaper than without (issue 30) | ${ms(cost.cached)} ms vs ${ms(cost.fresh)} ms: ${(cost.fresh / cost.cached).toFixed(1)}× | ${met(cost.fresh / cost.cached >= 5)} |
| a turn ≥ 10× cheaper than tokenizing the history each turn | ${ms(cost.session)} ms vs ${ms(cost.fresh)} ms: ${(cost.fresh / cost.session).toFixed(1)}× (trimMessages ${ms(cost.trim)} ms) | ${met(cost.fresh / cost.session >= 10)} |

### Per turn as the history grows (issue 30)

Generated tool-heavy OpenAI agent histories (\`pkg/test/agent-sessions.mjs\`, seed 1) cut (at a request end) at about
${growth.map((g) => g.n.toLocaleString('en-US')).join(' and ')} messages, budget 40 tokens a message (at least 2,000), \`cache: 'openai'\`,
\`estimateTokens\`. *A turn*: one session through the history's last ${WARM_TURNS + LAST_TURNS + 1} requests one after
another (its first fit takes the history up to the first of them), the median, mean and 90th
percentile (nearest rank) of the last ${LAST_TURNS}: the median is the common turn; the mean and the 90th
percentile show the turns whose new question makes the session re-plan. *Of copies*: the same
turns in another session, each history an equal copy of the messages (\`structuredClone\`, before
the clock starts), as frameworks that rebuild their messages each step pass them; the median.
*fitMessages*: the whole history, the median of ${smoke ? 1 : 3} calls.

| messages | a turn, median (ms) | mean (ms) | 90th percentile (ms) | a turn of copies, median (ms) | \`fitMessages\` (ms) |
|--:|--:|--:|--:|--:|--:|
${growth.map((g) => `| ${g.messages.toLocaleString('en-US')} | ${ms(g.turn)} | ${ms(g.turnMean)} | ${ms(g.turnP90)} | ${ms(g.copies)} | ${ms(g.fit)} |`).join('\n')}

| target | measured | |
|--|--|--|
| a turn at the larger history ≤ 1.5× a turn at the smaller | ${ms(growth[1].turn)} ms vs ${ms(growth[0].turn)} ms: ${(growth[1].turn / growth[0].turn).toFixed(1)}× | ${met(growth[1].turn <= 1.5 * growth[0].turn)} |
| a turn at the larger history ≤ 5 ms | ${ms(growth[1].turn)} ms | ${met(growth[1].turn <= 5)} |
| \`fitMessages\` on the larger history ≤ 100 ms | ${ms(growth[1].fit)} ms | ${met(growth[1].fit <= 100)} |

${large.section}`;

putSection(section, '## Sessions (issue 15)', out, large.failures.length > 0 ? [`wrong selections:\n${large.failures.join('\n')}`] : []);
