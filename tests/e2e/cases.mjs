// Seeded random planning cases for the cross-runtime determinism test, and the canonical form of
// a plan (everything but the timing) that must be byte-identical in every runtime.

/** A plan as a string: ids in order, decisions, KV policy, warnings, metrics without planner_ms. */
export function canonicalPlan(plan) {
  const { planner_ms: _timing, ...metrics } = plan.metrics;
  return JSON.stringify({ ids: plan.fragments.map((f) => f.id), decisions: plan.decisions, kvPolicy: plan.kvPolicy, warnings: plan.warnings, metrics });
}

/** `count` cases from `seed`: every slicer, sizes 0 to 120, ties, ISO and epoch times, dependencies. */
export function makeCases(count, seed) {
  let s = seed | 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const NOW = Date.parse('2026-11-20T12:00:00Z');
  const ENTITIES = ['auth', 'db', 'cache', 'deploy', 'billing', 'ui', 'search'];
  const SLICERS = ['ranked', 'greedy', 'knapsack', 'count-knapsack', 'packer', 'exact', 'exact-count'];
  const COUNTED = ['count-knapsack', 'exact-count'];
  const cases = [];
  for (let c = 0; c < count; c++) {
    const n = Math.floor(rand() ** 1.5 * 120);
    const fragments = [];
    for (let i = 0; i < n; i++) {
      const age = Math.floor(rand() * 60 * 86_400_000);
      const f = {
        id: `c${c}-${i}`,
        // Repeated costs and times make score ties, so the tie-break rules decide.
        cost_tokens: rand() < 0.2 ? 100 : Math.floor(rand() * 3000),
        entities: ENTITIES.filter(() => rand() < 0.3),
        timestamp: rand() < 0.5 ? NOW - age : new Date(NOW - age).toISOString(),
        citations: rand() < 0.4 ? ['a', 'b'].slice(0, 1 + Math.floor(rand() * 2)) : [],
        lod: pick(['macro', 'micro', 'atomic']),
        kind: pick(['message', 'tool', 'doc', 'memory']),
        source: pick(['chat', 'tools', 'docs', 'web', undefined]),
      };
      if (rand() < 0.2 && i > 0) f.dependencies = [`c${c}-${Math.floor(rand() * i)}`];
      // Groups (tool calls with their results); never on the kinds the count entries constrain.
      if (rand() < 0.25 && (f.kind === 'message' || f.kind === 'memory')) f.group = `g${Math.floor(rand() * (n / 3 + 1))}`;
      if (rand() < 0.3) f.lastAccessTime = NOW - Math.floor(rand() * 3 * 86_400_000);
      if (rand() < 0.1) f.benefit = rand();
      fragments.push(f);
    }
    const total = fragments.reduce((t, f) => t + f.cost_tokens, 0);
    const slicer = SLICERS[c % SLICERS.length];
    const options = { slicer, now: NOW, allow_overshoot: rand() < 0.3 };
    if (slicer === 'knapsack' || slicer === 'count-knapsack') options.bucketSize = pick([1, 10, 100]);
    if (!COUNTED.includes(slicer) && rand() < 0.4) options.dependencies = 'require';
    if (COUNTED.includes(slicer)) options.countEntries = [{ kind: 'tool', requireCount: 1, capCount: 2 }, { kind: 'DOC', requireCount: 0, capCount: 1 }];
    if (slicer === 'packer') options.maxConsecutiveSkips = Math.floor(rand() * 4);
    if (rand() < 0.3) options.previousCache = fragments.slice(0, 5).map((f) => ({ id: f.id, lastAccessTime: NOW - 3_600_000, sizeTokens: f.cost_tokens }));
    cases.push({ fragments, gaze: { entities: ENTITIES.filter(() => rand() < 0.4) }, budgets: { tokens_max: Math.floor(rand() * total * 0.8) }, options });
  }
  return cases;
}
