// Chat completions' deprecated function calling (`function_call` on an assistant message, a
// `function` message with the result), which the openai SDK still types (ChatCompletionMessageParam
// includes ChatCompletionFunctionMessageParam) and old agents still send: read as a call and its
// result, kept or left out together. A new-user trial found fitMessages throwing INVALID_FIELD on
// the role, so the agent's turn died.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, detectMessageFormat, fitMessages, validateMessages } from 'ctxpack';

const weather = (city, temp) => [
  { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: JSON.stringify({ city }) } },
  { role: 'function', name: 'get_weather', content: JSON.stringify({ city, temp, forecast: 'sunny spells and light wind '.repeat(30) }) },
];

function history() {
  return [
    { role: 'system', content: 'You are a helpful agent.' },
    { role: 'user', content: 'What is the weather in Paris?' },
    ...weather('Paris', 18),
    { role: 'assistant', content: 'It is 18 °C in Paris.' },
    { role: 'user', content: 'And in Lyon, then in Nice?' },
    ...weather('Lyon', 21),
    ...weather('Nice', 24),
  ];
}

/** Each kept `function` message right after the assistant message that called it, and each kept `function_call` followed by its result. */
function paired(messages) {
  messages.forEach((m, i) => {
    if (m.role === 'function') assert.equal(messages[i - 1]?.function_call?.name, m.name, `messages[${i}] follows its call`);
    if (m.function_call !== undefined && i < messages.length - 1) assert.equal(messages[i + 1].role, 'function', `messages[${i}]'s result follows it`);
  });
}

test('function_call and function messages are valid chat completions, detected as such, and fit at every budget as whole pairs', () => {
  const h = history();
  assert.deepEqual(validateMessages(h, 'openai'), []);
  assert.equal(detectMessageFormat(h), 'openai');
  let cut = 0;
  for (let budget = 200; budget <= 1_400; budget += 50) {
    let r;
    try {
      r = fitMessages(h, { format: 'openai', budgets: { tokens_max: budget } });
    } catch (err) {
      assert.equal(err.code, 'PINNED_OVER_BUDGET', `budget ${budget}`);
      continue;
    }
    paired(r.messages);
    assert.deepEqual(validateMessages(r.messages, 'openai'), [], `budget ${budget}`);
    // The step in flight (Nice) is always sent; a pair is kept or left out whole.
    assert.equal(r.messages.at(-1).role, 'function');
    const units = new Map();
    for (const d of r.decisions) units.set(d.unit, [...(units.get(d.unit) ?? []), d.included]);
    for (const [unit, included] of units) assert.ok(included.every((x) => x === included[0]), `unit ${unit} whole at budget ${budget}`);
    if (r.decisions.some((d) => !d.included)) cut++;
  }
  assert.ok(cut > 0, 'some budgets cut');
});

test('a function message with no call before it is an orphan, left out; one without a name is INVALID_FIELD naming it', () => {
  const h = history();
  const orphaned = [...h.slice(0, 2), h[3], ...h.slice(4)]; // the Paris call removed, its result left
  assert.deepEqual(validateMessages(orphaned, 'openai').map((v) => [v.index, v.rule]), [[2, 'orphan_tool_result']]);
  const r = fitMessages(orphaned, { format: 'openai', budgets: { tokens_max: 100_000 } });
  assert.equal(r.decisions[2].included, false);
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);

  const unnamed = h.map((m, i) => (i === 3 ? { role: 'function', content: m.content } : m));
  assert.throws(
    () => fitMessages(unnamed, { format: 'openai', budgets: { tokens_max: 100_000 } }),
    (err) => err.code === 'INVALID_FIELD' && err.field === 'name' && err.index === 3 && err.message.includes('messages[3].name'),
  );
});

test('a session truncates and stubs a function message as a tool result', () => {
  const h = history();
  const r = createSession({ format: 'openai', budgets: { tokens_max: 100_000 }, truncateToolResults: { maxTokens: 40 } }).fit(h);
  const fn = r.messages.filter((m) => m.role === 'function');
  assert.equal(fn.length, 3);
  assert.ok(fn.every((m) => m.name === 'get_weather' && m.content.length < h[3].content.length), 'each result truncated, its name kept');
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);
});
