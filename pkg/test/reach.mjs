// Reachability over a planner call's fragments, written here without the package's grouping code:
// the oracle of the group, dependency and pinning tests.

/** Edges between fragments of the call: group partners both ways, dependencies (in 'require' mode) one way. */
export function edges(fragments, mode) {
  const index = new Map(fragments.map((f, i) => [f.id, i]));
  const out = fragments.map(() => new Set());
  fragments.forEach((f, i) => {
    if (f.group !== undefined) fragments.forEach((g, j) => j !== i && g.group === f.group && out[i].add(j));
    if (mode === 'require') for (const d of f.dependencies ?? []) if (index.has(d) && index.get(d) !== i) out[i].add(index.get(d));
  });
  return out;
}

/** Everything the items `from` bring along: their group partners and their dependencies, transitively. */
export function closure(out, ...from) {
  const seen = new Set(from);
  const stack = [...from];
  while (stack.length > 0) for (const j of out[stack.pop()]) if (!seen.has(j)) seen.add(j), stack.push(j);
  return seen;
}
