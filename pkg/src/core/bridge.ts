/**
 * The bridge to the Rust core compiled to WebAssembly: one typed function per entry point of the
 * wasm-bindgen glue, each run through `instance.ts`'s `call` (which loads, recovers and turns
 * every wasm error into a {@link CtxpackError}).
 *
 * @internal
 * @module
 */

import * as glue from '../../wasm/ctxpack.js';
import { CtxpackError } from '../errors.js';
import { call, fromWasm, reasonCodes } from './instance.js';
import type { ColumnarResult, CountEntry, DependencyMode, ObjectItem, ReasonCode, SliceReason, SlicerName, UnitMap } from './types.js';
import type { Links } from './links.js';

export type { ColumnarResult, CountEntry, DependencyMode, ExactReport, ObjectItem, ReasonCode, Shortfall, SliceReason, SlicerName, UnitMap } from './types.js';

/** What the columnar path takes: parallel typed arrays plus the budget and the slicer's options. */
export interface ColumnarRequest {
  /** Token count per item. */
  tokens: Uint32Array;
  /** Score per item. */
  scores: Float64Array;
  /** Per item, an index into `kindNames` (omit when kinds do not matter). */
  kinds?: Uint32Array;
  /** The kind names that `kinds` points into. */
  kindNames?: string[];
  /** The budget the slicer fills. */
  targetTokens: number;
  /** The hard ceiling (count-knapsack's residual budget); defaults to `targetTokens`. */
  maxTokens?: number;
  /** Knapsack bucket size (default 100). */
  bucketSize?: number;
  /** Knapsack table limit in bytes (default 64 MiB). */
  maxTableBytes?: number;
  /** Count constraints (count-knapsack). */
  entries?: CountEntry[];
  /** What a short kind does (count-knapsack; default `'degrade'`). */
  scarcity?: 'degrade' | 'throw';
  /** The packer's stop after this many misses in a row (default 3; 0 never stops). */
  maxConsecutiveSkips?: number;
  /** exact: DP states alive at once before the bucketed fallback (default 2^18). */
  maxStates?: number;
  /** exact: the work counter's limit before the bucketed fallback (default 2^26). */
  maxWork?: number;
  /** exact-count: DP cells before a coarser bucket (default 2^27); simulation: its cell limit (default 2^28). */
  maxCells?: number;
  /** exact-count: also run the three-phase heuristic and report its value (default true). */
  compareHeuristic?: boolean;
}

interface RawResult extends Omit<ColumnarResult, 'reasons'> {
  reasons: Uint8Array;
}

/** What crosses as columns, not as options. */
const COLUMNS: ReadonlySet<string> = new Set(['tokens', 'scores', 'kinds', 'kindNames', 'groupOf']);

/**
 * The options object of a request: its options as given, absent ones left out. Which keys exist,
 * their defaults and limits are the core's (src/wasm/options.rs), which refuses any other key.
 */
function options(req: object): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  // for-in, not Object.entries: no array per key (a request is a plain object literal).
  for (const key in req) {
    const value = (req as Record<string, unknown>)[key];
    if (value !== undefined && !COLUMNS.has(key)) o[key] = value;
  }
  return o;
}

/** No kind names, no kinds (the glue only reads them). */
const NO_NAMES: string[] = [];
const EMPTY_U32 = new Uint32Array(0);

function decode(raw: RawResult): ColumnarResult {
  return { ...raw, reasons: reasonsOf(raw.reasons) as ReasonCode[] };
}

function reasonsOf(raw: ArrayLike<number>): SliceReason[] {
  const codes = reasonCodes();
  const reasons = new Array<SliceReason>(raw.length);
  for (let i = 0; i < raw.length; i++) reasons[i] = codes[raw[i]!]!;
  return reasons;
}

/** What {@link solveSlice} takes besides the items: their structure, their versions, how errors name them. */
export interface SliceStructure {
  /** The items' groups and dependencies (absent: none). */
  links?: Links;
  /** `'require'`: dependencies bind (default `'ignore'`). */
  dependencies?: DependencyMode;
  /** How errors name items (default `items[i]`). */
  naming?: Naming;
  /** Alternative versions of the items (absent: none). */
  versions?: VariantColumns;
}

/**
 * What the core answers to {@link solveSlice}: a plain slice's result; with groups or dependencies
 * also the units' fields ({@link GroupedResult}); with versions also `version`
 * ({@link VariantResult}); `repaired` for a knapsack strategy under required dependencies.
 */
export type SliceAnswer = Omit<ColumnarResult, 'reasons'> & { reasons: SliceReason[] } & Partial<Omit<VariantResult, keyof ColumnarResult>>;

/**
 * The one slice of the slicer functions, `sliceColumns` and the planner (`solveSlice`): the items
 * as columns, their groups, dependencies and versions; the core decides how they are solved
 * (src/wasm/slice.rs) and answers the fields the structure calls for.
 */
export function solveSlice(slicer: SlicerName, req: ColumnarRequest, structure: SliceStructure = {}): SliceAnswer {
  const { links, versions, naming } = structure;
  const o = options(req);
  if (structure.dependencies !== undefined) o['dependencies'] = structure.dependencies;
  if (naming?.noun !== undefined) o['noun'] = naming.noun;
  const raw = call(() => glue.solveSlice(
      slicer,
      req.tokens,
      req.scores,
      req.kinds ?? EMPTY_U32,
      req.kindNames ?? NO_NAMES,
      // Absent columns go as undefined: the core reads them as empty without an allocation each.
      links?.groupOf,
      links?.depOffsets,
      links?.depTargets,
      naming?.origin,
      versions?.versionClass,
      versions?.tokens,
      versions?.scores,
      o,
    ) as RawResult & Partial<RawGrouped & { version: Uint32Array }>);
  return raw.groupReasons === undefined ? decode(raw) : groupedOf(raw as RawGrouped);
}

/** {@link solveSlice} without groups, dependencies or versions: a plain slice, whose reasons are the slicers' own. */
export function plainSlice(slicer: SlicerName, req: ColumnarRequest): ColumnarResult {
  return solveSlice(slicer, req) as ColumnarResult;
}

/** {@link solveSlice}'s answer where the structure makes units (a group, or a dependency on another item). */
export function groupedAnswer(a: SliceAnswer): GroupedResult {
  if (a.unitOf === undefined) throw new CtxpackError('INTERNAL', 'the core answered a slice with units without them');
  return a as GroupedResult;
}

/** What {@link sliceNumeric} answers: the selection and the reasons, nothing else. */
export interface NumericResult {
  /** Item indexes in the slicer's output order. */
  selected: Uint32Array;
  /** One reason per item, in input order. */
  reasons: ReasonCode[];
}

/**
 * {@link solveSlice} for `'greedy'` and `'packer'` with only `targetTokens` and
 * `maxConsecutiveSkips`: the options cross as numbers and the answer as one array, so a small
 * call pays for the slice, not for objects built and read across the boundary.
 */
export function sliceNumeric(slicer: 'greedy' | 'packer', req: ColumnarRequest): NumericResult {
  // No default here: solveSlice's (the core's 3) is not "no limit", and greedy ignores it.
  const skips = slicer === 'greedy' ? 0 : req.maxConsecutiveSkips;
  if (skips === undefined) throw new CtxpackError('INTERNAL', "sliceNumeric: a 'packer' request must set maxConsecutiveSkips");
  const packed = call(() => glue.sliceNumeric(slicer, req.tokens, req.scores, req.targetTokens, skips));
  // [k, the k selected indexes, one reason code per item]
  const k = packed[0]!;
  return { selected: packed.subarray(1, 1 + k), reasons: reasonsOf(packed.subarray(1 + k)) as ReasonCode[] };
}

/** Runs a Rust slicer on fragment objects (the convenience path); same selections as the columnar path. */
export function sliceObjects(
  slicer: SlicerName,
  items: readonly ObjectItem[],
  req: Omit<ColumnarRequest, 'tokens' | 'scores' | 'kinds' | 'kindNames'>,
): ColumnarResult {
  const raw = call(() => glue.sliceObjects(slicer, items, options(req)) as RawResult);
  return decode(raw);
}

/** What {@link packLazy} answers: the packer's result, and how many counts it asked for. */
export interface LazyPackResult extends ColumnarResult {
  /** Counts asked for: exactly items `0..counted`, each once, in order. */
  counted: number;
}

/**
 * Runs the packer with counts asked for lazily (`GreedyPacker::slice_lazy`): `count(i)` is called
 * for item `i` only when the walk reaches it, so after the skip limit stops the walk the rest are
 * never counted. `count` must return an integer from 0 to 4294967295.
 *
 * A `CtxpackError` thrown by `count` comes back unchanged (the walk stops at once); anything else
 * it throws comes back as `TOKEN_COUNT_FAILED` with the thrown value as `cause`. Errors of the core
 * go through {@link fromWasm}, like every other call.
 */
export function packLazy(
  scores: Float64Array,
  req: Pick<ColumnarRequest, 'targetTokens' | 'maxConsecutiveSkips'>,
  count: (index: number) => number,
): LazyPackResult {
  let thrown: { value: unknown } | undefined;
  const callback = (index: number): number => {
    try {
      return count(index);
    } catch (err) {
      thrown = { value: err };
      throw err;
    }
  };
  const raw = call(
    () => glue.packLazy(scores, options(req), callback) as RawResult & { counted: number },
    (err) => {
      if (thrown === undefined) return fromWasm(err);
      if (thrown.value instanceof CtxpackError) return thrown.value;
      return new CtxpackError('TOKEN_COUNT_FAILED', 'the token counter threw', { cause: thrown.value });
    },
  );
  return { ...decode(raw), counted: raw.counted };
}

/** A strategy the budget simulation accepts (the count-constrained ones are refused with `NOT_MONOTONIC`). */
export type SimulationSlicerName = 'greedy' | 'knapsack' | 'exact' | 'packer';

/** What the simulation entry points take besides the columns. */
export interface SimulationRequest {
  tokens: Uint32Array;
  scores: Float64Array;
  /** Per item, its group index or {@link NO_GROUP} (see core/links.ts); empty or absent: no groups. */
  groupOf?: Uint32Array;
  /** The last budget (`budgetCurve`: required; `minBudgetFor`: default the saturation budget). */
  maxBudget?: number;
  bucketSize?: number;
  maxTableBytes?: number;
  maxConsecutiveSkips?: number;
  maxStates?: number;
  maxWork?: number;
  maxCells?: number;
}

/** `minBudgetFor`'s answer, as the core gives it. */
export interface MinBudgetResult {
  /** The smallest budget in `0..=ceiling` at which the item is selected; `null`: none. */
  first: number | null;
  /** The smallest budget from which it is selected at every budget up to `ceiling`; `null`: not selected at `ceiling`. */
  stableFrom: number | null;
  /** The last budget examined. */
  ceiling: number;
  /** A budget from which the selection no longer changes (everything that can be selected fits). */
  saturation: number;
}

/** Refuses slicer options as the core's slice entry points would (`bucketSize`, `maxTableBytes`…): the core decides. */
export function checkOptions(options: Record<string, unknown>): void {
  call(() => glue.checkOptions(options));
}

/** Refuses what budget simulation refuses of strategy `name` (`NOT_MONOTONIC`): the core decides. */
export function checkSimulated(name: string): void {
  call(() => glue.checkSimulated(name));
}

/** The core's budget curve (`BudgetSimulation::curve`): the total scaled value at every budget `0..=maxBudget`. */
export function budgetCurveColumnar(slicer: SlicerName, req: SimulationRequest): Float64Array {
  return call(() => glue.budgetCurve(slicer, req.tokens, req.scores, req.groupOf ?? EMPTY_U32, EMPTY_U32, options(req)));
}

/** The core's `BudgetSimulation::min_budget_for` for item `index`. */
export function minBudgetColumnar(slicer: SlicerName, req: SimulationRequest, index: number): MinBudgetResult {
  return call(() => glue.minBudgetFor(slicer, req.tokens, req.scores, req.groupOf ?? EMPTY_U32, EMPTY_U32, index, options(req)) as MinBudgetResult);
}


/** How grouped calls name items in errors: `noun[origin[i]]` (default `items[i]`). */
export interface Naming {
  noun?: string;
  origin?: Uint32Array;
}

/**
 * The units the core forms of the items, refusing early what `slicer` refuses of them (see
 * docs/groups.md). `kinds`/`kindNames` as in {@link ColumnarRequest}; `options` the slicer's
 * (count entries matter here) plus `dependencies`.
 */
export function groupUnits(
  slicer: SlicerName,
  n: number,
  links: Links,
  req: Pick<ColumnarRequest, 'kinds' | 'kindNames' | 'entries'> & { dependencies: DependencyMode },
  naming: Naming,
): UnitMap {
  const o: Record<string, unknown> = { dependencies: req.dependencies };
  if (req.entries !== undefined) o['entries'] = req.entries;
  if (naming.noun !== undefined) o['noun'] = naming.noun;
  // The origin fixes the item count even when no array says it.
  const origin = naming.origin ?? identityOf(n);
  return call(() => glue.groupUnits(slicer, req.kinds ?? EMPTY_U32, req.kindNames ?? NO_NAMES, links.groupOf, links.depOffsets, links.depTargets, origin, o) as UnitMap);
}

/** A slice's answer with units: the core's result over the items, plus the groups'. */
export interface GroupedResult extends Omit<ColumnarResult, 'reasons'> {
  /** One reason per item, in input order. */
  reasons: SliceReason[];
  /** Per item: for `'group_excluded'`, the unit's own reason. */
  groupReasons: (ReasonCode | undefined)[];
  unitOf: Uint32Array;
  unitCount: number;
  /** Knapsack strategies under required dependencies: whether the first selection had to drop units. */
  repaired?: boolean;
}

interface RawGrouped extends RawResult {
  groupReasons: Uint8Array;
  unitOf: Uint32Array;
  unitCount: number;
  repaired?: boolean;
}

/** A grouped answer decoded: reasons and group reasons as codes. */
function groupedOf<R extends RawGrouped>(raw: R): Omit<R, 'reasons' | 'groupReasons'> & GroupedResult {
  const codes = reasonCodes();
  const groupReasons = new Array<ReasonCode | undefined>(raw.groupReasons.length);
  for (let i = 0; i < raw.groupReasons.length; i++) {
    const g = raw.groupReasons[i]!;
    groupReasons[i] = g === NO_REASON ? undefined : (codes[g] as ReasonCode);
  }
  const out = { ...raw, reasons: reasonsOf(raw.reasons), groupReasons };
  if (raw.repaired === undefined) delete out.repaired;
  return out;
}

/** Alternative versions as columns: one row per version, `versionClass` its item (rows of an item in version order). */
export interface VariantColumns {
  versionClass: Uint32Array;
  tokens: Uint32Array;
  scores: Float64Array;
}

/** A multiple-choice slice's answer: a grouped one, plus the version each item went in with. */
export interface VariantResult extends GroupedResult {
  /** Per item: 0 the item itself, `k` its `k`-th alternative version, {@link NO_VERSION} when left out. */
  version: Uint32Array;
}

/** {@link VariantResult.version}'s "left out". */
export const NO_VERSION = 0xffff_ffff;

/** `groupReasons` value for "none". */
const NO_REASON = 255;

function identityOf(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

/**
 * BM25 scores of `docs` for `query` (src/relevance: Unicode lowercase word split, plurals folded;
 * `k1`, `b` as there). The texts cross into wasm memory for the call only: never kept, never logged.
 */
export function bm25Scores(docs: readonly string[], query: string, k1: number, b: number): Float64Array {
  const { bytes, ends } = packTexts(docs);
  return call(() => glue.bm25Scores(bytes, ends, query, k1, b));
}

const UTF8_ENCODER = new TextEncoder();

/**
 * `docs` as the core's `bm25Scores` and `bm25DocTerms` take them: their UTF-8 one after another
 * (`TextEncoder`, natively, as the glue encodes a string) and where each ends, so that they cross
 * as one copy. A string each crossed one character at a time in the glue's JavaScript: at 10,000
 * messages (12 M characters) about 80 ms of a `fitMessages` call. Made for the call only.
 */
function packTexts(docs: readonly string[]): { bytes: Uint8Array; ends: Uint32Array } {
  let size = 0;
  for (const d of docs) size += d.length; // ASCII: exact; more is asked below only when needed
  let buffer = new Uint8Array(size);
  const ends = new Uint32Array(docs.length);
  let at = 0;
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i]!;
    let r = UTF8_ENCODER.encodeInto(d, buffer.subarray(at));
    while (r.read < d.length) {
      // At most 3 bytes a UTF-16 code unit; the text is written again from its start.
      const larger = new Uint8Array(Math.max(2 * buffer.length, at + 3 * d.length));
      larger.set(buffer.subarray(0, at));
      buffer = larger;
      r = UTF8_ENCODER.encodeInto(d, buffer.subarray(at));
    }
    at += r.written;
    ends[i] = at;
  }
  return { bytes: buffer.subarray(0, at), ends };
}

/** A text as an index keeps it: its length in words, and each distinct word (its number in the call's `vocabulary`) with its count. */
export interface DocTerms {
  readonly words: number;
  readonly terms: Uint32Array;
  readonly counts: Uint32Array;
}

/** What the core read of a batch of texts: each text's terms, and the batch's distinct words (a term is its index here). */
export interface DocTermsBatch {
  readonly vocabulary: readonly string[];
  readonly docs: readonly DocTerms[];
}

/** Decodes the words of `bm25DocTerms`: one decoder call for the whole batch, not one per word. */
const UTF8 = new TextDecoder();

/** What an index keeps of each of `docs` (the core's `bm25DocTerms`), read once per text; a word shared by many texts crosses once. */
export function bm25DocTerms(docs: string[]): DocTermsBatch {
  const texts = packTexts(docs);
  const packed = call(() => glue.bm25DocTerms(texts.bytes, texts.ends));
  const countsLength = packed[0]!;
  const bytes = packed[1 + countsLength]!;
  const text = UTF8.decode(new Uint8Array(packed.buffer, packed.byteOffset + 4 * (2 + countsLength), bytes));
  // Each word is followed by a NUL: the last split piece is the empty rest.
  const vocabulary = bytes === 0 ? [] : text.slice(0, -1).split('\0');
  const out = new Array<DocTerms>(docs.length);
  let at = 1;
  for (let i = 0; i < docs.length; i++) {
    const m = packed[at + 1]!;
    const terms = new Uint32Array(m);
    const counts = new Uint32Array(m);
    for (let k = 0, p = at + 2; k < m; k++, p += 2) {
      terms[k] = packed[p]!;
      counts[k] = packed[p + 1]!;
    }
    out[i] = { words: packed[at]!, terms, counts };
    at += 2 + 2 * m;
  }
  return { vocabulary, docs: out };
}

/** The distinct terms of `query`, term number `i` at index `i` (as the core numbers them: sorted). */
export function bm25QueryTerms(query: string): string[] {
  const joined = call(() => glue.bm25QueryTerms(query));
  return joined.length === 0 ? [] : joined.slice(0, -1).split('\0');
}

/**
 * The stats of `docs` for `query` in the core's packed form (per text: length, `m`, then `m`
 * (term number, count) pairs, terms numbered as {@link bm25QueryTerms} lists them): each text
 * read for this query only, for a session that has indexed nothing yet.
 */
export function bm25Stats(docs: readonly string[], query: string): Uint32Array {
  const { bytes, ends } = packTexts(docs);
  return call(() => glue.bm25Stats(bytes, ends, query));
}

/** BM25 scores from stats in the core's packed form (per text: length, `m`, then `m` (term number, count) pairs, terms ascending) for a query of `terms` terms. */
export function bm25FromStats(stats: Uint32Array, terms: number, k1: number, b: number): Float64Array {
  return call(() => glue.bm25FromStats(stats, terms, k1, b));
}

/**
 * The caller's relevance of each text from vectors (src/relevance/fusion.rs): `max(0, cos)` of each
 * of `docs` (the texts' vectors one after another) with `query`.
 */
export function cosineRelevance(query: Float32Array, docs: Float32Array): Float64Array {
  return call(() => glue.cosineRelevance(query, docs));
}

/**
 * BM25 scores fused with the caller's (src/relevance/fusion.rs): values in [0, 1], 0 where
 * `competing[i]` is 0; `rrfK` 0 for the weighted sum of max-normalised scores, above 0 for
 * reciprocal rank fusion with that constant.
 */
export function fuseRelevance(lexical: Float64Array, caller: Float64Array, competing: Uint8Array, weight: number, rrfK: number): Float64Array {
  return call(() => glue.fuseRelevance(lexical, caller, competing, weight, rrfK));
}

/** The SipHash key (16 bytes) of a session's `stateKey` secret of at least 16 bytes (src/state_key.rs). */
export function stateKeyDerive(secret: Uint8Array): Uint8Array {
  return call(() => glue.stateKeyDerive(secret));
}

/** The code units of a text being keyed, up to 64k of them: reused, since only the call reads them. */
const UNITS = new Uint16Array(1 << 16);

/**
 * The key of `text` under a derived state key: SipHash-2-4 of its UTF-16 code units, 16 hex digits.
 * The units cross as such (not as UTF-8, which would merge lone surrogates with U+FFFD); the text
 * is in wasm memory for the call only.
 */
export function stateTextKey(key: Uint8Array, text: string): string {
  const units = text.length <= UNITS.length ? UNITS.subarray(0, text.length) : new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return call(() => glue.stateTextKey(key, units));
}

/** The check value a state written under a derived state key carries (src/state_key.rs, `key_check`). */
export function stateKeyCheck(key: Uint8Array): string {
  return call(() => glue.stateKeyCheck(key));
}

export { init, isInitialized, setWasmMemoryLimit, wasmMemoryBytes, type InitInput } from './instance.js';

/**
 * What pinning items pins (`pinClosure`, the core's `Units::closure`): per item, 1 when `pinned` says
 * so or it must go in with a pinned item (its group and, under `'require'`, what a pinned unit
 * depends on, transitively). Errors name item `i` as `noun[i]`.
 */
export function pinClosure(links: Links, pinned: Uint8Array, dependencies: DependencyMode, noun: string): Uint8Array {
  return call(() => glue.pinClosure(links.groupOf, links.depOffsets, links.depTargets, pinned, { dependencies, noun }));
}
