// The source folders form layers: no folder of pkg/src imports a folder that imports it back
// (index.ts and the subpath entries, which re-export every layer, aside). A cycle is named with
// the files that make it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const ENTRIES = new Set(['index.ts', 'slicers.ts', 'acs.ts']);

/** A file's group: its folder under src/, or the file itself at the top. */
const groupOf = (file) => relative(SRC, file).split(sep)[0];

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []);
}

/** group → group → the files importing across. */
function folderGraph() {
  const edges = new Map();
  for (const file of sources(SRC)) {
    if (dirname(file) === SRC && ENTRIES.has(relative(SRC, file))) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = normalize(join(dirname(file), m[1]));
      if (!target.startsWith(SRC)) continue; // the wasm glue, outside src/
      const a = groupOf(file);
      const b = groupOf(target).replace(/\.js$/, '.ts');
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      const to = edges.get(a);
      if (!to.has(b)) to.set(b, []);
      to.get(b).push(relative(SRC, file));
    }
  }
  return edges;
}

/** The cycles of a graph (group → Map of group → files), each as `a -> b (files)` steps: Tarjan's strongly connected components of two or more groups. */
function cyclesOf(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const cycles = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) cycles.push(comp);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles.map((comp) =>
    comp.flatMap((x) => [...(edges.get(x) ?? new Map())].filter(([y]) => comp.includes(y)).map(([y, files]) => `${x} -> ${y} (${files.join(', ')})`)).join('; '));
}

test('no folder of pkg/src imports a folder that imports it back, directly or through others', () => {
  const edges = folderGraph();
  assert.ok(edges.size > 5, 'the graph was read');
  assert.deepEqual(cyclesOf(edges), []);
});

test('the cycle check names a cycle through three folders, and passes a chain', () => {
  const g = (pairs) => new Map(Object.entries(pairs).map(([a, bs]) => [a, new Map(bs.map((b) => [b, [`${a}/x.ts`]]))]));
  assert.deepEqual(cyclesOf(g({ a: ['b'], b: ['c'], c: [] })), []);
  const found = cyclesOf(g({ a: ['b'], b: ['c'], c: ['a'] }));
  assert.equal(found.length, 1);
  for (const step of ['a -> b (a/x.ts)', 'b -> c (b/x.ts)', 'c -> a (c/x.ts)']) assert.ok(found[0].includes(step), found[0]);
});

test('util/ is a leaf: it imports nothing of the package but errors.ts', () => {
  const edges = folderGraph();
  const fromUtil = [...(edges.get('util') ?? new Map()).keys()];
  assert.deepEqual(fromUtil.filter((g) => g !== 'errors.ts'), []);
  assert.ok(edges.get('messages')?.has('util'), 'messages uses util');
});
