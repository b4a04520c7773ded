/**
 * `fitMessages`: a chat history in, the messages of a valid request under the budget out.
 *
 * @module
 */

import { CtxpackError, readingInput } from '../errors.js';
import { exactKnapsackSlice, greedySlice, knapsackSlice, packGreedy, type SliceItem, type SliceResult } from '../slicers/functions.js';
import { CallCounts, estimateTokens, type TokenCounter } from '../tokens/counter.js';
import { readBudgets } from '../validate/budgets.js';
import { invalidOption, optionsRecord, readCount, readEnum, readFunction, readNonEmptyString, rejectUnknownOptions } from '../validate/options.js';
import { monotonicMs } from '../planner/metrics.js';
import { adapterOf } from './formats.js';
import { readRelevance, relevanceValues } from './relevance.js';
import { buildUnits, pinnedMessages, type KeepRule } from './structure.js';
import { collectText, joinText, type Turn } from './turns.js';
import { messageArray, structureViolations } from './validate.js';
import type { FitMessagesOptions, FitMessagesResult, MessageDecision, MessageDecisionReason } from '../types.js';

const KNOWN_OPTIONS: readonly (keyof FitMessagesOptions)[] = [
  'format',
  'budgets',
  'system',
  'countTokens',
  'model',
  'keep',
  'query',
  'slicer',
  'relevance',
];
const SLICERS = ['exact', 'knapsack', 'greedy', 'acs', 'packer'] as const;

/** Counts `texts` with the caller's counter; errors name `where(i)`, never the text. */
function countAll(texts: readonly string[], counter: TokenCounter, model: string | undefined, where: (i: number) => string): Uint32Array {
  const counts = new CallCounts(new Uint32Array(texts.length), texts.slice(), counter, model);
  for (let i = 0; i < texts.length; i++) {
    try {
      counts.get(i);
    } catch (err) {
      if (!(err instanceof CtxpackError)) throw err;
      const details = err.cause === undefined ? { field: 'content', index: i } : { field: 'content', index: i, cause: err.cause };
      throw new CtxpackError(err.code, err.message.replace(`candidates[${i}].content`, where(i)), details);
    }
  }
  return counts.costs;
}

function readKeep(o: Readonly<Record<string, unknown>>): KeepRule | undefined {
  return typeof o['keep'] === 'function' ? (o['keep'] as KeepRule) : o['keep'] === undefined ? undefined : readCount(o, 'keep', 0);
}

/**
 * Fits a chat history to a token budget and returns the messages of a request its provider accepts.
 *
 * 1. **Validate**: `messages` (`INVALID_INPUT`), each message as its format reads it
 *    (`INVALID_FIELD` naming `messages[i].<field>`), the options (`INVALID_OPTION`, budgets
 *    `INVALID_BUDGET`).
 * 2. **Structure**: an assistant message with tool calls and every message carrying their results
 *    form one atomic unit. Messages that break a rule of the format (`validateMessages`: an orphaned
 *    call or result) are left out (`invalid_structure`); if one of them must be kept, the call fails
 *    with `INVALID_MESSAGES`.
 * 3. **Pin**: system messages (and Anthropic's `options.system`), the latest user message and every
 *    message after it, and `options.keep`, each with its whole unit. If they alone exceed the
 *    effective budget: `PINNED_OVER_BUDGET`, saying by how many tokens.
 * 4. **Score** the other messages by relevance to `options.query` (default: the latest user
 *    message's text): see relevance.ts and the README.
 * 5. **Select** with `options.slicer` (default `'acs'`: by value, highest first, each unit that still fits what
 *    the pins leave), units whole. Anthropic: leading assistant units are then dropped, so that the
 *    request starts with a user message.
 */
export function fitMessages<M>(messages: readonly M[], options: FitMessagesOptions): FitMessagesResult<M> {
  return readingInput(() => fit(messages, options));
}

function fit<M>(messages: readonly M[], options: FitMessagesOptions): FitMessagesResult<M> {
  const t0 = monotonicMs();
  const list = messageArray(messages) as readonly M[];
  const o = optionsRecord(options);
  rejectUnknownOptions(o, KNOWN_OPTIONS, 'fitMessages');
  const adapter = adapterOf(o['format']);
  const budget = readBudgets(o['budgets']);
  const counter = readFunction<TokenCounter>(o, 'countTokens') ?? estimateTokens;
  const model = readNonEmptyString(o, 'model');
  const keep = readKeep(o);
  const query = o['query'];
  if (query !== undefined && typeof query !== 'string') throw invalidOption('query', 'a string', query);
  const slicer = readEnum(o, 'slicer', SLICERS, 'acs');
  const weights = readRelevance(o);
  const system = o['system'];
  if (system !== undefined && (adapter.name !== 'anthropic' || (typeof system !== 'string' && !Array.isArray(system)))) {
    throw invalidOption('system', adapter.name === 'anthropic' ? 'a string or an array of text blocks' : "absent unless format is 'anthropic'", system);
  }

  const n = list.length;
  const turns: Turn[] = list.map((m, i) => readMessage(adapter, m, i));
  const units = buildUnits(turns, adapter);
  const pinned = pinnedMessages(list, turns, units, keep);
  const broken = new Uint8Array(n);
  const warnings: string[] = [];
  for (const v of structureViolations(turns, adapter)) {
    if (v.rule === 'no_messages' || v.rule === 'first_not_user') continue; // an empty result / fixed after selection
    const unit = units.members.get(units.unitOf[v.index]!)!;
    if (unit.some((j) => pinned[j] === 1)) {
      throw new CtxpackError('INVALID_MESSAGES', `${v.message} (rule ${v.rule}), and it is among the messages that must be kept`, {
        field: v.rule,
        index: v.index,
      });
    }
    for (const j of unit) broken[j] = 1;
    warnings.push(`${v.message} (rule ${v.rule}): left out with its unit`);
  }

  // Count, and charge what must be kept first.
  const texts = turns.map((t) => t.text);
  const costs = countAll(texts, counter, model, (i) => `messages[${i}]`);
  const overhead = budget.perFragmentOverhead;
  const systemCost = system === undefined ? 0 : countAll([joinText(collectText(system))], counter, model, () => 'options.system')[0]!;
  let pinnedTokens = system === undefined ? 0 : systemCost + overhead;
  for (let i = 0; i < n; i++) if (pinned[i] === 1) pinnedTokens += costs[i]! + overhead;
  if (pinnedTokens > budget.effective) {
    throw new CtxpackError(
      'PINNED_OVER_BUDGET',
      `what must be kept (system prompt, the latest user message and after, options.keep) takes ${pinnedTokens} tokens, ` +
        `${pinnedTokens - budget.effective} more than the effective budget ${budget.effective}`,
      { field: 'budgets' },
    );
  }

  // Score and select the rest.
  const scored = new Uint8Array(n);
  for (let i = 0; i < n; i++) scored[i] = pinned[i] === 0 && broken[i] === 0 ? 1 : 0;
  let latest = n - 1;
  while (latest >= 0 && !(turns[latest]!.role === 'user' && turns[latest]!.prose)) latest--;
  const q = typeof query === 'string' ? query : latest >= 0 ? texts[latest]! : '';
  const values = relevanceValues(texts, q, scored, weights);
  const items: SliceItem[] = [];
  const itemIndex: number[] = [];
  for (let i = 0; i < n; i++) {
    if (scored[i] === 0) continue;
    const unit = units.unitOf[i]!;
    const item: SliceItem = { id: String(i), tokens: costs[i]! + overhead, score: values[i]! };
    if (units.members.get(unit)!.length > 1) item.group = `u${unit}`;
    items.push(item);
    itemIndex.push(i);
  }
  const result = slice(slicer, items, { targetTokens: budget.effective - pinnedTokens });

  const reasons = new Array<MessageDecisionReason>(n);
  const groupReasons = new Array<MessageDecisionReason | undefined>(n);
  const included = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (pinned[i] === 1) {
      reasons[i] = 'pinned';
      included[i] = 1;
    } else if (broken[i] === 1) reasons[i] = 'invalid_structure';
  }
  result.decisions.forEach((d, k) => {
    const i = itemIndex[k]!;
    reasons[i] = d.reason;
    if (d.groupReason !== undefined) groupReasons[i] = d.groupReason;
    if (d.included) included[i] = 1;
  });
  if (adapter.firstFromUser) startWithUser(turns, units, pinned, included, reasons);

  const kept: M[] = [];
  const decisions: MessageDecision[] = new Array(n);
  let tokensSelected = systemCost;
  for (let i = 0; i < n; i++) {
    const inc = included[i] === 1;
    if (inc) {
      kept.push(list[i]!);
      tokensSelected += costs[i]!;
    }
    decisions[i] = { index: i, included: inc, reason: reasons[i]!, cost_tokens: costs[i]!, score: pinned[i] === 1 ? 1 : values[i]!, unit: units.unitOf[i]! };
    if (groupReasons[i] !== undefined) (decisions[i] as MessageDecision & { group_reason?: MessageDecisionReason }).group_reason = groupReasons[i];
  }
  if (n === 0) warnings.push('messages is empty: there is nothing to send');
  const budgetUsed = tokensSelected + overhead * (kept.length + (system === undefined ? 0 : 1));
  return {
    messages: kept,
    decisions,
    metrics: {
      candidate_count: n,
      messages_kept: kept.length,
      pinned_tokens: pinnedTokens,
      tokens_selected: tokensSelected,
      fragments_counted: n + (system === undefined ? 0 : 1),
      effective_budget: budget.effective,
      budget_used: budgetUsed,
      prompt_tokens: budget.overheadTokens + budgetUsed,
      planner_ms: monotonicMs() - t0,
    },
    warnings,
  };
}

/** Reads one message; anything but a CtxpackError thrown while reading it (a throwing getter) becomes one naming the message. */
function readMessage(adapter: ReturnType<typeof adapterOf>, message: unknown, index: number): Turn {
  try {
    return adapter.read(message, index);
  } catch (err) {
    if (err instanceof CtxpackError) throw err;
    throw new CtxpackError('INVALID_FIELD', `messages[${index}] could not be read: reading it threw (the thrown value is this error's cause)`, {
      field: 'messages',
      index,
      cause: err,
    });
  }
}

/** Runs the chosen strategy; `'acs'` and `'packer'` walk the items by value, highest first (ties: newest first). */
function slice(slicer: (typeof SLICERS)[number], items: SliceItem[], budget: { targetTokens: number }): SliceResult {
  switch (slicer) {
    case 'exact':
      return exactKnapsackSlice(items, budget);
    case 'knapsack':
      return knapsackSlice(items, budget);
    case 'greedy':
      return greedySlice(items, budget);
    case 'acs':
    case 'packer': {
      const order = items.map((_, k) => k).sort((a, b) => items[b]!.score - items[a]!.score || b - a);
      const walked = packGreedy(
        order.map((k) => items[k]!),
        budget,
        slicer === 'acs' ? { maxConsecutiveSkips: 0 } : {},
      );
      const decisions = new Array<SliceResult['decisions'][number]>(items.length);
      walked.decisions.forEach((d, p) => (decisions[order[p]!] = { ...d, index: order[p]! }));
      return { ...walked, decisions };
    }
  }
}

/** Anthropic: drops leading assistant units until a user message comes first (a pinned one cannot be dropped). */
function startWithUser(
  turns: readonly Turn[],
  units: ReturnType<typeof buildUnits>,
  pinned: Uint8Array,
  included: Uint8Array,
  reasons: MessageDecisionReason[],
): void {
  for (let i = 0; i < turns.length; i++) {
    if (included[i] === 0) continue;
    if (turns[i]!.role === 'user') return;
    if (pinned[i] === 1) {
      throw new CtxpackError('INVALID_MESSAGES', `messages[${i}] is kept by rule but would open the request, which must start with a user message`, {
        field: 'first_not_user',
        index: i,
      });
    }
    for (const j of units.members.get(units.unitOf[i]!)!) {
      included[j] = 0;
      reasons[j] = 'first_not_user';
    }
  }
}
