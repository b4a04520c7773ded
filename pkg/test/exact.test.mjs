// The exact strategies in the package: exactKnapsackSlice and exactCountConstrainedSlice against
// brute force on small random instances, never below knapsackSlice or greedySlice, their report,
// their options and errors, and the 'exact' / 'exact-count' names of sliceColumns and
// sliceObjects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError } from 'ctxpack';
import { countConstrainedKnapsackSlice, exactCountConstrainedSlice, exactKnapsackSlice, greedySlice, knapsackSlice, sliceColumns, sliceObjects } from 'ctxpack/slicers';
import { items as randomItems, rng, scaled, valueOf } from './rng.mjs';

/** The best value of any subset whose tokens fit (zero-token items free). */
function bruteForce(list, target, ok = () => true) {
  if (target <= 0) return 0;
  let best = -1;
  const n = list.length;
  for (let mask = 0; mask < 1 << n; mask++) {
    let t = 0;
    let v = 0;
    const chosen = [];
    for (let i = 0; i < n; i++) {
      if (mask & (1 << i)) {
        t += list[i].tokens;
        v += scaled(list[i].score);
        chosen.push(list[i]);
      }
    }
    if (t <= target && ok(chosen) && v > best) best = v;
  }
  return best;
}

test('exactKnapsackSlice equals brute force and never loses to knapsackSlice or greedySlice', () => {
  const r = rng(61);
  for (let round = 0; round < 1500; round++) {
    const list = randomItems(r, { maxN: 11, maxTokens: 80 });
    const budget = { targetTokens: r.int(0, 300) };
    const e = exactKnapsackSlice(list, budget);
    assert.equal(e.exact.solver, 'exact');
    const v = valueOf(list, e.selected);
    assert.equal(e.exact.value, v, `round ${round}`);
    assert.equal(v, bruteForce(list, budget.targetTokens), `round ${round}: ${JSON.stringify(list)} ${budget.targetTokens}`);
    assert.ok(e.totalTokens <= budget.targetTokens || e.selected.length === 0);
    for (const other of [knapsackSlice(list, budget, { bucketSize: r.int(1, 20) }), greedySlice(list, budget)]) {
      assert.ok(v >= valueOf(list, other.selected), `round ${round}`);
    }
    assert.equal(e.decisions.length, list.length);
    for (const d of e.decisions) assert.equal(d.included, e.selected.includes(d.id));
  }
});

test('exactCountConstrainedSlice meets the counts, fits the budget and equals brute force', () => {
  const r = rng(62);
  const kinds = ['tool', 'Tool', 'doc', 'msg', ''];
  let gaps = 0;
  for (let round = 0; round < 600; round++) {
    const list = randomItems(r, { maxN: 10, maxTokens: 60, kinds });
    const budget = { targetTokens: r.int(1, 250) };
    if (list.length === 0) continue; // nothing to select, no shortfall (the specs' edge case)
    const entries = [
      { kind: 'tool', requireCount: r.int(0, 1), capCount: 2 },
      { kind: 'doc', requireCount: 0, capCount: r.int(0, 1) },
    ];
    const count = (chosen, kind) => chosen.filter((it) => (it.kind ?? '').toLowerCase() === kind).length;
    const feasible = (chosen) => entries.every((e) => count(chosen, e.kind) <= e.capCount && count(chosen, e.kind) >= e.requireCount);
    let res;
    try {
      res = exactCountConstrainedSlice(list, budget, { entries, scarcity: 'throw' });
    } catch (err) {
      assert.ok(err instanceof CtxpackError);
      assert.ok(['COUNT_REQUIREMENT_SHORTFALL', 'COUNT_REQUIREMENT_OVER_BUDGET'].includes(err.code), err.code);
      assert.equal(bruteForce(list, budget.targetTokens, feasible), -1, `round ${round}: feasible, yet ${err.code}`);
      continue;
    }
    const chosen = res.selected.map((id) => list.find((it) => it.id === id));
    assert.ok(feasible(chosen), `round ${round}`);
    assert.ok(res.totalTokens <= budget.targetTokens);
    assert.equal(valueOf(list, res.selected), bruteForce(list, budget.targetTokens, feasible), `round ${round}`);
    assert.equal(res.exact.value, valueOf(list, res.selected));
    const h = res.exact.heuristicValue;
    if (h !== null && !res.exact.heuristicOverBudget) {
      const heuristic = countConstrainedKnapsackSlice(list, budget, { entries });
      assert.equal(h, valueOf(list, heuristic.selected));
      if (h < res.exact.value) gaps++;
    }
  }
  assert.ok(gaps > 0, 'no instance showed the heuristic below the optimum');
});

test('the exact report: solver, fallback, heuristic', () => {
  const list = Array.from({ length: 40 }, (_, i) => ({ id: `x${i}`, tokens: ((i * 7) % 31) + 1, score: (i % 13) / 13 }));
  const fallback = exactKnapsackSlice(list, { targetTokens: 150 }, { maxStates: 1 });
  assert.equal(fallback.exact.solver, 'bucketed-fallback');
  assert.equal(fallback.exact.fallbackReason, 'state-limit');
  assert.equal(fallback.exact.bucketSize, 1);
  assert.ok(fallback.totalTokens <= 150);
  const work = exactKnapsackSlice(list, { targetTokens: 150 }, { maxWork: 10 });
  assert.equal(work.exact.fallbackReason, 'work-limit');
  const bucketed = exactCountConstrainedSlice(list, { targetTokens: 150 }, { entries: [], bucketSize: 10, compareHeuristic: false });
  assert.deepEqual([bucketed.exact.solver, bucketed.exact.bucketSize, bucketed.exact.heuristicValue], ['bucketed', 10, null]);
  // The example: the heuristic commits the best doc first.
  const docs = [
    { id: 'big', tokens: 900, score: 0.9, kind: 'doc' },
    { id: 'd2', tokens: 300, score: 0.8, kind: 'doc' },
    { id: 'm1', tokens: 300, score: 0.7, kind: 'msg' },
    { id: 'm2', tokens: 300, score: 0.7, kind: 'msg' },
  ];
  const r = exactCountConstrainedSlice(docs, { targetTokens: 1000 }, { entries: [{ kind: 'doc', requireCount: 1, capCount: 2 }] });
  assert.deepEqual(r.selected, ['d2', 'm1', 'm2']);
  assert.equal(r.decisions[1].reason, 'required');
  assert.deepEqual([r.exact.value, r.exact.heuristicValue], [22000, 9000]);
});

test('exact options and errors', () => {
  const list = [{ id: 'a', tokens: 300, score: 0.9, kind: 'doc' }, { id: 'b', tokens: 300, score: 0.8, kind: 'doc' }];
  const refuses = (call, code, field) =>
    assert.throws(call, (e) => e instanceof CtxpackError && e.code === code && (field === undefined || e.field === field) && true);
  refuses(() => exactKnapsackSlice(list, { targetTokens: 10 }, { bucketSize: 1 }), 'INVALID_OPTION', 'bucketSize');
  refuses(() => exactKnapsackSlice(list, { targetTokens: 10 }, { maxStates: -1 }), 'INVALID_OPTION', 'maxStates');
  refuses(() => exactCountConstrainedSlice(list, { targetTokens: 10 }, { entries: [], maxCells: 1.5 }), 'INVALID_OPTION', 'maxCells');
  refuses(() => exactCountConstrainedSlice(list, { targetTokens: 10 }, { entries: [], compareHeuristic: 'yes' }), 'INVALID_OPTION', 'compareHeuristic');
  refuses(() => exactCountConstrainedSlice(list, { targetTokens: 10 }, { entries: [], bucketSize: 0 }), 'INVALID_BUCKET_SIZE', 'bucketSize');
  refuses(
    () => exactCountConstrainedSlice(list, { targetTokens: 500 }, { entries: [{ kind: 'doc', requireCount: 2, capCount: 2 }], scarcity: 'throw' }),
    'COUNT_REQUIREMENT_OVER_BUDGET',
  );
  refuses(
    () => exactCountConstrainedSlice(list, { targetTokens: 500 }, { entries: [{ kind: 'doc', requireCount: 3, capCount: 3 }], scarcity: 'throw' }),
    'COUNT_REQUIREMENT_SHORTFALL',
  );
  refuses(() => exactCountConstrainedSlice(list, { targetTokens: 500 }, { entries: [{ kind: 'doc', requireCount: 2, capCount: 1 }] }), 'INVALID_COUNT_ENTRY');
  // Degrade: the budget holds and the shortfall is reported.
  const d = exactCountConstrainedSlice(list, { targetTokens: 500 }, { entries: [{ kind: 'doc', requireCount: 2, capCount: 2 }] });
  assert.deepEqual(d.selected, ['a']);
  assert.deepEqual(d.shortfalls, [{ kind: 'doc', requiredCount: 2, satisfiedCount: 1 }]);
});

test("sliceColumns and sliceObjects take 'exact' and 'exact-count' and return the report", () => {
  const r = rng(63);
  for (let round = 0; round < 50; round++) {
    const list = randomItems(r, { maxN: 30, maxTokens: 500, kinds: ['tool', 'doc', ''] });
    const budget = { targetTokens: r.int(0, 3000) };
    const kindNames = ['', 'tool', 'doc'];
    const cols = {
      tokens: Uint32Array.from(list, (it) => it.tokens),
      scores: Float64Array.from(list, (it) => it.score),
      kinds: Uint32Array.from(list, (it) => kindNames.indexOf(it.kind ?? '')),
      kindNames,
    };
    const frags = list.map((it) => ({ id: it.id, cost_tokens: it.tokens, score: it.score, kind: it.kind, content: 'never read' }));
    for (const [name, fn, options] of [
      ['exact', exactKnapsackSlice, { maxStates: 1 << 16 }],
      ['exact-count', exactCountConstrainedSlice, { entries: [{ kind: 'tool', requireCount: 1, capCount: 3 }] }],
    ]) {
      const viaColumns = sliceColumns(name, cols, budget, options);
      const viaFragments = sliceObjects(name, frags, budget, options);
      assert.deepEqual(viaFragments, viaColumns, `${name} round ${round}`);
      const viaFunction = fn(list, budget, options);
      assert.deepEqual(Array.from(viaColumns.selected, (i) => list[i].id), viaFunction.selected);
      assert.deepEqual(viaColumns.exact, viaFunction.exact);
    }
    assert.equal(sliceColumns('greedy', cols, budget).exact, null);
  }
});
