// The page's logic that needs no browser: reading input, locating JSON errors, the strategy
// mapping, the plot's data and the fragment answers, checked against the package in Node: every
// figure the page derives from the budget simulation must equal what selectFragments itself
// selects when rerun at that budget.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import * as main from '../../pkg/dist/node.js';
import * as slicers from '../../pkg/dist/node-slicers.js';
import * as acs from '../../pkg/dist/node-acs.js';
import { parseGaze } from '../../www/src/controls.js';
import { curveBudgets, describeCurve, planCurve, plotPoints, rankedItems } from '../../www/src/curve.js';
import { fragmentAnswer } from '../../www/src/fragment-answer.js';
import { InputError, parseDocument } from '../../www/src/input.js';
import { locateJsonError } from '../../www/src/json-error.js';
import { SLICERS, plannerOptions } from '../../www/src/strategy.js';
import { SMALL } from './small-sample.mjs';

// What the page's worker passes its modules: the front doors and the slicers (curve-worker.js).
const ctxpack = { ...main, ...slicers };
const { selectFragments } = main;
const { toEpochMs } = acs;

const session = JSON.parse(readFileSync(new URL('../../www/samples/agent-session.json', import.meta.url), 'utf8'));
const NOW = toEpochMs(session.now, 'now');

describe('locateJsonError', () => {
  const at = (text) => {
    assert.throws(() => JSON.parse(text), SyntaxError, 'the case must be invalid JSON');
    const { line, column, expected, found } = locateJsonError(text);
    return `${line}:${column} expected ${expected}, found ${found}`;
  };

  test('finds nothing in valid JSON', () => {
    for (const text of ['[]', ' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"]} ', '0', '"s"']) assert.equal(locateJsonError(text), null, text);
  });

  test('names the line, column, what was expected and what was found', () => {
    assert.equal(at(''), '1:1 expected a value, found the end of the text');
    assert.equal(at('[1, 2,]'), "1:7 expected a value, found ']'");
    assert.equal(at('{"a": 1,}'), "1:9 expected a string in double quotes, found '}'");
    assert.equal(at("{'a': 1}"), "1:2 expected a string in double quotes, found '''");
    assert.equal(at('[1 2]'), "1:4 expected ',' or ']', found a digit");
    assert.equal(at('[01]'), "1:3 expected ',' or ']', found a digit");
    assert.equal(at('{"a" 1}'), "1:6 expected ':', found a digit");
    assert.equal(at('[tru]'), "1:5 expected the literal true, found ']'");
    assert.equal(at('[1.]'), "1:4 expected a digit, found ']'");
    assert.equal(at('["a\\x"]'), '1:5 expected an escape: one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u, found a letter');
    assert.equal(at('["\\u12g4"]'), '1:7 expected a hex digit of a \\u escape, found a letter');
    assert.equal(at('["abc'), '1:6 expected a closing double quote, found the end of the text');
    assert.equal(at('["a\nb"]'), '1:4 expected an escape sequence: control characters must be escaped inside strings, found a line break');
    assert.equal(at('[\n  {"id": "x"}\n  {"id": "y"}\n]'), "3:3 expected ',' or ']', found '{'");
    assert.equal(at('[] x'), '1:4 expected the end of the text, found a letter');
  });
});

describe('parseDocument', () => {
  test('reads an array, or an object with fragments and optional gaze, budgets, now, description', () => {
    assert.deepEqual(parseDocument('[{"id": "a", "cost_tokens": 1}]'), {
      kind: 'fragments',
      fragments: [{ id: 'a', cost_tokens: 1 }],
      gaze: undefined,
      budget: undefined,
      now: undefined,
      description: undefined,
    });
    const doc = parseDocument(`\ufeff${JSON.stringify(session)}`);
    assert.equal(doc.fragments.length, session.fragments.length);
    assert.deepEqual(doc.gaze, session.gaze.entities);
    assert.equal(doc.budget, session.budgets.tokens_max);
    assert.equal(doc.now, session.now);
    assert.equal(doc.description, session.description);
  });

  test('reads a chat history: an array of messages, or an object with messages and optional system, format, budgets, query', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    assert.deepEqual(parseDocument(JSON.stringify(messages)), {
      kind: 'messages',
      messages,
      system: undefined,
      format: undefined,
      budget: undefined,
      query: undefined,
      description: undefined,
    });
    const doc = parseDocument(JSON.stringify({ messages, system: 'Be brief.', format: 'anthropic', budgets: { tokens_max: 300 }, query: 'q', description: 'd' }));
    assert.deepEqual(doc, { kind: 'messages', messages, system: 'Be brief.', format: 'anthropic', budget: 300, query: 'q', description: 'd' });
    // An array with one element that is not a message is fragments (and the package says what is wrong).
    assert.equal(parseDocument('[{"role": "user", "content": "x"}, {"id": "a", "cost_tokens": 1}]').kind, 'fragments');
  });

  test('names what is wrong, never quoting the text', () => {
    const cases = [
      ['   ', /nothing to read/],
      ['[1, 2', /not valid JSON: at line 1, column 6 \(character 6\) expected ',' or '\]', found the end of the text/],
      ['"SECRET"', /The JSON is a string of length 6, not fragments/],
      ['null', /The JSON is null, not fragments/],
      ['{"SECRET": 1}', /object without "fragments" or "messages"/],
      ['{"messages": "SECRET"}', /"messages" is a string of length 6, not an array of messages/],
      ['{"messages": []}', /"messages" is empty/],
      ['{"messages": [{"role": "user"}], "format": ["SECRET"]}', /"format" must be a string, got an array of length 1/],
      ['{"messages": [{"role": "user"}], "query": {"SECRET": 1}}', /"query" must be a string, got an object/],
      ['{"messages": [{"role": "user"}], "budgets": {"tokens_max": -1}}', /"budgets.tokens_max" must be a whole number/],
      ['{"fragments": "SECRET"}', /"fragments" is a string of length 6, not an array/],
      ['{"fragments": []}', /"fragments" is empty/],
      ['{"fragments": [{}], "gaze": ["SECRET"]}', /"gaze" must be an object \{ "entities": \[\.\.\.\] \}, got an array of length 1/],
      ['{"fragments": [{}], "gaze": {"entities": ["a", 7]}}', /"gaze.entities\[1\]" must be a string, got 7/],
      ['{"fragments": [{}], "budgets": {"tokens_max": 1.5}}', /"budgets.tokens_max" must be a whole number of tokens, 0 or more, got 1.5/],
      ['{"fragments": [{}], "budgets": {}}', /got missing/],
      ['{"fragments": [{}], "now": {}}', /"now" must be an ISO 8601 time or epoch milliseconds, got an object/],
      ['["SECRET', /expected a closing double quote/],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => parseDocument(text), (err) => err instanceof InputError && message.test(err.message) && !err.message.includes('SECRET'), text);
    }
  });
});

test('parseGaze trims, drops empties and repeats', () => {
  assert.deepEqual(parseGaze(' auth, session,,login , auth ,'), ['auth', 'session', 'login']);
  assert.deepEqual(parseGaze(''), []);
});


const strategy = (slicer, extra = {}) => ({
  slicer,
  bucketSize: 50,
  maxConsecutiveSkips: 2,
  countEntries: [
    { kind: 'memory', requireCount: 1, capCount: 2 },
    { kind: 'document', requireCount: 0, capCount: 1 },
  ],
  allowOvershoot: false,
  requireDependencies: false,
  ...extra,
});

/** The strategies the package simulates, and the count-constrained ones it refuses (NOT_MONOTONIC). */
const SIMULATED = ['ranked', 'greedy', 'knapsack', 'exact', 'packer'];
const COUNTED = ['count-knapsack', 'exact-count'];

/**
 * The value independently of the page's code: the knapsack spec's scaled score, Σ max(0,
 * floor(score × 10000)), of what selectFragments includes at `budget`.
 */
function rerun(doc, budget, s) {
  const plan = selectFragments(doc.fragments, doc.gaze, { tokens_max: budget }, plannerOptions(s, doc.nowMs));
  const included = plan.decisions.filter((d) => d.included);
  return { ids: new Set(included.map((d) => d.id)), value: included.reduce((sum, d) => sum + Math.max(0, Math.floor(d.score * 10000)), 0), plan };
}

/** The page's curve for `doc` at `budget`, from the plan it shows there. */
function pageCurve(doc, budget, s) {
  const shown = selectFragments(doc.fragments, doc.gaze, { tokens_max: budget }, plannerOptions(s, doc.nowMs));
  const items = rankedItems(doc.fragments, shown.decisions);
  return { items, curve: planCurve(ctxpack, items, s, budget) };
}

function withNow(doc) {
  return { ...doc, nowMs: toEpochMs(doc.now, 'now') };
}

const SESSION = withNow(session);
const SMALL_DOC = withNow(SMALL);

describe('the strategies', () => {
  test('the page offers every strategy of selectFragments', () => {
    assert.deepEqual([...SLICERS].sort(), [...acs.PLANNER_SLICERS].sort());
  });

  test('plannerOptions passes each slicer only the options it reads', () => {
    for (const slicer of SLICERS) {
      const plan = selectFragments(session.fragments, session.gaze, session.budgets, plannerOptions(strategy(slicer), NOW));
      assert.deepEqual(plan.warnings.filter((w) => w.includes('ignored')), [], slicer);
    }
  });

  test('exact-count picks its own bucket: its plan is that of selectFragments without a bucketSize', () => {
    const s = strategy('exact-count', { bucketSize: 100 });
    const withoutBucket = { now: NOW, slicer: 'exact-count', allow_overshoot: false, countEntries: s.countEntries };
    const a = selectFragments(session.fragments, session.gaze, session.budgets, plannerOptions(s, NOW));
    const b = selectFragments(session.fragments, session.gaze, session.budgets, withoutBucket);
    assert.deepEqual(a.decisions, b.decisions);
    assert.notDeepEqual(
      a.fragments.map((f) => f.id),
      selectFragments(session.fragments, session.gaze, session.budgets, { ...withoutBucket, bucketSize: 100 }).fragments.map((f) => f.id),
      'a bucket of 100 would change the plan: the check above can fail',
    );
  });
});

describe('the plot data', () => {
  test('curveBudgets spans 0 to twice the budget, with the budget in the middle', () => {
    const b = curveBudgets(6000);
    assert.equal(b.length, 121);
    assert.equal(b[0], 0);
    assert.equal(b[60], 6000);
    assert.equal(b[120], 12000);
    assert.ok(b.every((x, i) => Number.isInteger(x) && (i === 0 || x >= b[i - 1])));
    assert.deepEqual(curveBudgets(0, 5), [0, 1, 1, 2, 2]);
  });

  /**
   * The curve's value at its point `i`: a sampled curve has one per budget; a full one, one per
   * budget from 0, held flat past its last (where everything fits) up to its ceiling.
   */
  const valueOf = (curve, i) => (curve.budgets === null ? curve.values[Math.min(i, curve.values.length - 1)] : curve.values[i]);

  /** Checks the curve at every budget it covers against a rerun; returns the reruns by budget. */
  function checkCurve(doc, budget, s, label) {
    const { curve } = pageCurve(doc, budget, s);
    const budgets = curve.budgets ?? Array.from({ length: curve.ceiling + 1 }, (_, b) => b);
    assert.equal(curve.ceiling, 2 * Math.max(budget, 1), label);
    assert.equal(budgets.at(-1), curve.ceiling, `${label}: the curve ends at twice the budget`);
    const reruns = new Map();
    budgets.forEach((b, i) => {
      const r = rerun(doc, b, s);
      reruns.set(b, r);
      assert.equal(valueOf(curve, i), r.value, `${label} at budget ${b}`);
    });
    return { curve, reruns };
  }

  test('on a small sample, at every budget from 0 to twice the chosen one, the value is that of selectFragments, for every strategy', () => {
    let nothingFits = 0;
    let overshoots = 0;
    for (const slicer of SLICERS) {
      for (const extra of [{}, { allowOvershoot: true }, { maxConsecutiveSkips: 1, allowOvershoot: true }, { maxConsecutiveSkips: 0 }]) {
        const s = strategy(slicer, { countEntries: SMALL.countEntries, ...extra });
        const label = `${slicer} ${JSON.stringify(extra)}`;
        const { curve, reruns } = checkCurve(SMALL_DOC, SMALL.budgets.tokens_max, s, label);
        if (SIMULATED.includes(slicer)) {
          assert.equal(curve.sampled, null, `${label}: simulated, not sampled`);
        } else {
          assert.equal(curve.sampled, 'NOT_MONOTONIC', label);
          assert.equal(curve.values.length, 121, label);
        }
        for (const r of reruns.values()) {
          if (r.plan.warnings.some((w) => /exceeds the effective budget/.test(w))) nothingFits++;
          if (r.plan.decisions.some((d) => d.reason === 'overshoot')) overshoots++;
        }
      }
    }
    assert.ok(nothingFits > 0 && overshoots > 0, `the sample covers budgets where nothing fits (${nothingFits}), and overshoots (${overshoots})`);
  });

  test('with required dependencies the plot is sampled (the simulation refuses them), and still the plan at each budget', () => {
    for (const slicer of SIMULATED) {
      const s = strategy(slicer, { requireDependencies: true, allowOvershoot: true });
      const { curve, reruns } = checkCurve(SMALL_DOC, SMALL.budgets.tokens_max, s, `${slicer} require`);
      assert.equal(curve.sampled, 'DEPENDENCIES', slicer);
      assert.ok([...reruns.values()].some((r) => r.plan.decisions.some((d) => d.reason === 'dependency_excluded')), `${slicer}: dependencies bind somewhere`);
    }
  });

  test('required dependencies that bind nothing leave the plot simulated, and right', () => {
    const doc = { ...SMALL_DOC, fragments: SMALL_DOC.fragments.map(({ dependencies: _d, ...f }) => f) };
    for (const slicer of SIMULATED) {
      const { curve } = checkCurve(doc, 300, strategy(slicer, { requireDependencies: true }), `${slicer} require, no dependencies`);
      assert.equal(curve.sampled, null, slicer);
    }
  });

  test('past the saturation budget (everything fits) the curve stays right', () => {
    // The knapsack's buckets (50 tokens) make its saturation budget the largest.
    const saturation = SMALL.fragments.reduce((t, f) => t + Math.ceil(f.cost_tokens / 50) * 50, 0);
    for (const slicer of SIMULATED) {
      const { curve } = checkCurve(SMALL_DOC, saturation + 137, strategy(slicer), `${slicer} beyond saturation`);
      assert.ok(curve.values.length <= saturation + 1, `${slicer}: simulated only up to where everything fits`);
      assert.ok(valueOf(curve, saturation) > 0, slicer);
    }
  });

  test('on the agent session, the value agrees with selectFragments at the chosen budget and across the range, for every strategy', () => {
    const budget = session.budgets.tokens_max;
    for (const slicer of SLICERS) {
      const s = strategy(slicer, { countEntries: [], allowOvershoot: true });
      const { curve } = pageCurve(SESSION, budget, s);
      const check = curve.budgets ?? [...Array.from({ length: 60 }, (_, i) => i * 199 + 7), budget - 1, budget, budget + 1, curve.ceiling];
      for (const b of check) {
        const i = curve.budgets === null ? b : curve.budgets.indexOf(b);
        assert.equal(valueOf(curve, i), rerun(SESSION, b, s).value, `${slicer} at ${b}`);
      }
      const plan = rerun(SESSION, budget, s);
      assert.equal(describeCurve(curve).atBudget, plan.value, `${slicer}: the value printed at the chosen budget`);
    }
  });

  test('kinds fall back to lod, then to default, as the planner reads them', () => {
    const fragments = [
      { id: 'a', cost_tokens: 40, lod: 'macro', entities: ['x'] },
      { id: 'b', cost_tokens: 40, lod: 'macro', entities: ['x'] },
      { id: 'c', cost_tokens: 40, entities: ['x'] },
      { id: 'd', cost_tokens: 40, kind: 'tool', lod: 'macro' },
      { id: 'e', cost_tokens: 10 },
    ];
    const doc = { fragments, gaze: { entities: ['x'] }, nowMs: NOW };
    for (const slicer of COUNTED) {
      const s = strategy(slicer, {
        bucketSize: 1,
        countEntries: [
          { kind: 'macro', requireCount: 0, capCount: 1 },
          { kind: 'default', requireCount: 2, capCount: 2 },
          { kind: 'tool', requireCount: 1, capCount: 1 },
        ],
      });
      checkCurve(doc, 85, s, slicer);
    }
  });

  test('describeCurve reads the value at the budget, the peak, and where 99% of it is reached', () => {
    assert.deepEqual(describeCurve({ budget: 20, ceiling: 40, budgets: [0, 10, 20, 30, 40], values: [0, 5, 9.95, 10, 10] }), { atBudget: 9.95, peak: 10, peakAt: 30, enoughAt: 20, end: 40 });
    assert.deepEqual(describeCurve({ budget: 1, ceiling: 2, budgets: [0, 1, 2], values: [0, 0, 0] }), { atBudget: 0, peak: 0, peakAt: 0, enoughAt: 0, end: 2 });
    assert.deepEqual(describeCurve({ budget: 3, ceiling: 6, budgets: null, values: Float64Array.of(0, 4, 4, 9, 10, 10) }), { atBudget: 9, peak: 10, peakAt: 4, enoughAt: 4, end: 6 });
    assert.deepEqual(describeCurve({ budget: 9, ceiling: 18, budgets: null, values: Float64Array.of(0, 4, 7) }), { atBudget: 7, peak: 7, peakAt: 2, enoughAt: 2, end: 18 }, 'flat past its last value');
  });

  test('the points drawn as steps give the value at every budget', () => {
    const { curve } = pageCurve(SESSION, 1500, strategy('exact'));
    const { xs, ys, steps } = plotPoints(curve);
    assert.ok(steps && xs.length < curve.values.length / 4, 'only the budgets where the value changes');
    assert.equal(xs.at(-1), curve.ceiling, 'the steps reach the end of the plot');
    for (let b = 0, i = 0; b <= curve.ceiling; b++) {
      while (i + 1 < xs.length && xs[i + 1] <= b) i++;
      assert.equal(Math.round(ys[i] * 10000), valueOf(curve, b), `at ${b}`);
    }
  });
});

describe('the fragment answers', () => {
  /** Which fragments selectFragments includes at every budget from 0 to `ceiling`. */
  function inclusion(doc, s, ceiling) {
    return Array.from({ length: ceiling + 1 }, (_, b) => rerun(doc, b, s).ids);
  }

  function checkAnswers(doc, budget, s, label) {
    const { items } = pageCurve(doc, budget, s);
    const ceiling = 2 * Math.max(budget, 1);
    const at = inclusion(doc, s, ceiling);
    let selected = 0;
    let left = 0;
    for (const id of items.ids) {
      const a = fragmentAnswer(ctxpack, items, s, budget, id);
      const where = `${label}, ${id}: ${JSON.stringify(a)}`;
      assert.equal(a.unavailable, null, where);
      assert.equal(a.selected, at[budget].has(id), where);
      if (a.selected) {
        selected++;
        assert.ok(a.slack >= 1 && a.slack <= budget, where);
        for (let b = budget - a.slack + 1; b <= budget; b++) assert.ok(at[b].has(id), `${where}: selected at ${b}`);
        assert.ok(!at[budget - a.slack].has(id), `${where}: dropped at ${budget - a.slack}`);
        assert.deepEqual(new Set(a.dropped), new Set([...at[budget]].filter((x) => !at[a.shrunkBudget].has(x))), `${where}: what leaves`);
        assert.deepEqual(new Set(a.added), new Set([...at[a.shrunkBudget]].filter((x) => !at[budget].has(x))), `${where}: what comes in`);
      } else {
        left++;
        const first = at.findIndex((ids) => ids.has(id));
        assert.equal(a.first, first === -1 ? null : first, `${where}: first`);
        let stable = null;
        for (let b = ceiling; b >= 0 && at[b].has(id); b--) stable = b;
        assert.equal(a.stableFrom, stable, `${where}: stableFrom`);
      }
    }
    return { selected, left };
  }

  test('for every simulated strategy and every fragment of a small sample, the budgets shown are those of reruns', () => {
    for (const slicer of SIMULATED) {
      for (const extra of [{}, { allowOvershoot: true }]) {
        const { selected, left } = checkAnswers(SMALL_DOC, SMALL.budgets.tokens_max, strategy(slicer, extra), `${slicer} ${JSON.stringify(extra)}`);
        assert.ok(selected > 0 && left > 0, slicer);
      }
      // A budget where nothing fits: the overshoot candidate is the only fragment selected.
      checkAnswers(SMALL_DOC, 20, strategy(slicer, { allowOvershoot: true }), `${slicer} at 20`);
    }
  });

  test('the count-constrained strategies and required dependencies get no answer, with the reason', () => {
    const { items } = pageCurve(SMALL_DOC, 300, strategy('count-knapsack'));
    assert.equal(fragmentAnswer(ctxpack, items, strategy('count-knapsack'), 300, items.ids[0]).unavailable, 'NOT_MONOTONIC');
    const req = strategy('greedy', { requireDependencies: true });
    assert.equal(fragmentAnswer(ctxpack, pageCurve(SMALL_DOC, 300, req).items, req, 300, items.ids[0]).unavailable, 'DEPENDENCIES');
  });
});
