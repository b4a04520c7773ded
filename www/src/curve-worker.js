// Computes the plot's data off the main thread, so that the page answers the slider at once
// even when the plot takes a while (a knapsack at 121 budgets). One job at a time; see CurveClient.

import { init, sliceColumns } from '/pkg/dist/index.js';
import { curveBudgets, totalScores } from './curve.js';

const ready = init();

self.onmessage = async ({ data: job }) => {
  try {
    await ready;
    const budgets = curveBudgets(job.budget);
    const totals = totalScores(sliceColumns, job.columns, job.strategy, budgets);
    self.postMessage({ id: job.id, budget: job.budget, budgets, totals });
  } catch (err) {
    const message = err instanceof Error ? err.message + (err.code ? ` (${err.code})` : '') : String(err);
    self.postMessage({ id: job.id, budget: job.budget, error: message });
  }
};
