// The context preview page: loads fragments or a chat history, plans them with the package on
// every input (selectFragments, fitMessages), and shows the plan; a chat history is also replayed
// request by request (replaySession, in a worker, when the history, budget, cache or summariser changes). The package is the built browser
// bundle, imported as it ships.

import { CtxpackError, defaultCacheFor, detectMessageFormat, fitMessages, init, selectFragments } from '/pkg/dist/index.js';
import { toEpochMs } from '/pkg/dist/acs.js';
import { ScoreChart, TurnsChart } from './src/chart.js';
import { Controls } from './src/controls.js';
import { SAMPLED_POINTS, VALUE_SCALE, describeCurve, kindOf, plotPoints, rankedItems, scaledValue } from './src/curve.js';
import { WorkerClient } from './src/curve-client.js';
import { byId, showMessage } from './src/dom.js';
import * as fmt from './src/format.js';
import { FragmentTables } from './src/fragment-table.js';
import { InputError, MAX_INPUT_CHARS, parseDocument } from './src/input.js';
import { renderChatMetrics, renderChatSummary, renderMessages, requestJson } from './src/message-view.js';
import { plannerOptions } from './src/strategy.js';
import { breakpointsText, renderSummaryRows, turnsSummary } from './src/turns-view.js';
import { kindColors, renderAnswer, renderBar, renderKvPolicy, renderMetrics, renderSummary, renderWarnings, whyNotSimulated } from './src/views.js';

/**
 * What tests and curious people can read: `lastRenderMs` is the time from the last input event
 * to the updated page (DOM written), `lastPaintMs` to the next frame after it; `plan` counts the
 * plans shown; `plot` is the data the plot shows (`plan`: the plan it belongs to; `values`: the
 * scaled value at each budget, see curve.js) and `answer` the fragment answer shown. For a chat
 * history `chat` is what the page asked fitMessages (`format`, `options` without the messages) and
 * the verdicts it shows; `turns` is the replay shown (`job`: its number; `options`: what the page
 * asked replaySession; `summarize`: the summariser it named, or undefined; `turns`, `summary`,
 * `breakpoints`: what it answered; `plotted`: the plot's data; `summaryRows`: the rows of the
 * summaries' table; or `error`).
 */
const probe = { updates: 0, plan: 0, lastRenderMs: NaN, lastPaintMs: NaN, plot: null, answer: null, chat: null, turns: null };
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
  plotNote: byId('plot-note'),
  detail: byId('detail'),
  detailText: byId('detail-text'),
  selectedTitle: byId('selected-title'),
  excludedTitle: byId('excluded-title'),
  chat: byId('chat'),
  chatSummary: byId('chat-summary'),
  chatWarnings: byId('chat-warnings'),
  chatRows: byId('chat-table').tBodies[0],
  chatRequest: byId('chat-request'),
  chatMetrics: byId('chat-metrics'),
  turnsCache: byId('turns-cache'),
  turnsFigure: byId('turns-figure'),
  turnsSummary: byId('turns-summary'),
  turnsBreakpoints: byId('turns-breakpoints'),
  turnsSummarize: byId('turns-summarize'),
  turnsSummariesBox: byId('turns-summaries-box'),
  turnsSummaries: byId('turns-summaries').tBodies[0],
};

/**
 * What is loaded, or null before the first load: fragments `{ kind: 'fragments', fragments, now,
 * colors }` or a chat history `{ kind: 'messages', messages, system, format }`.
 */
let data = null;
let loads = 0;
/** What the budget questions need of the plan shown: `{ id, items, strategy, budget }`. */
let shown = null;
/** The fragment whose budgets are shown (its id), or null. */
let chosen = null;
/** Whether the plan shown let shorter versions in (the plot does not model them). */
let variantsInUse = false;
const VARIANTS_NOTE =
  'The plot and the budget answers take every fragment at its full size: the budget simulation does not model shorter versions; the plan and the tables do.';
/** What the last replay was asked for: `{ data, budget, cache, choice }` (choice: the summaries selector's), or null. */
let replayed = null;

const tables = new FragmentTables(byId('selected-table'), byId('excluded-table'), choose);
const chart = new ScoreChart(byId('plot'));
const curves = new WorkerClient(showCurve, (message) => showMessage($.plotSummary, `The plot is unavailable: ${message}`));
const answers = new WorkerClient(showAnswer, (message) => showMessage($.detailText, `No answer: ${message}`));
const controls = new Controls(timedUpdate);
const turnsChart = new TurnsChart(byId('turns-plot'));
/** Made at the first chat history: a worker of its own, so that a long replay holds up nothing else. */
let replays = null;

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
    if (doc.kind === 'messages') {
      loadHistory(doc, sourceName);
      return;
    }
    const now = doc.now === undefined ? Date.now() : toEpochMs(doc.now, 'now');
    // Validates every fragment (the package names the field and index of the first problem).
    selectFragments(doc.fragments, { entities: doc.gaze ?? [] }, { tokens_max: 0 }, { now });
    data = { kind: 'fragments', fragments: doc.fragments, withoutVariants: withoutVariants(doc.fragments), now, colors: kindColors(doc.fragments.map(kindOf)) };
    byId('variants-toggle').hidden = data.withoutVariants === doc.fragments;
    choose(null);
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

/** Loads a chat history: the package detects its format (unless it says) and checks every message. */
function loadHistory(doc, sourceName) {
  const format = doc.format ?? detectMessageFormat(doc.messages, { system: doc.system });
  const history = { kind: 'messages', messages: doc.messages, system: doc.system, format };
  // Validates and counts every message: with an unbounded budget nothing is cut.
  const all = fitMessages(doc.messages, chatOptions(history, { budget: Number.MAX_SAFE_INTEGER, query: '', strategy: { slicer: 'ranked' } }));
  data = history;
  byId('variants-toggle').hidden = true;
  // The provider the history's format is written for (as `ctxpack replay` defaults).
  $.turnsCache.value = defaultCacheFor(format);
  choose(null);
  controls.setHistory(all.metrics.tokens_selected, doc);
  showMessage($.inputError, '');
  $.source.textContent =
    `${sourceName}: ${fmt.tokens(doc.messages.length)} ${format} messages, ${fmt.tokens(all.metrics.tokens_selected)} tokens (estimated).` +
    (doc.description ? ` ${doc.description}` : '');
  timedUpdate();
}

/** fitMessages options for the page's settings: the slicer alone, and the query when one is typed. */
function chatOptions(history, settings) {
  const o = { format: history.format, budgets: { tokens_max: settings.budget }, slicer: settings.strategy.slicer };
  if (history.system !== undefined) o.system = history.system;
  if (settings.query.trim() !== '') o.query = settings.query;
  if (settings.stubToolResults) o.stubToolResults = true;
  return o;
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

/** The fragments without their `variants` (the same array when none has any), for the toggle. */
function withoutVariants(fragments) {
  if (!fragments.some((f) => f.variants !== undefined)) return fragments;
  return fragments.map(({ variants, ...f }) => f);
}

function update() {
  if (data === null) return;
  const settings = controls.read();
  if (data.kind === 'messages') {
    updateChat(settings);
    return;
  }
  $.chat.hidden = true;
  const fragments = byId('variants').checked ? data.fragments : data.withoutVariants;
  variantsInUse = fragments !== data.withoutVariants;
  let plan;
  try {
    plan = selectFragments(fragments, { entities: settings.gaze }, { tokens_max: settings.budget }, plannerOptions(settings.strategy, data.now));
  } catch (err) {
    showMessage($.planError, `No plan for these settings: ${describeError(err)}`);
    $.plan.hidden = true;
    shown = null;
    curves.cancelWaiting();
    answers.cancelWaiting();
    return;
  }
  showMessage($.planError, '');
  $.plan.hidden = false;

  tables.show(data.fragments, plan.decisions, kindOf);

  let totalScore = 0;
  let value = 0; // the plot's measure: each score rounded down to 4 decimals, added exactly
  for (const d of plan.decisions) {
    if (!d.included) continue;
    totalScore += d.score;
    value += scaledValue(d.score);
  }
  const byKind = new Map();
  for (const d of plan.decisions) {
    if (!d.included) continue;
    const f = data.fragments[d.index];
    // With variants, the tokens of the version that went in.
    const tokens = d.versions?.find((v) => v.status === 'selected')?.cost_tokens ?? f.cost_tokens;
    byKind.set(kindOf(f), (byKind.get(kindOf(f)) ?? 0) + tokens);
  }
  const summary = {
    selected: plan.fragments.length,
    candidates: data.fragments.length,
    tokens: plan.metrics.tokens_selected,
    budget: settings.budget,
    totalScore,
    value: value / VALUE_SCALE,
  };
  renderSummary($.summary, summary);
  renderWarnings($.warnings, plan.warnings);
  renderBar($.bar, $.legend, { budget: settings.budget, byKind, colors: data.colors });
  renderKvPolicy($.kv, plan.kvPolicy);
  renderMetrics($.metrics, plan.metrics);
  $.selectedTitle.textContent = `Selected (${fmt.tokens(summary.selected)})`;
  $.excludedTitle.textContent = `Left out (${fmt.tokens(summary.candidates - summary.selected)})`;

  // The plot and the fragment answers come from the budget simulation over this plan's ranking
  // (which may depend on the strategy), in workers.
  shown = { id: ++probe.plan, items: rankedItems(data.fragments, plan.decisions), strategy: settings.strategy, budget: settings.budget };
  curves.request({ type: 'curve', plan: shown.id, items: shown.items, strategy: shown.strategy, budget: shown.budget });
  askAnswer();
}

/** Fits the chat history with the current settings and shows the messages in conversation order. */
function updateChat(settings) {
  $.plan.hidden = true;
  shown = null;
  curves.cancelWaiting();
  answers.cancelWaiting();
  const options = chatOptions(data, settings);
  let result;
  try {
    result = fitMessages(data.messages, options);
  } catch (err) {
    showMessage($.planError, `No request for these settings: ${describeError(err)}`);
    $.chat.hidden = true;
    probe.chat = null;
    return;
  }
  showMessage($.planError, '');
  $.chat.hidden = false;
  renderChatSummary($.chatSummary, result, { format: data.format, budget: settings.budget });
  renderWarnings($.chatWarnings, result.warnings);
  renderMessages($.chatRows, data.messages, result);
  $.chatRequest.textContent = requestJson(result, data.system);
  renderChatMetrics($.chatMetrics, result.metrics);
  probe.chat = { plan: ++probe.plan, format: data.format, options, decisions: result.decisions };
  askTurns(settings);
}

/** The summariser's prices of "a small model": gpt-4o-mini's, in gpt-4o's uncached input tokens (as docs/sessions.md). */
const SMALL_MODEL = { inputCost: 0.06, outputCost: 0.24 };

/**
 * Replays the history through a session, unless the history, budget, cache and summaries are those
 * of the last replay (the query does not matter: each request measures against its own latest user
 * message). With summaries the worker gives the session extractiveSummarizer (a function does not
 * cross to a worker: the job names it).
 */
function askTurns(settings) {
  const cache = $.turnsCache.value;
  const choice = $.turnsSummarize.value;
  const summarize = choice === 'none' ? undefined : 'extractive';
  if (replayed !== null && replayed.data === data && replayed.budget === settings.budget && replayed.cache === cache && replayed.choice === choice) return;
  replayed = { data, budget: settings.budget, cache, choice };
  const { format, system, budgets } = chatOptions(data, settings);
  const options = system === undefined ? { format, budgets, cache } : { format, system, budgets, cache };
  if (choice === 'small') options.summary = { ...SMALL_MODEL };
  replays ??= new WorkerClient(showTurns, (message) => showMessage($.turnsSummary, `The replay is unavailable: ${message}`));
  replays.request({ type: 'turns', messages: data.messages, options, summarize });
  $.turnsFigure.setAttribute('aria-busy', 'true');
}

function showTurns(result, job) {
  $.turnsFigure.removeAttribute('aria-busy');
  const { budgets, cache } = job.options;
  if (result.error !== undefined) {
    turnsChart.clear();
    showMessage($.turnsSummary, `No replay at ${fmt.tokens(budgets.tokens_max)} tokens: ${result.error}`);
    showMessage($.turnsBreakpoints, '');
    renderSummaryRows($.turnsSummaries, []);
    $.turnsSummariesBox.hidden = true;
    probe.turns = { job: job.id, options: job.options, summarize: job.summarize, error: result.error };
    return;
  }
  const plotted = turnsChart.draw(result.turns);
  showMessage($.turnsSummary, turnsSummary(result.summary, { budget: budgets.tokens_max, cache }));
  showMessage($.turnsBreakpoints, cache === 'anthropic' && result.turns.length > 0 ? breakpointsText(result.breakpoints) : '');
  const summaryRows = renderSummaryRows($.turnsSummaries, result.turns);
  $.turnsSummariesBox.hidden = summaryRows === 0;
  $.turnsFigure.dataset.job = String(job.id);
  probe.turns = { job: job.id, options: job.options, summarize: job.summarize, turns: result.turns, summary: result.summary, breakpoints: result.breakpoints, plotted, summaryRows };
}

function showCurve(result, job) {
  if (result.error !== undefined) {
    chart.clear();
    probe.plot = null;
    showMessage($.plotSummary, `The plot could not be computed: ${result.error}`);
    showMessage($.plotNote, '');
    return;
  }
  const { curve } = result;
  chart.draw({ ...plotPoints(curve), budget: curve.budget });
  if (result.partial) {
    showMessage($.plotNote, `Sampling ${job.strategy.slicer} at ${fmt.tokens(SAMPLED_POINTS)} budgets: ${fmt.tokens(curve.values.length)} so far…`);
    return;
  }
  probe.plot = { plan: job.plan, slicer: job.strategy.slicer, ...curve };
  $.plotFigure.dataset.budget = String(curve.budget);
  $.plotFigure.dataset.plan = String(job.plan);
  const c = describeCurve(curve);
  const v = (x) => fmt.score(x / VALUE_SCALE);
  showMessage(
    $.plotSummary,
    `At the chosen ${fmt.tokens(curve.budget)} tokens the value is ${v(c.atBudget ?? 0)}. ` +
      `From 0 to ${fmt.tokens(c.end)} tokens it peaks at ${v(c.peak)} (from ${fmt.tokens(c.peakAt)} tokens); ` +
      `99% of that peak is reached at ${fmt.tokens(c.enoughAt)} tokens.`,
  );
  const sampledNote =
    curve.sampled === null
      ? ''
      : `This curve is sampled: ${job.strategy.slicer} ran separately at ${fmt.tokens(curve.values.length)} budgets, and between them the value may differ. ` +
          whyNotSimulated(curve.sampled, job.strategy.slicer);
  showMessage($.plotNote, [variantsInUse ? VARIANTS_NOTE : '', sampledNote].filter(Boolean).join(' '));
}

/** Shows (or, with null, hides) one fragment's budgets. */
function choose(id) {
  chosen = id;
  tables.choose(id);
  $.detail.hidden = id === null;
  probe.answer = null;
  if (id !== null) {
    $.detailText.textContent = `${id}: working out its budgets…`;
    askAnswer();
  }
}

function askAnswer() {
  if (chosen === null || shown === null) return;
  if (!shown.items.ids.includes(chosen)) {
    choose(null);
    return;
  }
  answers.request({ type: 'fragment', plan: shown.id, items: shown.items, strategy: shown.strategy, budget: shown.budget, fragmentId: chosen });
}

function showAnswer(result, job) {
  if (job.fragmentId !== chosen) return; // another fragment was chosen meanwhile
  if (result.error !== undefined) {
    showMessage($.detailText, `${job.fragmentId}: no answer: ${result.error}`);
    return;
  }
  const group = data.fragments.find((f) => f.id === chosen)?.group;
  const groupMembers = group === undefined ? [] : data.fragments.filter((f) => f.group === group).map((f) => f.id);
  renderAnswer($.detailText, result.answer, { slicer: job.strategy.slicer, group, groupMembers });
  $.detailText.dataset.plan = String(job.plan);
  probe.answer = { plan: job.plan, ...result.answer };
}

function wireInputs() {
  byId('detail-close').addEventListener('click', () => choose(null));
  byId('variants').addEventListener('change', timedUpdate);
  $.turnsCache.addEventListener('change', () => data?.kind === 'messages' && !$.chat.hidden && askTurns(controls.read()));
  $.turnsSummarize.addEventListener('change', () => data?.kind === 'messages' && !$.chat.hidden && askTurns(controls.read()));
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
