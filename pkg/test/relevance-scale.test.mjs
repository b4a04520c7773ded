// BM25 relevance at scale (issue 28): a session reads BM25 through its memo (an index of the texts
// it has seen, each read once by the core's bm25DocTerms; stats built per query and weighed by
// bm25FromStats), fitMessages through bm25Scores; both give the same values, to the bit, turn
// after turn, whatever the query, and after edits and truncations. A query
// of tens of thousands of distinct words over thousands of messages costs what its text does.
// No assertion on time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, fitMessages } from 'ctxpack';
import { rng } from './rng.mjs';
import { importRelevance } from './internal.mjs';

// A session scores a history of at most 32,768 characters through bm25Scores directly, a longer one
// through its index; the tests below run through both: the package as built, and src/ with the
// index for every history (setDirectChars(0)).
const viaIndex = await importRelevance();
viaIndex.setDirectChars(0);
const PATHS = [
  ['', { createSession, fitMessages }],
  [' (the index for short histories too)', viaIndex],
];

const WORDS = 'dog Dogs city cities café CAFÉ rust wasm the a is status token tokens query queries deploy ΟΔΟΣ 42 x-ray'.split(' ');

/** `n` words from `WORDS` (some messages empty). */
function text(r, n) {
  const out = [];
  for (let k = 0; k < n; k++) out.push(r.pick(WORDS));
  return out.join(r.pick([' ', ', ', '; ']));
}

/** Relevance values as `fitMessages` reports them, to the bit (`-0` apart from `0`). */
const valuesOf = (result) => result.decisions.map((d) => d.score);

for (const [path, { createSession, fitMessages }] of PATHS) test(`session.fit gives fitMessages\u2019 relevance values bit for bit, turn after turn, as the query changes and stays${path}`, () => {
  for (let seed = 1; seed <= 12; seed++) {
    const r = rng(seed);
    const options = { format: 'openai', budgets: { tokens_max: r.int(60, 400) } };
    const session = createSession(options);
    const none = createSession({ ...options, cache: 'none' });
    const history = [];
    for (let turn = 0; turn < 25; turn++) {
      // Mostly assistant replies (the query stays), sometimes a new question; some texts repeat,
      // some are empty.
      const role = history.length === 0 || r.chance(0.3) ? 'user' : 'assistant';
      const content = r.chance(0.1) ? '' : r.chance(0.15) && history.length > 0 ? r.pick(history).content : text(r, r.int(0, 12));
      history.push({ role, content });
      if (role !== 'user') continue;
      // The turn's query: the latest user message, or sometimes options.query (empty included).
      const turnOptions = r.chance(0.2) ? { query: r.chance(0.3) ? '' : text(r, r.int(1, 4)) } : undefined;
      const direct = fitMessages(history, { ...options, ...turnOptions });
      for (const s of [session, none]) {
        const viaMemo = s.fit(history, turnOptions);
        assert.deepEqual(valuesOf(viaMemo), valuesOf(direct), `seed ${seed}, turn ${turn}`);
      }
    }
  }
});

for (const [path, { createSession, fitMessages }] of PATHS) test(`edits, truncations and histories replaced wholesale: the memo\u2019s values stay fitMessages\u2019 bit for bit (what is gone is dropped)${path}`, () => {
  for (let seed = 1; seed <= 4; seed++) {
    const r = rng(100 + seed);
    const options = { format: 'openai', budgets: { tokens_max: r.int(80, 400) } };
    const session = createSession({ ...options, cache: 'none' });
    let history = [];
    // About 15 histories of 100 fresh messages (1,500 texts, most soon gone) force the memo to drop the
    // texts no longer in the history several times.
    for (let turn = 0; turn < 60; turn++) {
      const change = r.int(0, 3);
      if (change === 0 || history.length === 0) {
        history = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `${text(r, r.int(0, 10))} t${turn}m${i}` }));
        history.push({ role: 'user', content: text(r, 3) });
      } else if (change === 1) {
        // Edit an old message.
        const i = r.int(0, history.length - 1);
        history = history.map((m, k) => (k === i ? { ...m, content: `${m.content} ${text(r, 2)}` } : m));
      } else if (change === 2) {
        // Truncate from the front, keeping a user message first.
        let from = r.int(1, Math.max(1, history.length - 2));
        while (from < history.length - 1 && history[from].role !== 'user') from++;
        history = history.slice(from);
      } else {
        history = [...history, { role: 'assistant', content: text(r, 5) }, { role: 'user', content: text(r, r.int(1, 5)) }];
      }
      const direct = fitMessages(history, options);
      assert.deepEqual(valuesOf(session.fit(history)), valuesOf(direct), `seed ${seed}, turn ${turn}`);
    }
  }
});

test('a history that grows past 32,768 characters and is cut back below it: session.fit keeps fitMessages\u2019 values bit for bit on both sides', () => {
  const r = rng(77);
  const options = { format: 'openai', budgets: { tokens_max: 600 } };
  const session = createSession(options);
  let history = [{ role: 'user', content: text(r, 8) }];
  let crossed = 0;
  for (let turn = 0; turn < 90; turn++) {
    const chars = history.reduce((n, m) => n + m.content.length, 0);
    if (turn === 60) {
      // Back under the threshold: the newest messages only, a user message first.
      let from = history.length - 12;
      while (history[from].role !== 'user') from++;
      history = history.slice(from);
    } else {
      history = [...history, { role: 'assistant', content: text(r, r.int(40, 160)) }, { role: 'user', content: text(r, r.int(1, 5)) }];
    }
    const now = history.reduce((n, m) => n + m.content.length, 0);
    if ((chars <= 32_768) !== (now <= 32_768)) crossed++;
    assert.deepEqual(valuesOf(session.fit(history)), valuesOf(fitMessages(history, options)), `turn ${turn}`);
  }
  assert.equal(crossed, 2, 'the history crossed the threshold up, then down');
});

test('a query of 30,000 distinct words over 3,000 messages: fitMessages and session.fit complete with the same values and keep the message that holds its rare words', () => {
  const r = rng(28);
  const word = (i) => `w${i.toString(36)}q`;
  const messages = [];
  for (let i = 0; i < 2_999; i++) {
    const words = [];
    for (let k = r.int(5, 30); k > 0; k--) words.push(word(r.int(0, 40_000)));
    messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: words.join(' ') });
  }
  // Forty words no other message holds, in message 1001 and in the query.
  const rare = Array.from({ length: 40 }, (_, k) => `needle${k}z`);
  messages[1001] = { role: 'assistant', content: rare.join(' ') };
  const query = [...rare, ...Array.from({ length: 29_960 }, (_, i) => word(i))].join(' ');
  messages.push({ role: 'user', content: query });
  const options = { format: 'openai', budgets: { tokens_max: 200_000 } };
  const direct = fitMessages(messages, options);
  const viaMemo = createSession(options).fit(messages);
  assert.deepEqual(valuesOf(viaMemo), valuesOf(direct));
  assert.equal(direct.decisions[1001].included, true);
  assert.equal(viaMemo.decisions[1001].included, true);
  // Message 1001 scores highest among the competing ones: every value but the pinned query's below it.
  const top = direct.decisions[1001].score;
  assert.ok(direct.decisions.slice(0, -1).every((d, i) => i === 1001 || d.score < top));
});

test('an empty query, a query that matches nothing and empty messages: relevance is the same recency-only values, from both paths', () => {
  const history = [
    { role: 'user', content: 'deploy the rust service' },
    { role: 'assistant', content: '' },
    { role: 'user', content: 'cities and dogs' },
    { role: 'assistant', content: 'token rotation' },
    { role: 'user', content: '' },
  ];
  const options = { format: 'openai', budgets: { tokens_max: 1_000 } };
  const results = [];
  for (const query of ['', '  ?! — ', 'zebra quagga', undefined]) {
    const turn = query === undefined ? undefined : { query };
    const direct = fitMessages(history, { ...options, ...turn });
    assert.deepEqual(valuesOf(createSession(options).fit(history, turn)), valuesOf(direct), `query ${JSON.stringify(query)}`);
    results.push(valuesOf(direct));
  }
  // The latest user message is empty: the default query matches nothing either.
  for (const values of results.slice(1)) assert.deepEqual(values, results[0]);
  // Recency only: each message is worth more than the one before.
  const competing = results[0].slice(0, -1);
  for (let i = 1; i < competing.length; i++) assert.ok(competing[i] > competing[i - 1]);
});
