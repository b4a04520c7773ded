// The inputs the runtime tests plan in each runtime: the agent session (66 fragments) under every
// slicer the planner offers, and bad inputs with the CtxpackError each must raise.
import { readFileSync } from 'node:fs';
import { PLANNER_SLICERS } from 'ctxpack/acs';

const sample = JSON.parse(readFileSync(new URL('../../www/samples/agent-session.json', import.meta.url), 'utf8'));

export const cases = PLANNER_SLICERS.map((slicer) => {
  const options = { slicer, now: Date.parse(sample.now), requestId: `runtime-test-${slicer}` };
  if (slicer === 'count-knapsack' || slicer === 'exact-count') options.countEntries = [{ kind: 'system', requireCount: 2, capCount: 2 }];
  return { fragments: sample.fragments, gaze: sample.gaze, budgets: sample.budgets, options };
});

const good = { id: 'ok', cost_tokens: 10, content: 'fine' };
export const bad = [
  { fragments: [{ id: 'x', cost_tokens: -1 }], gaze: { entities: [] }, budgets: { tokens_max: 10 }, expect: { code: 'INVALID_FIELD', field: 'cost_tokens', index: 0 } },
  { fragments: [good, { id: 'y', cost_tokens: 1.5 }], gaze: { entities: [] }, budgets: { tokens_max: 100 }, expect: { code: 'INVALID_FIELD', field: 'cost_tokens', index: 1 } },
  { fragments: [good, good], gaze: { entities: [] }, budgets: { tokens_max: 100 }, expect: { code: 'DUPLICATE_ID', field: 'id', index: 1 } },
  { fragments: [good], gaze: { entities: [] }, budgets: { tokens_max: 100 }, options: { slicer: 'fast' }, expect: { code: 'INVALID_OPTION', field: 'slicer', index: null } },
];
