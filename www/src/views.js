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
 * @param {{ selected: number, candidates: number, tokens: number, budget: number, totalScore: number, value: number }} s
 *   `value`: the plot's measure, in score units.
 */
export function renderSummary(node, s) {
  const share = s.budget > 0 ? ` (${fmt.percent(s.tokens / s.budget)})` : '';
  node.textContent =
    `${fmt.tokens(s.selected)} of ${fmt.tokens(s.candidates)} fragments selected: ` +
    `${fmt.tokens(s.tokens)} of ${fmt.tokens(s.budget)} tokens${share}, total score ${fmt.score(s.totalScore)}, value ${fmt.score(s.value)}.`;
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

/** A list of ids in words: "a", "a and b", "a, b and 3 more". */
function idList(ids, max = 4) {
  if (ids.length <= 1) return ids.join('');
  if (ids.length <= max) return `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
  return `${ids.slice(0, max - 1).join(', ')} and ${ids.length - max + 1} more`;
}

/** Why the simulation gives no answer for a strategy, in plain words. */
export function whyNotSimulated(code, slicer) {
  switch (code) {
    case 'NOT_MONOTONIC':
      return `${slicer} is count-constrained, and the count-constrained strategies are not monotonic in the budget (more budget can lower their value, and count-knapsack's required fragments can exceed the budget), so the package's budget simulation refuses them.`;
    case 'DEPENDENCIES':
      return "With required dependencies the strategy selects, repairs and extends in rounds, which the package's one-pass budget simulation does not model.";
    case 'TABLE_TOO_LARGE':
      return 'Simulating every budget up to this one would take more memory than the simulation allows.';
    default:
      return code;
  }
}

/**
 * One fragment's budgets (see fragment-answer.js), in words.
 * @param {HTMLElement} node
 * @param {import('./fragment-answer.js').FragmentAnswer} a
 * @param {{ slicer: string, group?: string, groupMembers: string[] }} context  The strategy, and the fragment's group.
 */
export function renderAnswer(node, a, context) {
  const parts = [];
  const others = context.groupMembers.filter((id) => id !== a.id);
  if (context.group !== undefined && others.length > 0) {
    parts.push(`It is in group ${context.group} with ${idList(others)}: they go in together or not at all, so what follows holds for all of them.`);
  }
  if (a.unavailable !== null) {
    parts.unshift(`${a.id}: no budget answer. ${whyNotSimulated(a.unavailable, context.slicer)}`);
  } else if (a.selected) {
    const shrunk = a.shrunkBudget === 0 ? '0, where nothing is selected' : `${fmt.tokens(a.shrunkBudget)} tokens`;
    const leave = a.dropped.filter((id) => id !== a.id);
    let text =
      `${a.id} is selected at ${fmt.tokens(a.budget)} tokens and at every budget down to ${fmt.tokens(a.budget - a.slack + 1)}: ` +
      `it drops if the budget shrinks by ${fmt.tokens(a.slack)} tokens, to ${shrunk}`;
    if (leave.length > 0) text += `; ${idList(leave)} ${leave.length === 1 ? 'leaves' : 'leave'} with it`;
    if (a.added.length > 0) text += `; ${idList(a.added)} ${a.added.length === 1 ? 'comes' : 'come'} in instead`;
    parts.unshift(`${text}.`);
  } else {
    const end = `${fmt.tokens(a.ceiling)} tokens, the end of the plot`;
    let text;
    if (a.stableFrom !== null) {
      text = `${a.id} is left out at ${fmt.tokens(a.budget)} tokens. It gets in from ${fmt.tokens(a.stableFrom)} tokens, and stays in up to ${end}.`;
      if (a.first !== null && a.first < a.stableFrom) {
        text +=
          a.first < a.budget
            ? ` It is also selected at ${fmt.tokens(a.first)} tokens, below the chosen budget: a larger budget lets in fragments that push it out.`
            : ` It is first selected at ${fmt.tokens(a.first)} tokens, but not at every budget between.`;
      }
    } else if (a.first !== null) {
      text = `${a.id} is left out at ${fmt.tokens(a.budget)} tokens. It is selected at ${fmt.tokens(a.first)} tokens, but not at every budget from there up to ${end}.`;
    } else {
      text = `${a.id} is left out at ${fmt.tokens(a.budget)} tokens, and at every budget up to ${end}.`;
    }
    parts.unshift(text);
  }
  node.textContent = parts.join(' ');
  Object.assign(node.dataset, {
    id: a.id,
    budget: String(a.budget),
    selected: String(a.selected),
    unavailable: a.unavailable ?? '',
    slack: String(a.slack ?? ''),
    first: String(a.first ?? ''),
    stableFrom: String(a.stableFrom ?? ''),
  });
}
