// Counting in selectFragments: fragments without cost_tokens counted with options.countTokens,
// once per call; the packer counting lazily, only the fragments it reaches; the estimator; and
// every way counting can fail, as a CtxpackError that never repeats the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError, createEstimator, estimateTokens, selectFragments } from 'ctxpack';
import { rng } from './rng.mjs';

const NOW = Date.UTC(2025, 0, 15, 12);
const GAZE = { entities: ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9'] };
const SLICERS = ['ranked', 'greedy', 'knapsack', 'count-knapsack', 'packer'];
const ids = (r) => r.fragments.map((f) => f.id);

/** A fragment whose text is `tokens` words ("w0 w1 …"), mentioning the first `k` gaze entities. */
const text = (id, tokens, k, extra = {}) => ({
  id,
  content: Array.from({ length: tokens }, (_, i) => `w${i}`).join(' '),
  entities: GAZE.entities.slice(0, k),
  ...extra,
});
/** A counter: one token per word; records every call. */
function wordCounter() {
  const calls = [];
  const counter = (...args) => {
    calls.push({ text: args[0], model: args[1], arity: args.length });
    return args[0] === '' ? 0 : args[0].split(' ').length;
  };
  return { counter, calls };
}
const plan = (candidates, budgets, options = {}) =>
  selectFragments(candidates, GAZE, typeof budgets === 'number' ? { tokens_max: budgets } : budgets, { now: NOW, ...options });
/** The same fragments with cost_tokens filled in by the same counter, and no content. */
const precounted = (candidates) =>
  candidates.map(({ content, ...rest }) => ({ ...rest, cost_tokens: rest.cost_tokens ?? (content === '' ? 0 : content.split(' ').length) }));
const withoutTiming = (r) => ({ ...r, fragments: ids(r), metrics: { ...r.metrics, planner_ms: 0, fragments_counted: 0 } });

/** Uniform in [0, 1) from `seed` (mulberry32, rng.mjs). */
const prng = (seed) => rng(seed).next;

// ---- the packer counts lazily ----

// Ranked by benefit: A (10 entities), B (9), C (8), D (7), E (6), F (5), G (4).
const LAZY = [text('G', 5, 4), text('F', 10, 5), text('E', 300, 6), text('D', 400, 7), text('C', 500, 8), text('B', 450, 9), text('A', 600, 10)];

test("'packer' counts exactly the fragments it visits, in rank order, and no others", () => {
  const { counter, calls } = wordCounter();
  const r = plan(LAZY, 999, { slicer: 'packer', countTokens: counter });
  // A fits (600); B (450) misses 1, C (500) misses 2, D (400) misses 3: the packer stops.
  assert.deepEqual(ids(r), ['A']);
  assert.deepEqual(
    calls.map((c) => c.text.split(' ').length),
    [600, 450, 500, 400],
  );
  assert.equal(r.metrics.fragments_counted, 4);
  const byId = Object.fromEntries(r.decisions.map((d) => [d.id, d]));
  assert.deepEqual(
    ['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((id) => [byId[id].rank, byId[id].reason, byId[id].cost_tokens]),
    [
      [0, 'scored', 600],
      [1, 'budget_exceeded', 450],
      [2, 'budget_exceeded', 500],
      [3, 'budget_exceeded', 400],
      [4, 'skip_limit_reached', null],
      [5, 'skip_limit_reached', null],
      [6, 'skip_limit_reached', null],
    ],
  );
  // E, F, G would fit (300 + 10 + 5), but the packer never reaches them: the seed's trade-off.
  const more = wordCounter();
  const r4 = plan(LAZY, 999, { slicer: 'packer', maxConsecutiveSkips: 4, countTokens: more.counter });
  assert.deepEqual(ids(r4), ['A', 'E', 'F', 'G']); // E (300) is the fourth after three misses, and fits
  assert.equal(more.calls.length, 7);
  assert.equal(r4.metrics.fragments_counted, 7);
});

test("'packer' with no skip limit counts everything; with budget 0 it counts nothing", () => {
  const all = wordCounter();
  const r = plan(LAZY, 999, { slicer: 'packer', maxConsecutiveSkips: 0, countTokens: all.counter });
  assert.equal(all.calls.length, LAZY.length);
  assert.equal(r.metrics.fragments_counted, LAZY.length);
  assert.deepEqual(ids(r), ['A', 'E', 'F', 'G']);
  for (const budgets of [{ tokens_max: 0 }, { tokens_max: 500, output_reserve: 500 }]) {
    const none = wordCounter();
    const z = plan(LAZY, budgets, { slicer: 'packer', countTokens: none.counter });
    assert.equal(none.calls.length, 0);
    assert.equal(z.metrics.fragments_counted, 0);
    assert.ok(z.decisions.every((d) => d.reason === 'no_budget' && d.cost_tokens === null));
  }
});

test("'packer' never counts a fragment that has cost_tokens, and reaches the same plan either way", () => {
  const mixed = LAZY.map((f, i) => (i % 2 === 0 ? precounted([f])[0] : f));
  const { counter, calls } = wordCounter();
  const r = plan(mixed, 999, { slicer: 'packer', countTokens: counter });
  // Visited: A (given), B (counted), C (given), D (counted).
  assert.deepEqual(
    calls.map((c) => c.text.split(' ').length),
    [450, 400],
  );
  assert.equal(r.metrics.fragments_counted, 2);
  assert.deepEqual(ids(r), ['A']);
  const same = plan(precounted(LAZY), 999, { slicer: 'packer' });
  // Identical decisions, but the counts of fragments the packer never reached stay unknown.
  assert.deepEqual(
    r.decisions.map((d) => ({ ...d, cost_tokens: d.rank < 4 || mixed[d.index].cost_tokens !== undefined ? d.cost_tokens : 'never counted' })),
    same.decisions.map((d) => ({ ...d, cost_tokens: d.rank < 4 || mixed[d.index].cost_tokens !== undefined ? d.cost_tokens : 'never counted' })),
  );
  assert.deepEqual(
    r.decisions.filter((d) => d.cost_tokens === null).map((d) => d.id),
    ['F'],
  );
  assert.deepEqual(ids(same), ids(r));
});

test("'packer' on random inputs: counts a rank prefix once each and equals the plan with counts given", () => {
  const rand = prng(8);
  let stopped = 0;
  for (let round = 0; round < 300; round++) {
    const n = Math.floor(rand() * 25);
    const candidates = Array.from({ length: n }, (_, i) => {
      const f = text(`f${String(i).padStart(2, '0')}`, Math.floor(rand() * 400), Math.floor(rand() * 11), {
        timestamp: NOW - Math.floor(rand() * 5) * 3_600_000,
        source: `s${Math.floor(rand() * 3)}`,
      });
      return rand() < 0.25 ? precounted([f])[0] : f;
    });
    const budgets = { tokens_max: Math.floor(rand() * 2000), per_fragment_overhead: Math.floor(rand() * 5), output_reserve: Math.floor(rand() * 200) };
    const maxConsecutiveSkips = Math.floor(rand() * 4);
    const { counter, calls } = wordCounter();
    const lazy = plan(candidates, budgets, { slicer: 'packer', maxConsecutiveSkips, countTokens: counter });
    const eager = plan(precounted(candidates), budgets, { slicer: 'packer', maxConsecutiveSkips });
    assert.deepEqual(ids(lazy), ids(eager), `round ${round}`);
    assert.deepEqual(lazy.kvPolicy, eager.kvPolicy);
    // Visited: the ranks before the first 'skip_limit_reached' (all, if none; none with no budget).
    const byRank = [...lazy.decisions].sort((a, b) => a.rank - b.rank);
    const stop = byRank.findIndex((d) => d.reason === 'skip_limit_reached' || d.reason === 'no_budget');
    const visited = stop === -1 ? byRank : byRank.slice(0, stop);
    const counted = visited.filter((d) => candidates[d.index].cost_tokens === undefined);
    assert.deepEqual(
      calls.map((c) => c.text),
      counted.map((d) => candidates[d.index].content),
      `round ${round}: counted out of rank order or more than once`,
    );
    assert.equal(lazy.metrics.fragments_counted, counted.length);
    if (stop > 0) stopped++;
    for (const d of lazy.decisions) {
      const e = eager.decisions[d.index];
      const wasCounted = d.rank < (stop === -1 ? n : stop) || candidates[d.index].cost_tokens !== undefined;
      assert.equal(d.cost_tokens, wasCounted ? e.cost_tokens : null);
      assert.deepEqual({ ...d, cost_tokens: 0 }, { ...e, cost_tokens: 0 });
    }
    assert.deepEqual({ ...withoutTiming(lazy), decisions: [] }, { ...withoutTiming(eager), decisions: [] });
  }
  assert.ok(stopped > 30, `only ${stopped} rounds stopped early`);
});

test("'packer' ranks by benefit (without the size rule); decision scores are the benefit", () => {
  // Same benefit for both; the other strategies prefer the smaller, the packer keeps rule 6 (id).
  const candidates = [precounted([text('b-small', 10, 5)])[0], precounted([text('a-large', 900, 5)])[0]];
  const acs = plan(candidates, 1000);
  assert.deepEqual(
    [...acs.decisions].sort((x, y) => x.rank - y.rank).map((d) => d.id),
    ['b-small', 'a-large'],
  );
  const packer = plan(candidates, 1000, { slicer: 'packer' });
  assert.deepEqual(
    [...packer.decisions].sort((x, y) => x.rank - y.rank).map((d) => d.id),
    ['a-large', 'b-small'],
  );
  for (const d of packer.decisions) assert.equal(d.score, d.benefit);
  assert.deepEqual(packer.metrics.top3_scores, packer.fragments.map((f) => packer.decisions.find((d) => d.id === f.id).benefit));
});

test("'packer' overshoot: every candidate it reached is too large", () => {
  const big = [text('A', 600, 10, { timestamp: NOW, citations: [1] }), text('B', 700, 9), text('C', 800, 8), text('D', 900, 7), text('E', 5, 1)];
  const { counter, calls } = wordCounter();
  const r = plan(big, 500, { slicer: 'packer', countTokens: counter, allow_overshoot: true });
  assert.deepEqual(ids(r), ['A']);
  assert.equal(r.decisions[0].reason, 'overshoot');
  assert.equal(calls.length, 3);
  assert.match(r.warnings[0], /every candidate the packer reached exceeds the effective budget 500.*cost_tokens 600/);
});

test("'packer' overshoot picks only among the fragments it reached", () => {
  // A and B tie on benefit (0.95 and 0.9505, within 0.001); A is fresher, so it ranks first.
  const hours = -168 * Math.log(0.835);
  const A = text('A', 600, 10, { timestamp: NOW });
  const B = text('B', 700, 10, { timestamp: NOW - hours * 3_600_000, citations: [1] });
  const { counter, calls } = wordCounter();
  const r = plan([B, A], 500, { slicer: 'packer', maxConsecutiveSkips: 1, countTokens: counter, allow_overshoot: true });
  assert.ok(r.decisions[0].benefit > r.decisions[1].benefit);
  assert.deepEqual(ids(r), ['A']); // not B, which has the higher benefit but was never reached
  assert.equal(calls.length, 1);
  assert.equal(r.decisions[0].cost_tokens, null);
});

// ---- the other strategies count everything first ----

test('every other strategy counts each fragment without cost_tokens once, in input order', () => {
  const candidates = [text('a', 30, 2), precounted([text('b', 40, 3)])[0], text('c', 50, 9), text('d', 0, 1)];
  for (const slicer of SLICERS.filter((s) => s !== 'packer')) {
    const { counter, calls } = wordCounter();
    const r = plan(candidates, 100, { slicer, countTokens: counter, bucketSize: 1 });
    assert.deepEqual(
      calls.map((c) => c.text),
      [candidates[0].content, candidates[2].content, ''],
      slicer,
    );
    assert.equal(r.metrics.fragments_counted, 3, slicer);
    assert.deepEqual(
      r.decisions.map((d) => d.cost_tokens),
      [30, 40, 50, 0],
      slicer,
    );
    // The plan is the same as with the counts given.
    const same = plan(precounted(candidates), 100, { slicer, bucketSize: 1 });
    assert.deepEqual(withoutTiming(r), withoutTiming(same), slicer);
  }
});

test('counts feed the ACS score, the size tie-break, the KV policy and the metrics', () => {
  const candidates = [text('big', 800, 5, { lod: 'micro' }), text('small', 100, 5)];
  const { counter } = wordCounter();
  const r = plan(candidates, 10_000, { countTokens: counter });
  const given = plan(precounted(candidates), 10_000);
  assert.deepEqual(r.decisions, given.decisions);
  assert.deepEqual(r.kvPolicy, given.kvPolicy);
  assert.deepEqual(r.kvPolicy.compress, ['big']); // > 500 tokens, benefit 0.35
  assert.equal(r.metrics.tokens_selected, 900);
});

test('options.model is passed through as the second argument, and only then', () => {
  const candidates = [text('a', 3, 1), text('b', 4, 2)];
  const withModel = wordCounter();
  plan(candidates, 100, { countTokens: withModel.counter, model: 'gpt-4o' });
  assert.deepEqual(
    withModel.calls.map((c) => [c.model, c.arity]),
    [
      ['gpt-4o', 2],
      ['gpt-4o', 2],
    ],
  );
  const without = wordCounter();
  plan(candidates, 100, { countTokens: without.counter });
  assert.deepEqual(
    without.calls.map((c) => c.arity),
    [1, 1],
  );
  // model without a counter is reported, not silently dropped.
  assert.deepEqual(plan(precounted(candidates), 100, { model: 'gpt-4o' }).warnings, ['options.model is ignored without options.countTokens']);
});

test('counts are cached within a call and not across calls', () => {
  const candidates = [text('a', 3, 1), text('b', 4, 2)];
  const { counter, calls } = wordCounter();
  for (const slicer of SLICERS) plan(candidates, 100, { slicer, countTokens: counter, bucketSize: 1 });
  assert.equal(calls.length, 2 * SLICERS.length);
});

test('nothing is counted when validation fails', () => {
  const { counter, calls } = wordCounter();
  assert.throws(() => plan([text('a', 3, 1)], { tokens_max: -1 }, { countTokens: counter }), { code: 'INVALID_BUDGET' });
  assert.throws(() => plan([text('a', 3, 1)], 10, { countTokens: counter, slicer: 'nope' }), { code: 'INVALID_OPTION' });
  assert.throws(() => plan([text('a', 3, 1), { id: 'b' }], 10, { countTokens: counter }), { code: 'INVALID_FIELD' });
  assert.equal(calls.length, 0);
});

// ---- the estimator ----

// estimateTokens' own rules: estimate.test.mjs.
test('createEstimator: ceil(UTF-16 length / charsPerToken); estimateTokens ignores the model', () => {
  assert.equal(estimateTokens('x'.repeat(4001), 'any-model'), estimateTokens('x'.repeat(4001)));
  assert.equal(createEstimator(4)('abcde'), 2);
  assert.equal(createEstimator(4)('😀😀'), 1); // 4 UTF-16 code units
  assert.equal(createEstimator(1)('日本語'), 3);
  assert.equal(createEstimator(2.5)('abcdef'), 3);
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '4']) {
    assert.throws(() => createEstimator(bad), (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.field === 'charsPerToken');
  }
  assert.throws(() => estimateTokens(5), (e) => e instanceof CtxpackError && e.code === 'INVALID_INPUT');
  const r = plan([text('a', 10, 1)], 100, { countTokens: estimateTokens });
  assert.equal(r.decisions[0].cost_tokens, estimateTokens(text('a', 10, 1).content));
});

// ---- errors ----

const SECRET = 'CONFIDENTIAL-PARAGRAPH-7731';
const expectError = (fn, code, field, index) =>
  assert.throws(fn, (err) => {
    assert.ok(err instanceof CtxpackError, String(err));
    assert.deepEqual([err.code, err.field, err.index], [code, field, index], err.message);
    assert.ok(!err.message.includes(SECRET), `message leaks the text: ${err.message}`);
    return true;
  });

test('a fragment with neither cost_tokens nor content is an INVALID_FIELD naming it', () => {
  const ok = text('a', 3, 1);
  expectError(() => plan([ok, { id: 'b', entities: [] }], 100, { countTokens: estimateTokens }), 'INVALID_FIELD', 'cost_tokens', 1);
  expectError(() => plan([ok, { id: 'b', cost_tokens: undefined }], 100, { countTokens: estimateTokens }), 'INVALID_FIELD', 'cost_tokens', 1);
  assert.throws(() => plan([ok, { id: 'b' }], 100, { countTokens: estimateTokens }), /candidates\[1\]\.cost_tokens is missing and there is no content to count/);
  expectError(() => plan([ok, { id: 'b', content: 42 }], 100, { countTokens: estimateTokens }), 'INVALID_FIELD', 'content', 1);
  expectError(() => plan([ok, { id: 'b', content: null }], 100, { countTokens: estimateTokens }), 'INVALID_FIELD', 'content', 1);
  // A given cost_tokens is still checked, never replaced by counting.
  expectError(() => plan([ok, { id: 'b', cost_tokens: -1, content: SECRET }], 100, { countTokens: estimateTokens }), 'INVALID_FIELD', 'cost_tokens', 1);
  expectError(() => plan([ok, { id: 'b', cost_tokens: null, content: SECRET }], 100, { countTokens: estimateTokens }), 'INVALID_FIELD', 'cost_tokens', 1);
});

test('content without options.countTokens is an INVALID_FIELD naming the fragment', () => {
  expectError(() => plan([precounted([text('a', 3, 1)])[0], { id: 'b', content: SECRET }], 100), 'INVALID_FIELD', 'cost_tokens', 1);
  assert.throws(() => plan([{ id: 'b', content: SECRET }], 100), /pass options\.countTokens/);
});

test('a counter that throws gives TOKEN_COUNT_FAILED with the error as cause, for every strategy', () => {
  const boom = new TypeError(`cannot tokenize ${SECRET}`);
  for (const slicer of SLICERS) {
    let n = 0;
    const countTokens = () => {
      if (++n === 2) throw boom;
      return 1;
    };
    const candidates = [text('a', 1, 10), { id: 'b', content: SECRET, entities: ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8'] }, text('c', 1, 1)];
    assert.throws(
      () => plan(candidates, 100, { slicer, countTokens, maxConsecutiveSkips: 0 }),
      (err) => {
        assert.ok(err instanceof CtxpackError, slicer);
        assert.deepEqual([err.code, err.field, err.index], ['TOKEN_COUNT_FAILED', 'content', 1], slicer);
        assert.equal(err.cause, boom);
        assert.match(err.message, /^options\.countTokens threw a TypeError for candidates\[1\]\.content/);
        assert.ok(!err.message.includes(SECRET));
        return true;
      },
    );
    // The module keeps working.
    assert.deepEqual(ids(plan([text('z', 1, 1)], 10, { slicer, countTokens: estimateTokens, bucketSize: 1 })), ['z']);
  }
  // Not only Errors.
  assert.throws(
    () => plan([text('a', 1, 1)], 10, { countTokens: () => { throw 'nope'; } }), // eslint-disable-line no-throw-literal
    (err) => err.code === 'TOKEN_COUNT_FAILED' && err.cause === 'nope' && /threw a string of length 4/.test(err.message),
  );
});

test('a counter that returns a Promise, or an object whose then getter throws, gives TOKEN_COUNT_FAILED and no unhandled rejection', async () => {
  const unhandled = [];
  const seen = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', seen);
  try {
    const candidates = [{ id: 'b', content: SECRET, entities: ['e0'] }];
    assert.throws(
      () => plan(candidates, 100, { countTokens: () => Promise.reject(new Error('late')) }),
      (err) => err instanceof CtxpackError && err.code === 'TOKEN_COUNT_FAILED' && /got a Promise/.test(err.message),
    );
    const trap = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('then getter');
      },
    });
    assert.throws(
      () => plan(candidates, 100, { countTokens: () => trap }),
      (err) => err instanceof CtxpackError && err.code === 'TOKEN_COUNT_FAILED' && !/Promise/.test(err.message),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', seen);
  }
  assert.deepEqual(unhandled, []);
});

test('a counter that returns a non-integer, a negative, NaN or too much gives TOKEN_COUNT_FAILED', () => {
  for (const slicer of SLICERS) {
    for (const [value, shown] of [
      [1.5, '1.5'],
      [-1, '-1'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [2 ** 32, '4294967296'],
      ['12', 'a string of length 2'],
      [undefined, 'undefined'],
      [null, 'null'],
      [12n, 'bigint 12'],
    ]) {
      const candidates = [precounted([text('a', 1, 10)])[0], { id: 'b', content: SECRET, entities: ['e0'] }];
      assert.throws(
        () => plan(candidates, 100, { slicer, countTokens: () => value }),
        (err) => {
          assert.ok(err instanceof CtxpackError);
          assert.deepEqual([err.code, err.field, err.index], ['TOKEN_COUNT_FAILED', 'content', 1], `${slicer} ${shown}`);
          assert.equal(
            err.message,
            `options.countTokens must return an integer from 0 to 4294967295 for candidates[1].content, got ${shown}`,
          );
          return true;
        },
      );
    }
    // The largest count is accepted (the knapsacks do not select it: its score rounds to value 0).
    assert.equal(plan([{ id: 'b', content: 'x' }], 2 ** 33, { slicer, countTokens: () => 2 ** 32 - 1 }).decisions[0].cost_tokens, 2 ** 32 - 1);
  }
});

test('countTokens and model are validated as options', () => {
  const c = [text('a', 1, 1)];
  expectError(() => plan(c, 10, { countTokens: 'tiktoken' }), 'INVALID_OPTION', 'countTokens', undefined);
  expectError(() => plan(c, 10, { countTokens: estimateTokens, model: '' }), 'INVALID_OPTION', 'model', undefined);
  expectError(() => plan(c, 10, { countTokens: estimateTokens, model: 4 }), 'INVALID_OPTION', 'model', undefined);
});

test('text never reaches warnings, decisions, metrics or the log record', () => {
  const records = [];
  const r = plan([{ id: 'a', content: SECRET, entities: ['e0'] }, text('b', 2000, 1)], { tokens_max: 100, per_fragment_overhead: 3 }, {
    countTokens: estimateTokens,
    logger: (x) => records.push(x),
    slicer: 'packer',
    bucketSize: 5,
  });
  const { fragments, ...rest } = r;
  assert.ok(!JSON.stringify([rest, records]).includes(SECRET));
  assert.ok(!JSON.stringify([rest, records]).includes('w1999'));
});
