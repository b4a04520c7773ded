// The preview page's "Across turns" view in headless Chromium: a loaded chat history is replayed
// request by request in a worker, and the plot shows per request exactly the figures replaySession
// gives in Node for the options the page asked (the summary summarizeReplay's); the cache selector
// and the budget replay it again, a typed query does not, and a replay that fails says why. With
// summaries (extractiveSummarizer), each request's summary and its call's cost as Node gives them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { extractiveSummarizer, replaySession, summarizeReplay } from '../../pkg/dist/node.js';
import { ROOT, withPreview } from './harness.mjs';

const sample = (name) => JSON.parse(readFileSync(join(ROOT, 'www', 'samples', name), 'utf8'));
const LOOP = sample('agent-loop.openai.json');
const CHAT = sample('agent-chat.openai.json');
const SERIES = ['promptTokens', 'prefixTokens', 'predictedCachedTokens', 'predictedCost'];

describe('the preview page replays a chat history across turns', { timeout: 300_000 }, () => {
  let page;
  withPreview(async (p) => {
    page = p;
    await page.waitForFunction(() => window.__ctxpack?.plan > 0);
  });

  const lastJob = () => page.evaluate(() => window.__ctxpack.turns?.job ?? 0);

  /** Waits for a replay newer than job `after` at `budget` with `cache`; returns what the page shows. */
  async function replayAfter(after, budget, cache) {
    await page.waitForFunction(
      ([n, b, c]) => {
        const t = window.__ctxpack.turns;
        return t !== null && t.job > n && t.options.budgets.tokens_max === b && t.options.cache === c;
      },
      [after, budget, cache],
      { timeout: 60_000 },
    );
    return page.evaluate(() => ({
      turns: window.__ctxpack.turns,
      summary: document.getElementById('turns-summary').textContent,
      breakpoints: document.getElementById('turns-breakpoints'),
      breakpointsText: document.getElementById('turns-breakpoints').textContent,
      breakpointsHidden: document.getElementById('turns-breakpoints').hidden,
      cache: document.getElementById('turns-cache').value,
      visible: !document.getElementById('turns').closest('#chat').hidden,
    }));
  }

  /** The page's replay against Node's for the same options: the same turns, summary and plotted figures. */
  function assertSameAsNode(messages, shown) {
    const options = shown.turns.summarize === undefined ? shown.turns.options : { ...shown.turns.options, summarize: extractiveSummarizer() };
    if (shown.turns.summarize !== undefined) assert.equal(shown.turns.summarize, 'extractive');
    const turns = replaySession(messages, options);
    assert.deepEqual(shown.turns.turns, turns);
    assert.deepEqual(shown.turns.summary, summarizeReplay(turns));
    assert.deepEqual(shown.turns.plotted, [turns.map((t) => t.turn), ...SERIES.map((k) => turns.map((t) => t[k]))]);
    return turns;
  }

  test('the long agent loop: the plot is replaySession in Node, with cuts, and the summary its totals', async () => {
    const before = await lastJob();
    await page.selectOption('#sample', 'samples/agent-loop.openai.json');
    const shown = await replayAfter(before, LOOP.budgets.tokens_max, 'openai');
    assert.ok(shown.visible);
    assert.equal(shown.cache, 'openai', 'an OpenAI history replays with the OpenAI cache by default');
    assert.deepEqual(Object.keys(shown.turns.options).sort(), ['budgets', 'cache', 'format']);
    const turns = assertSameAsNode(LOOP.messages, shown);
    assert.ok(turns.length >= 60, `${turns.length} requests`);
    assert.ok(turns.some((t) => t.cut), 'the budget makes the session cut');
    const s = summarizeReplay(turns);
    assert.match(shown.summary, new RegExp(`^${turns.length} requests at 12,000 tokens, cache openai, ${s.cuts} cuts: ${(100 * s.prefixShare).toFixed(1)}%`));
    assert.match(shown.summary, new RegExp(`${(100 * s.ofAppendOnly).toFixed(1)}% of the append-only bound`));
    assert.ok(shown.breakpointsHidden, 'no breakpoints without the Anthropic cache');
  });

  test('the cache selector replays again: anthropic shows the last request\'s breakpoints, none cuts nothing', async () => {
    let before = await lastJob();
    await page.selectOption('#turns-cache', 'anthropic');
    let shown = await replayAfter(before, LOOP.budgets.tokens_max, 'anthropic');
    assertSameAsNode(LOOP.messages, shown);
    assert.equal(shown.breakpointsHidden, false);
    const last = [];
    replaySession(LOOP.messages, shown.turns.options, (r) => (last[0] = r));
    const expected = last[0].cache.breakpoints;
    assert.ok(expected.length > 0);
    assert.deepEqual(
      // The package's breakpoints as they are (index, tokens, ttl), less the history index the page adds.
      shown.turns.breakpoints.map(({ message: _message, ...b }) => b),
      expected,
    );
    // Each is named by the history's index of the message it follows.
    for (const b of shown.turns.breakpoints) {
      assert.deepEqual(LOOP.messages[b.message], last[0].messages[b.index]);
      assert.match(shown.breakpointsText, new RegExp(`after #${b.message} \\(${b.tokens.toLocaleString('en-US')} tokens\\)`));
    }

    before = await lastJob();
    await page.selectOption('#turns-cache', 'none');
    shown = await replayAfter(before, LOOP.budgets.tokens_max, 'none');
    const turns = assertSameAsNode(LOOP.messages, shown);
    assert.ok(turns.every((t) => !t.cut && t.predictedCachedTokens === 0 && t.predictedCost === t.promptTokens));
    assert.ok(shown.breakpointsHidden);
  });

  test('a budget change replays at the new budget; a typed query does not replay', async () => {
    await page.selectOption('#turns-cache', 'openai');
    let before = await lastJob();
    await page.fill('#budget', '20000');
    const shown = await replayAfter(before, 20_000, 'openai');
    const turns = assertSameAsNode(LOOP.messages, shown);
    assert.ok(turns.every((t) => t.effectiveBudget === 20_000));

    before = await lastJob();
    const plan = await page.evaluate(() => window.__ctxpack.plan);
    await page.fill('#query', 'run_tests failing');
    await page.waitForFunction((n) => window.__ctxpack.plan > n, plan);
    assert.equal((await page.evaluate(() => window.__ctxpack.chat)).options.query, 'run_tests failing');
    // The chat view answered the query, but asked no replay: the next replay is the very next job.
    await page.selectOption('#turns-cache', 'none');
    const next = await replayAfter(before, 20_000, 'none');
    assert.equal(next.turns.job, before + 1);
    assertSameAsNode(LOOP.messages, next);
    await page.fill('#query', '');
  });

  test('the summaries selector replays with extractiveSummarizer: per request the summary and its call, as Node gives them', async () => {
    const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    await page.selectOption('#turns-cache', 'openai');
    await page.fill('#budget', String(LOOP.budgets.tokens_max));
    /** Waits for the replay with `choice` in the selector (at `budget`); returns what the page shows, the table's rows as text. */
    const replayWith = async (choice, budget = LOOP.budgets.tokens_max) => {
      const before = await lastJob();
      await page.fill('#budget', String(budget));
      await page.selectOption('#turns-summarize', choice);
      await page.waitForFunction(
        ([n, c, b]) => {
          const t = window.__ctxpack.turns;
          return t !== null && t.job > n && t.options.budgets.tokens_max === b && t.options.cache === 'openai' && (t.summarize === undefined) === (c === 'none') && (t.options.summary !== undefined) === (c === 'small');
        },
        [before, choice, budget],
        { timeout: 60_000 },
      );
      return page.evaluate(() => ({
        turns: window.__ctxpack.turns,
        summary: document.getElementById('turns-summary').textContent,
        tableHidden: document.getElementById('turns-summaries-box').hidden,
        rows: [...document.querySelectorAll('#turns-summaries tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)),
      }));
    };

    let shown = await replayWith('small');
    assert.deepEqual(shown.turns.options.summary, { inputCost: 0.06, outputCost: 0.24 });
    let turns = assertSameAsNode(LOOP.messages, shown);
    const sent = turns.filter((t) => t.summary);
    assert.ok(sent.length > 0, 'summaries pay at a small model\'s prices');
    assert.equal(shown.turns.summaryRows, sent.length);
    assert.deepEqual(
      shown.rows,
      sent.map((t) => [INTEGER.format(t.turn), t.summary.id, `#${t.summary.replaces.from}–#${t.summary.replaces.to - 1}`, INTEGER.format(t.summary.tokens), t.summary.first ? INTEGER.format(t.summary.callCost) : 'resent']),
    );
    assert.equal(shown.tableHidden, false);
    const s = summarizeReplay(turns);
    const made = s.summaries === 1 ? '1 summary' : `${INTEGER.format(s.summaries)} summaries`;
    assert.ok(shown.summary.includes(`${made} made, in ${INTEGER.format(s.summarizedRequests)} requests; their calls cost ${INTEGER.format(s.summaryCallCost)}, so the replay costs ${INTEGER.format(s.costWithSummaries)} with them.`), shown.summary);

    // At the session's default prices (the agent's own model): the summaries Node's replay makes, and their rows.
    shown = await replayWith('same');
    assert.equal(shown.turns.options.summary, undefined);
    turns = assertSameAsNode(LOOP.messages, shown);
    const sentSame = turns.filter((t) => t.summary);
    assert.deepEqual(shown.rows, sentSame.map((t) => [INTEGER.format(t.turn), t.summary.id, `#${t.summary.replaces.from}–#${t.summary.replaces.to - 1}`, INTEGER.format(t.summary.tokens), t.summary.first ? INTEGER.format(t.summary.callCost) : 'resent']));
    assert.equal(shown.tableHidden, sentSame.length === 0);

    // A budget the whole history fits: nothing is cut, so no summary is made: said so, no table.
    shown = await replayWith('small', 1_000_000);
    turns = assertSameAsNode(LOOP.messages, shown);
    assert.ok(turns.every((t) => t.summary === null));
    assert.match(shown.summary, /No summary was made/);
    assert.ok(shown.tableHidden);
    assert.deepEqual(shown.rows, []);

    shown = await replayWith('none');
    turns = assertSameAsNode(LOOP.messages, shown);
    assert.ok(turns.every((t) => !('summary' in t)));
    assert.doesNotMatch(shown.summary, /summar/i);
    assert.ok(shown.tableHidden);
  });

  test('an earlier request over the budget: the replay names the code and the request, and the plot is empty', async () => {
    // Fitted whole, the large pasted log is left out; but the request right after it must keep it
    // (it is the task then, and a message someone typed is never truncated).
    const history = {
      budgets: { tokens_max: 400 },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Read the log.' },
        { role: 'assistant', content: 'Paste it.' },
        { role: 'user', content: 'line of the log '.repeat(300) },
        { role: 'assistant', content: 'It is long.' },
        { role: 'user', content: 'Then summarise it.' },
      ],
    };
    const before = await lastJob();
    const plan = await page.evaluate(() => window.__ctxpack.plan);
    await page.fill('#paste', JSON.stringify(history));
    await page.click('#paste-load');
    await page.waitForFunction((n) => window.__ctxpack.plan > n, plan);
    assert.equal(await page.evaluate(() => document.getElementById('chat').hidden), false, 'the whole history fits');
    await page.waitForFunction((n) => window.__ctxpack.turns?.job > n, before, { timeout: 60_000 });
    const turns = await page.evaluate(() => window.__ctxpack.turns);
    assert.throws(() => replaySession(history.messages, turns.options), (e) => e.code === 'PINNED_OVER_BUDGET' && e.index === 3);
    assert.match(turns.error, /PINNED_OVER_BUDGET/);
    assert.match(await page.textContent('#turns-summary'), /messages\[3\].*PINNED_OVER_BUDGET/);
    assert.deepEqual(await page.evaluate(() => window.__ctxpack.turns.plotted), undefined);
    assert.ok(await page.locator('#turns-breakpoints').isHidden());
  });
});
