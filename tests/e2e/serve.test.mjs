// www/serve.mjs: which paths it serves, what it refuses, and its headers.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CSP, createPreviewServer, resolvePath } from '../../www/serve.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('resolvePath', () => {
  test('maps the page, the package, its wasm and uPlot', () => {
    assert.equal(resolvePath('/'), join(ROOT, 'www', 'index.html'));
    assert.equal(resolvePath('/src/curve.js'), join(ROOT, 'www', 'src', 'curve.js'));
    assert.equal(resolvePath('/samples/agent-session.json'), join(ROOT, 'www', 'samples', 'agent-session.json'));
    assert.equal(resolvePath('/pkg/dist/index.js'), join(ROOT, 'pkg', 'dist', 'index.js'));
    assert.equal(resolvePath('/pkg/wasm/ctxpack_bg.wasm'), join(ROOT, 'pkg', 'wasm', 'ctxpack_bg.wasm'));
    assert.equal(resolvePath('/vendor/uplot/uPlot.esm.js'), join(ROOT, 'www', 'node_modules', 'uplot', 'dist', 'uPlot.esm.js'));
    assert.equal(resolvePath('/samples/a%20b.json'), join(ROOT, 'www', 'samples', 'a b.json'));
  });

  test('refuses every way out of its folders', () => {
    for (const path of [
      '/../Makefile',
      '/%2e%2e/Makefile',
      '/%2E%2E/%2E%2E/etc/passwd',
      '/pkg/dist/../../Makefile',
      '/pkg/dist/..%2f..%2fMakefile',
      '/pkg/dist/%2e%2e%2f%2e%2e%2fCargo.toml',
      '/samples/..%5c..%5cMakefile',
      '/samples/x%00.json',
      '/vendor/uplot/../package.json',
      '/pkg/dist/./index.js',
      '/node_modules/uplot/package.json',
      '/.gitignore',
      '/samples/.hidden',
      '/samples//agent-session.json',
      '/samples/%zz',
      'no-leading-slash',
    ]) {
      assert.equal(resolvePath(path), null, path);
    }
  });
});

describe('the server', () => {
  let server;
  let port;

  before(async () => {
    server = createPreviewServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  after(() => server.close());

  /** A raw request: the path goes out exactly as given, without a client's normalisation. */
  function get(path, method = 'GET') {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('serves the page with its content security policy', async () => {
    const res = await get('/');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['content-security-policy'], CSP);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(res.body)?.[1];
    assert.equal(`${meta}; frame-ancestors 'none'`, CSP, 'the meta tag and the header agree');
    assert.match(CSP, /script-src 'self' 'wasm-unsafe-eval';/);
  });

  test('serves files with their types, and HEAD without a body', async () => {
    const sample = await get('/samples/agent-session.json');
    assert.equal(sample.status, 200);
    assert.equal(sample.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(sample.body, readFileSync(join(ROOT, 'www', 'samples', 'agent-session.json'), 'utf8'));
    const head = await get('/app.js', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.ok(Number(head.headers['content-length']) > 0);
    assert.equal(head.body, '');
  });

  test('answers 404 for paths outside its folders and for missing files, 405 for other methods', async () => {
    for (const path of ['/../Makefile', '/%2e%2e/%2e%2e/etc/passwd', '/pkg/dist/..%2f..%2fMakefile', '/node_modules/uplot/package.json', '/nope.js', '/samples']) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body, 'not found\n');
    }
    const post = await get('/', 'POST');
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });
});

test('serve.mjs refuses a PORT that is not a port number', () => {
  const run = spawnSync(process.execPath, [join(ROOT, 'www', 'serve.mjs')], { env: { ...process.env, PORT: 'http' }, encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /PORT must be a port number from 0 to 65535/);
});
