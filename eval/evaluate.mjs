// Runs every strategy on every case at every budget and counts the evidence each keeps and where it
// lands in the prompt. Shared by `make eval` (run.mjs) and the bounded check in `make test`
// (eval.test.mjs).
import { STRATEGIES, probe } from './strategies.mjs';
import { join } from 'node:path';
import { agentCases, dialogueCases, recordedCases } from './datasets.mjs';
import { QA_BOUNDED, qaCases, qaData } from './public.mjs';

/** Budgets as shares of the history (every message's tokens, the question included). */
export const BUDGETS = [0.05, 0.1, 0.2, 0.4];
export const POSITIONS = ['start', 'middle', 'end'];

/**
 * The bounded evaluation of `make test`: generated conversations and dialogues, the recorded
 * sessions, and a slice of the public QA haystacks (`QA_BOUNDED`; the Makefile installs their
 * package into `.cache/eval/py`). `data` is what `qaData` read, when the caller has it already.
 */
export const BOUNDED_SEEDS = Array.from({ length: 8 }, (_, i) => i + 1);
export function boundedCases(root, data = qaData(join(root, '.cache/eval/py'))) {
  if (data === undefined) throw new Error('the public QA sets are not in .cache/eval/py: run `make test-eval` or `make eval-deps`, which install them');
  return [
    ...agentCases(BOUNDED_SEEDS),
    ...dialogueCases(BOUNDED_SEEDS.slice(0, 5)),
    ...recordedCases(root),
    ...['squad', 'hotpotqa'].flatMap((d) => qaCases(`${d}-${QA_BOUNDED.size}`, data[d], QA_BOUNDED)),
  ];
}

/**
 * Where the middle of message `i` lands in the prompt as sent (the kept messages in conversation
 * order, by tokens): the first, middle or last third.
 */
export function position(kept, costs, i) {
  let before = 0;
  let total = 0;
  for (const j of kept) {
    if (j < i) before += costs[j];
    total += costs[j];
  }
  const at = total === 0 ? 0 : (before + costs[i] / 2) / total;
  return POSITIONS[Math.min(2, Math.floor(at * 3))];
}

const empty = () => ({ evidence: 0, kept: 0, cases: 0, complete: 0, skipped: 0, start: 0, middle: 0, end: 0 });

/**
 * `results[strategy][dataset][budget]` (and `[strategy][dataset + '/' + kind][budget]` for cases
 * with a kind): evidence turns, how many were kept, cases, cases with all their evidence kept,
 * cases skipped because what must be kept exceeds the budget, and the kept evidence's positions.
 */
export async function evaluate(cases, { budgets = BUDGETS, strategies = STRATEGIES } = {}) {
  const results = {};
  for (const s of strategies) results[s.name] = {};
  for (const c of cases) {
    const p = probe(c.messages);
    for (const b of budgets) {
      const tokens_max = Math.floor(b * p.total);
      const skip = p.pinnedTokens > tokens_max;
      for (const s of strategies) {
        const kept = skip ? [] : await s.run(c.messages, p, tokens_max);
        const keptSet = new Set(kept);
        for (const key of c.kind === undefined ? [c.dataset] : [c.dataset, `${c.dataset}/${c.kind}`]) {
          const byBudget = (results[s.name][key] ??= {});
          const r = (byBudget[b] ??= empty());
          if (skip) {
            r.skipped++;
            continue;
          }
          r.cases++;
          r.evidence += c.evidence.length;
          let k = 0;
          for (const i of c.evidence) {
            if (!keptSet.has(i)) continue;
            k++;
            r[position(kept, p.costs, i)]++;
          }
          r.kept += k;
          if (k === c.evidence.length) r.complete++;
        }
      }
    }
  }
  return results;
}

/** The share of evidence turns kept. */
export const recall = (r) => (r.evidence === 0 ? 0 : r.kept / r.evidence);

/** `{ [strategy]: { [dataset]: { [budget]: recall } } }`, rounded to 4 decimals: what baseline.json holds. */
export function recallTable(results) {
  const out = {};
  for (const [s, byData] of Object.entries(results)) {
    out[s] = {};
    for (const [d, byBudget] of Object.entries(byData)) {
      out[s][d] = Object.fromEntries(Object.entries(byBudget).map(([b, r]) => [b, Math.round(recall(r) * 1e4) / 1e4]));
    }
  }
  return out;
}
