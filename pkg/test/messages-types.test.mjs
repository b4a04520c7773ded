// The OpenAI and Anthropic SDKs ship types, not schemas: fitMessages' results on seeded random
// histories are written into a TypeScript file as literals typed with the SDKs' own request types
// (ChatCompletionCreateParamsNonStreaming, ResponseCreateParamsNonStreaming,
// MessageCreateParamsNonStreaming), next to a generic call
// that must hand the caller's message type back (also the AI SDK's ModelMessage and LangChain's
// BaseMessage), and tsc must accept it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fitMessages } from 'ctxpack';
import { randomHistory, render } from './messages-histories.mjs';
import { everyItem } from './responses-items.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

test('fitMessages results type-check as OpenAI (chat completions and Responses) and Anthropic SDK requests', () => {
  const dir = join(root, 'node_modules', '.cache', 'ctxpack-messages-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const lines = [
    "import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';",
    "import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';",
    `import { fitMessages } from ${JSON.stringify(join(root, 'dist', 'index.js'))};`,
    'declare const history: ChatCompletionMessageParam[];',
    "const fitted = fitMessages(history, { format: 'openai', budgets: { tokens_max: 8000 } });",
    "export const generic: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: fitted.messages };",
    'declare const turns: MessageParam[];',
    "const a = fitMessages(turns, { format: 'anthropic', system: 'Be brief.', budgets: { tokens_max: 8000 } });",
    "export const genericAnthropic: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: a.messages };",
    "import type { ModelMessage } from 'ai';",
    "import type { BaseMessage } from '@langchain/core/messages';",
    'declare const model: ModelMessage[];',
    "export const aiSdk: ModelMessage[] = fitMessages(model, { format: 'ai-sdk', budgets: { tokens_max: 8000 } }).messages;",
    // keep's predicate receives the caller's message type; the AI SDK's system prompt goes beside the messages.
    "export const kept = fitMessages(history, { format: 'openai', budgets: { tokens_max: 8000 }, keep: (m) => m.role === 'tool' }).messages;",
    "export const keptAnthropic = fitMessages(turns, { format: 'anthropic', budgets: { tokens_max: 8000 }, keep: (m, i) => m.role === 'user' && i > 0 }).messages;",
    "export const aiSdkSystem: ModelMessage[] = fitMessages(model, { format: 'ai-sdk', system: 'Be brief.', budgets: { tokens_max: 8000 }, keep: (m) => m.role === 'tool' }).messages;",
    'declare const lc: BaseMessage[];',
    "export const langchain: BaseMessage[] = fitMessages(lc, { format: 'langchain', budgets: { tokens_max: 8000 } }).messages;",
    // The Responses API: the SDK's own input items, instructions beside them; ResponsesItem takes them.
    "import type { ResponseCreateParamsNonStreaming, ResponseInputItem } from 'openai/resources/responses/responses';",
    `import type { ResponsesItem } from ${JSON.stringify(join(root, 'dist', 'index.js'))};`,
    'declare const items: ResponseInputItem[];',
    "const fittedItems = fitMessages<ResponseInputItem>(items, { format: 'openai-responses', system: 'Be brief.', budgets: { tokens_max: 8000 }, keep: (m) => m.type === 'function_call_output' });",
    "export const responses: ResponseCreateParamsNonStreaming = { model: 'gpt-5', instructions: 'Be brief.', input: fittedItems.messages };",
    'export const asItems: readonly ResponsesItem[] = items;',
    `export const every: ResponseInputItem[] = ${JSON.stringify(everyItem())};`,
  ];
  let n = 0;
  for (let seed = 0; seed < 40; seed++) {
    for (const format of ['openai', 'openai-responses', 'anthropic']) {
      const { messages, system } = render(randomHistory(seed), format);
      const r = fitMessages(messages, { format, system, budgets: { tokens_max: 30000 + 97 * seed } });
      const literal = JSON.stringify(r.messages);
      lines.push(
        format === 'openai'
          ? `export const o${seed}: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: ${literal} };`
          : format === 'openai-responses'
            ? `export const r${seed}: ResponseCreateParamsNonStreaming = { model: 'gpt-5', input: ${literal} };`
            : `export const a${seed}: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, system: ${JSON.stringify(system)}, messages: ${literal} };`,
      );
      n++;
    }
  }
  writeFileSync(join(dir, 'requests.ts'), lines.join('\n') + '\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: true, types: [] }, files: ['requests.ts'] }),
  );
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc rejected the requests:\n${e.stdout}`);
  }
  assert.equal(n, 120);
});
