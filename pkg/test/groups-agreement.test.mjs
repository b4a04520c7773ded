// The package and the crate agree on groups and dependencies: seeded random instances go through
// the package's slicer functions and, in one process, through the crate's own `Groups::slice`
// (examples/grouped_slice.rs, built with cargo), and both must select the same items in the same
// order with the same reason for every item, `repaired` included, or refuse with the same code and
// field. Optimality against brute force is checked once, in Rust (tests/groups.rs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerLine, depsField, runExample, strategies } from './agreement.mjs';
import { items as randomItems, rng } from './rng.mjs';

const STRATEGIES = strategies([{ kind: 'tool', requireCount: 1, capCount: 2 }]);

/** The instance in the example's line format. */
function lines(name, mode, list, target) {
  return [`${name} ${mode} ${target} ${list.length}`, ...list.map((it) => `${it.tokens} ${String(it.score)} ${it.kind ?? '-'} ${it.group ?? '-'} ${depsField(list, it)}`)];
}

/** The package's answer in the example's output format. */
function packageLine(name, mode, list, target) {
  return answerLine(list, () => STRATEGIES[name](list, { targetTokens: target }, { dependencies: mode }));
}

test('the package selects as the crate on random group and dependency instances, every strategy, both modes', () => {
  const cases = [];
  for (let seed = 1; seed <= 150; seed++) {
    const r = rng(seed);
    const list = randomItems(r, { maxN: 12, kinds: ['', 'doc', 'tool', 'Tool'], groupP: 0.4, depP: 0.35 });
    const target = r.int(0, 250);
    for (const name of Object.keys(STRATEGIES)) for (const mode of ['ignore', 'require']) cases.push({ seed, name, mode, list, target });
  }
  const crate = runExample('grouped_slice', cases.flatMap((c) => lines(c.name, c.mode, c.list, c.target)));
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
