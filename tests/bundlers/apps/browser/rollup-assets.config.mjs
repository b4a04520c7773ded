// The same with the one line ctxpack's WASM_LOAD_FAILED message names: importMetaAssets() emits
// the .wasm that `new URL('…', import.meta.url)` points at.
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';
import config from './rollup.config.mjs';

export default { ...config, output: { ...config.output, dir: 'out/rollup-assets' }, plugins: [...config.plugins, importMetaAssets()] };
