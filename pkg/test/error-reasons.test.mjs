// Every reason the Rust core can give for refusing a budget, an option, a field or an input (its
// `ErrorReason::KINDS`, the glue's `errorReasonKinds()`) has its sentence in TypeScript
// (pkg/src/error-text.ts, `REASON_TEXT`), written from the fields alone; and for a sample of every
// kind, in each of its forms (the glue's `errorReasonSamples()`), the package's sentence is the
// core's own (`Display`, the glue's message) to the byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importInternal } from './internal.mjs';

const { REASON_TEXT, coreErrorText, fromWasm, call, glue } = await importInternal(
  "export { REASON_TEXT, coreErrorText } from './src/error-text.ts';\n" +
    "export { call, fromWasm } from './src/core/instance.ts';\n" +
    "export * as glue from './wasm/ctxpack.js';\n",
);

const kinds = call(() => glue.errorReasonKinds());
const samples = call(() => glue.errorReasonSamples());

test('every reason kind the core can send has its sentence in TypeScript', () => {
  assert.ok(kinds.length >= 20);
  assert.equal(new Set(kinds).size, kinds.length, 'each kind once');
  assert.deepEqual([...kinds].sort(), Object.keys(REASON_TEXT).sort());
});

test("every reason kind is sampled, and the package's sentence is the core's", () => {
  assert.deepEqual([...new Set(samples.map((s) => s.reasonKind))].sort(), [...kinds].sort(), 'a sample per kind');
  for (const sample of samples) {
    assert.equal(sample.name, 'CtxpackError');
    assert.equal(coreErrorText(sample), sample.message, sample.reasonKind);
    // As the package raises it: the same sentence, from a copy of the fields (no message read).
    const raised = fromWasm(sample);
    assert.equal(raised.message, sample.message, sample.reasonKind);
    assert.equal(coreErrorText({ ...sample, message: undefined }), sample.message, sample.reasonKind);
  }
});

test('no reason crosses as text to paste', () => {
  for (const sample of samples) assert.equal(sample.reason, undefined, sample.reasonKind);
});
