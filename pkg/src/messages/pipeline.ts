/**
 * fitMessages' pipeline, in named stages that sessions (session/) build on too: `prepareFit`
 * (options, messages, units, pins, the texts to count), `countFit` (count.ts), `scoreFit`
 * (relevance), `chooseFit` (selection and the result). The public functions are in fit.ts.
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
import { defaultScale } from '../validate/variants.js';
import { monotonicMs } from '../util/time.js';
import { NOT_IN, problemReason, solveProblemSizes, type ProblemInput, type ProblemResult } from '../core/problem.js';
import { ANTHROPIC_MAX_MARKERS, capMarkers, fixedMarkers } from './markers.js';
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
import type { FitMessagesAsyncOptions, FitMessagesOptions, FitMessagesResult, MessageDecision, MessageDecisionReason, RelevanceWeights } from './types.js';

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
  /** Anthropic: the `cache_control` markers of `options.system` and `options.tools`, which count against the request's limit (0 in other formats). */
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
 * A plan's constraints beyond fitMessages' own (the session's): `forced` messages are kept
 * (reason `'cached_prefix'`), only `eligible` ones compete for the rest, and the whole request
 * takes at most `target` tokens (default the effective budget). @internal
 */
export interface FitPlan {
  forced?: Uint8Array;
  /** Of the `forced` messages, those kept as their stub (`stubToolResults`, `stubMedia`): the previous request had the stub. */
  forcedStub?: Uint8Array;
  eligible?: Uint8Array;
  target?: number;
  /** Messages whose `cache_control` markers the session itself placed on an earlier turn: removed, never counted. */
  ownMarkers?: Uint8Array;
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
    fixedMarkers: adapter.name === 'anthropic' ? fixedMarkers(system) + fixedMarkers(tools) : 0,
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

/** Step 5: selection under the budget (and a session's plan), and the result. @internal */
export function chooseFit<M>(s: ScoredFit<M>, plan: FitPlan = {}): FitMessagesResult<M> {
  const problem = fitProblem(s, plan);
  return problem.result(problem.fill(plan.target));
}

/** What a fill keeps, per message, and the tokens it takes: a result before its objects are made. @internal */
export interface FitFill {
  readonly included: Uint8Array;
  /** Of the included, those sent as their stub. */
  readonly stubbed: Uint8Array;
  /** `metrics.budget_used` and `metrics.prompt_tokens` of the result. */
  readonly budgetUsed: number;
  readonly promptTokens: number;
  /** `metrics.tokens_selected`. */
  readonly tokensSelected: number;
  readonly kept: number;
  readonly chosen: Chosen;
}

/**
 * A plan's problem for the core, built once and filled to several sizes (`fill(target)`, the
 * effective budget by default; `fills(targets)`, several in one call of the core, which shares
 * the work between them): a session's cut weighs up to fifteen sizes of one plan and makes the
 * result (`result(fill)`, what chooseFit returns for the plan with that target) of the one it
 * keeps. @internal
 */
export interface FitProblem<M> {
  fill(target?: number): FitFill;
  fills(targets: readonly number[]): FitFill[];
  result(fill: FitFill): FitMessagesResult<M>;
}

/** The {@link FitProblem} of `plan` (its `target` aside). @internal */
export function fitProblem<M>(s: ScoredFit<M>, plan: FitPlan = {}): FitProblem<M> {
  const built = buildChoice(s, plan);
  const size = (target: number | undefined) => Math.max(0, Math.min(target ?? s.budget.effective, s.budget.effective));
  const fills = (targets: readonly (number | undefined)[]) => solveChoices(built, targets.map(size)).map((chosen) => fillOf(s, plan, chosen));
  return {
    fill: (target) => fills([target])[0]!,
    fills,
    result: (fill) => resultOf(s, plan, fill),
  };
}

/** Which messages a solved choice keeps, whole or as their stub, and what they take. */
function fillOf<M>(s: ScoredFit<M>, plan: FitPlan, chosen: Chosen): FitFill {
  const { pinned, broken, costs, budget } = s;
  const n = s.list.length;
  const forced = plan.forced;
  const included = new Uint8Array(n);
  const stubbed = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (pinned[i] === 1) included[i] = 1;
    else if (broken[i] === 0 && forced?.[i] === 1) {
      included[i] = 1;
      if (plan.forcedStub?.[i] === 1 && s.stubOf[i]! >= 0) stubbed[i] = 1;
    }
  }
  const { rows, result } = chosen;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    if (result.included[k] === 1) included[i] = 1;
    if (result.version[k] === 1) stubbed[i] = 1;
  }
  let tokensSelected = s.systemCost + s.toolsCost + s.requestFraming;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (included[i] === 0) continue;
    kept++;
    tokensSelected += stubbed[i] === 1 && s.stubOf[i]! >= 0 ? s.stubCosts[s.stubOf[i]!]! : costs[i]!;
  }
  const budgetUsed = tokensSelected + budget.perFragmentOverhead * (kept + (s.texts.system !== undefined ? 1 : 0));
  return { included, stubbed, budgetUsed, promptTokens: budget.overheadTokens + budgetUsed, tokensSelected, kept, chosen };
}

/** The result of a fill: the kept messages (whole, truncated or stubbed), a decision per message, warnings and metrics. */
function resultOf<M>(s: ScoredFit<M>, plan: FitPlan, fill: FitFill): FitMessagesResult<M> {
  const { list, units, pinned, broken, costs, values, budget } = s;
  const n = list.length;
  const forced = plan.forced;
  const { included, chosen } = fill;
  const reasons = new Array<MessageDecisionReason>(n);
  const groupReasons = new Array<MessageDecisionReason | undefined>(n);
  for (let i = 0; i < n; i++) {
    if (pinned[i] === 1) reasons[i] = 'pinned';
    else if (broken[i] !== 0) reasons[i] = broken[i] === COMPACTED ? 'compacted' : 'invalid_structure';
    else if (forced?.[i] === 1) reasons[i] = 'cached_prefix';
    else reasons[i] = 'cache_cut'; // not eligible under a session's plan; the core's reason replaces it for the eligible
  }
  const { rows, result } = chosen;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    reasons[i] = problemReason(result.reasons[k]!) as MessageDecisionReason;
    if (result.groupReasons[k] !== NOT_IN) groupReasons[i] = problemReason(result.groupReasons[k]!) as MessageDecisionReason;
  }

  const kept: M[] = [];
  const decisions: MessageDecision[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const inc = included[i] === 1;
    const stub = inc && fill.stubbed[i] === 1 ? s.stubOf[i]! : -1;
    const cut = s.truncated.get(i);
    if (inc) kept.push(stub >= 0 ? s.stubs[stub]! : (cut?.message ?? list[i]!));
    decisions[i] = { index: i, included: inc, reason: reasons[i]!, cost_tokens: costs[i]!, score: pinned[i] === 1 ? 1 : values[i]!, unit: units.unitOf[i]! };
    if (cut !== undefined) decisions[i]!.truncated = { from: cut.from, to: cut.tokens };
    if (s.mediaCosts[i]! > 0) decisions[i]!.media_tokens = s.mediaCosts[i]!;
    if (stub >= 0) Object.assign(decisions[i]!, { stubbed: true, stub_tokens: s.stubCosts[stub]! });
    if (groupReasons[i] !== undefined) (decisions[i] as MessageDecision & { group_reason?: MessageDecisionReason }).group_reason = groupReasons[i];
  }
  const warnings = [...s.warnings];
  if (n === 0) warnings.push('messages is empty: there is nothing to send');
  if (s.adapter.name === 'anthropic') {
    const own = plan.ownMarkers;
    const keptIndex = own === undefined ? undefined : decisions.filter((d) => d.included).map((d) => d.index);
    const capped = capMarkers(kept, s.fixedMarkers, keptIndex === undefined ? undefined : (k) => own![keptIndex[k]!] === 1);
    if (capped.removed > 0) {
      warnings.push(
        `cache_markers_removed: ${capped.removed} cache_control marker(s) on the messages were removed (the earliest), so that the request has at most ${ANTHROPIC_MAX_MARKERS} with options.system's and options.tools'`,
      );
    }
  }
  return {
    messages: kept,
    decisions,
    metrics: {
      candidate_count: n,
      messages_kept: kept.length,
      pinned_tokens: s.pinnedTokens,
      tokens_selected: fill.tokensSelected,
      fragments_counted: n + (s.texts.system !== undefined ? 1 : 0) + (s.texts.tools !== undefined ? 1 : 0) + s.texts.stubs.length,
      effective_budget: budget.effective,
      budget_used: fill.budgetUsed,
      prompt_tokens: fill.promptTokens,
      planner_ms: monotonicMs() - s.t0,
    },
    warnings,
  };
}

/** The competing messages (`rows`, by index) and the core's answer over them. */
interface Chosen {
  readonly rows: Uint32Array;
  readonly result: ProblemResult;
}

/** A plan's problem for the core but its budget, with the rows it is over. */
interface BuiltChoice {
  readonly rows: Uint32Array;
  readonly input: Omit<ProblemInput, 'budget'>;
}

/**
 * The competing messages as one problem for the core (core/problem.ts): sizes with overheads,
 * values, units, stubs, and what is kept for sure (pinned, a session's prefix) with its tokens and
 * positions. Anthropic: the rule that the first kept message opens a user unit is part of the
 * problem, solved inside the strategy (src/problem in the crate), never a retry here.
 */
function buildChoice<M>(s: ScoredFit<M>, plan: FitPlan): BuiltChoice {
  const { turns, units, pinned, costs, values, scored, budget } = s;
  const n = turns.length;
  const overhead = budget.perFragmentOverhead;
  const forced = plan.forced;
  const eligible = plan.eligible;
  let m = 0;
  let keptCount = 0;
  let forcedTokens = 0;
  // System messages are sent apart from the rest (or first): the rule reads what follows them.
  const ruled = (i: number): boolean => !(s.firstFromUser && turns[i]!.role === 'system');
  for (let i = 0; i < n; i++) {
    if (pinned[i] === 1) keptCount += ruled(i) ? 1 : 0;
    else if (scored[i] === 1 && forced?.[i] === 1) {
      keptCount++;
      forcedTokens += (plan.forcedStub?.[i] === 1 && s.stubOf[i]! >= 0 ? s.stubCosts[s.stubOf[i]!]! : costs[i]!) + overhead;
    } else if (scored[i] === 1 && (eligible === undefined || eligible[i] === 1)) m++;
  }
  const rows = new Uint32Array(m);
  const sizes = new Uint32Array(m);
  const rowValues = new Float64Array(m);
  const unitIds = new Uint32Array(m);
  const keptPositions = new Uint32Array(keptCount);
  const keptUser = new Uint8Array(keptCount);
  // Dense unit ids in order of first appearance; per id, whether its first message is a user's.
  const unitId = new Int32Array(n).fill(-1);
  const opensUser: number[] = [];
  const stubItems: number[] = [];
  const stubSizes: number[] = [];
  const stubValues: number[] = [];
  for (let i = 0, k = 0, q = 0; i < n; i++) {
    if (pinned[i] === 1 || (scored[i] === 1 && forced?.[i] === 1)) {
      if (!ruled(i)) continue;
      keptPositions[q] = i;
      keptUser[q++] = opensRequest(turns[i]!) ? 1 : 0;
      continue;
    }
    if (scored[i] === 0 || (eligible !== undefined && eligible[i] === 0)) continue;
    const u = units.unitOf[i]!;
    if (unitId[u] === -1) {
      unitId[u] = opensUser.length;
      opensUser.push(opensRequest(turns[i]!) ? 1 : 0);
    }
    rows[k] = i;
    sizes[k] = costs[i]! + overhead;
    rowValues[k] = values[i]!;
    unitIds[k] = unitId[u]!;
    const stub = s.stubOf[i]!;
    if (stub >= 0) {
      stubItems.push(k);
      stubSizes.push(s.stubCosts[stub]! + overhead);
      stubValues.push(values[i]! * defaultScale(s.stubCosts[stub]!, costs[i]!));
    }
    k++;
  }
  return {
    rows,
    input: {
      strategy: s.slicer,
      sizes,
      values: rowValues,
      units: unitIds,
      positions: rows,
      stubs: stubItems.length === 0 ? undefined : { items: Uint32Array.from(stubItems), sizes: Uint32Array.from(stubSizes), values: Float64Array.from(stubValues) },
      opensUser: s.firstFromUser ? Uint8Array.from(opensUser) : undefined,
      kept: { tokens: s.pinnedTokens + forcedTokens, positions: keptPositions, user: keptUser },
    },
  };
}

/** The core's answers to a built problem with each of `targets` tokens, in one call. */
function solveChoices(built: BuiltChoice, targets: readonly number[]): Chosen[] {
  return solveProblemSizes(built.input, targets).map((result) => chosenOf(built, result));
}

/** A solved problem's answer, or the rule the core could not keep. */
function chosenOf(built: BuiltChoice, result: ProblemResult): Chosen {
  if (result.unmet) {
    // The first kept message is not a user message, and no user message can go before it.
    const i = built.input.kept.positions[0]!;
    throw new CtxpackError('INVALID_MESSAGES', `messages[${i}] is kept by rule but would open the request, which must start with a user message`, {
      field: 'first_not_user',
      index: i,
    });
  }
  return { rows: built.rows, result };
}

/** Whether a message may open a request that must start with a user message (Anthropic): a user's, or a compaction. */
function opensRequest(turn: Turn): boolean {
  return turn.role === 'user' || turn.compaction === true;
}
