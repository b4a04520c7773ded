/**
 * KV cache policy (spec: "KV Policy Heuristics", "Memory Management Rules",
 * "Cache Eviction Algorithm").
 *
 * @module
 */

import { log } from '../util/detmath.js';
import { CtxpackError, describeValue } from '../errors.js';
import { assertFragmentObject, isRecord, readBenefit, readCost, readDependencies, readId, readOptionalString, readTime } from '../validate/fields.js';
import { optionsRecord, readCount, readNow } from '../validate/options.js';
import { identity, mergeSort, orderedBits, radixSort } from '../util/sort.js';
import { parseTimeInput } from '../util/time.js';
import type { CacheEntry, EvictionOptions, FragmentFields, GenerateKVPolicyOptions, KVPolicy } from '../types.js';

/** Spec: "Max KV size: 64 items (default)". */
export const DEFAULT_MAX_KV_SIZE = 64;
/** Seed: fragments above this many tokens with medium benefit are compressed. */
export const COMPRESS_MIN_TOKENS = 500;
/** Seed: low-benefit fragments not accessed for this long (24 h) are evicted. */
export const STALE_AFTER_MS = 86_400_000;
/**
 * Spec: "Promote keys referenced by top-K candidate fragments to reduce thrash". K = 5 by default:
 * the candidates a slightly larger budget, or the next call, is most likely to take.
 */
export const DEFAULT_KV_TOP_K = 5;

/** A validated cache entry. @internal */
export interface CheckedCacheEntry {
  readonly id: string;
  readonly lastAccessMs: number;
  readonly sizeTokens: number;
  readonly lastBenefit: number;
}

type Fail = (field: string, requirement: string, value: unknown) => CtxpackError;

function checkEntry(entry: unknown, fail: Fail): CheckedCacheEntry {
  if (!isRecord(entry)) throw fail('', 'an object { id, lastAccessTime, sizeTokens, lastBenefit? }', entry);
  const id = entry['id'];
  if (typeof id !== 'string' || id.length === 0) throw fail('id', 'a non-empty string', id);
  const last = entry['lastAccessTime'];
  const lastAccessMs = parseTimeInput(last);
  if (lastAccessMs === undefined) {
    throw fail('lastAccessTime', 'a valid Date, an ISO 8601 string with an offset, or epoch milliseconds', last);
  }
  const size = entry['sizeTokens'];
  if (typeof size !== 'number' || !Number.isFinite(size) || size < 0) throw fail('sizeTokens', 'a finite non-negative number', size);
  const benefit = entry['lastBenefit'];
  if (benefit !== undefined && (typeof benefit !== 'number' || !Number.isFinite(benefit))) {
    throw fail('lastBenefit', 'a finite number or absent', benefit);
  }
  return { id, lastAccessMs, sizeTokens: size, lastBenefit: benefit ?? 0 };
}

/**
 * Validates a cache array. `collection` is `'cache'` for the eviction helpers (errors
 * `INVALID_FIELD`) or `'previousCache'` for the option (errors `INVALID_OPTION`, field
 * `previousCache.<field>`). Ids must be unique (`DUPLICATE_ID`).
 * @internal
 */
export function readCache(cache: unknown, collection: 'cache' | 'previousCache'): CheckedCacheEntry[] {
  const isOption = collection === 'previousCache';
  const prefix = isOption ? 'options.previousCache' : 'cache';
  if (!Array.isArray(cache)) {
    throw new CtxpackError(isOption ? 'INVALID_OPTION' : 'INVALID_INPUT', `${prefix} must be an array, got ${describeValue(cache)}`, {
      field: collection,
    });
  }
  const firstIndex = new Map<string, number>();
  return cache.map((entry: unknown, index) => {
    const fail: Fail = (field, requirement, value) => {
      // Option errors name the option path (`previousCache.sizeTokens`); element errors of the
      // `cache` argument name the property (`sizeTokens`); a non-object entry names the collection.
      let errorField: string = collection;
      if (field !== '') errorField = isOption ? `${collection}.${field}` : field;
      const shown = `${prefix}[${index}]${field === '' ? '' : `.${field}`}`;
      return new CtxpackError(
        isOption ? 'INVALID_OPTION' : 'INVALID_FIELD',
        `${shown} must be ${requirement}, got ${describeValue(value)}`,
        {
          field: errorField,
          index,
        },
      );
    };
    const checked = checkEntry(entry, fail);
    const other = firstIndex.get(checked.id);
    if (other !== undefined) {
      throw new CtxpackError('DUPLICATE_ID', `${prefix}[${index}].id duplicates ${prefix}[${other}].id`, {
        field: collection,
        index,
        otherIndex: other,
      });
    }
    firstIndex.set(checked.id, index);
    return checked;
  });
}

function evictionScore(e: CheckedCacheEntry, now: number): number {
  const ageHours = Math.max(0, (now - e.lastAccessMs) / (1000 * 60 * 60));
  const agePenalty = log(1 + ageHours);
  const sizePenalty = e.sizeTokens / 1000;
  const benefitReward = e.lastBenefit;
  return agePenalty + sizePenalty - benefitReward * 2;
}

/** Highest eviction score first; ties by id in UTF-16 code-unit order. @internal */
export function rankForEviction(entries: readonly CheckedCacheEntry[], maxSize: number, now: number): string[] {
  if (entries.length <= maxSize) return [];
  return entries
    .map((e) => ({ id: e.id, score: evictionScore(e, now) }))
    .sort((a, b) => (a.score !== b.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, entries.length - maxSize)
    .map((e) => e.id);
}

/**
 * Eviction score (spec: `calculateEvictionScore`); higher means evict sooner:
 * `ln(1 + ageHours) + sizeTokens / 1000 - 2 · lastBenefit`, with `lastBenefit` absent → 0.
 * This is the spec's "reuse score decays with time since last access".
 *
 * A `lastAccessTime` in the future counts as age 0 (the seed's formula would take the logarithm
 * of a number below 1, or of a negative number, which is `NaN`).
 *
 * @param options `now` in epoch ms (default `Date.now()`).
 * @throws {CtxpackError} `INVALID_FIELD` for a malformed entry, `INVALID_OPTION` for a bad `now`.
 */
export function calculateEvictionScore(entry: CacheEntry, options?: EvictionOptions): number {
  const now = readNow(optionsRecord(options));
  const checked = checkEntry(
    entry,
    (field, requirement, value) =>
      new CtxpackError('INVALID_FIELD', `entry${field === '' ? '' : `.${field}`} must be ${requirement}, got ${describeValue(value)}`, {
        field: field === '' ? 'entry' : field,
      }),
  );
  return evictionScore(checked, now);
}

/**
 * Picks the keys to evict so that at most `maxSize` remain (spec: `selectEvictionCandidates`,
 * "Evict lowest-reuse keys first"): nothing when `cache.length <= maxSize`, else the
 * `cache.length - maxSize` entries with the highest {@link calculateEvictionScore}, highest first.
 * Equal scores are ordered by id in UTF-16 code-unit order, so the result does not depend on the
 * order of `cache`.
 *
 * @param cache Entries with unique ids. Not mutated.
 * @param maxSize Non-negative integer, default 64.
 * @param options `now` in epoch ms (default `Date.now()`).
 * @throws {CtxpackError} `INVALID_INPUT` / `INVALID_FIELD` / `DUPLICATE_ID` for a malformed cache,
 *   `INVALID_OPTION` for a bad `maxSize` or `now`.
 */
export function selectEvictionCandidates(
  cache: readonly CacheEntry[],
  maxSize: number = DEFAULT_MAX_KV_SIZE,
  options?: EvictionOptions,
): string[] {
  const max = readCount({ maxSize }, 'maxSize', DEFAULT_MAX_KV_SIZE);
  const now = readNow(optionsRecord(options));
  return rankForEviction(readCache(cache, 'cache'), max, now);
}

/** A selected fragment's validated KV-relevant fields. @internal */
export interface KVInput {
  readonly id: string;
  readonly cost: number;
  readonly lod: string | undefined;
  readonly benefit: number | undefined;
  readonly lastAccessMs: number | undefined;
  readonly dependencies: readonly string[];
}

/** The first rule that a selected fragment meets (see {@link generateKVPolicy}). */
const enum Rule {
  None,
  Pin,
  Compress,
  Evict,
}

function ruleOf(f: KVInput, previousById: ReadonlyMap<string, CheckedCacheEntry>, now: number): Rule {
  const benefit = f.benefit;
  if (f.lod === 'macro') return Rule.Pin;
  if (f.cost > COMPRESS_MIN_TOKENS && benefit !== undefined && benefit >= 0.3 && benefit <= 0.6) return Rule.Compress;
  if (benefit !== undefined && benefit < 0.2) {
    const lastAccess = f.lastAccessMs ?? previousById.get(f.id)?.lastAccessMs;
    if (lastAccess !== undefined && lastAccess < now - STALE_AFTER_MS) return Rule.Evict;
  }
  return Rule.None;
}

/**
 * The soft backoff's order over `unlisted`: new keys (absent from the previous cache) first, then
 * lowest benefit (missing = 0), then id in code-unit order. Radix passes over the benefit's bits
 * and the cache flag, then ids order the runs of equal benefit: no comparator call per comparison.
 */
function backoffOrder(unlisted: readonly KVInput[], previousById: ReadonlyMap<string, CheckedCacheEntry>): Uint32Array {
  const m = unlisted.length;
  const cached = new Uint32Array(m);
  const hi = new Uint32Array(m);
  const lo = new Uint32Array(m);
  const benefit = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const k = unlisted[i]!;
    cached[i] = previousById.has(k.id) ? 1 : 0;
    benefit[i] = (k.benefit ?? 0) + 0; // -0 and +0 are one benefit
    orderedBits(benefit[i]!, hi, lo, i);
  }
  const order = radixSort(identity(m), new Uint32Array(m), [lo, hi, cached], [32, 32, 1]);
  const tmp = new Uint32Array(m);
  for (let start = 0; start < m; ) {
    let end = start + 1;
    while (end < m && cached[order[end]!] === cached[order[start]!] && benefit[order[end]!] === benefit[order[start]!]) end++;
    if (end - start > 1) {
      mergeSort(order, start, end, tmp, (a, b) => {
        const ida = unlisted[a]!.id;
        const idb = unlisted[b]!.id;
        return ida < idb ? -1 : ida > idb ? 1 : 0;
      });
    }
    start = end;
  }
  return order;
}

/**
 * Capacity eviction of previously cached keys: returns the ids to append to `evict`. `selectedIds`
 * are the distinct selected ids; `evict` holds the ids evicted so far.
 */
function capacityEvictions(
  previous: readonly CheckedCacheEntry[],
  previousById: ReadonlyMap<string, CheckedCacheEntry>,
  selectedIds: ReadonlySet<string>,
  pin: ReadonlySet<string>,
  evict: ReadonlySet<string>,
  now: number,
  maxKvSize: number,
): string[] {
  if (previous.length === 0) return [];
  const resident = new Set<string>([...previousById.keys(), ...selectedIds]);
  for (const id of evict) resident.delete(id);
  const over = resident.size - maxKvSize;
  if (over <= 0) return [];
  const evictable = previous.filter((e) => !selectedIds.has(e.id) && !pin.has(e.id) && !evict.has(e.id));
  return rankForEviction(evictable, Math.max(0, evictable.length - over), now);
}

/**
 * {@link generateKVPolicy} over validated inputs. `distinctIds`: the caller knows that no id
 * repeats in `selected` (the planner's ids are unique), which allows a faster path with the same
 * result.
 * @internal
 */
export function buildKVPolicy(
  selected: readonly KVInput[],
  previous: readonly CheckedCacheEntry[],
  now: number,
  maxKvSize: number,
  distinctIds = false,
  promoted: readonly string[] = [],
): KVPolicy {
  const previousById = new Map(previous.map((e) => [e.id, e]));
  if (distinctIds) return policyOfDistinct(selected, previous, previousById, now, maxKvSize, promoted);
  const pin = new Set<string>();
  const compress = new Set<string>();
  const evict = new Set<string>();
  const keys = new Map<string, KVInput>();

  for (const f of selected) {
    const rule = ruleOf(f, previousById, now);
    if (rule === Rule.Pin) pin.add(f.id);
    else if (rule === Rule.Compress) compress.add(f.id);
    else if (rule === Rule.Evict) evict.add(f.id);
    for (const dep of f.dependencies) pin.add(dep);
    if (!keys.has(f.id)) keys.set(f.id, f);
  }
  for (const id of promoted) pin.add(id);
  for (const id of pin) {
    compress.delete(id);
    evict.delete(id);
  }
  for (const id of compress) evict.delete(id);

  // Soft backoff: demote full-size keys beyond maxKvSize to compress.
  const unlisted = [...keys.values()].filter((k) => !pin.has(k.id) && !compress.has(k.id) && !evict.has(k.id));
  const excess = pin.size + unlisted.length - maxKvSize;
  if (excess > 0) {
    const order = backoffOrder(unlisted, previousById);
    for (let i = 0; i < Math.min(excess, unlisted.length); i++) compress.add(unlisted[order[i]!]!.id);
  }

  for (const id of capacityEvictions(previous, previousById, new Set(keys.keys()), pin, evict, now, maxKvSize)) evict.add(id);
  return { pin: [...pin], compress: [...compress], evict: [...evict] };
}

/**
 * {@link buildKVPolicy} when every selected id is distinct. Each selected fragment then meets at
 * most one rule, so `compress` and `evict` are the fragments of their rule that end up unpinned,
 * in order, and sets are only needed for the pins (and, with a previous cache, for capacity
 * eviction). A fragment is pinned by its own rule or, when some fragment has dependencies, as
 * one of them.
 */
function policyOfDistinct(
  selected: readonly KVInput[],
  previous: readonly CheckedCacheEntry[],
  previousById: ReadonlyMap<string, CheckedCacheEntry>,
  now: number,
  maxKvSize: number,
  promoted: readonly string[],
): KVPolicy {
  const m = selected.length;
  const pin = new Set<string>();
  const rules = new Uint8Array(m);
  let dependencies = false;
  for (let j = 0; j < m; j++) {
    const f = selected[j]!;
    const rule = ruleOf(f, previousById, now);
    rules[j] = rule;
    if (rule === Rule.Pin) pin.add(f.id);
    if (f.dependencies.length > 0) {
      dependencies = true;
      for (const dep of f.dependencies) pin.add(dep);
    }
  }
  if (promoted.length > 0) {
    dependencies = true;
    for (const id of promoted) pin.add(id);
  }
  const compress: string[] = [];
  const evict: string[] = [];
  const unlisted: KVInput[] = [];
  for (let j = 0; j < m; j++) {
    const f = selected[j]!;
    const rule = rules[j]!;
    if (rule === Rule.Pin || (dependencies && pin.has(f.id))) continue;
    if (rule === Rule.Compress) compress.push(f.id);
    else if (rule === Rule.Evict) evict.push(f.id);
    else unlisted.push(f);
  }

  // Soft backoff: demote full-size keys beyond maxKvSize to compress.
  const excess = pin.size + unlisted.length - maxKvSize;
  if (excess > 0) {
    const order = backoffOrder(unlisted, previousById);
    for (let i = 0; i < Math.min(excess, unlisted.length); i++) compress.push(unlisted[order[i]!]!.id);
  }

  if (previous.length > 0) {
    const selectedIds = new Set(selected.map((f) => f.id));
    // A loop, not push(...): the evictions can outnumber the arguments a call takes.
    for (const id of capacityEvictions(previous, previousById, selectedIds, pin, new Set(evict), now, maxKvSize)) evict.push(id);
  }
  return { pin: [...pin], compress, evict };
}

/**
 * KV policy for the selected fragments (spec: `generateKVPolicy` plus the memory management rules).
 *
 * Per fragment, in order, the seed's rules (first match wins):
 * 1. `lod === 'macro'` → **pin** ("pin macro summaries for stable context").
 * 2. `cost_tokens > 500` and `0.3 ≤ benefit ≤ 0.6` → **compress** ("compress large micros with
 *    medium benefit").
 * 3. `benefit < 0.2` and `lastAccessTime` older than `now − 24 h` → **evict** ("low-benefit,
 *    stale items").
 *
 * Decisions where the seed is ambiguous:
 * - A missing `benefit` is *unknown*, not 0: rules 2 and 3 do not apply (this is also what the
 *   seed's JavaScript comparisons do with `undefined`). The planner always supplies it.
 * - A missing `lastAccessTime` is looked up in `options.previousCache`; if still unknown, rule 3
 *   does not apply.
 * - Rules 2 and 3 do not look at `lod`: the seed's code does not, and its prose ("large micros",
 *   "redundant atomics") leaves "redundant" undefined.
 *
 * Memory management rules:
 * - **Dependencies are pinned**: every id in a selected fragment's `dependencies` is pinned ("keys
 *   required by a chosen fragment MUST be pinned"), whether or not it is itself selected.
 * - **Top-K promotion** ("promote keys referenced by top-K candidate fragments to reduce thrash"):
 *   with `options.rankedCandidates` (best first; `selectFragments` passes its ranking), every id in
 *   the `dependencies` of the first `kvTopK` (default 5, 0: none) is pinned too, whether or not
 *   those candidates were selected: the keys a slightly different budget would need stay warm.
 *   Pinned after the selected fragments' own pins.
 * - **One list per id, pin wins**: an id pinned for any reason is removed from `compress` and
 *   `evict`; an id in `compress` is removed from `evict`.
 * - **Soft backoff beyond `maxKvSize`** (default 64): the *full keys* of this selection are the
 *   pinned ids plus the selected ids in no list. While they number more than `maxKvSize`, selected
 *   fragments in no list are moved to `compress` instead of being introduced at full size, in
 *   this order: new keys (absent from `options.previousCache`) before cached ones, then lowest
 *   benefit first (missing = 0), then id in code-unit order. Pinned ids are never demoted, so
 *   pins alone may exceed the limit; nothing is dropped from the selection.
 * - **Capacity eviction** ("evict lowest-reuse keys first"), with `options.previousCache`: the
 *   cache after this selection holds the previous ids plus the selected ids, minus `evict`. If
 *   that exceeds `maxKvSize`, the previous entries that are neither selected nor pinned are
 *   ranked by {@link selectEvictionCandidates} and the excess is appended to `evict`.
 *
 * Each list keeps first-seen order: fragment order for the rules, then backoff / eviction order.
 *
 * @param selected The selected fragments (typically in rank order). Not mutated.
 * @param options `now` (default `Date.now()`), `maxKvSize` (default 64), `previousCache`.
 * @throws {CtxpackError} `INVALID_INPUT` / `INVALID_FIELD` for malformed fragments,
 *   `INVALID_OPTION` / `DUPLICATE_ID` for bad options.
 */
export function generateKVPolicy<T extends FragmentFields>(selected: readonly T[], options?: GenerateKVPolicyOptions): KVPolicy {
  const o = optionsRecord(options);
  const now = readNow(o);
  const maxKvSize = readCount(o, 'maxKvSize', DEFAULT_MAX_KV_SIZE);
  const promoted = promotedKeys(o['rankedCandidates'], readCount(o, 'kvTopK', DEFAULT_KV_TOP_K));
  const previous = o['previousCache'] === undefined ? [] : readCache(o['previousCache'], 'previousCache');
  if (!Array.isArray(selected)) {
    throw new CtxpackError('INVALID_INPUT', `selected must be an array, got ${describeValue(selected)}`, { field: 'selected' });
  }
  const inputs = selected.map((f: unknown, index): KVInput => {
    const at = { collection: 'selected', index };
    assertFragmentObject(f, at);
    return {
      id: readId(f, at),
      cost: readCost(f, at),
      lod: readOptionalString(f, 'lod', at),
      benefit: readBenefit(f, at),
      lastAccessMs: readTime(f, 'lastAccessTime', at),
      dependencies: readDependencies(f, at),
    };
  });
  return buildKVPolicy(inputs, previous, now, maxKvSize, false, promoted);
}

/** The `dependencies` of the first `k` of `ranked` (`options.rankedCandidates`), checked, in order. */
function promotedKeys(ranked: unknown, k: number): string[] {
  if (ranked === undefined) return [];
  if (!Array.isArray(ranked)) {
    throw new CtxpackError('INVALID_OPTION', `options.rankedCandidates must be an array, got ${describeValue(ranked)}`, { field: 'rankedCandidates' });
  }
  const keys: string[] = [];
  for (let index = 0; index < Math.min(k, ranked.length); index++) {
    const f: unknown = ranked[index];
    const at = { collection: 'rankedCandidates', index };
    assertFragmentObject(f, at);
    keys.push(...readDependencies(f, at));
  }
  return keys;
}
