// The package as a user gets it: `npm pack` of pkg/ (exactly the files package.json publishes),
// installed by npm from the tarball into a fresh project. Nothing comes from the network: the
// tarball has no dependencies (its peers are optional) and npm runs with --offline.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgRoot = dirname(dirname(fileURLToPath(import.meta.url)));

const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** `npm pack` of the package into `dir`; returns the tarball's path. */
export function packInto(dir) {
  const [{ filename }] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], pkgRoot));
  return join(dir, filename);
}

/**
 * Packs the package and installs it into `<tmp>/app` (package.json `type` as given; CommonJS when
 * undefined). Returns { root, app, tarball, cleanup }.
 */
export function installPacked({ prefix = 'ctxpack-packed-', type } = {}) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const tarball = packInto(root);
  const app = join(root, 'app');
  mkdirSync(app);
  const manifest = { name: 'ctxpack-user', version: '1.0.0', private: true, ...(type ? { type } : {}), dependencies: { ctxpack: `file:../${basename(tarball)}` } };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  npm(['install', '--offline', '--ignore-scripts', '--no-package-lock'], app);
  return { root, app, tarball, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
