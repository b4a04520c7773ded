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

test('ctxpack fit --stub-tool-results sends long tool results as stubs, marked STUB', () => {
  const out = JSON.parse(run(['fit', sample, '--budget', '2500', '--stub-tool-results', '--json']));
  const messages = JSON.parse(readFileSync(sample, 'utf8'));
  const r = fitMessages(messages, { format: 'openai', budgets: { tokens_max: 2500 }, countTokens: estimateTokens, stubToolResults: true });
  assert.deepEqual(out.messages, r.messages);
  assert.deepEqual(validateMessages(out.messages, 'openai'), []);
  assert.ok(r.decisions.some((d) => d.stubbed));
  assert.match(run(['fit', sample, '--budget', '2500', '--stub-tool-results']), / STUB /);
});

test('ctxpack eval: the share of the evidence each strategy keeps, at budgets as shares of the history', () => {
  const messages = JSON.parse(readFileSync(sample, 'utf8'));
  const out = JSON.parse(run(['eval', sample, '--evidence', '9,10', '--budgets', '10,40', '--json']));
  const total = fitMessages(messages, { format: 'openai', budgets: { tokens_max: Number.MAX_SAFE_INTEGER } }).metrics.budget_used;
  assert.equal(out.historyTokens, total);
  assert.deepEqual(out.budgets, [10, 40]);
  // Each figure recomputed here: evidence kept in full (a stub does not count) over evidence.
  const recall = (extra, share) => {
    const d = fitMessages(messages, { format: 'openai', budgets: { tokens_max: Math.round((total * share) / 100) }, ...extra }).decisions;
    return [9, 10].filter((i) => d[i].included && !d[i].stubbed).length / 2;
  };
  const byName = Object.fromEntries(out.rows.map((r) => [r.strategy, r.recall]));
  assert.deepEqual(byName['fitMessages (defaults)'], [recall({}, 10), recall({}, 40)]);
  assert.deepEqual(byName.stubToolResults, [recall({ stubToolResults: true }, 10), recall({ stubToolResults: true }, 40)]);
  assert.ok(byName.stubToolResults[0] > byName['fitMessages (defaults)'][0], 'stubs keep the commit log in full where the defaults cannot');
  // Evidence from the input file, and refusals.
  const withEvidence = JSON.stringify({ messages, evidence: [9, 10] });
  assert.match(run(['eval', '-'], withEvidence), /2 evidence messages of 22/);
  for (const args of [['eval', sample], ['eval', sample, '--evidence', '9,99'], ['eval', sample, '--evidence', '9', '--budgets', '0']]) {
    assert.throws(() => execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', stdio: 'pipe' }), (e) => e.status === 2 && /evidence|budgets/.test(e.stderr));
  }
});

test('ctxpack fit and replay: a flag that is not an integer is a usage error (exit 2) naming the flag and what it got', async () => {
  const { spawnSync } = await import('node:child_process');
  const status = (args) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  for (const [args, message] of [
    [['fit', sample, '--budget', '8k'], "--budget must be an integer from 0 to 9007199254740991, got '8k'"],
    [['replay', sample, '--budget=-5'], "--budget must be an integer from 0 to 9007199254740991, got '-5'"],
    [['fit', sample, '--budget', '4500', '--keep', 'x'], "--keep must be an integer from 0 to 9007199254740991, got 'x'"],
  ]) {
    const r = status(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, `ctxpack: ${message}\n`);
  }
  assert.match(status(['fit', sample]).stderr, /--budget N is required/);
});

test('ctxpack fit: the table lines up in every format, the longest Responses item types included', async () => {
  // The role column was 11 characters: `function_call_output`, `web_search_call`, `reasoning`…
  // ran into the tokens column. Each cell is read back here at its header's offset.
  const { everyItem } = await import('./responses-items.mjs');
  const histories = {
    'openai-responses': everyItem(),
    openai: JSON.parse(readFileSync(sample, 'utf8')),
    anthropic: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'ls', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'a b' }] }],
    'ai-sdk': [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input: {} }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'r' } }] }, { role: 'user', content: 'y' }],
    langchain: [{ type: 'system', content: 'be brief' }, { type: 'human', content: 'hello there' }],
  };
  for (const [format, messages] of Object.entries(histories)) {
    const text = run(['fit', '-', '--budget', '3000', '--format', format], JSON.stringify(messages));
    const r = fitMessages(messages, { format, budgets: { tokens_max: 3000 }, countTokens: estimateTokens });
    const lines = text.split('\n');
    const header = lines.findIndex((l) => /^ {2}# +role +tokens +score +reason +message$/.test(l));
    assert.ok(header > 0, `${format}: the header row`);
    const at = Object.fromEntries(['#', 'role', 'tokens', 'score', 'reason', 'message'].map((name) => [name, lines[header].indexOf(` ${name}`) + 1]));
    const rows = lines.slice(header + 1, header + 1 + r.decisions.length);
    assert.equal(rows.length, messages.length, format);
    for (const [k, d] of r.decisions.entries()) {
      const row = rows[k];
      const cell = (from, to) => row.slice(at[from], to === undefined ? undefined : at[to]);
      const msg = messages[d.index];
      assert.equal(cell('#', 'role').trimEnd(), String(d.index), `${format} #${k}: ${row}`);
      assert.equal(cell('role', 'tokens').trimEnd(), msg.role ?? msg.type ?? '', `${format} #${k}: ${row}`);
      assert.match(cell('role', 'tokens'), / {2}$/, `${format} #${k}: two spaces before the tokens column: ${row}`);
      const tokens = d.stubbed ? `${d.stub_tokens}/${d.cost_tokens}` : d.truncated ? `${d.truncated.to}/${d.truncated.from}` : String(d.cost_tokens);
      assert.equal(cell('tokens', 'score').trimEnd(), tokens, `${format} #${k}: ${row}`);
      assert.equal(cell('score', 'reason').trim().split(/ +/)[0], d.score.toFixed(2), `${format} #${k}: ${row}`);
      assert.equal(cell('reason', 'message').trimEnd(), `${d.reason}${d.unit !== d.index ? ` (with #${d.unit})` : ''}`, `${format} #${k}: ${row}`);
      assert.ok(row.length <= at.message || row[at.message - 1] === ' ', `${format} #${k}: the message starts in its column: ${row}`);
    }
  }
});

test('ctxpack fit on an empty history: its warning goes to stderr, with and without --json; stdout stays the report or the request', async () => {
  // Before, the text report printed it on stdout and --json dropped it.
  const { spawnSync } = await import('node:child_process');
  const warning = 'ctxpack: warning: messages is empty: there is nothing to send\n';
  assert.deepEqual(fitMessages([], { format: 'openai', budgets: { tokens_max: 100 } }).warnings, ['messages is empty: there is nothing to send']);
  const text = spawnSync(process.execPath, [bin, 'fit', '-', '--budget', '100'], { input: '[]', encoding: 'utf8' });
  assert.equal(text.status, 0);
  assert.equal(text.stderr, warning);
  assert.doesNotMatch(text.stdout, /warning/);
  assert.match(text.stdout, /^ctxpack fit \(openai\): 0 of 0 messages/);
  const json = spawnSync(process.execPath, [bin, 'fit', '-', '--budget', '100', '--json'], { input: '[]', encoding: 'utf8' });
  assert.equal(json.status, 0);
  assert.equal(json.stderr, warning);
  assert.deepEqual(JSON.parse(json.stdout), { messages: [] }, 'stdout is the request to send, nothing else');
  // A history without warnings writes nothing to stderr.
  assert.equal(spawnSync(process.execPath, [bin, 'fit', sample, '--budget', '4500', '--json'], { encoding: 'utf8' }).stderr, '');
});

test('a negative value after a space (--budget -5) gets the flag\'s own message, as --budget=-5 does', async () => {
  // Node 20's parseArgs refused `--budget -5` as an ambiguous argument, with its own message.
  const { spawnSync } = await import('node:child_process');
  const plan = new URL('../../www/samples/agent-session.json', import.meta.url).pathname;
  const limit = `an integer from 0 to ${Number.MAX_SAFE_INTEGER}`;
  for (const [args, message] of [
    [['fit', sample, '--budget', '-5'], `--budget must be ${limit}, got '-5'`],
    [['plan', plan, '--budget', '-5'], `--budget must be ${limit}, got '-5'`],
    [['replay', sample, '--budget', '-1.5'], `--budget must be ${limit}, got '-1.5'`],
    [['fit', sample, '--budget', '4500', '--keep', '-1'], `--keep must be ${limit}, got '-1'`],
    [['plan', plan, '--budget', '6000', '--max-skips', '-2'], `--max-skips must be ${limit}, got '-2'`],
    [['replay', sample, '--budget', '2500', '--summarize', 'extractive', '--summary-cost', '-1,2'], "--summary-cost must be IN,OUT: two non-negative numbers (e.g. 0.05,0.2), got '-1,2'"],
  ]) {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, `ctxpack: ${message}\n`, args.join(' '));
  }
  // A value that does not read as a number is still the parser's to refuse; a query may be '-5'.
  assert.match(spawnSync(process.execPath, [bin, 'fit', sample, '--budget', '-x'], { encoding: 'utf8' }).stderr, /ambiguous/);
  const query = spawnSync(process.execPath, [bin, 'fit', '-', '--budget', '100', '--query', '-5', '--json'], { input: JSON.stringify([{ role: 'user', content: 'x' }]), encoding: 'utf8' });
  assert.equal(query.status, 0, query.stderr);
});
