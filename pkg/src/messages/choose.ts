/**
 * fitMessages' step 5 (pipeline.ts has steps 1 to 4): the competing messages as one problem for
 * the core, filled to a size (`fitProblem`, which a session's cut fills to several), and the
 * result of a fill (`chooseFit`): the kept messages, a decision per message, warnings, metrics.
 *
 * @internal
 * @module
 */

import { CtxpackError } from '../errors.js';
import { NOT_IN, problemReason, solveProblemSizes, type ProblemInput, type ProblemResult } from '../core/problem.js';
import { monotonicMs } from '../util/time.js';
import { defaultScale } from '../validate/variants.js';
import { fitCitations } from './citations.js';
import { ANTHROPIC_MAX_MARKERS, capMarkers, capsMarkers } from './markers.js';
import type { ScoredFit } from './pipeline.js';
import { COMPACTED } from './structure.js';
import { copyWithContent, type Turn } from './turns.js';
import type { FitMessagesResult, MessageDecision, MessageDecisionReason } from './types.js';

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
  // The request as sent, in the formats of Anthropic's blocks (Anthropic's, and LangChain's, which
  // @langchain/anthropic sends as they are): the caller's markers past Anthropic's limit removed.
  if (capsMarkers(s.adapter.name)) {
    const own = plan.ownMarkers;
    const keptIndex = decisions.filter((d) => d.included).map((d) => d.index);
    const rebuild = (m: M, content: unknown): M | undefined => copyWithContent(s.adapter, m, content);
    const capped = capMarkers(kept, s.fixedMarkers, own === undefined ? undefined : (k) => own[keptIndex[k]!] === 1, rebuild);
    if (capped.refused !== undefined) {
      const index = keptIndex[capped.refused]!;
      throw new CtxpackError('INVALID_MESSAGES', `messages[${index}] carries cache_control markers past Anthropic's limit of ${ANTHROPIC_MAX_MARKERS} a request, and its class refused a copy without them`, { index, field: 'cache_control' });
    }
    if (capped.removed > 0) {
      const before = s.adapter.name === 'anthropic' ? "options.system's and options.tools'" : "options.tools'";
      warnings.push(`cache_markers_removed: ${capped.removed} cache_control marker(s) on the messages were removed (the earliest), so that the request has at most ${ANTHROPIC_MAX_MARKERS} with ${before}`);
    }
    // Citations of search results, true to the search results the request holds (citations.ts).
    warnings.push(...fitCitations(kept, (k) => keptIndex[k]!, rebuild));
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
