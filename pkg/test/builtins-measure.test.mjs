// builtins.mjs, the measure behind the docs' comparison tables, on small hand-made requests:
// each column, and the check of a page's table against the figures.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { checkTable, measure, renderTable, SYSTEM, TASK } from './builtins.mjs';

const system = { role: 'system', content: SYSTEM };
const task = { role: 'user', content: TASK };
const call = (k) => ({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }] });
const result = (k, text = 'export const x = 1;') => ({ role: 'tool', tool_call_id: `c${k}`, content: text });
const openai = (requests, options = {}) => measure(requests, { format: 'openai', ...options });

test("valid: a request validateMessages takes but the SDK's own check refuses is counted invalid", () => {
  // The AI SDK's modelMessageSchema wants a part's providerOptions as a record of records; ctxpack never reads them.
  const head = [{ role: 'system', content: SYSTEM }, { role: 'user', content: [{ type: 'text', text: TASK }] }];
  const pair = (providerOptions) => [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: {} }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'x' }, providerOptions }] }];
  const m = measure([head, [...head, ...pair({ openai: {} })], [...head, ...pair(5)]], { format: { name: 'ai-sdk', allowSystemInMessages: true } });
  assert.equal(m.requests, 3);
  assert.equal(m.valid, 2);
});

test('a request the measuring session cannot take whole (a tool result without its call, last) is refused, not measured wrong', () => {
  assert.throws(() => openai([[system, task], [system, task, result(1)]]), (err) => err.code === 'INVALID_MESSAGES' || /left a message out/.test(err.message));
});

test('task kept: the first user message of the first request, equal; another user message is not it', () => {
  const m = openai([[system, task], [system, { role: 'user', content: 'Something else.' }], [system, { ...task }]]);
  assert.equal(m.taskKept, 2);
});

test('within budget: counted by o200k_base, the largest request reported', () => {
  const big = 'session '.repeat(30_000); // 30,000 tokens by o200k_base
  const m = openai([[system, task], [system, task, call(1), result(1, big)]]);
  assert.equal(m.withinBudget, 1);
  assert.ok(m.largest > 30_000 && m.largest < 30_200, `${m.largest}`);
});

test('cache reuse: the repeated leading messages over every request, the first included; nothing after a changed system prompt', () => {
  const first = [system, task];
  // OpenAI's framing primes the reply with 3 tokens after the messages: never part of a prefix.
  const REPLY = 3;
  const same = openai([first, first]);
  assert.equal(same.cacheReuse, (same.largest - REPLY) / (2 * same.largest));
  const grown = openai([first, [...first, call(1), result(1)]]);
  const alone = openai([first]).largest;
  assert.equal(grown.cacheReuse, (alone - REPLY) / (alone + grown.largest));
  // A new system prompt: what follows it is not repeated, only what leads the prompt (the tools' names and descriptions, the request's own overhead).
  const changed = openai([first, [{ role: 'system', content: 'Another prompt.' }, task]]);
  assert.ok(changed.cacheReuse < openai([first, first]).cacheReuse / 2, `${changed.cacheReuse}`);
  assert.ok(openai([first, [{ role: 'system', content: 'Another prompt.' }, task]], { tools: [] }).cacheReuse < changed.cacheReuse);
  // The task left out at the head (a window that slides): the call and result after it are not a prefix.
  const whole = [system, task, call(1), result(1, 'export const y = 2;\n'.repeat(200))];
  const slid = openai([whole, [system, call(1), result(1, 'export const y = 2;\n'.repeat(200))]]);
  assert.ok(slid.cacheReuse < 0.1, `${slid.cacheReuse}`);
});

test('extra model calls are reported as given', () => {
  assert.equal(openai([[system, task]], { extraCalls: 3 }).extraCalls, 3);
});

test('checkTable: passes on the measured table, fails on a figure that differs or a missing section, UPDATE_TABLES=1 writes it', () => {
  const rows = [['`a built-in`', openai([[system, task], [system, task, call(1), result(1)]])]];
  const page = pathToFileURL(join(mkdtempSync(join(tmpdir(), 'builtins-')), 'page.md'));
  const text = (table) => `# Page\n\n## Beside its own\n\nSome words.\n\n${table}\n\nMore words.\n\n## Next\n\n| other | table |\n|---|---|\n`;
  writeFileSync(page, text(renderTable(rows)));
  checkTable(page, 'Beside its own', rows);
  writeFileSync(page, text(renderTable(rows).replace('2 of 2', '1 of 2')));
  assert.throws(() => checkTable(page, 'Beside its own', rows), /differs from what the run measured/);
  assert.throws(() => checkTable(page, 'Elsewhere', rows), /no section/);
  process.env.UPDATE_TABLES = '1';
  try {
    checkTable(page, 'Beside its own', rows);
  } finally {
    delete process.env.UPDATE_TABLES;
  }
  assert.equal(readFileSync(page, 'utf8'), text(renderTable(rows)));
  checkTable(page, 'Beside its own', rows);
});
