/**
 * fitMessages' pipeline, in named stages that sessions (session/) build on too: `prepareFit`
 * (options, messages, units, pins, the texts to count), `countFit` (count.ts), `scoreFit`
 * (relevance), `chooseFit` (selection and the result, choose.ts). The public functions are in
 * fit.ts.
 *
 * @internal
 * @module
 */

import { STRATEGIES } from '../core/table.js';
import { CtxpackError, shownName } from '../errors.js';
import { estimateTokens, type TokenCounter } from '../tokens/counter.js';
import { readBudgets } from '../validate/budgets.js';
import { isRecord, type Unchecked } from '../validate/fields.js';
import { invalidOption, optionsRecord, readBoolean, readCount, readEnum, readFunction, readNonEmptyString, rejectUnknownOptions } from '../validate/options.js';
import { monotonicMs } from '../util/time.js';
import { fixedMarkers } from './markers.js';
import { adapterOf } from './formats.js';
import { readRelevance, relevanceValues, type Bm25Memo } from './relevance.js';
import { readCaller, type CallerOptions } from './caller.js';
import { COMPACTED, latestUserMessage, pinnedMessages, type KeepRule, type Units } from './structure.js';
import { historyStructure } from './structure-memo.js';
import { collectText, joinText, readTurn, type FormatAdapter, type Turn } from './turns.js';
import type { MediaPart, CountPartContext, MediaRules } from './media.js';
import { DEFAULT_TRUNCATE_SHARE, type Truncation } from './truncate.js';
import { evidentFormat } from './detect.js';
import { FRAMING, type FramingRule } from './framing.js';
import type { HistoryMemo, KnownCounts } from './history.js';
import { messageArray } from './validate.js';
import type { FitMessagesAsyncOptions, FitMessagesOptions, RelevanceWeights } from './types.js';

/** The options `fitMessages` reads (sessions take them too; `embed` and `embedCache` only async ones). @internal */
export const FIT_OPTIONS: readonly (keyof FitMessagesOptions | keyof FitMessagesAsyncOptions)[] = [
  'format',
  'budgets',
  'system',
  'countTokens',
  'model',
  'keep',
  'query',
  'slicer',
  'relevance',
  'stubToolResults',
  'stubMedia',
  'truncateToolResults',
  'truncateUserMessage',
  'provider',
  'countPart',
  'tools',
  'framing',
  'countCache',
  'scores',
  'embed',
  'embedCache',
];
const PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
/** The strategies a chat history takes: the core's, but those counting kinds (messages have no count entries). */
const SLICERS = STRATEGIES.filter((s) => !s.options.includes('entries')).map((s) => s.name) as readonly ('exact' | 'knapsack' | 'greedy' | 'ranked' | 'packer')[];

function readKeep(o: Readonly<Record<string, unknown>>): KeepRule | undefined {
  return typeof o['keep'] === 'function' ? (o['keep'] as KeepRule) : o['keep'] === undefined ? undefined : readCount(o, 'keep', 0);
}

/** What fitMessages reads and derives before counting. Shared with the session (session/). @internal */
export interface PreparedFit<M> {
  readonly t0: number;
  readonly options: Unchecked;
  readonly list: readonly M[];
  readonly adapter: FormatAdapter;
  readonly budget: ReturnType<typeof readBudgets>;
  readonly counter: TokenCounter;
  readonly model: string | undefined;
  readonly query: string | undefined;
  readonly slicer: (typeof SLICERS)[number];
  readonly weights: Required<RelevanceWeights>;
  /** `scores`, `embed`, `embedCache` (caller.ts). */
  readonly caller: CallerOptions;
  /** How non-text parts are counted: the provider, the model, `options.countPart`. */
  readonly mediaRules: MediaRules;
  /** The provider's per-message framing (framing.ts); `undefined` with `framing: false`. */
  readonly framing: FramingRule | undefined;
  /** Each stub's non-text parts (those outside its tool results), as `stubs`. */
  readonly stubMedia: readonly (readonly MediaPart[] | undefined)[];
  /** The caller's Anthropic cache markers on `options.system` and `options.tools`, which count against the request's limit (markers.ts `fixedMarkers`: Anthropic's, LangChain's, the AI SDK's; 0 in other formats). */
  readonly fixedMarkers: number;
  readonly turns: readonly Turn[];
  readonly units: Units;
  /**
   * The request must open with a user message, after its system messages: Anthropic's format, or
   * `provider: 'anthropic'` in another (an SDK sends the system messages apart; Claude on Bedrock
   * refuses an assistant first, "first message must use the user role").
   */
  readonly firstFromUser: boolean;
  readonly pinned: Uint8Array;
  readonly broken: Uint8Array;
  readonly warnings: string[];
  /** What is counted as text, by what it is. */
  readonly texts: FitTexts;
  /** `stubToolResults`: per message, its stub's index in `stubs` or -1. */
  readonly stubOf: Int32Array;
  /** The stubs: new messages whose tool results are a note. */
  readonly stubs: readonly M[];
  /** `truncateToolResults`: tool results over this many tokens are cut to it; `undefined`: off. */
  readonly truncateAt: number | undefined;
  /** `truncateToolResults.media` (default true): the media of the step in flight's tool results may go in as notes when cutting their text is not enough. */
  readonly truncateMedia: boolean;
  /** `truncateUserMessage`: the pinned user messages' text is cut too when what must be kept exceeds the budget. */
  readonly truncateUser: boolean;
  /**
   * A session's memo of the history (history.ts), and what it knew of this one when it was read:
   * its counts, and that the first `same` messages are those of the memo's read `read - 1`, unchanged.
   */
  readonly history?: { readonly memo: HistoryMemo; readonly known: KnownCounts | undefined; readonly read: number; readonly same: number };
}

/** The texts a fit counts: each message's, the system prompt's and the tools' JSON when given, each stub's. @internal */
export interface FitTexts {
  /** As `list`. */
  readonly messages: readonly string[];
  /** `options.system`'s text (Anthropic, the AI SDK). */
  readonly system: string | undefined;
  /** `options.tools` as JSON. */
  readonly tools: string | undefined;
  /** As `stubs`. */
  readonly stubs: readonly string[];
}

/** The content keys of a fit's texts (tokens/cache.ts), as {@link FitTexts}. @internal */
export interface FitTextKeys {
  readonly messages: readonly string[];
  readonly system: string | undefined;
  readonly tools: string | undefined;
}

/** Counted: `costs[i]` per message (as sent: truncated where it is), the system prompt's, and what the pins take with overheads. @internal */
export interface CountedFit<M> extends PreparedFit<M> {
  readonly costs: Uint32Array;
  /** The messages sent truncated (`truncateToolResults`), by index. */
  readonly truncated: ReadonlyMap<number, Truncation<M>>;
  /** Each stub's count, as `stubs`. */
  readonly stubCosts: Uint32Array;
  readonly systemCost: number;
  /** `options.tools`' count (0 without). */
  readonly toolsCost: number;
  /** The request's own framing: the reply's priming and `options.system`'s framing (framing.ts; 0 with `framing: false`). */
  readonly requestFraming: number;
  /** Of `requestFraming`, `options.system`'s: before the messages (a session's prompt head), where the reply's priming comes after them. */
  readonly systemFraming: number;
  /** Per message: the part of `costs` its non-text parts take (media.ts). */
  readonly mediaCosts: Uint32Array;
  /** Per message: the descriptors of its non-text parts ('' without any), for a session's message keys. */
  readonly mediaKeys: readonly string[];
  readonly pinnedTokens: number;
  /** Each text's content key; a truncated message's is its truncated text's. */
  readonly textKeys: FitTextKeys;
}

/** Scored: each message's relevance value, and which messages compete. @internal */
export interface ScoredFit<M> extends CountedFit<M> {
  readonly values: Float64Array;
  readonly scored: Uint8Array;
}


/**
 * Steps 1 to 3 without counting: options, messages, units, pins, broken units. `memo`: a
 * session's, which keeps each message's turn across its calls. @internal
 */
export function prepareFit<M>(messages: readonly M[], options: unknown, extraOptions: readonly string[] = [], memo?: HistoryMemo): PreparedFit<M> {
  const t0 = monotonicMs();
  const list = messageArray(messages) as readonly M[]; // a copy: see messageArray
  const o = optionsRecord(options);
  rejectUnknownOptions(o, [...FIT_OPTIONS, ...extraOptions], 'fitMessages');
  const adapter = adapterOf(o['format']);
  const budget = readBudgets(o['budgets']);
  const counter = readFunction<TokenCounter>(o, 'countTokens') ?? estimateTokens;
  const model = readNonEmptyString(o, 'model');
  const keep = readKeep(o);
  const query = o['query'];
  if (query !== undefined && typeof query !== 'string') throw invalidOption('query', 'a string', query);
  const slicer = readEnum(o, 'slicer', SLICERS, 'ranked');
  const weights = readRelevance(o);
  const system = o['system'];
  if (system !== undefined && adapter.systemOption?.accepts(system) !== true) {
    throw invalidOption('system', adapter.systemOption?.requirement ?? "absent unless format is 'anthropic', 'openai-responses' or 'ai-sdk'", system);
  }

  const format = adapter.name;
  const provider = readEnum(o, 'provider', PROVIDERS, format === 'anthropic' ? 'anthropic' : 'openai');
  const countPart = readFunction<(part: unknown, context: CountPartContext) => unknown>(o, 'countPart');
  const tools = o['tools'];
  if (tools !== undefined && (typeof tools !== 'object' || tools === null)) throw invalidOption('tools', 'an array of tool definitions (or an object of them)', tools);

  const n = list.length;
  // A session's memo reads only the messages it has not read unchanged (history.ts).
  const turns: Turn[] = memo === undefined ? list.map((m, i) => readTurn(adapter, m, i)) : memo.read(adapter, list);
  // Units, what the latest compaction stands for (never sent, so checked as absent), and the rules
  // broken: a session's memo scans only what is new (structure-memo.ts).
  const { units, compacted, violations: found, pinnable } = memo === undefined ? historyStructure(turns, adapter) : memo.structure.of(turns, adapter, memo.reads, memo.same);
  // Units that break a rule (an empty result and a leading assistant are fixed after selection; an
  // unknown part type is only said).
  const violations = found.filter((v) => v.rule !== 'no_messages' && v.rule !== 'first_not_user' && v.rule !== 'unknown_part_type');
  const broken = new Uint8Array(n);
  for (const v of violations) for (const j of units.members.get(units.unitOf[v.index]!)!) broken[j] = 1;
  for (let i = 0; i < n; i++) if (compacted[i] === 1) broken[i] = COMPACTED;
  const firstFromUser = adapter.firstFromUser || provider === 'anthropic';
  const pinned = pinnedMessages(list, turns, units, keep, firstFromUser, broken, pinnable);
  const warnings: string[] = [];
  // A wrong format reads another format's tool calls and results as text: nothing is paired, and
  // a cut can orphan a call. Said, not refused: the shapes only suggest it.
  const evident = memo === undefined ? evidentFormat(list) : memo.evident();
  if (evident !== undefined && evident !== adapter.name) {
    warnings.push(`the messages have a shape only the '${evident}' format has (detectMessageFormat), but format is '${adapter.name}': tool calls and results are paired by the '${adapter.name}' rules`);
  }
  for (const v of found) if (v.rule === 'unknown_part_type') warnings.push(`${v.message} (rule ${v.rule}): sent as it is`);
  for (const v of violations) {
    const unit = units.members.get(units.unitOf[v.index]!)!;
    if (unit.some((j) => pinned[j] === 1)) {
      throw new CtxpackError('INVALID_MESSAGES', `${v.message} (rule ${v.rule}), and it is among the messages that must be kept`, {
        field: v.rule,
        index: v.index,
      });
    }
    warnings.push(`${v.message} (rule ${v.rule}): left out with its unit`);
  }
  const systemText = system === undefined ? undefined : joinText(collectText(system));
  const toolsJson = tools === undefined ? undefined : toolsText(tools);
  const stubTexts: string[] = [];
  const stubOf = new Int32Array(n).fill(-1);
  const stubs: M[] = [];
  const stubMedia: (readonly MediaPart[] | undefined)[] = [];
  const stubResults = readBoolean(o, 'stubToolResults', false);
  const stubParts = readBoolean(o, 'stubMedia', false);
  if (stubResults || stubParts) {
    for (let i = 0; i < n; i++) {
      if (pinned[i] === 1 || broken[i] !== 0) continue;
      const stub = stubMessage(adapter, list[i], turns[i]!, stubResults, stubParts) as M | undefined;
      if (stub === undefined) continue;
      stubOf[i] = stubs.length;
      stubs.push(stub);
      const read = readTurn(adapter, stub, i);
      stubTexts.push(read.text);
      stubMedia.push(read.media);
    }
  }
  return {
    caller: readCaller(o, n),
    ...readTruncation(o, budget.effective),
    truncateUser: readBoolean(o, 'truncateUserMessage', false),
    t0, options: o, list, adapter, budget, counter, model, query, slicer, weights,
    mediaRules: { provider, model, countPart },
    framing: readBoolean(o, 'framing', true) ? FRAMING[provider] : undefined,
    fixedMarkers: fixedMarkers(adapter.name, system, tools),
    turns, units, firstFromUser, pinned, broken, warnings, stubOf, stubs, stubMedia,
    ...(memo === undefined ? {} : { history: { memo, known: memo.known, read: memo.reads, same: memo.same } }),
    texts: { messages: memo === undefined ? turns.map((t) => t.text) : memo.texts, system: systemText, tools: toolsJson, stubs: stubTexts },
  };
}

/**
 * A message's stub, its one other version (`undefined` without one): its non-text parts as notes
 * (`stubMedia`: `[image omitted: 1568×980]`), then its tool results as a note (`stubToolResults`:
 * `[tool result omitted: N characters]`), each only where the message has them. Depends on the
 * message alone, so the same message gives the same stub on every turn.
 */
function stubMessage(adapter: FormatAdapter, message: unknown, turn: Turn, results: boolean, media: boolean): unknown {
  let stub: unknown;
  if (media && turn.media?.some((p) => p.kind !== 'opaque') === true) stub = adapter.replaceMedia(message);
  if (results && turn.results.length > 0) {
    const note = `[tool result omitted: ${turn.text.length} characters]`;
    stub = adapter.replaceResults(stub ?? message, () => note) ?? stub;
  }
  return stub;
}

/**
 * `options.tools` as the text it is counted as: its JSON (functions left out, as JSON.stringify
 * leaves them), an approximation of how the provider renders tool schemas into the prompt.
 */
function toolsText(tools: object): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(tools);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw invalidOption('tools', 'tool definitions that JSON.stringify can write (no cycles, no BigInt)', tools);
  return json;
}

/**
 * `options.truncateToolResults`: `true` (the default: at most {@link DEFAULT_TRUNCATE_SHARE} of
 * the effective budget per tool result, and the step in flight's media as notes when cutting its
 * text is not enough), `false`, or `{ maxTokens, media }`.
 */
function readTruncation(o: Unchecked, effective: number): { truncateAt: number | undefined; truncateMedia: boolean } {
  const v = o['truncateToolResults'];
  const share = Math.floor(effective * DEFAULT_TRUNCATE_SHARE);
  if (v === undefined || v === true) return { truncateAt: share, truncateMedia: true };
  if (v === false) return { truncateAt: undefined, truncateMedia: false };
  if (isRecord(v)) {
    for (const key of Object.keys(v)) {
      if (key !== 'maxTokens' && key !== 'media') throw invalidOption(`truncateToolResults.${shownName(key)}`, 'absent (the fields are maxTokens and media)', v[key]);
    }
    const max = v['maxTokens'];
    if (max !== undefined && (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 0)) throw invalidOption('truncateToolResults.maxTokens', 'a non-negative integer', max);
    const media = v['media'];
    if (media !== undefined && typeof media !== 'boolean') throw invalidOption('truncateToolResults.media', 'a boolean', media);
    return { truncateAt: max ?? share, truncateMedia: media ?? true };
  }
  throw invalidOption('truncateToolResults', 'true, false or { maxTokens, media }', v);
}

/** Which messages compete for the budget (1): those neither kept by rule nor left out as broken. @internal */
export function competing(p: PreparedFit<unknown>): Uint8Array {
  const n = p.turns.length;
  const scored = new Uint8Array(n);
  for (let i = 0; i < n; i++) scored[i] = p.pinned[i] === 0 && p.broken[i] === 0 ? 1 : 0;
  return scored;
}

/** The text relevance is measured against: `options.query`, else the latest user message's text ('' without one). @internal */
export function fitQuery(p: PreparedFit<unknown>): string {
  const latest = latestUserMessage(p.turns);
  return p.query ?? (latest >= 0 ? p.texts.messages[latest]! : '');
}

/**
 * Step 4: relevance of the messages that compete; `embedded` is the caller's relevance from
 * `embed` (caller.ts), else `options.scores` apply when given. @internal
 */
export function scoreFit<M>(c: CountedFit<M>, memo?: Bm25Memo, embedded?: Float64Array): ScoredFit<M> {
  const scored = competing(c);
  const values = relevanceValues(c.texts.messages, fitQuery(c), scored, c.weights, memo, embedded ?? c.caller.scores, c.history);
  return { ...c, values, scored };
}
