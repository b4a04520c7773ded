/**
 * Node through `require()`: the CommonJS bundle reads the .wasm from beside its own file (from a
 * bundle, through the package's own resolution; see node-find.ts) and starts compiling it as the
 * package is required, in the background (see compileEarly).
 * @internal
 * @module
 */

import { compileEarly, readWasmBytes } from './node-find.js';

declare const __filename: string | undefined;

const early = compileEarly(() => readWasmBytes(typeof __filename === 'string' ? __filename : undefined));

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
