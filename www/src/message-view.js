// The views of a fitted chat history: the messages in conversation order with the verdict on
// each, the summary, the request as it would be sent, and the metrics. The verdicts are the
// package's (fitMessages); this file only shows them.

import { el } from './dom.js';
import * as fmt from './format.js';

const PREVIEW_CHARS = 140;

/** The tool calls a message makes, by name, in any of the JSON formats. */
function toolCalls(m) {
  const names = [];
  for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) names.push(c?.function?.name ?? c?.name ?? '?');
  for (const p of Array.isArray(m.content) ? m.content : []) {
    if (p?.type === 'tool_use') names.push(p.name ?? '?');
    if (p?.type === 'tool-call') names.push(p.toolName ?? '?');
  }
  return names;
}

/** How many tool results a message carries (a `tool` message is one). */
function toolResults(m) {
  const parts = Array.isArray(m.content) ? m.content.filter((p) => p?.type === 'tool_result' || p?.type === 'tool-result').length : 0;
  return parts > 0 ? parts : m.role === 'tool' ? 1 : 0;
}

/** The message's own words, flattened, for a preview. */
function text(m) {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  return m.content
    .map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : typeof p?.content === 'string' ? p.content : ''))
    .filter((t) => t !== '')
    .join(' ');
}

/** "[2 tool calls: read_file, run_tests] Let me check…": what a person needs to recognise a message. */
export function previewOf(message) {
  if (message === null || typeof message !== 'object') return '';
  const calls = toolCalls(message);
  const results = toolResults(message);
  const tags = [];
  if (calls.length > 0) tags.push(`[${calls.length === 1 ? 'tool call' : `${calls.length} tool calls`}: ${calls.join(', ')}]`);
  if (results > 0) tags.push(results === 1 ? '[tool result]' : `[${results} tool results]`);
  const words = text(message).replace(/\s+/g, ' ').trim();
  const short = words.length > PREVIEW_CHARS ? `${words.slice(0, PREVIEW_CHARS - 1)}…` : words;
  return [...tags, short].filter((s) => s !== '').join(' ');
}

const REASONS = {
  pinned: 'kept by rule',
  scored: 'fits',
  invalid_structure: 'breaks a rule of the format',
  first_not_user: 'must not open the request',
  group_excluded: 'its tool call or result is out',
};

/**
 * One row per input message, in conversation order.
 * @param {HTMLTableSectionElement} tbody
 * @param {readonly object[]} messages
 * @param {import('ctxpack').FitMessagesResult<object>} result
 */
export function renderMessages(tbody, messages, result) {
  tbody.replaceChildren(
    ...result.decisions.map((d) => {
      const m = messages[d.index];
      const reason = REASONS[d.reason] ? `${d.reason} (${REASONS[d.reason]})` : d.reason;
      const unit = d.unit !== undefined && d.unit !== d.index ? `, with #${d.unit}` : '';
      return el(
        'tr',
        { className: d.included ? 'kept' : 'cut', dataset: { index: d.index, included: d.included, reason: d.reason } },
        el('td', { className: 'num' }, d.index),
        el('td', {}, typeof m?.role === 'string' ? m.role : '?'),
        el('td', { className: 'preview', title: previewOf(m) }, previewOf(m)),
        el('td', { className: 'num' }, d.stubbed ? `${fmt.tokens(d.stub_tokens)} of ${fmt.tokens(d.cost_tokens)}` : fmt.tokens(d.cost_tokens)),
        el('td', { className: 'num' }, fmt.score(d.score)),
        el('td', {}, d.stubbed ? 'stub' : d.included ? 'kept' : 'cut'),
        el('td', { title: reason + unit }, reason + unit),
      );
    }),
  );
}

/**
 * @param {HTMLElement} node
 * @param {import('ctxpack').FitMessagesResult<object>} result
 * @param {{ format: string, budget: number }} context
 */
export function renderChatSummary(node, result, { format, budget }) {
  const m = result.metrics;
  const share = m.effective_budget > 0 ? ` (${fmt.percent(m.budget_used / m.effective_budget)})` : '';
  node.textContent =
    `${format}: ${fmt.tokens(m.messages_kept)} of ${fmt.tokens(m.candidate_count)} messages kept, ` +
    `${fmt.tokens(m.budget_used)} of ${fmt.tokens(budget)} tokens${share}; ${fmt.tokens(m.pinned_tokens)} kept by rule ` +
    '(system prompt, the latest user message and after).';
}

/** @param {HTMLDListElement} dl @param {import('ctxpack').FitMessagesMetrics} m */
export function renderChatMetrics(dl, m) {
  const rows = [
    ['messages', `${fmt.tokens(m.messages_kept)} of ${fmt.tokens(m.candidate_count)} kept`],
    ['kept by rule', `${fmt.tokens(m.pinned_tokens)} tokens`],
    ['tokens selected', fmt.tokens(m.tokens_selected)],
    ['budget used', `${fmt.tokens(m.budget_used)} of ${fmt.tokens(m.effective_budget)}`],
    ['prompt tokens', fmt.tokens(m.prompt_tokens)],
    ['planner time', fmt.ms(m.planner_ms)],
  ];
  dl.replaceChildren(...rows.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

/** The request body's context part as the provider would get it: `{ system?, messages }`. */
export function requestJson(result, system) {
  return JSON.stringify(system === undefined ? { messages: result.messages } : { system, messages: result.messages }, null, 2);
}
