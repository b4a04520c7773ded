// README's quick start runs as printed and keeps what its comments say: the pinned system prompt
// and turn-1, not doc-auth.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

test('the quick start plans as README says', async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /## Quick start \(Node\)[^]*?```js\n([^]*?)```/.exec(readme)[1];
  const dist = pathToFileURL(new URL('../dist/node.js', import.meta.url).pathname).href;
  const source = block.replace("from 'ctxpack'", `from '${dist}'`).replace(/^plan\.\w+;.*$/gm, '') + '\nexport { plan };\n';
  const file = join(mkdtempSync(join(tmpdir(), 'ctxpack-readme-')), 'quickstart.mjs');
  writeFileSync(file, source);
  const { plan } = await import(pathToFileURL(file).href);
  assert.deepEqual(plan.fragments.map((f) => f.id), ['sys', 'turn-1']);
  assert.deepEqual(plan.decisions.map((d) => d.reason), ['pinned', 'scored', 'budget_exceeded']);
});
