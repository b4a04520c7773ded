// The esbuild variant with its one line of configuration: --loader:.wasm=file gives the .wasm's URL.
import wasmUrl from 'ctxpack/ctxpack_bg.wasm';
import { outcome } from '../shared/app.js';

outcome(wasmUrl).then((result) => {
  window.__ctxpack = result;
  document.body.textContent = JSON.stringify(result);
});
