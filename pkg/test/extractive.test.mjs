// extractiveSummarizer: the built-in summariser with no model call. What it keeps (numbers, paths,
// CamelCase names, decision words; each once, in order, up to its length) from every format's
// content, tool calls and tool results; synchronous, so a session has its summary at the cut;
// bad options and requests are CtxpackErrors with stable codes that never echo the content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createSession, estimateTokens, extractiveSummarizer, requestEnds } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';
import { FORMATS, randomHistory, render } from './messages-histories.mjs';

const summarize = extractiveSummarizer();

test('extractiveSummarizer keeps the lines with numbers, paths, names and decisions, each once, in order', () => {
  const messages = [
    { role: 'user', content: 'Hello there! The build broke on 3 machines. Thanks a lot.' },
    { role: 'assistant', content: 'Looking at src/build/run.ts now.\nok\nWe decided to pin TypeScript.' },
    { role: 'user', content: 'The build broke on 3 machines. Ask the TokenCounter owner.' },
  ];
  const text = summarize({ messages, maxTokens: 500 });
  assert.equal(typeof text, 'string', 'answers synchronously, with text');
  assert.deepEqual(text.split('\n'), ['The build broke on 3 machines.', 'Looking at src/build/run.ts now.', 'We decided to pin TypeScript.', 'Ask the TokenCounter owner.']);
  assert.equal(summarize({ messages, maxTokens: 500 }), text, 'deterministic');
});

test('extractiveSummarizer reads tool calls and tool results in every format', () => {
  for (const format of FORMATS) {
    const messages = render(
      {
        system: 'sys',
        events: [
          { kind: 'user', text: 'find the flaky test' },
          { kind: 'calls', calls: [{ id: 'call_1', name: 'grep', args: { q: 'pkg/test/flaky.test.mjs' }, result: 'line 42: failed because of a timeout' }] },
          { kind: 'assistant', text: 'plain words only' },
        ],
      },
      format,
    ).messages;
    const text = summarize({ messages, maxTokens: 500 });
    assert.match(text, /line 42: failed because of a timeout/, `${format}: the tool result`);
    assert.match(text, /pkg\/test\/flaky\.test\.mjs/, `${format}: the call's arguments`);
    assert.doesNotMatch(text, /plain words only/, `${format}: a line with nothing to keep`);
  }
});

test('extractiveSummarizer stops before the line that would pass its length; nothing kept says so', () => {
  const lines = Array.from({ length: 50 }, (_, i) => `step ${i} wrote file out/${i}.json`);
  const messages = [{ role: 'user', content: lines.join('\n') }];
  // A summary's length: estimateTokens of each line, and one per line break.
  const length = (kept) => kept.reduce((a, l) => a + estimateTokens(l), 0) + kept.length - 1;
  for (const maxTokens of [12, 30, 100]) {
    const text = summarize({ messages, maxTokens });
    const kept = text.split('\n');
    assert.ok(kept.length >= 1 && length(kept) <= maxTokens, `${maxTokens}: ${length(kept)} tokens`);
    assert.deepEqual(kept, lines.slice(0, kept.length), 'the first lines, in order');
    assert.ok(length(lines.slice(0, kept.length + 1)) > maxTokens, 'the next line would pass the length');
  }
  assert.equal(summarize({ messages, maxTokens: 1 }), 'Nothing to keep.', 'not even the first line fits');
  // The option's length replaces the request's; without either, 500.
  assert.equal(extractiveSummarizer({ maxTokens: 8 })({ messages, maxTokens: 100 }), summarize({ messages, maxTokens: 8 }));
  assert.ok(length(summarize({ messages: lines.map((content) => ({ role: 'user', content })).concat(lines.map((l) => ({ role: 'user', content: `${l} again` }))) }).split('\n')) <= 500);
  assert.equal(summarize({ messages: [{ role: 'user', content: 'hello, how are you' }] }), 'Nothing to keep.');
  assert.equal(summarize({ messages: [] }), 'Nothing to keep.');
});

test('a session with extractiveSummarizer has its summary at the cut, in fit (no waiting), in every format', () => {
  for (const format of FORMATS) {
    const { messages, system } = agentSession(3, format, 14);
    const session = createSession({ format, system, budgets: { tokens_max: 9000 }, cache: format === 'anthropic' ? 'anthropic' : 'openai', summarize, summary: { inputCost: 0.05, outputCost: 0.2 } });
    let first;
    for (const end of requestEnds(messages, format)) {
      const r = session.fit(messages.slice(0, end + 1));
      if (r.summary && first === undefined) first = r;
      assert.ok(!r.warnings.some((w) => w.startsWith('summary_failed')), `${format}: ${r.warnings.join('; ')}`);
    }
    assert.ok(first, `${format}: a summary is sent`);
    assert.ok(first.summary.tokens > 0 && first.summary.callCost > 0);
  }
});

test('extractiveSummarizer: bad options and requests are CtxpackErrors with stable codes, never the content', () => {
  const invalid = (fn, code, field, pattern) =>
    assert.throws(fn, (err) => {
      assert.ok(err instanceof CtxpackError);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
      if (pattern) assert.match(err.message, pattern);
      assert.doesNotMatch(err.message, /secret/);
      return true;
    });
  invalid(() => extractiveSummarizer(42), 'INVALID_OPTION', 'options');
  invalid(() => extractiveSummarizer(['secret']), 'INVALID_OPTION', 'options');
  invalid(() => extractiveSummarizer({ maxToken: 100 }), 'INVALID_OPTION', 'maxToken', /did you mean maxTokens/);
  for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '100', 'secret', null, 2 ** 60]) invalid(() => extractiveSummarizer({ maxTokens: bad }), 'INVALID_OPTION', 'maxTokens');
  invalid(() => summarize({ messages: 'secret text' }), 'INVALID_INPUT', 'messages');
  invalid(() => summarize('secret'), 'INVALID_INPUT', 'messages');
  invalid(() => summarize(undefined), 'INVALID_INPUT', 'messages');
  // A hostile message: deep nesting, cycles through arrays, odd values are read or skipped, never thrown.
  const deep = [];
  let at = deep;
  for (let i = 0; i < 1000; i++) at = at[0] = [];
  const cyclic = { role: 'user', content: [] };
  cyclic.content.push(cyclic);
  assert.equal(typeof summarize({ messages: [deep, cyclic, null, 7, { content: 42 }, ...render(randomHistory(5), 'openai').messages] }), 'string');
  // A getter or a Proxy trap that throws: INVALID_INPUT with the thrown value as its cause.
  const boom = new Error('secret');
  for (const hostile of [{ get messages() { throw boom; } }, { messages: [{ role: 'user', get content() { throw boom; } }] }, { messages: new Proxy([], { get() { throw boom; } }) }]) {
    assert.throws(() => summarize(hostile), (err) => err instanceof CtxpackError && err.code === 'INVALID_INPUT' && err.cause === boom && !/secret/.test(err.message));
  }
});
