/**
 * The wasm instance's life: loading (`init`, or by itself on first use), the memory limit, and
 * `call`, which runs every call of the core, discards an instance that trapped or grew past the
 * limit, and is the only place a wasm error becomes a {@link CtxpackError}. `init`,
 * `isInitialized`, `setWasmMemoryLimit`, `wasmMemoryBytes` and `InitInput` are public (from
 * `ctxpack`); the rest is internal.
 *
 * @module
 */

import * as glue from '../../wasm/ctxpack.js';
import { CtxpackError, describeValue, type CtxpackErrorDetails } from '../errors.js';
import { CORE_ERROR_TEXT, coreErrorText, type CoreErrorFields } from '../error-text.js';
import { DEFAULT_MEMORY_LIMIT, defaultWasmInput, loadWasmSync, whenCompiled } from '../loaders/browser.js';
import type { SliceReason } from './bridge.js';

let ready = false;
let codes: SliceReason[] | undefined;

/**
 * The core's decision codes by id (as `solveSlice` and the others return them). Read from the
 * core the first time they are needed, not when the instance is made: `fitMessages` never needs
 * them, and its first call should not pay for them. Every instance of the module has the same.
 */
export function reasonCodes(): readonly SliceReason[] {
  return (codes ??= call(() => glue.decisionCodes()) as SliceReason[]);
}
let pending: Promise<void> | undefined;

/** The live instance's memory; `undefined` before the first load and while no instance is live. */
let memory: WebAssembly.Memory | undefined;
/** The compiled module of a discarded instance: the next call instantiates it again. */
let compiled: WebAssembly.Module | undefined;
/** Calls of the core in progress (a token counter of packLazy may call in again). */
let depth = 0;
/** Set when a call trapped: the instance is discarded when the outermost call returns. */
let trapped = false;
let memoryLimit = DEFAULT_MEMORY_LIMIT;

function markReady(output: { memory: WebAssembly.Memory }): void {
  memory = output.memory;
  ready = true;
}

/**
 * Bytes of linear memory the live wasm instance holds (0 before the core loads, and after an
 * instance was discarded until the next call makes a fresh one). Wasm memory never shrinks, so
 * this is the high-water mark of the calls since the instance was made; see {@link setWasmMemoryLimit}.
 */
export function wasmMemoryBytes(): number {
  return memory?.buffer.byteLength ?? 0;
}

/**
 * Sets the memory an idle wasm instance may keep, in bytes. Wasm memory never shrinks: after a
 * call that left the instance's memory larger than this, the instance is discarded and the next
 * call runs on a fresh one made from the same compiled module (about a millisecond), so a
 * long-lived process holds the memory of its typical call, not of its largest. Default 32 MiB
 * (16 MiB in Cloudflare Workers and Vercel Edge); `Infinity` keeps every instance.
 *
 * @throws {CtxpackError} `INVALID_OPTION` unless `bytes` is a positive number.
 */
export function setWasmMemoryLimit(bytes: number): void {
  if (typeof bytes !== 'number' || !(bytes > 0)) {
    throw new CtxpackError('INVALID_OPTION', `the wasm memory limit must be a positive number of bytes or Infinity, got ${describeValue(bytes)}`, {
      field: 'bytes',
    });
  }
  memoryLimit = bytes;
}

/** What `init()` accepts: a URL or path to the .wasm, a `Response`, its bytes, or a compiled `WebAssembly.Module`. */
/**
 * What {@link init} takes. `WebAssembly.Module` is an empty interface in TypeScript's DOM types,
 * which any value but `null` and `undefined` would match; `& object` keeps at least numbers,
 * strings and booleans out of that branch.
 */
export type InitInput = string | URL | Request | Response | BufferSource | (WebAssembly.Module & object);

/**
 * Loads the wasm core. Idempotent: every call returns the same promise, and after a failure the
 * next call tries again. In Node, Cloudflare Workers, Vercel Edge and Deno the core loads by
 * itself on first use and `init()` is optional; in browsers, await it once before planning.
 *
 * @param input Where the .wasm is; by default `../wasm/ctxpack_bg.wasm` next to the module.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void> {
  if (pending !== undefined || ready) {
    // The core is loaded or loading: `input` goes unused, and a rejection of it must not go unhandled.
    if (input instanceof Promise) input.catch(() => undefined);
    return (pending ??= Promise.resolve());
  }
  const attempt = (async (): Promise<void> => {
    if (input === undefined) {
      const source = loadWasmSync();
      if (source !== undefined) {
        markReady(glue.initSync({ module: source }));
        return;
      }
    }
    markReady(await glue.default({ module_or_path: input ?? defaultWasmInput() }));
  })();
  pending = attempt;
  attempt.catch(() => {
    if (pending === attempt) pending = undefined;
  });
  return attempt;
}

/**
 * Runs `warm`, one small call of a front door, in a task of its own once the loader has compiled
 * the .wasm in the background (Node; in the other runtimes nothing compiles in the background and
 * this does nothing), unless the core is loaded or loading by then. V8 compiles each wasm function
 * and each JS function the first time it runs, so a first call costs 15-30 ms more than the next;
 * a request that reaches a process loaded earlier finds that done. The work is the first call's
 * own, moved to a moment the event loop is free: it is done in every process that imports the
 * front doors, whether it calls them or not. What `warm` throws is dropped: a real call meets the
 * same condition and reports it.
 * @internal
 */
export function warmUpWhenCompiled(warm: () => void): void {
  whenCompiled(() => {
    if (ready || pending !== undefined) return;
    try {
      warm();
    } catch {
      // The next call reports it (the instance of a trap is discarded like any other).
    }
  });
}

/** Whether the wasm core is loaded (it stays so when an instance is replaced). */
export function isInitialized(): boolean {
  return ready;
}

function ensureReady(): void {
  if (memory !== undefined) return;
  if (compiled !== undefined) {
    // A discarded instance: the same compiled module again, synchronously (no compilation).
    try {
      markReady(glue.initSync({ module: compiled }));
    } catch (err) {
      throw new CtxpackError('INTERNAL', 'the wasm core could not be instantiated again', { cause: err });
    }
    compiled = undefined;
    return;
  }
  if (ready) return;
  const source = loadWasmSync();
  if (source === undefined) {
    throw new CtxpackError(
      'NOT_INITIALIZED',
      'ctxpack is not initialized: in a browser, `await init()` once before planning',
    );
  }
  let output: { memory: WebAssembly.Memory };
  try {
    output = glue.initSync({ module: source });
  } catch (err) {
    throw new CtxpackError('INTERNAL', 'the wasm core could not be instantiated', { cause: err });
  }
  markReady(output);
}

/** Forgets the live instance (the glue's state with it); the next call instantiates the compiled module again. */
function discardInstance(): void {
  compiled = glue.__ctxpack_reset();
  memory = undefined;
}

/**
 * Runs one call of the core. Whatever `run` throws goes through `translate` (default
 * {@link fromWasm}). A trap (anything the core did not throw as its own error) leaves the
 * instance in an unknown state: its stack pointer and heap are wherever the trap left them.
 * Such an instance, or one whose memory grew past the limit, is discarded when the outermost call
 * returns, before anything else runs on it.
 */
export function call<T>(run: () => T, translate: (err: unknown) => CtxpackError = fromWasm): T {
  ensureReady();
  depth++;
  try {
    return run();
  } catch (err) {
    const e = translate(err);
    if (e.code === 'INTERNAL') trapped = true;
    throw e;
  } finally {
    depth--;
    if (depth === 0 && memory !== undefined && (trapped || memory.buffer.byteLength > memoryLimit)) {
      trapped = false;
      discardInstance();
    }
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set<string>(Object.keys(CORE_ERROR_TEXT));

/** The core's fields of each error it raised, for a front door that words it again in its own option's name. */
const CORE_FIELDS = new WeakMap<CtxpackError, CoreErrorFields>();

/** The fields the core gave `err` (undefined when the core did not raise it). @internal */
export function coreFieldsOf(err: unknown): CoreErrorFields | undefined {
  return err instanceof CtxpackError ? CORE_FIELDS.get(err) : undefined;
}

/**
 * Turns what the wasm boundary threw into a CtxpackError. The only place this happens: the core's
 * errors cross as fields (src/wasm/errors.rs), and the message is written from them
 * ({@link coreErrorText}); the glue's own message is not read.
 */
export function fromWasm(err: unknown): CtxpackError {
  if (err instanceof Error && err.name === 'CtxpackError') {
    const e = err as Error & Partial<Record<keyof CoreErrorFields, unknown>> & { cause?: unknown };
    if (typeof e.code === 'string' && KNOWN_CODES.has(e.code)) {
      const fields = e as unknown as CoreErrorFields;
      const details: CtxpackErrorDetails = {};
      if (typeof e.field === 'string') details.field = e.field;
      if (typeof e.index === 'number') details.index = e.index;
      // What a fragment's getter or Proxy trap threw while the core read it (sliceObjects).
      if ('cause' in e) details.cause = e.cause;
      const error = new CtxpackError(fields.code, coreErrorText(fields), details);
      CORE_FIELDS.set(error, { ...fields });
      return error;
    }
  }
  const what = err instanceof Error ? err.name : describeValue(err);
  return new CtxpackError(
    'INTERNAL',
    `the wasm core trapped (${what}; see cause), most likely out of memory on a very large input; ` +
      'the core was restarted: the next call runs on a fresh instance. If the input was small, please report it',
    { cause: err },
  );
}

