// A tiny seeded generator for the property tests of groups, dependencies, the exact strategies and
// the budget simulation (mulberry32: integer arithmetic only, reproducible from its seed).

export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (xs) => xs[int(0, xs.length - 1)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

/** The knapsack's value of a score. */
export const scaled = (score) => Math.max(0, Math.floor(score * 10000));

/** A score: continuous, hundredths (ties) or a small palette (many ties); sometimes negative. */
export function score(r) {
  const mode = r.int(0, 3);
  const s = mode === 0 ? r.next() : mode === 1 ? r.int(0, 100) / 100 : mode === 2 ? r.pick([0, 0.1, 0.25, 0.5, 1]) : r.int(0, 10000) / 10000;
  return r.chance(0.08) ? -s : s;
}

/**
 * Up to `maxN` items with ids `i0…`, tokens up to `maxTokens` (some zero), kinds from `kinds`,
 * optional groups (`groupP`) and dependencies (`depP`, on any other item, sometimes on an unknown id;
 * a self-dependency is refused by the core, so a draw of the item itself names an unknown id).
 */
/** The id of item `j` as a dependency of item `i`: an unknown id when `j` is `i`. */
const other = (i, j) => (i === j ? 'unknown-self' : `i${j}`);

export function items(r, { maxN = 10, maxTokens = 60, kinds = [''], groupP = 0, depP = 0 } = {}) {
  const n = r.int(0, maxN);
  const out = [];
  for (let i = 0; i < n; i++) {
    const it = { id: `i${i}`, tokens: r.chance(0.1) ? 0 : r.int(1, maxTokens), score: score(r) };
    const kind = r.pick(kinds);
    if (kind !== '') it.kind = kind;
    if (r.chance(groupP)) it.group = `g${r.int(0, Math.max(1, n >> 2))}`;
    if (r.chance(depP)) {
      it.dependencies = [];
      for (let k = r.int(1, 2); k > 0; k--) it.dependencies.push(r.chance(0.1) ? `unknown${k}` : other(i, r.int(0, n - 1)));
    }
    out.push(it);
  }
  return out;
}

/** The total value of the selected ids. */
export function valueOf(list, selected) {
  const byId = new Map(list.map((it) => [it.id, it]));
  return selected.reduce((a, id) => a + scaled(byId.get(id).score), 0);
}
