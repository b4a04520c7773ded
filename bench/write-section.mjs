// How a bench script ends: its section printed and, with `--write <file>`, put into that file
// (bench/RESULTS.md): the section that starts with its heading is replaced up to the next `## `
// heading, or appended when there is none yet. Then the run fails if it found a failure.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Prints `section` (which starts with `heading`), writes it into `out` (relative to the repository) when given, then throws `failures`, if any. */
export function putSection(section, heading, out, failures = []) {
  process.stdout.write(`\n${section}`);
  if (out !== undefined) {
    const file = join(root, out);
    const current = readFileSync(file, 'utf8');
    const start = current.indexOf(heading);
    const next = start < 0 ? -1 : current.indexOf('\n## ', start + heading.length);
    const head = start < 0 ? `${current.trimEnd()}\n\n` : current.slice(0, start);
    const tail = next < 0 ? '' : current.slice(next + 1);
    writeFileSync(file, `${head}${section}${tail ? `\n${tail}` : ''}`);
    process.stderr.write(`wrote ${out}\n`);
  }
  if (failures.length > 0) throw new Error(failures.join('\n'));
}
