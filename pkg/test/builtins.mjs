// The comparison of ctxpack's adapters with each framework's own ways of managing a long history
// (docs/*.md, "Beside <framework>'s own"): the same 64-step tool agent for every framework, and
// one measure of the requests its fake model received, the same for every row of every table.
//
// - valid: the request passes validateMessages for its format and the SDK's own check where it
//   has one (sdk-check.mjs);
// - task kept: the request holds the task (the first user message of the first request, equal);
// - within budget: the request's prompt tokens are at most BUDGET, counted by a real tokenizer
//   (js-tiktoken's o200k_base, OpenAI's current encoding: `countText`, which the rows that take a
//   counter are given too) through ctxpack's counting rules for the format (the system prompt,
//   the tools' names and descriptions, per-message overheads);
// - cache reuse: Σ the tokens each request repeats from the start of the request before it (what
//   leads the prompt: the tools' names and descriptions; then the system prompt and whole
//   messages, equal as ctxpack reads them and in order, up to the first that differs), over Σ
//   every request's tokens, the first included: what a provider's prompt cache could read. It is
//   summarizeReplay's prefix share, measured by a session that keeps every message of each
//   request (a request it cannot take whole is refused, never measured wrong);
// - extra model calls: the calls a built-in makes beside the agent's own (a summarizer's).
//
// A docs table is the table `renderTable` makes of what a run measured, and `checkTable` fails
// when the page's table differs (UPDATE_TABLES=1 writes the measured one into the page instead).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createSession, summarizeReplay, validateMessages } from 'ctxpack';
import { forEncoding } from 'ctxpack/tokenizers/js-tiktoken';
import { sdkCheck } from './sdk-check.mjs';

export const STEPS = 64;
export const BUDGET = 22_000;
export const SYSTEM = 'You are a coding agent. Read the files you need, one at a time, then fix the bug.';
export const TASK = 'Fix the login bug: sessions expire after one minute.';
export const TOOL = { name: 'read_file', description: 'Reads a file of the repository.' };
/** The path the agent reads at step `k` (1-based). */
export const filePath = (k) => `src/auth/file${k}.ts`;
/**
 * What read_file returns: 28 lines of code, 12 of them each its own, the others alike: about 460
 * tokens by ctxpack's estimate and by o200k_base alike (repeated lines alone would be 20 % fewer
 * by a real tokenizer than by the estimate).
 */
export const fileText = (path) => `// ${path}\n${Array.from({ length: 28 }, (_, i) => (i % 7 < 3
  ? `export const expiry${i} = readSeconds(config.session${i}.tokenTtl) * ${i + 1}; // ${path}:${i + 1}\n`
  : 'export const line = "session token expiry";\n')).join('')}`;
/** The agent's answer after its last tool call. */
export const ANSWER = 'Fixed: the expiry is read in seconds now.';

const o200k = forEncoding('o200k_base');
const counted = new Map();
/**
 * The referee's tokenizer, o200k_base (memoised per text), the same for every row: the measure
 * counts with it, and so does every row that takes a counter (ctxpack's `countTokens`, LangChain's
 * `tokenCounter`).
 */
export const countText = (text) => {
  let n = counted.get(text);
  if (n === undefined) counted.set(text, (n = o200k(text)));
  return n;
};
/** A counting budget no request reaches: the measuring session keeps every message. */
const UNBOUNDED = 10_000_000;

/**
 * The figures of one run: `requests` as the model received them, each an array of messages in
 * `format` (a name or `{ name, ... }`), the system prompt in them or given as `system` (the same
 * for every request, as the Responses API's `instructions`); `tools` as ctxpack counts them.
 */
export function measure(requests, { format, system, tools = [TOOL], extraCalls = 0 }) {
  const name = typeof format === 'string' ? format : format.name;
  const taskOf = requests[0]?.find((m) => JSON.stringify(m).includes(JSON.stringify(TASK)));
  assert.ok(taskOf !== undefined, 'the first request has no task');
  const task = JSON.stringify(taskOf);
  const session = createSession({ format, budgets: { tokens_max: UNBOUNDED }, cache: 'openai', tools, countTokens: countText });
  let valid = 0;
  let taskKept = 0;
  let withinBudget = 0;
  const turns = [];
  for (const [k, messages] of requests.entries()) {
    let ok = validateMessages(messages, format).length === 0;
    if (ok) {
      try {
        sdkCheck(name, messages);
      } catch {
        ok = false;
      }
    }
    if (ok) valid++;
    if (messages.some((m) => JSON.stringify(m) === task)) taskKept++;
    const r = session.fit(messages, system === undefined ? {} : { system });
    assert.equal(r.messages.length, messages.length, `request ${k}: the measuring session left a message out`);
    if (r.metrics.prompt_tokens <= BUDGET) withinBudget++;
    // As replaySession reports a turn; the request is kept whole, so its history is itself.
    turns.push({ turn: k + 1, historyMessages: messages.length, sentMessages: messages.length, promptTokens: r.metrics.prompt_tokens, historyTokens: r.metrics.prompt_tokens,
      budgetUsed: r.metrics.budget_used, effectiveBudget: r.metrics.effective_budget, prefixTokens: r.cache.prefixTokens, predictedCachedTokens: r.cache.predictedCachedTokens, predictedCost: r.metrics.predicted_cost, cut: r.cache.cut });
  }
  const largest = Math.max(0, ...turns.map((t) => t.promptTokens));
  return { requests: requests.length, valid, taskKept, withinBudget, largest, cacheReuse: summarizeReplay(turns).prefixShare, extraCalls };
}

const HEADER = '| in the agent | valid requests | with the task | within 22,000 tokens (largest, o200k_base) | cache reuse | extra model calls |\n|---|---|---|---|---|---|';
const of = (n, m) => `${n} of ${m.requests}`;
const thousands = (n) => n.toLocaleString('en-US');

/** A docs table of `rows`: `[label, figures]`, the label in Markdown as the page shows it. */
export function renderTable(rows) {
  const line = ([label, m]) => `| ${label} | ${of(m.valid, m)} | ${of(m.taskKept, m)} | ${of(m.withinBudget, m)} (${thousands(m.largest)}) | ${Math.round(100 * m.cacheReuse)} % | ${m.extraCalls} |`;
  return [HEADER, ...rows.map(line)].join('\n');
}

/**
 * Fails unless the first table under `## <heading>` of `page` (a path from the repository's root,
 * or a file URL) is `renderTable(rows)`; with UPDATE_TABLES=1 in the environment, writes it there
 * instead.
 */
export function checkTable(page, heading, rows) {
  const file = page instanceof URL ? page : new URL(`../../${page}`, import.meta.url);
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `${page} has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? text.length : end);
  const table = /\n(\|[^\n]*\n?)+/.exec(section);
  assert.ok(table, `${page}, "${heading}": no table`);
  const expected = renderTable(rows);
  const found = table[0].trim();
  if (found !== expected && process.env.UPDATE_TABLES === '1') {
    const at = start + table.index + table[0].indexOf('|');
    writeFileSync(file, text.slice(0, at) + expected + text.slice(at + found.length));
    return;
  }
  assert.equal(found, expected, `${page}, "${heading}": the table differs from what the run measured (UPDATE_TABLES=1 writes it)`);
}
