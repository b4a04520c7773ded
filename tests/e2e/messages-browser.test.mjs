// fitMessages and validateMessages in headless Chromium, from the browser bundle as a page loads
// it: seeded agent histories in the three JSON formats (OpenAI, Anthropic, AI SDK) at budgets from
// tiny to ample give the same decisions as in Node, and every kept request is valid in the page.
// LangChain histories are class instances, so they are built in the page by the real
// @langchain/core, bundled for the browser by esbuild.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fitMessages } from '../../pkg/dist/node.js';
import { randomHistory, render } from '../../pkg/test/messages-histories.mjs';
import { launchChromium, ROOT, startServer } from './harness.mjs';

const FORMATS = ['openai', 'anthropic', 'ai-sdk'];
const BUDGETS = [300, 2_000, 20_000, 200_000];

/** Every case: a JSON request, so the page gets exactly what Node got. */
const CASES = [];
for (let seed = 1; seed <= 60; seed++) {
  const history = randomHistory(seed);
  for (const format of FORMATS) {
    const { messages, system } = render(history, format);
    for (const tokens_max of BUDGETS) CASES.push({ messages, options: { format, budgets: { tokens_max }, ...(system === undefined ? {} : { system }) } });
  }
}

/** What a fit decided, in a form both sides can compare: the decisions, or the error code. */
function outcome(fit, c) {
  try {
    const r = fit(c.messages, c.options);
    return JSON.stringify({ decisions: r.decisions, kept: r.messages.length });
  } catch (err) {
    return JSON.stringify({ error: err.code });
  }
}

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchChromium({ width: 800, height: 600 });
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test('fitMessages decides alike in Node and in Chromium, and every request it keeps is valid there', { timeout: 120_000 }, async () => {
  const inNode = CASES.map((c) => outcome(fitMessages, c));
  assert.ok(inNode.filter((o) => !o.includes('"error"')).length > CASES.length / 2, 'most cases fit');
  const { page } = browser;
  await page.goto(new URL('samples/agent-session.json', server.url).href); // same origin, no app running
  const fromChromium = await page.evaluate(async (cases) => {
    const m = await import('/pkg/dist/index.js');
    await m.init();
    const out = [];
    const invalid = [];
    for (const c of JSON.parse(cases)) {
      try {
        const r = m.fitMessages(c.messages, c.options);
        out.push(JSON.stringify({ decisions: r.decisions, kept: r.messages.length }));
        if (m.validateMessages(r.messages, c.options.format).length > 0) invalid.push(out.length - 1);
      } catch (err) {
        out.push(JSON.stringify({ error: err.code }));
      }
    }
    return JSON.stringify({ out, invalid });
  }, JSON.stringify(CASES));
  const { out, invalid } = JSON.parse(fromChromium);
  assert.deepEqual(invalid, [], 'every kept request passes validateMessages in the page');
  assert.equal(out.length, inNode.length);
  for (let i = 0; i < out.length; i++) assert.equal(out[i], inNode[i], `case ${i} (${CASES[i].options.format}, ${CASES[i].options.budgets.tokens_max})`);
});

test('LangChain message instances, built in Chromium by @langchain/core, fit alike in Node and the page', { timeout: 120_000 }, async () => {
  const { build } = createRequire(join(ROOT, 'pkg', 'package.json'))('esbuild');
  const bundle = await build({
    stdin: {
      contents: "import { randomHistory, render } from './messages-histories.mjs'; export const history = (seed) => render(randomHistory(seed), 'langchain').messages;",
      resolveDir: join(ROOT, 'pkg', 'test'),
      sourcefile: 'langchain-entry.mjs',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'warning',
  });
  const seeds = Array.from({ length: 30 }, (_, i) => i + 1);
  const cases = seeds.flatMap((seed) => BUDGETS.map((tokens_max) => ({ seed, tokens_max })));
  const inNode = cases.map(({ seed, tokens_max }) =>
    outcome(fitMessages, { messages: render(randomHistory(seed), 'langchain').messages, options: { format: 'langchain', budgets: { tokens_max } } }),
  );
  assert.ok(inNode.filter((o) => !o.includes('"error"')).length > cases.length / 2, 'most cases fit');
  const { page } = browser;
  const entry = new URL('__langchain-histories.js', server.url).href;
  await page.route(entry, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: bundle.outputFiles[0].text }));
  await page.goto(new URL('samples/agent-session.json', server.url).href);
  const fromChromium = await page.evaluate(
    async ({ cases, entry }) => {
      const m = await import('/pkg/dist/index.js');
      const lc = await import(entry);
      await m.init();
      const out = [];
      const invalid = [];
      for (const c of cases) {
        const messages = lc.history(c.seed);
        if (typeof messages[0].getType !== 'function') throw new Error('not LangChain instances');
        try {
          const r = m.fitMessages(messages, { format: 'langchain', budgets: { tokens_max: c.tokens_max } });
          out.push(JSON.stringify({ decisions: r.decisions, kept: r.messages.length }));
          // The caller's own objects, but for tool results sent truncated (new ToolMessage instances).
          const sent = r.decisions.filter((d) => d.included);
          if (!r.messages.every((x, k) => messages.includes(x) === (sent[k].truncated === undefined))) invalid.push(out.length - 1);
          if (m.validateMessages(r.messages, 'langchain').length > 0) invalid.push(out.length - 1);
        } catch (err) {
          out.push(JSON.stringify({ error: err.code }));
        }
      }
      return { out, invalid };
    },
    { cases, entry },
  );
  assert.deepEqual(fromChromium.invalid, [], 'every kept request is the caller\'s own instances and valid');
  assert.deepEqual(fromChromium.out, inNode);
});
