/**
 * Cloudflare Workers / workerd forbid compiling wasm from bytes, so the .wasm is imported as a
 * module (wrangler and esbuild hand it over as a compiled `WebAssembly.Module`).
 * @internal
 * @module
 */

import wasmModule from '../wasm/ctxpack_bg.wasm';

export function loadWasmSync(): WebAssembly.Module {
  return wasmModule;
}

export function defaultWasmInput(): WebAssembly.Module {
  return wasmModule;
}

/** Memory an idle instance may keep before it is replaced (see setWasmMemoryLimit): less in an isolate of 128 MB. */
export const DEFAULT_MEMORY_LIMIT = 16 * 1024 * 1024;

/** Nothing compiles in the background here: the first call (or `init()`) loads the core. */
export function whenCompiled(_run: () => void): void {}
