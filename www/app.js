// The context preview page: loads fragments, plans them with the package on every input, and
// shows the plan. The package is the built browser bundle, imported as it ships.

import { CtxpackError, init, selectFragments, toEpochMs } from '/pkg/dist/index.js';
import { ScoreChart } from './src/chart.js';
import { Controls } from './src/controls.js';
import { describeCurve, kindOf, rankedColumns } from './src/curve.js';
import { CurveClient } from './src/curve-client.js';
import { byId, showMessage } from './src/dom.js';
import * as fmt from './src/format.js';
import { FragmentTables } from './src/fragment-table.js';
import { InputError, MAX_INPUT_CHARS, parseDocument } from './src/input.js';
import { plannerOptions } from './src/strategy.js';
import { kindColors, renderBar, renderKvPolicy, renderMetrics, renderSummary, renderWarnings } from './src/views.js';

/**
 * What tests and curious people can read: `lastRenderMs` is the time from the last input event
 * to the updated page (DOM written), `lastPaintMs` to the next frame after it; `plot` is the data
 * the plot shows.
 */
const probe = { updates: 0, lastRenderMs: NaN, lastPaintMs: NaN, plot: null };
window.__ctxpack = probe;

const $ = {
  inputError: byId('input-error'),
  source: byId('source'),
  planError: byId('plan-error'),
  plan: byId('plan'),
  summary: byId('summary'),
  warnings: byId('warnings'),
  bar: byId('bar'),
  legend: byId('bar-legend'),
  kv: byId('kv'),
  metrics: byId('metrics'),
  plotFigure: byId('plot-figure'),
  plotSummary: byId('plot-summary'),
  selectedTitle: byId('selected-title'),
  excludedTitle: byId('excluded-title'),
};

/** The loaded fragments: `{ fragments, now, colors }`, or null before the first load. */
let data = null;
let loads = 0;

const tables = new FragmentTables(byId('selected-table'), byId('excluded-table'));
const chart = new ScoreChart(byId('plot'));
const curves = new CurveClient(showCurve, (message) => showMessage($.plotSummary, `The plot is unavailable: ${message}`));
const controls = new Controls(timedUpdate);

/** A message that names what is wrong and never quotes the input. */
function describeError(err) {
  if (err instanceof InputError) return err.message;
  if (err instanceof CtxpackError) return `${err.message} (${err.code})`;
  return `Unexpected error: ${err instanceof Error ? err.message : String(err)}`;
}

/** Reads a text as fragments and, if the package accepts them, shows their plan. */
function load(text, sourceName) {
  try {
    const doc = parseDocument(text);
    const now = doc.now === undefined ? Date.now() : toEpochMs(doc.now, 'now');
    // Validates every fragment (the package names the field and index of the first problem).
    selectFragments(doc.fragments, { entities: doc.gaze ?? [] }, { tokens_max: 0 }, { now });
    data = { fragments: doc.fragments, now, colors: kindColors(doc.fragments.map(kindOf)) };
    controls.setData(doc.fragments, doc);
    showMessage($.inputError, '');
    $.source.textContent =
      `${sourceName}: ${fmt.tokens(doc.fragments.length)} fragments, planned at ${new Date(now).toISOString()}.` +
      (doc.description ? ` ${doc.description}` : '');
    timedUpdate();
  } catch (err) {
    showMessage($.inputError, `${sourceName} was not loaded: ${describeError(err)}`);
  }
}

/** Runs `read` and loads its text, unless a newer load started meanwhile. */
async function loadFrom(sourceName, read) {
  const id = ++loads;
  let text;
  try {
    text = await read();
  } catch (err) {
    if (id === loads) showMessage($.inputError, `${sourceName} could not be read: ${describeError(err)}`);
    return;
  }
  if (id === loads) load(text, sourceName);
}

function loadSample(path) {
  return loadFrom(path.split('/').pop(), async () => {
    const response = await fetch(path);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.text();
  });
}

function loadFile(file) {
  if (file.size > MAX_INPUT_CHARS) {
    showMessage($.inputError, `${file.name} was not loaded: it is ${fmt.tokens(file.size)} bytes; at most ${fmt.tokens(MAX_INPUT_CHARS)}.`);
    return;
  }
  loadFrom(file.name, () => file.text());
}

/** Plans with the current settings and shows the result; records how long that took. */
function timedUpdate(event) {
  const start = event?.timeStamp ?? performance.now(); // same clock as performance.now()
  update();
  const end = performance.now();
  probe.updates++;
  probe.lastRenderMs = end - start;
  probe.lastPaintMs = NaN;
  performance.measure('ctxpack:update', { start, end });
  requestAnimationFrame(() => setTimeout(() => (probe.lastPaintMs = performance.now() - start)));
}

function update() {
  if (data === null) return;
  const settings = controls.read();
  let plan;
  try {
    plan = selectFragments(data.fragments, { entities: settings.gaze }, { tokens_max: settings.budget }, plannerOptions(settings.strategy, data.now));
  } catch (err) {
    showMessage($.planError, `No plan for these settings: ${describeError(err)}`);
    $.plan.hidden = true;
    return;
  }
  showMessage($.planError, '');
  $.plan.hidden = false;

  tables.show(data.fragments, plan.decisions, kindOf);

  const totalScore = plan.decisions.reduce((sum, d) => (d.included ? sum + d.score : sum), 0);
  const byKind = new Map();
  for (const f of plan.fragments) byKind.set(kindOf(f), (byKind.get(kindOf(f)) ?? 0) + f.cost_tokens);
  const summary = { selected: plan.fragments.length, candidates: data.fragments.length, tokens: plan.metrics.tokens_selected, budget: settings.budget, totalScore };
  renderSummary($.summary, summary);
  renderWarnings($.warnings, plan.warnings);
  renderBar($.bar, $.legend, { budget: settings.budget, byKind, colors: data.colors });
  renderKvPolicy($.kv, plan.kvPolicy);
  renderMetrics($.metrics, plan.metrics);
  $.selectedTitle.textContent = `Selected (${fmt.tokens(summary.selected)})`;
  $.excludedTitle.textContent = `Left out (${fmt.tokens(summary.candidates - summary.selected)})`;

  // The plot re-runs only the slicer, over this plan's ranking (which may depend on the strategy).
  curves.request({ columns: rankedColumns(data.fragments, plan.decisions), strategy: settings.strategy, budget: settings.budget });
}

function showCurve(result) {
  if (result.error !== undefined) {
    chart.clear();
    probe.plot = null;
    showMessage($.plotSummary, `The plot could not be computed: ${result.error}`);
    return;
  }
  chart.draw(result);
  probe.plot = { budget: result.budget, budgets: result.budgets, totals: result.totals };
  $.plotFigure.dataset.budget = String(result.budget);
  const c = describeCurve(result.budgets, result.totals, result.budget);
  $.plotSummary.textContent =
    `At the chosen ${fmt.tokens(result.budget)} tokens the total score is ${fmt.score(c.atBudget ?? 0)}. ` +
    `From 0 to ${fmt.tokens(c.end)} tokens it peaks at ${fmt.score(c.peak)} (from ${fmt.tokens(c.peakAt)} tokens); ` +
    `99% of that peak is reached at ${fmt.tokens(c.enoughAt)} tokens.`;
}

function wireInputs() {
  const sample = byId('sample');
  sample.addEventListener('change', () => loadSample(sample.value));
  byId('paste-load').addEventListener('click', () => load(byId('paste').value, 'The pasted JSON'));
  const file = byId('file');
  file.addEventListener('change', () => {
    if (file.files[0]) loadFile(file.files[0]);
    file.value = '';
  });
  const drop = byId('drop');
  // A file dropped anywhere else must not make the browser navigate away from the page.
  for (const type of ['dragover', 'drop']) window.addEventListener(type, (e) => e.preventDefault());
  drop.addEventListener('dragover', () => drop.classList.add('over'));
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    drop.classList.remove('over');
    const dropped = e.dataTransfer?.files[0];
    if (dropped) loadFile(dropped);
    else showMessage($.inputError, 'Nothing was loaded: drop a .json file.');
  });
  return sample;
}

const sample = wireInputs();
try {
  await init();
  await loadSample(sample.value);
} catch (err) {
  showMessage($.inputError, `The ctxpack package could not start: ${describeError(err)}`);
}
