// An ES-module user: `import * as ctxpack from 'ctxpack'`, resolved by the bundler's conditions.
import * as ctxpack from 'ctxpack';
import { outcomeWith } from './plan.js';

export const outcome = (wasm) => outcomeWith(ctxpack, wasm);
