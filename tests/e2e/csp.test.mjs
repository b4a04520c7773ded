// The preview page runs under a strict Content-Security-Policy: its own scripts and wasm only.
// The page must work under it, and the policy must really bite (eval and foreign scripts blocked).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchChromium, startServer } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchChromium({ width: 1200, height: 900 });
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test('the page plans under its CSP, and the CSP blocks eval and inline script', async () => {
  const { page } = browser;
  const violations = [];
  page.on('console', (m) => m.type() === 'error' && violations.push(m.text()));
  const response = await page.goto(server.url);
  const csp = response.headers()['content-security-policy'];
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
  // The plan appears: the wasm core compiled under 'wasm-unsafe-eval'.
  await page.waitForFunction(() => (window.__ctxpack?.updates ?? 0) > 0);
  assert.deepEqual(violations, []);

  // DevTools' own evaluation is exempt from CSP; code that runs later, as page code, is not.
  const evalResult = await page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 0));
    try {
      return String(eval('1 + 1'));
    } catch (e) {
      return e.name;
    }
  });
  assert.equal(evalResult, 'EvalError');
  const inlineRan = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.head.append(s);
    await new Promise((r) => setTimeout(r, 50));
    return window.__inlineRan === true;
  });
  assert.equal(inlineRan, false);
});
