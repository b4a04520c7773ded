// Atomic groups and dependencies (the core's src/constraints/, through wasm) via every slicer function: property tests
// on seeded random instances (groups all in or all out, dependencies always honoured, the budget
// held, one decision each with the documented reasons), named cases, and the refusals. The
// oracles (brute force, the walks on merged items) are in Rust, tests/groups.rs; that the package
// selects as the crate is groups-agreement.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError } from 'ctxpack';
import { countConstrainedKnapsackSlice, exactCountConstrainedSlice, exactKnapsackSlice, greedySlice, knapsackSlice, packerSlice } from 'ctxpack/slicers';
import { items as randomItems, rng } from './rng.mjs';

const ENTRIES = [{ kind: 'tool', requireCount: 1, capCount: 2 }];
const STRATEGIES = {
  greedy: (l, b, o = {}) => greedySlice(l, b, o),
  packer: (l, b, o = {}) => packerSlice(l, b, { maxConsecutiveSkips: 2, ...o }),
  knapsack: (l, b, o = {}) => knapsackSlice(l, b, { bucketSize: 1, ...o }),
  'knapsack-100': (l, b, o = {}) => knapsackSlice(l, b, o),
  exact: (l, b, o = {}) => exactKnapsackSlice(l, b, o),
  'count-knapsack': (l, b, o = {}) => countConstrainedKnapsackSlice(l, b, { entries: ENTRIES, bucketSize: 1, ...o }),
  'exact-count': (l, b, o = {}) => exactCountConstrainedSlice(l, b, { entries: ENTRIES, ...o }),
};
const COUNTED = new Set(['count-knapsack', 'exact-count']);
const INCLUDED = new Set(['scored', 'zero_tokens', 'required']);

/** Groups of a list: group id → member ids. */
function groupsOf(list) {
  const g = new Map();
  for (const it of list) if (it.group !== undefined) g.set(it.group, [...(g.get(it.group) ?? []), it.id]);
  return g;
}

/** Items whose groups hold a 'tool' alongside others would be refused by the count strategies: keep tools out of groups there. */
function countable(list) {
  const g = groupsOf(list);
  return list.every((it) => it.kind?.toLowerCase() !== 'tool' || it.group === undefined || g.get(it.group).length === 1);
}

function checkShape(name, list, budget, res, label) {
  assert.equal(res.decisions.length, list.length, label);
  const sel = new Set(res.selected);
  assert.equal(sel.size, res.selected.length, `${label}: an id twice`);
  for (const d of res.decisions) {
    assert.equal(d.included, sel.has(d.id), `${label}: ${d.id}`);
    assert.equal(d.included, INCLUDED.has(d.reason), `${label}: ${d.id} ${d.reason}`);
    const it = list[d.index];
    if (d.reason === 'group_excluded') {
      assert.ok(it.group !== undefined || (it.dependencies ?? []).length > 0 || true, label);
      assert.ok(it.tokens <= budget.targetTokens, `${label}: group_excluded but alone over the budget`);
      assert.ok(typeof d.groupReason === 'string' && !INCLUDED.has(d.groupReason), label);
    } else {
      assert.equal(d.groupReason, undefined, label);
    }
  }
  // Groups: all in or all out.
  for (const [g, ids] of groupsOf(list)) {
    const inside = ids.filter((id) => sel.has(id)).length;
    assert.ok(inside === 0 || inside === ids.length, `${label}: group ${g} split (${inside}/${ids.length})`);
  }
  const tokens = res.selected.reduce((a, id) => a + list.find((x) => x.id === id).tokens, 0);
  assert.equal(res.totalTokens, tokens, label);
  if (name !== 'count-knapsack') assert.ok(budget.targetTokens === 0 ? res.selected.length === 0 : tokens <= budget.targetTokens, `${label}: over budget`);
}

test('groups: every strategy selects a group all together or not at all', () => {
  const r = rng(71);
  let splitWouldHappen = 0;
  for (let round = 0; round < 500; round++) {
    const list = randomItems(r, { maxN: 14, maxTokens: 90, kinds: ['tool', 'doc', 'msg'], groupP: 0.6 });
    const budget = { targetTokens: r.int(0, 400) };
    for (const [name, run] of Object.entries(STRATEGIES)) {
      if (COUNTED.has(name) && !countable(list)) continue;
      const res = run(list, budget);
      checkShape(name, list, budget, res, `${name} round ${round}`);
    }
    // Without groups the same items are often split: the property is not vacuous.
    const plain = list.map(({ group: _g, ...it }) => it);
    const res = greedySlice(plain, budget);
    for (const ids of groupsOf(list).values()) {
      const inside = ids.filter((id) => res.selected.includes(id)).length;
      if (inside > 0 && inside < ids.length) splitWouldHappen++;
    }
  }
  assert.ok(splitWouldHappen > 50, `only ${splitWouldHappen} groups would have been split`);
});

test('dependencies: every strategy honours them, in budget, and says whether it repaired', () => {
  const r = rng(74);
  for (let round = 0; round < 500; round++) {
    const list = randomItems(r, { maxN: 11, maxTokens: 70, kinds: ['doc', 'msg', 'tool'], groupP: 0.2, depP: 0.4 });
    const budget = { targetTokens: r.int(0, 300) };
    const ids = new Set(list.map((it) => it.id));
    for (const [name, run] of Object.entries(STRATEGIES)) {
      const label = `${name} round ${round}: ${JSON.stringify(list)} ${budget.targetTokens}`;
      let res;
      try {
        res = run(list, budget, { dependencies: 'require' });
      } catch (e) {
        assert.ok(COUNTED.has(name) && e instanceof CtxpackError && e.code === 'INVALID_OPTION' && ['dependencies', 'group'].includes(e.field), `${label}: ${e}`);
        continue;
      }
      checkShape(name, list, budget, res, label);
      const sel = new Set(res.selected);
      for (const it of list) {
        if (!sel.has(it.id)) continue;
        for (const d of it.dependencies ?? []) assert.ok(!ids.has(d) || sel.has(d), `${label}: ${it.id} without ${d}`);
      }
      for (const d of res.decisions) {
        if (d.reason === 'dependency_excluded') {
          const it = list[d.index];
          assert.ok(!d.included, label);
        }
      }
      if (name === 'greedy' || name === 'packer') assert.equal(res.repaired, undefined, label);
      else assert.equal(typeof res.repaired, 'boolean', label);
    }
  }
});

test('dependencies: greedy and the packer take an item with the dependencies it lacks', () => {
  const list = [
    { id: 'q', tokens: 10, score: 0.9, dependencies: ['doc', 'elsewhere'] },
    { id: 'doc', tokens: 500, score: 0.1 },
    { id: 'y', tokens: 100, score: 0.3 },
  ];
  const greedy = greedySlice(list, { targetTokens: 600 }, { dependencies: 'require' });
  assert.deepEqual(greedy.selected, ['doc', 'q']); // q is densest: it goes in with doc, first
  assert.equal(greedy.decisions[2].reason, 'budget_exceeded');
  const small = greedySlice(list, { targetTokens: 200 }, { dependencies: 'require' });
  assert.deepEqual(small.selected, ['y']);
  assert.deepEqual(
    small.decisions.map((d) => d.reason),
    ['dependency_excluded', 'budget_exceeded', 'scored'],
  );
  const packer = packerSlice(list, { targetTokens: 600 }, { dependencies: 'require', maxConsecutiveSkips: 1 });
  assert.deepEqual(packer.selected, ['doc', 'q']);
  assert.equal(packer.decisions[2].reason, 'budget_exceeded');
  // Ignored by default, and 'ignore' is the default.
  assert.deepEqual(greedySlice(list, { targetTokens: 200 }).selected, greedySlice(list, { targetTokens: 200 }, { dependencies: 'ignore' }).selected);
  assert.deepEqual(greedySlice(list, { targetTokens: 200 }).selected, ['q', 'y']);
  // Mutual dependencies go in together.
  const pair = [
    { id: 'a', tokens: 50, score: 0.9, dependencies: ['b'] },
    { id: 'b', tokens: 50, score: 0.1, dependencies: ['a'] },
    { id: 'c', tokens: 60, score: 0.5 },
  ];
  const k = exactKnapsackSlice(pair, { targetTokens: 100 }, { dependencies: 'require' });
  assert.deepEqual(k.selected, ['a', 'b']);
  assert.equal(k.repaired, false);
  const tight = exactKnapsackSlice(pair, { targetTokens: 90 }, { dependencies: 'require' });
  assert.deepEqual(tight.selected, ['c']);
  assert.deepEqual([tight.decisions[0].reason, tight.decisions[0].groupReason], ['group_excluded', 'budget_exceeded']); // 100 tokens together
});

test('group decisions: group_excluded with the group reason, budget_exceeded alone, no_budget at 0', () => {
  const list = [
    { id: 'call', tokens: 50, score: 0.9, group: 't1' },
    { id: 'result', tokens: 400, score: 0.1, group: 't1' },
    { id: 'x', tokens: 100, score: 0.3 },
  ];
  const res = greedySlice(list, { targetTokens: 200 });
  assert.deepEqual(res.selected, ['x']);
  assert.deepEqual(
    res.decisions.map((d) => [d.reason, d.groupReason]),
    [['group_excluded', 'budget_exceeded'], ['budget_exceeded', undefined], ['scored', undefined]],
  );
  assert.ok(!('groupReason' in res.decisions[2]));
  assert.equal(res.budgetReached, true);
  const none = knapsackSlice(list, { targetTokens: 0 });
  assert.deepEqual(none.decisions.map((d) => d.reason), ['no_budget', 'no_budget', 'no_budget']);
  const all = exactKnapsackSlice(list, { targetTokens: 550 });
  assert.deepEqual(all.selected, ['call', 'result', 'x']);
  assert.equal(all.totalScore, 0.9 + 0.1 + 0.3);
  assert.equal(all.exact.value, 13000);
});

test('groups and dependencies: refusals', () => {
  const refuses = (call, code, field, index) =>
    assert.throws(call, (e) => {
      assert.ok(e instanceof CtxpackError, String(e));
      assert.equal(e.code, code, e.message);
      assert.equal(e.field, field, e.message);
      if (index !== undefined) assert.equal(e.index, index, e.message);
      return true;
    });
  const b = { targetTokens: 100 };
  refuses(() => greedySlice([{ id: 'a', tokens: 1, score: 1, group: '' }], b), 'INVALID_FIELD', 'group', 0);
  refuses(() => greedySlice([{ id: 'a', tokens: 1, score: 1 }, { id: 'b', tokens: 1, score: 1, group: 7 }], b), 'INVALID_FIELD', 'group', 1);
  refuses(() => greedySlice([{ id: 'a', tokens: 1, score: 1, dependencies: 'b' }], b), 'INVALID_FIELD', 'dependencies', 0);
  refuses(() => greedySlice([{ id: 'a', tokens: 1, score: 1, dependencies: ['b', 3] }], b), 'INVALID_FIELD', 'dependencies[1]', 0);
  refuses(() => greedySlice([], b, { dependencies: 'always' }), 'INVALID_OPTION', 'dependencies');
  refuses(() => greedySlice([], b, { bucketSize: 3 }), 'INVALID_OPTION', 'bucketSize');
  const big = [
    { id: 'a', tokens: 4294967295, score: 1, group: 'g' },
    { id: 'b', tokens: 1, score: 1, group: 'g' },
  ];
  refuses(() => knapsackSlice(big, b), 'INVALID_FIELD', 'group', 0);
  const tools = [
    { id: 'a', tokens: 10, score: 1, kind: 'Tool', group: 'g' },
    { id: 'b', tokens: 10, score: 1, kind: 'msg', group: 'g' },
  ];
  refuses(() => countConstrainedKnapsackSlice(tools, b, { entries: ENTRIES }), 'INVALID_OPTION', 'group', 0);
  refuses(() => exactCountConstrainedSlice(tools, b, { entries: ENTRIES }), 'INVALID_OPTION', 'group', 0);
  // Unconstrained kinds may be grouped.
  const msgs = tools.map((t) => ({ ...t, kind: 'msg' }));
  assert.deepEqual(exactCountConstrainedSlice(msgs, b, { entries: ENTRIES }).selected, ['a', 'b']);
  const deps = [
    { id: 'a', tokens: 10, score: 1, dependencies: ['b'] },
    { id: 'b', tokens: 10, score: 1 },
  ];
  refuses(() => exactCountConstrainedSlice(deps, b, { entries: [], dependencies: 'require' }), 'INVALID_OPTION', 'dependencies');
  assert.deepEqual(exactCountConstrainedSlice(deps, b, { entries: [] }).selected, ['a', 'b']);
});

test('items without groups or dependencies slice exactly as before', () => {
  const r = rng(75);
  for (let round = 0; round < 200; round++) {
    const list = randomItems(r, { maxN: 20, maxTokens: 200, depP: 0.3 });
    const budget = { targetTokens: r.int(0, 1500) };
    const bare = list.map(({ dependencies: _d, ...it }) => it);
    for (const [name, run] of Object.entries(STRATEGIES)) {
      assert.deepEqual(run(list, budget), run(bare, budget), `${name} round ${round}`);
    }
  }
});

test('a dependency is named at its position in the caller\'s list, ids outside the call counted', () => {
  // 'elsewhere' names no item of the call: skipped, but it keeps its place in the list.
  const list = [{ id: 'a', tokens: 1, score: 1, dependencies: ['elsewhere', 'a'] }];
  assert.throws(
    () => greedySlice(list, { targetTokens: 10 }, { dependencies: 'require' }),
    (e) => e instanceof CtxpackError && e.code === 'INVALID_FIELD' && e.field === 'dependencies[1]' && e.index === 0,
  );
});

test("without groups or dependencies to honour, 'require' leaves the knapsack strategies unrepaired and the walks silent", () => {
  const list = [
    { id: 'a', tokens: 10, score: 0.9 },
    { id: 'b', tokens: 10, score: 0.5, dependencies: ['elsewhere'] },
  ];
  const b = { targetTokens: 15 };
  for (const [name, run] of Object.entries(STRATEGIES)) {
    if (COUNTED.has(name)) continue;
    const r = run(list, b, { dependencies: 'require' });
    if (name === 'greedy' || name === 'packer') assert.equal('repaired' in r, false, name);
    else assert.equal(r.repaired, false, name);
    assert.equal('repaired' in run(list, b), false, `${name}, dependencies ignored`);
  }
});
