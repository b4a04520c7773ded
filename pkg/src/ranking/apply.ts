/**
 * `applyTieBreaking`: the public ranking of scored fragment objects. Reads them into the columns
 * the ranking takes (`tiebreak.ts`, which the planner calls directly) and ranks them.
 *
 * @module
 */

import { CtxpackError, describeValue } from '../errors.js';
import { assertFragmentObject, isRecord, readCitationCount, readCost, readDependencies, readId, readOptionalString, readTime } from '../validate/fields.js';
import { optionsRecord, readCount } from '../validate/options.js';
import { countUnresolved, DEFAULT_DIVERSITY_WINDOW, rankColumns, type RankColumns } from './tiebreak.js';
import type { FragmentFields, ScoredFragment, TieBreakOptions } from '../types.js';

/**
 * Ranks scored fragments: score descending, with ties (|Δscore| ≤ 0.001) broken by the spec's
 * six rules in the spec's order:
 *
 * 1. **Freshness**: newer `timestamp` first; a fragment without a timestamp is the oldest.
 * 2. **Citation confidence**: more `citations` first (absent = 0).
 * 3. **Cohesion**: fewer unresolved dependencies first. A dependency is *unresolved* when it is not
 *    the id of any fragment in `scored`; each distinct dependency id counts once.
 * 4. **Diversity**: prefer a `source` not among the sources of the last N picks (N =
 *    `options.diversityWindow`, default 3, 0 disables). A fragment without `source` never
 *    conflicts, and each pick, with or without a source, takes one of the N slots. The window
 *    spans the whole ranking built so far, across tie groups.
 * 5. **Size**: smaller `cost_tokens` first.
 * 6. **Id**: ascending by UTF-16 code units (`a < b`), never `localeCompare`, so the result does
 *    not depend on the runtime's locale.
 *
 * The seed's comparator compares scores with a 0.001 tolerance, which is not transitive, and rule 4
 * depends on earlier picks, so it cannot be a comparator. The ranking is therefore built as
 * follows, which is deterministic and independent of input order:
 *
 * 1. Sort by a total order: exact score descending, then rules 1, 2, 3, 5, 6.
 * 2. Cut that list into *tie groups*: a group starts at the first unassigned item and takes every
 *    following item whose score is within 0.001 of that first item's score.
 * 3. Within a group, order by rules 1, 2, 3, 5, 6 (ignoring score). Then, for each run of items
 *    equal on rules 1–3, apply rule 4: repeatedly emit the first remaining item of the run whose
 *    source is not in the window, or the first remaining item when there is none. So rule 4 only
 *    decides between items tied on rules 1–3, and rules 5–6 decide between equally diverse ones.
 *
 * Without dependencies and without sources (or with `diversityWindow: 0`), rules 3 and 4 never
 * decide, and the result equals the seed's `sort` on every input where the seed's comparator is
 * consistent (scores that are equal or more than 0.001 apart), except that ids compare by code units. Input order matters only between entries with the same id,
 * which keep their relative order (the planner rejects duplicate ids).
 *
 * @param scored Fragments with finite scores. Not mutated.
 * @returns A new array holding the same entries in ranked order.
 * @throws {CtxpackError} `INVALID_INPUT` if `scored` is not an array, `INVALID_SCORE` for a
 *   non-finite score, `INVALID_FIELD` for a malformed fragment, `INVALID_OPTION` for a bad option.
 */
export function applyTieBreaking<S extends ScoredFragment<FragmentFields>>(scored: readonly S[], options?: TieBreakOptions): S[] {
  const o = optionsRecord(options);
  const windowSize = readCount(o, 'diversityWindow', DEFAULT_DIVERSITY_WINDOW);
  if (!Array.isArray(scored)) {
    throw new CtxpackError('INVALID_INPUT', `scored must be an array, got ${describeValue(scored)}`, { field: 'scored' });
  }
  const ids = new Set<string>();
  scored.forEach((entry: unknown, i) => {
    if (!isRecord(entry)) {
      throw new CtxpackError('INVALID_FIELD', `scored[${i}] must be an object { fragment, score }, got ${describeValue(entry)}`, {
        field: 'scored',
        index: i,
      });
    }
    const at = { collection: 'scored', index: i, member: 'fragment' };
    assertFragmentObject(entry['fragment'], at);
    ids.add(readId(entry['fragment'], at));
  });
  const n = scored.length;
  const columns: MutableRankColumns = {
    scores: new Float64Array(n),
    freshness: new Float64Array(n),
    citations: new Uint32Array(n),
    unresolved: new Uint32Array(n),
    sources: new Array<string | undefined>(n),
    costs: new Uint32Array(n),
    ids: new Array<string>(n),
  };
  for (let i = 0; i < n; i++) readScored(scored[i], i, ids, columns);
  return Array.from(rankColumns(columns, windowSize), (i) => scored[i]!);
}

/** Reads `scored[index]` into the columns (in the order the fields were always read, for errors). */
function readScored(entry: unknown, index: number, ids: ReadonlySet<string>, c: MutableRankColumns): void {
  const e = entry as { readonly fragment: unknown; readonly score: unknown };
  const f = e.fragment;
  const at = { collection: 'scored', index, member: 'fragment' };
  assertFragmentObject(f, at);
  const score = e.score;
  if (typeof score !== 'number' || !Number.isFinite(score)) {
    throw new CtxpackError('INVALID_SCORE', `scored[${index}].score must be a finite number, got ${describeValue(score)}`, {
      field: 'score',
      index,
    });
  }
  c.scores[index] = score;
  c.unresolved[index] = countUnresolved(readDependencies(f, at), ids);
  c.freshness[index] = readTime(f, 'timestamp', at) ?? Number.NEGATIVE_INFINITY;
  c.citations[index] = readCitationCount(f, at);
  c.sources[index] = readOptionalString(f, 'source', at);
  c.costs[index] = readCost(f, at);
  c.ids[index] = readId(f, at);
}

type MutableRankColumns = {
  -readonly [K in keyof RankColumns]: RankColumns[K] extends readonly (infer E)[] ? E[] : RankColumns[K];
};
