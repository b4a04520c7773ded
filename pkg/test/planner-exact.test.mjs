// selectFragments with the exact strategies: same ranking, the exact slicer's selection, never
// less value than the seed knapsack, counts within the budget.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { selectFragments } from 'ctxpack';
import { exactKnapsackSlice } from 'ctxpack/slicers';

const sample = JSON.parse(readFileSync(new URL('../../www/samples/agent-session.json', import.meta.url), 'utf8'));
const now = Date.parse(sample.now);
const value = (plan) => plan.decisions.filter((d) => d.included).reduce((t, d) => t + Math.max(0, Math.floor(d.score * 10000)), 0);

test("slicer 'exact' selects what exactKnapsackSlice selects on the ranked scores, and never loses to 'knapsack'", () => {
  for (const budget of [500, 2000, 6000, 15000]) {
    const exact = selectFragments(sample.fragments, sample.gaze, { tokens_max: budget }, { slicer: 'exact', now });
    const knapsack = selectFragments(sample.fragments, sample.gaze, { tokens_max: budget }, { slicer: 'knapsack', now, bucketSize: 1 });
    assert.ok(exact.metrics.tokens_selected <= budget);
    assert.ok(value(exact) >= value(knapsack), `budget ${budget}`);
    // The sample's tool calls share a group with their results: exactKnapsackSlice takes the groups too.
    const items = exact.decisions.map((d) => ({ id: d.id, tokens: d.cost_tokens, score: d.score, group: sample.fragments[d.index].group }));
    const direct = exactKnapsackSlice(items, { targetTokens: budget });
    assert.deepEqual(new Set(direct.selected), new Set(exact.fragments.map((f) => f.id)));
  }
});

test("slicer 'exact-count' honours require and cap counts within the budget", () => {
  const countEntries = [{ kind: 'system', requireCount: 2, capCount: 2 }, { kind: 'document', requireCount: 0, capCount: 1 }];
  const plan = selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { slicer: 'exact-count', now, countEntries });
  assert.ok(plan.metrics.tokens_selected <= 6000);
  const kinds = plan.fragments.map((f) => f.kind);
  assert.equal(kinds.filter((k) => k === 'system').length, 2);
  assert.ok(kinds.filter((k) => k === 'document').length <= 1);
  assert.deepEqual(plan.warnings.filter((w) => /ignored/.test(w)), []);
});

// Issue 17: past its guards the exact count-constrained DP coarsened its buckets and could return
// far less than the three-phase heuristic it is offered against (59 % of its value at n = 20k).
test("exact-count never returns less than the heuristic when a guard forces buckets; the solver is in the report, the warnings and the metrics", async () => {
  const { sliceColumns } = await import('ctxpack/slicers');
  let seed = 7;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const kindNames = ['k0', 'k1', 'k2', 'k3', 'other'];
  const entries = [0, 1, 2, 3].map((k) => ({ kind: `k${k}`, requireCount: k % 2, capCount: 3 + 4 * k }));
  const solvers = new Set();
  for (let round = 0; round < 12; round++) {
    const n = 2000;
    const columns = {
      tokens: Uint32Array.from({ length: n }, () => 1 + Math.floor(600 * rand() * rand() * 3)),
      scores: Float64Array.from({ length: n }, () => rand()),
      kinds: Uint32Array.from({ length: n }, () => Math.floor(rand() * kindNames.length)),
      kindNames,
    };
    const budget = { targetTokens: 64_000 };
    const exact = sliceColumns('exact-count', columns, budget, { entries, maxCells: 20_000 + 10_000 * round, compareHeuristic: false });
    const heuristic = sliceColumns('count-knapsack', columns, budget, { entries });
    const short = (r) => r.shortfalls.reduce((t, s) => t + s.requiredCount - s.satisfiedCount, 0);
    assert.equal(exact.exact.heuristicValue, value2(heuristic, columns), 'a forced bucket runs the heuristic even with compareHeuristic: false');
    if (!heuristic.overBudget) {
      assert.ok(short(exact) < short(heuristic) || (short(exact) === short(heuristic) && exact.exact.value >= exact.exact.heuristicValue), `round ${round}`);
    }
    assert.ok(exact.totalTokens <= budget.targetTokens);
    solvers.add(exact.exact.solver);
  }
  assert.ok(solvers.has('heuristic'), [...solvers].join());

  // The planner: a small table limit forces buckets; the warning names the solver, the metrics say it.
  const fragments = Array.from({ length: 1500 }, (_, i) => ({
    id: `f${i}`,
    cost_tokens: 1 + Math.floor(600 * rand() * rand() * 3),
    kind: kindNames[i % kindNames.length],
    entities: rand() < 0.3 ? ['auth'] : [],
    timestamp: now - Math.floor(rand() * 1e8),
  }));
  const seen = new Set();
  for (const maxTableBytes of [5_000, 20_000, 160_000, 640_000]) {
    const plan = selectFragments(fragments, { entities: ['auth'] }, { tokens_max: 48_000 }, { slicer: 'exact-count', now, countEntries: entries, maxTableBytes });
    const solver = plan.metrics.exact_solver;
    seen.add(solver);
    assert.ok(['bucketed', 'heuristic'].includes(solver), solver);
    assert.equal(plan.warnings.filter((w) => w.startsWith("slicer 'exact-count': ") && w.includes(solver === 'heuristic' ? 'heuristic did better' : 'rounded up')).length, 1, plan.warnings.join('\n'));
  }
  assert.ok(seen.has('heuristic'), [...seen].join());
  const small = selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { slicer: 'exact-count', now, countEntries: [{ kind: 'system', requireCount: 1, capCount: 2 }] });
  assert.equal(small.metrics.exact_solver, 'exact');
  assert.equal(selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { slicer: 'greedy', now }).metrics.exact_solver, null);
});

function value2(r, columns) {
  let v = 0;
  for (const i of r.selected) v += Math.max(0, Math.floor(columns.scores[i] * 10000));
  return v;
}

test("selectFragments takes exact-count's maxCells: a low one forces buckets, the plan stays within the budget, and the refusal it advises is an option it accepts", async () => {
  const { sliceColumns } = await import('ctxpack/slicers');
  const countEntries = [{ kind: 'message', requireCount: 1, capCount: 10 }]; // binds: 32 candidates
  const opts = { slicer: 'exact-count', now, countEntries };
  const exact = selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, opts);
  assert.equal(exact.metrics.exact_solver, 'exact');
  const coarse = selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { ...opts, maxCells: 5000 });
  assert.notEqual(coarse.metrics.exact_solver, 'exact');
  assert.ok(coarse.metrics.budget_used <= 6000);
  // With the bucket fixed, the same limit refuses, naming maxCells, which selectFragments accepts.
  assert.throws(
    () => selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { ...opts, maxCells: 5000, bucketSize: 1 }),
    (e) => e.code === 'TABLE_TOO_LARGE' && e.field === 'maxCells' && /raise bucketSize or maxCells$/.test(e.message),
  );
  assert.deepEqual(selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { now, maxCells: 5000 }).warnings, ["options.maxCells is ignored by slicer 'ranked'"]);
  // One rule for the table limits, whichever entry point reads them.
  const columns = { tokens: Uint32Array.of(10), scores: Float64Array.of(0.5) };
  for (const name of ['maxCells', 'maxTableBytes']) {
    for (const bad of [0, -1, 1.5, '9']) {
      const messages = [
        () => selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { ...opts, [name]: bad }),
        () => sliceColumns('exact-count', columns, { targetTokens: 100 }, { entries: [], [name]: bad }),
      ].map((call) => {
        try {
          call();
          return 'accepted';
        } catch (e) {
          return `${e.code} ${e.field} ${e.message}`;
        }
      });
      assert.equal(messages[0], messages[1], `${name} ${bad}`);
      // The core's refusal, for both.
      assert.match(messages[0], new RegExp(`^INVALID_OPTION ${name} options.${name} must be an integer from 1 to 2\\^53 - 1, got`));
    }
  }
});
