// Soak: many selectFragments calls in one Node process on varied inputs, reporting wasm memory
// and the JS heap at intervals. Fails when memory still grows after warm-up.
//
//   node --expose-gc tests/soak/soak.mjs [--calls 1000000]
//
// The inputs cycle through a fixed pool (sizes 0 to 400, every slicer, budgets from 0 to above
// the total), with a malformed request every 997th call to check that errors leak nothing either.
// Then a burst of large knapsack calls (about 48 MB of table each) and traps of the core, after
// which one small call must leave wasm memory under the default limit (32 MiB): the package
// replaces an instance that grew past it, or that trapped.
import { parseArgs } from 'node:util';
import { CtxpackError, selectFragments, wasmMemoryBytes } from '../../pkg/dist/node.js';
import { budgetCurve, sliceColumns } from '../../pkg/dist/node-slicers.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '1000000' } } });
const calls = Number(values.calls);
if (!Number.isSafeInteger(calls) || calls < 1000) throw new Error('--calls must be an integer of at least 1000');
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

let seed = 7;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const NOW = Date.parse('2026-11-20T12:00:00Z');
const ENTITIES = ['auth', 'session', 'db', 'cache', 'deploy', 'billing'];
const SLICERS = ['ranked', 'greedy', 'knapsack', 'count-knapsack', 'packer'];

const pool = Array.from({ length: 48 }, (_, p) => {
  const n = p === 0 ? 0 : Math.floor(rand() ** 2 * 400);
  const fragments = Array.from({ length: n }, (_, i) => ({
    id: `p${p}-f${i}`,
    cost_tokens: Math.floor(20 + rand() * 900),
    entities: ENTITIES.filter(() => rand() < 0.3),
    timestamp: NOW - Math.floor(rand() * 30 * 86_400_000),
    citations: rand() < 0.5 ? ['c'] : [],
    lod: ['macro', 'micro', 'atomic'][Math.floor(rand() * 3)],
    kind: ['message', 'tool', 'doc'][Math.floor(rand() * 3)],
    source: ['chat', 'tools', 'docs', 'web'][Math.floor(rand() * 4)],
    content: 'x'.repeat(Math.floor(rand() * 2000)),
  }));
  const total = fragments.reduce((s, f) => s + f.cost_tokens, 0);
  return { fragments, budget: Math.floor(rand() * total * 1.2) };
});

function call(i) {
  const { fragments, budget } = pool[i % pool.length];
  const slicer = SLICERS[i % SLICERS.length];
  const options = { slicer, now: NOW, bucketSize: 50 };
  if (slicer === 'count-knapsack') options.countEntries = [{ kind: 'tool', requireCount: 1, capCount: 3 }];
  if (slicer !== 'knapsack' && slicer !== 'count-knapsack') delete options.bucketSize;
  if (i % 997 === 0) {
    try {
      selectFragments([...fragments, { id: 'bad', cost_tokens: -1 }], { entities: ['auth'] }, { tokens_max: budget }, options);
    } catch (e) {
      if (!(e instanceof CtxpackError)) throw e;
      return;
    }
    throw new Error('a malformed request was accepted');
  }
  selectFragments(fragments, { entities: ['auth', 'db'] }, { tokens_max: budget }, options);
}

const samples = [];
const every = Math.max(1, Math.floor(calls / 20));
const warmup = Math.floor(calls / 10);
const t0 = performance.now();
for (let i = 0; i < calls; i++) {
  call(i);
  if ((i + 1) % every === 0 || i + 1 === warmup) {
    globalThis.gc();
    samples.push({ calls: i + 1, wasm: wasmMemoryBytes(), heap: process.memoryUsage().heapUsed, s: (performance.now() - t0) / 1000 });
  }
}
const mb = (b) => (b / 1048576).toFixed(2);
console.log('calls        wasm MiB   JS heap MiB   seconds');
for (const s of samples) console.log(`${String(s.calls).padEnd(13)}${mb(s.wasm).padStart(8)}   ${mb(s.heap).padStart(11)}   ${s.s.toFixed(1).padStart(7)}`);

const base = samples.find((s) => s.calls >= warmup);
const last = samples[samples.length - 1];
const wasmGrew = last.wasm > base.wasm;
const heapGrew = last.heap > base.heap * 1.25 + 4 * 1048576;
console.log(`after warm-up (${base.calls} calls): wasm ${mb(base.wasm)} → ${mb(last.wasm)} MiB, heap ${mb(base.heap)} → ${mb(last.heap)} MiB`);

// The burst: large calls grow wasm memory past the limit, traps poison an instance; both are replaced.
const LIMIT = 32 * 1048576;
const n = 2000;
const tokens = new Uint32Array(n).map((_, i) => 50 + (i % 97));
const scores = new Float64Array(n).map((_, i) => ((i * 7919) % 1000) / 1000);
for (let i = 0; i < 20; i++) {
  sliceColumns('knapsack', { tokens, scores }, { targetTokens: 150_000 + i * 2000 }, { bucketSize: 1 });
  try {
    budgetCurve([{ id: 'a', tokens: 10, score: 1 }], 1e9, { slicer: 'knapsack', maxTableBytes: 2 ** 52 });
  } catch (e) {
    if (!(e instanceof CtxpackError) || e.code !== 'INTERNAL') throw e;
  }
}
call(1);
globalThis.gc();
const afterBurst = wasmMemoryBytes();
const rss = process.memoryUsage().rss;
console.log(`after a burst of 20 large knapsack calls and 20 traps, then a small call: wasm ${mb(afterBurst)} MiB (limit ${mb(LIMIT)}), process rss ${mb(rss)} MiB`);
if (afterBurst > LIMIT) {
  console.log('soak: FAIL, wasm memory did not come back after the burst');
  process.exit(1);
}
if (wasmGrew || heapGrew) {
  console.log(`soak: FAIL, memory still grows after warm-up (${wasmGrew ? 'wasm' : 'JS heap'})`);
  process.exit(1);
}
console.log(`soak: ok, ${calls} calls in ${last.s.toFixed(1)} s (${((last.s * 1e6) / calls).toFixed(1)} µs per call); memory flat after warm-up`);
