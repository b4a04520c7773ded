/**
 * `replaySession`: a recorded conversation replayed request by request through a session, with
 * the figures of each turn. The command line's `ctxpack replay`, the preview page and the benchmark
 * use it.
 *
 * @module
 */

import { CtxpackError, readingInput } from '../errors.js';
import { adapterOf } from '../messages/formats.js';
import { messageArray } from '../messages/validate.js';
import { readBudgets } from '../validate/budgets.js';
import { isRecord } from '../validate/fields.js';
import { optionsRecord } from '../validate/options.js';
import { createSession, isRequestEnd } from './session.js';
import type { ReplaySummary, ReplayTurn, SessionFitResult, SessionOptions } from './types.js';

/**
 * The indexes after which the model is asked for a reply: each user or tool message followed by
 * an assistant message or by nothing (parallel tool results: after the last one).
 */
export function requestEnds(messages: readonly unknown[], format: SessionOptions['format']): number[] {
  return readingInput(() => {
    const adapter = adapterOf(format);
    const turns = messageArray(messages).map((m, i) => adapter.read(m, i));
    const ends: number[] = [];
    for (let i = 0; i < turns.length; i++) if (isRequestEnd(turns, i)) ends.push(i);
    return ends;
  }, messages);
}

/**
 * Replays `history` turn by turn (`requestEnds`) through one new session with `options`; `each`
 * sees every turn's result. Errors are the session's, with `index` the turn's last message.
 *
 * `session.fit` never waits for a summary: with `summarize`, only a summariser that answers
 * synchronously (`extractiveSummarizer`) has its summaries in this replay. For a model's
 * summaries, `replaySessionAsync`.
 */
export function replaySession<M>(history: readonly M[], options: SessionOptions, each?: (result: SessionFitResult<M>, end: number) => void): ReplayTurn[] {
  const o = optionsRecord(options);
  const session = createSession(options);
  const turns = new Turns(o);
  for (const end of requestEnds(history, o['format'] as SessionOptions['format'])) {
    let r: SessionFitResult<M>;
    try {
      r = session.fit(history.slice(0, end + 1));
    } catch (err) {
      throw atTurn(err, end);
    }
    each?.(r, end);
    turns.push(r, end);
  }
  return turns.out;
}

/**
 * `replaySession` through `session.fitAsync`: for async token counters, embeddings and
 * summarisers. With `summarize`, `summary.wait` defaults to `true` here, so that a turn that cuts
 * awaits the summary asked for it and the replay is the same whatever the summariser's latency
 * (a live session does not wait: its summaries come a cut later, when they are ready in time).
 * Give `summary: { wait: false }` to replay a live session's timing instead.
 */
export async function replaySessionAsync<M>(history: readonly M[], options: SessionOptions, each?: (result: SessionFitResult<M>, end: number) => void): Promise<ReplayTurn[]> {
  const o = optionsRecord(options);
  const summary = o['summary'];
  const waiting = o['summarize'] !== undefined && (summary === undefined || (isRecord(summary) && summary['wait'] === undefined)) ? { ...o, summary: { ...(summary as object | undefined), wait: true } } : o;
  const session = createSession(waiting as unknown as SessionOptions);
  const turns = new Turns(o);
  for (const end of requestEnds(history, o['format'] as SessionOptions['format'])) {
    let r: SessionFitResult<M>;
    try {
      r = await session.fitAsync(history.slice(0, end + 1));
    } catch (err) {
      throw atTurn(err, end);
    }
    each?.(r, end);
    turns.push(r, end);
  }
  return turns.out;
}

/** A session's error without an index, located at the request after messages[end]. */
function atTurn(err: unknown, end: number): unknown {
  if (!(err instanceof CtxpackError) || err.index !== undefined) return err;
  return new CtxpackError(err.code, `${err.message} (at the request after messages[${end}])`, { field: err.field ?? 'messages', index: end, cause: err.cause });
}

/** A replay's turns, as they come: each turn's figures from its result. */
class Turns {
  readonly out: ReplayTurn[] = [];
  /** The summaries in the requests so far (the first request that carries one makes its call). */
  private readonly sent = new Set<string>();
  private overhead: number | undefined;

  constructor(private readonly o: Record<string, unknown>) {}

  push(r: SessionFitResult<unknown>, end: number): void {
    // The budgets were accepted by the fit; what every message left out would have added.
    const overhead = (this.overhead ??= readBudgets(this.o['budgets']).perFragmentOverhead);
    let left = 0;
    for (const d of r.decisions) if (!d.included) left += d.cost_tokens + overhead;
    const summary = r.summary;
    const first = summary != null && !this.sent.has(summary.id);
    if (summary != null) this.sent.add(summary.id);
    this.out.push({
      turn: this.out.length + 1,
      historyMessages: end + 1,
      sentMessages: r.messages.length,
      promptTokens: r.metrics.prompt_tokens,
      historyTokens: r.metrics.prompt_tokens + left,
      budgetUsed: r.metrics.budget_used,
      effectiveBudget: r.metrics.effective_budget,
      prefixTokens: r.cache.prefixTokens,
      predictedCachedTokens: r.cache.predictedCachedTokens,
      predictedCost: r.metrics.predicted_cost,
      cut: r.cache.cut,
      ...(summary === undefined
        ? {}
        : { summary: summary === null ? null : { id: summary.id, index: summary.index, tokens: summary.tokens, replaces: summary.replaces, callInputTokens: summary.callInputTokens, callCost: summary.callCost, first } }),
    });
  }
}

/**
 * The totals of a replay: the share of prompt tokens that are the previous request's prefix, next
 * to the same share had every request sent the whole history (the append-only bound: nothing ever
 * cut, so each request's prefix is the whole previous one), the mean budget use and the predicted
 * cost. A share over no tokens is 0.
 */
export function summarizeReplay(turns: readonly ReplayTurn[]): ReplaySummary {
  let prompt = 0;
  let prefix = 0;
  let cached = 0;
  let cost = 0;
  let use = 0;
  let cuts = 0;
  let history = 0;
  let bound = 0;
  turns.forEach((t, k) => {
    prompt += t.promptTokens;
    prefix += t.prefixTokens;
    cached += t.predictedCachedTokens;
    cost += t.predictedCost;
    use += t.effectiveBudget > 0 ? t.budgetUsed / t.effectiveBudget : 0;
    if (t.cut) cuts++;
    history += t.historyTokens;
    if (k > 0) bound += turns[k - 1]!.historyTokens;
  });
  const share = (a: number, b: number): number => (b > 0 ? a / b : 0);
  // With `summarize`: the summaries sent, each once, and their calls' cost; the requests with one.
  const sent = new Map<string, number>();
  let summarized = 0;
  for (const t of turns) {
    if (!t.summary) continue;
    sent.set(t.summary.id, t.summary.callCost);
    summarized++;
  }
  const callCost = [...sent.values()].reduce((a, b) => a + b, 0);
  const prefixShare = share(prefix, prompt);
  const appendOnlyShare = share(bound, history);
  return {
    requests: turns.length,
    cuts,
    promptTokens: prompt,
    prefixShare,
    appendOnlyShare,
    ofAppendOnly: share(prefixShare, appendOnlyShare),
    cachedShare: share(cached, prompt),
    budgetUse: share(use, turns.length),
    predictedCost: cost,
    ...(turns.some((t) => t.summary !== undefined) ? { summaries: sent.size, summarizedRequests: summarized, summaryCallCost: callCost, costWithSummaries: cost + callCost } : {}),
  };
}
