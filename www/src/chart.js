// The plot of the selection's value against the budget, drawn by uPlot (a small canvas charting
// library: axes, ticks, a cursor readout), with the chosen budget marked by a dashed line. A curve
// known at every budget is drawn as the step function it is, from the budgets where it changes;
// a sampled one as its samples, joined.

import uPlot from '/vendor/uplot/uPlot.esm.js';
import * as fmt from './format.js';

const HEIGHT = 260;
const LINE = '#0072b2';
const MARK = '#d55e00';
const stepped = uPlot.paths.stepped({ align: 1 });
const linear = uPlot.paths.linear();

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
    const axis = { stroke: '#444', grid: { stroke: '#e4e4e4' }, ticks: { stroke: '#ccc' } };
    this.plot = new uPlot(
      {
        width: container.clientWidth || 600,
        height: HEIGHT,
        scales: {
          x: { time: false },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] },
        },
        axes: [
          { ...axis, label: 'Budget (tokens)', values: (_u, splits) => splits.map(fmt.tokens) },
          { ...axis, label: 'Value (score)', size: 60 },
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
    new ResizeObserver(() => {
      if (container.clientWidth > 0) this.plot.setSize({ width: container.clientWidth, height: HEIGHT });
    }).observe(container);
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
    const { ctx } = u;
    ctx.save();
    ctx.strokeStyle = MARK;
    ctx.lineWidth = 2 * uPlot.pxRatio;
    ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.restore();
  }
}
