// A session keeps what it read of each message across turns (issue 30: a turn costs what is new).
// Property: over random sequences of appends, edits (a new object, or the same object changed in
// place, a field or a nested block), truncations and whole replacements (a history rebuilt from
// JSON: equal copies, compared by content, one of them edited now and then), each turn of one
// long-lived session plans exactly as a session that starts from scratch with the same remembered
// request (its exported state): same decisions, messages, cache report, warnings and metrics (the
// count cache's hits and misses aside), or the same error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, estimateTokens } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';
import { rng } from './rng.mjs';

/** A result without what depends on the session's caches or the clock. */
function comparable(r) {
  const { planner_ms: _ms, count_cache_hits: _h, count_cache_misses: _m, ...metrics } = r.metrics;
  return { messages: r.messages, decisions: r.decisions, cache: r.cache, warnings: r.warnings, metrics };
}

function outcome(session, history, turn) {
  try {
    return { ok: comparable(session.fit(history, turn)) };
  } catch (err) {
    return { error: err.code, message: err.message };
  }
}

async function outcomeAsync(session, history) {
  try {
    return { ok: comparable(await session.fitAsync(history)) };
  } catch (err) {
    return { error: err.code, message: err.message };
  }
}

/** A changed text: some words appended, or the text cut short. */
const changed = (r, text) => (r.chance(0.5) ? `${text} ${r.pick(['edited', 'and then some more', 'x'])}` : text.slice(0, Math.max(1, text.length >> 1)));

/** Edits message `i` of `h`: a new object (`inPlace` false) or the same one changed, its content or a text block's text. */
function edit(r, h, i, inPlace) {
  const m = h[i];
  if (typeof m.content === 'string') {
    if (inPlace) m.content = changed(r, m.content);
    else h[i] = { ...m, content: changed(r, m.content) };
    return true;
  }
  if (!Array.isArray(m.content)) return false;
  const k = m.content.findIndex((b) => b.type === 'text' && typeof b.text === 'string');
  if (k < 0) {
    // A tool result's text, one level deeper (Anthropic), in place or as new objects.
    const t = m.content.findIndex((b) => b.type === 'tool_result' && typeof b.content === 'string');
    if (t < 0) return false;
    if (inPlace) m.content[t].content = changed(r, m.content[t].content);
    else h[i] = { ...m, content: m.content.map((b, j) => (j === t ? { ...b, content: changed(r, b.content) } : b)) };
    return true;
  }
  if (inPlace) {
    if (r.chance(0.5)) m.content[k].text = changed(r, m.content[k].text);
    else m.content.push({ type: 'text', text: 'one more block' });
  } else h[i] = { ...m, content: m.content.map((b, j) => (j === k ? { ...b, text: changed(r, b.text) } : b)) };
  return true;
}

/** `perTurn(r)`: the options of each turn (both sessions get the same), drawn after the history's change. */
async function run(seed, format, extra, async = false, perTurn = undefined) {
  const r = rng(seed);
  const { messages: all, system } = agentSession(seed, format, 14);
  const options = { format, ...(system === undefined ? {} : { system }), budgets: { tokens_max: r.pick([2500, 4000, 8000]) }, cache: format, ...extra };
  const session = createSession(options);
  // The history as the application holds it: its own objects, appended to, edited, cut.
  let h = structuredClone(all.slice(0, 2));
  let next = 2;
  const ops = [];
  for (let turn = 0; turn < 40; turn++) {
    const op = r.next();
    if (op < 0.55 || h.length < 4) {
      const k = r.int(1, 6);
      h.push(...structuredClone(all.slice(next, next + k)));
      next = Math.min(all.length, next + k);
      ops.push(`append ${k}`);
    } else if (op < 0.75) {
      const i = r.int(0, h.length - 1);
      const inPlace = r.chance(0.5);
      if (edit(r, h, i, inPlace)) ops.push(`edit ${i}${inPlace ? ' in place' : ''}`);
    } else if (op < 0.87) {
      const k = r.int(1, Math.max(1, h.length - 2));
      h = h.slice(0, k);
      next = Math.min(next, k + r.int(0, 3)); // the application may then take another path
      ops.push(`truncate to ${k}`);
    } else {
      // A history rebuilt from storage: equal copies, read by content; now and then one edited in the copy.
      h = JSON.parse(JSON.stringify(h));
      const i = r.int(0, h.length - 1);
      if (r.chance(0.5) && edit(r, h, i, true)) ops.push(`replace, ${i} edited in the copy`);
      else ops.push('replace');
    }
    // The reference: a new session that remembers the same previous request, and nothing else.
    const fresh = createSession({ ...options, state: session.exportState() });
    const turnOptions = perTurn?.(r);
    if (turnOptions !== undefined) ops.push(JSON.stringify(turnOptions));
    const a = async ? await outcomeAsync(session, h.slice()) : outcome(session, h.slice(), turnOptions);
    const b = async ? await outcomeAsync(fresh, h.slice()) : outcome(fresh, h.slice(), turnOptions);
    assert.deepEqual(a, b, `seed ${seed} ${format} turn ${turn} after ${ops.join(', ')}`);
  }
}

for (const format of ['openai', 'anthropic']) {
  test(`${format}: a long-lived session plans each turn as one from scratch, over random appends, edits, truncations and replacements`, async () => {
    for (let seed = 1; seed <= 12; seed++) await run(seed, format, {});
  });
}

test('with stubs, truncation and a counter of its own, the same', async () => {
  const counter = (text) => estimateTokens(text) + 1;
  for (let seed = 20; seed <= 26; seed++) {
    await run(seed, 'openai', { stubToolResults: true, truncateToolResults: { maxTokens: 300 }, countTokens: counter, counterId: 'plus-one' });
    await run(seed, 'anthropic', { stubToolResults: true, countTokens: counter, counterId: 'plus-one' });
  }
});

test('fitAsync with an async counter, the same', async () => {
  const counter = async (text) => estimateTokens(text) + 2;
  for (let seed = 30; seed <= 33; seed++) {
    await run(seed, 'openai', { countTokens: counter, counterId: 'plus-two' }, true);
    await run(seed, 'anthropic', { stubToolResults: true, countTokens: counter, counterId: 'plus-two' }, true);
  }
});

test('with a query of its own, whose words first appear in edited texts, the same', async () => {
  // BM25's memo copies the stats of the texts a turn shares with the last one when the query is
  // the same, and reads the others from their words: a word of the query that first appears in
  // such a text ('edited', 'more': what edits append) must count there.
  for (let seed = 40; seed <= 47; seed++) await run(seed, seed % 2 === 0 ? 'openai' : 'anthropic', { query: 'edited and then some more' });
});

test('with a budget that changes from turn to turn (what is truncated, pinned or stubbed changes in unchanged messages), the same', async () => {
  // The session reuses the keys of the messages a turn keeps unchanged, but where this turn or
  // the last one truncated the message, or its stub came or went: a new budget moves both.
  const perTurn = (r) => ({ budgets: { tokens_max: r.pick([1500, 2500, 4000, 8000]) } });
  for (let seed = 50; seed <= 55; seed++) {
    await run(seed, 'openai', { stubToolResults: true }, false, perTurn);
    await run(seed, 'anthropic', { stubToolResults: true, truncateToolResults: { maxTokens: 120 } }, false, perTurn);
  }
});

test('a long session whose texts keep changing: what BM25 forgets of the texts no longer there, the same', () => {
  // The memo forgets the texts of neither this turn nor the last once they outnumber the live
  // ones by 1,024: every turn here rewrites each message, so it forgets every few turns.
  const { messages: all } = agentSession(60, 'openai', 14);
  const options = { format: 'openai', budgets: { tokens_max: 3000 }, cache: 'openai' };
  const session = createSession(options);
  let h = structuredClone(all.slice(0, 40));
  for (let turn = 0; turn < 100; turn++) {
    h = h.map((m, i) => (typeof m.content === 'string' && i % 3 !== turn % 3 ? { ...m, content: `${m.content} t${turn}` } : m));
    if (turn % 5 === 0) h.push(...structuredClone(all.slice(h.length, h.length + 2)));
    const fresh = createSession({ ...options, state: session.exportState() });
    assert.deepEqual(outcome(session, h.slice()), outcome(fresh, h.slice()), `turn ${turn}`);
  }
});

test('fitAsync turns that overlap (each history read when called, planned in call order) plan as turns awaited one by one', async () => {
  // A turn's history is read when fitAsync is called and planned after the turns before it: the
  // reads and the plans interleave, and what a plan takes as unchanged must be of the read before.
  for (const format of ['openai', 'anthropic']) {
    const { messages: all, system } = agentSession(70, format, 20);
    const options = { format, ...(system === undefined ? {} : { system }), budgets: { tokens_max: 3000 }, cache: format };
    const overlapping = createSession(options);
    const awaited = createSession(options);
    const r = rng(70);
    let h = structuredClone(all.slice(0, 4));
    const histories = [];
    for (let k = 0; k < 24; k++) {
      h = [...h, ...structuredClone(all.slice(h.length, h.length + r.int(1, 4)))];
      if (r.chance(0.25)) {
        const j = r.int(0, h.length - 1);
        h = h.map((m, i) => (i === j && typeof m.content === 'string' ? { ...m, content: `${m.content} edited` } : m));
      }
      histories.push(h.slice());
    }
    for (let k = 0; k < histories.length; k += 3) {
      const batch = histories.slice(k, k + 3);
      const got = await Promise.all(batch.map((x) => outcomeAsync(overlapping, x)));
      for (let j = 0; j < batch.length; j++) assert.deepEqual(got[j], await outcomeAsync(awaited, batch[j]), `${format} turn ${k + j}`);
    }
  }
});
