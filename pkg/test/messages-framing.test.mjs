// Per-message framing by default: OpenAI chat messages are counted as OpenAI's cookbook counts
// them ("How to count tokens with tiktoken", `num_tokens_from_messages`): 3 tokens per message,
// the tokens of each of its values (role, content, name), 1 more for a name, 3 for the reply.
// The cookbook handles text messages only; beyond it ctxpack counts a message with several text
// parts as their texts joined by newlines, an assistant's tool calls as their function names and
// arguments (not their ids), and a tool message as its content (not its tool_call_id), each with
// the same framing. Sessions charge the same figures (one place computes framing: framing.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEncoding } from 'js-tiktoken';
import { HumanMessage, AIMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { createSession, fitMessages, fitMessagesAsync } from 'ctxpack';
import { forModel } from 'ctxpack/tokenizers/js-tiktoken';

const enc = getEncoding('o200k_base');
const countTokens = forModel('gpt-4o');
const tokens = (text) => enc.encode(text, [], []).length;

/**
 * The cookbook's num_tokens_from_messages, in JavaScript, for messages of string values. Special
 * tokens' text (`<|endoftext|>`) is counted as plain text, as the chat API reads user content
 * (tiktoken's default refuses it): `encode(value, [], [])`, as ctxpack/tokenizers/js-tiktoken does.
 */
function numTokensFromMessages(messages) {
  const tokensPerMessage = 3;
  const tokensPerName = 1;
  let n = 0;
  for (const message of messages) {
    n += tokensPerMessage;
    for (const [key, value] of Object.entries(message)) {
      n += tokens(value);
      if (key === 'name') n += tokensPerName;
    }
  }
  return n + 3; // every reply is primed with <|start|>assistant<|message|>
}

const BUDGET = { tokens_max: 100_000 };
const fit = (messages, extra = {}) => fitMessages(messages, { format: 'openai', model: 'gpt-4o', countTokens, budgets: BUDGET, ...extra });

const TEXT_MESSAGES = [
  { role: 'system', content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.' },
  { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
  { role: 'system', name: 'example_assistant', content: 'Things working well together will increase revenue.' },
  { role: 'system', name: 'example_user', content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage." },
  { role: 'system', name: 'example_assistant', content: "Let's talk later when we're less busy about how to do better." },
  { role: 'developer', content: 'Answer in one sentence. Ünïcödé, emoji 🙂 and <|endoftext|> are text too.' },
  { role: 'user', content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
];

test('OpenAI text messages: prompt_tokens is the cookbook num_tokens_from_messages with the same tokenizer', () => {
  const r = fit(TEXT_MESSAGES);
  assert.equal(r.messages.length, TEXT_MESSAGES.length);
  assert.equal(r.metrics.prompt_tokens, numTokensFromMessages(TEXT_MESSAGES));
  // Per message: the cookbook's count of that message alone, less the reply's 3.
  TEXT_MESSAGES.forEach((m, i) => assert.equal(r.decisions[i].cost_tokens, numTokensFromMessages([m]) - 3, `messages[${i}]`));
});

test('the cookbook count holds on the messages kept when the history is cut', () => {
  const history = [];
  for (let k = 0; k < 40; k++) {
    history.push({ role: 'user', name: `user_${k % 3}`, content: `Question ${k}: ${'why does the cache miss '.repeat(k % 7 + 1)}` });
    history.push({ role: 'assistant', content: `Answer ${k}: ${'because the prefix changed '.repeat(k % 5 + 2)}` });
  }
  history.push({ role: 'user', content: 'And now?' });
  const r = fit(history, { budgets: { tokens_max: 800 } });
  assert.ok(r.messages.length < history.length);
  assert.equal(r.metrics.prompt_tokens, numTokensFromMessages(r.messages));
  assert.ok(r.metrics.prompt_tokens <= 800);
});

test('a name is framed: 1 token more than its own tokens', () => {
  const plain = fit([{ role: 'user', content: 'hi' }]);
  const named = fit([{ role: 'user', name: 'alice_smith', content: 'hi' }]);
  assert.equal(named.decisions[0].cost_tokens - plain.decisions[0].cost_tokens, 1 + tokens('alice_smith'));
});

test('every role is 1 token, as in OpenAI\'s chat encodings: a message is framed by 4', () => {
  for (const role of ['system', 'developer', 'user', 'assistant']) {
    assert.equal(tokens(role), 1, role);
    assert.equal(fit([{ role, content: 'Be brief.' }]).decisions[0].cost_tokens, 4 + tokens('Be brief.'), role);
  }
  assert.equal(getEncoding('cl100k_base').encode('developer').length, 1);
});

test('beyond the cookbook: several text parts are counted as their texts joined by newlines, with the same framing', () => {
  const parts = [{ role: 'user', content: [{ type: 'text', text: 'First part.' }, { type: 'text', text: 'Second part.' }] }];
  const r = fit(parts);
  assert.equal(r.metrics.prompt_tokens, numTokensFromMessages([{ role: 'user', content: 'First part.\nSecond part.' }]));
});

test('beyond the cookbook: tool calls by their names and arguments, tool messages by their content, ids never', () => {
  const messages = [
    { role: 'user', content: 'Weather in Oslo?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
    { role: 'tool', tool_call_id: 'call_abc123', content: '{"temp_c": -3, "sky": "snow"}' },
  ];
  const r = fit(messages);
  assert.equal(
    r.metrics.prompt_tokens,
    numTokensFromMessages([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'get_weather\n{"city":"Oslo"}' },
      { role: 'tool', content: '{"temp_c": -3, "sky": "snow"}' },
    ]),
  );
});

test('framing: false counts the texts alone; per_fragment_overhead is charged on top of framing', () => {
  const text = TEXT_MESSAGES.reduce((n, m) => n + tokens(m.content), 0);
  const off = fit(TEXT_MESSAGES, { framing: false });
  assert.equal(off.metrics.prompt_tokens, text);
  const on = fit(TEXT_MESSAGES, { budgets: { ...BUDGET, per_fragment_overhead: 2 } });
  assert.equal(on.metrics.prompt_tokens, numTokensFromMessages(TEXT_MESSAGES) + 2 * TEXT_MESSAGES.length);
  assert.throws(() => fit(TEXT_MESSAGES, { framing: 'yes' }), { code: 'INVALID_OPTION' });
});

test("options.system is framed as a system message (the AI SDK's system prompt)", () => {
  const messages = [{ role: 'user', content: 'Hi' }];
  const r = fitMessages(messages, { format: 'ai-sdk', system: 'Be brief.', countTokens, budgets: BUDGET });
  assert.equal(r.metrics.prompt_tokens, numTokensFromMessages([{ role: 'system', content: 'Be brief.' }, ...messages]));
});

test('LangChain messages are framed by their name too', () => {
  const r = fitMessages([new SystemMessage('Be brief.'), new HumanMessage({ content: 'Hi', name: 'bob' }), new AIMessage('Hello.')], {
    format: 'langchain',
    countTokens,
    budgets: BUDGET,
  });
  assert.equal(
    r.metrics.prompt_tokens,
    numTokensFromMessages([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi', name: 'bob' }, { role: 'assistant', content: 'Hello.' }]),
  );
});

test('Anthropic: the same figures, an approximation, by default', () => {
  const r = fitMessages([{ role: 'user', content: 'Hi' }], { format: 'anthropic', system: 'Be brief.', countTokens, budgets: BUDGET });
  assert.equal(r.metrics.prompt_tokens, numTokensFromMessages([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]));
});

test('a session charges the same framing as fitMessages, and an async counter the same as a sync one', async () => {
  const s = createSession({ format: 'openai', model: 'gpt-4o', countTokens, budgets: BUDGET });
  const r = s.fit(TEXT_MESSAGES);
  assert.equal(r.metrics.prompt_tokens, numTokensFromMessages(TEXT_MESSAGES));
  assert.deepEqual(r.decisions.map((d) => d.cost_tokens), fit(TEXT_MESSAGES).decisions.map((d) => d.cost_tokens));
  const a = await fitMessagesAsync(TEXT_MESSAGES, { format: 'openai', model: 'gpt-4o', countTokens: async (t) => countTokens(t), budgets: BUDGET });
  assert.equal(a.metrics.prompt_tokens, numTokensFromMessages(TEXT_MESSAGES));
});

// A tool call's arguments object (Anthropic's `tool_use.input`, LangChain's `tool_calls[].args`)
// is sent as JSON: read as its JSON text, keys and every field counted, as OpenAI's `arguments`
// string already is.
test('tool call inputs as objects are counted as their JSON text (anthropic, langchain)', async () => {
  const cost = (format, h) => fitMessages(h, { format, budgets: { tokens_max: 1_000_000 } }).decisions[1].cost_tokens;
  const anthropic = (input) => [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'q', input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
  ];
  const langchain = (args) => [
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'q', args }] }),
    new ToolMessage({ tool_call_id: 'c1', content: 'ok' }),
  ];
  for (const [format, h] of [['anthropic', anthropic], ['langchain', langchain]]) {
    assert.ok(cost(format, h({ id: 'x'.repeat(400) })) > cost(format, h({ id: 'x' })) + 50, `${format}: an id field is data`);
    assert.ok(cost(format, h({ ['k'.repeat(300)]: 1 })) > cost(format, h({ k: 1 })) + 30, `${format}: keys count`);
  }
});
