// The page's logic that needs no browser: reading input, locating JSON errors, the strategy
// mapping and the plot's data, checked against the package in Node.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { selectFragments, sliceColumns, toEpochMs } from '../../pkg/dist/node.js';
import { parseGaze } from '../../www/src/controls.js';
import { curveBudgets, describeCurve, rankedColumns, totalScores } from '../../www/src/curve.js';
import { InputError, parseDocument } from '../../www/src/input.js';
import { locateJsonError } from '../../www/src/json-error.js';
import { SLICERS, plannerOptions } from '../../www/src/strategy.js';

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

  test('names what is wrong, never quoting the text', () => {
    const cases = [
      ['   ', /nothing to read/],
      ['[1, 2', /not valid JSON: at line 1, column 6 \(character 6\) expected ',' or '\]', found the end of the text/],
      ['"SECRET"', /The JSON is a string of length 6, not fragments/],
      ['null', /The JSON is null, not fragments/],
      ['{"SECRET": 1}', /object without "fragments"/],
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
    { kind: 'memory', requireCount: 2, capCount: 3 },
    { kind: 'document', requireCount: 0, capCount: 2 },
  ],
  allowOvershoot: false,
  ...extra,
});

/** The total score of selectFragments' plan, the way the page's table adds it up. */
function plannedTotal(fragments, gaze, budget, s, now = NOW) {
  return selectFragments(fragments, gaze, { tokens_max: budget }, plannerOptions(s, now))
    .decisions.filter((d) => d.included)
    .reduce((sum, d) => sum + d.score, 0);
}

describe('the plot data', () => {
  test('plannerOptions passes each slicer only the options it reads', () => {
    for (const slicer of SLICERS) {
      const plan = selectFragments(session.fragments, session.gaze, session.budgets, plannerOptions(strategy(slicer), NOW));
      assert.deepEqual(plan.warnings.filter((w) => w.includes('ignored')), [], slicer);
    }
  });

  test('curveBudgets spans 0 to twice the budget, with the budget in the middle', () => {
    const b = curveBudgets(6000);
    assert.equal(b.length, 121);
    assert.equal(b[0], 0);
    assert.equal(b[60], 6000);
    assert.equal(b[120], 12000);
    assert.ok(b.every((x, i) => Number.isInteger(x) && (i === 0 || x >= b[i - 1])));
    assert.deepEqual(curveBudgets(0, 5), [0, 1, 1, 2, 2]);
  });

  test('at every budget, the total score is that of selectFragments, for every strategy', () => {
    const budgets = [...curveBudgets(session.budgets.tokens_max, 25), 1, 35, 90, 100_000];
    for (const slicer of SLICERS) {
      const s = strategy(slicer);
      const ranked = selectFragments(session.fragments, session.gaze, session.budgets, plannerOptions(s, NOW));
      const totals = totalScores(sliceColumns, rankedColumns(session.fragments, ranked.decisions), s, budgets);
      budgets.forEach((b, i) => {
        const want = plannedTotal(session.fragments, session.gaze, b, s);
        assert.ok(Math.abs(totals[i] - want) < 1e-9, `${slicer} at ${b}: ${totals[i]} vs ${want}`);
      });
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
    const s = strategy('count-knapsack', {
      bucketSize: 1,
      countEntries: [
        { kind: 'macro', requireCount: 0, capCount: 1 },
        { kind: 'default', requireCount: 2, capCount: 2 },
        { kind: 'tool', requireCount: 1, capCount: 1 },
      ],
    });
    const gaze = { entities: ['x'] };
    const ranked = selectFragments(fragments, gaze, { tokens_max: 100 }, plannerOptions(s, NOW));
    const budgets = [0, 10, 40, 50, 80, 100, 130, 170];
    const totals = totalScores(sliceColumns, rankedColumns(fragments, ranked.decisions), s, budgets);
    budgets.forEach((b, i) => assert.ok(Math.abs(totals[i] - plannedTotal(fragments, gaze, b, s)) < 1e-9, `at ${b}`));
  });

  test('follows the overshoot policy when nothing fits', () => {
    const fragments = [
      { id: 'big', cost_tokens: 5000, entities: ['x'], timestamp: NOW, citations: ['c'] },
      { id: 'bigger', cost_tokens: 9000, entities: [] },
    ];
    const gaze = { entities: ['x'] };
    for (const allowOvershoot of [false, true]) {
      const s = strategy('acs', { allowOvershoot });
      const ranked = selectFragments(fragments, gaze, { tokens_max: 100 }, plannerOptions(s, NOW));
      const budgets = [0, 100, 4999, 5000, 9000];
      const totals = totalScores(sliceColumns, rankedColumns(fragments, ranked.decisions), s, budgets);
      budgets.forEach((b, i) => assert.ok(Math.abs(totals[i] - plannedTotal(fragments, gaze, b, s)) < 1e-12, `${allowOvershoot} at ${b}`));
      assert.equal(totals[1] > 0, allowOvershoot);
    }
  });

  test('describeCurve reads the score at the budget, the peak, and where 99% of it is reached', () => {
    assert.deepEqual(describeCurve([0, 10, 20, 30, 40], [0, 5, 9.95, 10, 10], 20), { atBudget: 9.95, peak: 10, peakAt: 30, enoughAt: 20, end: 40 });
    assert.deepEqual(describeCurve([0, 1, 2], [0, 0, 0], 1), { atBudget: 0, peak: 0, peakAt: 0, enoughAt: 0, end: 2 });
  });
});
