// The words beside the per-turn plot of a replayed chat history: one sentence of totals
// (summarizeReplay's), with breakpoints where the last request puts them, and with summaries the
// summary each request carries. The figures are the package's; this file only words them.

import { el } from './dom.js';
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
    `predicted cost ${fmt.tokens(s.predictedCost)} in uncached-token prices against ${fmt.tokens(s.promptTokens)} prompt tokens.` +
    (s.summaries === undefined ? '' : ` ${summariesText(s)}`)
  );
}

/** With summaries: how many, in how many requests, and what their calls add to the cost. */
function summariesText(s) {
  if (s.summaries === 0) return 'No summary was made: none paid for itself at these prices, or nothing was cut.';
  const made = s.summaries === 1 ? '1 summary' : `${fmt.tokens(s.summaries)} summaries`;
  return `${made} made, in ${fmt.tokens(s.summarizedRequests)} requests; their calls cost ${fmt.tokens(s.summaryCallCost)}, so the replay costs ${fmt.tokens(s.costWithSummaries)} with them.`;
}

/**
 * One row per request that carries a summary: the request, the summary's id, the history's
 * messages it stands for, its tokens, and its call's cost where it is first sent ("resent" after).
 * @param {HTMLTableSectionElement} tbody
 * @param {readonly import('ctxpack').ReplayTurn[]} turns
 */
export function renderSummaryRows(tbody, turns) {
  const rows = [];
  for (const t of turns) {
    const s = t.summary;
    if (!s) continue;
    rows.push(
      el(
        'tr',
        { dataset: { turn: String(t.turn) } },
        el('td', { className: 'num' }, fmt.tokens(t.turn)),
        el('td', {}, s.id),
        el('td', {}, `#${s.replaces.from}–#${s.replaces.to - 1}`),
        el('td', { className: 'num' }, fmt.tokens(s.tokens)),
        el('td', { className: 'num' }, s.first ? fmt.tokens(s.callCost) : 'resent'),
      ),
    );
  }
  tbody.replaceChildren(...rows);
  return rows.length;
}

/** @param {readonly { index: number, tokens: number, message: number }[]} breakpoints */
export function breakpointsText(breakpoints) {
  if (breakpoints.length === 0) return 'The last request has no breakpoint: its prompt is below the minimum cacheable length.';
  const each = [...breakpoints].sort((a, b) => a.index - b.index).map((b) => `after #${b.message} (${fmt.tokens(b.tokens)} tokens)`);
  return `The last request's cache_control breakpoints: ${each.join(', ')}.`;
}
