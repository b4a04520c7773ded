// What the two agreement tests (groups-agreement, variants-agreement) share with the crate's
// examples (examples/agreement/): the strategy names and their settings, the instance and answer
// line fields, and running an example over all the instances in one process.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CtxpackError } from 'ctxpack';
import { countConstrainedKnapsackSlice, exactCountConstrainedSlice, exactKnapsackSlice, greedySlice, knapsackSlice, packerSlice } from 'ctxpack/slicers';

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** The package's call for each strategy the examples know, with the same settings; the count strategies with `entries`. */
export function strategies(entries) {
  return {
    greedy: (l, b, o) => greedySlice(l, b, o),
    packer: (l, b, o) => packerSlice(l, b, { maxConsecutiveSkips: 2, ...o }),
    knapsack: (l, b, o) => knapsackSlice(l, b, { bucketSize: 1, ...o }),
    'knapsack-100': (l, b, o) => knapsackSlice(l, b, o),
    exact: (l, b, o) => exactKnapsackSlice(l, b, o),
    'count-knapsack': (l, b, o) => countConstrainedKnapsackSlice(l, b, { entries, bucketSize: 1, scarcity: 'degrade', ...o }),
    'exact-count': (l, b, o) => exactCountConstrainedSlice(l, b, { entries, scarcity: 'degrade', ...o }),
  };
}

/** An instance's dependency field: indexes, comma-separated, `-` for none (ids naming no item dropped, as the package drops them). */
export function depsField(list, it) {
  const index = new Map(list.map((x, i) => [x.id, i]));
  const deps = (it.dependencies ?? []).filter((d) => index.has(d)).map((d) => index.get(d));
  return deps.length === 0 ? '-' : deps.join(',');
}

/** `ok selected|codes|…fields|repaired` for what `run` answers, or `err code field` for its refusal. */
export function answerLine(list, run, fields = () => []) {
  try {
    const r = run();
    const index = new Map(list.map((it, i) => [it.id, i]));
    const repaired = r.repaired === undefined ? '-' : r.repaired ? '1' : '0';
    return `ok ${[r.selected.map((id) => index.get(id)).join(','), r.decisions.map((d) => d.reason).join(','), ...fields(r), repaired].join('|')}`;
  } catch (err) {
    if (!(err instanceof CtxpackError)) throw err;
    return `err ${err.code} ${err.field ?? '-'}`;
  }
}

/** Builds the crate's example `name` and runs it over the instance lines; one answer line per instance. */
export function runExample(name, lines) {
  execFileSync('cargo', ['build', '--quiet', '--example', name], { cwd: ROOT, stdio: 'inherit' });
  const input = lines.join('\n') + '\n';
  return execFileSync(join(ROOT, 'target', 'debug', 'examples', name), { input, encoding: 'utf8', maxBuffer: 64 << 20 }).trimEnd().split('\n');
}
