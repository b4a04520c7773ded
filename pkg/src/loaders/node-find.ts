/**
 * How the Node loaders (ESM and CommonJS) find the .wasm: next to the package's own files first,
 * then through the package's own resolution (`ctxpack/ctxpack_bg.wasm`, an export of the package)
 * from wherever the running code is. The second way is what a bundle needs: esbuild, webpack or
 * Turbopack move ctxpack's code into the user's bundle, away from `node_modules/ctxpack/wasm`, but
 * `node_modules` is usually still there at run time. When neither finds it, a
 * {@link CtxpackError} `WASM_LOAD_FAILED` names the one line of configuration that fixes it.
 *
 * No `new URL('…', import.meta.url)` literal here on purpose: bundlers would take it for an asset
 * and rewrite it (webpack into a relative URL object `fs` rejects).
 * @internal
 * @module
 */

import { readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CtxpackError } from '../errors.js';

const WASM_FILE = 'ctxpack_bg.wasm';
/** The package's export of its .wasm; held in a variable so that no bundler resolves it at build time. */
const WASM_EXPORT = ['ctxpack', WASM_FILE].join('/');

declare const __filename: string | undefined;

/** The path of a `file:` URL, or `undefined` for anything else (an emptied `import.meta.url`, a bundler's placeholder). */
export function filePathOf(url: unknown): string | undefined {
  if (typeof url !== 'string' || !url.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

/** The distinct non-empty strings of `files`, in order. */
const distinct = (files: unknown[]): string[] =>
  files.filter((f, i): f is string => typeof f === 'string' && f !== '' && files.indexOf(f) === i);

/** This module's file, else the bundle's (`__filename` of a CommonJS bundle). */
const ownFiles = (moduleFile: string | undefined): string[] =>
  distinct([moduleFile, typeof __filename === 'string' ? __filename : undefined]);

/** Files the package's resolution could start from: those, the entry script, the working directory. */
const resolutionBases = (moduleFile: string | undefined): string[] =>
  distinct([...ownFiles(moduleFile), process.argv[1], join(process.cwd(), 'noop.js')]);

/**
 * The .wasm's bytes for the module at `moduleFile` (`dist/node.js` or `dist/node.cjs` in the
 * package, or whatever bundle they were copied into; `undefined` when the bundler left no path).
 */
export function readWasmBytes(moduleFile: string | undefined): BufferSource {
  const tried: string[] = [];
  const seen = new Set<string>();
  let readError: unknown; // the first failed read: it says why (ENOENT, or a permission the process lacks)
  let denied = false; // some read was refused for want of permission (Deno without --allow-read)
  let lastError: unknown;
  const attempt = (path: string): BufferSource | undefined => {
    if (seen.has(path)) return undefined;
    seen.add(path);
    try {
      return readFileSync(path);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const name = (err as { name?: unknown }).name;
      denied ||= code === 'EACCES' || code === 'EPERM' || name === 'NotCapable' || name === 'PermissionDenied';
      tried.push(typeof code === 'string' ? `${path} (${code})` : typeof name === 'string' ? `${path} (${name})` : path);
      readError ??= err;
      return undefined;
    }
  };
  // Beside the package's files, or beside a bundle (an ES bundle turned CommonJS has no import.meta.url).
  for (const file of ownFiles(moduleFile)) {
    const bytes = attempt(join(dirname(file), '..', 'wasm', WASM_FILE));
    if (bytes) return bytes;
  }
  const createRequire = nodeModule.createRequire;
  for (const base of resolutionBases(moduleFile)) {
    let path: string;
    try {
      path = createRequire(base).resolve(WASM_EXPORT);
    } catch (err) {
      lastError = err;
      continue;
    }
    const bytes = attempt(path);
    if (bytes) return bytes;
  }
  if (denied) {
    throw new CtxpackError(
      'WASM_LOAD_FAILED',
      `ctxpack could not read its WebAssembly file ${WASM_FILE}: the process may not read it (tried ${tried.join(', ')}). ` +
        `Allow reading that file (Deno: --allow-read with its path), or pass its bytes to init()`,
      { cause: readError },
    );
  }
  throw new CtxpackError(
    'WASM_LOAD_FAILED',
    `ctxpack could not find its WebAssembly file ${WASM_FILE} (tried ${tried.length ? tried.join(', ') : 'no path'}, and the ` +
      `package's own resolution of '${WASM_EXPORT}'): the code was bundled away from node_modules/ctxpack and node_modules ` +
      `is not there at run time. Keep ctxpack out of the server bundle (esbuild: --external:ctxpack; webpack: ` +
      `externals: ['ctxpack']) and install it next to the bundle, or copy node_modules/ctxpack/wasm/${WASM_FILE} to ` +
      `a wasm/ folder beside the bundle's folder (Next.js output: 'standalone': outputFileTracingIncludes ` +
      `{ '/*': ['./node_modules/ctxpack/wasm/${WASM_FILE}'] }), or pass its bytes to init()`,
    { cause: readError ?? lastError },
  );
}

/**
 * Starts compiling the .wasm as the package is imported, without blocking the import: the bytes
 * are read now and `WebAssembly.compile` compiles them on V8's background threads. Returns what
 * `loadWasmSync` gives: the compiled module once it is ready, else the bytes (the first call then
 * compiles them itself, synchronously, as it always did). Nothing is thrown here: when the file
 * cannot be read now, the first call reads again and its {@link CtxpackError} says why.
 *
 * Not in Deno: reading there needs a permission, and asking for it belongs to the first call, not
 * to the import.
 */
export function compileEarly(read: () => BufferSource): EarlyCompile {
  let bytes: BufferSource | undefined;
  let compiled: WebAssembly.Module | undefined;
  let then: (() => void) | undefined;
  if (!('Deno' in globalThis)) {
    try {
      const source = read();
      bytes = source;
      WebAssembly.compile(source).then(
        (module) => {
          compiled = module;
          bytes = undefined;
          if (then !== undefined) afterTurn(then);
        },
        () => undefined, // the synchronous compile of the first call reports it
      );
    } catch {
      // Not found, not readable, or no WebAssembly (node --jitless): the first call says which.
    }
  }
  return {
    load: () => compiled ?? bytes ?? read(),
    whenCompiled: (run) => {
      then = run;
      if (compiled !== undefined) afterTurn(run);
    },
  };
}

/** What {@link compileEarly} gives a loader: the module or bytes for the first call, and a hook for when the background compile is done. */
export interface EarlyCompile {
  load(): WebAssembly.Module | BufferSource;
  /** Runs `run` once, in a task of its own, after the background compile succeeded (never if it failed or did not start). */
  whenCompiled(run: () => void): void;
}

/** `run` in a task of its own, which never keeps the process alive. */
function afterTurn(run: () => void): void {
  setTimeout(run, 0).unref();
}
