// The machine a benchmark ran on, as bench.mjs prints it in RESULTS.md's "Machine" section and
// other scripts name it in their own: CPU, memory, OS, Node, Rust, the commit, the load.

import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** `{ cpu, memory, os, node, rustc, git, load }`, each a string. */
export function machine() {
  const cpus = os.cpus();
  const rustc = (() => {
    try {
      return execFileSync('rustc', ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return 'rustc (unknown)';
    }
  })();
  const git = (() => {
    try {
      const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
      // What `make bench` itself rewrites does not count: its scripts run one after another.
      const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/RESULTS.md', ':!bench/SIZES.md'], { cwd: root, encoding: 'utf8' }).trim() !== '';
      return `${head}${dirty ? ' + uncommitted changes' : ''}`;
    } catch {
      return 'unknown';
    }
  })();
  return {
    cpu: `${cpus[0]?.model ?? 'unknown'} (${cpus.length} cores)`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    rustc,
    git,
    load: os.loadavg().map((x) => x.toFixed(2)).join(' '),
  };
}

/** One line: the CPU, its cores, Node, and the load average now. */
export function machineLine() {
  const m = machine();
  return `${m.cpu}, ${m.memory}, Node ${m.node}, commit ${m.git}, load average ${m.load}`;
}
