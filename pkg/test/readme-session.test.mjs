// README's session loops ("Across turns") run as printed against stand-in OpenAI and Anthropic
// clients that check every request they receive (valid for its format; Anthropic's breakpoints
// on copies) and answer with tool calls for a few steps.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createSession, validateMessages } from 'ctxpack';
import { forModel } from 'ctxpack/tokenizers/js-tiktoken';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = /### Across turns: sessions and prompt caching\n([^]*?)\n### /.exec(readme)[1];
const blocks = [...section.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1].replace(/^import .*$/gm, ''));
const AsyncFunction = (async () => {}).constructor;
const run = (body, clients) =>
  new AsyncFunction('createSession', 'forModel', 'openai', 'anthropic', 'task', 'tools', 'runTool', 'system', 'console', body)(
    createSession, forModel, clients.openai, clients.anthropic, 'Fix the login bug.', [], async () => 'log line '.repeat(800), 'You are a coding agent.', { log() {} },
  );

test('README: the OpenAI session loop runs, every request valid', async () => {
  const requests = [];
  const openai = {
    chat: {
      completions: {
        create: async ({ messages }) => {
          assert.deepEqual(validateMessages(messages, 'openai'), []);
          requests.push(messages.length);
          const k = requests.length;
          return { choices: [{ message: k < 4 ? { role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read', arguments: '{}' } }] } : { role: 'assistant', content: 'done' } }] };
        },
      },
    },
  };
  await run(blocks[0], { openai });
  assert.deepEqual(requests, [2, 4, 6, 8]);
});

test('README: the Anthropic session loop runs with breakpoints on copies', async () => {
  const seen = [];
  const anthropic = {
    messages: {
      create: async ({ messages, system }) => {
        assert.equal(system, 'You are a coding agent.');
        assert.deepEqual(validateMessages(messages, 'anthropic'), []);
        seen.push(messages.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.cache_control)).length);
        const k = seen.length;
        return { content: k < 4 ? [{ type: 'tool_use', id: `t${k}`, name: 'read', input: {} }] : [{ type: 'text', text: 'done' }] };
      },
    },
  };
  await run(blocks[1], { anthropic });
  assert.equal(seen.length, 4);
  assert.ok(seen.at(-1) > 0, 'the last requests carry cache_control breakpoints');
});
