/**
 * `replaySession`: a recorded conversation replayed request by request through a session, with
 * the figures of each turn. The command line's `ctxpack replay` and the benchmark use it.
 *
 * @module
 */

import { CtxpackError, readingInput } from '../errors.js';
import { adapterOf } from '../messages/formats.js';
import { messageArray } from '../messages/validate.js';
import { optionsRecord } from '../validate/options.js';
import { createSession, isRequestEnd } from './session.js';
import type { ReplayTurn, SessionFitResult, SessionOptions } from './types.js';

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
  });
}

/**
 * Replays `history` turn by turn (`requestEnds`) through one new session with `options`; `each`
 * sees every turn's result. Errors are the session's, with `index` the turn's last message.
 */
export function replaySession<M>(history: readonly M[], options: SessionOptions, each?: (result: SessionFitResult<M>, end: number) => void): ReplayTurn[] {
  const o = optionsRecord(options);
  const session = createSession(options);
  const out: ReplayTurn[] = [];
  for (const end of requestEnds(history, o['format'] as SessionOptions['format'])) {
    let r: SessionFitResult<M>;
    try {
      r = session.fit(history.slice(0, end + 1));
    } catch (err) {
      if (!(err instanceof CtxpackError) || err.index !== undefined) throw err;
      throw new CtxpackError(err.code, `${err.message} (at the request after messages[${end}])`, { field: err.field ?? 'messages', index: end, cause: err.cause });
    }
    each?.(r, end);
    out.push({
      turn: out.length + 1,
      historyMessages: end + 1,
      sentMessages: r.messages.length,
      promptTokens: r.metrics.prompt_tokens,
      effectiveBudget: r.metrics.effective_budget,
      prefixTokens: r.cache.prefixTokens,
      predictedCachedTokens: r.cache.predictedCachedTokens,
      predictedCost: r.metrics.predicted_cost,
      cut: r.cache.cut,
    });
  }
  return out;
}
