// fitMessages over thousands of seeded random agent histories × the four formats × budgets from
// tiny to ample: every result passes validateMessages and, independently, the real SDKs' checks
// (the AI SDK's modelMessageSchema; LangChain message classes and their tool-call pairing), is a
// subsequence of the input in order, keeps the latest user message someone typed and the last
// message (the step in flight), and keeps everything when everything fits. The OpenAI and Anthropic SDK types are checked by tsc in
// messages-types.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitMessages, validateMessages } from 'ctxpack';
import { FORMATS, isTypedUserTurn, randomHistory, render } from './messages-histories.mjs';
import { sdkCheck } from './sdk-check.mjs';

const SEEDS = 300;
const BUDGETS = [0, 40, 150, 600, 3000, 20000, 1_000_000];

test('every fit of a random history is valid for its format and its SDK, at every budget', () => {
  let runs = 0;
  let refused = 0;
  for (let seed = 0; seed < SEEDS; seed++) {
    const history = randomHistory(seed);
    for (const format of FORMATS) {
      const { messages, system } = render(history, format);
      assert.deepEqual(validateMessages(messages, format), [], `seed ${seed} ${format}: the input itself is valid`);
      for (const tokens_max of BUDGETS) {
        const options = { format, budgets: { tokens_max, per_fragment_overhead: 3 } };
        if (system !== undefined) options.system = system;
        let r;
        try {
          r = fitMessages(messages, options);
        } catch (e) {
          assert.equal(e.code, 'PINNED_OVER_BUDGET', `seed ${seed} ${format} ${tokens_max}: ${e.message}`);
          refused++;
          continue;
        }
        runs++;
        const where = `seed ${seed} ${format} tokens_max ${tokens_max}`;
        assert.deepEqual(validateMessages(r.messages, format), [], where);
        sdkCheck(format, r.messages, messages);
        // A subsequence, in order, of the caller's own objects (a truncated tool result: a new object in its place).
        const sent = r.decisions.filter((d) => d.included);
        assert.equal(sent.length, r.messages.length);
        sent.forEach((d, k) => {
          if (d.truncated) assert.notEqual(r.messages[k], messages[d.index], `${where}: a truncated result is a new object`);
          else assert.equal(r.messages[k], messages[d.index], `${where}: not a subsequence`);
        });
        assert.equal(r.decisions.length, messages.length);
        assert.equal(r.decisions.filter((d) => d.included).length, r.messages.length);
        // The latest user message someone typed (the task) and the last message are there; the
        // last message's call, if it is a result, too (validity above: no result without its call).
        const task = messages.findLastIndex(isTypedUserTurn);
        assert.ok(task >= 0);
        assert.ok(r.decisions[task].included, `${where}: the task (message ${task}) dropped`);
        assert.ok(r.decisions[messages.length - 1].included, `${where}: the last message dropped`);
        assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, where);
        if (tokens_max === 1_000_000) assert.equal(r.messages.length, messages.length, `${where}: everything fits, everything is kept`);
      }
    }
  }
  assert.ok(runs > 5000, `${runs} fits checked`);
  assert.ok(refused > 0);
});

