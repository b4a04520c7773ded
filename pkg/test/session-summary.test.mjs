// createSession({ summarize }): the span a cut leaves out becomes one summary message where it
// was. Every request valid in every format (validateMessages and the SDKs' own checks) with the
// summary in it, the summary resent byte-identical until the next one, a failing or slow
// summariser never fails a turn, each span summarised once, the task and the step in flight never
// summarised; a 64-step agent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BaseMessage } from '@langchain/core/messages';
import { DEFAULT_SUMMARY_INSTRUCTION, createSession, requestEnds } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';
import { FORMATS } from './messages-histories.mjs';
import { checkAgentRequest } from './sdk-check.mjs';
import { standInSummary } from './summary-stand-in.mjs';

/** A summariser's prices that make summaries pay in these histories (a small model reads and writes them). */
const CHEAP = { inputCost: 0.05, outputCost: 0.2 };

/** The JSON of a message as sent (LangChain's instances through their own toJSON), without Anthropic's cache markers (the session moves them). */
const json = (m) => JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v));

/** A synchronous stand-in that records what it was given. */
function recording() {
  const seen = [];
  const summarize = (request) => {
    seen.push(request);
    return standInSummary(request.messages, request.maxTokens);
  };
  return { seen, summarize };
}

const isUser = (format) => (m) => (m instanceof BaseMessage ? m.getType() === 'human' : m.role === 'user');

/** Replays `messages` request by request through `session.fit`; returns the results with the history each saw. */
function replay(messages, format, session) {
  const out = [];
  for (const end of requestEnds(messages, format)) {
    const now = messages.slice(0, end + 1);
    out.push({ now, r: session.fit(now) });
  }
  return out;
}

for (const format of FORMATS) {
  test(`${format}: every request valid with its summary in it, the summary byte-identical until the next, the task and the step in flight never summarised`, () => {
    let sent = 0;
    for (const seed of [3, 4]) {
      const { messages, system } = agentSession(seed, format, 14);
      const task = messages.find(isUser(format));
      const { seen, summarize } = recording();
      const session = createSession({ format, system, budgets: { tokens_max: 9000 }, cache: format === 'anthropic' ? 'anthropic' : 'openai', breakpoints: format === 'anthropic', summarize, summary: CHEAP });
      const turns = replay(messages, format, session);
      let withSummary = 0;
      let previous;
      turns.forEach(({ now, r }, k) => {
        checkAgentRequest(format, r, k, (m) => m === task);
        assert.equal(r.decisions.length, now.length, `step ${k}: one decision per message of the history`);
        assert.ok(r.decisions[now.length - 1].included, `step ${k}: the step in flight is sent`);
        const summarized = r.decisions.filter((d) => d.reason === 'summarized');
        for (const d of summarized) {
          assert.equal(d.included, false);
          assert.equal(d.summary, r.summary.id);
          assert.notEqual(now[d.index], task, `step ${k}: the task is never summarised`);
          assert.ok(d.index < now.length - 1, `step ${k}: the step in flight is never summarised`);
        }
        if (r.summary) {
          withSummary++;
          // Every message of its span is the summary's, or kept in full by a later cut (a candidate still).
          for (let i = r.summary.replaces.from; i < r.summary.replaces.to; i++) assert.ok(r.decisions[i].reason === 'summarized' || r.decisions[i].included, `step ${k}: messages[${i}] ${r.decisions[i].reason}`);
          assert.ok(summarized.length > 0);
          const sent = r.messages[r.summary.index];
          assert.match(json(sent), /Summary of earlier messages/);
          // Where the span was: after every message sent from before it, before every one after it.
          const before = r.decisions.filter((d) => d.included && d.index < r.summary.replaces.from).length;
          assert.equal(r.summary.index, before, `step ${k}: the summary stands where its span was`);
          if (previous?.id === r.summary.id) {
            assert.equal(json(sent), previous.json, `step ${k}: the summary is resent byte-identical`);
            if (format !== 'anthropic') assert.equal(sent, previous.message, `step ${k}: as the same object`);
          }
          previous = { id: r.summary.id, json: json(sent), message: sent };
          assert.ok(r.summary.tokens > 0 && r.summary.callCost > 0);
        } else assert.equal(r.summary, null);
      });
      assert.ok(turns.some(({ r }) => r.cache.cut), `seed ${seed}: the history outgrew the budget`);
      sent += withSummary; // a summary that would displace a message kept in full is not sent: not in every history
      // Each span was given to the summariser once.
      const spans = seen.map((q) => q.messages.map(json).join('\u0001'));
      assert.equal(new Set(spans).size, spans.length, 'no span summarised twice');
      assert.ok(seen.every((q) => q.instruction === DEFAULT_SUMMARY_INSTRUCTION && q.maxTokens >= 64 && q.format === format));
    }
    assert.ok(sent > 0, `${format}: a summary was sent`);
  });
}

test('the summary enters only at a cut: every turn that appends keeps the previous request as its prefix', () => {
  const { messages } = agentSession(7, 'openai', 14);
  const { summarize } = recording();
  const session = createSession({ format: 'openai', budgets: { tokens_max: 9000 }, cache: 'openai', summarize, summary: CHEAP });
  let previous;
  for (const { r } of replay(messages, 'openai', session)) {
    if (previous !== undefined && !r.cache.cut) {
      assert.equal(r.summary?.id, previous.summary?.id, 'a summary changes only at a cut');
      assert.equal(r.cache.prefixMessages, previous.messages.length, 'an append keeps the whole previous request');
    }
    previous = r;
  }
});

/** A history of a task and `steps` read_file steps of about 460 tokens each, in OpenAI's format (the 64-step agent of adapter-agents.mjs). */
function readFileAgent(steps) {
  const history = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the login bug: sessions expire after one minute.' }];
  for (let step = 0; step < steps; step++) {
    history.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${step}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${step}.ts` }) } }] });
    history.push({ role: 'tool', tool_call_id: `c${step}`, content: `// src/f${step}.ts: TTL ${step * 60} seconds\n${'export const line = "session token expiry";\n'.repeat(40)}` });
  }
  return history;
}

test('a 64-step agent: the summary is asked ahead of the cut, one call per compaction, folded, and the cut turn already sends it', () => {
  const history = readFileAgent(64);
  const { seen, summarize } = recording();
  const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize, summary: CHEAP });
  const results = [];
  for (let step = 0; step <= 64; step++) {
    const now = history.slice(0, 2 + 2 * step);
    const callsBefore = seen.length;
    const r = session.fit(now);
    checkAgentRequest('openai', r, step, (m) => m === history[1]);
    // A summary enters at a cut: asked on an earlier turn (ahead), never on the cut turn itself.
    if (r.summary && results.at(-1)?.summary?.id !== r.summary.id) {
      assert.ok(r.cache.cut);
      assert.equal(seen.length, callsBefore, `step ${step}: the summary was asked for ahead of the cut`);
    }
    results.push(r);
  }
  const cuts = results.filter((r) => r.cache.cut).length;
  const ids = new Set(results.filter((r) => r.summary).map((r) => r.summary.id));
  assert.ok(cuts >= 2, `cuts ${cuts}`);
  assert.equal(ids.size, cuts, 'every cut brings its summary');
  assert.ok(seen.length <= cuts + 1, `summariser calls ${seen.length} for ${cuts} cuts`);
  // The second summary folds the first: its span starts with the first summary.
  const folded = seen.find((q) => q.messages[0]?.role === 'user');
  assert.ok(folded, 'a later summary folds the one before');
  // Key facts of the span are in the summary sent (the stand-in keeps the lines with numbers and paths).
  const last = results.at(-1);
  const text = last.messages[last.summary.index].content;
  assert.match(text, /src\/f0\.ts/);
});

test('a summariser that throws, rejects, answers badly or never answers fails no turn, and is asked once per span', async () => {
  const history = readFileAgent(64);
  const cases = {
    throws: () => {
      throw new Error('model down');
    },
    rejects: async () => {
      throw new Error('rate limited');
    },
    empty: async () => '   ',
    'not a user message': async () => ({ role: 'assistant', content: 'x' }),
    'never answers': () => new Promise(() => {}),
  };
  for (const [name, fn] of Object.entries(cases)) {
    let calls = 0;
    const summarize = (q) => {
      calls++;
      return fn(q);
    };
    const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize, summary: CHEAP });
    const warnings = [];
    for (let step = 0; step <= 64; step++) {
      const r = await session.fitAsync(history.slice(0, 2 + 2 * step));
      checkAgentRequest('openai', r, step, (m) => m === history[1]);
      assert.equal(r.summary, null, `${name}: no summary`);
      warnings.push(...r.warnings);
      await new Promise((resolve) => setImmediate(resolve)); // the summariser's answer arrives between turns
    }
    const distinctSpans = calls;
    assert.ok(calls >= 1, `${name}: asked`);
    if (name !== 'never answers') assert.ok(warnings.some((w) => w.startsWith('summary_failed: ')), `${name}: warned`);
    // Failed spans are not asked again: at most one call per cut and one ahead of it.
    assert.ok(distinctSpans <= 8, `${name}: ${calls} calls`);
    for (const w of warnings) assert.doesNotMatch(w, /model down|rate limited/, 'warnings carry no content of the failure');
  }
});

test('fitAsync: the default waits for no summary; wait: true sends it on the cut turn; a timeout falls back to the cut', async () => {
  const history = readFileAgent(64);
  const run = async (summary, summarize) => {
    const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize, summary: { ...CHEAP, ...summary } });
    const out = [];
    for (let step = 0; step <= 64; step++) out.push(await session.fitAsync(history.slice(0, 2 + 2 * step)));
    return out;
  };
  // An async summariser that answers only when released: without wait, no turn waits for it.
  const pending = [];
  const held = (q) => new Promise((resolve) => pending.push(() => resolve(standInSummary(q.messages, q.maxTokens))));
  const nowait = await run({}, held);
  assert.ok(pending.length >= 1, 'asked ahead of the cut');
  assert.ok(nowait.every((r) => r.summary === null), 'never released: never sent, and no turn waited');
  // With wait: true, the first cut turn awaits the summary and already sends it.
  const waited = await run({ wait: true }, async (q) => standInSummary(q.messages, q.maxTokens));
  const firstCut = waited.findIndex((r) => r.cache.cut);
  assert.ok(firstCut > 0 && waited[firstCut].summary, 'the first cut sends its summary');
  // A summariser slower than timeoutMs: the turn goes on without it, with the warning.
  const timedOut = await run({ wait: true, timeoutMs: 1 }, () => new Promise(() => {}));
  assert.ok(timedOut.every((r) => r.summary === null));
  assert.ok(timedOut.some((r) => r.warnings.some((w) => /^summary_failed: the summariser did not answer within 1 ms/.test(w))));
});

test('options: summarize must be a function, summary an object of known fields; summary without summarize is refused', () => {
  const base = { format: 'openai', budgets: { tokens_max: 1000 } };
  assert.throws(() => createSession({ ...base, summarize: 'yes' }), { code: 'INVALID_OPTION', field: 'summarize' });
  assert.throws(() => createSession({ ...base, summarize: () => 'x', summary: { wait: 1 } }), { code: 'INVALID_OPTION', field: 'summary.wait' });
  assert.throws(() => createSession({ ...base, summarize: () => 'x', summary: { bogus: 1 } }), { code: 'INVALID_OPTION', field: 'summary.bogus' });
  assert.throws(() => createSession({ ...base, summarize: () => 'x', summary: { inputCost: -1 } }), { code: 'INVALID_OPTION', field: 'summary.inputCost' });
  assert.throws(() => createSession({ ...base, summary: {} }), { code: 'INVALID_OPTION', field: 'summary' });
  // Without a cut nothing is asked, and the result says there is no summary.
  const s = createSession({ ...base, summarize: () => assert.fail('not asked') });
  assert.equal(s.fit([{ role: 'user', content: 'hi' }]).summary, null);
});

test('priced: at the default prices (the agent\'s own model), a summary that keeps little is not asked for', () => {
  const history = readFileAgent(64);
  const { seen, summarize } = recording();
  // A summary as long as the span keeps all of it but saves nothing: never pays.
  const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize, summary: { maxTokens: 20_000 } });
  for (let step = 0; step <= 64; step++) session.fit(history.slice(0, 2 + 2 * step));
  assert.equal(seen.length, 0);
});

test('priced: at the default prices (the agent\'s own model) the call is spread over the turns its summary serves: the 64-step agent gets its summaries without prices', () => {
  // The summary's content serves every later turn (a fold carries it on), and a session that has
  // run n turns is expected to run about n more: the call is divided by max(m, n), not by the m
  // turns of one cycle (which made the agent's own model never pay).
  const history = readFileAgent(64);
  const { seen, summarize } = recording();
  const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize });
  const ids = new Set();
  for (let step = 0; step <= 64; step++) {
    const r = session.fit(history.slice(0, 2 + 2 * step));
    if (r.summary) ids.add(r.summary.id);
  }
  assert.ok(ids.size >= 1, 'a summary is sent');
  assert.ok(seen.length <= ids.size + 1, `${seen.length} calls for ${ids.size} summaries`);
});

test('priced: a summary sent never takes the place of a message the plan without it keeps in full (measured on both plans)', () => {
  // Two sessions on the same history, one cutting only: until the first summary enters, their
  // plans are the same (asking ahead plans nothing for the request). At that turn the summary's
  // plan is the other's cut filled to its size plus the summary: it keeps in full every message the
  // other keeps, and its prompt is larger. When that plan chose its own size, it chose a smaller
  // prompt, the summary displaced kept messages and was refused: no summary was ever sent here.
  const history = readFileAgent(64);
  const { summarize } = recording();
  const withS = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize });
  const cutOnly = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai' });
  let checked = false;
  for (let step = 0; step <= 64 && !checked; step++) {
    const now = history.slice(0, 2 + 2 * step);
    const a = cutOnly.fit(now);
    const b = withS.fit(now);
    if (!b.summary) {
      assert.deepEqual(b.decisions.map((d) => d.included), a.decisions.map((d) => d.included), `step ${step}: the same plan before the first summary`);
      continue;
    }
    checked = true;
    const { from, to } = b.summary.replaces;
    for (const d of a.decisions) if (d.included && (d.index < from || d.index >= to)) assert.ok(b.decisions[d.index].included, `step ${step}: messages[${d.index}] displaced`);
    assert.ok(b.metrics.prompt_tokens > a.metrics.prompt_tokens, `step ${step}: the summary's room grows the prompt (${b.metrics.prompt_tokens} against ${a.metrics.prompt_tokens})`);
  }
  assert.ok(checked, 'a summary was sent');
});

test('a message of the span a summary stands for stays a candidate: a later cut keeps it in full when the query asks for it', () => {
  // Replacing the span outright took it out of every later cut: evidence summarised away could
  // never come back, and recall fell below cutting only (eval/SUMMARIES.md).
  const history = readFileAgent(64);
  const { summarize } = recording();
  const session = createSession({ format: 'openai', budgets: { tokens_max: 22_000 }, cache: 'openai', summarize });
  let step = 0;
  let r;
  for (; step <= 64; step++) {
    r = session.fit(history.slice(0, 2 + 2 * step));
    if (r.summary) break;
  }
  assert.ok(r.summary, 'a summary is sent');
  const { from, to } = r.summary.replaces;
  const wanted = from + 6; // the read_file unit of src/f<k>.ts inside the span
  assert.ok(wanted + 1 < to && history[wanted].tool_calls);
  const path = JSON.parse(history[wanted].tool_calls[0].function.arguments).path;
  const now = [...history.slice(0, 2 + 2 * step), { role: 'assistant', content: 'Read.' }, { role: 'user', content: `Which TTL does ${path} set? Quote its header line.` }];
  const q = session.fit(now, { budgets: { tokens_max: 15_000 } }); // a smaller budget: a cut
  assert.ok(q.cache.cut && q.summary?.id === r.summary.id, 'the same summary, at a cut');
  assert.ok(q.decisions[wanted].included && q.decisions[wanted + 1].included, `${path} kept in full`);
  assert.ok(q.messages.indexOf(history[wanted + 1]) > q.summary.index, 'after the summary, in the history\'s order');
  assert.ok(q.decisions.slice(from, to).some((d) => d.reason === 'summarized'), 'the rest of the span is the summary\'s');
});

test('stubs and summaries together: per unit full, stubbed or the summary\'s, every request valid, no message both stubbed and summarised', () => {
  const history = readFileAgent(64);
  const { summarize } = recording();
  // At 22,000 tokens every result fits as its stub (no summary is needed); at 12,000 some do not.
  const session = createSession({ format: 'openai', budgets: { tokens_max: 12_000 }, cache: 'openai', stubToolResults: true, summarize, summary: CHEAP });
  let stubbed = 0;
  let summarized = 0;
  let withSummary = 0;
  for (let step = 0; step <= 64; step++) {
    const r = session.fit(history.slice(0, 2 + 2 * step));
    checkAgentRequest('openai', r, step, (m) => m === history[1]);
    for (const d of r.decisions) {
      if (d.stubbed === true) {
        stubbed++;
        assert.ok(d.included && d.reason !== 'summarized', `step ${step}: messages[${d.index}] stubbed and summarised`);
      }
      if (d.reason === 'summarized') {
        summarized++;
        assert.ok(!d.included && r.summary && d.index >= r.summary.replaces.from && d.index < r.summary.replaces.to);
      }
    }
    if (r.summary) withSummary++;
  }
  assert.ok(stubbed > 0, 'some tool results went as their stub');
  assert.ok(withSummary > 0 && summarized > 0, 'a summary stood for what the cuts left out');
});

// A new-user trial found the summary put inside a tool loop whose first step opens with thinking:
// a user message after that step ends the turn, and the step after it opens with tool_use, which
// Anthropic refuses with thinking on ("Expected `thinking` or `redacted_thinking`").
test('a turn in flight that opens with thinking: no summary stands for its steps until a new user message ends it, and every request keeps the turn opening with its thinking', async () => {
  const { keptCheck } = await import('./sdk-check.mjs');
  const { extractiveSummarizer } = await import('ctxpack');
  const words = 'login session token cookie expiry deploy auth redis cache nginx config timeout retry header cors jwt'.split(' ');
  const log = (step) => Array.from({ length: 60 }, (_, i) => `Line ${i}: src/${words[(step * 7 + i) % words.length]}/${words[(step + i * 3) % words.length]}.ts error ${step * 100 + i}: ${words[(i + step * 2) % words.length]} failed.`).join('\n');
  for (const format of ['anthropic', 'ai-sdk']) {
    const session = createSession({ format, system: 'You are a coding agent.', budgets: { tokens_max: 9000 }, cache: format === 'anthropic' ? 'anthropic' : 'none', summarize: extractiveSummarizer(), summary: CHEAP });
    const history = [{ role: 'user', content: format === 'anthropic' ? 'Why does login fail after the deploy?' : [{ type: 'text', text: 'Why does login fail after the deploy?' }] }];
    const step = (k, thinking) => {
      if (format === 'anthropic') {
        history.push({ role: 'assistant', content: [...(thinking ? [{ type: 'thinking', thinking: 'Plan: read the files.', signature: 'EqQBCkYIBxgC' }] : []), { type: 'text', text: `Step ${k}.` }, { type: 'tool_use', id: `toolu_${k}`, name: 'read', input: { k } }] });
        history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${k}`, content: log(k) }] });
      } else {
        history.push({ role: 'assistant', content: [...(thinking ? [{ type: 'reasoning', text: 'Plan: read the files.' }] : []), { type: 'text', text: `Step ${k}.` }, { type: 'tool-call', toolCallId: `c${k}`, toolName: 'read', input: { k } }] });
        history.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${k}`, toolName: 'read', output: { type: 'text', value: log(k) } }] });
      }
    };
    let summaries = 0;
    for (let k = 0; k < 40; k++) {
      const r = session.fit(history);
      keptCheck(format, history, r.messages);
      if (r.summary !== null) summaries++;
      step(k, k === 0);
    }
    assert.equal(summaries, 0, `${format}: no summary inside the thinking turn`);
    // A new user message ends the turn: the summary goes in at a cut, and the next turn opens with thinking again.
    history.push({ role: 'user', content: format === 'anthropic' ? 'And the cookie expiry?' : [{ type: 'text', text: 'And the cookie expiry?' }] });
    for (let k = 40; k < 60; k++) {
      const r = session.fit(history);
      keptCheck(format, history, r.messages);
      if (r.summary !== null) summaries++;
      step(k, k === 40);
    }
    assert.ok(summaries > 0, `${format}: the summary is used after the turn`);
  }
});
