/**
 * `ctxpack/langchain`: ctxpack in a LangChain agent (langchain@1 `createAgent`) in one line:
 * `ctxpackAgentMiddleware({ budgets })` in its `middleware` (docs/langchain.md). `langchain` and
 * `@langchain/core` are optional peer dependencies: types only, never bundled.
 *
 * @module
 */

export { ctxpackAgentMiddleware } from './adapters/langchain.js';
export type { LangChainOptions, MessagesTokenCounter, TokenCountingModel } from './adapters/langchain.js';
