// The page's plots, drawn by uPlot (a small canvas charting library: axes, ticks, a cursor
// readout). ScoreChart: the selection's value against the budget, with the chosen budget marked by
// a dashed line; a curve known at every budget is drawn as the step function it is, from the
// budgets where it changes, a sampled one as its samples, joined. TurnsChart: a replayed chat
// history request by request (replaySession's turns), with the turns that cut marked.

import uPlot from '/vendor/uplot/uPlot.esm.js';
import * as fmt from './format.js';

const HEIGHT = 260;
const LINE = '#0072b2';
const MARK = '#d55e00';
const stepped = uPlot.paths.stepped({ align: 1 });
const linear = uPlot.paths.linear();
const AXIS = { stroke: '#444', grid: { stroke: '#e4e4e4' }, ticks: { stroke: '#ccc' } };

/** Keeps `plot` as wide as `container` (which may be hidden when the plot is made). */
function followWidth(plot, container) {
  new ResizeObserver(() => {
    if (container.clientWidth > 0) plot.setSize({ width: container.clientWidth, height: HEIGHT });
  }).observe(container);
}

/** A dashed line in the mark colour from (x0, y0) to (x1, y1), in canvas pixels. */
function dashed(u, x0, y0, x1, y1) {
  const { ctx } = u;
  ctx.save();
  ctx.strokeStyle = MARK;
  ctx.lineWidth = 2 * uPlot.pxRatio;
  ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
  ctx.restore();
}

/** The last index whose x is at most `x` (the step in force there); `xs` ascending. */
function stepAt(xs, x) {
  let lo = 0;
  let hi = xs.length - 1;
  if (hi < 0) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class ScoreChart {
  /** @param {HTMLElement} container */
  constructor(container) {
    this.budget = 0;
    this.steps = false;
    this.plot = new uPlot(
      {
        width: container.clientWidth || 600,
        height: HEIGHT,
        scales: {
          x: { time: false },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] },
        },
        axes: [
          { ...AXIS, label: 'Budget (tokens)', values: (_u, splits) => splits.map(fmt.tokens) },
          { ...AXIS, label: 'Value (score)', size: 60 },
        ],
        cursor: {
          // On a step function the value under the cursor is the last step's, not the nearest one's.
          dataIdx: (u, _series, closest, x) => (this.steps ? stepAt(u.data[0], x) : closest),
        },
        series: [
          {
            label: 'Budget',
            value: (u, v) => {
              if (v == null) return '–';
              const x = this.steps && u.cursor.left >= 0 ? Math.round(u.posToVal(u.cursor.left, 'x')) : v;
              return `${fmt.tokens(Math.max(0, x))} tokens`;
            },
          },
          {
            label: 'Value',
            stroke: LINE,
            width: 2,
            fill: 'rgba(0, 114, 178, 0.08)',
            paths: (u, ...rest) => (this.steps ? stepped : linear)(u, ...rest),
            points: { show: () => !this.steps },
            value: (_u, v) => (v == null ? '–' : fmt.score(v)),
          },
        ],
        hooks: { draw: [(u) => this.drawBudgetMark(u)] },
      },
      [[], []],
      container,
    );
    followWidth(this.plot, container);
  }

  /** @param {{ xs: ArrayLike<number>, ys: ArrayLike<number>, steps: boolean, budget: number }} data  `ys` in score units. */
  draw({ xs, ys, steps, budget }) {
    this.budget = budget;
    this.steps = steps;
    this.plot.setData([xs, ys]);
  }

  clear() {
    this.plot.setData([[], []]);
  }

  drawBudgetMark(u) {
    if (u.data[0].length === 0) return;
    const x = Math.round(u.valToPos(this.budget, 'x', true));
    dashed(u, x, u.bbox.top, x, u.bbox.top + u.bbox.height);
  }
}

/** The figures plotted per request, in the order of the plot's series after the x. */
export const TURN_SERIES = ['promptTokens', 'prefixTokens', 'predictedCachedTokens', 'predictedCost'];

/** A replayed chat history: per request the prompt, its prefix shared with the previous request, what is predicted cached, and the predicted cost. */
export class TurnsChart {
  /** @param {HTMLElement} container */
  constructor(container) {
    this.cuts = [];
    // The shares are of the request's prompt tokens (series 1).
    const share = (u, v, i) => (v == null ? '–' : `${fmt.tokens(v)} (${u.data[1][i] > 0 ? fmt.percent(v / u.data[1][i]) : '–'})`);
    const line = (label, stroke, value, dash) => ({ label, stroke, width: 2, dash, points: { show: false }, value });
    this.plot = new uPlot(
      {
        width: container.clientWidth || 600,
        height: HEIGHT,
        scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] } },
        axes: [
          { ...AXIS, label: 'Request', values: (_u, splits) => splits.map(fmt.tokens) },
          { ...AXIS, label: 'Tokens', size: 70, values: (_u, splits) => splits.map(fmt.tokens) },
        ],
        series: [
          { label: 'Request', value: (u, v, _s, i) => (v == null ? '–' : `${v}${this.cuts.includes(i) ? ' (cut)' : ''}`) },
          line('Prompt', LINE, (_u, v) => (v == null ? '–' : fmt.tokens(v))),
          line("Previous request's prefix", '#009e73', (u, v, _s, i) => share(u, v, i)),
          line('Predicted cached', '#e69f00', (u, v, _s, i) => share(u, v, i), [4, 3]),
          line('Predicted cost', '#cc79a7', (u, v, _s, i) => share(u, v, i)),
        ],
        hooks: { draw: [(u) => this.drawCuts(u)] },
      },
      [[], [], [], [], []],
      container,
    );
    followWidth(this.plot, container);
  }

  /**
   * @param {readonly import('ctxpack').ReplayTurn[]} turns
   * @returns {number[][]} the data plotted: the turn numbers, then one array per TURN_SERIES
   */
  draw(turns) {
    this.cuts = turns.flatMap((t, i) => (t.cut ? [i] : []));
    this.plot.setData([turns.map((t) => t.turn), ...TURN_SERIES.map((key) => turns.map((t) => t[key]))]);
    return this.plot.data;
  }

  clear() {
    this.cuts = [];
    this.plot.setData([[], [], [], [], []]);
  }

  /** A dashed vertical line at each request that cut the history. */
  drawCuts(u) {
    for (const i of this.cuts) {
      const x = Math.round(u.valToPos(u.data[0][i], 'x', true));
      dashed(u, x, u.bbox.top, x, u.bbox.top + u.bbox.height);
    }
  }
}
