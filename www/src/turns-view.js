// The words beside the per-turn plot of a replayed chat history: one sentence of totals
// (summarizeReplay's) and, with breakpoints, where the last request puts them. The figures are the
// package's; this file only words them.

import * as fmt from './format.js';

/**
 * @param {import('ctxpack').ReplaySummary} s
 * @param {{ budget: number, cache: string }} context
 */
export function turnsSummary(s, { budget, cache }) {
  if (s.requests === 0) return 'The history asks for no reply: there is no request to replay.';
  const cuts = s.cuts === 0 ? 'no cut' : s.cuts === 1 ? '1 cut' : `${fmt.tokens(s.cuts)} cuts`;
  return (
    `${fmt.tokens(s.requests)} requests at ${fmt.tokens(budget)} tokens, cache ${cache}, ${cuts}: ` +
    `${fmt.percent(s.prefixShare)} of the prompt tokens are the previous request's prefix ` +
    `(${fmt.percent(s.ofAppendOnly)} of the append-only bound, ${fmt.percent(s.appendOnlyShare)}), ` +
    `${fmt.percent(s.budgetUse)} of the budget used on average, ` +
    `predicted cost ${fmt.tokens(s.predictedCost)} in uncached-token prices against ${fmt.tokens(s.promptTokens)} prompt tokens.`
  );
}

/** @param {readonly { index: number, tokens: number, message: number }[]} breakpoints */
export function breakpointsText(breakpoints) {
  if (breakpoints.length === 0) return 'The last request has no breakpoint: its prompt is below the minimum cacheable length.';
  const each = [...breakpoints].sort((a, b) => a.index - b.index).map((b) => `after #${b.message} (${fmt.tokens(b.tokens)} tokens)`);
  return `The last request's cache_control breakpoints: ${each.join(', ')}.`;
}
