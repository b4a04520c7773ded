// The "Selected" and "Left out" tables. Thousands of rows would make every budget move relayout
// and repaint thousands of elements, so each table renders only the rows in (and near) its
// scroll window, between two spacer rows that keep the scroll height; rows have a fixed height.
// Screen readers get the full size from aria-rowcount and each row's aria-rowindex.

import { el } from './dom.js';
import * as fmt from './format.js';

/** A reason code (docs/strategies.md: "every item gets exactly one decision") in words. */
export const REASONS = {
  scored: 'chosen by the slicer',
  zero_tokens: 'costs no tokens',
  required: 'required by a count',
  overshoot: 'overshoot allowed',
  no_budget: 'budget is 0',
  budget_exceeded: 'did not fit',
  not_in_optimal_set: 'not in the optimal set',
  count_cap_exceeded: 'kind cap reached',
  skip_limit_reached: 'packer stopped',
  negative_tokens: 'negative tokens',
  group_excluded: 'its group was left out',
  dependency_excluded: 'needs a fragment left out',
};

/** A decision's reason in words; for a group member left out, also why its group was. */
export function reasonText(reason, groupReason) {
  const text = REASONS[reason] ?? reason;
  return reason === 'group_excluded' && groupReason !== undefined ? `${text} (${REASONS[groupReason] ?? groupReason})` : text;
}

/** Row height in rem; style.css gives `table.fragments tbody tr` the same height. */
const ROW_REM = 1.75;
/** Rows rendered above and below the visible ones. */
const OVERSCAN = 10;
const COLUMNS = 8;

/**
 * @typedef {object} Row  One candidate, as the tables show it.
 * @property {string} id
 * @property {number} rank  0 = best
 * @property {string} kind
 * @property {string | undefined} group  The fragment's `group`, when it has one.
 * @property {number} tokens
 * @property {number} score
 * @property {number} benefit
 * @property {string} reason
 * @property {string | undefined} groupReason  For `group_excluded`: why the group was left out.
 * @property {boolean} included
 * @property {string | undefined} version  With variants: the version that went in (its id, or
 *   `variant k`) and its lod; undefined for the full fragment or none.
 */

class VirtualTable {
  /** @param {HTMLTableElement} table  inside a scrolling container */
  constructor(table, emptyText, onChoose) {
    this.table = table;
    this.chosen = null;
    this.body = table.tBodies[0];
    this.scroller = table.parentElement;
    this.emptyText = emptyText;
    /** @type {Row[]} */
    this.rows = [];
    this.span = '';
    this.pending = false;
    // One listener for every row's id button, rendered or not yet.
    this.body.addEventListener('click', (e) => {
      const button = e.target.closest?.('button.pick');
      if (button) onChoose(button.closest('tr').dataset.id);
    });
    this.scroller.addEventListener('scroll', () => {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.render(false);
      });
    });
  }

  /** @param {Row[]} rows */
  setRows(rows) {
    this.rows = rows;
    this.table.setAttribute('aria-rowcount', String(rows.length + 1));
    this.render(true);
  }

  /** Renders the rows in the scroll window; skips the work when nothing in view changed. */
  render(changed) {
    if (this.rows.length === 0) {
      this.span = '';
      this.body.replaceChildren(el('tr', {}, el('td', { colSpan: COLUMNS, className: 'empty' }, this.emptyText)));
      return;
    }
    const rowPx = ROW_REM * parseFloat(getComputedStyle(document.documentElement).fontSize);
    const visible = Math.ceil((this.scroller.clientHeight || 400) / rowPx);
    const first = Math.max(0, Math.min(Math.floor(this.scroller.scrollTop / rowPx), this.rows.length - visible) - OVERSCAN);
    const end = Math.min(this.rows.length, first + visible + 2 * OVERSCAN);
    const span = `${first}:${end}`;
    if (!changed && span === this.span) return;
    this.span = span;
    this.body.replaceChildren(
      spacer(first),
      ...this.rows.slice(first, end).map((r, i) => rowElement(r, first + i, r.id === this.chosen)),
      spacer(this.rows.length - end),
    );
  }
}

function spacer(rows) {
  const tr = el('tr', { className: 'spacer' });
  tr.setAttribute('aria-hidden', 'true');
  tr.style.height = `${rows * ROW_REM}rem`;
  return tr;
}

function rowElement(r, position, chosen) {
  const text = reasonText(r.reason, r.groupReason);
  const reason = el('td', { className: 'reason', title: text, dataset: { reason: r.reason } }, text);
  if (r.groupReason !== undefined) reason.dataset.groupReason = r.groupReason;
  const pick = el('button', { type: 'button', className: 'pick', title: `${r.id}: from which budget it gets in, or drops` }, r.id);
  pick.setAttribute('aria-pressed', String(chosen));
  const tr = el(
    'tr',
    { dataset: { id: r.id }, className: chosen ? 'chosen' : '' },
    el('td', { className: 'num' }, r.rank + 1),
    el('th', { scope: 'row', className: 'id' }, pick, ...(r.version === undefined ? [] : [' ', el('span', { className: 'version', title: `went in as ${r.version}` }, r.version)])),
    el('td', {}, r.kind),
    el('td', { className: 'group', title: r.group ?? '' }, r.group ?? ''),
    el('td', { className: 'num' }, fmt.tokens(r.tokens)),
    el('td', { className: 'num' }, fmt.score(r.score)),
    el('td', { className: 'num' }, fmt.score(r.benefit)),
    reason,
  );
  tr.setAttribute('aria-rowindex', String(position + 2)); // row 1 is the header
  return tr;
}

export class FragmentTables {
  /**
   * @param {HTMLTableElement} selected
   * @param {HTMLTableElement} excluded
   * @param {(id: string) => void} onChoose  A fragment's id button was pressed.
   */
  constructor(selected, excluded, onChoose) {
    this.selected = new VirtualTable(selected, 'Nothing is selected.', onChoose);
    this.excluded = new VirtualTable(excluded, 'Nothing is left out.', onChoose);
  }

  /** Marks the chosen fragment's row (null: none). */
  choose(id) {
    for (const t of [this.selected, this.excluded]) {
      t.chosen = id;
      t.render(true);
    }
  }

  /**
   * Shows a plan: every candidate in rank order, in one table or the other.
   * @param {readonly object[]} fragments
   * @param {readonly import('ctxpack').Decision[]} decisions
   * @param {(fragment: object) => string} kindOf
   */
  show(fragments, decisions, kindOf) {
    /** @type {Row[]} */
    const rows = new Array(decisions.length);
    for (const d of decisions) {
      const f = fragments[d.index];
      // With variants: the version that went in, its tokens and lod.
      const chosen = d.versions?.find((v) => v.status === 'selected');
      const version = chosen === undefined || chosen.variant === null ? undefined : `${d.variant_id ?? `variant ${chosen.variant}`} (${chosen.lod})`;
      rows[d.rank] = {
        id: d.id,
        rank: d.rank,
        kind: kindOf(f),
        group: f.group,
        tokens: chosen?.cost_tokens ?? f.cost_tokens,
        version,
        score: d.score,
        benefit: d.benefit,
        reason: d.reason,
        groupReason: d.group_reason,
        included: d.included,
      };
    }
    this.selected.setRows(rows.filter((r) => r.included));
    this.excluded.setRows(rows.filter((r) => !r.included));
  }
}
