// createSession: replays of recorded and generated agent sessions (every request valid and within
// budget, the prefix reuse recomputed here and equal to the session's report), the count cache,
// async counters, an edited history, state export and import, Anthropic breakpoints, options.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CtxpackError, createSession, defaultCacheFor, estimateTokens, fitMessages, fitMessagesAsync, replaySession, requestEnds, summarizeReplay, validateMessages } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';

const recorded = JSON.parse(readFileSync(new URL('../../www/samples/agent-chat.openai.json', import.meta.url), 'utf8'));

/** Every request of `history`, through `session.fit`, checked; returns the results. */
function replayChecked(history, format, session, { system, budgetsOf } = {}) {
  const results = [];
  let previous;
  for (const end of requestEnds(history, format)) {
    const now = history.slice(0, end + 1);
    const r = session.fit(now, budgetsOf ? { budgets: budgetsOf(end) } : undefined);
    assert.deepEqual(validateMessages(r.messages, format), [], `request after messages[${end}] is valid`);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, `request after messages[${end}] is within budget`);
    // The reuse, recomputed: the leading messages equal (as JSON, without cache_control) to the previous request's.
    const sent = r.decisions.filter((d) => d.included).map((d) => d.index);
    const overhead = 0;
    // The system prompt with its framing as a system message (4 tokens, framing.ts).
    const systemTokens = system === undefined ? 0 : estimateTokens(typeof system === 'string' ? system : system.map((b) => b.text).join('\n')) + 4;
    let k = 0;
    let tokens = systemTokens;
    if (previous !== undefined) {
      while (k < sent.length && k < previous.length && JSON.stringify(now[sent[k]]) === previous[k]) {
        tokens += r.decisions[sent[k]].cost_tokens + overhead;
        k++;
      }
    } else tokens = 0;
    assert.equal(r.cache.prefixMessages, k, `request after messages[${end}]: prefix messages`);
    assert.equal(r.cache.prefixTokens, tokens, `request after messages[${end}]: prefix tokens`);
    previous = sent.map((i) => JSON.stringify(now[i]));
    results.push(r);
  }
  return results;
}

const share = (rs) => rs.reduce((a, r) => a + r.cache.prefixTokens, 0) / rs.reduce((a, r) => a + r.metrics.prompt_tokens, 0);

test('defaultCacheFor: Anthropic histories meet Anthropic\'s cache, every other format OpenAI\'s; both are presets a session takes', () => {
  assert.deepEqual(['openai', 'anthropic', 'ai-sdk', 'langchain'].map(defaultCacheFor), ['openai', 'anthropic', 'openai', 'openai']);
  for (const format of ['openai', 'anthropic']) assert.doesNotThrow(() => createSession({ format, cache: defaultCacheFor(format), budgets: { tokens_max: 1000 } }));
});

test('the recorded agent conversation replays valid, within budget, with the reuse it reports', () => {
  const session = createSession({ format: 'openai', budgets: { tokens_max: 4500 }, cache: 'openai' });
  const rs = replayChecked(recorded, 'openai', session);
  assert.ok(rs.length >= 5);
  assert.ok(rs.some((r) => r.cache.prefixMessages > 0));
});

for (const format of ['openai', 'anthropic']) {
  test(`generated ${format} agent sessions replay valid, within budget, with the reuse they report`, () => {
    for (const seed of [3, 4]) {
      const { messages, system } = agentSession(seed, format, 12);
      const session = createSession({ format, system, budgets: { tokens_max: 9000 }, cache: format, breakpoints: format === 'anthropic' });
      const rs = replayChecked(messages, format, session, { system });
      assert.ok(rs.some((r) => r.cache.cut), `seed ${seed}: the history outgrew the budget`);
    }
  });
}

test('the cuts keep the prefix: at least 85 % of the append-only share, at least 60 % of the budget used; a recency window gets far less', () => {
  const { messages } = agentSession(7, 'openai', 30);
  const rs = replayChecked(messages, 'openai', createSession({ format: 'openai', budgets: { tokens_max: 24_000 }, cache: 'openai' }));
  const bound = replayChecked(messages, 'openai', createSession({ format: 'openai', budgets: { tokens_max: 10_000_000 }, cache: 'openai' }));
  const used = rs.reduce((a, r) => a + r.metrics.budget_used / r.metrics.effective_budget, 0) / rs.length;
  assert.ok(rs.some((r) => r.cache.cut));
  assert.ok(share(rs) >= 0.85 * share(bound), `share ${share(rs)} vs bound ${share(bound)}`);
  assert.ok(used >= 0.6, `budget used ${used}`);
  // fitMessages afresh each turn ('none'): the prefix changes as soon as the history outgrows the budget.
  const fresh = replayChecked(messages, 'openai', createSession({ format: 'openai', budgets: { tokens_max: 24_000 }, cache: 'none' }));
  assert.ok(share(fresh) < share(rs) - 0.1, `fresh ${share(fresh)} vs session ${share(rs)}`);
});

test("cache 'none' plans every turn as fitMessages does", () => {
  const session = createSession({ format: 'openai', budgets: { tokens_max: 4500 } });
  for (const end of requestEnds(recorded, 'openai')) {
    const now = recorded.slice(0, end + 1);
    const a = session.fit(now);
    const b = fitMessages(now, { format: 'openai', budgets: { tokens_max: 4500 } });
    assert.deepEqual(a.decisions, b.decisions);
    assert.equal(a.cache.cut, false);
  }
});

test('counts are cached by content: a turn counts only its new texts, and a history rebuilt from JSON counts nothing', () => {
  let calls = 0;
  const counter = (text) => (calls++, estimateTokens(text));
  const session = createSession({ format: 'openai', budgets: { tokens_max: 4500 }, countTokens: counter, counterId: 'est' });
  const ends = requestEnds(recorded, 'openai');
  const first = session.fit(recorded.slice(0, ends[0] + 1));
  assert.equal(first.metrics.count_cache_misses, calls);
  const distinct = (xs) => new Set(xs.map((m) => JSON.stringify(m))).size;
  const before = calls;
  const second = session.fit(recorded.slice(0, ends[1] + 1));
  const added = recorded.slice(ends[0] + 1, ends[1] + 1);
  assert.equal(calls - before, distinct(added));
  assert.equal(second.metrics.count_cache_misses, calls - before);
  assert.equal(second.metrics.count_cache_hits, ends[0] + 1);
  const rebuilt = JSON.parse(JSON.stringify(recorded.slice(0, ends[1] + 1)));
  const again = session.fit(rebuilt);
  assert.equal(again.metrics.count_cache_misses, 0);
  assert.equal(again.metrics.count_cache_hits, rebuilt.length);
  assert.equal(session.countCache.misses, calls);
});

test('the count cache is bounded, but never below one history', () => {
  const session = createSession({ format: 'openai', budgets: { tokens_max: 4500 }, maxCachedCounts: 3, truncateToolResults: false });
  session.fit(recorded);
  assert.equal(session.countCache.size, new Set(recorded.map((m) => JSON.stringify(m))).size);
  session.fit(recorded.slice(0, 2).map((m) => ({ ...m, content: `${m.content} edited` })));
  assert.equal(session.countCache.size, 3);
});

const asyncCounter = (delays) => async (text) => {
  await new Promise((resolve) => setTimeout(resolve, delays.next()));
  return estimateTokens(text);
};
const delaysFrom = (seed) => {
  let x = seed;
  return { next: () => (x = (x * 48271) % 2147483647) % 3 };
};

test('async counters give the same plans as sync ones, at most `concurrency` in flight', async () => {
  const { messages, system } = agentSession(5, 'anthropic', 12);
  const sync = createSession({ format: 'anthropic', system, budgets: { tokens_max: 16_000 }, cache: 'anthropic' });
  let inFlight = 0;
  let most = 0;
  const delays = delaysFrom(11);
  const counter = async (text) => {
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setTimeout(resolve, delays.next()));
    inFlight--;
    return estimateTokens(text);
  };
  const async_ = createSession({ format: 'anthropic', system, budgets: { tokens_max: 16_000 }, cache: 'anthropic', countTokens: counter, concurrency: 3 });
  for (const end of requestEnds(messages, 'anthropic')) {
    const now = messages.slice(0, end + 1);
    const a = sync.fit(now);
    const b = await async_.fitAsync(now);
    assert.deepEqual(b.messages, a.messages);
    assert.deepEqual(b.decisions, a.decisions);
    assert.deepEqual(b.cache, a.cache);
  }
  assert.ok(most <= 3 && most >= 2, `at most 3 in flight, saw ${most}`);
  const plain = fitMessages(messages, { format: 'anthropic', system, budgets: { tokens_max: 16_000 } });
  const viaAsync = await fitMessagesAsync(messages, { format: 'anthropic', system, budgets: { tokens_max: 16_000 }, countTokens: asyncCounter(delaysFrom(3)), concurrency: 2 });
  assert.deepEqual(viaAsync.decisions, plain.decisions);
});

test('a rejecting async counter is TOKEN_COUNT_FAILED naming the message, with the rejection as cause; the sync path refuses a Promise', async () => {
  const boom = new Error('quota');
  const counter = async (text) => {
    if (text.includes('auth')) throw boom;
    return estimateTokens(text);
  };
  const at = recorded.findIndex((m) => typeof m.content === 'string' && m.content.includes('auth'));
  await assert.rejects(fitMessagesAsync(recorded, { format: 'openai', budgets: { tokens_max: 4500 }, countTokens: counter }), (err) => {
    assert.ok(err instanceof CtxpackError);
    assert.equal(err.code, 'TOKEN_COUNT_FAILED');
    assert.equal(err.cause, boom);
    assert.equal(err.index, at);
    assert.match(err.message, new RegExp(`messages\\[${at}\\]`));
    return true;
  });
  const session = createSession({ format: 'openai', budgets: { tokens_max: 4500 }, countTokens: counter });
  await assert.rejects(session.fitAsync(recorded), (err) => err.code === 'TOKEN_COUNT_FAILED' && err.cause === boom);
  assert.throws(() => session.fit(recorded), (err) => err.code === 'TOKEN_COUNT_FAILED' && /a Promise/.test(err.message));
  assert.throws(() => fitMessages(recorded, { format: 'openai', budgets: { tokens_max: 4500 }, countTokens: counter }), (err) => err.code === 'TOKEN_COUNT_FAILED');
});

test('an edited history recovers: a valid request at once, then appends again', () => {
  const { messages } = agentSession(9, 'openai', 10);
  const session = createSession({ format: 'openai', budgets: { tokens_max: 8000 }, cache: 'openai' });
  const ends = requestEnds(messages, 'openai');
  const mid = ends[Math.floor(ends.length / 2)];
  let last;
  for (const end of ends) if (end <= mid) last = session.fit(messages.slice(0, end + 1));
  const sentBefore = last.decisions.filter((d) => d.included).map((d) => d.index);
  const edited = messages.slice(0, mid + 1);
  const at = sentBefore[Math.floor(sentBefore.length / 2)];
  edited[at] = { ...edited[at], content: 'rewritten by the user' };
  const next = ends.find((e) => e > mid);
  const history = [...edited, ...messages.slice(mid + 1, next + 1)];
  const r = session.fit(history);
  assert.deepEqual(validateMessages(r.messages, 'openai'), []);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
  assert.ok(r.cache.prefixMessages <= sentBefore.indexOf(at), 'the prefix stops before the edit');
  const after = ends.find((e) => e > next);
  const r2 = session.fit([...history, ...messages.slice(next + 1, after + 1)]);
  assert.equal(r2.cache.prefixMessages, r.messages.length, 'the next turn appends to the recovered request');
});

test('state export and import: a session continued from JSON plans as the original does, and the state holds no text', () => {
  const { messages, system } = agentSession(12, 'anthropic', 16);
  const options = { format: 'anthropic', system, budgets: { tokens_max: 16_000 }, cache: 'anthropic' };
  const a = createSession(options);
  const ends = requestEnds(messages, 'anthropic');
  const half = Math.floor(ends.length / 2);
  for (const end of ends.slice(0, half)) a.fit(messages.slice(0, end + 1));
  const json = JSON.stringify(a.exportState());
  for (const word of messages[0].content.split(' ').slice(0, 5)) assert.ok(!json.includes(word), 'no text in the state');
  let counted = 0;
  const b = createSession({ ...options, countTokens: (t) => (counted++, estimateTokens(t)), counterId: 'estimateTokens', state: JSON.parse(json) });
  for (const end of ends.slice(half)) {
    const now = messages.slice(0, end + 1);
    const ra = a.fit(now);
    const rb = b.fit(now);
    assert.deepEqual(rb.decisions, ra.decisions);
    assert.deepEqual(rb.cache, ra.cache);
  }
  assert.ok(counted < messages.length, `imported counts are reused (${counted} counted)`);
  // Another counter: the counts are not taken, the plans are the same.
  const c = createSession({ ...options, countTokens: (t) => estimateTokens(t), counterId: 'other', state: JSON.parse(json) });
  assert.equal(c.countCache.size, 0);
});

test('Anthropic breakpoints: at most 4, each above the minimum, on copies; the caller’s messages untouched', () => {
  const { messages, system } = agentSession(21, 'anthropic', 14);
  const frozen = structuredClone(messages);
  const deepFreeze = (x) => (x !== null && typeof x === 'object' ? (Object.values(x).forEach(deepFreeze), Object.freeze(x)) : x);
  deepFreeze(messages);
  const session = createSession({ format: 'anthropic', system, budgets: { tokens_max: 12_000 }, cache: 'anthropic', breakpoints: true });
  let seen = 0;
  replaySession(messages, { format: 'anthropic', system, budgets: { tokens_max: 12_000 }, cache: 'anthropic', breakpoints: true }, (r) => {
    assert.ok(r.cache.breakpoints.length <= 4);
    const sent = r.decisions.filter((d) => d.included).map((d) => d.index);
    r.messages.forEach((m, k) => {
      const marked = r.cache.breakpoints.some((b) => b.index === k);
      if (!marked) assert.equal(m, messages[sent[k]], 'unmarked messages are the caller’s own objects');
      else {
        seen++;
        assert.notEqual(m, messages[sent[k]]);
        const blocks = m.content;
        assert.deepEqual(blocks.at(-1).cache_control ?? blocks.findLast((b) => b.cache_control).cache_control, { type: 'ephemeral' });
      }
    });
    for (const b of r.cache.breakpoints) assert.ok(b.tokens >= 1024);
  });
  assert.ok(seen > 0);
  assert.deepEqual(messages, frozen);
  void session;
});

test('bad session options are INVALID_OPTION naming the field', () => {
  const code = (f, field) => assert.throws(f, (err) => err instanceof CtxpackError && err.code === 'INVALID_OPTION' && err.field === field);
  code(() => createSession({ format: 'openai', cache: 'gemini' }), 'cache');
  code(() => createSession({ format: 'openai', cache: { readCost: 0.1, writeCost: 1, minCacheableTokens: 1024, maxBreakpoints: -1 } }), 'cache.maxBreakpoints');
  code(() => createSession({ format: 'openai', cache: 'openai', breakpoints: true }), 'breakpoints');
  code(() => createSession({ format: 'anthropic', state: { version: 2 } }), 'state');
  code(() => createSession({ format: 'anthropic', state: { version: 1, counter: null, model: null, counts: [], previous: { n: 1 }, growth: [] } }), 'state.previous.head');
  code(() => createSession({ format: 'openai', budgets: { tokens_max: 100 } }).fit([], { keep: 2 }), 'turn.keep');
  code(() => createSession({ format: 'openai', concurrency: 0 }), 'concurrency');
});

test('ctxpack replay prints one line per request and the totals replaySession gives', async () => {
  const { execFileSync } = await import('node:child_process');
  const bin = new URL('../bin/ctxpack.js', import.meta.url).pathname;
  const sample = new URL('../../www/samples/agent-chat.openai.json', import.meta.url).pathname;
  const turns = replaySession(recorded, { format: 'openai', budgets: { tokens_max: 4500 }, cache: 'openai' });
  assert.deepEqual(JSON.parse(execFileSync(process.execPath, [bin, 'replay', sample, '--budget', '4500', '--json'], { encoding: 'utf8' })), turns);
  const text = execFileSync(process.execPath, [bin, 'replay', sample, '--budget', '4500'], { encoding: 'utf8' });
  assert.match(text, new RegExp(`${turns.length} requests at 4500 tokens`));
  assert.equal(text.split('\n').filter((l) => /^\s+\d+\s+\d+\s+\d+\s+\d+/.test(l)).length, turns.length);
  const prompt = turns.reduce((a, t) => a + t.promptTokens, 0);
  assert.match(text, new RegExp(`total: ${prompt} prompt tokens`));
  assert.ok(turns.some((t) => t.cut) && turns.some((t) => t.predictedCachedTokens > 0));
});

test('summarizeReplay: the prefix share against the append-only bound (the whole history each turn, recounted by fitMessages), budget use, cost', () => {
  const { messages } = agentSession(17, 'openai', 10);
  const budgets = { tokens_max: 12_000, per_fragment_overhead: 3 };
  const turns = replaySession(messages, { format: 'openai', budgets, cache: 'openai' });
  assert.ok(turns.some((t) => t.cut), 'the budget makes the session cut');
  const ends = requestEnds(messages, 'openai');
  const whole = ends.map((end) => fitMessages(messages.slice(0, end + 1), { format: 'openai', budgets: { ...budgets, tokens_max: Number.MAX_SAFE_INTEGER } }).metrics.prompt_tokens);
  assert.deepEqual(
    turns.map((t) => t.historyTokens),
    whole,
  );
  const sum = (f) => turns.reduce((a, t) => a + f(t), 0);
  const prompt = sum((t) => t.promptTokens);
  const bound = whole.slice(0, -1).reduce((a, x) => a + x, 0) / whole.reduce((a, x) => a + x, 0);
  const s = summarizeReplay(turns);
  assert.equal(s.requests, ends.length);
  assert.equal(s.cuts, turns.filter((t) => t.cut).length);
  assert.equal(s.promptTokens, prompt);
  assert.ok(Math.abs(s.prefixShare - sum((t) => t.prefixTokens) / prompt) < 1e-12);
  assert.ok(Math.abs(s.appendOnlyShare - bound) < 1e-12);
  assert.ok(Math.abs(s.ofAppendOnly - s.prefixShare / bound) < 1e-12);
  assert.ok(Math.abs(s.cachedShare - sum((t) => t.predictedCachedTokens) / prompt) < 1e-12);
  assert.ok(Math.abs(s.budgetUse - sum((t) => t.budgetUsed / 12_000) / turns.length) < 1e-12);
  assert.ok(Math.abs(s.predictedCost - sum((t) => t.predictedCost)) < 1e-9);
  assert.ok(s.prefixShare < s.appendOnlyShare, 'cutting costs some reuse');
});

test('summarizeReplay of no turns: zeros, not NaN', () => {
  assert.deepEqual(summarizeReplay([]), { requests: 0, cuts: 0, promptTokens: 0, prefixShare: 0, appendOnlyShare: 0, ofAppendOnly: 0, cachedShare: 0, budgetUse: 0, predictedCost: 0 });
});

test('session results (Anthropic breakpoints included) type-check as OpenAI and Anthropic SDK requests', async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdirSync, rmSync, writeFileSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const dir = join(root, 'node_modules', '.cache', 'ctxpack-session-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const lines = [
    "import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';",
    "import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';",
    `import { createSession, type SessionState } from ${JSON.stringify(join(root, 'dist', 'index.js'))};`,
    'declare const history: ChatCompletionMessageParam[];',
    "const s = createSession({ format: 'openai', budgets: { tokens_max: 8000 }, cache: 'openai' });",
    "export const o: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: s.fit(history).messages };",
    'declare const turns: MessageParam[];',
    "const a = createSession({ format: 'anthropic', system: 'Be brief.', budgets: { tokens_max: 8000 }, cache: 'anthropic', breakpoints: true });",
    "export const an: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: a.fit(turns, { query: 'x' }).messages };",
    'export const state: SessionState = a.exportState();',
  ];
  for (const format of ['openai', 'anthropic']) {
    const { messages, system } = agentSession(31, format, 10);
    replaySession(messages, { format, system, budgets: { tokens_max: 9000 }, cache: format, breakpoints: format === 'anthropic' }, (r, end) => {
      const literal = JSON.stringify(r.messages);
      lines.push(
        format === 'openai'
          ? `export const o${end}: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: ${literal} };`
          : `export const a${end}: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, system: ${JSON.stringify(system)}, messages: ${literal} };`,
      );
    });
  }
  writeFileSync(join(dir, 'requests.ts'), lines.join('\n') + '\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: true, types: [] }, files: ['requests.ts'] }),
  );
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc: ${String(e.stdout).slice(0, 2000)}`);
  }
});

test('per-turn options: a smaller budget cuts within it, a new system prompt reuses nothing, too much pinned is PINNED_OVER_BUDGET', () => {
  const { messages, system } = agentSession(41, 'anthropic', 8);
  const session = createSession({ format: 'anthropic', system, budgets: { tokens_max: 1_000_000 }, cache: 'anthropic' });
  const ends = requestEnds(messages, 'anthropic');
  const a = session.fit(messages.slice(0, ends.at(-2) + 1));
  assert.equal(a.messages.length, ends.at(-2) + 1);
  const b = session.fit(messages.slice(0, ends.at(-1) + 1), { budgets: { tokens_max: 6000 } });
  assert.ok(b.metrics.budget_used <= 6000 && b.cache.cut);
  assert.deepEqual(validateMessages(b.messages, 'anthropic'), []);
  const c = session.fit(messages.slice(0, ends.at(-1) + 1), { system: 'Another system prompt.', budgets: { tokens_max: 6000 } });
  assert.equal(c.cache.prefixMessages, 0);
  assert.equal(c.cache.prefixTokens, 0);
  assert.throws(() => session.fit(messages, { budgets: { tokens_max: 10 } }), (err) => err instanceof CtxpackError && err.code === 'PINNED_OVER_BUDGET');
});

test("cache 'anthropic-auto': Anthropic's automatic caching, no markers placed, appends predicted read at Anthropic's prices", () => {
  const { messages, system } = agentSession(4, 'anthropic', 12);
  const session = createSession({ format: 'anthropic', system, budgets: { tokens_max: 9000 }, cache: 'anthropic-auto' });
  const rs = replayChecked(messages, 'anthropic', session, { system });
  const markers = (v) => JSON.stringify(v).split('"cache_control"').length - 1;
  for (const r of rs) {
    assert.deepEqual(r.cache.breakpoints, []);
    assert.equal(markers(r.messages), 0);
    // An append reads the whole previous request from 1024 tokens on, as a prefix cache does.
    if (!r.cache.cut && r.cache.prefixTokens >= 1024) assert.equal(r.cache.predictedCachedTokens, r.cache.prefixTokens);
    const cached = r.cache.predictedCachedTokens;
    assert.ok(Math.abs(r.metrics.predicted_cost - (cached * 0.1 + (r.metrics.prompt_tokens - cached) * 1.25)) < 1e-6);
  }
  assert.ok(rs.some((r) => r.cache.cut) && rs.some((r) => r.cache.predictedCachedTokens > 0));
  // Breakpoints need explicit markers: the automatic profile has none to place.
  assert.throws(() => createSession({ format: 'anthropic', budgets: { tokens_max: 9000 }, cache: 'anthropic-auto', breakpoints: true }), (e) => e.code === 'INVALID_OPTION' && e.field === 'breakpoints');
});

const words = (w, n) => `${w} `.repeat(n);

/** The TTL-order tests' Anthropic history: a request, then four tool calls with 500-word results. */
function auditHistory() {
  const history = [{ role: 'user', content: 'Audit the repo.' }];
  for (let i = 0; i < 4; i++) {
    history.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read', input: { i } }] });
    history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: words(`file ${i}`, 500) }] });
  }
  return history;
}

// A new-user trial found a 1-hour profile writing its markers after the caller's 5-minute one on
// the system prompt (5m -> 1h -> 1h), which Anthropic refuses with a 400.
test('Anthropic cache TTL order: a 1-hour profile after a 5-minute marker of the caller writes 5-minute breakpoints, says so, and prices 5-minute writes', async () => {
  const { anthropicControls, anthropicTtlCheck } = await import('./sdk-check.mjs');
  const history = auditHistory();
  const hour = { readCost: 0.1, writeCost: 2, minCacheableTokens: 1024, maxBreakpoints: 4, ttl: '1h' };
  const fit = (system, cache = hour, h = history) => createSession({ format: 'anthropic', system, budgets: { tokens_max: 100_000 }, breakpoints: true, cache }).fit(h);
  const text = words('You are an auditor.', 800);

  // The caller's 5-minute marker on the system prompt: every breakpoint after it is 5 minutes.
  const system = [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
  const r = fit(system);
  assert.ok(r.cache.breakpoints.length >= 2);
  assert.deepEqual(r.cache.breakpoints.map((b) => b.ttl), r.cache.breakpoints.map(() => '5m'));
  assert.deepEqual(anthropicTtlCheck(anthropicControls({ system, messages: r.messages }), 'system 5m'), ['5m', ...r.cache.breakpoints.map(() => '5m')]);
  const warning = r.warnings.find((w) => w.startsWith('cache_ttl_shortened: '));
  assert.ok(warning, 'a warning says the breakpoints were shortened');
  assert.ok(warning.includes('options.tools or options.system') && !warning.includes('auditor'), 'it names where, never the content');
  // Priced as written: the same plan at Anthropic's 5-minute write price (1.25 where 1 hour is 2).
  const fiveMinutes = fit(system, { ...hour, writeCost: 1.25, ttl: '5m' });
  assert.deepEqual(r.cache.breakpoints, fiveMinutes.cache.breakpoints);
  assert.equal(r.metrics.predicted_cost, fiveMinutes.metrics.predicted_cost);

  // Without the caller's marker: 1 hour everywhere, no warning, priced at the profile's writeCost.
  const plain = fit([{ type: 'text', text }]);
  assert.ok(plain.cache.breakpoints.length >= 2 && plain.cache.breakpoints.every((b) => b.ttl === '1h'));
  assert.ok(!plain.warnings.some((w) => w.startsWith('cache_ttl_shortened')));
  assert.ok(plain.metrics.predicted_cost > r.metrics.predicted_cost);
  assert.deepEqual(anthropicTtlCheck(anthropicControls({ messages: plain.messages })), plain.cache.breakpoints.map(() => '1h'));

  // The caller's 5-minute marker on messages[4]: the breakpoints before it keep 1 hour, those from it on are 5 minutes.
  const marked = history.map((m, i) => (i === 4 ? { ...m, content: m.content.map((b) => ({ ...b, cache_control: { type: 'ephemeral' } })) } : m));
  const mid = fit([{ type: 'text', text }], hour, marked);
  anthropicTtlCheck(anthropicControls({ messages: mid.messages }), 'messages[4] 5m');
  for (const b of mid.cache.breakpoints) assert.equal(b.ttl, b.index >= 4 ? '5m' : '1h', `breakpoint at ${b.index}`);
  assert.ok(mid.cache.breakpoints.some((b) => b.index < 4) && mid.cache.breakpoints.some((b) => b.index >= 4));
  assert.ok(mid.warnings.some((w) => w.startsWith('cache_ttl_shortened: ') && w.includes('messages[4]')));
});

// A new-user trial found the reverse case: with a 5-minute profile, the caller's own 1-hour marker
// on a later message came after the session's 5-minute breakpoints (5m -> 1h), refused with a 400.
test('Anthropic cache TTL order: a 5-minute profile before a 1-hour marker of the caller lengthens the breakpoints before it, says so, and prices what it writes', async () => {
  const { anthropicControls, anthropicTtlCheck } = await import('./sdk-check.mjs');
  const history = auditHistory();
  const five = { readCost: 0.1, writeCost: 1.25, minCacheableTokens: 1024, maxBreakpoints: 4, ttl: '5m' };
  const system = [{ type: 'text', text: words('You are an auditor.', 800) }];
  const fit = (h, cache = five) => createSession({ format: 'anthropic', system, budgets: { tokens_max: 100_000 }, breakpoints: true, cache }).fit(h);
  const hourMark = (m) => ({ ...m, content: m.content.map((b) => ({ ...b, cache_control: { type: 'ephemeral', ttl: '1h' } })) });

  // The caller's 1-hour marker on messages[6]: the breakpoints up to it are 1 hour, those after it 5 minutes.
  const mid = fit(history.map((m, i) => (i === 6 ? hourMark(m) : m)));
  assert.ok(mid.cache.breakpoints.some((b) => b.index <= 6) && mid.cache.breakpoints.some((b) => b.index > 6), mid.cache.breakpoints.map((b) => b.index).join(','));
  for (const b of mid.cache.breakpoints) assert.equal(b.ttl, b.index <= 6 ? '1h' : '5m', `breakpoint at ${b.index}`);
  anthropicTtlCheck(anthropicControls({ system, messages: mid.messages }), 'messages[6] 1h');
  const warning = mid.warnings.find((w) => w.startsWith('cache_ttl_lengthened: '));
  assert.ok(warning && warning.includes('messages[6]') && !warning.includes('auditor'), 'a warning names where, never the content');
  // The last breakpoint, where the turn writes, stays 5 minutes: priced as the profile.
  const plain = fit(history);
  assert.ok(plain.cache.breakpoints.every((b) => b.ttl === '5m') && !plain.warnings.some((w) => w.startsWith('cache_ttl_')));

  // On the last message: every breakpoint is 1 hour, and the turn is priced at the 1-hour write (2 where 5 minutes is 1.25).
  const end = fit(history.map((m, i) => (i === history.length - 1 ? hourMark(m) : m)));
  assert.ok(end.cache.breakpoints.length >= 2 && end.cache.breakpoints.every((b) => b.ttl === '1h'));
  assert.deepEqual(anthropicTtlCheck(anthropicControls({ system, messages: end.messages }), 'last 1h'), end.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.cache_control).map(() => '1h'));
  const hour = fit(history.map((m, i) => (i === history.length - 1 ? hourMark(m) : m)), { ...five, writeCost: 2, ttl: '1h' });
  assert.deepEqual(end.cache.breakpoints, hour.cache.breakpoints);
  assert.equal(end.metrics.predicted_cost, hour.metrics.predicted_cost);
  assert.ok(end.metrics.predicted_cost > plain.metrics.predicted_cost);
});

// A new-user trial found NOT_MARKABLE excluding thinking blocks only: @anthropic-ai/sdk's block
// params without a cache_control field (mcp_tool_listing, fallback) could be given a marker.
test('Anthropic breakpoints never go on a block whose @anthropic-ai/sdk type has no cache_control', async () => {
  const types = readFileSync(new URL('../node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts', import.meta.url), 'utf8');
  const union = /export type BetaContentBlockParam = ([^;]+);/.exec(types)[1].split('|').map((s) => s.trim());
  const unmarkable = union.flatMap((name) => {
    const body = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(types)?.[1];
    assert.ok(body, `${name} is in the SDK's types`);
    return /\n {4}cache_control\?:/.test(body) ? [] : [/\n {4}type: '([^']+)'/.exec(body)[1]];
  });
  assert.ok(unmarkable.includes('thinking') && unmarkable.length >= 2, unmarkable.join(','));
  for (const type of unmarkable) {
    const history = [
      { role: 'user', content: words('Audit the repo.', 600) },
      { role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, { type }] }, // the last message: the breakpoint a turn writes
    ];
    const s = createSession({ format: 'anthropic', budgets: { tokens_max: 100_000 }, cache: { readCost: 0.1, writeCost: 1.25, minCacheableTokens: 100, maxBreakpoints: 4 }, breakpoints: true });
    const r = s.fit(history);
    assert.ok(r.cache.breakpoints.some((b) => b.index === 1), `${type}: the assistant message has a breakpoint`);
    const blocks = r.messages[1].content;
    assert.equal(blocks[1].cache_control, undefined, `${type} carries no cache_control`);
    assert.deepEqual(blocks[0].cache_control, { type: 'ephemeral' }, `${type}: the marker goes on the block before`);
  }
});
