// The package and the crate agree on groups and dependencies: seeded random instances go through
// the package's slicer functions and, in one process, through the crate's own `Groups::slice`
// (examples/grouped_slice.rs, built with cargo), and both must select the same items in the same
// order with the same reason for every item, `repaired` included, or refuse with the same code and
// field. Optimality against brute force is checked once, in Rust (tests/groups.rs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  CtxpackError,
  countConstrainedKnapsackSlice,
  exactCountConstrainedSlice,
  exactKnapsackSlice,
  greedySlice,
  knapsackSlice,
  packGreedy,
} from 'ctxpack';
import { items as randomItems, rng } from './rng.mjs';

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const ENTRIES = [{ kind: 'tool', requireCount: 1, capCount: 2 }];
/** The package's call for each strategy the example knows, with the same settings. */
const STRATEGIES = {
  greedy: (l, b, o) => greedySlice(l, b, o),
  packer: (l, b, o) => packGreedy(l, b, { maxConsecutiveSkips: 2, ...o }),
  knapsack: (l, b, o) => knapsackSlice(l, b, { bucketSize: 1, ...o }),
  'knapsack-100': (l, b, o) => knapsackSlice(l, b, o),
  exact: (l, b, o) => exactKnapsackSlice(l, b, o),
  'count-knapsack': (l, b, o) => countConstrainedKnapsackSlice(l, b, { entries: ENTRIES, bucketSize: 1, scarcity: 'degrade', ...o }),
  'exact-count': (l, b, o) => exactCountConstrainedSlice(l, b, { entries: ENTRIES, scarcity: 'degrade', ...o }),
};

/** The instance in the example's line format; dependencies as indexes (ids naming no item are dropped, as the package drops them). */
function lines(name, mode, list, target) {
  const index = new Map(list.map((it, i) => [it.id, i]));
  const out = [`${name} ${mode} ${target} ${list.length}`];
  for (const it of list) {
    const deps = (it.dependencies ?? []).filter((d) => index.has(d)).map((d) => index.get(d));
    out.push(`${it.tokens} ${String(it.score)} ${it.kind ?? '-'} ${it.group ?? '-'} ${deps.length === 0 ? '-' : deps.join(',')}`);
  }
  return out;
}

/** The package's answer in the example's output format. */
function packageLine(name, mode, list, target) {
  try {
    const r = STRATEGIES[name](list, { targetTokens: target }, { dependencies: mode });
    const index = new Map(list.map((it, i) => [it.id, i]));
    const repaired = r.repaired === undefined ? '-' : r.repaired ? '1' : '0';
    return `ok ${r.selected.map((id) => index.get(id)).join(',')}|${r.decisions.map((d) => d.reason).join(',')}|${repaired}`;
  } catch (err) {
    if (!(err instanceof CtxpackError)) throw err;
    return `err ${err.code} ${err.field ?? '-'}`;
  }
}

test('the package selects as the crate on random group and dependency instances, every strategy, both modes', () => {
  const cases = [];
  for (let seed = 1; seed <= 150; seed++) {
    const r = rng(seed);
    const list = randomItems(r, { maxN: 12, kinds: ['', 'doc', 'tool', 'Tool'], groupP: 0.4, depP: 0.35 });
    const target = r.int(0, 250);
    for (const name of Object.keys(STRATEGIES)) for (const mode of ['ignore', 'require']) cases.push({ seed, name, mode, list, target });
  }
  execFileSync('cargo', ['build', '--quiet', '--example', 'grouped_slice'], { cwd: ROOT, stdio: 'inherit' });
  const input = cases.flatMap((c) => lines(c.name, c.mode, c.list, c.target)).join('\n') + '\n';
  const crate = execFileSync(join(ROOT, 'target', 'debug', 'examples', 'grouped_slice'), { input, encoding: 'utf8', maxBuffer: 64 << 20 }).trimEnd().split('\n');
  assert.equal(crate.length, cases.length);
  let selections = 0;
  let refusals = 0;
  cases.forEach((c, i) => {
    const ours = packageLine(c.name, c.mode, c.list, c.target);
    assert.equal(ours, crate[i], `seed ${c.seed}, ${c.name}, dependencies ${c.mode}`);
    if (ours.startsWith('ok') && ours.split('|')[0] !== 'ok ') selections++;
    if (ours.startsWith('err')) refusals++;
  });
  // The instances are not trivial: most select something, and the count strategies' refusals of groups holding a tool occur.
  assert.ok(selections > cases.length / 2, `${selections} of ${cases.length} select something`);
  assert.ok(refusals > 0, 'some instances are refused');
});
