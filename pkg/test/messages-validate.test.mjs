// Named tests for the request rules added in issue 28, through validateMessages and fitMessages:
// holes in the messages array.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, fitMessages, validateMessages } from 'ctxpack';
import { HumanMessage } from '@langchain/core/messages';

const budgets = { tokens_max: 1000 };
const rules = (m, f) => validateMessages(m, f).map((v) => [v.index, v.rule]);

test('holes and undefined elements are malformed messages: validateMessages reports them, fitMessages and sessions refuse them', () => {
  const msg = { role: 'user', content: 'q' };
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [, msg];
  assert.equal(JSON.stringify(sparse), `[null,${JSON.stringify(msg)}]`);
  for (const format of ['openai', 'anthropic', 'ai-sdk', 'langchain']) {
    const m = format === 'langchain' ? new HumanMessage('q') : msg;
    assert.deepEqual(rules([, m], format), [[0, 'malformed']], format); // eslint-disable-line no-sparse-arrays
    assert.deepEqual(rules([undefined, m], format), [[0, 'malformed']], format);
    assert.deepEqual(rules(new Array(2), format), [[0, 'malformed'], [1, 'malformed']], format);
  }
  const tail = [msg, , msg]; // eslint-disable-line no-sparse-arrays
  assert.throws(() => fitMessages(tail, { format: 'openai', budgets }), { code: 'INVALID_FIELD', index: 1 });
  assert.throws(() => fitMessages(sparse, { format: 'anthropic', budgets }), { code: 'INVALID_FIELD', index: 0 });
  assert.throws(() => createSession({ format: 'openai', budgets }).fit(tail), { code: 'INVALID_FIELD', index: 1 });
});
