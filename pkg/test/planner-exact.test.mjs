// selectFragments with the exact strategies: same ranking, the exact slicer's selection, never
// less value than the seed knapsack, counts within the budget.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { exactKnapsackSlice, selectFragments } from 'ctxpack';

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
