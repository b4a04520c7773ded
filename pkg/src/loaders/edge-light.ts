/**
 * Vercel Edge / Next.js edge runtime: the `?module` suffix imports the .wasm as a compiled
 * `WebAssembly.Module`.
 * @internal
 * @module
 */

import wasmModule from '../wasm/ctxpack_bg.wasm?module';

/**
 * The module, recognisable as a `WebAssembly.Module` of this realm.
 *
 * Vercel's bundlers turn the `?module` import into a global binding (`globalThis.wasm_<sha1>`).
 * `vercel dev`, `next dev` and `next start` compile that binding in Node, outside the edge sandbox
 * (a `node:vm` context), so it is a Module of another realm: V8 instantiates it as it is, but the
 * wasm-bindgen glue's `instanceof WebAssembly.Module` fails and it is taken for bytes, to be
 * compiled again, which fails ("Argument 0 must be a buffer source"). Giving such a module this
 * realm's prototype (WebAssembly.Module.prototype has no methods, only the tag) lets the glue
 * instantiate it, without compiling anything from bytes. A module of this realm is left alone.
 */
function thisRealms(module: WebAssembly.Module): WebAssembly.Module {
  if (module instanceof WebAssembly.Module) return module;
  try {
    WebAssembly.Module.exports(module); // throws unless `module` really is a compiled module
    Object.setPrototypeOf(module, WebAssembly.Module.prototype);
  } catch {
    // Not a module, or a frozen one: left as it is, and the glue reports what it can.
  }
  return module;
}

export function loadWasmSync(): WebAssembly.Module {
  return thisRealms(wasmModule);
}

export function defaultWasmInput(): WebAssembly.Module {
  return thisRealms(wasmModule);
}

/** Memory an idle instance may keep before it is replaced (see setWasmMemoryLimit): less in an isolate of 128 MB. */
export const DEFAULT_MEMORY_LIMIT = 16 * 1024 * 1024;

/** Nothing compiles in the background here: the first call (or `init()`) loads the core. */
export function whenCompiled(_run: () => void): void {}
