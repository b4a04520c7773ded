// Answers the page's budget questions off the main thread, so that the page answers the slider at
// once even when an answer takes a while (an exact curve over a large corpus, a sampled curve).
// Two kinds of job: 'curve' (the plot's data, see curve.js) and 'fragment' (one fragment's
// budgets, see fragment-answer.js). One job at a time; see WorkerClient.

import * as ctxpack from '/pkg/dist/index.js';
import { planCurve } from './curve.js';
import { fragmentAnswer } from './fragment-answer.js';

const ready = ctxpack.init();

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
    } else {
      self.postMessage({ id: job.id, answer: fragmentAnswer(ctxpack, job.items, job.strategy, job.budget, job.fragmentId) });
    }
  } catch (err) {
    const message = err instanceof Error ? err.message + (err.code ? ` (${err.code})` : '') : String(err);
    self.postMessage({ id: job.id, error: message });
  }
};
