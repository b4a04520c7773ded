/**
 * `ctxpack/mastra`: ctxpack in a Mastra agent (`@mastra/core`) in one line:
 * `ctxpackInputProcessor({ budgets })` in its `inputProcessors` (docs/mastra.md). `@mastra/core`
 * is an optional peer dependency: types only, never bundled.
 *
 * @module
 */

export { ctxpackInputProcessor } from './adapters/mastra.js';
export type { MastraOptions } from './adapters/mastra.js';
