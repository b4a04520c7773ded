// Answers the page's budget questions off the main thread, so that the page answers the slider at
// once even when an answer takes a while (an exact curve over a large corpus, a sampled curve, a
// long chat history replayed). Three kinds of job: 'curve' (the plot's data, see curve.js),
// 'fragment' (one fragment's budgets, see fragment-answer.js) and 'turns' (a chat history replayed
// request by request). One job at a time; see WorkerClient.

import * as main from '/pkg/dist/index.js';
import * as slicers from '/pkg/dist/slicers.js';
import { planCurve } from './curve.js';
import { fragmentAnswer } from './fragment-answer.js';

/** What curve.js and fragment-answer.js call: the slicers and the simulation, beside the front doors. */
const ctxpack = { ...main, ...slicers };
const ready = main.init();

/** A sampled curve that takes longer than this shows its coarse pass first. */
const COARSE_AFTER_MS = 100;

self.onmessage = async ({ data: job }) => {
  try {
    await ready;
    if (job.type === 'curve') {
      const start = performance.now();
      const coarse = (c) => performance.now() - start > COARSE_AFTER_MS && self.postMessage({ id: job.id, partial: true, curve: c }, [c.values.buffer]);
      const curve = planCurve(ctxpack, job.items, job.strategy, job.budget, coarse);
      self.postMessage({ id: job.id, curve }, [curve.values.buffer]);
    } else if (job.type === 'turns') {
      self.postMessage({ id: job.id, ...replayed(job.messages, job.options, job.summarize) });
    } else {
      self.postMessage({ id: job.id, answer: fragmentAnswer(ctxpack, job.items, job.strategy, job.budget, job.fragmentId) });
    }
  } catch (err) {
    const message = err instanceof Error ? err.message + (err.code ? ` (${err.code})` : '') : String(err);
    self.postMessage({ id: job.id, error: message });
  }
};

/** The summarisers a job may name (a function cannot cross to the worker): none calls a model. */
const SUMMARIZERS = { extractive: () => ctxpack.extractiveSummarizer() };

/**
 * replaySession's turns and their totals, and the last request's breakpoints, each with the index
 * in the history of the message it follows (`result.messages` holds the history's own objects).
 * `summarize`: the name of a summariser (SUMMARIZERS), or undefined; it answers at once, so the
 * synchronous replay has its summaries.
 */
function replayed(messages, options, summarize) {
  let last = null;
  if (summarize !== undefined && !Object.hasOwn(SUMMARIZERS, summarize)) throw new Error(`no summariser named ${summarize}`);
  const withSummaries = summarize === undefined ? options : { ...options, summarize: SUMMARIZERS[summarize]() };
  const turns = ctxpack.replaySession(messages, withSummaries, (r) => (last = r));
  const breakpoints = (last?.cache.breakpoints ?? []).map((b) => ({ ...b, message: messages.indexOf(last.messages[b.index]) }));
  return { turns, summary: ctxpack.summarizeReplay(turns), breakpoints };
}
