/**
 * The planner's options: their defaults, and `readSettings`, which validates `options` once
 * (step 1) into {@link Settings}, the form every later step reads.
 *
 * @internal
 * @module
 */

import { MAX_COST_TOKENS, isRecord, type Unchecked } from '../validate/fields.js';
import {
  invalidOption,
  optionsRecord,
  readBoolean,
  readCount,
  readLodMix,
  readDependencyMode,
  readEnum,
  readFunction,
  readNonEmptyString,
  readNow,
  readWeights,
  rejectUnknownOptions,
} from '../validate/options.js';
import type { DependencyMode } from '../core/types.js';
import { checkOptions } from '../core/bridge.js';
import { coreFieldsOf } from '../core/instance.js';
import { coreErrorText } from '../error-text.js';
import { CtxpackError } from '../errors.js';
import { OPTION_DEFAULTS, STRATEGIES, takesOption } from '../core/table.js';
import { DEFAULT_KV_TOP_K, DEFAULT_MAX_KV_SIZE, readCache, type CheckedCacheEntry } from '../kv/policy.js';
import type { ScoringContext } from '../ranking/scoring.js';
import { DEFAULT_DIVERSITY_WINDOW } from '../ranking/tiebreak.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { CountEntryOption, PlannerOptions, PlannerSlicer, SelectionLogRecord } from '../types.js';

/** Slicers accepted by `options.slicer`: the core's strategies (src/wasm/strategies.rs). */
export const PLANNER_SLICERS: readonly PlannerSlicer[] = Object.freeze(STRATEGIES.map((s) => s.name));
/** Default `options.maxConsecutiveSkips` of the `'packer'` slicer (the packer spec's `MAX_CONSECUTIVE_SKIPS`), the core's. */
export const DEFAULT_MAX_CONSECUTIVE_SKIPS = OPTION_DEFAULTS.maxConsecutiveSkips;
/** Default `options.bucketSize` of the knapsack slicers, the core's. */
export const DEFAULT_BUCKET_SIZE = OPTION_DEFAULTS.bucketSize;
/** Spec: "Single very expensive candidate: include only if benefit > 0.9 and explicit allow_overshoot flag". */
export const OVERSHOOT_MIN_BENEFIT = 0.9;
/** Kind of a fragment with neither `kind` nor `lod`, for the count-constrained knapsack. */
export const DEFAULT_KIND = 'default';

/** Validated options. */
export interface Settings {
  readonly now: number;
  readonly weights: ScoringContext['weights'];
  readonly slicer: PlannerSlicer;
  readonly maxConsecutiveSkips: number;
  readonly bucketSize: number;
  /** Whether the caller set `bucketSize` (exact-count otherwise picks its own). */
  readonly bucketSizeGiven: boolean;
  readonly maxTableBytes: number | undefined;
  readonly maxCells: number | undefined;
  readonly countEntries: readonly CountEntryOption[] | undefined;
  /** `lodMix` given: the count entries are its, over each fragment's `lod`. */
  readonly countByLod: boolean;
  readonly scarcity: 'degrade' | 'throw';
  readonly dependencies: DependencyMode;
  readonly allowOvershoot: boolean;
  readonly diversityWindow: number;
  readonly maxKvSize: number;
  readonly kvTopK: number;
  readonly previousCache: readonly CheckedCacheEntry[];
  readonly requestId: string | undefined;
  readonly logger: ((record: SelectionLogRecord) => void) | undefined;
  readonly hashIds: boolean;
  readonly countTokens: TokenCounter | undefined;
  readonly model: string | undefined;
  readonly ignoredOptions: readonly string[];
}

/**
 * The planner's slicer options, by the core option each becomes (`countEntries` and `lodMix` are
 * the core's `entries`); a slicer that does not read it (the core's table) reports it in `warnings`.
 */
const SLICER_OPTIONS: readonly (readonly [name: string, core: string])[] = [
  ['maxConsecutiveSkips', 'maxConsecutiveSkips'],
  ['bucketSize', 'bucketSize'],
  ['maxTableBytes', 'maxTableBytes'],
  ['maxCells', 'maxCells'],
  ['countEntries', 'entries'],
  ['scarcity', 'scarcity'],
  ['lodMix', 'entries'],
];

/**
 * The planner's options that the core reads under the same names, and checks (types, limits,
 * allowed values): TypeScript only reads them after.
 */
const CORE_CHECKED = ['bucketSize', 'maxTableBytes', 'maxCells', 'maxConsecutiveSkips', 'scarcity'] as const;

const KNOWN_OPTIONS: readonly (keyof PlannerOptions)[] = [
  'now',
  'weights',
  'diversityWindow',
  'maxKvSize',
  'kvTopK',
  'previousCache',
  'slicer',
  'maxConsecutiveSkips',
  'bucketSize',
  'maxTableBytes',
  'maxCells',
  'countEntries',
  'scarcity',
  'lodMix',
  'dependencies',
  'allow_overshoot',
  'requestId',
  'logger',
  'hashIds',
  'countTokens',
  'model',
];

/** `options` of `selectFragments`, validated; `defaultNow` stands for an absent `now`. */
export function readSettings(options: unknown, defaultNow: number): Settings {
  const o: Unchecked = optionsRecord(options);
  rejectUnknownOptions(o, KNOWN_OPTIONS, 'selectFragments');
  const slicer = readEnum(o, 'slicer', PLANNER_SLICERS, 'ranked');
  // The options the core reads, checked by the core even when the strategy ignores them.
  const core: Record<string, unknown> = {};
  for (const name of CORE_CHECKED) if (o[name] !== undefined) core[name] = o[name];
  if (Object.keys(core).length > 0) checkOptions(core);
  const maxTableBytes = o['maxTableBytes'] as number | undefined;
  const maxCells = o['maxCells'] as number | undefined;
  const previous = o['previousCache'];
  const requestId = o['requestId'];
  if (requestId !== undefined && (typeof requestId !== 'string' || requestId.length === 0)) {
    throw invalidOption('requestId', 'a non-empty string', requestId);
  }
  const logger = readFunction<(record: SelectionLogRecord) => void>(o, 'logger');
  const countTokens = readFunction<TokenCounter>(o, 'countTokens');
  const model = readNonEmptyString(o, 'model');
  const ignoredOptions = SLICER_OPTIONS.filter(([name, core]) => o[name] !== undefined && !takesOption(slicer, core)).map(([name]) => name);
  return {
    now: readNow(o, defaultNow),
    weights: readWeights(o),
    slicer,
    maxConsecutiveSkips: (o['maxConsecutiveSkips'] as number | undefined) ?? DEFAULT_MAX_CONSECUTIVE_SKIPS,
    bucketSize: (o['bucketSize'] as number | undefined) ?? OPTION_DEFAULTS.bucketSize,
    bucketSizeGiven: o['bucketSize'] !== undefined,
    maxTableBytes,
    maxCells,
    countEntries: o['lodMix'] !== undefined ? readLodMix(o) : readCountEntries(o['countEntries']),
    countByLod: o['lodMix'] !== undefined,
    scarcity: (o['scarcity'] as 'degrade' | 'throw' | undefined) ?? 'degrade',
    dependencies: readDependencyMode(o),
    allowOvershoot: readBoolean(o, 'allow_overshoot', false),
    diversityWindow: readCount(o, 'diversityWindow', DEFAULT_DIVERSITY_WINDOW, MAX_COST_TOKENS),
    maxKvSize: readCount(o, 'maxKvSize', DEFAULT_MAX_KV_SIZE),
    kvTopK: readCount(o, 'kvTopK', DEFAULT_KV_TOP_K),
    previousCache: previous === undefined ? [] : readCache(previous, 'previousCache'),
    requestId,
    logger,
    hashIds: readBoolean(o, 'hashIds', false),
    countTokens,
    model,
    ignoredOptions,
  };
}

/**
 * `options.countEntries`, checked by the core as every front door's count entries are (the
 * slicers' `entries`): `INVALID_COUNT_ENTRY` for the list's or an entry's shape, named under
 * `countEntries`. Each entry is read once, into a copy the core checks and the planner keeps.
 */
function readCountEntries(value: unknown): CountEntryOption[] | undefined {
  if (value === undefined) return undefined;
  const copy = Array.isArray(value) ? value.map((e: unknown) => (isRecord(e) ? { ...e } : e)) : value;
  underCountOption('countEntries', () => checkOptions({ entries: copy }));
  return copy as CountEntryOption[];
}

/**
 * Runs `run`, naming the core's count-entry errors (`INVALID_COUNT_ENTRY`, which name its own
 * option, `entries`) by the option the caller wrote: `countEntries` or `lodMix`.
 */
export function underCountOption<T>(option: 'countEntries' | 'lodMix', run: () => T): T {
  try {
    return run();
  } catch (err) {
    const fields = coreFieldsOf(err);
    if (fields?.code !== 'INVALID_COUNT_ENTRY') throw err;
    throw new CtxpackError(fields.code, coreErrorText({ ...fields, field: option }), { field: option, ...(fields.index === undefined ? {} : { index: fields.index }) });
  }
}

/** The warnings the options alone give: options the slicer ignores, `model` without a counter. */
export function settingsWarnings(s: Settings): string[] {
  const warnings = s.ignoredOptions.map((name) => `options.${name} is ignored by slicer '${s.slicer}'`);
  if (s.model !== undefined && s.countTokens === undefined) warnings.push('options.model is ignored without options.countTokens');
  return warnings;
}

