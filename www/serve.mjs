#!/usr/bin/env node
// The preview page's static file server, on the loopback interface only. No dependencies and no
// server-side logic: GET and HEAD of files, from four folders:
//
//   /pkg/dist/…      pkg/dist     the built package (pkg/dist/index.js is the browser bundle)
//   /pkg/wasm/…      pkg/wasm     its .wasm, which the bundle fetches from ../wasm/
//   /vendor/uplot/…  www/node_modules/uplot/dist   the charting library
//   /…               www/         the page; never its node_modules or dot-files
//
// Usage: node www/serve.mjs          (PORT=8080 by default; PORT=0 picks a free port)
// It prints the page's URL on its first line of output.

import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(WWW);

/** URL prefix → folder, most specific first. */
export const MOUNTS = [
  ['/pkg/dist/', join(ROOT, 'pkg', 'dist')],
  ['/pkg/wasm/', join(ROOT, 'pkg', 'wasm')],
  ['/vendor/uplot/', join(WWW, 'node_modules', 'uplot', 'dist')],
  ['/', WWW],
];

/** The page's policy. index.html carries the same in a meta tag, less frame-ancestors (a header-only directive). */
export const CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; " +
  "style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

/**
 * The file a URL path names, or `null` when it names none that may be served: outside every
 * mount, a `..` or `.` segment (also percent-encoded), a dot-file, www/node_modules, a NUL or
 * backslash, or a malformed escape.
 * @param {string} pathname  The URL's path, still percent-encoded.
 * @returns {string | null}
 */
export function resolvePath(pathname) {
  if (pathname === '/') pathname = '/index.html';
  const [prefix, folder] = MOUNTS.find(([p]) => pathname.startsWith(p)) ?? [];
  if (prefix === undefined) return null;
  let segments;
  try {
    segments = pathname.slice(prefix.length).split('/').map(decodeURIComponent);
  } catch {
    return null;
  }
  const safe = segments.every((s) => s !== '' && !s.startsWith('.') && !/[\\/\0]/.test(s));
  if (!safe || (folder === WWW && segments[0] === 'node_modules')) return null;
  const file = resolve(folder, ...segments);
  return file.startsWith(folder + sep) ? file : null;
}

async function handle(req, res) {
  res.setHeader('Content-Security-Policy', CSP); // on every response: the curve worker's script gets it too
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
    return;
  }
  let pathname;
  try {
    pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    pathname = '';
  }
  const file = resolvePath(pathname);
  const info = file === null ? undefined : await stat(file).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  const body = await readFile(file);
  res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** An http.Server that serves the page; call `.listen(port, '127.0.0.1')`. */
export function createPreviewServer() {
  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error(`serve: ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end();
    });
  });
}

function main() {
  const raw = process.env.PORT ?? '8080';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    console.error(`serve: PORT must be a port number from 0 to 65535, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  for (const [what, file, fix] of [
    ['the package', join(ROOT, 'pkg', 'dist', 'index.js'), 'make build'],
    ['uPlot', join(WWW, 'node_modules', 'uplot', 'dist', 'uPlot.esm.js'), 'cd www && npm ci'],
  ]) {
    if (!existsSync(file)) console.error(`serve: warning: ${what} is missing (${file}); run: ${fix}`);
  }
  const server = createPreviewServer();
  server.on('error', (err) => {
    console.error(err.code === 'EADDRINUSE' ? `serve: port ${port} is in use; set PORT to another one (PORT=0 picks a free one)` : `serve: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    console.log(`ctxpack preview: http://127.0.0.1:${server.address().port}/`);
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
