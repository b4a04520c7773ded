/**
 * Node (ESM, and Deno through the `node` condition): reads the .wasm next to the package
 * synchronously on first use, so no `init()` is needed.
 * @internal
 * @module
 */

import { readFileSync } from 'node:fs';

export function loadWasmSync(): BufferSource {
  return readFileSync(new URL('../wasm/ctxpack_bg.wasm', import.meta.url));
}

export function defaultWasmInput(): BufferSource {
  return loadWasmSync();
}
