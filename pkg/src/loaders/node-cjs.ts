/**
 * Node through `require()`: the CommonJS bundle reads the .wasm from beside its own file; from a
 * bundle, through the package's own resolution (see node-find.ts).
 * @internal
 * @module
 */

import { readWasmBytes } from './node-find.js';

declare const __filename: string | undefined;

export function loadWasmSync(): BufferSource {
  return readWasmBytes(typeof __filename === 'string' ? __filename : undefined);
}

export function defaultWasmInput(): BufferSource {
  return loadWasmSync();
}

/** Memory an idle instance may keep before it is replaced (see setWasmMemoryLimit). */
export const DEFAULT_MEMORY_LIMIT = 32 * 1024 * 1024;
