// selectFragments with atomic groups (`group`) and required dependencies (`dependencies:
// 'require'`): properties on seeded random plans for every strategy (groups all in or all out,
// dependencies closed, the budget held, reasons consistent), oracles written here without the
// package's grouping code (the ACS walk, the packer and greedy over units; brute force for the
// knapsack strategies), and the named edge cases: refusals before counting, the packer's counting,
// the overshoot, and plans without groups unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, selectFragments } from 'ctxpack';
import { closure, edges } from './reach.mjs';
import { rng } from './rng.mjs';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const GAZE = { entities: ['auth', 'db', 'ui'] };
const STRATEGIES = ['ranked', 'greedy', 'knapsack', 'exact', 'packer', 'count-knapsack', 'exact-count'];
const COUNTED = new Set(['count-knapsack', 'exact-count']);
const INCLUDED = new Set(['scored', 'zero_tokens', 'required', 'overshoot']);
const scaled = (score) => Math.max(0, Math.floor(score * 10000));

/** A random planner instance: up to `maxN` fragments, some in groups, some with dependencies (sometimes on unknown ids or cycles). */
function instance(r, maxN, { groupP = 0.4, depP = 0.3 } = {}) {
  const n = r.int(1, maxN);
  const fragments = [];
  for (let i = 0; i < n; i++) {
    const f = {
      id: `f${i}`,
      cost_tokens: r.chance(0.08) ? 0 : r.int(1, 400),
      entities: GAZE.entities.filter(() => r.chance(0.4)),
      timestamp: NOW - r.int(0, 30) * 86_400_000,
      citations: Array.from({ length: r.int(0, 3) }, () => 'c'),
      kind: r.pick(['doc', 'msg', 'tool']),
    };
    if (r.chance(groupP)) f.group = `g${r.int(0, Math.max(1, n >> 1))}`;
    // A self-dependency is refused by the core: a draw of the fragment itself names an id outside the call.
    if (r.chance(depP)) f.dependencies = Array.from({ length: r.int(1, 2) }, () => (r.chance(0.1) ? 'elsewhere' : ((j) => (j === i ? 'elsewhere' : `f${j}`))(r.int(0, n - 1))));
    fragments.push(f);
  }
  const budgets = { tokens_max: r.int(0, 1200) };
  if (r.chance(0.3)) budgets.per_fragment_overhead = r.int(1, 20);
  return { fragments, budgets };
}

/** The reference's view of a plan: per fragment its charge, rank and score (from the decisions: ranking is not what is tested here). */
function view(fragments, budgets, plan, mode) {
  const overhead = budgets.per_fragment_overhead ?? 0;
  const out = edges(fragments, mode);
  const closures = fragments.map((_, i) => closure(out, i));
  return {
    n: fragments.length,
    charge: fragments.map((f) => f.cost_tokens + overhead),
    rank: plan.decisions.map((d) => d.rank),
    score: plan.decisions.map((d) => d.score),
    closures,
    // The unit of i: what i brings along and what brings i along.
    unit: closures.map((c, i) => [...c].filter((j) => closures[j].has(i)).sort((a, b) => a - b)),
    budget: plan.metrics.effective_budget,
  };
}

/**
 * The walks over units, written from the documentation: units in the walk's order, each taken with
 * what it still lacks when all of that fits, else a miss (the packer stops after `limit` misses in
 * a row; 0: never). 'ranked' and the packer walk the ranking; greedy orders units by the sum of their
 * scores (in rank order) per token, densest first, zero tokens first, ties by their best rank.
 */
function walk(v, slicer, limit) {
  const byRank = [...Array(v.n).keys()].sort((a, b) => v.rank[a] - v.rank[b]);
  const units = [];
  const seen = new Set();
  for (const i of byRank) {
    if (seen.has(i)) continue;
    const members = v.unit[i].slice().sort((a, b) => v.rank[a] - v.rank[b]);
    members.forEach((m) => seen.add(m));
    let tokens = 0;
    let score = v.score[members[0]];
    for (const m of members) tokens += v.charge[m];
    for (const m of members.slice(1)) score += v.score[m];
    units.push({ first: i, members, tokens, score });
  }
  if (slicer === 'greedy') {
    const density = (u) => (u.tokens === 0 ? Number.MAX_VALUE : u.score / u.tokens);
    units.sort((a, b) => density(b) - density(a) || v.rank[a.first] - v.rank[b.first]);
  }
  const selected = new Set();
  let left = v.budget;
  let misses = 0;
  for (const u of units) {
    if (selected.has(u.first)) continue;
    const lacking = [...v.closures[u.first]].filter((j) => !selected.has(j));
    const need = lacking.reduce((t, j) => t + v.charge[j], 0);
    if (need <= left) {
      left -= need;
      misses = 0;
      lacking.forEach((j) => selected.add(j));
    } else if (++misses === limit) {
      break;
    }
  }
  return selected;
}

/** The best value of any subset that keeps groups whole, dependencies closed and fits the budget (n ≤ 12). */
function bruteForce(v) {
  let best = 0;
  for (let mask = 0; mask < 1 << v.n; mask++) {
    let tokens = 0;
    let value = 0;
    let ok = true;
    for (let i = 0; i < v.n && ok; i++) {
      if ((mask & (1 << i)) === 0) continue;
      tokens += v.charge[i];
      value += scaled(v.score[i]);
      for (const j of v.closures[i]) if ((mask & (1 << j)) === 0) ok = false;
    }
    if (ok && tokens <= v.budget && value > best) best = value;
  }
  return best;
}

const ids = (plan) => new Set(plan.fragments.map((f) => f.id));
const valueOf = (plan) => plan.decisions.filter((d) => d.included).reduce((t, d) => t + scaled(d.score), 0);
const repaired = (plan) => plan.warnings.some((w) => /repaired in rounds/.test(w));

/** The documented invariants of any plan with groups and dependencies. */
function checkPlan(label, fragments, budgets, plan, mode, slicer) {
  const sel = ids(plan);
  const byId = new Map(fragments.map((f) => [f.id, f]));
  assert.equal(plan.decisions.length, fragments.length, label);
  for (const d of plan.decisions) {
    assert.equal(d.included, sel.has(d.id), `${label}: ${d.id}`);
    assert.equal(d.included, INCLUDED.has(d.reason), `${label}: ${d.id} ${d.reason}`);
    assert.equal(d.reason === 'group_excluded', d.group_reason !== undefined, `${label}: ${d.id} group_reason`);
    if (d.reason === 'group_excluded') assert.ok(!INCLUDED.has(d.group_reason) && d.group_reason !== 'group_excluded', label);
    if (d.reason === 'dependency_excluded') {
      assert.equal(mode, 'require', label);
      assert.ok(closure(edges(fragments, mode), d.index).size > 1, label);
    }
  }
  // Groups: all in or all out.
  for (const f of fragments) {
    if (f.group === undefined) continue;
    for (const g of fragments) if (g.group === f.group) assert.equal(sel.has(f.id), sel.has(g.id), `${label}: group ${f.group}`);
  }
  // Dependencies on candidates: in with what they need.
  if (mode === 'require') {
    for (const id of sel) for (const d of byId.get(id).dependencies ?? []) if (byId.has(d)) assert.ok(sel.has(d), `${label}: ${id} without ${d}`);
  }
  const overshoot = plan.decisions.some((d) => d.reason === 'overshoot');
  if (!overshoot && !plan.warnings.some((w) => /count requirements/.test(w))) {
    assert.ok(plan.metrics.budget_used <= plan.metrics.effective_budget, `${label}: ${plan.metrics.budget_used} > ${plan.metrics.effective_budget}`);
  }
  if (!COUNTED.has(slicer)) assert.deepEqual(plan.warnings.filter((w) => /ignored/.test(w)), [], label);
}

function options(slicer, mode) {
  const o = { now: NOW, slicer, dependencies: mode };
  if (slicer === 'knapsack') o.bucketSize = 1;
  if (COUNTED.has(slicer)) o.countEntries = [{ kind: 'msg', requireCount: 0, capCount: 2 }];
  if (slicer === 'packer') o.maxConsecutiveSkips = 2;
  return o;
}

/** Count strategies refuse groups holding a counted kind: keep 'msg' fragments out of groups of two or more. */
function countable(fragments) {
  return fragments.map((f) => (f.kind === 'msg' && f.group !== undefined ? { ...f, group: `${f.group}-${f.id}` } : f));
}

test('groups and dependencies: every strategy keeps groups whole, dependencies closed, within the budget (2,000 plans)', () => {
  const r = rng(61);
  let grouped = 0;
  for (let t = 0; t < 2000; t++) {
    const { fragments, budgets } = instance(r, 12);
    const slicer = STRATEGIES[t % STRATEGIES.length];
    const mode = COUNTED.has(slicer) ? 'ignore' : r.pick(['ignore', 'require']);
    const list = COUNTED.has(slicer) ? countable(fragments) : fragments;
    const plan = selectFragments(list, GAZE, budgets, options(slicer, mode));
    checkPlan(`#${t} ${slicer} ${mode}`, list, budgets, plan, mode, slicer);
    if (plan.decisions.some((d) => d.reason === 'group_excluded' || d.reason === 'dependency_excluded')) grouped++;
  }
  assert.ok(grouped > 200, `only ${grouped} plans left a group or a dependency out`);
});

test("'ranked', 'packer' and 'greedy' select what a walk over units selects (oracle written from the docs)", () => {
  const r = rng(62);
  for (let t = 0; t < 1500; t++) {
    const { fragments, budgets } = instance(r, 12);
    const slicer = ['ranked', 'packer', 'greedy'][t % 3];
    const mode = t % 2 === 0 ? 'ignore' : 'require';
    const plan = selectFragments(fragments, GAZE, budgets, options(slicer, mode));
    if (plan.decisions.some((d) => d.reason === 'overshoot')) continue; // not reached: allow_overshoot is off
    const v = view(fragments, budgets, plan, mode);
    const expected = v.budget === 0 ? new Set() : walk(v, slicer, slicer === 'packer' ? 2 : 0);
    assert.deepEqual(ids(plan), new Set([...expected].map((i) => fragments[i].id)), `#${t} ${slicer} ${mode}`);
  }
});

test("'exact' and 'knapsack' (bucket 1) are optimal with groups, and with dependencies when not repaired (brute force)", () => {
  const r = rng(63);
  let unrepaired = 0;
  let repairs = 0;
  for (let t = 0; t < 1500; t++) {
    const { fragments, budgets } = instance(r, 12);
    const slicer = t % 2 === 0 ? 'exact' : 'knapsack';
    const mode = t % 3 === 0 ? 'require' : 'ignore';
    const plan = selectFragments(fragments, GAZE, budgets, options(slicer, mode));
    // An effective budget of 0 plans nothing (spec), even zero-token fragments.
    const v = view(fragments, budgets, plan, mode);
    const best = v.budget === 0 ? 0 : bruteForce(v);
    if (repaired(plan)) {
      repairs++;
      assert.ok(valueOf(plan) <= best, `#${t}`);
    } else {
      if (mode === 'require') unrepaired++;
      assert.equal(valueOf(plan), best, `#${t} ${slicer} ${mode}`);
    }
  }
  assert.ok(unrepaired > 100 && repairs > 10, `unrepaired ${unrepaired}, repaired ${repairs}`);
});

test("with groups, 'exact' never loses to the other strategies; 'exact-count' never to 'count-knapsack'", () => {
  const r = rng(64);
  for (let t = 0; t < 400; t++) {
    const { fragments, budgets } = instance(r, 12, { depP: 0 });
    const exact = valueOf(selectFragments(fragments, GAZE, budgets, options('exact', 'ignore')));
    // (Not 'packer': it ranks by benefit, so its decisions' scores are another measure.)
    for (const slicer of ['ranked', 'greedy']) {
      assert.ok(exact >= valueOf(selectFragments(fragments, GAZE, budgets, options(slicer, 'ignore'))), `#${t} ${slicer}`);
    }
    const knapsack100 = selectFragments(fragments, GAZE, budgets, { now: NOW, slicer: 'knapsack' });
    assert.ok(exact >= valueOf(knapsack100), `#${t} knapsack-100`);
    const list = countable(fragments);
    const entries = { countEntries: [{ kind: 'msg', requireCount: 1, capCount: 2 }] };
    const ec = selectFragments(list, GAZE, budgets, { now: NOW, slicer: 'exact-count', ...entries });
    const ck = selectFragments(list, GAZE, budgets, { now: NOW, slicer: 'count-knapsack', bucketSize: 1, ...entries });
    if (!ck.warnings.some((w) => /exceeds the effective budget/.test(w)) && !ck.warnings.some((w) => /not met/.test(w))) {
      assert.ok(valueOf(ec) >= valueOf(ck), `#${t} exact-count`);
    }
  }
});

test('group decisions: group_excluded names the group reason; too large alone is budget_exceeded; dependency_excluded', () => {
  const fragments = [
    { id: 'call', cost_tokens: 40, group: 'tool-1', timestamp: NOW },
    { id: 'result', cost_tokens: 900, group: 'tool-1', timestamp: NOW },
    { id: 'doc', cost_tokens: 100, dependencies: ['result'], timestamp: NOW },
    { id: 'note', cost_tokens: 100, timestamp: NOW },
  ];
  for (const slicer of ['ranked', 'greedy', 'knapsack', 'exact', 'packer']) {
    const plan = selectFragments(fragments, GAZE, { tokens_max: 500 }, { now: NOW, slicer, dependencies: 'require' });
    const d = Object.fromEntries(plan.decisions.map((x) => [x.id, x]));
    assert.equal(d.call.reason, 'group_excluded', slicer);
    assert.equal(d.call.group_reason, slicer === 'knapsack' || slicer === 'exact' ? d.call.group_reason : 'budget_exceeded', slicer);
    assert.ok(['budget_exceeded', 'not_in_optimal_set'].includes(d.call.group_reason), `${slicer}: ${d.call.group_reason}`);
    assert.equal(d.result.reason, 'budget_exceeded', slicer);
    assert.equal(d.result.group_reason, undefined, slicer);
    assert.equal(d.doc.reason, 'dependency_excluded', slicer);
    assert.equal(d.note.reason, 'scored', slicer);
    assert.deepEqual([...ids(plan)], ['note'], slicer);
  }
  // 'ignore' (the default): the dependency does not bind; the group still does.
  const plan = selectFragments(fragments, GAZE, { tokens_max: 500 }, { now: NOW });
  assert.deepEqual(ids(plan), new Set(['doc', 'note']));
  // A budget of 0: every decision is no_budget, groups or not.
  const none = selectFragments(fragments, GAZE, { tokens_max: 0 }, { now: NOW, dependencies: 'require' });
  assert.ok(none.decisions.every((x) => x.reason === 'no_budget' && x.group_reason === undefined));
});

test('a group goes in whole where its best member ranks (ranked), and the fragments stay in rank order', () => {
  const fragments = [
    { id: 'q', cost_tokens: 100, entities: ['auth'], timestamp: NOW, citations: ['c', 'c'] },
    { id: 'call', cost_tokens: 50, entities: ['auth', 'db'], timestamp: NOW, group: 't' },
    { id: 'result', cost_tokens: 300, timestamp: NOW - 40 * 86_400_000, group: 't' },
    { id: 'other', cost_tokens: 300, entities: ['auth'], timestamp: NOW },
  ];
  const budgets = { tokens_max: 450 };
  const plan = selectFragments(fragments, GAZE, budgets, { now: NOW });
  const rank = Object.fromEntries(plan.decisions.map((d) => [d.id, d.rank]));
  // The unit {call, result} is reached at call's rank, ahead of 'other', and takes 350 of 450.
  assert.ok(rank.call < rank.other && rank.other < rank.result, JSON.stringify(rank));
  assert.deepEqual(plan.fragments.map((f) => f.id), ['q', 'call', 'result'].sort((a, b) => rank[a] - rank[b]));
  assert.equal(plan.decisions.find((d) => d.id === 'other').reason, 'budget_exceeded');
  // Without the group, 'other' goes in before the result.
  const loose = selectFragments(fragments.map(({ group, ...f }) => f), GAZE, budgets, { now: NOW });
  assert.deepEqual(new Set(loose.fragments.map((f) => f.id)), new Set(['q', 'call', 'other']));
});

test('fragments with groups of one and no required dependencies plan exactly as without those fields', () => {
  const r = rng(65);
  for (let t = 0; t < 300; t++) {
    const { fragments, budgets } = instance(r, 14, { groupP: 0, depP: 0.4 });
    const slicer = STRATEGIES[t % STRATEGIES.length];
    const o = { ...options(slicer, 'ignore'), requestId: 'x' };
    const alone = fragments.map((f) => ({ ...f, group: `solo-${f.id}` }));
    const a = selectFragments(fragments, GAZE, budgets, o);
    const b = selectFragments(alone, GAZE, budgets, o);
    const strip = (p) => ({ ...p, fragments: p.fragments.map((f) => f.id), metrics: { ...p.metrics, planner_ms: 0 } });
    assert.deepEqual(strip(b), strip(a), `#${t} ${slicer}`);
  }
});

test('the packer counts every fragment first when groups apply, and lazily otherwise', () => {
  const fragments = Array.from({ length: 12 }, (_, i) => ({ id: `m${i}`, content: 'x'.repeat(400 + i), timestamp: NOW - i * 1000 }));
  const count = (text) => Math.ceil(text.length / 4);
  const lazy = selectFragments(fragments, GAZE, { tokens_max: 250 }, { now: NOW, slicer: 'packer', countTokens: count });
  assert.ok(lazy.metrics.fragments_counted < fragments.length, `lazy counted ${lazy.metrics.fragments_counted}`);
  const grouped = fragments.map((f, i) => (i >= 10 ? { ...f, group: 'tail' } : f));
  const eager = selectFragments(grouped, GAZE, { tokens_max: 250 }, { now: NOW, slicer: 'packer', countTokens: count });
  assert.equal(eager.metrics.fragments_counted, fragments.length);
  assert.ok(eager.decisions.every((d) => d.cost_tokens !== null));
  // A group of one changes nothing: still lazy.
  const solo = fragments.map((f, i) => (i === 11 ? { ...f, group: 'solo' } : f));
  assert.equal(selectFragments(solo, GAZE, { tokens_max: 250 }, { now: NOW, slicer: 'packer', countTokens: count }).metrics.fragments_counted, lazy.metrics.fragments_counted);
});

test('overshoot with groups admits a single fragment that goes in alone, never part of a group', () => {
  const big = { cost_tokens: 5000, entities: ['auth', 'db', 'ui'], timestamp: NOW, citations: ['a', 'b', 'c', 'd', 'e'] };
  const opts = { now: NOW, allow_overshoot: true };
  // The best candidate is in a group: the overshoot takes the best one that is alone.
  const fragments = [
    { id: 'g1', ...big, group: 'g' },
    { id: 'g2', ...big, cost_tokens: 6000, group: 'g' },
    { id: 'solo', ...big, cost_tokens: 7000, timestamp: NOW - 86_400_000 },
  ];
  const plan = selectFragments(fragments, GAZE, { tokens_max: 1000 }, opts);
  const benefit = Object.fromEntries(plan.decisions.map((d) => [d.id, d.benefit]));
  assert.ok(benefit.g1 >= benefit.solo && benefit.solo > 0.9, JSON.stringify(benefit));
  assert.deepEqual([...ids(plan)], ['solo']);
  assert.equal(plan.decisions.find((d) => d.id === 'solo').reason, 'overshoot');
  assert.ok(plan.warnings.some((w) => /budget overshoot/.test(w)));
  // Nothing goes in alone: an empty plan, and the warning says why.
  const onlyGroup = selectFragments(fragments.slice(0, 2), GAZE, { tokens_max: 1000 }, opts);
  assert.equal(onlyGroup.fragments.length, 0);
  assert.ok(onlyGroup.decisions.every((d) => d.reason === 'group_excluded' || d.reason === 'budget_exceeded'));
  assert.ok(onlyGroup.warnings.some((w) => /none of them goes in alone/.test(w)), onlyGroup.warnings.join('\n'));
  // A fragment that needs another one (required) does not go in alone either.
  const needy = selectFragments(
    [{ id: 'a', ...big, dependencies: ['b'] }, { id: 'b', ...big, timestamp: NOW - 86_400_000 }],
    GAZE,
    { tokens_max: 1000 },
    { ...opts, dependencies: 'require' },
  );
  assert.deepEqual([...ids(needy)], ['b']);
});

test('refusals: a bad group, a bad dependencies option, count strategies with counted groups or required dependencies — before any counting', () => {
  const expectError = (fn, code, field, index, message) =>
    assert.throws(fn, (err) => {
      assert.ok(err instanceof CtxpackError);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
      assert.equal(err.index, index);
      if (message !== undefined) assert.match(err.message, message);
      return true;
    });
  const base = [
    { id: 'a', cost_tokens: 10 },
    { id: 'b', cost_tokens: 10, kind: 'tool' },
  ];
  for (const bad of ['', 7, null, ['g'], {}]) {
    expectError(() => selectFragments([base[0], { ...base[1], group: bad }], GAZE, { tokens_max: 100 }), 'INVALID_FIELD', 'group', 1, /candidates\[1\]\.group/);
  }
  expectError(() => selectFragments(base, GAZE, { tokens_max: 100 }, { dependencies: 'always' }), 'INVALID_OPTION', 'dependencies', undefined);
  let calls = 0;
  const counter = (text) => (calls++, text.length);
  const grouped = [
    { id: 'x', content: 'hello', group: 'g' },
    { id: 'y', content: 'world', kind: 'tool', group: 'g' },
  ];
  for (const slicer of ['count-knapsack', 'exact-count']) {
    const countEntries = [{ kind: 'TOOL', requireCount: 0, capCount: 1 }];
    const bucket = slicer === 'count-knapsack' ? { bucketSize: 1 } : {};
    expectError(
      () => selectFragments(grouped, GAZE, { tokens_max: 100 }, { slicer, countEntries, countTokens: counter }),
      'INVALID_OPTION',
      'group',
      1,
      /candidates\[1\] is in a group of 2/,
    );
    const deps = [
      { id: 'x', content: 'hello' },
      { id: 'y', content: 'world', dependencies: ['x'] },
    ];
    expectError(
      () => selectFragments(deps, GAZE, { tokens_max: 100 }, { slicer, countEntries, dependencies: 'require', countTokens: counter }),
      'INVALID_OPTION',
      'dependencies',
      undefined,
    );
    // Without the count entry on the group's kind, or with dependencies ignored, the same calls plan.
    assert.equal(selectFragments(grouped, GAZE, { tokens_max: 100 }, { slicer, countTokens: counter, ...bucket }).fragments.length, 2);
    assert.equal(selectFragments(deps, GAZE, { tokens_max: 100 }, { slicer, countEntries, countTokens: counter, ...bucket }).fragments.length, 2);
  }
  assert.equal(calls, 8, 'the refused calls counted nothing');
  // A group whose charges add up past 2^32 - 1.
  const huge = [
    { id: 'p', cost_tokens: 4_000_000_000, group: 'g' },
    { id: 'q', cost_tokens: 1_000_000_000, group: 'g' },
  ];
  // The core sums units after ranking, and names the group's best-ranked member (q: the cheaper one).
  expectError(() => selectFragments(huge, GAZE, { tokens_max: 100 }, { slicer: 'greedy' }), 'INVALID_FIELD', 'group', 1, /candidates\[1\]\.group is in a group of 2/);
  // The failed calls leave nothing behind.
  assert.equal(selectFragments(base, GAZE, { tokens_max: 100 }).fragments.length, 2);
});

test("the packer's skip limit: units it never reached say skip_limit_reached, needy ones too, and the overshoot looks only at those it reached", () => {
  const top = { entities: ['auth', 'db', 'ui'], timestamp: NOW, citations: ['a', 'b', 'c', 'd', 'e'] };
  const fragments = [
    { id: 'big', cost_tokens: 5000, ...top },
    { id: 'needy', cost_tokens: 10, timestamp: NOW - 86_400_000, dependencies: ['base'] },
    { id: 'base', cost_tokens: 10, timestamp: NOW - 2 * 86_400_000 },
  ];
  const opts = { now: NOW, slicer: 'packer', maxConsecutiveSkips: 1, dependencies: 'require', allow_overshoot: true };
  const plan = selectFragments(fragments, GAZE, { tokens_max: 100 }, opts);
  const d = Object.fromEntries(plan.decisions.map((x) => [x.id, x]));
  assert.ok(d.big.rank === 0 && d.big.benefit > 0.9, JSON.stringify(d.big));
  // 'big' misses and the packer stops: it reached only 'big', which exceeds the budget alone.
  assert.equal(d.needy.reason, 'skip_limit_reached');
  assert.equal(d.base.reason, 'skip_limit_reached');
  assert.equal(d.big.reason, 'overshoot');
  assert.deepEqual([...ids(plan)], ['big']);
  // With a limit of 2 it reaches 'needy', takes it with 'base', and needs no overshoot.
  const two = selectFragments(fragments, GAZE, { tokens_max: 100 }, { ...opts, maxConsecutiveSkips: 2 });
  assert.deepEqual(ids(two), new Set(['needy', 'base']));
});
