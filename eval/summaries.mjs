// Summaries of what a session cuts (issue 32), side by side with cutting only: each generated agent
// conversation (agents.mjs) replayed request by request through one session, its question last,
// at budgets of 10 and 20 % of the history, with OpenAI's cache. The summariser is the
// deterministic stand-in of pkg/test/summary-stand-in.mjs (the lines with numbers, paths, names
// and decisions), so no model is called. Measured at the question's request:
// - evidence recall: evidence messages kept in full, and (with summaries) those whose key facts
//   (the stand-in's lines of that message alone) are in the summary sent;
// - predicted cost over the replay: Σ metrics.predicted_cost (uncached-input prices) plus every
//   summariser call (input × inputCost + output × outputCost, tokens by estimateTokens);
// - cache reuse: Σ prefixTokens / Σ prompt tokens.
// `node eval/summaries.mjs` (seeds 1–3, about 150 s here) writes eval/SUMMARIES.md; `--seeds 1` a quick run.
// Not part of `make eval` yet (run.mjs is shared with other work): run it by hand.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { agentCases } from './datasets.mjs';
import { standInSummary } from '../pkg/test/summary-stand-in.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { createSession, estimateTokens, requestEnds } = await import(pathToFileURL(join(root, 'pkg/dist/node.js')).href);

export const SUMMARY_BUDGETS = [0.1, 0.2];
/** The strategies: cutting only, and summaries at a small model's prices and at the defaults (the agent's own model). */
export const SUMMARY_STRATEGIES = [
  { name: 'cut only', summary: undefined },
  { name: 'summaries (small model: 0.05 / 0.2)', summary: { inputCost: 0.05, outputCost: 0.2 } },
  { name: 'summaries (default prices: 1 / 4)', summary: {} },
];

/** One case at one budget through one strategy. */
export function runCase(c, tokensMax, strategy) {
  let callCost = 0;
  let calls = 0;
  const prices = { inputCost: strategy.summary?.inputCost ?? 1, outputCost: strategy.summary?.outputCost ?? 4 };
  const summarize = (q) => {
    const text = standInSummary(q.messages, q.maxTokens);
    calls++;
    callCost += prices.inputCost * estimateTokens(JSON.stringify(q.messages)) + prices.outputCost * estimateTokens(text);
    return text;
  };
  const session = createSession({ format: 'openai', budgets: { tokens_max: tokensMax }, cache: 'openai', ...(strategy.summary === undefined ? {} : { summarize, summary: strategy.summary }) });
  let cost = 0;
  let prompt = 0;
  let prefix = 0;
  let last;
  for (const end of requestEnds(c.messages, 'openai')) {
    last = session.fit(c.messages.slice(0, end + 1));
    cost += last.metrics.predicted_cost;
    prompt += last.metrics.prompt_tokens;
    prefix += last.cache.prefixTokens;
  }
  let full = 0;
  let summarized = 0;
  const summaryText = last.summary ? String(last.messages[last.summary.index].content) : '';
  for (const i of c.evidence) {
    const d = last.decisions[i];
    if (d.included && !d.stubbed) full++;
    else if (d.reason === 'summarized') {
      const facts = standInSummary([c.messages[i]], 1e9).split('\n').filter((l) => l !== 'Nothing to keep.');
      if (facts.length > 0 && facts.some((f) => summaryText.includes(f))) summarized++;
    }
  }
  return { evidence: c.evidence.length, full, summarized, cost: cost + callCost, callCost, calls, prompt, prefix };
}

export function evaluateSummaries(cases, budgets = SUMMARY_BUDGETS, strategies = SUMMARY_STRATEGIES) {
  const out = {};
  for (const s of strategies) {
    out[s.name] = {};
    for (const b of budgets) {
      const t = { evidence: 0, full: 0, summarized: 0, cost: 0, callCost: 0, calls: 0, prompt: 0, prefix: 0, cases: 0 };
      for (const c of cases) {
        const total = c.messages.reduce((a, m) => a + estimateTokens(JSON.stringify(m)), 0);
        const r = runCase(c, Math.floor(b * total), s);
        for (const k of Object.keys(r)) t[k] += r[k];
        t.cases++;
      }
      out[s.name][b] = t;
    }
  }
  return out;
}

function table(results) {
  const pct = (a, b) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)} %`);
  const lines = ['| strategy | budget | evidence recall (in full + in the summary) | predicted cost (of which summariser calls) | calls | cache reuse |', '|---|--:|---|--:|--:|--:|'];
  for (const [name, byBudget] of Object.entries(results)) {
    for (const [b, t] of Object.entries(byBudget)) {
      lines.push(`| ${name} | ${Math.round(b * 100)} % | ${pct(t.full + t.summarized, t.evidence)} (${pct(t.full, t.evidence)} + ${pct(t.summarized, t.evidence)}) | ${Math.round(t.cost).toLocaleString('en-US')} (${Math.round(t.callCost).toLocaleString('en-US')}) | ${t.calls} | ${pct(t.prefix, t.prompt)} |`);
    }
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--seeds');
  const seeds = Array.from({ length: i > 0 ? Number(process.argv[i + 1]) : 3 }, (_, k) => k + 1);
  const cases = agentCases(seeds);
  const t0 = Date.now();
  const results = evaluateSummaries(cases);
  const md = `# Summaries of what is cut, against cutting only

\`node eval/summaries.mjs\` (eval/summaries.mjs): the generated agent conversations of agents.mjs
(seeds ${seeds[0]}–${seeds.at(-1)}, ${cases.length} cases, each replayed request by request with its question
last) through a session with OpenAI's cache at ${SUMMARY_BUDGETS.map((b) => `${b * 100} %`).join(' and ')} of the history's tokens; the
summariser is the deterministic stand-in of pkg/test/summary-stand-in.mjs. Evidence is recalled
when kept in full at the question's request, or when one of its key facts (the stand-in's lines of
that message alone) is in the summary sent. Costs in uncached input tokens (OpenAI: cached reads
0.5), summariser calls at the strategy's prices. Cache reuse: the share of prompt tokens that are
the previous request's prefix.

${table(results)}

Run time ${((Date.now() - t0) / 1000).toFixed(0)} s.
`;
  writeFileSync(join(root, 'eval', 'SUMMARIES.md'), md);
  process.stdout.write(md);
}
