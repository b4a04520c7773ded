// The four message formats in workerd (through miniflare), LangChain's as real @langchain/core
// instances made inside the isolate: the same decisions as in Node, the caller's own objects
// returned, every request valid.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fitMessages } from 'ctxpack';
import { startWorker } from './harness.mjs';
import { randomHistory, render } from '../test/messages-histories.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let worker;

before(async () => {
  worker = await startWorker(join(here, 'worker-langchain-src.js'), { nodeCompat: true });
});

after(async () => {
  await worker?.dispose();
});

test('workerd fits seeded histories in all four formats like Node', async () => {
  const cases = [];
  for (let seed = 1; seed <= 12; seed++) {
    for (const format of ['openai', 'anthropic', 'ai-sdk', 'langchain']) for (const tokens_max of [300, 2_000, 200_000]) cases.push({ seed, format, tokens_max });
  }
  const { status, json } = await worker.dispatch({ cases });
  assert.equal(status, 200);
  const inNode = cases.map(({ seed, format, tokens_max }) => {
    const { messages, system } = render(randomHistory(seed), format);
    try {
      const r = fitMessages(messages, { format, system, budgets: { tokens_max } });
      return JSON.parse(JSON.stringify({ decisions: r.decisions, kept: r.messages.length, own: true, violations: 0 }));
    } catch (err) {
      return { error: err.code };
    }
  });
  assert.ok(inNode.filter((o) => o.error === undefined).length > cases.length / 2, 'most cases fit');
  assert.ok(cases.some((c, i) => c.format === 'langchain' && json[i].error === undefined), 'LangChain cases ran');
  assert.deepEqual(json, inNode);
});
