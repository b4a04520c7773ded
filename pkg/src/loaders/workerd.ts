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
