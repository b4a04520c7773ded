// The public TypeScript types, checked by compiling a fixture against dist/*.d.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

test('the public types accept what they should and reject what they should', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const fixture = fileURLToPath(new URL('./fixtures/public-types.ts', import.meta.url));
  const args = [tsc, '--noEmit', '--strict', '--exactOptionalPropertyTypes', '--target', 'es2022', '--module', 'es2022'];
  args.push('--moduleResolution', 'bundler', '--skipLibCheck', fixture);
  try {
    execFileSync(process.execPath, args, { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
  }
});
