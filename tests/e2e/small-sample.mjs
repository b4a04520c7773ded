// A small agent session for tests that rerun selectFragments at every budget: few enough
// fragments for that to be quick, and made to reach the edge cases: tool calls grouped with their
// results, dependencies across groups, kinds with count entries, budgets where nothing fits, and
// fragments relevant enough (benefit above 0.9) for the overshoot policy.

const NOW = '2026-11-20T12:00:00.000Z';
const ago = (minutes) => new Date(Date.parse(NOW) - minutes * 60_000).toISOString();

export const SMALL = {
  description: 'A small agent session for the tests.',
  now: NOW,
  gaze: { entities: ['auth', 'session', 'login'] },
  budgets: { tokens_max: 420 },
  /** Count entries that constrain no kind that is grouped (count strategies refuse those). */
  countEntries: [
    { kind: 'memory', requireCount: 1, capCount: 1 },
    { kind: 'document', requireCount: 0, capCount: 1 },
  ],
  fragments: [
    { id: 'sys', kind: 'system', cost_tokens: 130, entities: [], timestamp: ago(120), citations: [], source: 'system' },
    { id: 'turn-1', kind: 'message', cost_tokens: 42, entities: ['auth', 'login'], timestamp: ago(9), citations: [], source: 'chat' },
    { id: 'turn-2', kind: 'message', cost_tokens: 96, entities: ['auth', 'session'], timestamp: ago(8), citations: ['src/auth.ts'], source: 'chat', dependencies: ['turn-1'] },
    { id: 'call-1', kind: 'tool_call', cost_tokens: 31, entities: ['auth'], timestamp: ago(7), citations: [], source: 'tools', group: 'call-1' },
    { id: 'call-1-result', kind: 'tool_result', cost_tokens: 240, entities: ['auth', 'session', 'login'], timestamp: ago(7), citations: ['src/auth.ts', 'src/session.ts'], source: 'tools', group: 'call-1', dependencies: ['call-1'] },
    { id: 'call-2', kind: 'tool_call', cost_tokens: 28, entities: ['session'], timestamp: ago(5), citations: [], source: 'tools', group: 'call-2', dependencies: ['turn-2'] },
    { id: 'call-2-result', kind: 'tool_result', cost_tokens: 75, entities: ['session'], timestamp: ago(5), citations: ['src/session.ts'], source: 'tools', group: 'call-2', dependencies: ['call-2'] },
    { id: 'doc-auth', kind: 'document', cost_tokens: 310, entities: ['auth', 'session', 'login'], timestamp: ago(30), citations: ['docs/auth.md', 'adr-12'], source: 'docs' },
    { id: 'doc-login', kind: 'document', cost_tokens: 150, entities: ['login'], timestamp: ago(60 * 24 * 9), citations: ['docs/login.md'], source: 'docs' },
    { id: 'mem-prefs', kind: 'memory', cost_tokens: 55, entities: [], timestamp: ago(60 * 24 * 20), citations: [], source: 'memory' },
    { id: 'mem-incident', kind: 'memory', cost_tokens: 88, entities: ['login'], timestamp: ago(60 * 24 * 3), citations: ['inc-221'], source: 'memory' },
    { id: 'summary', kind: 'memory', cost_tokens: 64, entities: ['auth', 'session', 'login'], timestamp: ago(60), citations: [], source: 'summary', dependencies: ['turn-2'] },
  ],
};
