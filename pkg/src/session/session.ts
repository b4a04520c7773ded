/**
 * `createSession`: `fitMessages` across the turns of one conversation. Counts are cached by
 * content, the request sent last is remembered, and each turn either appends to it (the prompt
 * cache's prefix stays valid) or cuts where the objective of pricing.ts says: docs/sessions.md.
 *
 * @module
 */

import { CtxpackError, readingInput, shownName } from '../errors.js';
import { embedFit, readConcurrency } from '../messages/fit.js';
import { DEFAULT_MAX_VECTORS, embedNeedsAsync } from '../messages/caller.js';
import { FIT_OPTIONS, fitQuery, prepareFit, scoreFit, type PreparedFit, type ScoredFit } from '../messages/pipeline.js';
import { fitProblem, type FitFill } from '../messages/choose.js';
import { countFit, prefillFit } from '../messages/count.js';
import { adapterOf } from '../messages/formats.js';
import { Bm25Memo } from '../messages/relevance.js';
import { HistoryMemo } from '../messages/history.js';
import type { Turn } from '../messages/turns.js';
import { CountCache, textKey } from '../tokens/cache.js';
import { estimateTokens } from '../tokens/counter.js';
import { invalidOption, optionsRecord, readBoolean, readCount, readNonEmptyString, rejectUnknownOptions } from '../validate/options.js';
import { placeBreakpoints } from './breakpoints.js';
import { ANTHROPIC_MAX_MARKERS, firstShortMarker, lastLongMarker, markerTtlAt, messageMarkers, type MarkerTtl } from '../messages/markers.js';
import { cachedTokens, fiveMinutePricing, readPricing, requestCost, writtenPricing, type Pricing } from './pricing.js';
import { cutMargin, questionGives } from './question.js';
import { cutBase, cutFill, planned, type CutBase, type Planned } from './cuts.js';
import { readState, readStateKey } from './state.js';
import { Summaries, type SummaryHost } from './summaries.js';
import type { PreviousRequest, SessionFitResult, SessionOptions, SessionState, SessionStateWarning, SessionTurnOptions } from './types.js';

/** Options that are the session's own; every other one goes to fitMessages each turn. */
/** The options only a session takes (createSession's are these and fitMessages', less its per-call caches and scores). */
const SESSION_OPTIONS = ['cache', 'breakpoints', 'replanOnQuestion', 'counterId', 'maxCachedCounts', 'maxCachedVectors', 'concurrency', 'state', 'stateKey', 'summarize', 'summary'];
/** Every option `createSession` takes. @internal */
export const CREATE_SESSION_OPTIONS: readonly string[] = [...FIT_OPTIONS.filter((k) => k !== 'countCache' && k !== 'embedCache' && k !== 'scores'), ...SESSION_OPTIONS];
/** What a turn may change. */
const TURN_OPTIONS = ['system', 'tools', 'query', 'budgets', 'scores'];
/** The stable head takes at most this share of the budget, so that recent turns keep the rest. */
export const HEAD_SHARE = 0.25;
/** The growth per turn the cuts plan for is the mean of this many last turns. */
const GROWTH_TURNS = 16;

/** A conversation's planner: call `fit` (or `fitAsync`) once per request, with the whole history so far. */
export interface Session {
  /**
   * Fits this turn's history; the counter must be synchronous. What the session read of a message
   * (its text, its count) is kept while the history holds the same object at the same index,
   * unchanged to 5 levels of fields: an edit is noticed whether it replaces the message or
   * changes it in place, from the edit on.
   */
  fit<M>(history: readonly M[], turn?: SessionTurnOptions): SessionFitResult<M>;
  /** Fits this turn's history with a counter that may return a Promise (at most `concurrency` in flight). */
  fitAsync<M>(history: readonly M[], turn?: SessionTurnOptions): Promise<SessionFitResult<M>>;
  /**
   * The state as plain JSON, to pass as `createSession({ ..., state })` to continue. It holds no
   * text, but reveals each text's token count and which messages of the history were sent; without
   * `stateKey` also each text's length, and its keys are a public hash of the texts, from which a
   * short or guessable text (a code, a name, a yes or no) is recovered by hashing candidates: keep
   * such a state as you keep the conversation. With `stateKey` the keys are a keyed hash that
   * only the secret's holder can compute (docs/sessions.md, "What a state reveals").
   */
  exportState(): SessionState;
  /** Why `options.state` was ignored, if it was (written under another `stateKey`); else empty. */
  readonly stateWarnings: readonly SessionStateWarning[];
  /** The count cache: entries, and lookups answered or missed since the session began. */
  readonly countCache: { readonly size: number; readonly hits: number; readonly misses: number };
}

/**
 * Creates a session. Options are `fitMessages`' plus `cache` (`'anthropic'`, `'openai'`, `'none'`
 * or a profile), `breakpoints` (Anthropic: place `cache_control`), `counterId`, `maxCachedCounts`,
 * `concurrency` and `state`. Bad options are `INVALID_OPTION` (budgets `INVALID_BUDGET`), at the
 * first `fit` for those fitMessages reads.
 */
export function createSession(options: SessionOptions): Session {
  return readingInput(() => new ChatSession(options));
}

class ChatSession implements Session {
  private readonly base: Record<string, unknown> = {};
  private readonly pricing: Pricing;
  /** The pricing of the turn planned last: the profile's, or with 5-minute writes when its 1-hour breakpoints are shortened (plan). */
  private turnPricing: Pricing;
  private readonly breakpoints: boolean;
  private readonly counterId: string | null;
  private readonly model: string | null;
  private readonly counts: CountCache;
  /** `embed`'s vectors by content key, across turns: a turn embeds only the texts it has not seen. */
  private readonly vectors: CountCache<Float32Array>;
  /** The message keys of the last turn, with what they were made from (messageKeys). */
  private lastKeys: LastKeys = { turns: [], contentKeys: [], mediaKeys: [], keys: [], stubKeys: [], stubOf: new Int32Array(0), truncated: new Map(), read: -2 };
  /** The turns of the last history: a turn reads only its new or changed messages. */
  private readonly history = new HistoryMemo();
  /** What BM25 read of the texts of the last turn (same query): a turn reads only its new ones. */
  private readonly bm25 = new Bm25Memo();
  private readonly concurrency: number;
  private previous: PreviousRequest | null = null;
  private growth: number[] = [];
  /** `options.replanOnQuestion`: a new question may cut a turn that could append. */
  private readonly replanOnQuestion: boolean;
  /** The last `fitAsync` turn queued: overlapping turns run one after another, in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** `fitAsync` turns queued or running. */
  private pending = 0;
  /** The check value of `stateKey`, written into exported states; undefined without one. */
  private readonly keyCheck: string | undefined;
  readonly stateWarnings: SessionStateWarning[] = [];
  /** Whether the first turn's warnings have said `stateWarnings` yet. */
  private stateWarned = false;
  /** `summarize`: the summaries of what the cuts leave out (summaries.ts). */
  private readonly summaries: Summaries | undefined;

  constructor(options: SessionOptions) {
    const o = optionsRecord(options);
    if (o['countCache'] !== undefined) throw invalidOption('countCache', 'absent (a session keeps its own counts: maxCachedCounts)', o['countCache']);
    if (o['embedCache'] !== undefined) throw invalidOption('embedCache', 'absent (a session keeps its own vectors: maxCachedVectors)', o['embedCache']);
    if (o['scores'] !== undefined) throw invalidOption('scores', 'absent here (one score per message of a history: pass it per turn, session.fit(history, { scores }))', o['scores']);
    // Here rather than at the first fit, with the session's own names among the known ones.
    rejectUnknownOptions(o, CREATE_SESSION_OPTIONS, 'createSession');
    for (const key of Object.keys(o)) if (!SESSION_OPTIONS.includes(key)) this.base[key] = o[key];
    const format = adapterOf(o['format']).name;
    this.pricing = readPricing(o['cache']);
    this.turnPricing = this.pricing;
    this.breakpoints = readBoolean(o, 'breakpoints', false);
    this.replanOnQuestion = readBoolean(o, 'replanOnQuestion', true);
    if (this.breakpoints && (format !== 'anthropic' || this.pricing.maxBreakpoints === 0)) {
      throw invalidOption('breakpoints', "false unless format is 'anthropic' with a cache that has breakpoints", o['breakpoints']);
    }
    const counter = o['countTokens'];
    this.counterId = readNonEmptyString(o, 'counterId') ?? (counter === undefined || counter === estimateTokens ? 'estimateTokens' : null);
    this.model = readNonEmptyString(o, 'model') ?? null;
    const keying = readStateKey(o['stateKey']);
    this.keyCheck = keying?.check;
    this.counts = new CountCache(readCount(o, 'maxCachedCounts', 50_000), keying?.textKey);
    this.vectors = new CountCache<Float32Array>(readCount(o, 'maxCachedVectors', DEFAULT_MAX_VECTORS), keying?.textKey);
    this.concurrency = readConcurrency(o);
    const { state, warning } = o['state'] === undefined ? { state: null } : readState(o['state'], this.keyCheck);
    if (warning !== undefined) this.stateWarnings.push(warning);
    if (o['summarize'] === undefined && o['summary'] !== undefined) throw invalidOption('summary', 'absent without summarize', o['summary']);
    this.summaries = o['summarize'] === undefined ? undefined : new Summaries(o['summarize'], o['summary'], o['format'], this.summaryHost());
    if (state !== null) {
      if (state.counter !== null && state.counter === this.counterId && state.model === this.model) this.counts.import(state.counts, 'state.counts');
      this.previous = state.previous;
      this.growth = state.growth.slice(-GROWTH_TURNS); // only the last GROWTH_TURNS are ever read
    }
  }

  get countCache(): { size: number; hits: number; misses: number } {
    return { size: this.counts.size, hits: this.counts.hits, misses: this.counts.misses };
  }

  fit<M>(history: readonly M[], turn?: SessionTurnOptions): SessionFitResult<M> {
    if (this.pending > 0) {
      throw new CtxpackError('SESSION_BUSY', `fit was called while ${this.pending} fitAsync turn(s) of this session are running: await them first, or use fitAsync`);
    }
    const summaries = this.summaries;
    if (summaries !== undefined) return readingInput(() => summaries.fit(history, turn), history, turn);
    return readingInput(() => {
      const hits = this.counts.hits;
      const misses = this.counts.misses;
      const prep = this.prepare(history, turn);
      if (prep.caller.embed !== undefined) throw embedNeedsAsync('session.fit', 'session.fitAsync', prep.caller.embed);
      return this.plan(countFit(prep, this.counts), hits, misses);
    }, history, turn);
  }

  /**
   * The history and the options are read when called; the turn is planned after every earlier
   * `fitAsync` of this session has finished (in call order), so that it sees their requests and
   * their counts: nothing is counted twice, and the session remembers the latest turn.
   */
  fitAsync<M>(history: readonly M[], turn?: SessionTurnOptions): Promise<SessionFitResult<M>> {
    let prep: PreparedFit<M>;
    try {
      prep = readingInput(() => this.prepare(history, turn), history, turn);
    } catch (err) {
      return Promise.reject(err);
    }
    this.pending++;
    const summaries = this.summaries;
    const list = prep.list;
    const run = this.queue.then(async () => {
      try {
        if (summaries !== undefined) return await summaries.fitAsync(list, turn);
        return await this.fitPrepared(prep);
      } finally {
        this.pending--;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async fitPrepared<M>(prep: PreparedFit<M>, target?: number): Promise<SessionFitResult<M>> {
    const hits = this.counts.hits;
    const misses = this.counts.misses;
    await prefillFit(prep, this.counts, this.concurrency);
    // The hits of the prefill are this turn's; its lookups again in countFit are not.
    const prefillHits = this.counts.hits;
    const embedded = await embedFit(prep, this.vectors);
    return readingInput(() => {
      const counted = countFit(prep, this.counts);
      this.counts.hits = prefillHits;
      return this.plan(counted, hits, misses, embedded, target);
    }, prep.list, prep.options);
  }

  /** What summaries.ts plans through: this session's preparing, counting and planning, and its memory of the previous request. */
  private summaryHost(): SummaryHost {
    const session = this; // the getter's own `this` is the host
    return {
      get pricing(): Pricing {
        return session.turnPricing;
      },
      prepare: (list, turn) => this.prepare(list, turn),
      planSync: (prep, target) => {
        const hits = this.counts.hits;
        const misses = this.counts.misses;
        return this.plan(countFit(prep, this.counts), hits, misses, undefined, target);
      },
      planAsync: (prep, target) => this.fitPrepared(prep, target),
      snapshot: () => ({ previous: this.previous, growth: [...this.growth] }),
      restore: (snapshot) => {
        const s = snapshot as { previous: PreviousRequest | null; growth: number[] };
        this.previous = s.previous;
        this.growth = [...s.growth];
      },
      growth: () => (this.growth.length > 0 ? Math.max(1, this.growth.reduce((a, b) => a + b, 0) / this.growth.length) : undefined),
    };
  }

  exportState(): SessionState {
    return {
      version: 1,
      ...(this.keyCheck === undefined ? {} : { keyCheck: this.keyCheck }),
      counter: this.counterId,
      model: this.model,
      counts: this.counterId === null ? [] : this.counts.export(),
      previous: this.previous === null ? null : structuredClone(this.previous),
      growth: [...this.growth],
    };
  }

  private prepare<M>(history: readonly M[], turn: SessionTurnOptions | undefined): PreparedFit<M> {
    const options = { ...this.base };
    if (turn !== undefined) {
      const t = optionsRecord(turn);
      for (const key of Object.keys(t)) {
        if (!TURN_OPTIONS.includes(key)) throw invalidOption(`turn.${shownName(key)}`, `absent (a turn may change ${TURN_OPTIONS.join(', ')})`, t[key]);
        if (t[key] !== undefined) options[key] = t[key];
      }
    }
    if (options['countTokens'] === undefined) options['countTokens'] = estimateTokens;
    return prepareFit(history, options, [], this.history);
  }

  /** `target`: the size (budget tokens) a cut fills, instead of weighing CUT_SHARES (summaries.ts: a cut with a summary, compared with the cut without it). */
  private plan<M>(counted: ReturnType<typeof countFit<M>>, hits0: number, misses0: number, embedded?: Float64Array, target?: number): SessionFitResult<M> {
    const s = scoreFit(counted, this.bm25, embedded);
    const n = s.list.length;
    const overhead = s.budget.perFragmentOverhead;
    const tokensOf = (i: number): number => s.costs[i]! + overhead;
    const { keys, stubKeys } = this.messageKeys(s);
    const sentKey = (i: number, stub: boolean): string => (stub ? stubKeys[i]! : keys[i]!);
    const sentTokens = (i: number, stub: boolean): number => (stub ? s.stubCosts[s.stubOf[i]!]! + overhead : tokensOf(i));
    /** Whether a remembered entry's `key` is message i's (false), its stub's (true), or neither (undefined). */
    const matchKey = (i: number, key: string): boolean | undefined => (keys[i] === key ? false : stubKeys[i] !== '' && stubKeys[i] === key ? true : undefined);
    const systemKey = headKey(s);
    // The prompt's head, before the messages (the reply's priming, which comes after them, is not in it).
    const baseTokens = s.budget.overheadTokens + (s.texts.system !== undefined ? s.systemCost + s.systemFraming + overhead : 0) + s.toolsCost;
    const budget = s.budget.overheadTokens + s.budget.effective;
    const mismatch = this.previous === null ? undefined : stateMismatch(this.previous, s, matchKey);
    const prev = mismatch === undefined ? this.previous : null;
    const stateWarnings = this.stateWarned ? [] : this.stateWarnings.map((w) => `${w.code.toLowerCase()}: ${w.message}`);
    this.stateWarned = true;
    if (mismatch !== undefined) stateWarnings.push(`state_mismatch: the remembered request does not hold for this history (${mismatch}): planned as a first turn`);
    // Our own cache_control from the previous turn, back in the history if the application sends
    // our output back as its history: removed, so that markers never pile up.
    let ownMarkers: Uint8Array | undefined;
    if (this.breakpoints && prev !== null && prev.breakpoints.length > 0) {
      const own = new Set(prev.breakpoints.map(([before]) => prev.entries[before - 1]?.[1]));
      ownMarkers = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (own.has(keys[i]!) || own.has(stubKeys[i]!)) ownMarkers[i] = 1;
    }
    // A 1-hour profile's breakpoints are written at 5 minutes after a 5-minute marker of the
    // caller's (markers.ts markerTtlAt): the last breakpoint, where a turn writes, always is, so
    // the turn is planned at the 5-minute write price (our own markers from earlier turns aside).
    const wanted: MarkerTtl = this.pricing.ttl === '1h' ? '1h' : '5m';
    const short = (messages: readonly unknown[], skip?: (k: number) => boolean): number =>
      wanted === '1h' && this.pricing.maxBreakpoints > 0 ? firstShortMarker(s.options['tools'], s.options['system'], messages, skip) : Infinity;
    let pricing = short(s.list, ownMarkers === undefined ? undefined : (k) => ownMarkers[k] === 1) === Infinity ? this.pricing : fiveMinutePricing(this.pricing);
    this.turnPricing = pricing;

    // How much of the previous request is still in the history, unchanged.
    const sameSystem = prev !== null && prev.system === systemKey;
    let reusable = 0;
    // The reusable messages the previous request sent as their stub: forced as the stub again.
    const forcedStub = new Uint8Array(n);
    if (sameSystem) {
      while (reusable < prev.entries.length) {
        const [index, key] = prev.entries[reusable]!;
        const stub = index < n ? matchKey(index, key) : undefined;
        if (stub === undefined) break;
        if (stub) forcedStub[index] = 1;
        reusable++;
      }
    }
    if (prev !== null && n > prev.n) {
      let grew = 0;
      for (let i = prev.n; i < n; i++) if (s.broken[i] === 0) grew += tokensOf(i);
      this.growth.push(grew);
      if (this.growth.length > GROWTH_TURNS) this.growth.shift();
    }

    /** The kept messages' common prefix with the previous request: messages, and prompt tokens. */
    const prefixOf = (f: FitFill): { messages: number; tokens: number; cached: number } => {
      if (!sameSystem) return { messages: 0, tokens: 0, cached: 0 };
      let k = 0;
      let tokens = baseTokens;
      for (let i = 0; i < n && k <= prev.entries.length; i++) {
        if (f.included[i] === 0) continue;
        const stub = f.stubbed[i] === 1 && s.stubOf[i]! >= 0;
        if (k >= prev.entries.length || sentKey(i, stub) !== prev.entries[k]![1]) break;
        tokens += sentTokens(i, stub);
        k++;
      }
      const reads = prev.breakpoints.filter(([before]) => before <= k).map(([, t]) => t);
      return { messages: k, tokens, cached: cachedTokens(pricing, tokens, reads) };
    };

    // A new question (the text relevance is measured against is not the previous request's): what
    // it gives value may be worth a cut on a turn that could append.
    const queryKey = this.counts.keyOf(fitQuery(s));
    const newQuestion = this.replanOnQuestion && prev?.query !== undefined && prev.query !== queryKey;

    let chosen: Planned<M> | undefined;
    let cut = false;
    if (!pricing.enabled) chosen = planned(fitProblem(s, { ownMarkers }));
    else {
      const forced = new Uint8Array(n);
      if (sameSystem) for (const [index] of prev.entries) forced[index] = 1;
      /** What every cut of this turn starts from (made once: a new question weighs two cuts). */
      let base: CutBase<M> | undefined;
      const base0 = (): CutBase<M> => (base ??= cutBase(s, prev, sameSystem ? reusable : 0, ownMarkers, forcedStub));
      if (sameSystem && reusable === prev.entries.length && n >= prev.n && unitsWhole(s, forced)) {
        // Append: the previous request as it was, and every new message.
        const eligible = new Uint8Array(n);
        eligible.fill(1, prev.n);
        const a = planned(fitProblem(s, { forced, forcedStub, eligible, ownMarkers }));
        const r = a.fill;
        let allNew = true;
        for (let i = prev.n; i < n && allNew; i++) allNew = r.included[i] === 1 || s.broken[i] === 1;
        // The previous request whole (Responses: a new compaction item leaves out what it stands for: that is a cut).
        const allOld = prev.entries.every(([index]) => r.included[index] === 1);
        if (allNew && allOld && r.budgetUsed <= s.budget.effective) {
          chosen = a;
          const mean = newQuestion && target === undefined ? questionGives(s, r) : undefined;
          if (mean !== undefined) {
            // The cut the objective chooses, and one refilled to the append's size (a swap of what is kept).
            let best = 0;
            for (const size of [undefined, r.budgetUsed]) {
              const c = cutFill(pricing, s, base0(), budget, () => this.growthPerTurn(s), prefixOf, size);
              const net = cutMargin(pricing, s, r, c.fill, mean, prefixOf);
              if (net > best) {
                best = net;
                chosen = c;
                cut = true;
              }
            }
          }
        }
      }
      if (chosen === undefined) {
        chosen = cutFill(pricing, s, base0(), budget, () => this.growthPerTurn(s), prefixOf, target);
        cut = prev !== null;
      }
    }
    const result = chosen.problem.result(chosen.fill);

    // The report, the breakpoints, and what to remember.
    const keptDecisions = result.decisions.filter((d) => d.included);
    const kept = keptDecisions.map((d) => d.index);
    const prefix = prefixOf(chosen.fill);
    const entries: [number, string, number][] = [];
    let tokens = baseTokens;
    // A stubbed message is remembered by its stub's key: the next turn forces the stub, not the whole message.
    for (const d of keptDecisions) {
      tokens += sentTokens(d.index, d.stubbed === true);
      entries.push([d.index, sentKey(d.index, d.stubbed === true), tokens]);
    }
    let head = 0;
    if (prev === null || !sameSystem) {
      // The first head: system messages and the first user message (an agent's task), so that
      // every later cut keeps them and (Anthropic) the request still starts with the user.
      while (head < kept.length && s.turns[kept[head]!]!.role === 'system') head++;
      if (head < kept.length && s.turns[kept[head]!]!.role === 'user' && s.turns[kept[head]!]!.prose && entries[head]![2] <= baseTokens + HEAD_SHARE * s.budget.effective) head++;
    } else if (!cut) head = Math.min(prev.head, entries.length);
    else {
      // After a cut: the common prefix with the previous request, within HEAD_SHARE of the budget.
      while (head < prefix.messages && entries[head]![2] <= baseTokens + HEAD_SHARE * s.budget.effective) head++;
    }
    const positions = this.pricing.maxBreakpoints > 0 ? [entries.length, prefix.messages, head, ...(sameSystem ? prev.breakpoints.map(([b]) => b) : [])] : [];
    // Anthropic's limit counts the markers the caller placed (tools, system prompt, the messages
    // kept) too, in every format that carries them: no breakpoint is planned, remembered or priced
    // that the request cannot carry (the adapters write every one).
    let callerMarkers = s.fixedMarkers;
    for (const m of result.messages) callerMarkers += messageMarkers(s.adapter.name, m);
    // Each breakpoint's lifetime, by the request as sent (the caller's markers on the messages kept).
    const shortAt = short(result.messages);
    const longAt = wanted === '5m' && this.pricing.maxBreakpoints > 0 ? lastLongMarker(result.messages) : -1;
    const placed = placeBreakpoints(
      result.messages,
      positions,
      (before) => (before === 0 ? baseTokens : entries[before - 1]![2]),
      this.pricing,
      this.breakpoints,
      Math.max(0, Math.min(this.pricing.maxBreakpoints, ANTHROPIC_MAX_MARKERS - callerMarkers)),
      (index) => markerTtlAt(wanted, index, shortAt, longAt),
    );
    const changed = placed.breakpoints.filter((b) => b.ttl !== wanted).length;
    const cacheWarnings: string[] = [];
    if (changed > 0 && wanted === '1h') {
      const where = shortAt < 0 ? 'options.tools or options.system' : `messages[${shortAt}] of the request`;
      cacheWarnings.push(
        `cache_ttl_shortened: ${changed} of the session's ${placed.breakpoints.length} breakpoint(s) have ttl '5m', not the profile's '1h': a 5-minute cache_control (on ${where}) comes before them, and Anthropic refuses a 1-hour marker after a 5-minute one; priced as 5-minute writes`,
      );
    } else if (changed > 0) {
      cacheWarnings.push(
        `cache_ttl_lengthened: ${changed} of the session's ${placed.breakpoints.length} breakpoint(s) have ttl '1h', not the profile's '5m': a 1-hour cache_control (on messages[${longAt}] of the request) comes after them, and Anthropic refuses a 1-hour marker after a 5-minute one; Anthropic bills the tokens up to that marker as 1-hour writes either way`,
      );
    }
    // The price of the turn as written: the writes' lifetime is its last breakpoint's, where it writes.
    const last = placed.breakpoints.at(-1);
    if (last !== undefined) pricing = writtenPricing(this.pricing, last.ttl);
    this.turnPricing = pricing;
    this.previous = {
      n,
      system: systemKey,
      entries,
      head,
      breakpoints: placed.breakpoints.map((b) => [b.index + 1, b.tokens]),
      systemTokens: baseTokens,
      promptTokens: result.metrics.prompt_tokens,
      query: queryKey,
    };
    const cost = requestCost(pricing, result.metrics.prompt_tokens, prefix.cached);
    return {
      ...result,
      warnings: stateWarnings.length > 0 || cacheWarnings.length > 0 ? [...stateWarnings, ...result.warnings, ...cacheWarnings] : result.warnings,
      messages: placed.messages,
      metrics: {
        ...result.metrics,
        predicted_cost: cost,
        count_cache_hits: this.counts.hits - hits0,
        count_cache_misses: this.counts.misses - misses0,
      },
      cache: {
        prefixMessages: prefix.messages,
        prefixTokens: prefix.tokens,
        predictedCachedTokens: prefix.cached,
        breakpoints: placed.breakpoints,
        cut,
      },
    };
  }

  /**
   * Each message's key and its stub's ('' without one): a message as sent is whole, or its stub
   * (stubToolResults, stubMedia), which is another message to the prompt cache, with its own key
   * and tokens. The stub depends on the message alone. A message whose turn, content key and
   * media descriptors are the last turn's keeps its keys.
   */
  private messageKeys(s: ScoredFit<unknown>): { keys: string[]; stubKeys: string[] } {
    const n = s.turns.length;
    const last = this.lastKeys;
    const contentKeys = s.textKeys.messages;
    const keyAt = (i: number): void => {
      const t = s.turns[i]!;
      const same = i < last.turns.length && last.turns[i] === t && last.contentKeys[i] === contentKeys[i] && last.mediaKeys[i] === s.mediaKeys[i];
      const k = same ? last.keys[i]! : messageKey(t, contentKeys[i]!, s.mediaKeys[i]!);
      keys[i] = k;
      stubKeys[i] = s.stubOf[i]! < 0 ? '' : same && last.stubKeys[i] !== '' ? last.stubKeys[i]! : textKey(`${k}\u0004stub`);
    };
    // The history read right after the one last keyed: its first `same` messages are those, and
    // so are their keys (a key is its message's alone) but where either turn truncated the
    // message or its stub came or went; the others are compared as above.
    const known = s.history !== undefined && s.history.read === last.read + 1 ? Math.min(s.history.same, n, last.keys.length) : 0;
    const keys = last.keys.slice(0, known);
    const stubKeys = last.stubKeys.slice(0, known);
    keys.length = n;
    stubKeys.length = n;
    for (let i = 0; i < known; i++) {
      if (s.stubOf[i]! < 0) stubKeys[i] = '';
      else if (last.stubOf[i]! < 0) stubKeys[i] = textKey(`${keys[i]!}\u0004stub`);
    }
    for (const cut of [s.truncated, last.truncated]) for (const i of cut.keys()) if (i < known) keyAt(i);
    for (let i = known; i < n; i++) keyAt(i);
    this.lastKeys = { turns: s.turns, contentKeys, mediaKeys: s.mediaKeys, keys, stubKeys, stubOf: s.stubOf, truncated: s.truncated, read: s.history?.read ?? -2 };
    return { keys, stubKeys };
  }

  /** Tokens the history grows by per turn: the mean of the last turns, or before any, the history's tokens per request in it. */
  private growthPerTurn(s: ScoredFit<unknown>): number {
    if (this.growth.length > 0) return Math.max(1, this.growth.reduce((a, b) => a + b, 0) / this.growth.length);
    let tokens = 0;
    let requests = 0;
    for (let i = 0; i < s.turns.length; i++) {
      if (s.broken[i] === 0) tokens += s.costs[i]! + s.budget.perFragmentOverhead;
      if (isRequestEnd(s.turns, i)) requests++;
    }
    return Math.max(1, tokens / Math.max(1, requests));
  }
}

/** The message keys of a turn (messageKeys), with what they were made from: the history read they are of. */
interface LastKeys {
  readonly turns: readonly Turn[];
  readonly contentKeys: readonly string[];
  readonly mediaKeys: readonly string[];
  readonly keys: readonly string[];
  readonly stubKeys: readonly string[];
  readonly stubOf: Int32Array;
  readonly truncated: ReadonlyMap<number, unknown>;
  readonly read: number;
}

/**
 * Why the remembered request cannot be the previous request of this history, or `undefined`
 * when it can. A state from a database may be stale, truncated or edited: reusing it may cost
 * cache reuse, never validity. Checked: its messages in increasing order, within the history,
 * and no tool call or result without the rest of its unit (before the previous history's end,
 * where the whole unit was already there; pinned messages are kept anyway).
 */
function stateMismatch(prev: PreviousRequest, s: ScoredFit<unknown>, matchKey: (i: number, key: string) => boolean | undefined): string | undefined {
  const n = s.list.length;
  const sent = new Uint8Array(n);
  let last = -1;
  for (const [index] of prev.entries) {
    if (index <= last) return 'its messages are not in increasing order';
    last = index;
    if (index < n) sent[index] = 1;
  }
  for (const [index, key] of prev.entries) {
    if (index >= n || matchKey(index, key) === undefined) break; // the history changed from here: not reused
    for (const j of s.units.members.get(s.units.unitOf[index]!)!) {
      if (j < prev.n && sent[j] === 0 && s.pinned[j] === 0 && s.broken[j] === 0) return `messages[${index}] was sent without messages[${j}] of its tool-call unit`;
    }
  }
  return undefined;
}

/** Whether every unit with a `forced` message has all its members forced or pinned (so that forcing splits no tool call from its result). */
function unitsWhole(s: ScoredFit<unknown>, forced: Uint8Array): boolean {
  for (let i = 0; i < forced.length; i++) {
    if (forced[i] === 0) continue;
    for (const j of s.units.members.get(s.units.unitOf[i]!)!) if (forced[j] === 0 && s.pinned[j] === 0 && s.broken[j] === 0) return false;
  }
  return true;
}

/** Whether a request is made after message `i`: a user or tool message followed by the assistant (or by nothing). */
export function isRequestEnd(turns: readonly Turn[], i: number): boolean {
  const role = turns[i]!.role;
  return (role === 'user' || role === 'tool') && (i + 1 === turns.length || turns[i + 1]!.role === 'assistant');
}

/**
 * A message's identity for the prompt cache: role, tool-call ids, the content key and the
 * descriptors of its non-text parts (messages/media.ts: a new screenshot is a new message; a
 * message without any keeps the key it always had).
 */
function messageKey(t: Turn, contentKey: string, mediaKey: string): string {
  const media = mediaKey === '' ? '' : `\u0001${mediaKey}`;
  return textKey(`${t.role}\u0001${t.calls.join('\u0002')}\u0001${t.results.join('\u0002')}\u0001${contentKey}${media}`);
}

/**
 * The key of the prompt's head, what comes before the messages: the system prompt's text key, and
 * the tools' folded in when there are tools (so that changing them invalidates the cached prefix;
 * without tools, the key states have always held).
 */
function headKey(s: ScoredFit<unknown>): string {
  const system = s.textKeys.system ?? '';
  return s.textKeys.tools !== undefined ? textKey(`${system}\u0001${s.textKeys.tools}`) : system;
}
