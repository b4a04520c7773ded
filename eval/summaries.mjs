// Summaries of what is cut (issue 32), side by side: the generated agent conversations
// (agents.mjs), the generated dialogues (dialogue.mjs) and the recorded session of www/samples
// (evidence.json), each case replayed request by request, its question last, at budgets of 10
// and 20 % of the history, through
// - a ctxpack session that cuts only (OpenAI's cache);
// - a ctxpack session with summaries (`summarize`), at a small model's prices and at the defaults;
// - LangChain's own `summarizationMiddleware` (langchain@1, a dev dependency of pkg) in a real
//   `createAgent` with a checkpointer: the agent's model is a chat model of @langchain/core that
//   answers with the recorded assistant messages, the tools answer with the recorded results, and
//   the middleware's summary model answers with the stand-in's text. Its default keep (20
//   messages), its trigger at the budget (it has no default trigger; the docs' example triggers
//   at a token count);
// - Mastra-style threshold compaction, a re-implementation (not Mastra's code): Mastra's
//   observational memory observes the unobserved messages into observations when they pass 30k
//   tokens and reflects (condenses) the observations when they pass 40k; scaled to the budget B,
//   at 3/7·B and 4/7·B (30k + 40k = B). The observations stand after the system prompt as one
//   system message; the unit in flight is never observed.
// Every summary is the deterministic stand-in of pkg/test/summary-stand-in.mjs (the lines with
// numbers, paths, names and decisions) at one length rule for all (ctxpack's: a tenth of what it
// reads, at least 64 tokens, at most 5 % of the budget and 2000), so no model is called.
// Measured on the requests as sent, the same way for every strategy:
// - evidence recall at the question's request: evidence messages in it in full, and those whose
//   key facts (the stand-in's lines of that message alone) are in a summary in it;
// - predicted cost over the replay: each request's input at OpenAI's cache (the previous
//   request's common prefix read at 0.5 from 1024 tokens, in steps of 128; the rest at 1), plus
//   every summariser call (input × inputCost + output × outputCost), tokens by estimateTokens;
// - cache reuse: Σ prefix tokens / Σ prompt tokens; requests over the budget (tokens as a session
//   counts them: fitMessages' cost_tokens per message).
// `node eval/summaries.mjs [--seeds 10] [--dialogue-seeds 2]` writes eval/SUMMARIES.md and
// .cache/eval/summaries.json, which eval/plot.py draws as eval/summaries.svg (run by `make eval`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { agentCases, dialogueCases, recordedCases } from './datasets.mjs';
import { standInSummary } from '../pkg/test/summary-stand-in.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { createSession, estimateTokens, fitMessages, requestEnds } = await import(pathToFileURL(join(root, 'pkg/dist/node.js')).href);
// LangChain is a dev dependency of the package; resolved from there.
const requirePkg = createRequire(join(root, 'pkg/package.json'));
const lc = await import(pathToFileURL(requirePkg.resolve('langchain')).href);
const { MemorySaver } = await import(pathToFileURL(requirePkg.resolve('@langchain/langgraph')).href);
const { BaseChatModel } = await import(pathToFileURL(requirePkg.resolve('@langchain/core/language_models/chat_models')).href);
const { AIMessage, HumanMessage } = await import(pathToFileURL(requirePkg.resolve('@langchain/core/messages')).href);
const { z } = await import(pathToFileURL(requirePkg.resolve('zod')).href);

export const SUMMARY_BUDGETS = [0.1, 0.2];
const SMALL = { inputCost: 0.05, outputCost: 0.2 };
const OWN = { inputCost: 1, outputCost: 4 };
/** The strategies. `prices`: the summariser's, for the cost (a baseline's behaviour does not depend on them, so each is run once and priced twice). */
export const SUMMARY_STRATEGIES = [
  { name: 'cut only', kind: 'session', summary: undefined, prices: [OWN] },
  { name: 'cut only, appending on every new question', kind: 'session', summary: undefined, session: { replanOnQuestion: false }, prices: [OWN], baseline: true },
  { name: 'ctxpack summaries (small model: 0.05 / 0.2)', kind: 'session', summary: SMALL, prices: [SMALL] },
  { name: 'ctxpack summaries (default prices: 1 / 4)', kind: 'session', summary: {}, prices: [OWN] },
  { name: 'LangChain summarizationMiddleware', kind: 'langchain', prices: [SMALL, OWN] },
  { name: 'Mastra-style thresholds (re-implemented)', kind: 'mastra', prices: [SMALL, OWN] },
];

/** The stand-in's length for a span of `tokens` at budget `budget` (ctxpack's default rule, for every strategy). */
const lengthFor = (tokens, budget) => Math.max(64, Math.min(2000, Math.round(0.05 * budget), Math.round(tokens / 10)));

/** A message of either format as sent: role, text, tool calls, tool result id. */
function view(m) {
  if (typeof m?.getType === 'function') {
    const role = { human: 'user', ai: 'assistant', tool: 'tool', system: 'system' }[m.getType()] ?? m.getType();
    const calls = (m.tool_calls ?? []).map((t) => [t.id, t.name, JSON.stringify(t.args)]);
    return JSON.stringify([role, m.text ?? '', calls, m.tool_call_id ?? null]);
  }
  const text = typeof m.content === 'string' ? m.content : m.content == null ? '' : m.content.map((b) => b.text ?? '').join('');
  const calls = (m.tool_calls ?? []).map((t) => [t.id, t.function.name, JSON.stringify(JSON.parse(t.function.arguments))]);
  return JSON.stringify([m.role, text, calls, m.tool_call_id ?? null]);
}

/** The requests as sent, priced at OpenAI's cache; the question's request kept. */
class Ledger {
  constructor(tokensMax) {
    this.tokensMax = tokensMax;
    this.keys = [];
    this.prompt = 0;
    this.prefix = 0;
    this.cost = 0;
    this.over = 0;
    this.requests = 0;
  }
  add(request, format) {
    const keys = request.map(view);
    // Tokens as a session counts them (the budget's own measure), per message.
    const tokens = fitMessages(request, { format, budgets: { tokens_max: 1e9 } }).decisions.map((d) => d.cost_tokens);
    let i = 0;
    let prefix = 0;
    while (i < keys.length && i < this.keys.length && keys[i] === this.keys[i]) prefix += tokens[i++];
    const prompt = tokens.reduce((a, b) => a + b, 0);
    const cached = prefix >= 1024 ? 1024 + Math.floor((prefix - 1024) / 128) * 128 : 0;
    this.cost += 0.5 * cached + (prompt - cached);
    this.prompt += prompt;
    this.prefix += prefix;
    if (prompt > this.tokensMax) this.over++;
    this.requests++;
    this.keys = keys;
    this.last = keys;
  }
  clone() {
    return Object.assign(new Ledger(this.tokensMax), this);
  }
}

/** A summariser's calls: tokens read and written. */
class Calls {
  constructor() {
    this.n = 0;
    this.input = 0;
    this.output = 0;
  }
  add(input, text) {
    this.n++;
    this.input += estimateTokens(input);
    this.output += estimateTokens(text);
    return text;
  }
  cost(p) {
    return p.inputCost * this.input + p.outputCost * this.output;
  }
}

/** Evidence at the question's request: in full, or a key fact in one of `summaries` (texts). */
function evidenceOf(c, finalKeys, summaries) {
  const inRequest = new Set(finalKeys);
  const text = summaries.join('\n');
  let full = 0;
  let summarized = 0;
  for (const i of c.evidence) {
    if (inRequest.has(view(c.messages[i]))) full++;
    else {
      const facts = standInSummary([c.messages[i]], 1e9).split('\n').filter((l) => l !== 'Nothing to keep.');
      if (facts.some((f) => text.includes(f))) summarized++;
    }
  }
  return { evidence: c.evidence.length, full, summarized };
}

/** A ctxpack session, cutting only or with summaries. */
function runSession(c, tokensMax, strategy) {
  const calls = new Calls();
  const summarize = (q) => calls.add(JSON.stringify(q.messages), standInSummary(q.messages, q.maxTokens));
  const session = createSession({ format: 'openai', budgets: { tokens_max: tokensMax }, cache: 'openai', ...strategy.session, ...(strategy.summary === undefined ? {} : { summarize, summary: strategy.summary }) });
  const ledger = new Ledger(tokensMax);
  let last;
  for (const end of requestEnds(c.messages, 'openai')) {
    last = session.fit(c.messages.slice(0, end + 1));
    ledger.add(last.messages, 'openai');
  }
  const summaries = last.summary ? [String(last.messages[last.summary.index].content)] : [];
  return { ...evidenceOf(c, ledger.last, summaries), ledger, calls };
}

/** Mastra-style: observe the unobserved messages past 3/7 of the budget, reflect the observations past 4/7. */
function runMastra(c, tokensMax) {
  const calls = new Calls();
  const tokens = (list) => list.reduce((a, m) => a + estimateTokens(view(m)), 0);
  const [system] = c.messages;
  let observations = [];
  let unobserved = [];
  let next = 1;
  const ledger = new Ledger(tokensMax);
  let request;
  for (const end of requestEnds(c.messages, 'openai')) {
    unobserved.push(...c.messages.slice(next, end + 1));
    next = end + 1;
    if (tokens(unobserved) > (3 / 7) * tokensMax) {
      // The unit in flight stays: from the last user message or assistant message on.
      let k = unobserved.length - 1;
      while (k > 0 && unobserved[k].role === 'tool') k--;
      const span = unobserved.slice(0, k);
      if (span.length > 0) {
        observations.push(calls.add(JSON.stringify(span), standInSummary(span, lengthFor(tokens(span), tokensMax))));
        unobserved = unobserved.slice(k);
      }
    }
    const observed = observations.join('\n');
    if (estimateTokens(observed) > (4 / 7) * tokensMax) {
      observations = [calls.add(observed, standInSummary([{ content: observed }], lengthFor(estimateTokens(observed), tokensMax)))];
    }
    request = [system, ...(observations.length > 0 ? [{ role: 'system', content: `Observations:\n${observations.join('\n')}` }] : []), ...unobserved];
    ledger.add(request, 'openai');
  }
  return { ...evidenceOf(c, ledger.last, observations), ledger, calls };
}

/** A chat model of @langchain/core whose answer is `answer(messages)`. */
class AnsweringModel extends BaseChatModel {
  constructor(answer) {
    super({});
    this.answer = answer;
  }
  _llmType() {
    return 'recorded';
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const message = this.answer(messages);
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

/**
 * LangChain's summarizationMiddleware in a real createAgent, over the cases of one conversation
 * (the same history but the question): the history before the question replayed once on one
 * thread, then each question on a fresh thread that starts from that thread's state (what the
 * first thread would have had).
 */
async function runLangChain(cases, tokensMax) {
  const msgs = cases[0].messages.slice(0, -1);
  const results = new Map(msgs.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
  const names = [...new Set(cases[0].messages.flatMap((m) => (m.tool_calls ?? []).map((t) => t.function.name)))];
  const tools = names.map((name) => lc.tool(async (_args, config) => results.get(config.toolCall.id), { name, description: name, schema: z.object({}).passthrough() }));
  let next = 0;
  let ledger = new Ledger(tokensMax);
  let calls = new Calls();
  const model = new AnsweringModel((request) => {
    ledger.add(request, 'langchain');
    while (next < msgs.length && msgs[next].role !== 'assistant') next++;
    if (next >= msgs.length) return new AIMessage('Done.');
    const m = msgs[next++];
    return new AIMessage({ content: m.content ?? '', tool_calls: (m.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, args: JSON.parse(t.function.arguments), type: 'tool_call' })) });
  });
  const summarizer = new AnsweringModel((request) => {
    const prompt = request.map((m) => m.text).join('\n');
    const body = prompt.split('Messages to summarize:\n')[1]?.split('\n</messages>')[0] ?? prompt;
    return new AIMessage(calls.add(prompt, standInSummary([{ content: body }], lengthFor(estimateTokens(body), tokensMax))));
  });
  const middleware = lc.summarizationMiddleware({ model: summarizer, trigger: { tokens: tokensMax }, keep: { messages: 20 }, tokenCounter: (list) => list.reduce((a, m) => a + estimateTokens(view(m)), 0) });
  const agent = lc.createAgent({ model, tools, systemPrompt: msgs[0].content, middleware: [middleware], checkpointer: new MemorySaver() });
  const config = (thread) => ({ configurable: { thread_id: thread }, recursionLimit: 10_000 });
  let i = 1;
  while (i < msgs.length) {
    const batch = [];
    while (i < msgs.length && msgs[i].role === 'user') batch.push(new HumanMessage(msgs[i++].content));
    next = i;
    await agent.invoke({ messages: batch }, config('shared'));
    i = next;
  }
  const state = (await agent.getState(config('shared'))).values.messages;
  const shared = { ledger, calls };
  const out = [];
  for (const [k, c] of cases.entries()) {
    ledger = shared.ledger.clone();
    calls = Object.assign(new Calls(), shared.calls);
    next = msgs.length;
    const final = await agent.invoke({ messages: [...state, new HumanMessage(c.messages.at(-1).content)] }, config(`case ${k}`));
    // The question's request is the last the model got; its summary, the middleware's message.
    const request = final.messages;
    const summaries = request.filter((m) => m.additional_kwargs?.lc_source === 'summarization').map((m) => m.text);
    out.push({ ...evidenceOf(c, ledger.last, summaries), ledger, calls });
  }
  return out;
}

/** The cases of one conversation: the same messages but the question. */
function byConversation(cases) {
  const groups = new Map();
  for (const c of cases) {
    const key = JSON.stringify(c.messages.slice(0, -1));
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  return [...groups.values()];
}

const historyTokens = (c) => c.messages.reduce((a, m) => a + estimateTokens(JSON.stringify(m)), 0);

export async function evaluateSummaries(cases, { budgets = SUMMARY_BUDGETS, strategies = SUMMARY_STRATEGIES } = {}) {
  const out = {};
  for (const s of strategies) {
    out[s.name] = {};
    for (const b of budgets) {
      const t = { evidence: 0, full: 0, summarized: 0, calls: 0, callCost: s.prices.map(() => 0), cost: 0, prompt: 0, prefix: 0, over: 0, requests: 0, cases: 0 };
      const add = (r) => {
        for (const k of ['evidence', 'full', 'summarized']) t[k] += r[k];
        t.calls += r.calls.n;
        s.prices.forEach((p, k) => (t.callCost[k] += r.calls.cost(p)));
        for (const k of ['cost', 'prompt', 'prefix', 'over', 'requests']) t[k] += r.ledger[k];
        t.cases++;
      };
      if (s.kind === 'langchain') {
        for (const group of byConversation(cases)) {
          // One budget for the conversation: its first case's (the cases differ only by the question).
          for (const r of await runLangChain(group, Math.floor(b * historyTokens(group[0])))) add(r);
        }
      } else {
        for (const c of cases) add(s.kind === 'mastra' ? runMastra(c, Math.floor(b * historyTokens(c))) : runSession(c, Math.floor(b * historyTokens(c)), s));
      }
      out[s.name][b] = t;
    }
  }
  return out;
}

/** Recall (in full + in a summary) per strategy and budget, as fractions. */
export function summaryRecall(results) {
  const out = {};
  for (const [name, byBudget] of Object.entries(results)) {
    out[name] = {};
    for (const [b, t] of Object.entries(byBudget)) out[name][b] = t.evidence === 0 ? 0 : (t.full + t.summarized) / t.evidence;
  }
  return out;
}

export function summaryTable(results) {
  const pct = (a, b) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)} %`);
  const num = (x) => Math.round(x).toLocaleString('en-US');
  const lines = [
    '| strategy | budget | evidence recall (in full + in a summary) | summariser calls | predicted cost (of which the calls), calls at | cache reuse | requests over the budget |',
    '|---|--:|---|--:|--:|--:|--:|',
  ];
  const strategies = new Map(SUMMARY_STRATEGIES.map((s) => [s.name, s]));
  for (const [name, byBudget] of Object.entries(results)) {
    const prices = strategies.get(name)?.prices ?? [OWN];
    for (const [b, t] of Object.entries(byBudget)) {
      const costs = prices.map((p, k) => `${num(t.cost + t.callCost[k])} (${num(t.callCost[k])}) at ${p.inputCost} / ${p.outputCost}`).join('; ');
      lines.push(`| ${name} | ${Math.round(b * 100)} % | ${pct(t.full + t.summarized, t.evidence)} (${pct(t.full, t.evidence)} + ${pct(t.summarized, t.evidence)}) | ${t.calls} | ${costs} | ${pct(t.prefix, t.prompt)} | ${t.over} of ${t.requests} |`);
    }
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const seeds = Array.from({ length: arg('--seeds', 10) }, (_, k) => k + 1);
  const dialogueSeeds = Array.from({ length: arg('--dialogue-seeds', 2) }, (_, k) => k + 1);
  const sets = [
    ['agents', `Generated agent conversations (agents.mjs, seeds ${seeds[0]}–${seeds.at(-1)})`, agentCases(seeds)],
    ['dialogue', `Generated dialogues (dialogue.mjs, seeds ${dialogueSeeds[0]}–${dialogueSeeds.at(-1)})`, dialogueCases(dialogueSeeds)],
    ['recorded', 'Recorded session (www/samples/agent-chat.openai.json, evidence.json)', recordedCases(root)],
  ];
  const t0 = Date.now();
  const all = {};
  const sections = [];
  for (const [key, title, cases] of sets) {
    const results = await evaluateSummaries(cases);
    all[key] = results;
    sections.push(`## ${title}: ${cases.length} case${cases.length === 1 ? '' : 's'}\n\n${summaryTable(results)}\n`);
  }
  const md = `# Summaries of what is cut, side by side

\`make eval\` (\`node eval/summaries.mjs\`, eval/summaries.mjs): the generated agent conversations of
agents.mjs, the generated dialogues of dialogue.mjs and the recorded session of www/samples, each
case replayed request by request with its question last, at ${SUMMARY_BUDGETS.map((b) => `${b * 100} %`).join(' and ')} of the history's tokens.
Every summary is the deterministic stand-in of pkg/test/summary-stand-in.mjs, at one length rule
for all (a tenth of what it reads, 64 tokens at least, 5 % of the budget at most). eval/summaries.svg
plots recall against cost.

- **cut only**, **ctxpack summaries**: a ctxpack session with OpenAI's cache, without and with
  \`summarize\` (at a small model's prices, and at the defaults: the agent's own model).
  **Appending on every new question**: cutting only with \`replanOnQuestion: false\` (a turn
  whose new messages fit always appends: the sessions before a new question could cut).
- **LangChain summarizationMiddleware**: langchain's own middleware in a real \`createAgent\` with a
  checkpointer, its model answering with the recorded messages and its summary model with the
  stand-in; its default keep (20 messages), triggered at the budget's tokens.
- **Mastra-style thresholds**: a re-implementation of Mastra's observational memory's thresholds
  (an observer at 30k tokens of unobserved messages, a reflector at 40k of observations) scaled to
  the budget: 3/7 and 4/7 of it.

Evidence is recalled when it is in the question's request in full, or when one of its key facts
(the stand-in's lines of that message alone) is in a summary in it. Predicted cost: every request
as sent at OpenAI's cache (the previous request's common prefix read at 0.5 from 1024 tokens, in
steps of 128), plus the summariser's calls at the prices shown, in uncached input tokens. Cache
reuse: the share of prompt tokens that are the previous request's prefix. The threshold
strategies do not hold a budget: the last column counts their requests over it.

${sections.join('\n')}
Run time ${((Date.now() - t0) / 1000).toFixed(0)} s.
`;
  writeFileSync(join(root, 'eval', 'SUMMARIES.md'), md);
  mkdirSync(join(root, '.cache', 'eval'), { recursive: true });
  const strategies = SUMMARY_STRATEGIES.map((x) => x.name);
  const points = {};
  for (const [key] of sets) {
    points[key] = {};
    for (const name of strategies) {
      points[key][name] = {};
      for (const [b, t] of Object.entries(all[key][name])) {
        // The cost at the strategy's first prices (the table's first), relative to cutting only's at the same budget.
        const base = all[key]['cut only'][b];
        points[key][name][b] = { recall: t.evidence === 0 ? 0 : (t.full + t.summarized) / t.evidence, cost: (t.cost + t.callCost[0]) / (base.cost + base.callCost[0]) };
      }
    }
  }
  writeFileSync(join(root, '.cache', 'eval', 'summaries.json'), JSON.stringify({ datasets: sets.map(([k, title]) => [k, title]), budgets: SUMMARY_BUDGETS, strategies, points }, null, 1));
  process.stdout.write(md);
}
