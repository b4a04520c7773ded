// detectMessageFormat on the four formats' own shapes (LangChain as real class instances), on the
// ambiguous plain-text case, and on what it must refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, detectMessageFormat, fitMessages, MESSAGE_FORMATS } from 'ctxpack';
import { randomHistory, render } from './messages-histories.mjs';

const hasTools = (h) => h.events.some((e) => e.kind === 'calls');

test('each format is detected from histories with tool calls (seeded random histories)', () => {
  let checked = 0;
  for (let seed = 0; seed < 60; seed++) {
    const history = randomHistory(seed);
    if (!hasTools(history)) continue;
    for (const format of MESSAGE_FORMATS) {
      const { messages, system } = render(history, format);
      assert.equal(detectMessageFormat(messages, { system }), format, `seed ${seed}, ${format}`);
      checked++;
    }
  }
  assert.ok(checked >= 100, `only ${checked} histories had tool calls`);
});

test('plain user/assistant text: openai, or anthropic when a top-level system prompt is given; either fits alike', () => {
  const messages = [
    { role: 'user', content: 'hello there' },
    { role: 'assistant', content: 'hi' },
    { role: 'user', content: 'what is the plan' },
  ];
  assert.equal(detectMessageFormat(messages), 'openai');
  assert.equal(detectMessageFormat(messages, { system: 'Be brief.' }), 'anthropic');
  const budgets = { tokens_max: 12 };
  const a = fitMessages(messages, { format: 'openai', budgets });
  const b = fitMessages(messages, { format: 'anthropic', budgets });
  assert.deepEqual(a.decisions, b.decisions);
});

test('an OpenAI system or developer message decides openai even without tool calls', () => {
  assert.equal(detectMessageFormat([{ role: 'developer', content: 'x' }, { role: 'user', content: 'y' }]), 'openai');
  assert.equal(detectMessageFormat([{ role: 'system', content: 'x' }, { role: 'user', content: 'y' }]), 'openai');
});

test('an AI SDK reasoning part decides ai-sdk; an Anthropic thinking block decides anthropic', () => {
  assert.equal(detectMessageFormat([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 'a' }] }]), 'ai-sdk');
  assert.equal(
    detectMessageFormat([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'r', signature: 's' }, { type: 'text', text: 'a' }] }]),
    'anthropic',
  );
});

test('messages that are not an array: INVALID_INPUT naming the field, never the value', () => {
  for (const bad of [undefined, null, 'messages', { role: 'user' }]) {
    assert.throws(
      () => detectMessageFormat(bad),
      (e) => e instanceof CtxpackError && e.code === 'INVALID_INPUT' && e.field === 'messages' && !e.message.includes('"messages"'),
    );
  }
});

test('junk elements are not read as any format: the default, left for fitMessages to report', () => {
  assert.equal(detectMessageFormat([null, 7, 'text', []]), 'openai');
  assert.throws(() => fitMessages([null], { format: detectMessageFormat([null]), budgets: { tokens_max: 10 } }), (e) => e instanceof CtxpackError && e.code === 'INVALID_FIELD');
});
