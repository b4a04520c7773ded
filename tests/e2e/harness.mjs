// What the browser tests share: the page's server on a free loopback port, and Debian's Chromium
// driven by playwright-core (never a downloaded browser), with a fresh profile each time, and the
// page tests' hooks (withPreview).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const { chromium } = createRequire(join(ROOT, 'www', 'package.json'))('playwright-core');

/** Starts `node www/serve.mjs` on a free loopback port; resolves with { child, url }. */
export function startServer() {
  const child = spawn(process.execPath, [join(ROOT, 'www', 'serve.mjs')], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)?.[0];
      if (url) resolve({ child, url });
    });
    child.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code} before printing its URL`)));
  });
}

/** Launches headless Chromium with a fresh profile; resolves with { context, page, close }. */
export async function launchChromium(viewport = { width: 1400, height: 1800 }) {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (make test-e2e does it)`);
  const profile = mkdtempSync(join(tmpdir(), 'ctxpack-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The preview page as the page tests open it: the server, Chromium, the page loaded, and every
 * console error, page error, failed request and HTTP error collected in `errors` (each test file
 * checks it is empty after every test). Resolves with { page, url, errors, close }.
 */
export async function openPreview(viewport) {
  const server = await startServer();
  const browser = await launchChromium(viewport);
  const { page } = browser;
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  page.on('response', (r) => r.status() >= 400 && errors.push(`HTTP ${r.status()}: ${r.url()}`));
  await page.goto(server.url);
  return {
    page,
    url: server.url,
    errors,
    async close() {
      await browser.close();
      server.child.kill();
    },
  };
}

/**
 * The page tests' hooks, registered in the enclosing `describe`: the preview opened before its
 * tests (then `ready(page)` awaited), closed after them, and its `errors` checked empty after each.
 */
export function withPreview(ready) {
  let preview;
  before(async () => {
    preview = await openPreview();
    await ready(preview.page);
  });
  after(async () => {
    await preview?.close();
  });
  afterEach(() => assert.deepEqual(preview.errors.splice(0), [], 'the page logged errors'));
}
