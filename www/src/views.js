// The plan's smaller views: the summary line, warnings, the budget bar, the KV policy and the
// planner metrics. Each takes the elements to fill and plain data.

import { el } from './dom.js';
import * as fmt from './format.js';

/** Okabe–Ito colours (distinguishable with the common colour-vision deficiencies), then greys. */
const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#555555', '#999999'];

/** A stable colour per kind: the kinds of the loaded fragments, sorted. */
export function kindColors(kinds) {
  return new Map([...new Set(kinds)].sort().map((kind, i) => [kind, PALETTE[i % PALETTE.length]]));
}

/**
 * @param {HTMLElement} node
 * @param {{ selected: number, candidates: number, tokens: number, budget: number, totalScore: number }} s
 */
export function renderSummary(node, s) {
  const share = s.budget > 0 ? ` (${fmt.percent(s.tokens / s.budget)})` : '';
  node.textContent =
    `${fmt.tokens(s.selected)} of ${fmt.tokens(s.candidates)} fragments selected: ` +
    `${fmt.tokens(s.tokens)} of ${fmt.tokens(s.budget)} tokens${share}, total score ${fmt.score(s.totalScore)}.`;
}

/** @param {HTMLUListElement} list @param {readonly string[]} warnings */
export function renderWarnings(list, warnings) {
  list.replaceChildren(...warnings.map((w) => el('li', {}, w)));
  list.hidden = warnings.length === 0;
}

/**
 * The budget as a bar, filled left to right by the selected tokens of each kind. When the
 * selection exceeds the budget (count requirements, overshoot) the bar spans the selection and
 * a mark shows where the budget ends.
 * @param {HTMLElement} bar
 * @param {HTMLUListElement} legend
 * @param {{ budget: number, byKind: Map<string, number>, colors: Map<string, string> }} data
 */
export function renderBar(bar, legend, { budget, byKind, colors }) {
  const used = [...byKind.values()].reduce((a, b) => a + b, 0);
  const scale = Math.max(budget, used, 1);
  const kinds = [...byKind.keys()].sort();
  const segments = kinds.map((kind) => {
    const seg = el('span', { className: 'segment', title: `${kind}: ${fmt.tokens(byKind.get(kind))} tokens` });
    seg.style.width = `${(100 * byKind.get(kind)) / scale}%`;
    seg.style.background = colors.get(kind) ?? PALETTE.at(-1);
    return seg;
  });
  if (used > budget) {
    const mark = el('span', { className: 'budget-mark' });
    mark.style.left = `${(100 * budget) / scale}%`;
    segments.push(mark);
  }
  bar.replaceChildren(...segments);
  const free = budget - used;
  const parts = kinds.map((kind) => `${kind} ${fmt.tokens(byKind.get(kind))} tokens`);
  parts.push(free >= 0 ? `${fmt.tokens(free)} unused` : `${fmt.tokens(-free)} over the budget`);
  bar.setAttribute('aria-label', `${fmt.tokens(budget)}-token budget: ${parts.join(', ')}`);

  const item = (color, text) => {
    const swatch = el('span', { className: 'swatch' });
    if (color) swatch.style.background = color;
    return el('li', {}, swatch, text);
  };
  legend.replaceChildren(
    ...kinds.map((kind) => item(colors.get(kind), `${kind} ${fmt.tokens(byKind.get(kind))}`)),
    item(undefined, free >= 0 ? `unused ${fmt.tokens(free)}` : `over by ${fmt.tokens(-free)}`),
  );
}

/** @param {HTMLDListElement} dl @param {[string, Node | string][]} rows */
function fillList(dl, rows) {
  dl.replaceChildren(...rows.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

/** @param {HTMLDListElement} dl @param {import('ctxpack').KVPolicy} kv */
export function renderKvPolicy(dl, kv) {
  const ids = (list) => (list.length === 0 ? el('span', { className: 'none' }, 'none') : el('span', { className: 'ids' }, list.join(', ')));
  fillList(dl, [
    [`pin (${kv.pin.length})`, ids(kv.pin)],
    [`compress (${kv.compress.length})`, ids(kv.compress)],
    [`evict (${kv.evict.length})`, ids(kv.evict)],
  ]);
}

/** @param {HTMLDListElement} dl @param {import('ctxpack').PlannerMetrics} m */
export function renderMetrics(dl, m) {
  const kv = m.kv_cache_stats;
  fillList(dl, [
    ['candidates', fmt.tokens(m.candidate_count)],
    ['tokens selected', fmt.tokens(m.tokens_selected)],
    ['gaze coverage', fmt.percent(m.coverage_entities)],
    ['source diversity', fmt.score(m.diversity_score)],
    ['mean benefit', fmt.score(m.mean_benefit)],
    ['top 3', m.top3_fragment_ids.map((id, i) => `${id} (${fmt.score(m.top3_scores[i])})`).join(', ') || 'none'],
    ['KV cache', `${kv.hits} hits, ${kv.misses} misses, ${kv.evictions} evictions (hit rate ${fmt.percent(m.cache_hit_rate)})`],
    ['planner time', fmt.ms(m.planner_ms)],
    ['request id', m.request_id],
  ]);
}
