// selectFragments end to end. Needs the wasm core: imports the package by its own name, which
// resolves (through package.json "exports") to the entry of the running runtime, initialized on import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CtxpackError, selectFragments } from 'ctxpack';
import { calculateBenefit, calculateScore, fnv1a64 } from 'ctxpack/acs';
import { rng } from './rng.mjs';

const NOW = Date.UTC(2025, 0, 15, 12);
const HOUR = 3_600_000;
const GAZE10 = { entities: Array.from({ length: 10 }, (_, i) => `e${i}`) };
/** A fragment mentioning the first `k` gaze entities (overlap k/10). */
const frag = (id, cost, k, extra = {}) => ({ id, cost_tokens: cost, entities: GAZE10.entities.slice(0, k), ...extra });
const plan = (candidates, tokens_max, options = {}, gaze = GAZE10) =>
  selectFragments(candidates, gaze, { tokens_max }, { now: NOW, ...options });
const ids = (result) => result.fragments.map((f) => f.id);
const withoutTiming = (metrics) => ({ ...metrics, planner_ms: 0 });

/** Uniform in [0, 1) from `seed` (mulberry32, rng.mjs). */
const prng = (seed) => rng(seed).next;

// Ranked A, B, C, X, D, E (scores 0.406, 0.393, 0.366, 0.331, 0.269, 0.100).
const WALK = [frag('E', 100, 1), frag('D', 300, 5), frag('X', 420, 7), frag('C', 450, 8), frag('B', 500, 9), frag('A', 600, 10)];

test("'ranked' walks the ranking, skips what does not fit and never stops", () => {
  const r = plan(WALK, 1000);
  assert.deepEqual(ids(r), ['A', 'D', 'E']);
  assert.equal(r.metrics.tokens_selected, 1000);
  const byId = Object.fromEntries(r.decisions.map((d) => [d.id, d]));
  assert.deepEqual(
    ['A', 'B', 'C', 'X', 'D', 'E'].map((id) => [byId[id].rank, byId[id].included, byId[id].reason]),
    [
      [0, true, 'scored'],
      [1, false, 'budget_exceeded'],
      [2, false, 'budget_exceeded'],
      [3, false, 'budget_exceeded'],
      [4, true, 'scored'],
      [5, true, 'scored'],
    ],
  );
  assert.deepEqual(r.warnings, []);
});

test("'packer' stops after maxConsecutiveSkips misses (default 3)", () => {
  const r = plan(WALK, 1000, { slicer: 'packer' });
  assert.deepEqual(ids(r), ['A']);
  const byId = Object.fromEntries(r.decisions.map((d) => [d.id, d.reason]));
  assert.equal(byId.X, 'budget_exceeded');
  assert.equal(byId.D, 'skip_limit_reached');
  assert.equal(byId.E, 'skip_limit_reached');
  assert.deepEqual(ids(plan(WALK, 1000, { slicer: 'packer', maxConsecutiveSkips: 4 })), ['A', 'D', 'E']);
  assert.deepEqual(ids(plan(WALK, 1000, { slicer: 'packer', maxConsecutiveSkips: 0 })), ['A', 'D', 'E']);
});

/** The seed's scoring, sorting and greedy selection, transcribed (Date.now() → NOW). */
function seedSelect(candidates, gaze, budgets) {
  const overlap = (fe, ge) => (ge.length > 0 ? fe.filter((e) => ge.includes(e)).length / ge.length : 0);
  const recency = (ts) => Math.exp(-((NOW - ts.getTime()) / (1000 * 60 * 60)) / (24 * 7));
  const benefit = (f) => 0.6 * overlap(f.entities, gaze.entities) + 0.3 * recency(f.timestamp) + 0.1 * (f.citations.length > 0 ? 1.0 : 0.5);
  const ranked = candidates
    .map((fragment) => ({ fragment, score: benefit(fragment) / (1 + fragment.cost_tokens / 1000) }))
    .sort((a, b) => b.score - a.score)
    .sort((a, b) => {
      if (Math.abs(a.score - b.score) > 0.001) return b.score - a.score;
      const fa = a.fragment.timestamp.getTime();
      const fb = b.fragment.timestamp.getTime();
      if (fa !== fb) return fb - fa;
      if (a.fragment.citations.length !== b.fragment.citations.length) return b.fragment.citations.length - a.fragment.citations.length;
      if (a.fragment.cost_tokens !== b.fragment.cost_tokens) return a.fragment.cost_tokens - b.fragment.cost_tokens;
      return a.fragment.id < b.fragment.id ? -1 : a.fragment.id > b.fragment.id ? 1 : 0; // seed: localeCompare
    });
  const selected = [];
  let total = 0;
  for (const c of ranked) {
    if (total + c.fragment.cost_tokens <= budgets.tokens_max) {
      selected.push(c.fragment);
      total += c.fragment.cost_tokens;
    }
  }
  return { ids: selected.map((f) => f.id), scores: ranked.map((c) => c.score), total };
}

test("'ranked' equals the seed's selectFragments on random inputs where the seed is well defined", () => {
  const rand = prng(7);
  let compared = 0;
  for (let round = 0; round < 400; round++) {
    const gaze = { entities: ['a', 'b', 'c', 'd', 'e', 'f'].filter(() => rand() < 0.7) };
    const n = Math.floor(rand() * 30);
    const candidates = Array.from({ length: n }, (_, i) => ({
      id: `frag-${String(i).padStart(3, '0')}`,
      cost_tokens: Math.floor(rand() * 8) * 100,
      entities: ['a', 'b', 'c', 'd', 'e', 'g'].filter(() => rand() < 0.4),
      timestamp: new Date(NOW - Math.floor(rand() * 6) * 24 * HOUR),
      citations: Array.from({ length: Math.floor(rand() * 3) }, () => 'src'),
    }));
    const budgets = { tokens_max: 1 + Math.floor(rand() * 2500) };
    const seed = seedSelect(candidates, gaze, budgets);
    // Skip instances where the seed's comparator is inconsistent (scores 0 < |Δ| ≤ 0.001 apart).
    const s = [...seed.scores].sort((x, y) => x - y);
    if (s.some((v, i) => i > 0 && v !== s[i - 1] && v - s[i - 1] <= 0.001)) continue;
    compared++;
    const r = selectFragments(candidates, gaze, budgets, { now: NOW });
    assert.deepEqual(ids(r), seed.ids, `round ${round}`);
    assert.equal(r.metrics.total_cost_tokens, seed.total);
  }
  assert.ok(compared > 100, `only ${compared} instances compared`);
});

test("'greedy' selects by score per token", () => {
  // Ranked A (0.342), B (0.292), C (0.242); densities B > C > A.
  const candidates = [frag('A', 900, 10), frag('B', 200, 5), frag('C', 200, 4)];
  assert.deepEqual(ids(plan(candidates, 1000)), ['A']);
  assert.deepEqual(ids(plan(candidates, 1000, { slicer: 'greedy' })), ['B', 'C']);
});

test("'knapsack' finds the better combination that the greedy walk misses", () => {
  // X is the densest and best ranked, but Y + Z is worth more and fits exactly.
  const candidates = [frag('X', 510, 10, { citations: [1] }), frag('Y', 500, 9, { citations: [1] }), frag('Z', 500, 9, { citations: [1] })];
  const [x, y] = candidates.map((c) => calculateScore(c, GAZE10, { now: NOW }));
  assert.ok(x / 510 > y / 500 && 2 * y > x); // preconditions of the example
  assert.deepEqual(ids(plan(candidates, 1000)), ['X']);
  assert.deepEqual(ids(plan(candidates, 1000, { slicer: 'greedy' })), ['X']);
  const r = plan(candidates, 1000, { slicer: 'knapsack' });
  assert.deepEqual(ids(r), ['Y', 'Z']);
  assert.equal(r.decisions[0].reason, 'not_in_optimal_set');
  assert.deepEqual(ids(plan(candidates, 1000, { slicer: 'knapsack', bucketSize: 10 })), ['Y', 'Z']);
});

test("'count-knapsack' commits required kinds first; kind = kind, else lod, else 'default'", () => {
  const candidates = [
    frag('summary', 500, 1, { lod: 'macro' }),
    frag('doc1', 500, 10, { lod: 'micro' }),
    frag('doc2', 500, 9, { lod: 'micro' }),
    frag('tagged', 500, 0, { lod: 'macro', kind: 'note' }),
  ];
  assert.deepEqual(ids(plan(candidates, 1000, { slicer: 'knapsack' })), ['doc1', 'doc2']);
  const r = plan(candidates, 1000, { slicer: 'count-knapsack', countEntries: [{ kind: 'macro', requireCount: 1, capCount: 1 }] });
  assert.deepEqual(ids(r), ['doc1', 'summary']);
  assert.equal(r.decisions[0].reason, 'required');
  assert.equal(r.decisions[0].included, true);
  // 'tagged' has lod 'macro' but kind 'note': it does not count as a macro.
  const notes = plan(candidates, 1000, { slicer: 'count-knapsack', countEntries: [{ kind: 'note', requireCount: 1, capCount: 1 }] });
  assert.deepEqual(ids(notes), ['doc1', 'tagged']);
  const plain = [frag('p', 100, 0), frag('q', 100, 10, { kind: 'k' })];
  const d = plan(plain, 1000, { slicer: 'count-knapsack', countEntries: [{ kind: 'default', requireCount: 0, capCount: 0 }] });
  assert.deepEqual(ids(d), ['q']);
});

test("'count-knapsack' reports shortfalls as warnings, or throws with scarcity 'throw'", () => {
  const candidates = [frag('s', 100, 1, { lod: 'macro' }), frag('d', 100, 10)];
  const countEntries = [{ kind: 'macro', requireCount: 2, capCount: 2 }];
  const r = plan(candidates, 1000, { slicer: 'count-knapsack', countEntries });
  assert.deepEqual(ids(r), ['d', 's']);
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /options\.countEntries\[0\] not met: required 2, satisfied 1/);
  assert.throws(
    () => plan(candidates, 1000, { slicer: 'count-knapsack', countEntries, scarcity: 'throw' }),
    (err) => err instanceof CtxpackError && err.code === 'COUNT_REQUIREMENT_SHORTFALL',
  );
});

test('errors of the core surface as CtxpackError', () => {
  const candidates = [frag('a', 100, 1), frag('b', 100, 2)];
  assert.throws(
    () => plan(candidates, 1000, { slicer: 'count-knapsack', countEntries: [{ kind: 'a', requireCount: 2, capCount: 1 }] }),
    (err) => err instanceof CtxpackError && err.code === 'INVALID_COUNT_ENTRY',
  );
  // The core's entries are named by the option the caller wrote, in its JS names.
  assert.throws(
    () => plan(candidates, 1000, { slicer: 'count-knapsack', countEntries: [{ kind: 'a', requireCount: 0, capCount: 1 }, { kind: 'b', requireCount: 2, capCount: 1 }] }),
    { code: 'INVALID_COUNT_ENTRY', field: 'countEntries', index: 1, message: 'options.countEntries[1]: requireCount 2 must not exceed capCount 1' },
  );
  assert.throws(
    () => plan(candidates, 1000, { slicer: 'count-knapsack', lodMix: { full: { max: 2 }, FULL: { min: 1 } } }),
    { code: 'INVALID_COUNT_ENTRY', field: 'lodMix', index: 1, message: 'options.lodMix[1]: the kind is already constrained by options.lodMix[0] (kinds compare case-insensitively)' },
  );
  assert.throws(
    () => plan(candidates, 10_000_000, { slicer: 'knapsack', bucketSize: 1, maxTableBytes: 1024 }),
    (err) => err instanceof CtxpackError && err.code === 'TABLE_TOO_LARGE',
  );
});

// Count entries are checked in one place, the core, whichever front door reads them: every problem
// with them, their shape included, is INVALID_COUNT_ENTRY named under the option the caller wrote.
test('count entries of the wrong shape: INVALID_COUNT_ENTRY from selectFragments and from the slicers alike', async () => {
  const { countConstrainedKnapsackSlice } = await import('ctxpack/slicers');
  const candidates = [frag('a', 100, 1), frag('b', 100, 2)];
  const cases = [
    [{ kind: 'a' }, undefined, ' must be an array of { kind, requireCount, capCount }, got an object'],
    [[{ kind: 5, requireCount: 1, capCount: 2 }], 0, '[0].kind must be a string, got 5'],
    [[{ kind: 'a', requireCount: 0, capCount: 1 }, 7], 1, '[1] must be an object { kind, requireCount, capCount }, got 7'],
    [[{ kind: 'a', requireCount: 1, capCount: -2 }], 0, '[0].capCount must be an integer from 0 to 2^53 - 1, got -2'],
    [[{ kind: 'a', requireCount: 1 }], 0, '[0].capCount is required'],
    // A misspelt field is refused, not ignored (the count it meant would silently be missing).
    [[{ kind: 'a', requireCount: 1, capCount: 2, requiredCount: 3 }], 0, '[0].requiredCount is not a field of a count entry (known: kind, requireCount, capCount)'],
  ];
  for (const [entries, index, tail] of cases) {
    const expected = (field) => ({ code: 'INVALID_COUNT_ENTRY', field, index, message: `options.${field}${tail}` });
    const caught = (run) => {
      try {
        run();
      } catch (err) {
        assert.ok(err instanceof CtxpackError);
        return { code: err.code, field: err.field, index: err.index, message: err.message };
      }
      assert.fail('no error');
    };
    assert.deepEqual(caught(() => plan(candidates, 1000, { slicer: 'count-knapsack', countEntries: entries })), expected('countEntries'));
    // Checked even when the strategy ignores them, as the planner's other core options are.
    assert.deepEqual(caught(() => plan(candidates, 1000, { slicer: 'greedy', countEntries: entries })), expected('countEntries'));
    assert.deepEqual(caught(() => countConstrainedKnapsackSlice([{ id: 'a', tokens: 1, score: 1, kind: 'a' }], { targetTokens: 10 }, { entries })), expected('entries'));
  }
});

test('options the chosen slicer does not use are reported, not silently dropped', () => {
  const r = plan([frag('a', 1, 1)], 10, { bucketSize: 50, maxConsecutiveSkips: 2, countEntries: [] });
  assert.deepEqual(r.warnings, [
    "options.maxConsecutiveSkips is ignored by slicer 'ranked'",
    "options.bucketSize is ignored by slicer 'ranked'",
    "options.countEntries is ignored by slicer 'ranked'",
  ]);
  assert.deepEqual(plan([frag('a', 1, 1)], 10, { slicer: 'knapsack', bucketSize: 50 }).warnings, []);
});

test('empty candidates → empty plan with zeroed metrics', () => {
  const r = plan([], 1000);
  assert.deepEqual(r.fragments, []);
  assert.deepEqual(r.decisions, []);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(r.kvPolicy, { pin: [], compress: [], evict: [] });
  const { request_id, planner_ms, ...rest } = r.metrics;
  assert.match(request_id, /^acs-[0-9a-f]{16}$/);
  assert.ok(planner_ms >= 0);
  assert.deepEqual(rest, {
    candidate_count: 0,
    tokens_selected: 0,
    coverage_entities: 0,
    diversity_score: 0,
    top3_fragment_ids: [],
    top3_scores: [],
    kv_cache_stats: { hits: 0, misses: 0, evictions: 0 },
    total_cost_tokens: 0,
    mean_benefit: 0,
    cache_hit_rate: 0,
    fragments_counted: 0,
    effective_budget: 1000,
    budget_used: 0,
    prompt_tokens: 0,
    lod_mix: {},
    exact_solver: null,
  });
});

test("tokens_max 0 → empty plan, every decision 'no_budget' (even zero-cost fragments)", () => {
  const r = plan([frag('a', 0, 3), frag('b', 10, 5)], 0, { allow_overshoot: true });
  assert.deepEqual(r.fragments, []);
  assert.deepEqual(
    r.decisions.map((d) => [d.id, d.included, d.reason, d.rank]),
    [
      ['a', false, 'no_budget', 1],
      ['b', false, 'no_budget', 0],
    ],
  );
  assert.equal(r.metrics.candidate_count, 2);
  assert.equal(r.metrics.tokens_selected, 0);
  assert.deepEqual(r.warnings, []);
});

test('every candidate over budget: allow_overshoot admits the best one if its benefit > 0.9', () => {
  const best = frag('best', 300, 10, { timestamp: NOW, citations: [1], content: 'PRIVATE TEXT' });
  const other = frag('other', 200, 9, { timestamp: NOW, citations: [1] });
  assert.ok(calculateBenefit(best, GAZE10, { now: NOW }) > 0.9);
  const r = plan([other, best], 100, { allow_overshoot: true });
  assert.deepEqual(ids(r), ['best']);
  assert.equal(r.fragments[0], best);
  assert.deepEqual(
    r.decisions.map((d) => [d.id, d.included, d.reason]),
    [
      ['other', false, 'budget_exceeded'],
      ['best', true, 'overshoot'],
    ],
  );
  assert.equal(r.metrics.tokens_selected, 300);
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /overshoot.*candidates\[1\].*cost_tokens 300/);
  assert.ok(!r.warnings[0].includes('PRIVATE') && !r.warnings[0].includes('best'));
});

test('every candidate over budget: otherwise an empty plan with a warning', () => {
  const low = [frag('a', 300, 10), frag('b', 200, 3)]; // no timestamp: benefit 0.65 at most
  const r1 = plan(low, 100, { allow_overshoot: true });
  assert.deepEqual(r1.fragments, []);
  assert.match(r1.warnings[0], /every candidate exceeds the effective budget 100.*does not exceed 0.9/);
  const strong = [frag('a', 300, 10, { timestamp: NOW, citations: [1] })];
  const r2 = plan(strong, 100);
  assert.deepEqual(r2.fragments, []);
  assert.match(r2.warnings[0], /allow_overshoot is not set/);
  // One candidate fits: the overshoot policy does not apply.
  const r3 = plan([...strong, frag('small', 50, 0)], 100, { allow_overshoot: true });
  assert.deepEqual(ids(r3), ['small']);
  assert.deepEqual(r3.warnings, []);
});

test('decisions: one per candidate in input order, with the ACS score and benefit', () => {
  const candidates = [frag('a', 100, 2, { timestamp: NOW - 5 * HOUR }), frag('b', 300, 8, { citations: [1] }), frag('c', 5000, 10)];
  const r = plan(candidates, 1000);
  assert.deepEqual(
    r.decisions.map((d) => [d.id, d.index]),
    [
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ],
  );
  for (const d of r.decisions) {
    const c = candidates[d.index];
    assert.equal(d.score, calculateScore(c, GAZE10, { now: NOW }));
    assert.equal(d.benefit, calculateBenefit(c, GAZE10, { now: NOW }));
  }
  assert.deepEqual(
    r.decisions.map((d) => d.rank),
    [1, 0, 2],
  );
});

test("a fragment's own score and benefit fields are ignored", () => {
  const candidates = [frag('a', 100, 1, { score: 1000, benefit: 1 }), frag('b', 100, 9, { score: -1, benefit: 0 })];
  const r = plan(candidates, 100);
  assert.deepEqual(ids(r), ['b']);
});

test('returns the caller objects, in rank order, and mutates nothing', () => {
  const candidates = [frag('a', 100, 2, { timestamp: new Date(NOW), extra: { deep: [1] } }), frag('b', 100, 8), frag('c', 100, 5)];
  const gaze = structuredClone(GAZE10);
  const previousCache = [{ id: 'a', lastAccessTime: NOW - HOUR, sizeTokens: 10 }];
  const snapshot = structuredClone([candidates, gaze, previousCache]);
  const r = selectFragments(candidates, gaze, { tokens_max: 1000 }, { now: NOW, previousCache });
  assert.deepEqual(ids(r), ['b', 'a', 'c']);
  assert.equal(r.fragments[0], candidates[1]);
  assert.equal(r.fragments[1], candidates[0]);
  assert.deepEqual([candidates, gaze, previousCache], snapshot);
});

test('deterministic: same inputs give the same result; input order changes only decision order', () => {
  const rand = prng(99);
  const candidates = Array.from({ length: 40 }, (_, i) =>
    frag(`f${i}`, 50 * Math.floor(rand() * 10), Math.floor(rand() * 10), {
      timestamp: NOW - Math.floor(rand() * 3) * HOUR,
      source: `s${Math.floor(rand() * 4)}`,
      citations: rand() < 0.5 ? [] : [1],
    }),
  );
  const a = plan(candidates, 1500);
  const b = plan(candidates, 1500);
  assert.deepEqual({ ...a, metrics: withoutTiming(a.metrics) }, { ...b, metrics: withoutTiming(b.metrics) });
  const shuffled = [...candidates].reverse();
  const c = plan(shuffled, 1500);
  assert.deepEqual(ids(c), ids(a));
  assert.deepEqual(c.kvPolicy, a.kvPolicy);
  const sortById = (ds) => [...ds].sort((x, y) => (x.id < y.id ? -1 : 1)).map(({ index, ...rest }) => rest);
  assert.deepEqual(sortById(c.decisions), sortById(a.decisions));
  assert.deepEqual({ ...withoutTiming(c.metrics), request_id: '' }, { ...withoutTiming(a.metrics), request_id: '' });
});

test('metrics describe the selection', () => {
  const candidates = [
    frag('a', 100, 0, { entities: ['e0', 'e1'], source: 's1' }),
    frag('b', 200, 0, { entities: ['e1', 'e2', 'zz'], source: 's1' }),
    frag('c', 300, 0, { entities: ['e9'] }),
    frag('d', 5000, 10),
  ];
  const gaze = { entities: ['e0', 'e1', 'e2', 'e3'] };
  const r = selectFragments(candidates, gaze, { tokens_max: 1000 }, { now: NOW });
  assert.deepEqual(ids(r), ['a', 'b', 'c']);
  const m = r.metrics;
  assert.equal(m.candidate_count, 4);
  assert.equal(m.tokens_selected, 600);
  assert.equal(m.total_cost_tokens, 600);
  assert.equal(m.coverage_entities, 0.75);
  assert.equal(m.diversity_score, 2 / 3);
  assert.deepEqual(m.top3_fragment_ids, ['a', 'b', 'c']);
  assert.deepEqual(
    m.top3_scores,
    r.fragments.map((f) => calculateScore(f, gaze, { now: NOW })),
  );
  const benefits = r.fragments.map((f) => calculateBenefit(f, gaze, { now: NOW }));
  assert.equal(m.mean_benefit, (benefits[0] + benefits[1] + benefits[2]) / 3);
  assert.deepEqual(m.kv_cache_stats, { hits: 0, misses: 3, evictions: 0 });
  assert.equal(m.cache_hit_rate, 0);
});

test('request_id: deterministic by default, or options.requestId', () => {
  const candidates = [frag('a', 100, 1)];
  const r1 = plan(candidates, 100);
  assert.match(r1.metrics.request_id, /^acs-[0-9a-f]{16}$/);
  assert.equal(plan(candidates, 100).metrics.request_id, r1.metrics.request_id);
  assert.notEqual(plan(candidates, 100, { now: NOW + 1 }).metrics.request_id, r1.metrics.request_id);
  assert.notEqual(plan(candidates, 99).metrics.request_id, r1.metrics.request_id);
  assert.equal(plan(candidates, 100, { requestId: 'req-7' }).metrics.request_id, 'req-7');
});

/** MurmurHash3 x86_32 of `bytes` (the reference algorithm, byte by byte), unsigned. */
function murmur3(bytes, seed) {
  let h = seed >>> 0;
  const rounds = bytes.length >> 2;
  const mix = (k) => Math.imul(((Math.imul(k, 0xcc9e2d51) << 15) | (Math.imul(k, 0xcc9e2d51) >>> 17)), 0x1b873593);
  for (let i = 0; i < rounds; i++) {
    const k = bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) | (bytes[4 * i + 3] << 24);
    h ^= mix(k);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let tail = 0;
  for (let i = bytes.length & 3; i > 0; i--) tail |= bytes[4 * rounds + i - 1] << (8 * (i - 1));
  if ((bytes.length & 3) > 0) h ^= mix(tail);
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** FNV-1a 32 over UTF-16 code units, unsigned. */
function fnv32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The documented default request id, computed independently of the package. */
function expectedRequestId(now, tokensMax, candidateIds, selectedIds) {
  const view = new DataView(new ArrayBuffer(8));
  const words = [];
  for (const x of [now, tokensMax]) {
    view.setFloat64(0, x, true);
    words.push(view.getUint32(0, true), view.getUint32(4, true));
  }
  words.push(...candidateIds.map(fnv32), ...selectedIds.map(fnv32), candidateIds.length, selectedIds.length);
  const bytes = new Uint8Array(4 * words.length);
  const out = new DataView(bytes.buffer);
  words.forEach((w, i) => out.setUint32(4 * i, w, true)); // each word's bytes, little-endian
  const hex = (x) => x.toString(16).padStart(8, '0');
  return `acs-${hex(murmur3(bytes, 0))}${hex(murmur3(bytes, 0x9747b28c))}`;
}

test('murmur3 reference vectors (the request id test checks against it)', () => {
  assert.equal(murmur3(new Uint8Array(0), 0), 0);
  assert.equal(murmur3(new Uint8Array(0), 1), 0x514e28b7);
  assert.equal(murmur3(new Uint8Array(4), 0), 0x2362f9de);
  assert.equal(murmur3(new TextEncoder().encode('Hello, world!'), 1234), 0xfaf6cdb3);
  assert.equal(murmur3(new TextEncoder().encode('The quick brown fox jumps over the lazy dog'), 0x9747b28c), 0x2fa826cd);
});

test('request_id: the documented hash, for any ids (non-ASCII, surrogate pairs, lone surrogates)', () => {
  // Validation computes each id's FNV-1a 32 once, for its id index and for the request id: the id
  // must be the documented one, and lookups by id (dependencies, duplicates) must find what that
  // pass indexed. With options.order the selected ids are still hashed in rank order.
  const pieces = ['a', 'é', '中', '\u{1F600}', '\uD800', '\uDC00', '-', '0', '\u0000'];
  const r = rng(12);
  for (let round = 0; round < 60; round++) {
    const n = r.int(1, 40);
    const idSet = new Set();
    while (idSet.size < n) idSet.add(Array.from({ length: r.int(1, 6) }, () => r.pick(pieces)).join(''));
    const idList = [...idSet];
    const candidates = idList.map((id, i) => ({ id, cost_tokens: r.int(1, 50), ...(i > 0 && r.chance(0.3) ? { dependencies: [idList[i - 1]] } : {}) }));
    const tokensMax = r.int(0, 400);
    const result = plan(candidates, tokensMax, { dependencies: 'require' });
    const selected = result.fragments.map((f) => f.id);
    assert.equal(result.metrics.request_id, expectedRequestId(NOW, tokensMax, idList, selected));
    const placed = plan(candidates, tokensMax, { dependencies: 'require', order: 'input' });
    assert.deepEqual(placed.fragments.map((f) => f.id), idList.filter((id) => selected.includes(id)));
    assert.equal(placed.metrics.request_id, result.metrics.request_id, 'the placement does not change the id');
    for (const f of result.fragments) for (const dep of f.dependencies ?? []) assert.ok(selected.includes(dep), `round ${round}: ${dep} is required`);
    const dup = r.int(0, n - 1);
    assert.throws(() => plan([...candidates, { id: idList[dup], cost_tokens: 1 }], tokensMax), (e) => e.code === 'DUPLICATE_ID' && e.otherIndex === dup);
  }
});

test('kvPolicy and cache statistics use the computed benefit and the previous cache', () => {
  const candidates = [
    frag('macro', 100, 10, { lod: 'macro' }),
    frag('big', 800, 10), // benefit 0.65 → not compressed (> 0.6)
    frag('mid', 700, 5), // benefit 0.35 → compressed
    frag('needs', 50, 2, { dependencies: ['mid', 'outside'] }),
    frag('stale', 10, 0, { citations: [] }), // benefit 0.05, last access from the previous cache
  ];
  const previousCache = [
    { id: 'stale', lastAccessTime: NOW - 48 * HOUR, sizeTokens: 10 },
    { id: 'macro', lastAccessTime: NOW - HOUR, sizeTokens: 100 },
    { id: 'gone', lastAccessTime: NOW - 100 * HOUR, sizeTokens: 100 },
  ];
  // Full keys: 3 pins + big + needs = 5 > 4 → soft backoff compresses the lower-benefit new key 'needs'.
  // Resident: previous {stale, macro, gone} + selected − evicted 'stale' = 5 > 4 → capacity-evict 'gone'.
  const r = plan(candidates, 10_000, { previousCache, maxKvSize: 4 });
  assert.deepEqual(r.kvPolicy, { pin: ['macro', 'mid', 'outside'], compress: ['needs'], evict: ['stale', 'gone'] });
  assert.deepEqual(r.metrics.kv_cache_stats, { hits: 2, misses: 3, evictions: 2 });
  assert.equal(r.metrics.cache_hit_rate, 0.4);
});

test('logger receives one record without text; hashIds hashes the ids', () => {
  const records = [];
  const candidates = [frag('alpha', 100, 9, { content: 'SECRET BODY' }), frag('beta', 100, 5, { content: 'SECRET BODY' })];
  const r = plan(candidates, 1000, { logger: (rec) => records.push(rec) });
  assert.equal(records.length, 1);
  const rec = records[0];
  assert.deepEqual(Object.keys(rec).sort(), [
    'k_selected',
    'phase_ms',
    'planner_ms',
    'request_id',
    'top3_ids',
    'top3_scores',
    'total_cost_tokens',
  ]);
  assert.equal(rec.request_id, r.metrics.request_id);
  assert.equal(rec.k_selected, 2);
  assert.equal(rec.total_cost_tokens, 200);
  assert.deepEqual(rec.top3_ids, ['alpha', 'beta']);
  assert.deepEqual(rec.top3_scores, r.metrics.top3_scores);
  assert.equal(rec.planner_ms, r.metrics.planner_ms);
  for (const v of Object.values(rec.phase_ms)) assert.ok(v >= 0);
  assert.ok(!JSON.stringify(rec).includes('SECRET'));

  const hashed = [];
  plan(candidates, 1000, { logger: (x) => hashed.push(x), hashIds: true });
  assert.deepEqual(hashed[0].top3_ids, [fnv1a64('alpha'), fnv1a64('beta')]);
  assert.ok(!JSON.stringify(hashed[0]).includes('alpha'));
});

test('an exception thrown by the logger propagates', () => {
  assert.throws(
    () =>
      plan([frag('a', 1, 1)], 10, {
        logger: () => {
          throw new Error('sink down');
        },
      }),
    /sink down/,
  );
});

test('diversityWindow reaches the ranking', () => {
  // Equal scores; 'a1' and 'a2' share a source.
  const candidates = [frag('a1', 100, 5, { source: 'S' }), frag('a2', 100, 5, { source: 'S' }), frag('b1', 100, 5, { source: 'T' })];
  assert.deepEqual(ids(plan(candidates, 1000)), ['a1', 'b1', 'a2']);
  assert.deepEqual(ids(plan(candidates, 1000, { diversityWindow: 0 })), ['a1', 'a2', 'b1']);
});

// ---- validation ----

const ok = () => [frag('a', 10, 1), frag('b', 20, 2)];
const expectError = (fn, code, field, index, message) =>
  assert.throws(fn, (err) => {
    assert.ok(err instanceof CtxpackError, String(err));
    assert.equal(err.name, 'CtxpackError');
    assert.deepEqual([err.code, err.field, err.index], [code, field, index], err.message);
    if (message) assert.match(err.message, message);
    return true;
  });

test('validation: candidates', () => {
  const at = (i, patch) => {
    const list = [frag('a', 10, 1), frag('b', 20, 2), frag('c', 30, 3), frag('d', 40, 4)];
    list[i] = typeof patch === 'function' ? patch(list[i]) : patch;
    return list;
  };
  const bad = (i, patch) => () => plan(at(i, patch), 100);
  expectError(() => plan('a', 100), 'INVALID_INPUT', 'candidates', undefined);
  expectError(() => plan(undefined, 100), 'INVALID_INPUT', 'candidates', undefined);
  expectError(bad(1, null), 'INVALID_FIELD', 'candidates', 1, /^candidates\[1\] must be an object/);
  expectError(bad(1, [1]), 'INVALID_FIELD', 'candidates', 1);
  expectError(bad(2, { cost_tokens: 1 }), 'INVALID_FIELD', 'id', 2);
  expectError(bad(2, { id: '', cost_tokens: 1 }), 'INVALID_FIELD', 'id', 2);
  expectError(bad(2, { id: 7, cost_tokens: 1 }), 'INVALID_FIELD', 'id', 2);
  expectError(bad(3, { id: 'x' }), 'INVALID_FIELD', 'cost_tokens', 3);
  expectError(
    bad(3, { id: 'x', cost_tokens: -5 }),
    'INVALID_FIELD',
    'cost_tokens',
    3,
    /^candidates\[3\]\.cost_tokens must be a non-negative integer.*, got -5$/,
  );
  for (const cost of ['5', 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32, null]) {
    expectError(bad(3, { id: 'x', cost_tokens: cost }), 'INVALID_FIELD', 'cost_tokens', 3);
  }
  assert.equal(plan(at(3, { id: 'x', cost_tokens: 2 ** 32 - 1 }), 100).decisions.length, 4);
  expectError(
    bad(1, (f) => ({ ...f, timestamp: 'last week' })),
    'INVALID_FIELD',
    'timestamp',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, timestamp: new Date(Number.NaN) })),
    'INVALID_FIELD',
    'timestamp',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, citations: 'x' })),
    'INVALID_FIELD',
    'citations',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, lod: 1 })),
    'INVALID_FIELD',
    'lod',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, entities: ['a', 2] })),
    'INVALID_FIELD',
    'entities',
    1,
    /^candidates\[1\]\.entities\[1\] must be a string/,
  );
  expectError(
    bad(1, (f) => ({ ...f, entities: null })),
    'INVALID_FIELD',
    'entities',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, source: {} })),
    'INVALID_FIELD',
    'source',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, kind: 1 })),
    'INVALID_FIELD',
    'kind',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, lastAccessTime: Number.NaN })),
    'INVALID_FIELD',
    'lastAccessTime',
    1,
  );
  expectError(
    bad(1, (f) => ({ ...f, dependencies: 'a' })),
    'INVALID_FIELD',
    'dependencies',
    1,
  );
});

test('validation: duplicate ids name both indexes', () => {
  expectError(
    () => plan([frag('a', 1, 1), frag('b', 1, 1), frag('a', 1, 1)], 100),
    'DUPLICATE_ID',
    'id',
    2,
    /candidates\[2\]\.id duplicates candidates\[0\]\.id/,
  );
  assert.throws(
    () => plan([frag('a', 1, 1), frag('b', 1, 1), frag('a', 1, 1)], 100),
    (err) => err.otherIndex === 0,
  );
});

test('validation: gaze and budgets', () => {
  expectError(() => selectFragments(ok(), null, { tokens_max: 1 }), 'INVALID_FIELD', 'gaze', undefined);
  expectError(() => selectFragments(ok(), {}, { tokens_max: 1 }), 'INVALID_FIELD', 'gaze.entities', undefined);
  expectError(() => selectFragments(ok(), { entities: ['a', 2] }, { tokens_max: 1 }), 'INVALID_FIELD', 'gaze.entities', 1);
  expectError(() => selectFragments(ok(), GAZE10), 'INVALID_BUDGET', 'budgets', undefined);
  expectError(() => selectFragments(ok(), GAZE10, 100), 'INVALID_BUDGET', 'budgets', undefined);
  for (const tokens_max of [-1, 1.5, '10', Number.NaN, 2 ** 53, undefined]) {
    expectError(() => selectFragments(ok(), GAZE10, { tokens_max }), 'INVALID_BUDGET', 'budgets.tokens_max', undefined);
  }
});

test('validation: options name the option', () => {
  const bad = (options, code, field, index) =>
    expectError(() => selectFragments(ok(), GAZE10, { tokens_max: 100 }, options), code, field, index);
  bad('fast', 'INVALID_OPTION', 'options');
  bad([], 'INVALID_OPTION', 'options');
  bad({ bogus: 1 }, 'INVALID_OPTION', 'bogus');
  bad({ slicer: 'fast' }, 'INVALID_OPTION', 'slicer');
  bad({ now: '2025-01-01' }, 'INVALID_OPTION', 'now');
  bad({ weights: { beta: Number.NaN } }, 'INVALID_OPTION', 'weights.beta');
  bad({ maxConsecutiveSkips: -1 }, 'INVALID_OPTION', 'maxConsecutiveSkips');
  bad({ bucketSize: 0 }, 'INVALID_BUCKET_SIZE', 'bucketSize');
  bad({ bucketSize: '100' }, 'INVALID_BUCKET_SIZE', 'bucketSize');
  bad({ maxTableBytes: 0 }, 'INVALID_OPTION', 'maxTableBytes');
  bad({ countEntries: 'macro' }, 'INVALID_COUNT_ENTRY', 'countEntries');
  bad(
    {
      countEntries: [
        { kind: 'a', requireCount: 0, capCount: 1 },
        { kind: 1, requireCount: 0, capCount: 1 },
      ],
    },
    'INVALID_COUNT_ENTRY',
    'countEntries',
    1,
  );
  bad({ scarcity: 'panic' }, 'INVALID_OPTION', 'scarcity');
  bad({ allow_overshoot: 'yes' }, 'INVALID_OPTION', 'allow_overshoot');
  bad({ diversityWindow: 0.5 }, 'INVALID_OPTION', 'diversityWindow');
  bad({ maxKvSize: -1 }, 'INVALID_OPTION', 'maxKvSize');
  bad({ previousCache: 'x' }, 'INVALID_OPTION', 'previousCache');
  bad({ previousCache: [{ id: 'a', lastAccessTime: 'then', sizeTokens: 1 }] }, 'INVALID_OPTION', 'previousCache.lastAccessTime', 0);
  bad(
    {
      previousCache: [
        { id: 'a', lastAccessTime: 0, sizeTokens: 1 },
        { id: 'a', lastAccessTime: 0, sizeTokens: 1 },
      ],
    },
    'DUPLICATE_ID',
    'previousCache',
    1,
  );
  bad({ requestId: 5 }, 'INVALID_OPTION', 'requestId');
  bad({ logger: 'console' }, 'INVALID_OPTION', 'logger');
  bad({ hashIds: 1 }, 'INVALID_OPTION', 'hashIds');
});

test('validation reports the first problem: candidates, then gaze, budgets, options', () => {
  expectError(() => selectFragments([frag('a', -1, 1)], null, null, 'x'), 'INVALID_FIELD', 'cost_tokens', 0);
  expectError(() => selectFragments(ok(), null, null, 'x'), 'INVALID_FIELD', 'gaze', undefined);
  expectError(() => selectFragments(ok(), GAZE10, null, 'x'), 'INVALID_BUDGET', 'budgets', undefined);
});

test('error messages never contain fragment content', () => {
  const secret = 'CONFIDENTIAL PARAGRAPH';
  assert.throws(
    () =>
      plan(
        [
          { id: secret, cost_tokens: 1, content: secret },
          { id: secret, cost_tokens: 1, content: secret },
        ],
        10,
      ),
    (err) => err.code === 'DUPLICATE_ID' && !err.message.includes(secret),
  );
  assert.throws(
    () => plan([{ id: 'a', cost_tokens: secret, content: secret }], 10),
    (err) => err.code === 'INVALID_FIELD' && !err.message.includes(secret),
  );
});

test('a call after an error works normally', () => {
  assert.throws(() => plan([frag('a', -1, 1)], 10));
  assert.throws(() =>
    plan(ok(), 10, { slicer: 'count-knapsack', countEntries: [{ kind: 'x', requireCount: 1, capCount: 1 }], scarcity: 'throw' }),
  );
  const r = plan(ok(), 100);
  assert.deepEqual(ids(r), ['b', 'a']);
  assert.equal(r.metrics.tokens_selected, 30);
});
