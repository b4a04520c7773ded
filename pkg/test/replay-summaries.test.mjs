// Replays with summaries: `ctxpack replay --summarize extractive` prints per turn the summary in
// the request, its tokens and its call's cost, and the totals with the summaries' calls; its
// --json is replaySession's turns. replaySessionAsync with an async summariser (any latency) gives
// the same replay as replaySession with the same summariser answering at once.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { estimateTokens, extractiveSummarizer, replaySession, replaySessionAsync, summarizeReplay } from 'ctxpack';
import { agentSession } from './agent-sessions.mjs';
import { FORMATS } from './messages-histories.mjs';

const bin = new URL('../bin/ctxpack.js', import.meta.url).pathname;
const sample = new URL('../../www/samples/agent-chat.openai.json', import.meta.url).pathname;
const recorded = JSON.parse(readFileSync(sample, 'utf8'));
const run = (args) => execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const options = (extra) => ({ format: 'openai', budgets: { tokens_max: 2500 }, cache: 'openai', countTokens: estimateTokens, summarize: extractiveSummarizer(), ...extra });

test('ctxpack replay --summarize extractive: --json is replaySession with extractiveSummarizer; a summary is made and resent', () => {
  const turns = replaySession(recorded, options());
  assert.deepEqual(JSON.parse(run(['replay', sample, '--budget', '2500', '--summarize', 'extractive', '--json'])), turns);
  const sent = turns.filter((t) => t.summary);
  assert.ok(sent.length >= 2, 'the sample at 2500 tokens gets a summary, resent on later turns');
  for (const t of sent) assert.ok(t.summary.tokens > 0 && t.summary.callCost > 0 && t.summary.callInputTokens > 0);
  assert.ok(turns.every((t) => t.summary !== undefined), 'null on the turns without one');
  // `first`: the first request that carries each summary; the totals count each call once.
  const ids = sent.map((t) => t.summary.id);
  assert.deepEqual(sent.map((t) => t.summary.first), ids.map((id, k) => ids.indexOf(id) === k));
  const sum = summarizeReplay(turns);
  assert.equal(sum.summaries, new Set(ids).size);
  assert.equal(sum.summarizedRequests, sent.length);
  assert.equal(sum.summaryCallCost, sent.filter((t) => t.summary.first).reduce((a, t) => a + t.summary.callCost, 0));
  assert.equal(sum.costWithSummaries, sum.predictedCost + sum.summaryCallCost);
  // --summary-cost prices the call: input × IN + the summary's tokens × OUT.
  const cheap = JSON.parse(run(['replay', sample, '--budget', '2500', '--summarize', 'extractive', '--summary-cost', '0.05,0.2', '--json']));
  assert.deepEqual(cheap, replaySession(recorded, options({ summary: { inputCost: 0.05, outputCost: 0.2 } })));
  for (const t of cheap.filter((x) => x.summary)) assert.ok(Math.abs(t.summary.callCost - (0.05 * t.summary.callInputTokens + 0.2 * t.summary.tokens)) < 1e-9);
});

test('ctxpack replay --summarize extractive prints the summary, its tokens and its call per turn, and the totals with the calls', () => {
  const turns = replaySession(recorded, options());
  const text = run(['replay', sample, '--budget', '2500', '--summarize', 'extractive']);
  const rows = text.split('\n').filter((l) => /^\s+\d+\s+\d+\s+\d+\s+\d+/.test(l));
  assert.equal(rows.length, turns.length);
  const seen = new Set();
  turns.forEach((t, k) => {
    if (!t.summary) {
      assert.doesNotMatch(rows[k], /summary-/);
      return;
    }
    const cells = rows[k].trim().split(/\s+/).slice(-3);
    assert.deepEqual(cells, [t.summary.id, String(t.summary.tokens), seen.has(t.summary.id) ? 'resent' : t.summary.callCost.toFixed(0)], `turn ${t.turn}`);
    seen.add(t.summary.id);
  });
  const sum = summarizeReplay(turns);
  assert.match(text, /summary\s+tokens\s+call/);
  assert.match(text, new RegExp(`summaries: ${sum.summaries} made, in ${turns.filter((t) => t.summary).length} of ${turns.length} requests; their calls cost ${sum.summaryCallCost.toFixed(0)}, so the replay costs ${(sum.predictedCost + sum.summaryCallCost).toFixed(0)} with them`));
  // Without --summarize: no summary column, no summary line.
  const plain = run(['replay', sample, '--budget', '2500']);
  assert.doesNotMatch(plain, /summar/);
});

test('ctxpack replay: a bad --summarize or --summary-cost is a usage error (exit 2) naming the flag', () => {
  for (const [args, message] of [
    [['--summarize', 'model'], "--summarize must be one of extractive, got 'model'"],
    [['--summarize', 'toString'], "--summarize must be one of extractive, got 'toString'"],
    [['--summary-cost', '1,2'], '--summary-cost needs --summarize'],
    [['--summarize', 'extractive', '--summary-cost', '1'], "--summary-cost must be IN,OUT: two non-negative numbers (e.g. 0.05,0.2), got '1'"],
    [['--summarize', 'extractive', '--summary-cost=-1,2'], "got '-1,2'"],
    [['--summarize', 'extractive', '--summary-cost', 'NaN,2'], "got 'NaN,2'"],
  ]) {
    const r = spawnSync(process.execPath, [bin, 'replay', sample, '--budget', '2500', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.ok(r.stderr.includes(message), `${args.join(' ')}: ${r.stderr}`);
  }
});

test('replaySessionAsync: an async summariser, whatever its latency, replays as the same summariser answering at once', async () => {
  const extractive = extractiveSummarizer();
  for (const format of FORMATS) {
    const { messages, system } = agentSession(4, format, 12);
    const base = { format, system, budgets: { tokens_max: 9000 }, cache: format === 'anthropic' ? 'anthropic' : 'openai', summary: { inputCost: 0.05, outputCost: 0.2 } };
    const sync = replaySession(messages, { ...base, summarize: extractive });
    assert.ok(sync.some((t) => t.summary), `${format}: a summary in the replay`);
    let k = 0;
    const slow = (q) => new Promise((resolve) => setTimeout(() => resolve(extractive(q)), k++ % 3));
    const results = [];
    const async = await replaySessionAsync(messages, { ...base, summarize: slow }, (r) => results.push(r));
    assert.deepEqual(async, sync, `${format}: the same turns`);
    assert.equal(results.length, sync.length, 'each sees every turn');
    // Told not to wait, a slow summariser's summary comes a cut later (a live session's timing): never earlier.
    const live = await replaySessionAsync(messages, { ...base, summarize: slow, summary: { ...base.summary, wait: false } });
    const first = (turns) => turns.findIndex((t) => t.summary);
    assert.ok(first(live) === -1 || first(live) >= first(sync), `${format}: not waiting never has a summary sooner`);
  }
});

test('replaySessionAsync: errors are the session\'s, at the request after the turn\'s last message, as replaySession\'s', async () => {
  const history = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Read the log.' },
    { role: 'assistant', content: 'Paste it.' },
    { role: 'user', content: 'line of the log '.repeat(300) },
    { role: 'assistant', content: 'It is long.' },
  ];
  const options = { format: 'openai', budgets: { tokens_max: 400 }, cache: 'openai', summarize: extractiveSummarizer() };
  const check = (e) => e.code === 'PINNED_OVER_BUDGET' && e.index === 3 && /at the request after messages\[3\]/.test(e.message);
  assert.throws(() => replaySession(history, options), check);
  await assert.rejects(replaySessionAsync(history, options), check);
  // Bad summary options are the session's own errors, not hidden by the replay's default wait.
  await assert.rejects(replaySessionAsync(history, { ...options, summary: { wiat: true } }), (e) => e.code === 'INVALID_OPTION' && e.field === 'summary.wiat');
  await assert.rejects(replaySessionAsync(history, { ...options, summary: 5 }), (e) => e.code === 'INVALID_OPTION' && e.field === 'summary');
});

test('ctxpack replay --summarize: a summaries line with none says why (no cut, or cuts without one); an empty history is replayed', () => {
  // It printed "summaries: 0 made, in 0 of 10 requests; …" unexplained, and an empty history crashed (TypeError).
  const line = (text) => text.trimEnd().split('\n').at(-1);
  const roomy = replaySession(recorded, options({ budgets: { tokens_max: 100_000 } }));
  assert.equal(summarizeReplay(roomy).cuts, 0);
  assert.equal(line(run(['replay', sample, '--budget', '100000', '--summarize', 'extractive'])), 'summaries: none: no request cut the history, and a summary stands only for what a cut leaves out');
  const tight = summarizeReplay(replaySession(recorded, options({ budgets: { tokens_max: 4000 } })));
  assert.ok(tight.cuts > 0 && tight.summaries === 0, 'at 4000 tokens the sample cuts, and no summary pays');
  assert.match(line(run(['replay', sample, '--budget', '4000', '--summarize', 'extractive'])), new RegExp(`^summaries: none, though ${tight.cuts} of ${tight.requests} requests cut: a summary goes in only for whole messages a cut leaves out after the task`));
  const empty = spawnSync(process.execPath, [bin, 'replay', '-', '--budget', '100', '--summarize', 'extractive'], { input: '[]', encoding: 'utf8' });
  assert.equal(empty.status, 0, empty.stderr);
  assert.match(line(empty.stdout), /^summaries: none: no request cut the history/);
});
