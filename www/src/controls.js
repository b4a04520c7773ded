// The input controls: reads them into plain settings, and fills them from a loaded document.

import { byId, el } from './dom.js';
import { kindOf } from './curve.js';

/**
 * @typedef {object} Settings
 * @property {string[]} gaze  Distinct entities, in the order typed.
 * @property {string} query  The chat query as typed; '' means the package's default (the latest user message).
 * @property {boolean} stubToolResults  fitMessages' `stubToolResults`.
 * @property {number} budget  NaN when the number field does not hold a number.
 * @property {import('./strategy.js').Strategy} strategy
 */

/** Gaze entities from "auth, session, login": trimmed, distinct, no empties. */
export function parseGaze(text) {
  return [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
}

export class Controls {
  /** @param {(event: Event) => void} onChange  Called on every input that changes the plan. */
  constructor(onChange) {
    this.gaze = byId('gaze');
    this.query = byId('query');
    this.stubToolResults = byId('stub-tool-results');
    /** 'fragments' or 'messages': which inputs apply to what is loaded. */
    this.mode = 'fragments';
    this.range = byId('budget-range');
    this.budget = byId('budget');
    this.strategy = byId('strategy');
    this.bucketSize = byId('bucket-size');
    this.skipLimit = byId('skip-limit');
    this.overshoot = byId('overshoot');
    this.requireDependencies = byId('require-dependencies');
    this.counts = byId('counts');
    this.entitiesHint = byId('entities-hint');

    this.range.addEventListener('input', (e) => {
      this.budget.value = this.range.value;
      onChange(e);
    });
    this.budget.addEventListener('input', (e) => {
      if (Number.isFinite(this.budget.valueAsNumber)) this.range.value = this.budget.value;
      onChange(e);
    });
    this.strategy.addEventListener('change', (e) => {
      this.showStrategyOptions();
      onChange(e);
    });
    for (const input of [this.gaze, this.query, this.bucketSize, this.skipLimit, this.counts]) input.addEventListener('input', onChange);
    this.overshoot.addEventListener('change', onChange);
    this.stubToolResults.addEventListener('change', onChange);
    this.requireDependencies.addEventListener('change', onChange);
    this.showStrategyOptions();
  }

  /** @returns {Settings} */
  read() {
    return {
      gaze: parseGaze(this.gaze.value),
      query: this.query.value,
      stubToolResults: this.stubToolResults.checked,
      budget: this.budget.valueAsNumber,
      strategy: {
        slicer: this.strategy.value,
        bucketSize: this.bucketSize.valueAsNumber,
        maxConsecutiveSkips: this.skipLimit.valueAsNumber,
        countEntries: [...this.counts.rows]
          .map((row) => ({
            kind: row.dataset.kind,
            requireCount: row.querySelector('.require').valueAsNumber,
            capCount: row.querySelector('.cap').valueAsNumber,
            all: Number(row.dataset.count),
          }))
          // Only the kinds that are constrained: an entry also makes the count strategies refuse
          // groups that hold its kind, and require 0 with a cap of all constrains nothing.
          .filter((e) => !(e.requireCount === 0 && e.capCount >= e.all))
          .map(({ all: _all, ...entry }) => entry),
        allowOvershoot: this.overshoot.checked,
        requireDependencies: this.requireDependencies.checked,
      },
    };
  }

  /**
   * Fits the controls to newly loaded fragments (already validated by the package). The gaze and
   * budget change only when the document carries its own.
   * @param {readonly object[]} fragments
   * @param {{ gaze?: string[], budget?: number }} doc
   */
  setData(fragments, doc) {
    this.setMode('fragments');
    if (doc.gaze !== undefined) this.gaze.value = doc.gaze.join(', ');
    this.setBudgetRange(fragments.reduce((sum, f) => sum + f.cost_tokens, 0), doc.budget);
    this.fillCounts(fragments);
    this.entitiesHint.textContent = entitiesHint(fragments);
  }

  /**
   * Fits the controls to a newly loaded chat history of `total` tokens (counted by the package).
   * @param {number} total
   * @param {{ budget?: number, query?: string }} doc
   */
  setHistory(total, doc) {
    this.setMode('messages');
    this.query.value = doc.query ?? '';
    this.setBudgetRange(total, doc.budget);
  }

  /** The budget range spans what is loaded; the budget is the document's, else kept, else a quarter. */
  setBudgetRange(total, docBudget) {
    const budget = docBudget ?? (Number.isFinite(this.budget.valueAsNumber) ? this.budget.valueAsNumber : Math.round(total / 4));
    this.range.max = String(Math.max(total, budget, 1));
    this.range.value = String(budget);
    this.budget.value = String(budget);
  }

  /** Shows the inputs that apply to fragments or to a chat history. */
  setMode(mode) {
    this.mode = mode;
    for (const node of document.querySelectorAll('[data-mode]')) node.hidden = node.dataset.mode !== mode;
    this.showStrategyOptions();
  }

  /** One row per kind (kinds compare ASCII case-insensitively in the core): require 0, cap = all. */
  fillCounts(fragments) {
    const kinds = new Map();
    for (const f of fragments) {
      const kind = kindOf(f);
      const key = kind.toLowerCase();
      const k = kinds.get(key) ?? { kind, count: 0 };
      k.count++;
      kinds.set(key, k);
    }
    const number = (className, value, label) => el('input', { type: 'number', min: 0, step: 1, value, className, ariaLabel: label });
    this.counts.replaceChildren(
      ...[...kinds.values()]
        .sort((a, b) => (a.kind < b.kind ? -1 : 1))
        .map(({ kind, count }) =>
          el(
            'tr',
            { dataset: { kind, count } },
            el('th', { scope: 'row' }, kind),
            el('td', {}, number('require', 0, `Require at least this many of kind ${kind}`)),
            el('td', {}, number('cap', count, `Cap on kind ${kind}`)),
          ),
        ),
    );
  }

  /** The options of the chosen strategy; fitMessages takes the slicer alone, so none in messages mode. */
  showStrategyOptions() {
    for (const node of document.querySelectorAll('[data-for]')) {
      node.hidden = this.mode === 'messages' || !node.dataset.for.split(' ').includes(this.strategy.value);
    }
  }
}

/** The most frequent entities of the fragments, as a hint for the gaze. */
function entitiesHint(fragments) {
  const counts = new Map();
  for (const f of fragments) for (const e of new Set(f.entities ?? [])) counts.set(e, (counts.get(e) ?? 0) + 1);
  if (counts.size === 0) return 'These fragments name no entities.';
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 24);
  const more = counts.size > top.length ? `, and ${counts.size - top.length} more` : '';
  return `Entities in these fragments (fragments naming them): ${top.map(([e, n]) => `${e} (${n})`).join(', ')}${more}.`;
}
