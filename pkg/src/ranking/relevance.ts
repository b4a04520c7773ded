/**
 * `selectFragments`' `options.query`: relevance from text, without hand-made entities. Each
 * candidate's `content` is scored against the query with BM25 in the Rust core (src/relevance:
 * Unicode lowercase word split, plurals folded, its default k1 and b) and divided by the highest score
 * of the call, so it lies in [0, 1]; the ACS benefit then takes `max(entity_overlap, relevance)` as
 * its entity term. Candidates without `content` keep their entity overlap.
 *
 * @internal
 * @module
 */

import { bm25Scores } from '../core/bridge.js';
import { OPTION_DEFAULTS } from '../core/table.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import type { PlannerOptions } from '../types.js';

/** BM25's parameters (the core's defaults, src/relevance), shared with fitMessages' relevance. */
export const BM25_DEFAULTS = Object.freeze({ k1: OPTION_DEFAULTS.bm25K1, b: OPTION_DEFAULTS.bm25B });

/** Takes `query` out of the options (the planner's own reader never sees it). */
export function readQuery(options: PlannerOptions | undefined): [string | undefined, PlannerOptions | undefined] {
  if (options === null || typeof options !== 'object' || !('query' in options)) return [undefined, options];
  const { query, ...rest } = options;
  if (query !== undefined && typeof query !== 'string') throw invalidOption('query', 'a string', query);
  return [query, rest];
}

/** Each candidate's BM25 relevance to `query`, divided by the highest (all 0 when nothing matches). */
export function queryRelevance(candidates: readonly unknown[], query: string): Float64Array {
  const texts = candidates.map((f) => (isRecord(f) && typeof f['content'] === 'string' ? f['content'] : ''));
  const raw = bm25Scores(texts, query, BM25_DEFAULTS.k1, BM25_DEFAULTS.b);
  let max = 0;
  for (const v of raw) if (v > max) max = v;
  const out = new Float64Array(raw.length);
  if (max > 0) for (let i = 0; i < raw.length; i++) out[i] = Math.min(1, raw[i]! / max);
  return out;
}
