// The ctxpack command: the plan it prints is selectFragments' plan, its flags reach the planner,
// and bad input exits non-zero with a message.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MESSAGE_FORMATS, estimateTokens, fitMessages, selectFragments } from 'ctxpack';

const bin = fileURLToPath(new URL('../bin/ctxpack.js', import.meta.url));
const samplePath = fileURLToPath(new URL('../../www/samples/agent-session.json', import.meta.url));
const sample = JSON.parse(readFileSync(samplePath, 'utf8'));
const run = (args, input) => spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8' });
const strip = (plan) => ({ ...plan, metrics: { ...plan.metrics, planner_ms: 0 } });

test('--json prints exactly the plan selectFragments makes', () => {
  const out = JSON.parse(execFileSync(process.execPath, [bin, 'plan', samplePath, '--budget', '6000', '--json'], { encoding: 'utf8' }));
  const want = selectFragments(sample.fragments, sample.gaze, { tokens_max: 6000 }, { slicer: 'ranked', now: Date.parse(sample.now) });
  assert.deepEqual(strip(out), JSON.parse(JSON.stringify(strip(want))));
});

test('flags reach the planner: slicer, gaze, count constraints, bucket size', () => {
  const args = ['plan', samplePath, '--budget', '6000', '--slicer', 'count-knapsack', '--count', 'system:2:2', '--bucket-size', '10', '--gaze', 'auth,jwt', '--json'];
  const out = JSON.parse(run(args).stdout);
  const want = selectFragments(sample.fragments, { entities: ['auth', 'jwt'] }, { tokens_max: 6000 }, {
    slicer: 'count-knapsack',
    now: Date.parse(sample.now),
    bucketSize: 10,
    countEntries: [{ kind: 'system', requireCount: 2, capCount: 2 }],
  });
  assert.deepEqual(strip(out), JSON.parse(JSON.stringify(strip(want))));
  assert.ok(out.fragments.some((f) => f.id === 'sys-prompt'));
});

test('--require-dependencies reaches the planner; the report says why a group was left out', () => {
  const frags = [
    { id: 'call', cost_tokens: 10, group: 't' },
    { id: 'result', cost_tokens: 500, group: 't' },
    { id: 'doc', cost_tokens: 10, dependencies: ['call'] },
    { id: 'note', cost_tokens: 10 },
  ];
  const json = JSON.parse(run(['plan', '-', '--budget', '100', '--require-dependencies', '--json', '--now', '0'], JSON.stringify(frags)).stdout);
  const want = selectFragments(frags, { entities: [] }, { tokens_max: 100 }, { slicer: 'ranked', now: 0, dependencies: 'require' });
  assert.deepEqual(strip(json), JSON.parse(JSON.stringify(strip(want))));
  assert.deepEqual(json.fragments.map((f) => f.id), ['note']);
  const text = run(['plan', '-', '--budget', '100', '--require-dependencies', '--now', '0'], JSON.stringify(frags)).stdout;
  assert.match(text, / call .*group_excluded \(group: budget_exceeded\)/);
  assert.match(text, / doc .*dependency_excluded/);
  // Without the flag the dependency does not bind.
  const loose = JSON.parse(run(['plan', '-', '--budget', '100', '--json', '--now', '0'], JSON.stringify(frags)).stdout);
  assert.deepEqual(new Set(loose.fragments.map((f) => f.id)), new Set(['doc', 'note']));
});

test('the text report lists every fragment once with its reason', () => {
  const r = run(['plan', samplePath, '--budget', '6000']);
  assert.equal(r.status, 0, r.stderr);
  const rows = r.stdout.split('\n').filter((l) => /^ {2}\d+ /.test(l));
  assert.equal(rows.length, sample.fragments.length);
  for (const f of sample.fragments) assert.equal(rows.filter((l) => l.split(/ +/)[2] === f.id).length, 1, f.id);
  assert.match(r.stdout, /kv policy\n {2}pin/);
});

test('standard input and --estimate-tokens for fragments that bring only text', () => {
  const frags = [{ id: 'a', content: 'hello world, this is some text', entities: [] }, { id: 'b', cost_tokens: 50 }];
  const r = run(['plan', '-', '--budget', '100', '--estimate-tokens', '--json', '--now', '0'], JSON.stringify(frags));
  assert.equal(r.status, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.equal(plan.decisions[0].cost_tokens, estimateTokens(frags[0].content));
});

test('bad input exits non-zero with a message naming the problem', () => {
  assert.equal(run(['plan', '-', '--budget', '10'], '{not json').status, 2);
  const bad = run(['plan', '-', '--budget', '10'], JSON.stringify([{ id: 'a', cost_tokens: -1 }]));
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /INVALID_FIELD: candidates\[0\]\.cost_tokens/);
  assert.equal(run(['plan', samplePath, '--budget', 'many']).status, 2);
  assert.equal(run(['plan']).status, 2);
});

const BUDGETS = { tokens_max: 6000, output_reserve: 700, overhead_tokens: 120, per_fragment_overhead: 9, safety_margin_percent: 10 };

test('plan honours every budget field of the input; --budget replaces tokens_max only', () => {
  const doc = JSON.stringify({ ...sample, budgets: BUDGETS });
  const want = (budgets) => JSON.parse(JSON.stringify(strip(selectFragments(sample.fragments, sample.gaze, budgets, { slicer: 'ranked', now: Date.parse(sample.now) }))));
  const fromFile = JSON.parse(run(['plan', '-', '--json'], doc).stdout);
  assert.deepEqual(strip(fromFile), want(BUDGETS));
  assert.notDeepEqual(strip(fromFile).fragments, want({ tokens_max: 6000 }).fragments, 'the other fields change the plan');
  const overridden = JSON.parse(run(['plan', '-', '--json', '--budget', '4000'], doc).stdout);
  assert.deepEqual(strip(overridden), want({ ...BUDGETS, tokens_max: 4000 }));
  const badBudgets = run(['plan', '-', '--budget', '10'], JSON.stringify({ fragments: [], budgets: 'patient SS 123' }));
  assert.equal(badBudgets.status, 2);
  assert.doesNotMatch(badBudgets.stderr, /patient/);
});

test('fit honours every budget field of the input too', () => {
  const messages = [{ role: 'system', content: 'be brief' }, ...Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} `.repeat(40) }))];
  const out = JSON.parse(run(['fit', '-', '--json', '--budget', '2000'], JSON.stringify({ messages, budgets: BUDGETS })).stdout);
  const want = fitMessages(messages, { format: 'openai', budgets: { ...BUDGETS, tokens_max: 2000 }, countTokens: estimateTokens });
  assert.deepEqual(out.messages, JSON.parse(JSON.stringify(want.messages)));
});

test('a JSON syntax error says where, never quotes the input', () => {
  const r = run(['plan', '-', '--budget', '10'], '[{"id": "a", "content": patient SS 123-45-6789}]');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /not shown/);
  assert.doesNotMatch(r.stderr, /patient|6789/);
});

test('a UTF-8 byte order mark is accepted', () => {
  const r = run(['plan', '-', '--json'], `\uFEFF${JSON.stringify(sample)}`);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).fragments.length > 0);
});

test('a reader that stops reading (| head -1): exit 0, nothing on stderr', async () => {
  const child = spawn(process.execPath, [bin, 'plan', samplePath, '--budget', '6000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // closed before the first write: the write gets EPIPE
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const status = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(stderr, '');
  assert.equal(status, 0);
});

test('nonsense clocks are refused with a clear message that never echoes the input', () => {
  for (const now of ['yesterday patient', 'May 12', {}, true, '2026-13-45', null]) {
    const r = run(['plan', '-', '--budget', '100'], JSON.stringify({ fragments: sample.fragments, now }));
    assert.equal(r.status, 2, JSON.stringify(now));
    assert.match(r.stderr, /the input's "now" must be an ISO 8601 date .* or epoch milliseconds/);
    assert.doesNotMatch(r.stderr, /patient|May/);
  }
  const flag = run(['plan', samplePath, '--budget', '100', '--now', 'soon']);
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /--now must be an ISO 8601 date/);
  const good = run(['plan', samplePath, '--budget', '100', '--now', '2026-11-20T12:00:00Z']);
  assert.equal(good.status, 0, good.stderr);
});

/** An input error as the command reports every one: exit 2, one line on stderr, no stack trace. */
function inputError(r, pattern) {
  assert.equal(r.status, 2, `status ${r.status} signal ${r.signal}: ${r.stderr?.slice(0, 500)}`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr.slice(0, 500));
  assert.doesNotMatch(r.stderr, /\n\s+at |Error:/);
  assert.match(r.stderr, pattern);
}

test('endless input (/dev/zero) stops at the 64 MiB input limit: one line naming the limit and --max-input-bytes', () => {
  // Before the limit it read until the memory ran out; 30 s is far more than reading 64 MiB takes.
  const r = spawnSync(process.execPath, [bin, 'fit', '/dev/zero', '--budget', '100'], { encoding: 'utf8', timeout: 30_000 });
  inputError(r, /^ctxpack: \/dev\/zero is larger than the input limit of 67108864 bytes; raise it with --max-input-bytes N$/m);
});

test('--max-input-bytes: the limit is exact for standard input and files; a file over it is refused unread', () => {
  const history = JSON.stringify([{ role: 'user', content: 'hello there' }]);
  const size = Buffer.byteLength(history);
  assert.equal(run(['fit', '-', '--budget', '100', '--max-input-bytes', String(size)], history).status, 0);
  inputError(run(['fit', '-', '--budget', '100', '--max-input-bytes', String(size - 1)], history), new RegExp(`standard input is larger than the input limit of ${size - 1} bytes; raise it with --max-input-bytes N`));
  inputError(run(['plan', samplePath, '--budget', '6000', '--max-input-bytes', '1000']), /agent-session\.json is larger than the input limit of 1000 bytes/);
  inputError(run(['plan', samplePath, '--budget', '6000', '--max-input-bytes', 'lots']), /--max-input-bytes must be a positive integer, got 'lots'/);
  inputError(run(['plan', samplePath, '--budget', '6000', '--max-input-bytes', '0']), /--max-input-bytes must be a positive integer/);
  assert.match(run(['--help']).stdout, /--max-input-bytes N +read at most N bytes of input \(default 67108864, 64 MiB\)/);
});

test('JSON nested 5,000 deep is refused in one line, for every command, never a stack trace', () => {
  // Before, printing such a message or fragment (JSON.stringify) overflowed the stack.
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  const history = `[{"role":"user","content":"hi","extra":${deep}}]`;
  const fragments = `[{"id":"a","cost_tokens":1,"extra":${deep}}]`;
  for (const [command, input] of [['fit', history], ['plan', history], ['replay', history], ['plan', fragments], ['fit', `[${'['.repeat(5000)}${']'.repeat(5000)}]`]]) {
    for (const json of [[], ['--json']]) {
      inputError(run([command, '-', '--budget', '100', ...json], input), /^ctxpack: cannot read standard input: JSON nested deeper than 256 levels \(the input is not shown\)$/m);
    }
  }
  // 256 levels are read, and printed.
  const levels = (n) => `[{"role":"user","content":"hi","extra":${'['.repeat(n - 2)}${']'.repeat(n - 2)}}]`;
  const ok = run(['fit', '-', '--budget', '100', '--json'], levels(256));
  assert.equal(ok.status, 0, ok.stderr);
  inputError(run(['fit', '-', '--budget', '100', '--json'], levels(257)), /nested deeper than 256 levels/);
});

test('fit: every chat format is named in the help and read, detected or given with --format', () => {
  const histories = {
    openai: [{ role: 'user', content: 'hello there' }],
    'openai-responses': [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }],
    anthropic: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    'ai-sdk': [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    langchain: [{ type: 'human', content: 'hello there' }],
  };
  assert.deepEqual(Object.keys(histories).sort(), [...MESSAGE_FORMATS].sort(), 'a history for every format the package reads');
  const help = run(['--help']).stdout;
  for (const [format, history] of Object.entries(histories)) {
    assert.match(help, new RegExp(`\\b${format}\\b[,)]`), `the help names ${format}`);
    const r = run(['fit', '-', '--budget', '100', '--format', format, '--json'], JSON.stringify(history));
    assert.equal(r.status, 0, `${format}: ${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).messages.length, 1, format);
  }
});

test('fit: the header says the pinned figure is tokens, and a truncated tool result shows TRUNC with sent/whole tokens', () => {
  const history = [
    { role: 'user', content: 'Why does the build fail?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'error at line 42 '.repeat(2000) },
    { role: 'user', content: 'Which module?' },
  ];
  const r = run(['fit', '-', '--budget', '3000'], JSON.stringify(history));
  assert.equal(r.status, 0, r.stderr);
  const fitted = fitMessages(history, { format: 'openai', budgets: { tokens_max: 3000 } });
  const t = fitted.decisions[2].truncated;
  assert.ok(t, 'the library truncates the result');
  assert.match(r.stdout, new RegExp(`\\(${fitted.metrics.pinned_tokens} of them kept by rule\\)`));
  assert.match(r.stdout, new RegExp(`^  2 +tool +${t.to}/${t.from} .*TRUNC`, 'm'));
});

test('a format given as an object is named by its name in the headers; --budget past the safe integers says the limit', () => {
  const input = JSON.stringify({
    format: { name: 'ai-sdk', allowSystemInMessages: true },
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the session token expiry.' },
    ],
  });
  const fit = run(['fit', '-', '--budget', '1000'], input);
  assert.equal(fit.status, 0, fit.stderr);
  assert.match(fit.stdout.split('\n')[0], /^ctxpack fit \(ai-sdk\): /);
  const replay = run(['replay', '-', '--budget', '1000'], input);
  assert.equal(replay.status, 0, replay.stderr);
  assert.match(replay.stdout.split('\n')[0], /^ctxpack replay \(ai-sdk, cache /);
  const big = run(['fit', '-', '--budget', '9007199254740992'], input);
  assert.equal(big.status, 2);
  assert.match(big.stderr, /--budget must be an integer from 0 to 9007199254740991/);
});

test('plan: the planner\'s warnings go to stderr as fit\'s do; --json\'s plan holds them too', () => {
  const doc = JSON.stringify({ fragments: [{ id: 'a', cost_tokens: 5 }], budgets: { tokens_max: 100, output_reserve: 100 }, now: 0 });
  const want = selectFragments([{ id: 'a', cost_tokens: 5 }], { entities: [] }, { tokens_max: 100, output_reserve: 100 }, { now: 0 }).warnings;
  assert.equal(want.length, 1);
  const text = run(['plan', '-'], doc);
  assert.equal(text.status, 0, text.stderr);
  assert.equal(text.stderr, `ctxpack: warning: ${want[0]}\n`);
  assert.doesNotMatch(text.stdout, /warning/);
  const json = run(['plan', '-', '--json'], doc);
  assert.equal(json.stderr, `ctxpack: warning: ${want[0]}\n`);
  assert.deepEqual(JSON.parse(json.stdout).warnings, want);
});
