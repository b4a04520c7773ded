/**
 * Node (ESM, and Deno through the `node` condition): reads the .wasm next to the package (from a
 * bundle, through the package's own resolution; see node-find.ts) and starts compiling it as the
 * package is imported, in the background; the first call uses the compiled module, or compiles
 * the bytes itself if it comes first. No `init()` is needed.
 * @internal
 * @module
 */

import { compileEarly, filePathOf, readWasmBytes } from './node-find.js';

// An ES bundle converted to CommonJS empties `import.meta`; filePathOf gives undefined then.
const early = compileEarly(() => readWasmBytes(filePathOf(import.meta.url)));

export function loadWasmSync(): WebAssembly.Module | BufferSource {
  return early.load();
}

/** Runs `run` in a task of its own once the background compile is done (see instance.ts's warmUpWhenCompiled). */
export function whenCompiled(run: () => void): void {
  early.whenCompiled(run);
}

export function defaultWasmInput(): WebAssembly.Module | BufferSource {
  return loadWasmSync();
}

/** Memory an idle instance may keep before it is replaced (see setWasmMemoryLimit). */
export const DEFAULT_MEMORY_LIMIT = 32 * 1024 * 1024;
