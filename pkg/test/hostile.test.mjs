// Hostile input: every row of the README's bad-input table, each with its code or its documented
// behaviour, and a working call after each. Marker strings stand in for private fragment text:
// no error message and no log record may contain them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, greedySlice, knapsackSlice, selectFragments } from 'ctxpack';

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
  const { fitMessages, greedySlice: greedy, sliceColumns } = await import('ctxpack');
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
  const { sliceColumns } = await import('ctxpack');
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
