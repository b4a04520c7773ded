// Hostile input: every row of the README's bad-input table, each with its code or its documented
// behaviour, and a working call after each. Marker strings stand in for private fragment text:
// no error message and no log record may contain them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CtxpackError, selectFragments } from 'ctxpack';
import { budgetCurve, countConstrainedKnapsackSlice, droppedUnderSlack, exactCountConstrainedSlice, exactKnapsackSlice, greedySlice, knapsackSlice, minBudgetFor, packerSlice, sliceColumns, sliceObjects } from 'ctxpack/slicers';
import { applyTieBreaking } from 'ctxpack/acs';

const SECRET = 'PRIVATE-CONTENT-7f3a';
const NOW = Date.parse('2026-11-20T12:00:00Z');
const gaze = { entities: ['auth'] };
const frag = (i, extra = {}) => ({ id: `f${i}`, cost_tokens: 100 + i, entities: ['auth'], timestamp: NOW - i * 3_600_000, content: SECRET, ...extra });
const good = () => selectFragments([frag(0), frag(1)], gaze, { tokens_max: 150 }, { now: NOW });

function refuses(call, code, field, index) {
  assert.throws(call, (e) => {
    assert.ok(e instanceof CtxpackError, String(e));
    assert.equal(e.code, code, e.message);
    if (field !== undefined) assert.equal(e.field, field, e.message);
    if (index !== undefined) assert.equal(e.index, index, e.message);
    assert.ok(!e.message.includes(SECRET), e.message);
    return true;
  });
  assert.equal(good().fragments.length, 1, 'the module keeps working');
}

const plan = (fragments, budget = { tokens_max: 1000 }, options = { now: NOW }) => () => selectFragments(fragments, gaze, budget, options);

test('scores: NaN and ±Infinity are refused with the index; negative scores are used as given', () => {
  for (const score of [NaN, Infinity, -Infinity]) {
    refuses(() => greedySlice([{ id: 'a', tokens: 1, score: 0.5 }, { id: SECRET, tokens: 1, score }], { targetTokens: 10 }), 'INVALID_FIELD', 'score', 1);
  }
  const r = greedySlice([{ id: 'a', tokens: 10, score: -0.5 }, { id: 'b', tokens: 10, score: 0.1 }], { targetTokens: 10 });
  assert.deepEqual(r.selected, ['b']);
  // The knapsack clamps negative values to 0, and a value of 0 is never chosen.
  assert.deepEqual(knapsackSlice([{ id: 'a', tokens: 10, score: -0.5 }], { targetTokens: 10 }, { bucketSize: 1 }).selected, []);
});

test('a non-finite score, per entry point, gets the code docs/errors.md gives it (INVALID_FIELD or INVALID_SCORE), field score, its index', () => {
  // The item-object slicers and simulations check an item's fields in JavaScript (INVALID_FIELD,
  // as for its tokens); sliceColumns, sliceObjects and applyTieBreaking leave scores to the core's
  // check or their own ranking one (INVALID_SCORE, the Rust crate's code).
  const items = (score) => [{ id: 'a', tokens: 1, score: 0.5, kind: 'k' }, { id: SECRET, tokens: 1, score, kind: 'k' }];
  const budget = { targetTokens: 10 };
  const calls = {
    INVALID_FIELD: {
      greedySlice: (s) => greedySlice(items(s), budget),
      knapsackSlice: (s) => knapsackSlice(items(s), budget),
      packerSlice: (s) => packerSlice(items(s), budget),
      countConstrainedKnapsackSlice: (s) => countConstrainedKnapsackSlice(items(s), budget, { entries: [] }),
      exactKnapsackSlice: (s) => exactKnapsackSlice(items(s), budget),
      exactCountConstrainedSlice: (s) => exactCountConstrainedSlice(items(s), budget, { entries: [] }),
      budgetCurve: (s) => budgetCurve(items(s), 10, { slicer: 'knapsack' }),
      minBudgetFor: (s) => minBudgetFor(items(s), 'a', { slicer: 'greedy' }),
      droppedUnderSlack: (s) => droppedUnderSlack(items(s), budget, 1, { slicer: 'greedy' }),
    },
    INVALID_SCORE: {
      sliceColumns: (s) => sliceColumns('greedy', { tokens: Uint32Array.of(1, 1), scores: Float64Array.of(0.5, s) }, budget),
      sliceObjects: (s) => sliceObjects('greedy', items(s).map(({ id, tokens, score }) => ({ id, cost_tokens: tokens, score })), budget),
      applyTieBreaking: (s) => applyTieBreaking(items(s).map(({ id, tokens, score }) => ({ fragment: { id, cost_tokens: tokens }, score }))),
    },
  };
  const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const row = page.split('\n').find((l) => l.startsWith('| a NaN or ±Infinity score |'));
  for (const [code, byName] of Object.entries(calls)) {
    for (const [name, call] of Object.entries(byName)) {
      // The row names each function under the code it gives: `INVALID_FIELD` … `greedySlice` … `INVALID_SCORE` … `sliceColumns`.
      const [forField, forScore] = row.split('`INVALID_SCORE`');
      assert.ok((code === 'INVALID_FIELD' ? forField : forScore).includes(`\`${name}\``), `docs/errors.md names ${name} under ${code}`);
      for (const score of [NaN, Infinity, -Infinity]) refuses(() => call(score), code, 'score', 1);
    }
  }
});

test('token counts: negative, fractional, above 2^32 - 1, missing, NaN, strings → INVALID_FIELD cost_tokens', () => {
  for (const cost of [-1, 1.5, 2 ** 32, undefined, NaN, '12', null, Infinity]) {
    refuses(plan([frag(0), frag(1, { cost_tokens: cost })]), 'INVALID_FIELD', 'cost_tokens', 1);
  }
  // 2^32 - 1 itself is accepted.
  assert.equal(selectFragments([frag(0, { cost_tokens: 2 ** 32 - 1 })], gaze, { tokens_max: 10 }, { now: NOW }).fragments.length, 0);
});

test('budgets: negative, fractional, above 2^53, missing, wrong type → INVALID_BUDGET', () => {
  for (const tokens_max of [-1, 0.5, 2 ** 53, undefined, '100', NaN, Infinity]) {
    refuses(plan([frag(0)], { tokens_max }), 'INVALID_BUDGET', 'budgets.tokens_max');
  }
  refuses(plan([frag(0)], null), 'INVALID_BUDGET', 'budgets');
  refuses(plan([frag(0)], 100), 'INVALID_BUDGET', 'budgets');
  // 2^53 - 1 is a valid (huge) budget.
  assert.equal(selectFragments([frag(0)], gaze, { tokens_max: Number.MAX_SAFE_INTEGER }, { now: NOW }).fragments.length, 1);
});

test('duplicate ids → DUPLICATE_ID naming both indexes', () => {
  assert.throws(plan([frag(0), frag(1), frag(2, { id: 'f0' })]), (e) => e.code === 'DUPLICATE_ID' && e.index === 2 && e.otherIndex === 0);
  assert.equal(good().fragments.length, 1);
});

test("ids such as __proto__ and constructor are ordinary ids", () => {
  const fragments = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'].map((id, i) => frag(i, { id }));
  const r = selectFragments(fragments, gaze, { tokens_max: 10_000 }, { now: NOW });
  assert.deepEqual(r.fragments.map((f) => f.id).sort(), ['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
  assert.equal(r.decisions.length, 4);
  refuses(plan([frag(0, { id: '__proto__' }), frag(1, { id: '__proto__' })]), 'DUPLICATE_ID', 'id', 1);
  const s = greedySlice([{ id: '__proto__', tokens: 1, score: 1 }, { id: 'constructor', tokens: 1, score: 1 }], { targetTokens: 5 });
  assert.deepEqual(s.selected, ['__proto__', 'constructor']);
});

test('non-array and null inputs → INVALID_INPUT or INVALID_FIELD', () => {
  for (const candidates of [null, undefined, {}, 'x', 42, { length: 2 }]) refuses(plan(candidates), 'INVALID_INPUT', 'candidates');
  refuses(plan([frag(0), null]), 'INVALID_FIELD', 'candidates', 1);
  refuses(plan([frag(0), 7]), 'INVALID_FIELD', 'candidates', 1);
  refuses(() => selectFragments([frag(0)], null, { tokens_max: 10 }), 'INVALID_FIELD', 'gaze');
  refuses(() => selectFragments([frag(0)], { entities: 'auth' }, { tokens_max: 10 }), 'INVALID_FIELD', 'gaze.entities');
});

test('a 10 MB content string is never copied into wasm and plans like a small one', () => {
  const big = 'x'.repeat(10 * 1024 * 1024);
  const small = selectFragments([frag(0), frag(1)], gaze, { tokens_max: 150 }, { now: NOW });
  const withBig = selectFragments([frag(0, { content: big }), frag(1)], gaze, { tokens_max: 150 }, { now: NOW, requestId: small.metrics.request_id });
  const strip = (p) => ({ ...p, fragments: p.fragments.map((f) => f.id), metrics: { ...p.metrics, planner_ms: 0 } });
  assert.deepEqual(strip(withBig), strip(small));
});

test('a million fragments plan (columnar all the way)', () => {
  const n = 1_000_000;
  const fragments = Array.from({ length: n }, (_, i) => ({ id: `m${i}`, cost_tokens: 1 + (i % 500), timestamp: NOW - (i % 1000) * 60_000 }));
  const r = selectFragments(fragments, gaze, { tokens_max: 50_000 }, { now: NOW, slicer: 'greedy' });
  assert.equal(r.decisions.length, n);
  assert.ok(r.metrics.tokens_selected <= 50_000);
  assert.ok(r.fragments.length > 0);
});

test('a gaze of 10k entities and fragments of 10k entities', () => {
  const entities = Array.from({ length: 10_000 }, (_, i) => `e${i}`);
  const fragments = Array.from({ length: 50 }, (_, i) => frag(i, { entities }));
  const r = selectFragments(fragments, { entities }, { tokens_max: 1000 }, { now: NOW });
  assert.equal(r.metrics.coverage_entities, 1);
  assert.ok(r.decisions.every((d) => d.benefit > 0.6));
});

test('options of the wrong type → INVALID_OPTION naming the option', () => {
  const cases = [
    [{ slicer: 'fastest' }, 'slicer'],
    [{ now: 'yesterday' }, 'now'],
    [{ weights: { alpha: -1 } }, 'weights.alpha'],
    [{ maxConsecutiveSkips: -1, slicer: 'packer' }, 'maxConsecutiveSkips'],
    [{ allow_overshoot: 'yes' }, 'allow_overshoot'],
    [{ logger: 'console' }, 'logger'],
    [{ sliser: 'greedy' }, 'sliser'],
  ];
  for (const [options, field] of cases) refuses(plan([frag(0)], { tokens_max: 100 }, { now: NOW, ...options }), 'INVALID_OPTION', field);
  refuses(plan([frag(0)], { tokens_max: 100 }, 'greedy'), 'INVALID_OPTION', 'options');
  refuses(plan([frag(0)], { tokens_max: 100 }, { bucketSize: 0, slicer: 'knapsack' }), 'INVALID_BUCKET_SIZE', 'bucketSize');
});

test('the logger never receives content; hashIds hides ids', () => {
  const records = [];
  selectFragments([frag(0), frag(1)], gaze, { tokens_max: 1000 }, { now: NOW, logger: (r) => records.push(r) });
  selectFragments([frag(0), frag(1)], gaze, { tokens_max: 1000 }, { now: NOW, logger: (r) => records.push(r), hashIds: true });
  const text = JSON.stringify(records);
  assert.ok(!text.includes(SECRET));
  assert.ok(records[0].top3_ids.includes('f0'));
  assert.ok(!records[1].top3_ids.includes('f0'));
  assert.match(records[1].top3_ids[0], /^[0-9a-f]{16}$/);
});

test('caller strings in messages: a kind is named by its count entry, a key is cut at 100 characters', async () => {
  const { fitMessages } = await import('ctxpack');
  const long = `${'k'.repeat(1_000_000)}${SECRET}`;
  const frags = [{ id: 'a', cost_tokens: 10, kind: long }, { id: 'b', cost_tokens: 10, kind: 'x' }];
  const plan = selectFragments(frags, gaze, { tokens_max: 100 }, { now: NOW, slicer: 'count-knapsack', countEntries: [{ kind: 'x', requireCount: 1, capCount: 1 }, { kind: long, requireCount: 3, capCount: 3 }] });
  assert.deepEqual(plan.warnings, ['count requirement of options.countEntries[1] not met: required 3, satisfied 1']);
  const capped = (e) => {
    assert.ok(e instanceof CtxpackError);
    assert.ok(e.message.length < 400, `${e.message.length} characters`);
    assert.ok(e.message.includes(`${'k'.repeat(100)}…`), e.message.slice(0, 200));
    assert.ok(!e.message.includes(SECRET));
    assert.ok(e.field.length <= 120, e.field.slice(0, 200));
    return true;
  };
  assert.throws(() => selectFragments(frags, gaze, { tokens_max: 100 }, { [long]: 1 }), capped);
  assert.throws(() => selectFragments(frags, gaze, { tokens_max: 100, [long]: 1 }, {}), capped);
  assert.throws(() => selectFragments(frags, gaze, { tokens_max: 100 }, { weights: { [long]: 1 } }), capped);
  assert.throws(() => fitMessages([{ role: 'user', content: 'hi' }], { format: 'openai', budgets: { tokens_max: 100 }, relevance: { [long]: 1 } }), capped);
  assert.equal(good().fragments.length, 1);
});

test('getters and Proxy traps that throw, revoked Proxies: INVALID_INPUT with the thrown value as cause', async () => {
  const { fitMessages } = await import('ctxpack');
  const { greedySlice: greedy, sliceColumns } = await import('ctxpack/slicers');
  const boom = new Error('boom');
  const getter = (obj, key) => Object.defineProperty(obj, key, { get: () => { throw boom; }, enumerable: true });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const readFailed = (cause) => (e) => {
    assert.ok(e instanceof CtxpackError, String(e));
    assert.equal(e.code, 'INVALID_INPUT', e.message);
    if (cause !== undefined) assert.equal(e.cause, cause);
    else assert.ok(e.cause instanceof TypeError, String(e.cause));
    assert.doesNotMatch(e.message, /please report/);
    return true;
  };
  refuses2(() => selectFragments([getter({ id: 'a' }, 'cost_tokens')], gaze, { tokens_max: 10 }), readFailed(boom));
  refuses2(() => selectFragments([new Proxy({ id: 'a', cost_tokens: 1 }, { get: () => { throw boom; } })], gaze, { tokens_max: 10 }), readFailed(boom));
  refuses2(() => selectFragments([revoked], gaze, { tokens_max: 10 }), readFailed());
  refuses2(() => selectFragments(revoked, gaze, { tokens_max: 10 }), readFailed());
  refuses2(() => selectFragments([], gaze, revoked), readFailed());
  refuses2(() => selectFragments([], gaze, { tokens_max: 1 }, revoked), readFailed());
  refuses2(() => selectFragments([], gaze, getter({}, 'tokens_max')), readFailed(boom));
  refuses2(() => selectFragments([], gaze, { tokens_max: 1 }, getter({}, 'slicer')), readFailed(boom));
  refuses2(() => greedy([revoked], { targetTokens: 10 }), readFailed());
  refuses2(() => greedy([{ id: 'a', tokens: 1, score: 1 }], revoked), readFailed());
  refuses2(() => sliceColumns('greedy', revoked, { targetTokens: 10 }), readFailed());
  refuses2(() => fitMessages([{ role: 'user', content: 'hi' }], revoked), readFailed());
});

test('a typed array of a detached ArrayBuffer passed to sliceColumns: INVALID_INPUT naming the column', async () => {
  const { sliceColumns } = await import('ctxpack/slicers');
  const buffer = new ArrayBuffer(8);
  const tokens = new Uint32Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  refuses2(() => sliceColumns('greedy', { tokens, scores: Float64Array.of(1, 1) }, { targetTokens: 10 }), (e) => {
    assert.ok(e instanceof CtxpackError);
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(e.field, 'tokens');
    return true;
  });
});

function refuses2(call, check) {
  assert.throws(call, check);
  assert.equal(good().fragments.length, 1, 'the module keeps working');
}

test('init(a rejected promise) after the core loaded: no unhandled rejection, init resolves', async () => {
  const { init } = await import('ctxpack');
  good();
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await init(Promise.reject(new Error('not needed')));
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
  assert.equal(good().fragments.length, 1);
});

// Issue 17: the object path's fragments are read by the core; what a getter or trap throws there
// is the same INVALID_INPUT with its cause as everywhere else, naming the fragment and property.
test('sliceObjects: a throwing getter, a revoked Proxy, a throwing array trap → INVALID_INPUT with the cause', async () => {
  const { sliceObjects } = await import('ctxpack/slicers');
  const boom = new Error('boom');
  for (const key of ['id', 'cost_tokens', 'score', 'kind']) {
    const f = { id: 'a', cost_tokens: 1, score: 0.5, kind: 'k' };
    Object.defineProperty(f, key, { get: () => { throw boom; }, enumerable: true });
    refuses2(() => sliceObjects('greedy', [{ id: 'x', cost_tokens: 1 }, f], { targetTokens: 10 }), (e) => {
      assert.ok(e instanceof CtxpackError, String(e));
      assert.deepEqual([e.code, e.field, e.index, e.cause], ['INVALID_INPUT', key, 1, boom]);
      assert.match(e.message, new RegExp(`^items\\[1\\]\\.${key} could not be read`));
      return true;
    });
  }
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  refuses2(() => sliceObjects('knapsack', [revoked], { targetTokens: 10 }), (e) => {
    assert.deepEqual([e.code, e.field, e.index], ['INVALID_INPUT', 'id', 0]);
    assert.ok(e.cause instanceof TypeError, String(e.cause));
    return true;
  });
  const trapped = new Proxy([{ id: 'a', cost_tokens: 1 }], { get: (t, k) => { if (k === '0') throw boom; return t[k]; } });
  refuses2(() => sliceObjects('greedy', trapped, { targetTokens: 10 }), (e) => {
    assert.deepEqual([e.code, e.cause], ['INVALID_INPUT', boom]);
    assert.doesNotMatch(e.message, /please report/);
    return true;
  });
});

// Issue 17: a JS string is UTF-16 and may hold lone surrogates, which a Rust String cannot; the
// core used to see every one as U+FFFD, so distinct kinds collided.
test('kinds compare as UTF-16 code units in the core: distinct lone-surrogate kinds stay distinct, and come back as written', async () => {
  const { countConstrainedKnapsackSlice, exactCountConstrainedSlice, sliceObjects, sliceColumns } = await import('ctxpack/slicers');
  const items = [
    { id: 'a', tokens: 10, score: 0.9, kind: '\uD800' },
    { id: 'b', tokens: 10, score: 0.5, kind: '\uD801' },
    { id: 'c', tokens: 10, score: 0.4, kind: '\uFFFD' },
    { id: 'd', tokens: 10, score: 0.3, kind: '\uFFFD0' },
  ];
  const entries = [
    { kind: '\uD800', requireCount: 0, capCount: 0 },
    { kind: '\uFFFD', requireCount: 0, capCount: 0 },
    { kind: '\uDC00x', requireCount: 1, capCount: 1 },
  ];
  for (const run of [
    () => countConstrainedKnapsackSlice(items, { targetTokens: 100 }, { entries, bucketSize: 1 }),
    () => exactCountConstrainedSlice(items, { targetTokens: 100 }, { entries }),
  ]) {
    const r = run();
    assert.deepEqual(r.selected.sort(), ['b', 'd']);
    assert.deepEqual(r.decisions.map((d) => d.reason), ['count_cap_exceeded', 'scored', 'count_cap_exceeded', 'scored']);
    assert.equal(r.shortfalls.length, 1);
    assert.equal(r.shortfalls[0].kind, '\uDC00x', 'the kind comes back as the caller wrote it');
  }
  const fragments = items.map(({ id, tokens, score, kind }) => ({ id, cost_tokens: tokens, score, kind }));
  const kindNames = items.map((i) => i.kind);
  const columns = { tokens: Uint32Array.of(10, 10, 10, 10), scores: Float64Array.of(0.9, 0.5, 0.4, 0.3), kinds: Uint32Array.of(0, 1, 2, 3), kindNames };
  for (const r of [
    sliceObjects('count-knapsack', fragments, { targetTokens: 100 }, { entries, bucketSize: 1 }),
    sliceColumns('exact-count', columns, { targetTokens: 100 }, { entries }),
  ]) {
    assert.deepEqual([...r.selected].sort(), [1, 3]);
    assert.equal(r.shortfalls[0].kind, '\uDC00x');
  }
  // Two entries whose kinds differ only in their lone surrogates are two kinds, not a duplicate.
  const two = [{ kind: '\uD800', requireCount: 0, capCount: 1 }, { kind: '\uD801', requireCount: 0, capCount: 1 }];
  assert.equal(countConstrainedKnapsackSlice(items, { targetTokens: 100 }, { entries: two, bucketSize: 1 }).selected.length, 4);
});

// Issue 17: kinds are caller strings of any length and may carry content; the core's messages
// named entries by their kind.
test('no kind in any core message: INVALID_COUNT_ENTRY and COUNT_REQUIREMENT_SHORTFALL name the entry', async () => {
  const { countConstrainedKnapsackSlice, exactCountConstrainedSlice } = await import('ctxpack/slicers');
  const kind = SECRET.repeat(50_000);
  const items = [{ id: 'a', tokens: 10, score: 0.5, kind }];
  const check = (code, index, message) => (e) => {
    assert.ok(e instanceof CtxpackError, String(e));
    assert.deepEqual([e.code, e.field, e.index, e.message], [code, 'entries', index, message]);
    return true;
  };
  for (const slice of [countConstrainedKnapsackSlice, exactCountConstrainedSlice]) {
    refuses2(
      () => slice(items, { targetTokens: 100 }, { entries: [{ kind: 'x', requireCount: 0, capCount: 1 }, { kind, requireCount: 3, capCount: 2 }] }),
      check('INVALID_COUNT_ENTRY', 1, 'options.entries[1]: requireCount 3 must not exceed capCount 2'),
    );
    refuses2(
      () => slice(items, { targetTokens: 100 }, { entries: [{ kind, requireCount: 1, capCount: 1 }, { kind: kind.toUpperCase(), requireCount: 0, capCount: 1 }] }),
      check('INVALID_COUNT_ENTRY', 1, 'options.entries[1]: the kind is already constrained by options.entries[0] (kinds compare case-insensitively)'),
    );
    refuses2(
      () => slice(items, { targetTokens: 100 }, { entries: [{ kind, requireCount: 3, capCount: 3 }], scarcity: 'throw' }),
      check('COUNT_REQUIREMENT_SHORTFALL', 0, 'CountConstrainedKnapsackSlice: candidate pool for the kind of entries[0] has 1 items but RequireCount is 3.'),
    );
  }
  // In selectFragments the short entry's warning names it too.
  const frags = [frag(0, { kind })];
  const r = selectFragments(frags, gaze, { tokens_max: 1000 }, { now: NOW, slicer: 'count-knapsack', countEntries: [{ kind, requireCount: 2, capCount: 2 }] });
  assert.deepEqual(r.warnings, ['count requirement of options.countEntries[0] not met: required 2, satisfied 1']);
});

// Issue 17: TABLE_TOO_LARGE said "bytes" for a cell limit, advised the Rust names
// (max_table_bytes), and advised raising a limit already at 2^53 - 1.
test('TABLE_TOO_LARGE names the limit that was hit and the option of the API that raises it', async () => {
  const { exactCountConstrainedSlice, sliceColumns } = await import('ctxpack/slicers');
  const check = (field, pattern) => (e) => {
    assert.ok(e instanceof CtxpackError, String(e));
    assert.equal(e.code, 'TABLE_TOO_LARGE');
    assert.equal(e.field, field);
    assert.match(e.message, pattern);
    assert.doesNotMatch(e.message, /max_table_bytes|max_cells|bucket_size/);
    return true;
  };
  const items = Array.from({ length: 40 }, (_, i) => ({ id: `i${i}`, tokens: 50 + i, score: 0.5, kind: i % 2 ? 'a' : 'b' }));
  refuses2(
    () => knapsackSlice(items, { targetTokens: 1000 }, { bucketSize: 1, maxTableBytes: 64 }),
    check('maxTableBytes', /over the limit of 64 bytes; raise bucketSize or maxTableBytes$/),
  );
  refuses2(
    () => exactCountConstrainedSlice(items, { targetTokens: 1000 }, { entries: [{ kind: 'a', requireCount: 1, capCount: 5 }], bucketSize: 1, maxCells: 100 }),
    check('maxCells', /over the limit of 100 cells; raise bucketSize or maxCells$/),
  );
  refuses2(
    () => selectFragments([frag(0), frag(1), frag(2)], gaze, { tokens_max: 1000 }, { now: NOW, slicer: 'knapsack', bucketSize: 1, maxTableBytes: 64 }),
    check('maxTableBytes', /raise bucketSize or maxTableBytes$/),
  );
  // exact chooses its fallback's bucket itself: only the limit can help.
  const { exactKnapsackSlice } = await import('ctxpack/slicers');
  refuses2(
    () => exactKnapsackSlice(items, { targetTokens: 1000 }, { maxStates: 1, maxTableBytes: 64 }),
    check('maxTableBytes', /over the limit of 64 bytes; raise maxTableBytes$/),
  );
  // A limit at its largest is not worth raising.
  const n = 5000;
  const huge = { tokens: new Uint32Array(n).fill(4_000_000_000), scores: new Float64Array(n).fill(0.5) };
  refuses2(
    () => sliceColumns('knapsack', huge, { targetTokens: Number.MAX_SAFE_INTEGER }, { bucketSize: 1, maxTableBytes: Number.MAX_SAFE_INTEGER }),
    check('maxTableBytes', /over the limit of 9007199254740991 bytes; maxTableBytes is at its largest: raise bucketSize or lower the budget$/),
  );
  // Within a raised limit but past the 4 GiB wasm addresses: that limit is named, and no option is advised.
  const wide = { tokens: new Uint32Array(1500).fill(2 ** 22), scores: new Float64Array(1500).fill(0.5) };
  refuses2(
    () => sliceColumns('knapsack', wide, { targetTokens: 2 ** 31 }, { bucketSize: 1, maxTableBytes: 2 ** 52 }),
    check('maxTableBytes', /419833065192 bytes, more than the 4294967295 bytes this platform can address; raise bucketSize or lower the budget$/),
  );
});
