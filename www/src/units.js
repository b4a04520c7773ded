// The units selectFragments plans with groups (and required dependencies): fragments that share a
// group, and with dependencies 'require' fragments that depend on each other in a cycle, go in
// together or not at all. The page needs them for one rule the package applies around the
// strategy, the overshoot (see overshootOf in curve.js), which looks at units, and admits only a
// fragment that goes in alone. Mirrors the package's documented rules (README, selectFragments
// step 4), over the candidates in rank order.

/**
 * @typedef {object} Units
 * @property {Uint32Array} unitOf  Per rank, its unit; units are numbered by their best-ranked member.
 * @property {number[][]} members  Per unit, its members' ranks, ascending.
 * @property {number[]} tokens  Per unit, the sum of its members' tokens.
 * @property {boolean[]} needy  Per unit, whether it needs a candidate outside it (required dependencies only).
 */

/**
 * @param {{ ids: string[], tokens: ArrayLike<number>, groups: (string | undefined)[], dependencies: (string[] | undefined)[] }} r
 *   The candidates in rank order; `dependencies` are read only when `require` is set.
 * @param {boolean} require  options.dependencies 'require'.
 * @returns {Units}
 */
export function unitsOf(r, require) {
  const n = r.ids.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x) => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const union = (a, b) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const firstOf = new Map();
  r.groups.forEach((g, i) => {
    if (g === undefined) return;
    if (firstOf.has(g)) union(firstOf.get(g), i);
    else firstOf.set(g, i);
  });
  const edges = [];
  if (require) {
    const rankOf = new Map(r.ids.map((id, i) => [id, i]));
    r.dependencies.forEach((deps, i) => {
      for (const d of deps ?? []) {
        const j = rankOf.get(d);
        if (j !== undefined && j !== i) edges.push([i, j]);
      }
    });
    // Dependency cycles over the grouped candidates go in together as well.
    const out = Array.from({ length: n }, () => []);
    for (const [a, b] of edges) if (find(a) !== find(b)) out[find(a)].push(find(b));
    for (const component of cycles(out)) for (const x of component) union(component[0], x);
  }
  const unitOf = new Uint32Array(n);
  const unitOfRoot = new Map();
  const members = [];
  const tokens = [];
  for (let i = 0; i < n; i++) {
    const root = find(i);
    if (!unitOfRoot.has(root)) {
      unitOfRoot.set(root, members.length);
      members.push([]);
      tokens.push(0);
    }
    const u = unitOfRoot.get(root);
    unitOf[i] = u;
    members[u].push(i);
    tokens[u] += r.tokens[i];
  }
  const needy = members.map(() => false);
  for (const [a, b] of edges) if (unitOf[a] !== unitOf[b]) needy[unitOf[a]] = true;
  return { unitOf, members, tokens, needy };
}

/** The strongly connected components of more than one node (Tarjan's algorithm, iterative). */
function cycles(out) {
  const n = out.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = [];
  const found = [];
  let next = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work = [[root, 0]];
    while (work.length > 0) {
      const frame = work.at(-1);
      const [v, e] = frame;
      if (e === 0) {
        index[v] = low[v] = next++;
        stack.push(v);
        onStack[v] = 1;
      }
      if (e < out[v].length) {
        frame[1] = e + 1;
        const w = out[v][e];
        if (index[w] === -1) work.push([w, 0]);
        else if (onStack[w] === 1) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      work.pop();
      if (work.length > 0) low[work.at(-1)[0]] = Math.min(low[work.at(-1)[0]], low[v]);
      if (low[v] === index[v]) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        if (component.length > 1) found.push(component);
      }
    }
  }
  return found;
}
