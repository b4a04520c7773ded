// The planner's id index (pkg/src/validate/id-index.ts) on ids made to collide: ids with one
// FNV-1a 32, the hash the index keys on, must still be told apart by the duplicate check and by
// lookups (dependencies). A flood of them makes the index give up its table for a Map; without
// that fallback the 20k case is quadratic (about 11 s here instead of half a second: slow, though
// no test times it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectFragments } from 'ctxpack';

const NOW = Date.UTC(2025, 0, 15, 12);
const P = 0x0100_0193;
/** P⁻¹ mod 2³² (Newton: each step doubles the correct low bits). */
const P_INV = (() => {
  let x = P;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(P, x));
  return x;
})();

/** FNV-1a 32 over UTF-16 code units, from state `h`. */
function fnv(text, h = 0x811c9dc5) {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), P);
  return h >>> 0;
}

/**
 * `count` distinct ids, `prefix` + four code units, all with FNV-1a 32 `target`: the first two
 * units are free, the last two solved for (the hash is invertible one unit at a time, and a unit
 * sets only the low 16 bits before a multiplication).
 */
function collidingIds(prefix, target, count) {
  const a = Math.imul(target, P_INV) >>> 0; // the state before the last unit, up to its low 16 bits
  const high = a >>> 16;
  // Every state y with fnv(y, unit) landing on the high half `high`, by y's own high half.
  const byHigh = new Map();
  for (let v = 0; v < 0x10000; v++) {
    const y = Math.imul(((high << 16) | v) >>> 0, P_INV) >>> 0;
    const list = byHigh.get(y >>> 16) ?? [];
    list.push(y);
    byHigh.set(y >>> 16, list);
  }
  const base = fnv(prefix);
  const out = [];
  for (let c1 = 0x4e00; out.length < count; c1++) {
    for (let c2 = 0x4e00; c2 < 0x4e40 && out.length < count; c2++) {
      const h2 = Math.imul(Math.imul(base ^ c1, P) ^ c2, P) >>> 0;
      for (const y of byHigh.get(h2 >>> 16) ?? []) {
        const c3 = (y ^ h2) & 0xffff;
        const h3 = Math.imul(y, P) >>> 0;
        const c4 = (h3 ^ a) & 0xffff;
        const id = prefix + String.fromCharCode(c1, c2, c3, c4);
        if (fnv(id) === target >>> 0) out.push(id);
      }
    }
  }
  return out;
}

test('collidingIds gives distinct ids with one FNV-1a 32', () => {
  const ids = collidingIds('id-', fnv('root'), 50);
  assert.equal(new Set(ids).size, 50);
  for (const id of ids) assert.equal(fnv(id), fnv('root'));
});

/**
 * A chain over `ids` (each depends on the one before) whose root is over the budget, and a
 * candidate depending on an id that no candidate has but that hashes alike. Under 'require' the
 * chain can go in only if a lookup misses its dependency; the stray one only if its lookup misses.
 */
function checkCollisions(ids, absent) {
  const n = ids.length;
  const candidates = ids.map((id, i) => ({ id, cost_tokens: i === 0 ? 1_000_000 : 1, ...(i > 0 ? { dependencies: [ids[i - 1]] } : {}) }));
  candidates.push({ id: 'stray', cost_tokens: 1, dependencies: [absent] });
  const result = selectFragments(candidates, { entities: [] }, { tokens_max: 10 * n }, { now: NOW, dependencies: 'require', allow_overshoot: false });
  assert.deepEqual(
    result.fragments.map((f) => f.id),
    ['stray'],
    'every dependency of the chain was found, and the absent one was not',
  );
  // Duplicates: the first repeat, naming the id's first candidate.
  for (const k of [0, n >> 1, n - 1]) {
    const withDuplicate = [...candidates, { id: 'x', cost_tokens: 1 }, { id: ids[k], cost_tokens: 1 }, { id: ids[0], cost_tokens: 1 }];
    assert.throws(
      () => selectFragments(withDuplicate, { entities: [] }, { tokens_max: 10 }, { now: NOW }),
      (e) => e.code === 'DUPLICATE_ID' && e.index === n + 2 && e.otherIndex === k,
    );
  }
}

test('ids with one FNV-1a 32: a few (the table compares them as strings)', () => {
  const ids = collidingIds('a', fnv('target'), 6);
  checkCollisions(ids.slice(0, 5), ids[5]);
});

test('ids with one FNV-1a 32: a flood of 20k (the index falls back to a Map)', () => {
  const ids = collidingIds('flood-', 0x1234_5678, 20_001);
  checkCollisions(ids.slice(0, 20_000), ids[20_000]);
});

test('distinct ids at sizes on both sides of every table size: duplicates and lookups', () => {
  for (const n of [1, 2, 7, 8, 9, 31, 32, 33, 127, 128, 129, 1000, 4097]) {
    const ids = Array.from({ length: n }, (_, i) => `c${(i * 7919) % 100_003}`);
    const absent = 'c-absent';
    checkCollisions(ids, absent);
  }
});

test('ids filling one long run of table slots: lookups still answer right (they move to a Map)', () => {
  // The slot of an id as the index takes it (FNV-1a 32, mixed, top bits): a table of 2^13 slots
  // for 3000 candidates. 2999 ids take slots 0..2998, one each, so that building costs no probe
  // but a lookup from slot 0 walks the whole run: the index then answers lookups from a Map.
  const slotOf = (text) => {
    let h = fnv(text);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85eb_ca6b);
    return (h ^ (h >>> 13)) >>> (32 - 13);
  };
  const run = new Array(2999);
  let filled = 0;
  for (let i = 0; filled < run.length; i++) {
    const id = `r${i}`;
    const s = slotOf(id);
    if (s < run.length && run[s] === undefined) {
      run[s] = id;
      filled++;
    }
  }
  let absent;
  for (let i = 0; absent === undefined; i++) if (slotOf(`miss${i}`) === 0) absent = `miss${i}`;
  checkCollisions(run, absent);
});

