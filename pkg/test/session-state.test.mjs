// A session's exported state: bounded when read back (a hostile state costs no more than the
// bounds), and with `stateKey` private: its keys cannot be computed without the secret, so a
// guessable text is not recovered from them; a state written under another key is ignored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createSession, estimateTokens, requestEnds } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';

const refused = (f, field, index) =>
  assert.throws(f, (err) => err instanceof CtxpackError && err.code === 'INVALID_OPTION' && err.field === field && err.index === index, field);

/** A state as exportState() writes it, with `patch` applied. */
function stateWith(patch) {
  const s = createSession({ format: 'openai', budgets: { tokens_max: 1000 } });
  s.fit([{ role: 'user', content: 'hello' }]);
  return { ...s.exportState(), ...patch };
}

/** A count pair whose key no text has (`i` distinct). */
const pair = (i) => [`${i.toString(16).padStart(16, '0')}:${i % 1000}`, i % 97];

test('state.growth: a million figures are refused before any is read; a longer list than used keeps the last 16', () => {
  refused(() => createSession({ format: 'openai', state: stateWith({ growth: new Array(1_000_000).fill(1) }) }), 'state.growth', undefined);
  refused(() => createSession({ format: 'openai', state: stateWith({ growth: new Array(1025).fill(1) }) }), 'state.growth', undefined);
  const growth = Array.from({ length: 100 }, (_, i) => i);
  const s = createSession({ format: 'openai', state: stateWith({ growth }) });
  assert.deepEqual(s.exportState().growth, growth.slice(-16));
});

test('state.counts: only the last maxCachedCounts pairs (the most recent) are read; over 2^20 is refused unread', () => {
  // A million pairs whose first is malformed: the first 950 000 are never looked at.
  const counts = Array.from({ length: 1_000_000 }, (_, i) => pair(i));
  counts[0] = ['not a key', -1];
  const t0 = performance.now();
  const s = createSession({ format: 'openai', state: stateWith({ counts }) });
  const ms = performance.now() - t0;
  assert.equal(s.countCache.size, 50_000);
  assert.deepEqual(s.exportState().counts, counts.slice(-50_000), 'the most recently used, in their order');
  assert.ok(ms < 1000, `imported in ${ms.toFixed(0)} ms`);
  // With a smaller cache, fewer; a malformed pair among those read is named by its index.
  const small = createSession({ format: 'openai', maxCachedCounts: 10, state: stateWith({ counts }) });
  assert.deepEqual(small.exportState().counts, counts.slice(-10));
  const bad = counts.slice(-10);
  bad[9] = ['x', 1];
  refused(() => createSession({ format: 'openai', maxCachedCounts: 10, state: stateWith({ counts: bad }) }), 'state.counts', 9);
  // Over 2^20 pairs: refused before any is read (holes, not pairs).
  refused(() => createSession({ format: 'openai', state: stateWith({ counts: new Array(2 ** 20 + 1) }) }), 'state.counts', undefined);
  // ...unless the session keeps that many itself.
  assert.doesNotThrow(() => createSession({ format: 'openai', maxCachedCounts: 2 ** 20 + 1, state: stateWith({ counts: counts.slice(-5) }) }));
});

test('state.previous: more entries than n, or breakpoints than entries, are refused before they are read', () => {
  const previous = { n: 2, system: '', entries: [[0, '0123456789abcdef:3', 10], [1, '0123456789abcdef:4', 20]], head: 1, breakpoints: [[1, 10]], systemTokens: 0, promptTokens: 20 };
  assert.doesNotThrow(() => createSession({ format: 'openai', state: stateWith({ previous }) }));
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, entries: new Array(3).fill(previous.entries[0]) } }) }), 'state.previous.entries', undefined);
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, n: 5_000_000, entries: new Array(5_000_000) } }) }), 'state.previous.entries', undefined);
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, breakpoints: [[1, 10], [2, 20], [2, 20]] } }) }), 'state.previous.breakpoints', undefined);
  // The question's hash: absent (a state written before it was kept) or a hash.
  assert.doesNotThrow(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, query: '0123456789abcdef:12' } }) }));
  refused(() => createSession({ format: 'openai', state: stateWith({ previous: { ...previous, query: 'Which port?' } }) }), 'state.previous.query', undefined);
});

/**
 * The text key without a stateKey, as tokens/cache.ts documents it (`textKey`): what anyone with
 * the package's source can compute.
 */
function publicKey(text) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hex = (x) => (x >>> 0).toString(16).padStart(8, '0');
  return `${hex(h1)}${hex(h2)}:${text.length}`;
}

/** A conversation in which the assistant sends a 6-digit code, and the state after it. */
function codeState(code, options = {}) {
  const s = createSession({ format: 'openai', budgets: { tokens_max: 2000 }, cache: 'openai', ...options });
  s.fit([
    { role: 'user', content: 'I forgot my login code' },
    { role: 'assistant', content: `Your code is ${code}.` },
    { role: 'user', content: 'thanks' },
  ]);
  return s.exportState();
}

/** The 10^4 codes 48xxxx: the attacker knows the sentence and the first two digits. */
const GUESSES = Array.from({ length: 10_000 }, (_, x) => `48${String(x).padStart(4, '0')}`);

/** The guessed codes whose sentence's key (by `keyOf`) is among the state's count keys. */
function recover(state, keyOf, guesses = GUESSES) {
  const keys = new Set(state.counts.map(([k]) => k));
  return guesses.filter((code) => keys.has(keyOf(`Your code is ${code}.`)));
}

test('without stateKey a 6-digit code is recovered from the state by hashing guesses; with stateKey it is not', () => {
  const code = '481937';
  // 10^4 guesses here; the whole 10^6 takes a second or so.
  assert.deepEqual(recover(codeState(code), publicKey), [code]);
  const secret = 'a secret of at least sixteen bytes, kept apart';
  const keyed = codeState(code, { stateKey: secret });
  assert.deepEqual(recover(keyed, publicKey), [], 'the public hash matches nothing');
  assert.deepEqual(recover(keyed, (t) => publicKey(t).split(':')[0]), [], 'nor its hash part');
  // Nor the keyed hash under a guessed secret (a session keyed with it hashes the guesses; a
  // hundred of them, the true code among them).
  const guessed = createSession({ format: 'openai', budgets: { tokens_max: 2000 }, stateKey: 'a guessed secret of sixteen bytes' });
  const keyUnderGuess = (t) => (guessed.fit([{ role: 'user', content: t }]), guessed.exportState().counts.at(-1)[0]);
  assert.deepEqual(recover(keyed, keyUnderGuess, [code, ...GUESSES.slice(0, 99)]), []);
  // With the secret, the same text has the same key: the session's own cache works.
  const same = createSession({ format: 'openai', budgets: { tokens_max: 2000 }, stateKey: secret });
  assert.deepEqual(recover(keyed, (t) => (same.fit([{ role: 'user', content: t }]), same.exportState().counts.at(-1)[0]), [code, '480000']), [code]);
  // Every key in the keyed state is 16 hex digits: no text length is written.
  const keys = [...keyed.counts.map(([k]) => k), keyed.previous.system];
  assert.ok(keyed.counts.length === 3 && keys.every((k) => k === '' || /^[0-9a-f]{16}$/.test(k)), JSON.stringify(keys));
  assert.match(keyed.keyCheck, /^[0-9a-f]{16}$/);
  assert.equal(codeState(code).keyCheck, undefined, 'without a key the state is as before');
});

test('the keyed text keys are SipHash-2-4 of the UTF-16 code units, pinned (the same in every runtime)', () => {
  // Values from src/state_key.rs (`derive_key`, `text_hash`, `key_check`), natively: see its test
  // `package_vectors`. Lone surrogates stay distinct from U+FFFD.
  const s = createSession({ format: 'openai', budgets: { tokens_max: 1000 }, stateKey: '0123456789abcdef' });
  const keyOf = (t) => (s.fit([{ role: 'user', content: t }]), s.exportState().counts.at(-1)[0]);
  assert.equal(keyOf('héllo'), PINNED.hello);
  assert.equal(keyOf('a\uD800'), PINNED.lone);
  assert.equal(keyOf('a\uFFFD'), PINNED.replacement);
  assert.equal(s.exportState().keyCheck, PINNED.check);
  const bytes = createSession({ format: 'openai', stateKey: new TextEncoder().encode('0123456789abcdef') });
  assert.equal(bytes.exportState().keyCheck, PINNED.check, 'a string is its UTF-8 bytes');
});

const PINNED = { hello: '1cdd7f41ff3a177e', lone: '1c74e6b29a13fc54', replacement: '5efd1c946e679cf5', check: 'cf98c6c31d7b297d' };

test('the same stateKey: the state continues the session as the original would, counts reused as without a key', () => {
  const { messages, system } = agentSession(12, 'anthropic', 16);
  const ends = requestEnds(messages, 'anthropic');
  const half = Math.floor(ends.length / 2);
  /** Continues a session from its state; returns the texts counted after the import. */
  const continued = (stateKey) => {
    const options = { format: 'anthropic', system, budgets: { tokens_max: 16_000 }, cache: 'anthropic', stateKey };
    const a = createSession(options);
    for (const end of ends.slice(0, half)) a.fit(messages.slice(0, end + 1));
    const json = JSON.stringify(a.exportState());
    let counted = 0;
    const b = createSession({ ...options, countTokens: (t) => (counted++, estimateTokens(t)), counterId: 'estimateTokens', state: JSON.parse(json) });
    assert.deepEqual(b.stateWarnings, []);
    for (const end of ends.slice(half)) {
      const now = messages.slice(0, end + 1);
      const ra = a.fit(now);
      const rb = b.fit(now);
      assert.deepEqual(rb.decisions, ra.decisions);
      assert.deepEqual(rb.cache, ra.cache);
    }
    return counted;
  };
  let fresh = 0;
  const f = createSession({ format: 'anthropic', system, budgets: { tokens_max: 16_000 }, cache: 'anthropic', countTokens: (t) => (fresh++, estimateTokens(t)) });
  for (const end of ends.slice(half)) f.fit(messages.slice(0, end + 1));
  const keyed = continued(crypto.getRandomValues(new Uint8Array(32)));
  assert.ok(keyed < fresh, `imported counts are reused (${keyed} counted, ${fresh} afresh)`);
  assert.equal(keyed, continued(undefined), 'as many as without a key');
});

test('another stateKey, or none where there was one, or one where there was none: the state is ignored with STATE_KEY_MISMATCH', () => {
  const { messages, system } = agentSession(5, 'anthropic', 10);
  const options = { format: 'anthropic', system, budgets: { tokens_max: 8_000 }, cache: 'anthropic' };
  const ends = requestEnds(messages, 'anthropic');
  const first = messages.slice(0, ends[2] + 1);
  const exported = (stateKey) => {
    const s = createSession({ ...options, stateKey });
    s.fit(messages.slice(0, ends[1] + 1));
    return s.exportState();
  };
  const cases = [
    ['secret number one, 16+ bytes', 'secret number two, 16+ bytes', /exported with another stateKey/],
    ['secret number one, 16+ bytes', undefined, /exported with a stateKey, and this session has none/],
    [undefined, 'secret number two, 16+ bytes', /exported without a stateKey, and this session has one/],
  ];
  for (const [writtenWith, readWith, why] of cases) {
    const s = createSession({ ...options, stateKey: readWith, state: exported(writtenWith) });
    assert.equal(s.stateWarnings.length, 1);
    assert.equal(s.stateWarnings[0].code, 'STATE_KEY_MISMATCH');
    assert.match(s.stateWarnings[0].message, why);
    assert.match(s.stateWarnings[0].message, /ignored/);
    assert.equal(s.countCache.size, 0, 'no count taken');
    assert.deepEqual(s.exportState().previous, null, 'no previous request taken');
    // Plans as a fresh session's.
    const fresh = createSession({ ...options, stateKey: readWith });
    const r = s.fit(first);
    assert.deepEqual(r.decisions, fresh.fit(first).decisions);
    assert.equal(r.cache.prefixMessages, 0);
    assert.ok(r.warnings[0].startsWith('state_key_mismatch: ') && r.warnings[0].includes('ignored'), 'the first turn says it');
    assert.ok(s.fit(first).warnings.every((w) => !w.startsWith('state_key_mismatch')), 'once');
  }
  // A damaged check value is malformed, not a mismatch.
  refused(() => createSession({ ...options, stateKey: 'secret number one, 16+ bytes', state: { ...exported('secret number one, 16+ bytes'), keyCheck: 'nope' } }), 'state.keyCheck', undefined);
});

test('stateKey must be a string or Uint8Array of at least 16 bytes; the message never shows it', () => {
  for (const stateKey of ['hunter2-passw0r', 'hunter2', new Uint8Array(15), 98765432109876543210, ['hunter2-passw0rd!'], null, {}]) {
    assert.throws(
      () => createSession({ format: 'openai', stateKey }),
      (err) => err instanceof CtxpackError && err.code === 'INVALID_OPTION' && err.field === 'stateKey' && !/hunter|98765/.test(err.message),
      String(stateKey),
    );
  }
  assert.doesNotThrow(() => createSession({ format: 'openai', stateKey: 'exactly sixteen!' }));
  assert.doesNotThrow(() => createSession({ format: 'openai', stateKey: 'ééééééééé' }), '18 bytes of UTF-8');
});
