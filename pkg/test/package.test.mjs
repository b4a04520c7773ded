// The package as users get it: imported by name through package.json `exports` (ESM and
// CommonJS), the browser build's init(), the slicer functions, and errors that leave the module
// working.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from 'ctxpack';
import * as sl from 'ctxpack/slicers';
import * as acs from 'ctxpack/acs';
import * as aiSdk from 'ctxpack/ai-sdk';
import * as agents from 'ctxpack/openai-agents';
import * as langchain from 'ctxpack/langchain';
import * as mastra from 'ctxpack/mastra';

const require = createRequire(import.meta.url);
const cjs = require('ctxpack');
const cjsSlicers = require('ctxpack/slicers');
const cjsAcs = require('ctxpack/acs');
const cjsAiSdk = require('ctxpack/ai-sdk');
const cjsAgents = require('ctxpack/openai-agents');
const cjsLangchain = require('ctxpack/langchain');
const cjsMastra = require('ctxpack/mastra');
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const items = [
  { id: 'a', tokens: 60, score: 0.6 },
  { id: 'b', tokens: 40, score: 0.4, kind: 'tool' },
  { id: 'c', tokens: 10, score: 0.2 },
  { id: 'z', tokens: 0, score: 0.05, kind: 'tool' },
];

test('ESM and CommonJS export the same API from each entry and give the same plans', () => {
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  assert.deepEqual(Object.keys(cjsSlicers).sort(), Object.keys(sl).sort());
  assert.deepEqual(Object.keys(cjsAcs).sort(), Object.keys(acs).sort());
  assert.deepEqual(Object.keys(cjsAiSdk).sort(), Object.keys(aiSdk).sort());
  assert.deepEqual(Object.keys(cjsAgents).sort(), Object.keys(agents).sort());
  assert.equal(typeof agents.ctxpackInputFilter, 'function');
  for (const name of ['ctxpackPrepareStep', 'ctxpackLanguageModelMiddleware']) assert.equal(typeof aiSdk[name], 'function', name);
  assert.deepEqual(Object.keys(cjsLangchain).sort(), Object.keys(langchain).sort());
  assert.equal(typeof langchain.ctxpackAgentMiddleware, 'function');
  assert.deepEqual(Object.keys(cjsMastra).sort(), Object.keys(mastra).sort());
  assert.equal(typeof mastra.ctxpackInputProcessor, 'function');
  for (const name of ['fitMessages', 'fitMessagesAsync', 'createSession', 'selectFragments', 'validateMessages', 'detectMessageFormat', 'init', 'CtxpackError']) {
    assert.equal(typeof esm[name], 'function', name);
  }
  for (const name of ['greedySlice', 'knapsackSlice', 'countConstrainedKnapsackSlice', 'packerSlice', 'exactKnapsackSlice', 'budgetCurve']) {
    assert.equal(typeof sl[name], 'function', name);
  }
  assert.deepEqual(cjsSlicers.knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1 }), sl.knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1 }));
});

test('ctxpack exports the front doors only (at most 30 values); the building blocks are subpaths, each name in one entry', () => {
  const values = Object.keys(esm);
  assert.ok(values.length <= 30, `${values.length} values: ${values.join(' ')}`);
  for (const name of ['greedySlice', 'sliceColumns', 'calculateScore', 'generateKVPolicy', 'PLANNER_SLICERS']) assert.equal(name in esm, false, name);
  const seen = new Map();
  for (const [entry, ns] of [['ctxpack', esm], ['ctxpack/slicers', sl], ['ctxpack/acs', acs], ['ctxpack/ai-sdk', aiSdk], ['ctxpack/openai-agents', agents], ['ctxpack/langchain', langchain], ['ctxpack/mastra', mastra]]) {
    for (const name of Object.keys(ns)) {
      assert.equal(seen.get(name), undefined, `${name} is exported by ${seen.get(name)} and ${entry}`);
      seen.set(name, entry);
    }
  }
});

test('the entries share one core and one CtxpackError: an error from a subpath is the front door\'s class, ESM and CommonJS', () => {
  const bad = () => [{ id: 'a', tokens: -1, score: 1 }];
  assert.throws(() => sl.greedySlice(bad(), { targetTokens: 1 }), (e) => e instanceof esm.CtxpackError && e.code === 'INVALID_FIELD');
  assert.throws(() => cjsSlicers.greedySlice(bad(), { targetTokens: 1 }), (e) => e instanceof cjs.CtxpackError && e.code === 'INVALID_FIELD');
  assert.throws(() => acs.calculateScore(null, { entities: [] }), (e) => e instanceof esm.CtxpackError);
  assert.throws(() => aiSdk.ctxpackLanguageModelMiddleware({}), (e) => e instanceof esm.CtxpackError && e.field === 'budgets');
  assert.throws(() => cjsAiSdk.ctxpackPrepareStep({}), (e) => e instanceof cjs.CtxpackError && e.field === 'budgets');
  assert.throws(() => agents.ctxpackInputFilter({}), (e) => e instanceof esm.CtxpackError && e.field === 'budgets');
  assert.throws(() => cjsAgents.ctxpackInputFilter({}), (e) => e instanceof cjs.CtxpackError && e.field === 'budgets');
  assert.throws(() => langchain.ctxpackAgentMiddleware({}), (e) => e instanceof esm.CtxpackError && e.field === 'budgets');
  assert.throws(() => cjsLangchain.ctxpackAgentMiddleware({}), (e) => e instanceof cjs.CtxpackError && e.field === 'budgets');
  assert.throws(() => mastra.ctxpackInputProcessor({}), (e) => e instanceof esm.CtxpackError && e.field === 'budgets');
  assert.throws(() => cjsMastra.ctxpackInputProcessor({}), (e) => e instanceof cjs.CtxpackError && e.field === 'budgets');
  // Across the two builds too (an application that loads both, one through a dependency): each has
  // its own class, and instanceof reads the brand both share (a new-user trial finding).
  assert.notEqual(esm.CtxpackError, cjs.CtxpackError);
  assert.throws(() => cjsAiSdk.ctxpackPrepareStep({}), (e) => e instanceof esm.CtxpackError);
  assert.throws(() => aiSdk.ctxpackLanguageModelMiddleware({}), (e) => e instanceof cjs.CtxpackError);
  for (const other of [new Error('x'), { code: 'INVALID_FIELD', name: 'CtxpackError' }, null, 'CtxpackError']) assert.equal(other instanceof esm.CtxpackError, false);
});

// Each framework is an optional peer dependency of its adapter's entry: its types only, nothing of
// it in any bundle (no import of it, none of its code), so ctxpack runs where it is not installed.
const FRAMEWORKS = [
  { name: 'the AI SDK', entry: 'ai-sdk', peers: ['ai'], imports: /(from|import|require)\s*\(?\s*["'](ai|@ai-sdk\/[^"']*)["']/, code: /MockLanguageModel|convertToLanguageModelPrompt|standardizePrompt/ },
  { name: 'the OpenAI Agents SDK', entry: 'openai-agents', peers: ['@openai/agents'], imports: /(from|import|require)\s*\(?\s*["']@openai\/agents[^"']*["']/, code: /applyCallModelInputFilter|OpenAIResponsesModel|getInputItems/ },
  { name: 'LangChain', entry: 'langchain', peers: ['langchain', '@langchain/core'], imports: /(from|import|require)\s*\(?\s*["'](langchain|@langchain\/[^"']*)(\/[^"']*)?["']/, code: /createMiddleware|FakeToolCallingModel|BaseChatModel|class \w*Message\b/ },
  { name: 'Mastra', entry: 'mastra', peers: ['@mastra/core'], imports: /(from|import|require)\s*\(?\s*["']@mastra\/[^"']*["']/, code: /runProcessLLMRequest|TokenLimiterProcessor|class MessageList\b/ },
];
for (const { name, entry, peers, imports, code: theirs } of FRAMEWORKS) {
  test(`nothing of ${name} is bundled: no import of ${peers.join(' or ')} in dist, none of its code`, () => {
    const dist = new URL('../dist/', import.meta.url);
    const bundles = readdirSync(dist).filter((f) => f.endsWith('.js') || f.endsWith('.cjs'));
    assert.ok(bundles.includes(`node-${entry}.js`) && bundles.includes(`${entry}.cjs`));
    for (const f of bundles) {
      const code = readFileSync(new URL(f, dist), 'utf8');
      assert.doesNotMatch(code, imports, f);
      assert.doesNotMatch(code, theirs, f);
    }
    for (const peer of peers) {
      assert.equal(pkg.peerDependenciesMeta[peer].optional, true, peer);
      assert.equal(pkg.dependencies?.[peer], undefined, peer);
    }
  });
}

test('package.json carries the runtime conditions, exports the .wasm and declares no side effects', () => {
  const root = pkg.exports['.'];
  assert.deepEqual(Object.keys(root), ['types', 'workerd', 'edge-light', 'node', 'browser', 'default']);
  assert.deepEqual(root.node, { import: './dist/node.js', require: './dist/node.cjs' });
  assert.equal(pkg.exports['./ctxpack_bg.wasm'], './wasm/ctxpack_bg.wasm');
  assert.equal(pkg.sideEffects, false);
  assert.ok(require.resolve('ctxpack/ctxpack_bg.wasm').endsWith('ctxpack_bg.wasm'));
});

test('require() has CommonJS declarations of its own (dist/cjs/*.d.cts), import() the ES ones', () => {
  const entries = { '.': 'index', './slicers': 'slicers', './acs': 'acs', './ai-sdk': 'ai-sdk', './openai-agents': 'openai-agents', './langchain': 'langchain', './mastra': 'mastra', './tokenizers/js-tiktoken': 'tokenizers/js-tiktoken', './tokenizers/gpt-tokenizer': 'tokenizers/gpt-tokenizer' };
  for (const [subpath, name] of Object.entries(entries)) {
    const types = pkg.exports[subpath].types;
    assert.deepEqual(types, { require: `./dist/cjs/${name}.d.cts`, default: `./dist/${name}.d.ts` }, subpath);
    assert.equal(Object.keys(pkg.exports[subpath])[0], 'types', `${subpath}: types first`);
    const cts = readFileSync(new URL(`../${types.require}`, import.meta.url), 'utf8');
    // Relative specifiers name the .cjs siblings (./x.d.cts), never an ES .js.
    assert.doesNotMatch(cts, /from '\.\.?\/[^']*\.js'/, subpath);
    assert.ok(existsSync(new URL(`../${types.default}`, import.meta.url)), subpath);
  }
});

test('init() in Node is optional, idempotent and returns one promise', async () => {
  const first = esm.init();
  assert.equal(esm.init(), first);
  await first;
  assert.equal(esm.isInitialized(), true);
});

test('the browser build refuses to plan before init(), then works after init(bytes), idempotently', async () => {
  const browser = await import('../dist/index.js');
  const browserSlicers = await import('../dist/slicers.js');
  assert.throws(
    () => browserSlicers.greedySlice(items, { targetTokens: 100 }),
    (e) => e instanceof browser.CtxpackError && e.code === 'NOT_INITIALIZED',
  );
  const bytes = readFileSync(new URL('../wasm/ctxpack_bg.wasm', import.meta.url));
  const p = browser.init(bytes);
  assert.equal(browser.init(bytes), p);
  await p;
  // The subpath's core is the one init() loaded.
  assert.deepEqual(browserSlicers.greedySlice(items, { targetTokens: 100 }), sl.greedySlice(items, { targetTokens: 100 }));
});

test('the browser build accepts a compiled WebAssembly.Module', async () => {
  const fresh = await import('../dist/edge-light.js').catch(() => null);
  // edge-light imports '?module', which Node cannot load: only bundlers for Vercel Edge can.
  assert.equal(fresh, null);
  // In a process of its own: the entries share their core through chunks, so a second import of
  // dist/index.js in this process would find the core the test above loaded.
  const script = `
    import { readFileSync } from 'node:fs';
    const mod = await WebAssembly.compile(readFileSync(new URL('../wasm/ctxpack_bg.wasm', import.meta.url)));
    const browser = await import('../dist/index.js');
    const slicers = await import('../dist/slicers.js');
    await browser.init(mod);
    const items = ${JSON.stringify(items)};
    process.stdout.write(slicers.knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1 }).selected.join());`;
  const dir = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.browser-'));
  try {
    writeFileSync(join(dir, 'run.mjs'), script.replaceAll('../', '../../'));
    assert.equal(execFileSync(process.execPath, [join(dir, 'run.mjs')], { encoding: 'utf8' }), 'z,b,a');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('greedySlice: density order, zero-token items always, decisions for all', () => {
  const r = sl.greedySlice(items, { targetTokens: 100 });
  assert.deepEqual(r.selected, ['z', 'c', 'a']);
  assert.deepEqual(
    r.decisions.map((d) => [d.id, d.index, d.included, d.reason]),
    [['a', 0, true, 'scored'], ['b', 1, false, 'budget_exceeded'], ['c', 2, true, 'scored'], ['z', 3, true, 'zero_tokens']],
  );
  assert.equal(r.totalTokens, 70);
  assert.equal(r.budgetReached, true);
});

test('knapsackSlice: optimum over buckets, zero-token first then reconstruction order', () => {
  const r = sl.knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1 });
  assert.deepEqual(r.selected, ['z', 'b', 'a']);
  assert.equal(r.decisions[2].reason, 'not_in_optimal_set');
  // The default bucket of 100 leaves capacity 1: one item of at most 100 tokens.
  assert.deepEqual(sl.knapsackSlice(items, { targetTokens: 100 }).selected, ['z', 'a']);
});

test('countConstrainedKnapsackSlice: require, cap, shortfall, overrun and the spec message on throw', () => {
  const r = sl.countConstrainedKnapsackSlice(items, { targetTokens: 50 }, {
    entries: [{ kind: 'TOOL', requireCount: 2, capCount: 2 }, { kind: 'memory', requireCount: 1, capCount: 1 }],
    bucketSize: 1,
  });
  assert.deepEqual(r.selected, ['b', 'z', 'c']);
  assert.deepEqual(r.shortfalls, [{ kind: 'memory', requiredCount: 1, satisfiedCount: 0 }]);
  assert.equal(r.overBudget, false);
  const over = sl.countConstrainedKnapsackSlice(items, { targetTokens: 30 }, { entries: [{ kind: 'tool', requireCount: 1, capCount: 1 }] });
  assert.deepEqual([over.selected, over.overBudget, over.overrunTokens], [['b'], true, 10]);
  assert.throws(
    () => sl.countConstrainedKnapsackSlice(items, { targetTokens: 100 }, { entries: [{ kind: 'tool', requireCount: 3, capCount: 3 }], scarcity: 'throw' }),
    { name: 'CtxpackError', code: 'COUNT_REQUIREMENT_SHORTFALL', message: "CountConstrainedKnapsackSlice: candidate pool for the kind of entries[0] has 2 items but RequireCount is 3." },
  );
});

test('packerSlice: caller order, skip limit', () => {
  const seq = [
    { id: 'p', tokens: 70, score: 0.9 },
    { id: 'q', tokens: 50, score: 0.8 },
    { id: 'r', tokens: 40, score: 0.7 },
    { id: 's', tokens: 30, score: 0.6 },
  ];
  assert.deepEqual(sl.packerSlice(seq, { targetTokens: 100 }).selected, ['p', 's']);
  const stopped = sl.packerSlice(seq, { targetTokens: 100 }, { maxConsecutiveSkips: 1 });
  assert.deepEqual(stopped.selected, ['p']);
  assert.equal(stopped.decisions[3].reason, 'skip_limit_reached');
});

const errorCases = [
  ['items not an array', () => sl.greedySlice({ length: 1 }, { targetTokens: 1 }), 'INVALID_INPUT'],
  ['item null', () => sl.greedySlice([null], { targetTokens: 1 }), 'INVALID_FIELD', 'items', 0],
  ['missing tokens', () => sl.greedySlice([{ id: 'x', score: 1 }], { targetTokens: 1 }), 'INVALID_FIELD', 'tokens', 0],
  ['negative tokens', () => sl.greedySlice([items[0], { id: 'x', tokens: -1, score: 1 }], { targetTokens: 1 }), 'INVALID_FIELD', 'tokens', 1],
  ['fractional tokens', () => sl.greedySlice([{ id: 'x', tokens: 1.5, score: 1 }], { targetTokens: 1 }), 'INVALID_FIELD', 'tokens', 0],
  ['NaN tokens', () => sl.greedySlice([{ id: 'x', tokens: NaN, score: 1 }], { targetTokens: 1 }), 'INVALID_FIELD', 'tokens', 0],
  ['NaN score', () => sl.greedySlice([{ id: 'x', tokens: 1, score: NaN }], { targetTokens: 1 }), 'INVALID_FIELD', 'score', 0],
  ['duplicate id', () => sl.greedySlice([items[0], items[0]], { targetTokens: 1 }), 'DUPLICATE_ID', 'id', 1],
  ['budget missing', () => sl.greedySlice(items), 'INVALID_BUDGET'],
  ['budget negative', () => sl.greedySlice(items, { targetTokens: -1 }), 'INVALID_BUDGET'],
  ['budget fractional', () => sl.greedySlice(items, { targetTokens: 0.5 }), 'INVALID_BUDGET'],
  ['maxTokens below target', () => sl.greedySlice(items, { targetTokens: 10, maxTokens: 5 }), 'INVALID_BUDGET'],
  ['bucketSize 0', () => sl.knapsackSlice(items, { targetTokens: 10 }, { bucketSize: 0 }), 'INVALID_BUCKET_SIZE'],
  ['unknown option', () => sl.knapsackSlice(items, { targetTokens: 10 }, { bucketsize: 5 }), 'INVALID_OPTION', 'bucketsize'],
  ['table over the limit', () => sl.knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1, maxTableBytes: 64 }), 'TABLE_TOO_LARGE'],
  ['requireCount above capCount', () => sl.countConstrainedKnapsackSlice(items, { targetTokens: 10 }, { entries: [{ kind: 'tool', requireCount: 2, capCount: 1 }] }), 'INVALID_COUNT_ENTRY', 'entries', 0],
  ['scarcity misspelt', () => sl.countConstrainedKnapsackSlice(items, { targetTokens: 10 }, { entries: [], scarcity: 'fail' }), 'INVALID_OPTION'],
];

test('a repeated item id is refused in the words of every other repeated id', () => {
  const list = [{ id: 'x', tokens: 1, score: 1 }, { id: 'y', tokens: 1, score: 1 }, { id: 'x', tokens: 2, score: 1 }];
  assert.throws(
    () => sl.greedySlice(list, { targetTokens: 1 }),
    (e) => e.code === 'DUPLICATE_ID' && e.index === 2 && e.otherIndex === 0 && e.message === 'items[2].id duplicates items[0].id',
  );
});

for (const [name, call, code, field, index] of errorCases) {
  test(`error: ${name} → ${code}, and the next call works`, () => {
    assert.throws(call, (e) => {
      assert.ok(e instanceof esm.CtxpackError, `${e}`);
      assert.equal(e.name, 'CtxpackError');
      assert.equal(e.code, code);
      if (field !== undefined) assert.equal(e.field, field);
      if (index !== undefined) assert.equal(e.index, index);
      return true;
    });
    assert.deepEqual(sl.greedySlice(items, { targetTokens: 100 }).selected, ['z', 'c', 'a']);
  });
}

test('TABLE_TOO_LARGE states candidates, capacity, cells and bytes', () => {
  try {
    sl.knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1, maxTableBytes: 64 });
    assert.fail('expected an error');
  } catch (e) {
    assert.match(e.message, /3 candidates x 101 columns \(capacity 100\) = 303 cells, \d+ bytes, over the limit of 64 bytes/);
  }
});

// A small seeded generator (mulberry32) for agreement tests.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('the object path and the columnar path select alike, for every slicer, on 400 random inputs', () => {
  const rand = rng(42);
  const kindsPool = ['tool', 'Tool', 'msg', 'doc', ''];
  for (let round = 0; round < 100; round++) {
    const n = Math.floor(rand() * 60);
    const frags = Array.from({ length: n }, (_, i) => ({
      id: `f${i}`,
      cost_tokens: rand() < 0.1 ? 0 : Math.floor(rand() * 800),
      score: Math.round(rand() * 100) / 100,
      kind: kindsPool[Math.floor(rand() * kindsPool.length)],
      content: 'never read',
    }));
    const kindNames = [...new Set(frags.map((f) => f.kind))];
    const columns = {
      tokens: Uint32Array.from(frags, (f) => f.cost_tokens),
      scores: Float64Array.from(frags, (f) => f.score),
      kinds: Uint32Array.from(frags, (f) => kindNames.indexOf(f.kind)),
      kindNames,
    };
    const budget = { targetTokens: Math.floor(rand() * 5000) };
    const cases = [
      ['greedy', {}],
      ['knapsack', { bucketSize: 1 + Math.floor(rand() * 100) }],
      ['count-knapsack', { bucketSize: 10, entries: [{ kind: 'TOOL', requireCount: 1, capCount: 2 }, { kind: 'doc', requireCount: 0, capCount: 1 }] }],
      ['packer', { maxConsecutiveSkips: Math.floor(rand() * 4) }],
    ];
    for (const [slicer, options] of cases) {
      const viaColumns = sl.sliceColumns(slicer, columns, budget, options);
      const viaObjects = sl.sliceObjects(slicer, frags, budget, options);
      assert.deepEqual(viaObjects, viaColumns, `${slicer} round ${round}`);
      assert.ok(viaColumns.selected instanceof Uint32Array);
    }
  }
});

test('sliceColumns and sliceObjects refuse bad input with CtxpackError', () => {
  const cols = { tokens: Uint32Array.of(1), scores: Float64Array.of(0.5) };
  assert.throws(() => sl.sliceColumns('fast', cols, { targetTokens: 1 }), { code: 'INVALID_OPTION', field: 'slicer' });
  assert.throws(() => sl.sliceColumns('greedy', { tokens: [1], scores: [0.5] }, { targetTokens: 1 }), { code: 'INVALID_INPUT' });
  assert.throws(() => sl.sliceColumns('greedy', { tokens: Uint32Array.of(1, 2), scores: Float64Array.of(0.5) }, { targetTokens: 1 }), { code: 'INVALID_INPUT' });
  assert.throws(() => sl.sliceObjects('greedy', [{ id: 'a' }], { targetTokens: 1 }), { code: 'INVALID_FIELD', field: 'cost_tokens', index: 0 });
  assert.throws(() => sl.sliceObjects('packer', [], { targetTokens: 1 }, { maxSkips: 1 }), { code: 'INVALID_OPTION', field: 'maxSkips' });
  assert.deepEqual(Array.from(sl.sliceColumns('greedy', cols, { targetTokens: 1 }).selected), [0]);
});

// Node prints the source line an uncaught error was thrown from: the dist keeps its line breaks, so
// that is one line of code, not a 30-50 KB minified file, and the class keeps its name.
test('an uncaught CtxpackError prints its message, not the bundle, from import and require', async () => {
  const { spawnSync } = await import('node:child_process');
  const call = "createSession({ format: 'openai', budgets: { tokens_max: 1000 }, cahce: 'openai' })";
  for (const [flag, code] of [
    ['--input-type=module', `import { createSession } from 'ctxpack'; ${call};`],
    ['--input-type=commonjs', `const { createSession } = require('ctxpack'); ${call};`],
  ]) {
    const r = spawnSync(process.execPath, [flag, '-e', code], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /CtxpackError: options\.cahce is not an option of createSession/);
    // Node writes `<constructor> [<name>]` when they differ: the minifier's letter, had the class lost its name.
    assert.doesNotMatch(r.stderr, /\[CtxpackError\]/);
    assert.ok(r.stderr.length < 4000, `${flag}: ${r.stderr.length} characters on stderr`);
    const { CtxpackError } = flag === '--input-type=module' ? esm : createRequire(import.meta.url)('ctxpack');
    assert.equal(CtxpackError.name, 'CtxpackError');
  }
});
