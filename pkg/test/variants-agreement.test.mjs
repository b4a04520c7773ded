// The package and the crate agree on variants: seeded random instances (up to 12 items of up to 3
// versions, groups, dependencies) go through the package's slicer functions and, in one process,
// through the crate's own `Variants::slice` (examples/variant_slice.rs, built with cargo); both must
// select the same items, in the same versions, with the same reason for every item, `repaired`
// included, or refuse with the same code and field. Optimality against brute force is checked once,
// in Rust (tests/variants.rs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CtxpackError, countConstrainedKnapsackSlice, exactKnapsackSlice, greedySlice, knapsackSlice, packGreedy } from 'ctxpack';
import { items as randomItems, rng } from './rng.mjs';

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
/** The package's call for each strategy the example knows, with the same settings. */
const STRATEGIES = {
  greedy: (l, b, o) => greedySlice(l, b, o),
  packer: (l, b, o) => packGreedy(l, b, { maxConsecutiveSkips: 2, ...o }),
  knapsack: (l, b, o) => knapsackSlice(l, b, { bucketSize: 1, ...o }),
  'knapsack-100': (l, b, o) => knapsackSlice(l, b, o),
  exact: (l, b, o) => exactKnapsackSlice(l, b, o),
  'count-knapsack': (l, b, o) => countConstrainedKnapsackSlice(l, b, { entries: [], bucketSize: 1, scarcity: 'degrade', ...o }),
};

/** The instance in the example's line format (dependencies as indexes; ids naming no item dropped, as the package drops them). */
function lines(name, mode, list, target) {
  const index = new Map(list.map((it, i) => [it.id, i]));
  const out = [`${name} ${mode} ${target} ${list.length}`];
  for (const it of list) {
    const deps = (it.dependencies ?? []).filter((d) => index.has(d)).map((d) => index.get(d));
    const versions = (it.variants ?? []).map((v) => `${v.tokens}:${String(v.score)}`);
    out.push(`${it.tokens} ${String(it.score)} ${it.group ?? '-'} ${deps.length === 0 ? '-' : deps.join(',')} ${versions.length === 0 ? '-' : versions.join(',')}`);
  }
  return out;
}

/** The package's answer in the example's output format. */
function packageLine(name, mode, list, target) {
  try {
    const r = STRATEGIES[name](list, { targetTokens: target }, { dependencies: mode });
    const index = new Map(list.map((it, i) => [it.id, i]));
    const repaired = r.repaired === undefined ? '-' : r.repaired ? '1' : '0';
    const versions = r.decisions.map((d) => (!d.included ? 'x' : d.variant == null ? '0' : String(d.variant + 1)));
    return `ok ${r.selected.map((id) => index.get(id)).join(',')}|${r.decisions.map((d) => d.reason).join(',')}|${versions.join(',')}|${repaired}`;
  } catch (err) {
    if (!(err instanceof CtxpackError)) throw err;
    return `err ${err.code} ${err.field ?? '-'}`;
  }
}

test('the package selects as the crate on random variant instances, every strategy, with groups and both dependency modes', () => {
  const cases = [];
  for (let seed = 1; seed <= 120; seed++) {
    const r = rng(seed);
    const list = randomItems(r, { maxN: 12, groupP: 0.3, depP: 0.3 });
    for (const it of list) {
      const k = r.int(0, 2);
      if (k > 0) it.variants = Array.from({ length: k }, () => ({ tokens: r.int(0, Math.max(1, it.tokens)), score: r.next() }));
    }
    const target = r.int(0, 250);
    for (const name of Object.keys(STRATEGIES)) for (const mode of ['ignore', 'require']) cases.push({ seed, name, mode, list, target });
  }
  execFileSync('cargo', ['build', '--quiet', '--example', 'variant_slice'], { cwd: ROOT, stdio: 'inherit' });
  const input = cases.flatMap((c) => lines(c.name, c.mode, c.list, c.target)).join('\n') + '\n';
  const crate = execFileSync(join(ROOT, 'target', 'debug', 'examples', 'variant_slice'), { input, encoding: 'utf8', maxBuffer: 64 << 20 }).trimEnd().split('\n');
  assert.equal(crate.length, cases.length);
  let shortened = 0;
  let refusals = 0;
  cases.forEach((c, i) => {
    const ours = packageLine(c.name, c.mode, c.list, c.target);
    assert.equal(ours, crate[i], `seed ${c.seed}, ${c.name}, dependencies ${c.mode}`);
    if (ours.startsWith('ok') && /(^|,)[1-9]/.test(ours.split('|')[2])) shortened++;
    if (ours.startsWith('err')) refusals++;
  });
  // Not trivial: many instances take a shorter version, and count-knapsack refuses variants.
  assert.ok(shortened > cases.length / 4, `${shortened} of ${cases.length} take a shorter version`);
  assert.ok(refusals > 0, 'some instances are refused');
});

test('slicer functions refuse bad variants naming the item and the field', () => {
  const refuse = (variants, field) =>
    assert.throws(
      () => exactKnapsackSlice([{ id: 'a', tokens: 5, score: 0.5 }, { id: 'b', tokens: 5, score: 0.5, variants }], { targetTokens: 10 }),
      (e) => e.code === 'INVALID_FIELD' && e.field === field && e.index === 1,
    );
  refuse('x', 'variants');
  refuse([3], 'variants[0]');
  refuse([{ tokens: -1, score: 0.1 }], 'variants[0].tokens');
  refuse([{ tokens: 1, score: 0.1 }, { tokens: 1, score: Number.NaN }], 'variants[1].score');
});
