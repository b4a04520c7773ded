/**
 * `ctxpack/ai-sdk`: ctxpack in the Vercel AI SDK (ai@7) in one line: `ctxpackPrepareStep` for
 * generateText, streamText and ToolLoopAgent, or `ctxpackLanguageModelMiddleware` for
 * `wrapLanguageModel` (docs/ai-sdk.md). The SDK is an optional peer dependency: types only, never bundled.
 *
 * @module
 */

export { ctxpackLanguageModelMiddleware, ctxpackPrepareStep } from './adapters/ai-sdk.js';
export { isAnthropicModel } from './adapters/prompts.js';
export type { AiSdkOptions, PrepareStepInput } from './adapters/ai-sdk.js';
