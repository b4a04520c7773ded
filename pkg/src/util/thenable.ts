/**
 * Promises a caller's function returns where an answer was expected: one test of what is one,
 * and one way to refuse it without an unhandled rejection.
 *
 * @internal
 * @module
 */

/** Whether `v` is a thenable (a Promise, or any object or function with a `then` method); one whose `then` getter throws is not. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  try {
    return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
  } catch {
    return false;
  }
}

/**
 * Whether `v` is a thenable, which the caller is about to refuse (a synchronous entry point got a
 * Promise): nobody will await it, so its rejection is handled here, never reported as unhandled.
 */
export function refusedThenable(v: unknown): boolean {
  if (!isThenable(v)) return false;
  try {
    v.then(undefined, () => undefined);
  } catch {
    // Its `then` threw: there is nothing to wait for.
  }
  return true;
}
