// The preview page with a chat history, in headless Chromium: the bundled OpenAI agent chat and a
// pasted Anthropic history are fitted by the package in the page, and the page shows every message
// in conversation order with the verdict fitMessages gives in Node, the request it would send (a
// valid one), the budget and query moving the result, and errors that name what is wrong.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fitMessages, validateMessages } from '../../pkg/dist/node.js';
import { ROOT, withPreview } from './harness.mjs';

const CHAT = JSON.parse(readFileSync(join(ROOT, 'www', 'samples', 'agent-chat.openai.json'), 'utf8'));

describe('the preview page with a chat history', { timeout: 300_000 }, () => {
  let page;
  withPreview(async (p) => {
    page = p;
    await page.waitForFunction(() => window.__ctxpack?.plan > 0);
  });

  /** Waits for a chat result newer than `after`; returns what the page shows and what it asked. */
  async function shownAfter(after) {
    await page.waitForFunction((n) => window.__ctxpack.chat !== null && window.__ctxpack.chat.plan > n, after, { timeout: 30_000 });
    return page.evaluate(() => ({
      chat: window.__ctxpack.chat,
      rows: [...document.querySelectorAll('#chat-table tbody tr')].map((tr) => ({ index: Number(tr.dataset.index), included: tr.dataset.included === 'true', reason: tr.dataset.reason, cells: [...tr.cells].map((c) => c.textContent) })),
      request: document.getElementById('chat-request').textContent,
      summary: document.getElementById('chat-summary').textContent,
      chatHidden: document.getElementById('chat').hidden,
      planHidden: document.getElementById('plan').hidden,
      queryHidden: document.getElementById('query').closest('fieldset').hidden,
      gazeHidden: document.getElementById('gaze').closest('fieldset').hidden,
    }));
  }
  const lastPlan = () => page.evaluate(() => window.__ctxpack.plan);

  /** What Node's fitMessages gives for what the page asked. */
  function inNode(messages, chat) {
    return fitMessages(messages, chat.options);
  }

  test('the bundled agent chat: every message in conversation order, with the verdicts and the request of fitMessages in Node', async () => {
    const before = await lastPlan();
    await page.selectOption('#sample', 'samples/agent-chat.openai.json');
    const shown = await shownAfter(before);
    assert.equal(shown.chat.format, 'openai');
    assert.equal(shown.chatHidden, false);
    assert.equal(shown.planHidden, true, 'the fragment plan is hidden');
    assert.equal(shown.queryHidden, false);
    assert.equal(shown.gazeHidden, true);
    const node = inNode(CHAT, shown.chat);
    assert.deepEqual(shown.chat.decisions, node.decisions);
    assert.deepEqual(
      shown.rows.map((r) => r.index),
      CHAT.map((_, i) => i),
      'one row per message, in input order',
    );
    assert.deepEqual(
      shown.rows.map((r) => [r.included, r.reason]),
      node.decisions.map((d) => [d.included, d.reason]),
    );
    assert.ok(node.decisions.some((d) => !d.included), 'the sample budget cuts something');
    const request = JSON.parse(shown.request);
    assert.deepEqual(request.messages, node.messages);
    assert.deepEqual(validateMessages(request.messages, 'openai'), []);
    assert.equal(request.messages[0].role, 'system');
    // A tool call's row names its tool; its results are rows of their own, in the same unit.
    const call = CHAT.findIndex((m) => m.tool_calls?.length > 0);
    assert.match(shown.rows[call].cells[2], new RegExp(`tool call.*${CHAT[call].tool_calls[0].function.name}`));
  });

  test('a lower budget keeps fewer messages (or truncates tool results more), a higher one more; the result is always valid', async () => {
    let previous = Infinity;
    for (const budget of [8000, 3000, 1500]) {
      const before = await lastPlan();
      await page.fill('#budget', String(budget));
      const shown = await shownAfter(before);
      assert.equal(shown.chat.options.budgets.tokens_max, budget);
      const node = inNode(CHAT, shown.chat);
      assert.deepEqual(shown.chat.decisions, node.decisions);
      // Tool results over half the budget go in truncated, so a lower budget may keep more, shorter messages.
      const kept = node.messages.length;
      assert.ok(kept <= previous || node.decisions.some((d) => d.truncated), `${kept} kept at ${budget}, ${previous} at the budget above`);
      assert.ok(node.metrics.budget_used <= node.metrics.effective_budget);
      previous = kept;
      assert.deepEqual(validateMessages(JSON.parse(shown.request).messages, 'openai'), []);
    }
  });

  test('a typed query is what relevance is measured against', async () => {
    const before = await lastPlan();
    await page.fill('#query', 'node version engines');
    const shown = await shownAfter(before);
    assert.equal(shown.chat.options.query, 'node version engines');
    assert.deepEqual(shown.chat.decisions, inNode(CHAT, shown.chat).decisions);
    await page.fill('#query', '');
  });

  test('stubbing tool results: the page sends the stubs fitMessages chooses, marked as such', async () => {
    const before = await lastPlan();
    await page.fill('#budget', '2500');
    await shownAfter(before);
    const mid = await lastPlan();
    await page.check('#stub-tool-results');
    const shown = await shownAfter(mid);
    assert.equal(shown.chat.options.stubToolResults, true);
    const node = inNode(CHAT, shown.chat);
    assert.deepEqual(shown.chat.decisions, node.decisions);
    const stubbed = node.decisions.filter((d) => d.stubbed).map((d) => d.index);
    assert.ok(stubbed.length > 0, 'some result goes in as a stub at 2,500 tokens');
    for (const i of stubbed) assert.equal(shown.rows[i].cells[5], 'stub');
    const request = JSON.parse(shown.request);
    assert.deepEqual(request.messages, node.messages);
    assert.deepEqual(validateMessages(request.messages, 'openai'), []);
    const after = await lastPlan();
    await page.uncheck('#stub-tool-results');
    assert.equal((await shownAfter(after)).chat.options.stubToolResults, undefined);
  });

  test('a budget below what must be kept: PINNED_OVER_BUDGET, named, and no request shown', async () => {
    await page.fill('#budget', '20');
    await page.locator('#plan-error').waitFor({ state: 'visible' });
    assert.match(await page.textContent('#plan-error'), /PINNED_OVER_BUDGET/);
    assert.ok(await page.locator('#chat').isHidden());
    await page.fill('#budget', '3000');
    await page.locator('#chat').waitFor({ state: 'visible' });
  });

  test('a pasted Anthropic history with a top-level system prompt is detected and fitted', async () => {
    const history = {
      system: 'You are terse.',
      budgets: { tokens_max: 120 },
      messages: [
        { role: 'user', content: 'Find the config file. '.repeat(20) },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'glob', input: { pattern: '*.toml' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'Cargo.toml rustfmt.toml '.repeat(30) }] },
        { role: 'assistant', content: 'Found two.' },
        { role: 'user', content: 'Which one sets the edition?' },
      ],
    };
    const before = await lastPlan();
    await page.fill('#paste', JSON.stringify(history));
    await page.click('#paste-load');
    const shown = await shownAfter(before);
    assert.equal(shown.chat.format, 'anthropic');
    assert.equal(shown.chat.options.system, 'You are terse.');
    assert.match(await page.textContent('#source'), /5 anthropic messages/);
    const node = inNode(history.messages, shown.chat);
    assert.deepEqual(shown.chat.decisions, node.decisions);
    const request = JSON.parse(shown.request);
    assert.equal(request.system, 'You are terse.');
    assert.deepEqual(validateMessages(request.messages, 'anthropic'), []);
    // The tool_use and its tool_result go in or out together.
    assert.equal(shown.rows[1].included, shown.rows[2].included);
  });

  test('a message the format cannot read: the package names the field and index, and never quotes it', async () => {
    await page.fill('#paste', JSON.stringify([{ role: 'user', content: 'ok' }, { role: 'assistant', content: 7, secret: 'TOP-SECRET' }]));
    await page.click('#paste-load');
    await page.locator('#input-error').waitFor({ state: 'visible' });
    const message = await page.textContent('#input-error');
    assert.match(message, /messages\[1\]/);
    assert.doesNotMatch(message, /TOP-SECRET/);
  });

  test('loading fragments again shows the fragment plan and hides the chat', async () => {
    const before = await lastPlan();
    await page.selectOption('#sample', 'samples/agent-session.json');
    await page.waitForFunction((n) => window.__ctxpack.plan > n && !document.getElementById('plan').hidden, before);
    assert.ok(await page.locator('#chat').isHidden());
    assert.ok(await page.locator('#gaze').isVisible());
    assert.ok(await page.locator('#query').isHidden());
  });
});
