/**
 * `ctxpack/openai-agents`: ctxpack in the OpenAI Agents SDK (`@openai/agents`) in one line:
 * `ctxpackInputFilter` as the run's `callModelInputFilter` (docs/openai-agents.md). The SDK is an
 * optional peer dependency: types only, never bundled.
 *
 * @module
 */

export { ctxpackInputFilter, responsesView } from './adapters/openai-agents.js';
export type { OpenAIAgentsOptions } from './adapters/openai-agents.js';
