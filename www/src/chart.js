// The plot of total score against budget, drawn by uPlot (a small canvas charting library:
// axes, ticks, a cursor readout), with the chosen budget marked by a dashed line.

import uPlot from '/vendor/uplot/uPlot.esm.js';
import * as fmt from './format.js';

const HEIGHT = 260;
const LINE = '#0072b2';
const MARK = '#d55e00';

export class ScoreChart {
  /** @param {HTMLElement} container */
  constructor(container) {
    this.budget = 0;
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
          { ...axis, label: 'Total score', size: 60 },
        ],
        series: [
          { label: 'Budget', value: (_u, v) => (v == null ? '–' : `${fmt.tokens(v)} tokens`) },
          { label: 'Total score', stroke: LINE, width: 2, fill: 'rgba(0, 114, 178, 0.08)', value: (_u, v) => (v == null ? '–' : fmt.score(v)) },
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

  /** @param {{ budgets: number[], totals: number[], budget: number }} data */
  draw({ budgets, totals, budget }) {
    this.budget = budget;
    this.plot.setData([budgets, totals]);
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
