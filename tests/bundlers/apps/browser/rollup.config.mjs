// What a typical Rollup user has: node-resolve with browser conditions, CommonJS interop.
import commonjs from '@rollup/plugin-commonjs';
import { nodeResolve } from '@rollup/plugin-node-resolve';

export default {
  input: 'apps/browser/main.js',
  output: { dir: 'out/rollup', format: 'es' },
  plugins: [nodeResolve({ browser: true }), commonjs()],
};
