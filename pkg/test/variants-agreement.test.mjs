// The package and the crate agree on variants: seeded random instances (up to 12 items of up to 3
// versions, groups, dependencies) go through the package's slicer functions and, in one process,
// through the crate's own `Variants::slice` (examples/variant_slice.rs, built with cargo); both must
// select the same items, in the same versions, with the same reason for every item, `repaired`
// included, or refuse with the same code and field. Optimality against brute force is checked once,
// in Rust (tests/variants.rs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactKnapsackSlice } from 'ctxpack/slicers';
import { answerLine, depsField, runExample, strategies } from './agreement.mjs';
import { items as randomItems, rng } from './rng.mjs';

// The example knows no exact-count; count-knapsack has no entries (it refuses variants).
const { 'exact-count': _exactCount, ...STRATEGIES } = strategies([]);

/** The instance in the example's line format. */
function lines(name, mode, list, target) {
  const row = (it) => {
    const versions = (it.variants ?? []).map((v) => `${v.tokens}:${String(v.score)}`);
    return `${it.tokens} ${String(it.score)} ${it.group ?? '-'} ${depsField(list, it)} ${versions.length === 0 ? '-' : versions.join(',')}`;
  };
  return [`${name} ${mode} ${target} ${list.length}`, ...list.map(row)];
}

/** The package's answer in the example's output format (with the version of each item: 0 itself, x none). */
function packageLine(name, mode, list, target) {
  const versions = (r) => [r.decisions.map((d) => (!d.included ? 'x' : d.variant == null ? '0' : String(d.variant + 1))).join(',')];
  return answerLine(list, () => STRATEGIES[name](list, { targetTokens: target }, { dependencies: mode }), versions);
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
  const crate = runExample('variant_slice', cases.flatMap((c) => lines(c.name, c.mode, c.list, c.target)));
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
