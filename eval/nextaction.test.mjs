// The next-action support evidence of agent runs (nextaction.mjs), on small hand-made runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentRunCases, identifiers, nextActionSupport } from './nextaction.mjs';

const call = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const step = (...calls) => ({ role: 'assistant', content: null, tool_calls: calls });
const result = (id, content) => ({ role: 'tool', tool_call_id: id, content });

// 0 system, 1 user, 2-3 search, 4-5 read the file the search found, 6 edit using a name from the
// read, 7 result, 8 run the tests by a path said only by the user (no support), 9 result.
const RUN = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'The session TTL is wrong, fix it. Then run tests/auth.' },
  step(call('c1', 'search', { query: 'session ttl' })),
  result('c1', 'src/auth/session.ts:12: const ttl = SESSION_TTL_SECONDS;\ndocs/auth.md:3: sessions last a day'),
  step(call('c2', 'read_file', { path: 'src/auth/session.ts' })),
  result('c2', "import { config } from '../config.js';\nexport const SESSION_TTL_SECONDS = 86400;\nexport function refresh(s) { return s.issuedAt + SESSION_TTL_SECONDS; }"),
  step(call('c3', 'edit_file', { path: 'src/auth/session.ts', find: 's.issuedAt + SESSION_TTL_SECONDS', replace: 'now + SESSION_TTL_SECONDS' })),
  result('c3', 'edited src/auth/session.ts: 1 replacement'),
  step(call('c4', 'run_tests', { path: 'tests' }), call('c5', 'grep', { pattern: 'fix' })),
  result('c4', 'ok 12 tests'),
  result('c5', 'no match'),
];

test('identifiers: paths, code names and long numbers of the arguments, not plain words', () => {
  assert.deepEqual(identifiers('{"path": "src/auth/session.ts"}'), ['src/auth/session.ts']);
  assert.deepEqual(identifiers({ find: 's.issuedAt + SESSION_TTL_SECONDS', n: 86400, flag: 'fix the bug' }), ['86400', 'SESSION_TTL_SECONDS', 's.issuedAt']);
  assert.deepEqual(identifiers({ path: 'tests', n: 6, q: 'session ttl' }), []);
  assert.deepEqual(identifiers({ cmd: 'cat "config/app.yaml", then ls v2beta1;' }), ['config/app.yaml', 'v2beta1']);
  assert.deepEqual(identifiers('not json: getUser()'), ['getUser'], 'arguments that are not JSON are read as text');
});

test('next-action support: the earlier tool results holding an identifier the step uses', () => {
  assert.deepEqual(nextActionSupport(RUN, 2), [], 'the first search uses plain words');
  assert.deepEqual(nextActionSupport(RUN, 4), [3], 'the read opens the path the search found');
  assert.deepEqual(nextActionSupport(RUN, 6), [3, 5], 'the edit uses the path (search, read) and the names the read showed');
  assert.deepEqual(nextActionSupport(RUN, 8), [], 'a path only the user said is not a tool result');
  assert.deepEqual(nextActionSupport(RUN, 1), [], 'a user message makes no call');
  assert.deepEqual(nextActionSupport(RUN, 3), [], 'a tool result makes no call');
});

test('agent-run cases: one per step with support, the history before the step, measured at every step', () => {
  const cases = agentRunCases('runs', 'hand-made', RUN);
  assert.deepEqual(cases.map((c) => [c.name, c.messages.length, c.evidence]), [
    ['hand-made step 4', 4, [3]],
    ['hand-made step 6', 6, [3, 5]],
  ]);
  for (const c of cases) for (const i of c.evidence) assert.ok(i < c.messages.length);
  assert.deepEqual(agentRunCases('runs', 'hand-made', RUN), cases, 'deterministic');
});
