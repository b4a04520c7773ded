// How a bench script measures in a fresh process: it runs `script` (usually itself) with `args`
// in a child Node process, which prints its result as JSON on its last line of stdout; and how it
// loads a build, this one (`pkg/`) or an earlier one (`--before <dir>`), from its package directory.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs `node [nodeArgs…] script args…` and returns the JSON of the last line it printed; throws with its stderr when it fails. */
export function runChild(script, args, { nodeArgs = [] } = {}) {
  const r = spawnSync(process.execPath, [...nodeArgs, script, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`child ${script} ${args.join(' ').slice(0, 300)}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

/**
 * A build's functions from its package directory (`dist/` and `wasm/`, as pkg/ holds them): its
 * front door, and its slicers subpath when it has one (earlier builds exported them from the front door).
 */
export async function importBuild(dir) {
  const main = await import(pathToFileURL(join(dir, 'dist/node.js')).href);
  const sub = join(dir, 'dist/node-slicers.js');
  return existsSync(sub) ? { ...main, ...(await import(pathToFileURL(sub).href)) } : main;
}
