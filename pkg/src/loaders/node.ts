/**
 * Node (ESM, and Deno through the `node` condition): reads the .wasm next to the package
 * synchronously on first use, so no `init()` is needed; from a bundle, through the package's own
 * resolution (see node-find.ts).
 * @internal
 * @module
 */

import { filePathOf, readWasmBytes } from './node-find.js';

export function loadWasmSync(): BufferSource {
  // An ES bundle converted to CommonJS empties `import.meta`; filePathOf gives undefined then.
  return readWasmBytes(filePathOf(import.meta.url));
}

export function defaultWasmInput(): BufferSource {
  return loadWasmSync();
}

/** Memory an idle instance may keep before it is replaced (see setWasmMemoryLimit). */
export const DEFAULT_MEMORY_LIMIT = 32 * 1024 * 1024;
