// What each strategy keeps of one case at one budget: the kept message indexes, in conversation
// order. Every strategy sees the same token counts (fitMessages' own, from one probe call) and the
// same budget; the prompt is always sent in conversation order.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { embeddingRun, fakeEmbedder } from './embeddings.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { fitMessages, selectFragments } = await import(pathToFileURL(join(root, 'pkg/dist/node.js')).href);
const { PLANNER_SLICERS } = await import(pathToFileURL(join(root, 'pkg/dist/node-acs.js')).href);
// LangChain is a dev dependency of the package; resolved from there.
const requirePkg = createRequire(join(root, 'pkg/package.json'));
const { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } = await import(pathToFileURL(requirePkg.resolve('@langchain/core/messages')).href);

/**
 * What fitMessages sees of a case, from one call with room for everything: each message's token
 * count, its atomic unit (a tool call with its results) and whether it is always kept.
 */
export function probe(messages) {
  const d = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 2 ** 31 } }).decisions;
  const costs = d.map((x) => x.cost_tokens);
  return {
    costs,
    units: d.map((x) => x.unit),
    pinned: d.map((x) => x.reason === 'pinned'),
    pinnedTokens: d.reduce((s, x) => s + (x.reason === 'pinned' ? x.cost_tokens : 0), 0),
    total: costs.reduce((a, b) => a + b, 0),
  };
}

// A message sent as its stub (stubToolResults) does not carry its content: it is not kept.
const keptBy = (decisions) => decisions.flatMap((x, i) => (x.included && !x.stubbed ? [i] : []));

/** The text BM25 scores for a message as a fragment: its content and its tool calls. */
function fragmentText(m) {
  const calls = (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`);
  return [typeof m.content === 'string' ? m.content : '', ...calls].join('\n');
}

const T0 = Date.parse('2026-11-01T00:00:00Z');

/** One fragment per message: its count, its unit as a group, pins, a minute per turn, the text for `query`. */
function fragments(messages, p) {
  const size = new Map();
  for (const u of p.units) size.set(u, (size.get(u) ?? 0) + 1);
  return messages.map((m, i) => {
    const f = { id: `m${i}`, cost_tokens: p.costs[i], timestamp: T0 + i * 60_000, kind: m.role, content: fragmentText(m) };
    if (size.get(p.units[i]) > 1) f.group = `u${p.units[i]}`;
    if (p.pinned[i]) f.pinned = true;
    return f;
  });
}

/** The LangChain message of `m`, with its index as its `id` (trimMessages returns copies of some messages). */
function toLangChain(m, i) {
  const id = String(i);
  switch (m.role) {
    case 'system':
      return new SystemMessage({ content: m.content, id });
    case 'user':
      return new HumanMessage({ content: m.content, id });
    case 'tool':
      return new ToolMessage({ content: m.content, tool_call_id: m.tool_call_id, id });
    default:
      return new AIMessage({
        id,
        content: m.content ?? '',
        tool_calls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments), type: 'tool_call' })),
      });
  }
}

/** Newest first, message by message, after the system messages: what a sliding window keeps. */
function newestFirst(messages, p, tokens_max) {
  let left = tokens_max;
  const kept = [];
  messages.forEach((m, i) => {
    if (m.role === 'system') {
      left -= p.costs[i];
      kept.push(i);
    }
  });
  const tail = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role !== 'system' && p.costs[i] <= left; i--) {
    left -= p.costs[i];
    tail.push(i);
  }
  return [...kept, ...tail.reverse()];
}

/** LangChain's trimMessages as its docs show it for chat models: last, system kept, starting on a human message. */
async function langchainTrim(messages, p, tokens_max) {
  const lc = messages.map(toLangChain);
  const index = (m) => {
    const i = Number(m.id);
    if (!Number.isInteger(i) || i < 0 || i >= lc.length) throw new Error('trimMessages returned a message it was not given');
    return i;
  };
  const tokenCounter = (msgs) => msgs.reduce((s, m) => s + p.costs[index(m)], 0);
  const out = await trimMessages(lc, { maxTokens: tokens_max, tokenCounter, strategy: 'last', includeSystem: true, startOn: 'human' });
  return out.map(index);
}

/** selectFragments with `slicer`, the question as `query`, placed in input (conversation) order. */
function select(slicer) {
  return (messages, p, tokens_max) => {
    const frags = fragments(messages, p);
    const now = T0 + messages.length * 60_000;
    const options = { slicer, query: messages.at(-1).content, order: 'input', now };
    const r = selectFragments(frags, { entities: [] }, { tokens_max }, options);
    return keptBy(r.decisions);
  };
}

/**
 * fitMessages' options here besides the budget: tool results whole. The evaluation measures which
 * messages a strategy keeps and scores evidence in whole messages, at every message's full count;
 * a truncated result (on by default) keeps part of a message, which this measure cannot score.
 */
export const WHOLE = { format: 'openai', truncateToolResults: false };

/** Every strategy by name; `group` says which table block it belongs to. */
export const STRATEGIES = [
  { name: 'fitMessages (defaults)', group: 'ctxpack', run: (m, p, t) => keptBy(fitMessages(m, { ...WHOLE, budgets: { tokens_max: t } }).decisions) },
  {
    name: 'fitMessages (stubToolResults)',
    group: 'ctxpack',
    run: (m, p, t) => keptBy(fitMessages(m, { ...WHOLE, budgets: { tokens_max: t }, stubToolResults: true }).decisions),
  },
  // The embedding path with a hashed bag of words, not a model (eval/embeddings.mjs): wiring, not a figure to quote.
  { name: 'fitMessages + fake embedder (hashed words)', group: 'ctxpack', run: embeddingRun(WHOLE, fakeEmbedder) },
  {
    name: 'BM25 alone',
    group: 'baseline',
    run: (m, p, t) => keptBy(fitMessages(m, { ...WHOLE, budgets: { tokens_max: t }, relevance: { neighbour: 0, recency: 0 } }).decisions),
  },
  { name: 'newest-first window', group: 'baseline', run: newestFirst },
  { name: 'LangChain trimMessages', group: 'baseline', run: langchainTrim },
  ...PLANNER_SLICERS.map((s) => ({ name: `selectFragments ${s}`, group: 'selectFragments', run: select(s) })),
];
