// The caller's own relevance (issue 31): per-message `scores`, and an async `embed` whose vectors
// are cached by content (a session's own cache, or createEmbeddingCache across stateless calls),
// fused with BM25 in the core (src/relevance/fusion.rs). The embedder here is a deterministic
// hashed bag of words: no model runs in the tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createCountCache, createEmbeddingCache, createSession, fitMessages, fitMessagesAsync } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';
import { bagOfWords as bagOfWordsIn } from './bag-of-words.mjs';

const DIM = 32;

/** A hashed bag of lowercased words (./bag-of-words.mjs), in DIM dimensions. Not a model. */
const bagOfWords = (text) => bagOfWordsIn(text, DIM);

/** An embedder that records every batch it is asked for. */
function spy(vector = bagOfWords) {
  const batches = [];
  const embed = async (texts) => {
    batches.push([...texts]);
    return texts.map(vector);
  };
  return { embed, batches, texts: () => batches.flat() };
}

const CHAT = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Our deploy target is the eu-west cluster.' },
  { role: 'assistant', content: 'Noted: eu-west.' },
  { role: 'user', content: 'The database password rotates every Monday.' },
  { role: 'assistant', content: 'Understood, weekly rotation.' },
  { role: 'user', content: 'Lunch is at noon on Fridays.' },
  { role: 'assistant', content: 'Good to know.' },
  { role: 'user', content: 'Which cluster do we deploy to?' },
];
const OPTS = { format: 'openai', budgets: { tokens_max: 60 } };
const plain = (r) => ({ messages: r.messages, decisions: r.decisions });
const kept = (r) => r.decisions.filter((d) => d.included && d.reason !== 'pinned').map((d) => d.index);

test('scores: one finite number ≥ 0 per message; errors name scores[i], never the value', () => {
  const bad = [
    [{ scores: 'high' }, 'scores', undefined],
    [{ scores: [1, 2] }, 'scores', undefined],
    [{ scores: [0, 1, 2, 3, NaN, 5, 6, 7] }, 'scores', 4],
    [{ scores: [0, 1, 2, -1, 4, 5, 6, 7] }, 'scores', 3],
    [{ scores: [0, 1, 2, 3, 4, 5, 'secret-token-value', 7] }, 'scores', 6],
    [{ scores: [0, 1, 2, 3, 4, 5, 6, Infinity] }, 'scores', 7],
  ];
  for (const [extra, field, index] of bad) {
    assert.throws(
      () => fitMessages(CHAT, { ...OPTS, ...extra }),
      (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.field === field && e.index === index && !e.message.includes('secret'),
      JSON.stringify(extra),
    );
  }
  // A typed array is taken as an array.
  assert.doesNotThrow(() => fitMessages(CHAT, { ...OPTS, scores: new Float64Array(CHAT.length) }));
  assert.throws(() => fitMessages(CHAT, { ...OPTS, scores: new Array(CHAT.length).fill(1), embed: async () => [] }), (e) => e.code === 'INVALID_OPTION' && e.field === 'scores');
  for (const relevance of [{ caller: 1.5 }, { caller: -0.1 }, { caller: '1' }, { fusion: 'max' }]) {
    assert.throws(() => fitMessages(CHAT, { ...OPTS, relevance }), (e) => e.code === 'INVALID_OPTION' && e.field.startsWith('relevance.'), JSON.stringify(relevance));
  }
});

test('scores move the plan their way: fused with BM25 by default, alone with caller 1', () => {
  const base = fitMessages(CHAT, OPTS);
  // BM25 keeps the deploy-target message: it shares words with the question.
  assert.ok(kept(base).includes(1), `kept ${kept(base)}`);
  const scores = [0, 0, 0, 0, 0, 9, 0, 0]; // the caller says the lunch message matters
  const fused = fitMessages(CHAT, { ...OPTS, scores });
  assert.ok(fused.decisions[5].score > base.decisions[5].score);
  assert.ok(fused.decisions[1].score <= base.decisions[1].score);
  assert.ok(fused.decisions[5].score - fused.decisions[1].score > base.decisions[5].score - base.decisions[1].score);
  const alone = fitMessages(CHAT, { ...OPTS, scores, relevance: { caller: 1 } });
  assert.ok(kept(alone).includes(5), `kept ${kept(alone)}`);
  assert.ok(alone.decisions[5].score > alone.decisions[1].score);
  // caller 0: BM25 alone, the plan without scores.
  assert.deepEqual(plain(fitMessages(CHAT, { ...OPTS, scores, relevance: { caller: 0 } })), plain(base));
  // RRF by rank: the caller's first is near the top too.
  const rrf = fitMessages(CHAT, { ...OPTS, scores, relevance: { fusion: 'rrf' } });
  assert.ok(rrf.decisions[5].score > base.decisions[5].score);
  // Scale-free: scores ×1000 give the same plan.
  assert.deepEqual(plain(fitMessages(CHAT, { ...OPTS, scores: scores.map((s) => s * 1000) })), plain(fused));
  // Pinned messages' scores are ignored.
  assert.deepEqual(plain(fitMessages(CHAT, { ...OPTS, scores: scores.map((s, i) => (i === 0 || i === 7 ? 50 : s)) })), plain(fused));
});

test('embed: the same vectors give the same plan, cached or not; the query is embedded among the texts', async () => {
  const a = spy();
  const r1 = await fitMessagesAsync(CHAT, { ...OPTS, embed: a.embed });
  const r2 = await fitMessagesAsync(CHAT, { ...OPTS, embed: spy().embed, embedCache: createEmbeddingCache() });
  assert.deepEqual(plain(r1), plain(r2));
  assert.deepEqual(r1.warnings, []);
  // One call, each distinct text once, never an empty one, the query's text among them; pinned messages (the system prompt) are not embedded.
  assert.equal(a.batches.length, 1);
  const texts = a.texts();
  assert.equal(new Set(texts).size, texts.length);
  assert.ok(texts.includes('Which cluster do we deploy to?'));
  assert.ok(!texts.includes('You are a helpful assistant.'));
  assert.ok(texts.every((t) => t.length > 0));
  // A custom query is embedded instead of the latest user message's text.
  const b = spy();
  await fitMessagesAsync(CHAT, { ...OPTS, embed: b.embed, query: 'lunch time' });
  assert.ok(b.texts().includes('lunch time'));
  // Typed arrays are taken as vectors; the plan is the same.
  const typed = await fitMessagesAsync(CHAT, { ...OPTS, embed: async (t) => t.map((x) => Float32Array.from(bagOfWords(x))) });
  assert.deepEqual(plain(typed), plain(r1));
  // The vectors moved the values: the plan differs from BM25 alone in its scores.
  const bm25 = await fitMessagesAsync(CHAT, OPTS);
  assert.notDeepEqual(r1.decisions.map((d) => d.score), bm25.decisions.map((d) => d.score));
});

test('embed: vectors that name the query rank its message first when the caller alone decides', async () => {
  // An embedder that knows lunch and the deploy question are the same topic (BM25 cannot).
  const topic = (t) => (/lunch|cluster/i.test(t) ? [1, 0] : [0, 1]);
  const r = await fitMessagesAsync(CHAT, { ...OPTS, embed: async (texts) => texts.map(topic), relevance: { caller: 1, neighbour: 0, recency: 0 } });
  assert.equal(r.decisions[5].score, 1);
  assert.equal(r.decisions[3].score, 0);
});

test('a session embeds each text once across turns', async () => {
  const { messages } = agentSession(5, 'openai', 10);
  const s = spy();
  const session = createSession({ format: 'openai', budgets: { tokens_max: 2_500 }, embed: s.embed });
  // Each turn's history ends with a user message (a request with its task).
  const upTo = (n) => messages.slice(0, messages.findIndex((m, i) => i >= n && m.role === 'user') + 1);
  const cuts = [20, 35, 50].map((n) => upTo(n).length).concat(messages.length);
  const seen = new Set();
  for (const n of cuts) {
    const history = messages.slice(0, n);
    const before = s.texts().length;
    const r = await session.fitAsync(history);
    assert.deepEqual(r.warnings.filter((w) => w.startsWith('embed_failed')), []);
    const now = s.texts().slice(before);
    for (const t of now) {
      assert.ok(!seen.has(t), 'a text was embedded twice');
      seen.add(t);
    }
    assert.ok(s.batches.length <= cuts.indexOf(n) + 1, 'at most one embed call per turn');
  }
  // The session plans as fitMessagesAsync with the same embedder plans (no prompt cache: cache 'none').
  const last = await createSession({ format: 'openai', budgets: { tokens_max: 2_500 }, embed: spy().embed }).fitAsync(messages);
  const stateless = await fitMessagesAsync(messages, { format: 'openai', budgets: { tokens_max: 2_500 }, embed: spy().embed });
  assert.deepEqual(last.decisions, stateless.decisions);
  // fit (synchronous) refuses embed, pointing at fitAsync.
  assert.throws(() => session.fit(messages), (e) => e.code === 'INVALID_OPTION' && e.field === 'embed' && e.message.includes('fitAsync'));
});

test('createEmbeddingCache: stateless calls share vectors; a grown history embeds only its new texts', async () => {
  const { messages } = agentSession(6, 'openai', 8);
  const embedCache = createEmbeddingCache({ maxEntries: 5_000 });
  const s = spy();
  const half = messages.slice(0, Math.floor(messages.length / 2));
  await fitMessagesAsync(half, { ...OPTS, budgets: { tokens_max: 2_000 }, embed: s.embed, embedCache });
  const first = s.texts().length;
  assert.equal(embedCache.misses, first);
  assert.equal(embedCache.size, first);
  const r = await fitMessagesAsync(messages, { ...OPTS, budgets: { tokens_max: 2_000 }, embed: s.embed, embedCache });
  const again = s.texts().slice(first);
  const firstSet = new Set(s.texts().slice(0, first));
  assert.ok(again.every((t) => !firstSet.has(t)), 'a text embedded by the first call was embedded again');
  assert.ok(embedCache.hits > 0);
  const fresh = await fitMessagesAsync(messages, { ...OPTS, budgets: { tokens_max: 2_000 }, embed: spy().embed });
  assert.deepEqual(plain(r), plain(fresh));
  // The same call again embeds nothing.
  const calls = s.batches.length;
  await fitMessagesAsync(messages, { ...OPTS, budgets: { tokens_max: 2_000 }, embed: s.embed, embedCache });
  assert.equal(s.batches.length, calls);
  // Bounded: a small cache still gives the same plan.
  const small = createEmbeddingCache({ maxEntries: 3 });
  const r3 = await fitMessagesAsync(messages, { ...OPTS, budgets: { tokens_max: 2_000 }, embed: s.embed, embedCache: small });
  assert.deepEqual(plain(r3), plain(fresh));
  assert.ok(small.size <= Math.max(3, messages.length + 1));
  embedCache.clear();
  assert.equal(embedCache.size, 0);
  // Caches are not interchangeable; bad options are refused.
  await assert.rejects(fitMessagesAsync(CHAT, { ...OPTS, embed: s.embed, embedCache: createCountCache() }), (e) => e.code === 'INVALID_OPTION' && e.field === 'embedCache');
  assert.throws(() => fitMessages(CHAT, { ...OPTS, countCache: createEmbeddingCache() }), (e) => e.code === 'INVALID_OPTION' && e.field === 'countCache');
  await assert.rejects(fitMessagesAsync(CHAT, { ...OPTS, embedCache: createEmbeddingCache() }), (e) => e.code === 'INVALID_OPTION' && e.field === 'embedCache');
  assert.throws(() => createEmbeddingCache({ maxEntries: 0 }), (e) => e.code === 'INVALID_OPTION');
  assert.throws(() => createEmbeddingCache({ size: 3 }), (e) => e.code === 'INVALID_OPTION');
});

test('what embed returns is checked: INVALID_EMBEDDING naming the index, never a text', async () => {
  const cases = [
    [async () => 'vectors', undefined],
    [async (t) => t.slice(1).map(bagOfWords), undefined],
    [async (t) => t.map((x, i) => (i === 2 ? bagOfWords(x).slice(1) : bagOfWords(x))), 2],
    [async (t) => t.map((x, i) => (i === 1 ? bagOfWords(x).map(() => NaN) : bagOfWords(x))), 1],
    [async (t) => t.map((x, i) => (i === 3 ? 'Which cluster' : bagOfWords(x))), 3],
    [async (t) => t.map(() => []), 0],
    [async (t) => t.map((x, i) => (i === 1 ? bagOfWords(x).map(() => 1e300) : bagOfWords(x))), 1],
  ];
  for (const [embed, index] of cases) {
    await assert.rejects(
      fitMessagesAsync(CHAT, { ...OPTS, embed }),
      (e) => e instanceof CtxpackError && e.code === 'INVALID_EMBEDDING' && e.field === 'embed' && e.index === index && !/cluster|deploy/i.test(e.message),
      String(embed),
    );
  }
  // A vector of another length than the cached ones (the embedder changed its model).
  const embedCache = createEmbeddingCache();
  let dim = DIM;
  const embed = async (texts) => texts.map((t) => bagOfWords(t).slice(0, dim));
  await fitMessagesAsync(CHAT.slice(0, 6), { ...OPTS, embed, embedCache });
  dim = 8;
  await assert.rejects(fitMessagesAsync(CHAT, { ...OPTS, embed, embedCache }), (e) => e.code === 'INVALID_EMBEDDING' && e.index === 0);
});

test('an embedder that throws or rejects: a warning, BM25 alone, the turn not lost', async () => {
  const bm25 = await fitMessagesAsync(CHAT, OPTS);
  for (const embed of [
    async () => {
      throw new Error('503 from the embeddings API: secret-key-123');
    },
    () => Promise.reject('down'),
    () => {
      throw new TypeError('sync throw');
    },
  ]) {
    const r = await fitMessagesAsync(CHAT, { ...OPTS, embed });
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /^embed_failed: /);
    assert.ok(!r.warnings[0].includes('secret'), 'the error text is not repeated');
    assert.deepEqual(r.decisions, bm25.decisions);
  }
  // A session: the failed turn is planned by BM25, the next embeds what it could not.
  let fail = true;
  const s = spy();
  const session = createSession({
    ...OPTS,
    embed: async (texts) => {
      if (fail) throw new Error('down');
      return s.embed(texts);
    },
  });
  const t1 = await session.fitAsync(CHAT.slice(0, 6));
  assert.match(t1.warnings.join(' '), /embed_failed/);
  fail = false;
  const t2 = await session.fitAsync(CHAT);
  assert.deepEqual(t2.warnings, []);
  assert.ok(s.texts().includes('Lunch is at noon on Fridays.'));
});

test('sync fitMessages refuses embed, pointing at fitMessagesAsync; sessions take scores per turn', async () => {
  assert.throws(
    () => fitMessages(CHAT, { ...OPTS, embed: async () => [] }),
    (e) => e.code === 'INVALID_OPTION' && e.field === 'embed' && e.message.includes('fitMessagesAsync'),
  );
  assert.throws(() => createSession({ ...OPTS, scores: [1] }).fit(CHAT), (e) => e.code === 'INVALID_OPTION' && e.field === 'scores');
  assert.throws(() => createSession({ ...OPTS, embedCache: createEmbeddingCache() }).fit(CHAT), (e) => e.code === 'INVALID_OPTION' && e.field === 'embedCache');
  const scores = [0, 0, 0, 0, 0, 9, 0, 0];
  const session = createSession(OPTS);
  const r = session.fit(CHAT, { scores });
  assert.deepEqual(r.decisions, fitMessages(CHAT, { ...OPTS, scores }).decisions);
  assert.throws(() => session.fit(CHAT, { scores: [1, 2] }), (e) => e.code === 'INVALID_OPTION' && e.field === 'scores');
});
