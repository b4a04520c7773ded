// Pure TypeScript layer: time parsing, the id hash, and the error class.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError } from '../dist/index.js';
import { fnv1a64, hashId, toEpochMs } from '../dist/acs.js';

test('toEpochMs accepts Date, epoch ms and ISO 8601 with an offset', () => {
  const ms = Date.UTC(2025, 0, 15, 12, 30, 45, 123);
  assert.equal(toEpochMs(new Date(ms), 'timestamp', 0), ms);
  assert.equal(toEpochMs(ms, 'timestamp', 0), ms);
  assert.equal(toEpochMs(-1, 'timestamp'), -1);
  assert.equal(toEpochMs('2025-01-15T12:30:45.123Z', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15t12:30:45.123z', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15 12:30:45,123Z', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15T14:30:45.123+02:00', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15T07:00:45.123-0530', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15T13:30:45.123+01', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15T12:30Z', 'timestamp'), Date.UTC(2025, 0, 15, 12, 30));
  // Fractions beyond milliseconds are truncated, not rounded.
  assert.equal(toEpochMs('2025-01-15T12:30:45.123999Z', 'timestamp'), ms);
  assert.equal(toEpochMs('2025-01-15T12:30:45.1Z', 'timestamp'), ms - 23);
  // Date-only strings are UTC midnight.
  assert.equal(toEpochMs('2024-02-29', 'timestamp'), Date.UTC(2024, 1, 29));
  assert.equal(toEpochMs('1969-12-31', 'timestamp'), -86_400_000);
  assert.equal(toEpochMs('0001-01-01T00:00:00Z', 'timestamp'), Date.parse('0001-01-01T00:00:00Z'));
  assert.equal(toEpochMs('9999-12-31T23:59:59.999Z', 'timestamp'), Date.parse('9999-12-31T23:59:59.999Z'));
});

test('toEpochMs agrees with Date.parse on random offset date-times', () => {
  let seed = 7;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pad = (v, w = 2) => String(v).padStart(w, '0');
  for (let i = 0; i < 2000; i++) {
    const y = 1900 + rand(300);
    const mo = 1 + rand(12);
    const d = 1 + rand(28);
    const text =
      `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(rand(24))}:${pad(rand(60))}:${pad(rand(60))}.${pad(rand(1000), 3)}` +
      (rand(2) ? 'Z' : `${rand(2) ? '+' : '-'}${pad(rand(15))}:${pad(rand(60))}`);
    assert.equal(toEpochMs(text, 'timestamp'), Date.parse(text), text);
  }
});

test('toEpochMs rejects everything else with INVALID_FIELD naming field and index', () => {
  const bad = [
    '2025-01-15T12:30:45', // no offset: would depend on the host time zone
    '2025-01-15T12:30',
    '2023-02-29',
    '2025-13-01',
    '2025-04-31',
    '2025-01-15T24:00:00Z',
    '2025-01-15T23:59:60Z',
    '2025-01-15T12:00:00+24:00',
    'Wed, 15 Jan 2025 12:00:00 GMT',
    '1736942400000',
    '',
    Number.NaN,
    Number.POSITIVE_INFINITY,
    8.64e15 + 1,
    new Date(Number.NaN),
    null,
    true,
    {},
    [],
  ];
  for (const value of bad) {
    assert.throws(
      () => toEpochMs(value, 'timestamp', 4),
      (err) => {
        assert.ok(err instanceof CtxpackError);
        assert.equal(err.name, 'CtxpackError');
        assert.equal(err.code, 'INVALID_FIELD');
        assert.equal(err.field, 'timestamp');
        assert.equal(err.index, 4);
        assert.match(err.message, /^candidates\[4\]\.timestamp must be /);
        return true;
      },
      String(value),
    );
  }
  assert.throws(
    () => toEpochMs('nope', 'lastAccessTime'),
    (err) => err.field === 'lastAccessTime' && !('index' in err),
  );
});

test('error messages never echo string values', () => {
  const secret = 'TOP SECRET CONTENT 12345';
  assert.throws(
    () => toEpochMs(secret, 'timestamp', 0),
    (err) => !err.message.includes(secret) && err.message.includes(`a string of length ${secret.length}`),
  );
});

test('CtxpackError carries code, field, index, otherIndex and cause', () => {
  const cause = new Error('inner');
  const err = new CtxpackError('DUPLICATE_ID', 'm', { field: 'id', index: 3, otherIndex: 1, cause });
  assert.ok(err instanceof Error);
  assert.equal(err.name, 'CtxpackError');
  assert.equal(err.code, 'DUPLICATE_ID');
  assert.equal(err.field, 'id');
  assert.equal(err.index, 3);
  assert.equal(err.otherIndex, 1);
  assert.equal(err.cause, cause);
  const bare = new CtxpackError('INTERNAL', 'm');
  assert.equal('field' in bare, false);
  assert.equal('index' in bare, false);
});

test('fnv1a64 matches the FNV-1a 64 reference vectors over UTF-8', () => {
  assert.equal(fnv1a64(''), 'cbf29ce484222325');
  assert.equal(fnv1a64('a'), 'af63dc4c8601ec8c');
  assert.equal(fnv1a64('foobar'), '85944171f73967e8');
  assert.equal(hashId('foobar'), '85944171f73967e8');
});

test('fnv1a64 equals a BigInt FNV-1a 64 over TextEncoder bytes', () => {
  const reference = (text) => {
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(text)) {
      h ^= BigInt(b);
      h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    return h.toString(16).padStart(16, '0');
  };
  const samples = ['frag-001', 'é', '日本語', '😀 emoji', 'lone \ud800 surrogate', 'tail \udc00', '\u0000\u007f\u0080\u07ff\u0800\uffff'];
  for (let i = 0; i < 200; i++) samples.push(`id-${i}-${'x'.repeat(i % 17)}-${String.fromCharCode(i * 37)}`);
  for (const s of samples) assert.equal(fnv1a64(s), reference(s), JSON.stringify(s));
});
