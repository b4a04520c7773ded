// The bounded evaluation of `make test` (target test-eval): the generated agent conversations of
// BOUNDED_SEEDS and the recorded sessions, every strategy at every budget, no download. Fails when
// any strategy's evidence recall drops more than the tolerance below eval/baseline.json (written by
// `make eval`), or when fitMessages' defaults stop meeting issue 18's targets at 10 %.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { agentConversation } from './agents.mjs';
import { boundedCases, evaluate, recallTable } from './evaluate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const baseline = JSON.parse(readFileSync(join(root, 'eval/baseline.json'), 'utf8'));
const results = await evaluate(boundedCases(root));
const now = recallTable(results);

test('evidence recall holds the committed figures within the tolerance', () => {
  const drops = [];
  for (const [s, byData] of Object.entries(baseline.recall)) {
    for (const [d, byBudget] of Object.entries(byData)) {
      for (const [b, was] of Object.entries(byBudget)) {
        const is = now[s]?.[d]?.[b];
        assert.ok(is !== undefined, `${s} / ${d} / ${b} is no longer measured`);
        if (is < was - baseline.tolerance) drops.push(`${s} on ${d} at ${b * 100} %: ${(100 * is).toFixed(1)} % < ${(100 * was).toFixed(1)} %`);
      }
    }
  }
  assert.deepEqual(drops, []);
});

test('fitMessages defaults at 10 %: at least twice the newest-first window and at least BM25 alone (generated conversations)', () => {
  const at = (s) => now[s].agents['0.1'];
  assert.ok(at('fitMessages (defaults)') >= 2 * at('newest-first window'), 'twice the newest-first window');
  assert.ok(at('fitMessages (defaults)') >= at('BM25 alone'), 'at least BM25 alone');
});

test('generated conversations: the same seed gives the same conversation, and a correction comes after the fact it supersedes', () => {
  for (const seed of [1, 2, 3]) {
    const a = agentConversation(seed);
    assert.deepEqual(agentConversation(seed), a);
    for (const c of a.cases) for (const i of c.evidence) assert.ok(i > 0 && i < a.messages.length, `${c.kind} evidence ${i}`);
    const corr = a.cases.find((c) => c.kind === 'correction');
    assert.ok(corr.stale[0] < corr.evidence[0]);
    assert.match(a.messages[corr.evidence[0]].content, /^Correction: /);
  }
  assert.notDeepEqual(agentConversation(1).messages, agentConversation(2).messages);
});
