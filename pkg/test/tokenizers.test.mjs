// The tokenizer adapters, ctxpack/tokenizers/js-tiktoken and ctxpack/tokenizers/gpt-tokenizer:
// the same counts as their tokenizers called directly (installed as dev dependencies), a plan
// from raw text, and bundles that import the tokenizer as a peer instead of carrying it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { encodingForModel, getEncoding } from 'js-tiktoken';
import * as gptCl100k from 'gpt-tokenizer/encoding/cl100k_base';
import * as gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import * as gptP50k from 'gpt-tokenizer/encoding/p50k_base';
import * as gpt4o from 'gpt-tokenizer/model/gpt-4o';
import * as gpt35 from 'gpt-tokenizer/model/gpt-3.5-turbo';
import { CtxpackError, selectFragments } from 'ctxpack';
import * as tiktoken from 'ctxpack/tokenizers/js-tiktoken';
import * as gptTokenizer from 'ctxpack/tokenizers/gpt-tokenizer';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const TEXTS = [
  '',
  'hello world',
  'The quick brown fox jumps over the lazy dog.',
  'function add(a, b) {\n  return a + b; // sum\n}\n',
  '日本語のテキストと中文文本。',
  'emoji 😀👍🏽 and accents: café naïve Ωmega',
  '   leading and trailing whitespace\t\n',
  'numbers 1234567890 3.14159 1e-7 0xdeadbeef',
  'special tokens as text: <|endoftext|> <|im_start|>user<|im_end|> <|fim_prefix|>',
  'lorem ipsum dolor sit amet '.repeat(200),
];
const SPECIAL = /<\|[a-z_]+\|>/;

test('js-tiktoken adapter: the same counts as js-tiktoken called directly', () => {
  const direct = {
    cl100k_base: getEncoding('cl100k_base'),
    o200k_base: getEncoding('o200k_base'),
    p50k_base: getEncoding('p50k_base'),
  };
  for (const [name, enc] of Object.entries(direct)) {
    const count = tiktoken.forEncoding(name);
    for (const t of TEXTS) {
      assert.equal(count(t), enc.encode(t, [], []).length, `${name}: ${t.slice(0, 30)}`);
      // Without special-token strings, that is also js-tiktoken's default encode.
      if (!SPECIAL.test(t)) assert.equal(count(t), enc.encode(t).length);
    }
  }
  for (const model of ['gpt-4o', 'gpt-4', 'gpt-3.5-turbo', 'text-davinci-003']) {
    const enc = encodingForModel(model);
    const count = tiktoken.forModel(model);
    for (const t of TEXTS) {
      assert.equal(count(t), enc.encode(t, [], []).length, `${model}: ${t.slice(0, 30)}`);
      assert.equal(tiktoken.countTokens(t, model), enc.encode(t, [], []).length, `countTokens ${model}`);
    }
  }
  // countTokens without a model: o200k_base.
  assert.equal(tiktoken.DEFAULT_ENCODING, 'o200k_base');
  for (const t of TEXTS) assert.equal(tiktoken.countTokens(t), direct.o200k_base.encode(t, [], []).length);
  // The counter ignores a model argument; the special-token text does not throw.
  assert.equal(tiktoken.forEncoding('cl100k_base')('hello world', 'gpt-4o'), 2);
  assert.throws(() => direct.cl100k_base.encode(TEXTS[8]), /special token/);
});

test('gpt-tokenizer adapter: the same counts as gpt-tokenizer called directly', () => {
  const noSpecial = { disallowedSpecial: new Set() };
  for (const [name, api] of [
    ['cl100k_base', gptCl100k],
    ['o200k_base', gptO200k],
    ['p50k_base', gptP50k],
  ]) {
    const count = gptTokenizer.forEncoding(name);
    for (const t of TEXTS) {
      assert.equal(count(t), api.countTokens(t, noSpecial), `${name}: ${t.slice(0, 30)}`);
      if (!SPECIAL.test(t)) assert.equal(count(t), api.countTokens(t));
    }
  }
  for (const [model, api] of [
    ['gpt-4o', gpt4o],
    ['gpt-3.5-turbo', gpt35],
  ]) {
    const count = gptTokenizer.forModel(model);
    for (const t of TEXTS) {
      assert.equal(count(t), api.countTokens(t, noSpecial), `${model}: ${t.slice(0, 30)}`);
      assert.equal(gptTokenizer.countTokens(t, model), api.countTokens(t, noSpecial));
    }
  }
  assert.equal(gptTokenizer.DEFAULT_ENCODING, 'o200k_base');
  for (const t of TEXTS) assert.equal(gptTokenizer.countTokens(t), gptO200k.countTokens(t, noSpecial));
  // A model gpt-tokenizer does not map takes its default encoding, as gpt-tokenizer does.
  assert.equal(gptTokenizer.forModel('some-future-model')(TEXTS[4]), gptO200k.countTokens(TEXTS[4]));
});

test('the two tokenizers agree with each other on the shared encodings', () => {
  for (const name of ['cl100k_base', 'o200k_base']) {
    const a = tiktoken.forEncoding(name);
    const b = gptTokenizer.forEncoding(name);
    for (const t of TEXTS) assert.equal(a(t), b(t), `${name}: ${t.slice(0, 30)}`);
  }
});

test('unknown encodings and models are a CtxpackError INVALID_OPTION (the package’s own class)', () => {
  const check = (fn, field) =>
    assert.throws(fn, (err) => {
      assert.ok(err instanceof CtxpackError, String(err));
      assert.equal(err.code, 'INVALID_OPTION');
      assert.equal(err.field, field);
      assert.ok(err.cause !== undefined || /must be a string/.test(err.message));
      return true;
    });
  check(() => tiktoken.forEncoding('cl200k'), 'encoding');
  check(() => tiktoken.forEncoding(7), 'encoding');
  check(() => tiktoken.forModel('gpt-99'), 'model');
  check(() => tiktoken.countTokens('x', 'gpt-99'), 'model');
  check(() => gptTokenizer.forEncoding('cl200k'), 'encoding');
  check(() => gptTokenizer.forModel(null), 'model');
  assert.throws(() => tiktoken.forEncoding('cl200k'), /^CtxpackError: encoding is not an encoding js-tiktoken knows, got 'cl200k'$/m);
  assert.throws(() => tiktoken.forModel('x'.repeat(100)), /got a string of length 100/);
  // Inside selectFragments, a counter's error is TOKEN_COUNT_FAILED with it as the cause.
  assert.throws(
    () => selectFragments([{ id: 'a', content: 'text' }], { entities: [] }, { tokens_max: 10 }, { countTokens: tiktoken.countTokens, model: 'gpt-99' }),
    (err) => err.code === 'TOKEN_COUNT_FAILED' && err.cause instanceof CtxpackError && err.cause.code === 'INVALID_OPTION',
  );
});

test('a plan from raw text with a real tokenizer equals the plan with the counts given', () => {
  const chunks = [
    { id: 'sys', content: 'You are a support agent for the auth service.', kind: 'system', lod: 'macro' },
    { id: 'doc-auth', content: 'Sessions are issued by the auth service and expire after 24 hours. '.repeat(30), entities: ['auth', 'session'] },
    { id: 'doc-billing', content: 'Invoices are sent monthly. '.repeat(40), entities: ['billing'] },
    { id: 'turn-1', content: 'User: I cannot log in since this morning.', entities: ['auth', 'login'] },
  ];
  const enc = getEncoding('o200k_base');
  const counted = chunks.map(({ content, ...rest }) => ({ ...rest, cost_tokens: enc.encode(content, [], []).length }));
  const gaze = { entities: ['auth', 'session', 'login'] };
  const budgets = { tokens_max: 600, output_reserve: 200, per_fragment_overhead: 4, safety_margin_percent: 2 };
  for (const slicer of ['ranked', 'greedy', 'knapsack', 'packer']) {
    for (const countTokens of [tiktoken.forModel('gpt-4o'), gptTokenizer.forModel('gpt-4o'), tiktoken.countTokens]) {
      const fromText = selectFragments(chunks, gaze, budgets, { now: 0, slicer, countTokens, model: 'gpt-4o' });
      const given = selectFragments(counted, gaze, budgets, { now: 0, slicer });
      assert.deepEqual(fromText.fragments.map((f) => f.id), given.fragments.map((f) => f.id), slicer);
      assert.deepEqual(fromText.decisions, given.decisions, slicer);
      assert.equal(fromText.metrics.effective_budget, 392);
    }
  }
});

test('CommonJS: require() gives the same adapters', () => {
  const cjsTiktoken = require('ctxpack/tokenizers/js-tiktoken');
  const cjsGpt = require('ctxpack/tokenizers/gpt-tokenizer');
  for (const t of TEXTS) {
    assert.equal(cjsTiktoken.forEncoding('cl100k_base')(t), tiktoken.forEncoding('cl100k_base')(t));
    assert.equal(cjsGpt.countTokens(t, 'gpt-4'), gptTokenizer.countTokens(t, 'gpt-4'));
  }
  assert.throws(() => cjsTiktoken.forEncoding('nope'), (e) => e instanceof require('ctxpack').CtxpackError);
});

test('the adapters import their tokenizer as an optional peer dependency and never bundle it', () => {
  for (const [name, peer] of [
    ['js-tiktoken', 'js-tiktoken'],
    ['gpt-tokenizer', 'gpt-tokenizer/'],
  ]) {
    const entry = pkg.exports[`./tokenizers/${name}`];
    assert.deepEqual(Object.keys(entry), ['types', 'import', 'require']);
    assert.ok(pkg.peerDependencies[name], `peerDependencies.${name}`);
    assert.deepEqual(pkg.peerDependenciesMeta[name], { optional: true });
    assert.ok(pkg.devDependencies[name], `devDependencies.${name}`);
    assert.equal(pkg.dependencies?.[name], undefined);
    const esm = readFileSync(new URL(`../${entry.import}`, import.meta.url), 'utf8');
    const cjs = readFileSync(new URL(`../${entry.require}`, import.meta.url), 'utf8');
    for (const [code, importOf] of [
      [esm, (m) => `from "${m}`],
      [cjs, (m) => `require("${m}`],
    ]) {
      assert.ok(code.length < 10_000, `${name}: ${code.length} bytes: a vocabulary was bundled`);
      assert.ok(code.includes(importOf(peer)), `${name} does not import ${peer}`);
      assert.ok(code.includes(importOf('ctxpack"')), `${name} does not import ctxpack by name`);
      assert.ok(!code.includes('bpe_ranks') && !code.includes('wasm'), name);
    }
  }
  // The main entry never imports a tokenizer.
  for (const file of ['dist/node.js', 'dist/index.js', 'dist/node.cjs']) {
    const code = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
    assert.ok(!/js-tiktoken|gpt-tokenizer/.test(code), file);
  }
});
