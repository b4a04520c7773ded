// LangChain's trimMessages side by side with fitMessages on the same LangChain histories at several
// budgets: how many messages and tokens each keeps, whether the result is a valid request
// (validateMessages), and on the generated long chats how much planted evidence each keeps.
// trimMessages ('last' strategy, system kept) may cut between a tool call and its results;
// fitMessages never does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage, HumanMessage, trimMessages } from '@langchain/core/messages';
import { estimateTokens, fitMessages, validateMessages } from 'ctxpack';
import { chat, randomHistory, render } from './messages-histories.mjs';

const text = (m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) + JSON.stringify(m.tool_calls ?? []);
const tokenCounter = (msgs) => msgs.reduce((s, m) => s + estimateTokens(text(m)), 0);

test('trimMessages vs fitMessages: validity on agent histories', async () => {
  const rows = [];
  for (const tokens_max of [200, 1000, 5000]) {
    let trimInvalid = 0;
    let fitInvalid = 0;
    let runs = 0;
    for (let seed = 0; seed < 60; seed++) {
      const { messages } = render(randomHistory(seed), 'langchain');
      let fitted;
      try {
        fitted = fitMessages(messages, { format: 'langchain', budgets: { tokens_max } });
      } catch (e) {
        assert.equal(e.code, 'PINNED_OVER_BUDGET');
        continue;
      }
      runs++;
      const trimmed = await trimMessages(messages, { maxTokens: tokens_max, tokenCounter, strategy: 'last', includeSystem: true });
      if (validateMessages(trimmed, 'langchain').length > 0) trimInvalid++;
      if (validateMessages(fitted.messages, 'langchain').length > 0) fitInvalid++;
    }
    rows.push({ tokens_max, histories: runs, trimMessages_invalid: trimInvalid, fitMessages_invalid: fitInvalid });
    assert.equal(fitInvalid, 0);
  }
  console.table(rows);
});

test('trimMessages vs fitMessages: evidence kept on long chats at 10 %', async () => {
  let trimKept = 0;
  let fitKept = 0;
  let total = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const { messages, evidence } = chat(seed);
    const lc = messages.map((m) => (m.role === 'user' ? new HumanMessage(m.content) : new AIMessage(m.content)));
    const tokens_max = Math.floor(messages.slice(0, -1).reduce((s, m) => s + estimateTokens(m.content), 0) / 10);
    const trimmed = new Set(await trimMessages(lc, { maxTokens: tokens_max, tokenCounter, strategy: 'last' }));
    const fitted = fitMessages(lc, { format: 'langchain', budgets: { tokens_max } });
    for (const i of evidence) {
      total++;
      if (trimmed.has(lc[i])) trimKept++;
      if (fitted.decisions[i].included) fitKept++;
    }
  }
  console.table([{ evidence_turns: total, trimMessages_kept: trimKept, fitMessages_kept: fitKept }]);
  assert.ok(fitKept > trimKept);
});
