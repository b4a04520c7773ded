/**
 * How the browser build finds its .wasm: it cannot load synchronously, so `init()` must be awaited
 * first; by default it fetches `../wasm/ctxpack_bg.wasm` next to the bundle (Vite, webpack, Next
 * and Parcel recognise the `new URL('…', import.meta.url)` pattern and emit the file). A missing
 * or wrong file becomes a {@link CtxpackError} `WASM_LOAD_FAILED` that says how to configure the
 * bundlers that do not emit it (esbuild, Rollup without a plugin).
 *
 * Each runtime's bundle swaps this module for its own loader (see scripts/build.mjs).
 * @internal
 * @module
 */

import { CtxpackError } from '../errors.js';

/** A source the wasm can be instantiated from synchronously, or `undefined` when there is none. */
export function loadWasmSync(): WebAssembly.Module | BufferSource | undefined {
  return undefined;
}

function loadFailed(where: string, why: string, cause?: unknown): CtxpackError {
  return new CtxpackError(
    'WASM_LOAD_FAILED',
    `ctxpack could not load its WebAssembly file from ${where} (${why}): the bundler did not emit ` +
      `ctxpack_bg.wasm beside the bundle. esbuild: add --loader:.wasm=file and ` +
      `\`import wasmUrl from 'ctxpack/ctxpack_bg.wasm'; await init(wasmUrl)\`; Rollup: add the importMetaAssets() ` +
      `plugin of @web/rollup-plugin-import-meta-assets; otherwise serve node_modules/ctxpack/wasm/ctxpack_bg.wasm ` +
      `and pass its URL to init()`,
    cause === undefined ? {} : { cause },
  );
}

/** `\0asm`: the first four bytes of every WebAssembly binary. */
function isWasm(bytes: ArrayBuffer): boolean {
  const head = new Uint8Array(bytes, 0, Math.min(4, bytes.byteLength));
  return head.length === 4 && head[0] === 0 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d;
}

async function fetchWasm(): Promise<Response | ArrayBuffer> {
  let url: URL;
  try {
    // The literal pattern bundlers look for: keep it exactly like this.
    url = new URL('../wasm/ctxpack_bg.wasm', import.meta.url);
  } catch (err) {
    throw loadFailed('beside the bundle', 'the bundle has no import.meta.url, so not an ES module', err);
  }
  let response: Response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw loadFailed(url.href, 'the request failed', err);
  }
  if (!response.ok) throw loadFailed(url.href, `HTTP ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  if (type.split(';')[0]!.trim() === 'application/wasm') return response; // compiled while streaming
  const bytes = await response.arrayBuffer();
  if (!isWasm(bytes)) throw loadFailed(url.href, `got ${type || 'a response without a content type'}, not WebAssembly`);
  return bytes;
}

/** What `init()` loads when it is given nothing: the .wasm beside the bundle, checked. */
export function defaultWasmInput(): Promise<Response | ArrayBuffer> {
  return fetchWasm();
}

/** Memory an idle instance may keep before it is replaced (see setWasmMemoryLimit). */
export const DEFAULT_MEMORY_LIMIT = 32 * 1024 * 1024;

/** Nothing compiles in the background here: the first call (or `init()`) loads the core. */
export function whenCompiled(_run: () => void): void {}
