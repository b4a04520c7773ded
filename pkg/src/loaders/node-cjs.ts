/**
 * Node through `require()`: the CommonJS bundle reads the .wasm from `__dirname`.
 * @internal
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

declare const __dirname: string;

export function loadWasmSync(): BufferSource {
  return readFileSync(join(__dirname, '..', 'wasm', 'ctxpack_bg.wasm'));
}

export function defaultWasmInput(): BufferSource {
  return loadWasmSync();
}
