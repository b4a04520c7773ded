// A small generated evaluation in the spirit of LoCoMo: long two-speaker chats (600 turns) of
// Zipf-distributed filler, with a question as the last user message and 2–3 planted evidence turns
// (often adjacent: a statement and its follow-up, which shares fewer words with the question),
// plus distractor turns that share one word of the question each. The budget is 10 % of the
// history. Reports the share of evidence turns kept by fitMessages' defaults, by BM25 alone taken
// by score, by newest-first and by the value-maximising slicers, and checks that the defaults beat
// BM25 alone and newest-first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateTokens, fitMessages } from 'ctxpack';
import { chat } from './messages-histories.mjs';

function keptShare(kept, evidence) {
  let k = 0;
  for (const i of evidence) if (kept(i)) k++;
  return [k, evidence.size];
}

function evaluate(conversations = 30) {
  const totals = { defaults: [0, 0], bm25: [0, 0], newest: [0, 0], exact: [0, 0], greedy: [0, 0], knapsack: [0, 0] };
  for (let seed = 1; seed <= conversations; seed++) {
    const { messages, evidence } = chat(seed);
    const history = messages.slice(0, -1).reduce((s, m) => s + estimateTokens(m.content), 0);
    const budgets = { tokens_max: Math.floor(history / 10) };
    const add = (name, [k, n]) => {
      totals[name][0] += k;
      totals[name][1] += n;
    };
    const d = fitMessages(messages, { format: 'openai', budgets });
    add('defaults', keptShare((i) => d.decisions[i].included, evidence));
    const b = fitMessages(messages, { format: 'openai', budgets, slicer: 'ranked', relevance: { neighbour: 0, recency: 0 } });
    add('bm25', keptShare((i) => b.decisions[i].included, evidence));
    // The same values, filled by the value-maximising strategies (docs/messages.md quotes these).
    for (const slicer of ['exact', 'greedy', 'knapsack']) {
      const r = fitMessages(messages, { format: 'openai', budgets, slicer });
      add(slicer, keptShare((i) => r.decisions[i].included, evidence));
    }
    let left = budgets.tokens_max - estimateTokens(messages.at(-1).content);
    let from = messages.length - 1;
    while (from > 0 && estimateTokens(messages[from - 1].content) <= left) left -= estimateTokens(messages[--from].content);
    add('newest', keptShare((i) => i >= from, evidence));
  }
  return Object.fromEntries(Object.entries(totals).map(([k, [a, n]]) => [k, a / n]));
}

test('generated long-chat evaluation: the defaults keep more evidence than BM25 alone and newest-first', () => {
  const share = evaluate();
  console.log('evidence turns kept at a 10 % budget:', Object.entries(share).map(([k, v]) => `${k} ${(100 * v).toFixed(1)} %`).join(', '));
  assert.ok(share.defaults > share.bm25, 'defaults beat BM25 alone');
  assert.ok(share.defaults > share.newest, 'defaults beat newest-first');
  assert.ok(share.defaults >= 0.75);
});
