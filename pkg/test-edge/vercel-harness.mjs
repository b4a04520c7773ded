// Runs a Vercel Edge Function in Vercel's own Edge runtime emulation (`edge-runtime`, the
// @edge-runtime/vm sandbox behind `vercel dev` and Next.js's edge routes), with the package
// bundled the way Vercel's bundlers treat it:
// - the conditions Next.js resolves edge code with: edge-light, worker, browser, module, import, node
//   (so `ctxpack` is dist/edge-light.js);
// - `*.wasm?module` becomes `export default globalThis["wasm_<sha1 of the file>"]`, and the runtime
//   is handed that global as a compiled WebAssembly.Module, as the esbuild plugin of Vercel's Edge
//   Function builder does;
// - the bundle is CommonJS, evaluated as a script that registers a fetch listener, which is what
//   the Edge runtime's evaluate()/dispatchFetch() take.
//
// Two ways the Module reaches the function (`realm`):
// - 'host': compiled in Node, outside the sandbox, as `vercel dev` and `next dev`/`next start` do;
//   it is then a Module of another realm. The sandbox may not compile WebAssembly at all
//   (codeGeneration.wasm = false), so any compile from bytes inside it throws.
// - 'sandbox': compiled inside the sandbox before the function loads, a Module of the function's
//   own realm, as in an isolate of the deployed Edge network; afterwards WebAssembly.compile,
//   compileStreaming, instantiateStreaming, `new WebAssembly.Module` and instantiate(bytes) throw.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { EdgeRuntime } from 'edge-runtime';

export const EDGE_CONDITIONS = ['edge-light', 'worker', 'browser', 'module', 'import', 'node'];

/** The `?module` wasm imports as global bindings: { plugin, bindings: Map<name, path> }. */
function vercelWasm() {
  const bindings = new Map();
  const plugin = {
    name: 'vercel-wasm',
    setup(b) {
      b.onResolve({ filter: /\.wasm\?module$/i }, async (args) => {
        const file = args.path.replace(/\?module$/i, '');
        const resolved = await b.resolve(file, { importer: args.importer, resolveDir: args.resolveDir, kind: args.kind });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const name = `wasm_${createHash('sha1').update(readFileSync(resolved.path)).digest('hex')}`;
        bindings.set(name, resolved.path);
        return { path: name, namespace: 'vercel-wasm' };
      });
      b.onLoad({ filter: /.*/, namespace: 'vercel-wasm' }, (args) => ({
        loader: 'js',
        contents: `export default globalThis[${JSON.stringify(args.path)}];`,
      }));
    },
  };
  return { plugin, bindings };
}

const GUARD = `(() => {
  const W = WebAssembly;
  const { Module, instantiate } = W;
  const refuse = (what) => new EvalError(what + ': compiling WebAssembly from bytes is not allowed in the Edge runtime');
  function GuardedModule() { throw refuse('new WebAssembly.Module'); }
  Object.setPrototypeOf(GuardedModule, Module);
  GuardedModule.prototype = Module.prototype;
  W.Module = GuardedModule;
  W.compile = () => Promise.reject(refuse('WebAssembly.compile'));
  W.compileStreaming = () => Promise.reject(refuse('WebAssembly.compileStreaming'));
  W.instantiateStreaming = () => Promise.reject(refuse('WebAssembly.instantiateStreaming'));
  W.instantiate = (source, imports) => source instanceof Module ? instantiate(source, imports) : Promise.reject(refuse('WebAssembly.instantiate(bytes)'));
})();`;

/**
 * Bundles `entry` (inside a project whose node_modules holds the package) and starts it in an
 * EdgeRuntime. Returns { bundle, bindings, runtime, dispatch }.
 */
export async function startEdgeFunction(entry, { realm }) {
  const wasm = vercelWasm();
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'neutral',
    target: 'es2022',
    conditions: EDGE_CONDITIONS,
    mainFields: ['module', 'main'],
    plugins: [wasm.plugin],
    write: false,
    // The glue's unused default path mentions import.meta, empty in CommonJS: not an error.
    logLevel: 'error',
  });
  const bundle = out.outputFiles[0].text;
  const code = `(() => {
  const module = { exports: {} };
  (function (module, exports) {
${bundle}
  })(module, module.exports);
  const handler = module.exports.default;
  addEventListener('fetch', (event) => event.respondWith(Promise.resolve().then(() => handler(event.request))));
})();`;

  let runtime;
  if (realm === 'host') {
    const modules = {};
    for (const [name, path] of wasm.bindings) modules[name] = await WebAssembly.compile(readFileSync(path));
    runtime = new EdgeRuntime({ codeGeneration: { strings: false, wasm: false }, extend: (ctx) => Object.assign(ctx, modules) });
  } else if (realm === 'sandbox') {
    const bytes = Object.fromEntries([...wasm.bindings].map(([name, path]) => [name, new Uint8Array(readFileSync(path))]));
    runtime = new EdgeRuntime({ codeGeneration: { strings: false, wasm: true }, extend: (ctx) => Object.assign(ctx, { __wasmBytes: bytes }) });
    runtime.evaluate(`for (const [name, bytes] of Object.entries(globalThis.__wasmBytes)) globalThis[name] = new WebAssembly.Module(bytes);
delete globalThis.__wasmBytes;`);
    runtime.evaluate(GUARD);
  } else {
    throw new Error(`unknown realm ${realm}`);
  }
  runtime.evaluate(code);
  return {
    bundle,
    bindings: [...wasm.bindings.keys()],
    runtime,
    /** POSTs `body` as JSON; resolves with { status, json }. */
    async dispatch(body) {
      const res = await runtime.dispatchFetch('http://localhost/api/plan', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.waitUntil?.();
      return { status: res.status, json: await res.json() };
    },
  };
}
