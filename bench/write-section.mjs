// How a bench script puts its section into bench/RESULTS.md: the section that starts with
// `heading` is replaced up to the next `## ` heading, or appended when there is none yet.

import { readFileSync, writeFileSync } from 'node:fs';

/** Writes `section` (which starts with `heading`) into `file`. */
export function writeSection(file, heading, section) {
  const current = readFileSync(file, 'utf8');
  const start = current.indexOf(heading);
  const next = start < 0 ? -1 : current.indexOf('\n## ', start + heading.length);
  const head = start < 0 ? `${current.trimEnd()}\n\n` : current.slice(0, start);
  const tail = next < 0 ? '' : current.slice(next + 1);
  writeFileSync(file, `${head}${section}${tail ? `\n${tail}` : ''}`);
}
