/**
 * Vercel Edge / Next.js edge runtime: the `?module` suffix imports the .wasm as a compiled
 * `WebAssembly.Module`.
 * @internal
 * @module
 */

import wasmModule from '../wasm/ctxpack_bg.wasm?module';

export function loadWasmSync(): WebAssembly.Module {
  return wasmModule;
}

export function defaultWasmInput(): WebAssembly.Module {
  return wasmModule;
}
