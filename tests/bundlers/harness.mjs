// What the bundler tests share: the packed tarball installed once into .scratch/ (the apps are
// built there, so they resolve ctxpack from .scratch/node_modules and the pinned tools from
// tests/bundlers/node_modules), the tools' entry points, child processes that are always killed,
// a static server and Debian's Chromium (playwright-core never downloads a browser).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = fileURLToPath(new URL('./', import.meta.url));
export const ROOT = join(HERE, '..', '..');
export const PKG = join(ROOT, 'pkg');
export const SCRATCH = join(HERE, '.scratch');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const require = createRequire(import.meta.url);

/** The JS entry of a pinned tool's command, run with this Node (no PATH, no npx). */
export const BIN = {
  vite: join(HERE, 'node_modules/vite/bin/vite.js'),
  webpack: join(HERE, 'node_modules/webpack-cli/bin/cli.js'),
  rollup: join(HERE, 'node_modules/rollup/dist/bin/rollup'),
  esbuild: join(HERE, 'node_modules/esbuild/bin/esbuild'),
  next: join(HERE, 'node_modules/next/dist/bin/next'),
};

const quietEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' };

/** Runs a command to completion; returns stdout, throws with its output on failure. */
export function run(cmd, args, { cwd = SCRATCH, env = {} } = {}) {
  try {
    return execFileSync(cmd, args, { cwd, env: { ...quietEnv, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (err) {
    throw new Error(`${[cmd, ...args].join(' ')} failed (${err.status}):\n${err.stdout}\n${err.stderr}`);
  }
}

/** Runs a tool's command with this Node (esbuild's is its native binary once installed, so run as it is). */
export const tool = (name, args, opts) => (name === 'esbuild' ? run(BIN[name], args, opts) : run(process.execPath, [BIN[name], ...args], opts));

/**
 * Packs pkg/ (`npm pack`, exactly what would be published) and installs the tarball into
 * .scratch/ by npm, offline (it has no dependencies) and without a lockfile: nothing committed is
 * rewritten. The apps' sources are copied beside it. Returns the tarball's path.
 */
export function installPacked() {
  rmSync(SCRATCH, { recursive: true, force: true });
  mkdirSync(SCRATCH, { recursive: true });
  const npm = (args, cwd) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });
  const [{ filename }] = JSON.parse(npm(['pack', '--json', '--pack-destination', SCRATCH], PKG));
  const manifest = { name: 'ctxpack-bundler-apps', private: true, type: 'module', dependencies: { ctxpack: `file:./${filename}` } };
  writeFileSync(join(SCRATCH, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  npm(['install', '--offline', '--ignore-scripts', '--no-package-lock'], SCRATCH);
  cpSync(join(HERE, 'apps'), join(SCRATCH, 'apps'), { recursive: true });
  return join(SCRATCH, filename);
}

/** Copies an app's source folder to a fresh build folder beside it in .scratch/apps/ (so that its imports of ../shared hold); returns it. */
export function freshApp(from, to) {
  const dir = join(SCRATCH, 'apps', to);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(SCRATCH, 'apps', from), dir, { recursive: true });
  return dir;
}

const children = new Set();

/**
 * Starts a long-running command in its own process group; resolves with { child, url } once its
 * output matches `ready` (the first capture group, or the whole match, is the URL).
 */
export function start(cmd, args, { cwd, env = {}, ready, timeoutMs = 60_000 }) {
  const child = spawn(cmd, args, { cwd, env: { ...quietEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} ${args.join(' ')} not ready after ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (chunk) => {
      out += chunk;
      const m = ready.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] ?? m[0], output: () => out });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

/** Kills a started process's whole group (Next and Vite start workers of their own). */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function stopAll() {
  for (const child of children) stop(child);
}
process.on('exit', stopAll);

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };

/**
 * A static file server for `dir` on 127.0.0.1 and a free port; resolves with { url, close }. With
 * `spaFallback`, a missing file gets index.html with status 200, as single-page-app hosts do.
 */
export function serveStatic(dir, { spaFallback = false } = {}) {
  const server = createServer((req, res) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    let file = path.endsWith(sep) ? join(path, 'index.html') : path;
    if (spaFallback && !existsSync(file)) file = join(dir, 'index.html');
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Headless Chromium, launched once; `visit(url)` opens a page and returns its window.__ctxpack. */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    async visit(url) {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (err) => errors.push(String(err)));
      try {
        await page.goto(url);
        await page.waitForFunction(() => window.__ctxpack !== undefined, null, { timeout: 30_000 }).catch(() => {
          throw new Error(`${url}: the page never reported (page errors: ${errors.join('; ') || 'none'})`);
        });
        return await page.evaluate(() => window.__ctxpack);
      } finally {
        await page.close();
      }
    },
    close: () => browser.close(),
  };
}

/** The last line of a program's output, as JSON (what apps/node/* print). */
export const lastJson = (stdout) => JSON.parse(stdout.trim().split('\n').at(-1));
