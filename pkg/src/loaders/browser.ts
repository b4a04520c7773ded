/**
 * How the browser build finds its .wasm: it cannot load synchronously, so `init()` must be awaited
 * first; by default it fetches `../wasm/ctxpack_bg.wasm` next to the bundle (bundlers recognise the
 * `new URL(…, import.meta.url)` pattern and copy the file).
 *
 * Each runtime's bundle swaps this module for its own loader (see scripts/build.mjs).
 * @internal
 * @module
 */

/** A source the wasm can be instantiated from synchronously, or `undefined` when there is none. */
export function loadWasmSync(): WebAssembly.Module | BufferSource | undefined {
  return undefined;
}

/** What `init()` loads when it is given nothing. */
export function defaultWasmInput(): URL {
  return new URL('../wasm/ctxpack_bg.wasm', import.meta.url);
}
