// A misspelt option or budget is named with the known name it is closest to, so a typo such as
// `budget` for `budgets` or `tokensMax` for `tokens_max` is one glance to fix; names that are
// nothing like a known one get no hint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitMessages, createSession } from 'ctxpack';

const history = [{ role: 'user', content: 'hello there' }];
const fails = (f, field, hint) =>
  assert.throws(f, (e) => e.code === 'INVALID_OPTION' && e.field === field && (hint === undefined ? !e.message.includes('did you mean') : e.message.endsWith(`did you mean ${hint}?`)));

test('fitMessages options: case, separators and one letter off are hinted', () => {
  fails(() => fitMessages(history, { format: 'openai', budget: { tokens_max: 100 } }), 'budget', 'budgets');
  fails(() => fitMessages(history, { format: 'openai', budgets: { tokens_max: 100 }, count_tokens: () => 1 }), 'count_tokens', 'countTokens');
  fails(() => fitMessages(history, { format: 'openai', budgets: { tokens_max: 100 }, StubToolResult: true }), 'StubToolResult', 'stubToolResults');
  fails(() => fitMessages(history, { format: 'openai', budgets: { tokens_max: 100 }, zz: 1 }), 'zz');
});

test('session options are hinted the same way', () => {
  fails(() => createSession({ format: 'openai', budgets: { tokens_max: 100 }, breakpoint: true }), 'breakpoint', 'breakpoints');
  // Two letters swapped are one edit, as a typist makes them.
  fails(() => createSession({ format: 'openai', budgets: { tokens_max: 100 }, cahce: 'openai' }), 'cahce', 'cache');
  fails(() => createSession({ format: 'openai', budgets: { tokens_max: 100 }, sytsem: 'x' }), 'sytsem', 'system');
});

test('relevance weights are hinted, and the known ones listed', () => {
  const budgets = { tokens_max: 100 };
  fails(() => fitMessages(history, { format: 'openai', budgets, relevance: { neighbor: 0.2 } }), 'relevance.neighbor', 'neighbour');
  fails(() => fitMessages(history, { format: 'openai', budgets, relevance: { recency_turns: 10 } }), 'relevance.recency_turns', 'recencyTurns');
  fails(() => fitMessages(history, { format: 'openai', budgets, relevance: { zz: 1 } }), 'relevance.zz');
  assert.throws(() => fitMessages(history, { format: 'openai', budgets, relevance: { zz: 1 } }), (e) => e.message.includes('known: k1, b, neighbour'));
});
