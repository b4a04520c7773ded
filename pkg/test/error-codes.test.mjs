// The TypeScript list of error codes and the Rust enum's codes never drift: every code the core can
// raise (src/error.rs, `CtxpackError::CODES`, the glue's `errorCodes()`) is in ERROR_CODES, and every other code in ERROR_CODES
// is one the TypeScript layer raises itself (`new CtxpackError(CODE` in pkg/src).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERROR_CODES } from 'ctxpack';
import { importInternal } from './internal.mjs';

const { call, glue } = await importInternal("export { call } from './src/core/instance.ts';\nexport * as glue from './wasm/ctxpack.js';\n");

const root = new URL('../../', import.meta.url).pathname;

/** Every code the core can raise: its `errorCodes()` (`CtxpackError::CODES`, which a Rust test checks against every variant's `code()`). */
function rustCodes() {
  return new Set(call(() => glue.errorCodes()));
}

/** The codes the TypeScript sources raise: `new CtxpackError('CODE'` anywhere in pkg/src. */
function tsRaised() {
  const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : []));
  const codes = new Set();
  for (const f of walk(join(root, 'pkg/src'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/CtxpackError\(\s*'([A-Z_]+)'/g)) codes.add(m[1]);
  }
  return codes;
}

test('every code of the Rust enum is in ERROR_CODES', () => {
  const rust = rustCodes();
  assert.ok(rust.size >= 10, `found ${rust.size} Rust codes: the parser no longer finds CtxpackError::code`);
  for (const code of rust) assert.ok(ERROR_CODES.includes(code), `${code} is raised by the core but missing from ERROR_CODES`);
});

test('every code in ERROR_CODES is raised by the core or by the TypeScript layer', () => {
  const rust = rustCodes();
  const ts = tsRaised();
  for (const code of ERROR_CODES) assert.ok(rust.has(code) || ts.has(code), `${code} is declared but nothing raises it`);
});

test('ERROR_CODES is frozen and has no duplicates', () => {
  assert.ok(Object.isFrozen(ERROR_CODES));
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
});
