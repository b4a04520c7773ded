/**
 * Summaries of what a session cuts (`createSession({ summarize })`, docs/sessions.md,
 * "Summaries"). The session keeps at most one summary in its requests: one user message standing
 * where the span it replaces was (whole units after the task, never the task, a pinned message or
 * the step in flight). The summary is asked for ahead of need, when a turn cuts or is about to,
 * and enters the request at a later cut, where the prefix after the head is written anyway; it
 * is then resent as the same object on every turn (part of the cached prefix) until a later cut
 * folds it with the next span into a new one. The session plans over the history with the
 * summary inserted where its span starts and the span's messages after it, still candidates (a
 * later cut keeps one in full when its value asks; left out, it is the summary's, and the task is
 * pinned with it); this module rewrites the history, maps the plan back to the caller's indexes
 * and runs the summariser's jobs. Whether a summary pays, and its length, are pricing.ts
 * `summaryPays` and `summaryLength`; the options and their defaults are summary-options.ts.
 *
 * @internal
 * @module
 */

import { adapterOf } from '../messages/formats.js';
import type { PreparedFit } from '../messages/pipeline.js';
import { latestUserMessage } from '../messages/structure.js';
import { afterTask, listOf, origOf, signatureOf, summaryRun, type Planned } from './summary-span.js';
import type { FormatAdapter } from '../messages/turns.js';
import type { MessageDecision } from '../messages/types.js';
import { isRecord } from '../validate/fields.js';
import { summaryLength, summaryPays, type Pricing, type SummaryPrice } from './pricing.js';
import { userMessage } from './summary-message.js';
import { isThenable } from '../util/thenable.js';
import { readOptions, type Read } from './summary-options.js';
import type { SessionFitResult, SessionSummaryReport, SessionTurnOptions, SummarizeRequest } from './types.js';

/** The heading the session puts before the summariser's text when it returns text. */
export const SUMMARY_HEADING = '[Summary of earlier messages, left out to fit the context]\n';

/** The turns a summary is asked for ahead of the cut: when the history is this many turns' growth from the budget. */
const AHEAD_TURNS = 2;
/** Summaries kept by span, to answer the same span again without a call. */
const JOBS_KEPT = 16;

/** Per message of a span, as the plan that made it saw it: for the decisions of later turns. */
interface SpanMessage {
  cost: number;
  score: number;
  unit: number;
}

/** One summariser call, for the original messages [start, end). */
interface Job {
  readonly id: string;
  /** The original history's span [start, end) it stands for (a fold's includes the previous summary's). */
  readonly start: number;
  readonly end: number;
  /** The span's content, to check on later turns that the history still has it. */
  readonly signature: string;
  readonly span: readonly SpanMessage[];
  /** The tokens the summariser reads: the span as the session counts it. */
  readonly inputTokens: number;
  state: 'pending' | 'ready' | 'failed';
  message?: unknown;
  /** Its tokens in a request, with the per-message overhead (known once planned). */
  tokens?: number;
  /** When it failed: why (no content). */
  why?: string;
  /** Settles (never rejects) when the job is ready or failed. */
  done: Promise<void>;
  /** The timeout's timer: unref'd (no process waits for a summary) except while a turn waits. */
  timer?: { ref?: () => void };
}

/**
 * The history as planned: the summary inserted where its span starts, the span's messages after it
 * still candidates (a later cut may keep one in full; left out, it is the summary's).
 */
interface Rewrite<M> extends Planned {
  readonly list: readonly M[];
  readonly job: Job | undefined;
}

/** What summaries.ts needs of the session (session.ts, `ChatSession`). */
export interface SummaryHost {
  prepare<M>(list: readonly M[], turn: SessionTurnOptions | undefined): PreparedFit<M>;
  /** `target`: a cut fills that size (budget tokens) instead of choosing one: the summary's plan is the cut without it, with room for it. */
  planSync<M>(prep: PreparedFit<M>, target?: number): SessionFitResult<M>;
  planAsync<M>(prep: PreparedFit<M>, target?: number): Promise<SessionFitResult<M>>;
  /** The session's memory of the previous request, to plan a turn twice and keep one. */
  snapshot(): unknown;
  restore(snapshot: unknown): void;
  /** Tokens the history grows by per turn (undefined before the second turn). */
  growth(): number | undefined;
  readonly pricing: Pricing;
}

/** A session's summaries: the one in its requests, and the summariser's jobs. */
export class Summaries {
  private readonly o: Read;
  private readonly adapter: FormatAdapter;
  /** The summary in the requests (valid while the history has its span). */
  private applied: Job | undefined;
  /** The job for the next cut: pending, or ready and not yet in a request. */
  private next: Job | undefined;
  private readonly warnings: string[] = [];
  private turnCount = 0;
  /** Every summary asked for, by its span's signature (the latest JOBS_KEPT): never asked twice. */
  private readonly jobs = new Map<string, Job>();
  /** This turn's per-message overhead (`per_fragment_overhead`). */
  private overhead = 0;

  constructor(summarize: unknown, options: unknown, format: unknown, private readonly host: SummaryHost) {
    this.o = readOptions(summarize, options, host.pricing);
    this.adapter = adapterOf(format);
  }

  fit<M>(history: readonly M[], turn: SessionTurnOptions | undefined): SessionFitResult<M> {
    const base = this.rewrite(history, this.applied);
    const before = this.host.snapshot();
    const prepA = this.prepared(base, turn);
    let r = this.host.planSync(prepA);
    let used = base;
    if (this.next === undefined && this.cuts(r)) this.start(history, base, r, prepA);
    const candidate = this.candidate(history, base, r);
    if (candidate !== undefined) {
      const after = this.host.snapshot();
      const rw = this.rewrite(history, candidate);
      const prepB = this.prepared(rw, turn);
      this.host.restore(before);
      // The cut without the summary, with room for it: what it keeps is kept, unless the budget has no room.
      const room = (job: Job): number => r.metrics.budget_used + (job.tokens ?? 0);
      let rb = this.host.planSync(prepB, room(candidate));
      if (candidate.tokens === undefined && this.measure(candidate, rb, rw)) {
        this.host.restore(before);
        rb = this.host.planSync(prepB, room(candidate));
      }
      if (this.keeps(candidate, r, rb, base, rw, true)) {
        r = rb;
        used = rw;
      } else this.host.restore(after);
    }
    return this.finish(history, turn, used, r, prepA);
  }

  async fitAsync<M>(history: readonly M[], turn: SessionTurnOptions | undefined): Promise<SessionFitResult<M>> {
    const base = this.rewrite(history, this.applied);
    const before = this.host.snapshot();
    const prepA = this.prepared(base, turn);
    let r = await this.host.planAsync(prepA);
    let used = base;
    if (this.next === undefined && this.cuts(r)) this.start(history, base, r, prepA);
    // Asked to wait: the summary under way, for this cut.
    if (this.o.wait && this.cuts(r) && this.next?.state === 'pending') {
      this.next.timer?.ref?.();
      await this.next.done;
    }
    const candidate = this.candidate(history, base, r);
    if (candidate !== undefined) {
      const after = this.host.snapshot();
      const rw = this.rewrite(history, candidate);
      const prepB = this.prepared(rw, turn);
      this.host.restore(before);
      // The cut without the summary, with room for it: what it keeps is kept, unless the budget has no room.
      const room = (job: Job): number => r.metrics.budget_used + (job.tokens ?? 0);
      let rb = await this.host.planAsync(prepB, room(candidate));
      if (candidate.tokens === undefined && this.measure(candidate, rb, rw)) {
        this.host.restore(before);
        rb = await this.host.planAsync(prepB, room(candidate));
      }
      if (this.keeps(candidate, r, rb, base, rw, true)) {
        r = rb;
        used = rw;
      } else this.host.restore(after);
    }
    return this.finish(history, turn, used, r, prepA);
  }

  /**
   * Learns the summary's tokens from a plan with it (`rb`); true when it has some, and the cut is
   * to be planned again with that much room (the first plan put it in the room of other messages).
   */
  private measure(job: Job, rb: SessionFitResult<unknown>, rw: Rewrite<unknown>): boolean {
    const d = rb.decisions[rw.at];
    if (d === undefined) return false;
    job.tokens = d.cost_tokens + this.overhead;
    return job.tokens > 0;
  }

  /** Whether a turn cuts: the session's cut, or without a cache any message left out. */
  private cuts(r: SessionFitResult<unknown>): boolean {
    return this.host.pricing.enabled ? r.cache.cut || (r.cache.prefixMessages === 0 && r.decisions.some((d) => !d.included)) : r.decisions.some((d) => !d.included);
  }

  /** A ready summary to put in this turn's request: only where the prefix after the head is rewritten anyway (a cut). */
  private candidate(history: readonly unknown[], base: Rewrite<unknown>, r: SessionFitResult<unknown>): Job | undefined {
    const job = this.next;
    if (job === undefined || job.state !== 'ready' || !this.cuts(r)) return undefined;
    // Its span must still be the history's, and it folds (starts at) the summary in use, if any.
    if (signatureOf(this.adapter, history, job.start, job.end) !== job.signature) {
      this.next = undefined;
      this.warnings.push(`summary_dropped: the history changed in messages[${job.start}..${job.end - 1}] before summary ${job.id} was used: cut instead`);
      return undefined;
    }
    // One summary at a time: a new one must fold the one in use (start where it stands).
    if (base.job !== undefined && job.start !== base.job.start) {
      this.next = undefined;
      return undefined;
    }
    return job;
  }

  /**
   * Whether the plan with summary `job` (rb) is kept over the plan without (ra): the summary is
   * valid where it stands and pays (pricing.ts `summaryPays`; the summariser's call is spent).
   */
  private keeps(job: Job, ra: SessionFitResult<unknown>, rb: SessionFitResult<unknown>, base: Rewrite<unknown>, rw: Rewrite<unknown>, used: boolean): boolean {
    const d = rb.decisions[rw.at];
    if (d === undefined || !d.included) {
      this.warnings.push(`summary_unused: summary ${job.id} does not fit the budget: cut instead`);
      this.next = undefined;
      return false;
    }
    const pays = summaryPays(this.host.pricing, { ...this.priceOf(job, ra, base, { r: rb, rw }), summaryTokens: d.cost_tokens + this.overhead, callCost: 0 });
    if (!pays) {
      this.next = undefined;
      return false;
    }
    if (used) {
      this.applied = job;
      this.next = undefined;
    }
    return true;
  }

  /**
   * What pricing.ts `summaryPays` weighs of summary `job` against plan `r` but the summary's own
   * length and call; with `withSummary` (the plan with the summary in it), the room is measured:
   * what that plan leaves out of `r`'s messages kept in full, and the tokens it adds.
   */
  private priceOf(
    job: { start: number; end: number; span: readonly SpanMessage[] },
    r: SessionFitResult<unknown>,
    base: Rewrite<unknown>,
    withSummary?: { r: SessionFitResult<unknown>; rw: Rewrite<unknown> },
  ): Omit<SummaryPrice, 'summaryTokens' | 'callCost'> {
    const overhead = this.overhead;
    // The mean value per token of what the plan keeps by value, and its least valued message.
    let valueTokens = 0;
    let keptTokens = 0;
    const byValue: { score: number; tokens: number; index: number }[] = [];
    for (const d of r.decisions) {
      if (!d.included || d.reason === 'pinned') continue;
      valueTokens += d.score * (d.cost_tokens + overhead);
      keptTokens += d.cost_tokens + overhead;
      byValue.push({ score: d.score, tokens: d.cost_tokens + overhead, index: d.index });
    }
    const mean = valueTokens > 0 ? valueTokens / keptTokens : 1;
    byValue.sort((a, b) => a.score - b.score || a.index - b.index);
    // The span's messages as this plan sees them.
    let spanTokens = 0;
    let lost = 0;
    let kept = 0;
    for (let i = job.start; i < job.end; i++) {
      const d = r.decisions[listOf(base, i)];
      const m = job.span[i - job.start]!;
      const tokens = m.cost + overhead;
      spanTokens += tokens;
      const value = ((d?.score ?? m.score) / mean) * tokens;
      if (d?.included === true) kept += value;
      else lost += value;
    }
    let measured: SummaryPrice['measured'];
    if (withSummary !== undefined) {
      // The original indexes the plan with the summary keeps in full; then r's kept messages it leaves out, the span aside.
      const rw = withSummary.rw;
      const keptWith = new Set<number>();
      for (const d of withSummary.r.decisions) if (d.included) keptWith.add(origOf(rw, d.index));
      const keptWithout = new Set<number>();
      let displacedValue = 0;
      for (const d of r.decisions) {
        const o = origOf(base, d.index);
        if (d.included) keptWithout.add(o);
        if (!d.included || d.reason === 'pinned' || o < 0 || (o >= job.start && o < job.end) || keptWith.has(o)) continue;
        displacedValue += (d.score / mean) * (d.cost_tokens + overhead);
      }
      // And what it keeps that r leaves out (a cut to another size), the span aside.
      let addedValue = 0;
      for (const d of withSummary.r.decisions) {
        const o = origOf(rw, d.index);
        if (!d.included || d.reason === 'pinned' || o < 0 || (o >= job.start && o < job.end) || keptWithout.has(o)) continue;
        addedValue += (d.score / mean) * (d.cost_tokens + overhead);
      }
      measured = { displacedValue, addedValue, addedTokens: Math.max(0, withSummary.r.metrics.prompt_tokens - r.metrics.prompt_tokens) };
    }
    const growth = this.host.growth() ?? Math.max(1, r.metrics.prompt_tokens / Math.max(1, this.turnCount));
    const overheadTokens = r.metrics.prompt_tokens - r.metrics.budget_used;
    const price = {
      budget: overheadTokens + r.metrics.effective_budget,
      promptTokens: r.metrics.prompt_tokens,
      growth,
      turns: this.turnCount,
      spanTokens,
      lostValue: lost,
      keptValue: kept,
      keptByValue: byValue.map((m) => ({ value: m.score / mean, tokens: m.tokens })),
      ...(measured === undefined ? {} : { measured }),
    };
    return price;
  }

  /** The turn's result in the caller's indexes, and the next summary asked for when the history nears or passes the cut. */
  private finish<M>(history: readonly M[], turn: SessionTurnOptions | undefined, used: Rewrite<M>, r: SessionFitResult<M>, prepA: PreparedFit<M>): SessionFitResult<M> {
    this.turnCount++;
    const g = this.host.growth();
    // Ahead of need: the history is within AHEAD_TURNS turns' growth of the budget.
    if (this.next === undefined && this.host.pricing.enabled && !this.cuts(r) && g !== undefined && r.metrics.budget_used + AHEAD_TURNS * g >= r.metrics.effective_budget) {
      this.ahead(history, used, turn, used.list === prepA.list ? prepA : this.prepared(used, turn), g);
    }
    return this.report(history, used, r);
  }

  /**
   * The cut to come, planned now (and forgotten): this history under a budget AHEAD_TURNS turns'
   * growth smaller, where the session cuts as it will when the history has grown by as much. What
   * that cut leaves out is the span to ask for (the objective's own choice, by value: not simply
   * the oldest messages).
   */
  private ahead<M>(history: readonly M[], used: Rewrite<M>, turn: SessionTurnOptions | undefined, prep: PreparedFit<M>, growth: number): void {
    const budgets = prep.options['budgets'];
    if (!isRecord(budgets) || typeof budgets['tokens_max'] !== 'number') return;
    const snapshot = this.host.snapshot();
    try {
      const smaller = { ...budgets, tokens_max: Math.max(1, budgets['tokens_max'] - Math.ceil(AHEAD_TURNS * growth)) };
      const prepCut = this.prepared(used, { ...turn, budgets: smaller });
      const cut = this.host.planSync(prepCut);
      if (this.cuts(cut)) this.start(history, used, cut, prepCut);
    } catch {
      // A prediction only: a budget too small for what must be kept, a counter that must be awaited.
    } finally {
      this.host.restore(snapshot);
      this.overhead = prep.budget.perFragmentOverhead;
    }
  }

  /**
   * Asks for the summary of the next span: whole units, none pinned, each left out by the cut
   * `r`, from the first the cut leaves out after the task, or from the summary in use (folded
   * into the new one).
   */
  private start<M>(history: readonly M[], rw: Rewrite<M>, r: SessionFitResult<M>, prep: PreparedFit<M>): void {
    const overhead = prep.budget.perFragmentOverhead;
    const run = summaryRun(prep as PreparedFit<unknown>, rw, r);
    if (run === undefined) return; // nothing to summarise
    const { first, end: j, spanEnd } = run;
    // The span in the original history's indexes (the summary in use stands for its own span).
    const start = first === rw.at ? rw.job!.start : origOf(rw, first);
    const end = origOf(rw, j - 1) + 1;
    const signature = signatureOf(this.adapter, history, start, end);
    if (signature === undefined) return;
    const known = this.jobs.get(signature);
    if (known !== undefined) {
      // Asked before (a span the cut did not take then): its answer serves again, never a second call.
      if (known.state !== 'failed' && known !== this.applied) this.next = known;
      return;
    }
    const span: SpanMessage[] = [];
    for (let i = start; i < end; i++) {
      const d = r.decisions[listOf(rw, i)]!;
      span.push({ cost: d.cost_tokens, score: d.score, unit: Math.max(0, origOf(rw, d.unit)) });
    }
    // What the summariser reads: a fold's old summary and what follows its span, else the span.
    const read = first === rw.at ? [rw.at, ...Array.from({ length: j - spanEnd }, (_, k) => spanEnd + k)] : Array.from({ length: j - first }, (_, k) => first + k);
    let inputTokens = 0;
    for (const k of read) inputTokens += r.decisions[k]!.cost_tokens + overhead;
    // The length asked for: the one the objective prefers (pricing.ts `summaryLength`), unless the caller sets it.
    const x = this.priceOf({ start, end, span }, r, rw as Rewrite<unknown>);
    const maxTokens = this.o.maxTokens ?? summaryLength(this.host.pricing, x, this.o.outputCost) - overhead;
    // Priced before the call: an estimated summary of maxTokens, the call's own price included.
    const callCost = this.o.inputCost * inputTokens + this.o.outputCost * maxTokens;
    if (this.host.pricing.enabled && !summaryPays(this.host.pricing, { ...x, summaryTokens: maxTokens + overhead, callCost })) return;
    const id = `summary-${signature.split(':')[0]!}`;
    const job: Job = { id, start, end, signature, span, inputTokens, state: 'pending', done: Promise.resolve() };
    this.jobs.set(signature, job);
    if (this.jobs.size > JOBS_KEPT) this.jobs.delete(this.jobs.keys().next().value!);
    this.next = job;
    const request: SummarizeRequest<M> = { id, messages: read.map((k) => rw.list[k]!), instruction: this.o.instruction, maxTokens, format: this.adapter.name };
    job.done = this.run(job, request, history);
  }

  /**
   * Runs the summariser once; a throw, a rejection, a bad result or the timeout fail the job (the
   * session then cuts, with a warning). A summariser that answers synchronously (a stand-in) is
   * ready at once.
   */
  private run<M>(job: Job, request: SummarizeRequest<M>, history: readonly M[]): Promise<void> {
    const fail = (why: string): void => {
      if (job.state !== 'pending') return;
      job.state = 'failed';
      job.why = why;
      if (this.next === job) this.next = undefined;
      this.warnings.push(`summary_failed: ${why} for messages[${job.start}..${job.end - 1}]: cut instead`);
    };
    const settle = (out: unknown): void => {
      if (job.state !== 'pending') return;
      const message = this.toMessage(out, history);
      if (typeof message === 'string') return fail(message);
      job.message = message;
      job.state = 'ready';
    };
    let out: unknown;
    try {
      out = this.o.summarize(request as SummarizeRequest<unknown>);
    } catch {
      fail('the summariser threw');
      return Promise.resolve();
    }
    if (!isThenable(out)) {
      settle(out);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        fail(`the summariser did not answer within ${this.o.timeoutMs} ms`);
        resolve();
      }, this.o.timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      job.timer = timer as { ref?: () => void };
      const end = (): void => {
        clearTimeout(timer);
        resolve();
      };
      try {
        out.then(
          (value) => {
            settle(value);
            end();
          },
          () => {
            fail('the summariser rejected');
            end();
          },
        );
      } catch {
        fail('the summariser returned a thenable that threw');
        end();
      }
    });
  }

  /** The summariser's answer as a user message of the format, or why it cannot be one. */
  private toMessage(out: unknown, history: readonly unknown[]): unknown {
    let message: unknown;
    if (typeof out === 'string') {
      if (out.trim() === '') return 'the summariser returned empty text';
      const text = SUMMARY_HEADING + out;
      message = this.o.toMessage !== undefined ? this.o.toMessage(text) : userMessage(this.adapter, text, history);
      if (message === undefined) return "the summariser returned text, and the format has no user message to copy (give summary.toMessage)";
    } else message = out;
    try {
      const t = this.adapter.read(message, 0);
      if (t.role !== 'user' || t.calls.length > 0 || t.results.length > 0 || t.text.trim() === '') return 'the summariser returned a message that is not a user message with text';
    } catch {
      return 'the summariser returned a message the format cannot read';
    }
    return message;
  }

  /** The history with `job`'s span replaced by its message; unchanged without one, or when the history no longer has the span. */
  private rewrite<M>(history: readonly M[], job: Job | undefined): Rewrite<M> {
    if (job === undefined) return { list: history, at: -1, job: undefined };
    if (signatureOf(this.adapter, history, job.start, job.end) !== job.signature) {
      if (job === this.applied) {
        this.applied = undefined;
        this.warnings.push(`summary_dropped: the history changed in messages[${job.start}..${job.end - 1}], which summary ${job.id} stands for: left out`);
      }
      return { list: history, at: -1, job: undefined };
    }
    return { list: [...history.slice(0, job.start), job.message as M, ...history.slice(job.start)], at: job.start, job };
  }

  /** Prepared with the summary kept and never the query: the pins and the query are the history's own. */
  private prepared<M>(rw: Rewrite<M>, turn: SessionTurnOptions | undefined): PreparedFit<M> {
    const prep = this.host.prepare(rw.list, turn);
    this.overhead = prep.budget.perFragmentOverhead;
    if (rw.at < 0) return prep;
    const pinned = new Uint8Array(prep.pinned);
    pinned[rw.at] = 1;
    // The task stays with the summary that follows it (a large summary would otherwise push it out of a cut).
    for (let i = afterTask(prep as PreparedFit<unknown>) - 1; i >= 0; i--) pinned[i] = 1;
    // The latest user message (pinned, and the default query) is the history's, not the summary.
    const latest = latestUserMessage(prep.turns.map((t, i) => (i === rw.at ? undefined : t)));
    if (latest >= 0) for (const j of prep.units.members.get(prep.units.unitOf[latest]!)!) pinned[j] = 1;
    const query = prep.query ?? (latest >= 0 ? prep.texts.messages[latest]! : '');
    return { ...prep, pinned, query };
  }

  /** The plan's decisions in the caller's indexes; the summary's own is the report. */
  private report<M>(history: readonly M[], rw: Rewrite<M>, r: SessionFitResult<M>): SessionFitResult<M> {
    const warnings = this.warnings.length > 0 ? [...r.warnings, ...this.warnings.splice(0)] : r.warnings;
    if (rw.job === undefined) return { ...r, warnings, summary: null };
    const job = rw.job;
    const decisions: MessageDecision[] = [];
    let own: MessageDecision | undefined;
    for (const d of r.decisions) {
      if (d.index === rw.at) {
        own = d;
        continue;
      }
      const index = origOf(rw as Rewrite<unknown>, d.index);
      const unit = d.unit === rw.at ? job.start : origOf(rw as Rewrite<unknown>, d.unit);
      // Left out of the span: the summary's (kept in full by a later cut: as planned).
      if (!d.included && index >= job.start && index < job.end) decisions.push({ ...d, index, unit, reason: 'summarized', summary: job.id });
      else decisions.push({ ...d, index, unit });
    }
    let position = 0;
    for (const d of r.decisions) if (d.included && d.index < rw.at) position++;
    const report: SessionSummaryReport = {
      id: job.id,
      replaces: { from: job.start, to: job.end },
      index: position,
      tokens: own?.cost_tokens ?? 0,
      callInputTokens: job.inputTokens,
      callCost: this.o.inputCost * job.inputTokens + this.o.outputCost * (own?.cost_tokens ?? 0),
    };
    return { ...r, decisions, warnings, metrics: { ...r.metrics, candidate_count: history.length }, summary: report };
  }
}
