// `ctxpack fit`: the demo history fitted, the request printed as JSON is valid and is fitMessages'
// own result; `plan` given a chat history fits it too; formats are detected.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { estimateTokens, fitMessages, validateMessages } from 'ctxpack';

const bin = new URL('../bin/ctxpack.js', import.meta.url).pathname;
const sample = new URL('../../www/samples/agent-chat.openai.json', import.meta.url).pathname;
const run = (args, input) => execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', input });

test('ctxpack fit --json prints the request fitMessages makes, valid for its format', () => {
  const out = JSON.parse(run(['fit', sample, '--budget', '4500', '--json']));
  const messages = JSON.parse(readFileSync(sample, 'utf8'));
  const r = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 4500 }, countTokens: estimateTokens });
  assert.deepEqual(out.messages, r.messages);
  assert.deepEqual(validateMessages(out.messages, 'openai'), []);
  assert.ok(out.messages.length < messages.length);
});

test('ctxpack fit prints every message in conversation order with its reason; plan detects a history', () => {
  const text = run(['fit', sample, '--budget', '4500']);
  assert.match(text, /ctxpack fit \(openai\): 20 of 22 messages/);
  assert.match(text, /group_excluded \(with #18\)/);
  assert.equal(run(['plan', sample, '--budget', '4500']), text);
  const anthropic = { system: 'be brief', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'yo' }] }, { role: 'user', content: 'bye' }] };
  assert.match(run(['fit', '-', '--budget', '100'], JSON.stringify(anthropic)), /ctxpack fit \(anthropic\)/);
  const aiSdk = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input: {} }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'r' } }] }];
  assert.match(run(['fit', '-', '--budget', '100'], JSON.stringify(aiSdk)), /ctxpack fit \(ai-sdk\)/);
});
