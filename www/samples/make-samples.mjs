// Writes the bundled samples, deterministically (a fixed seed and a fixed clock):
//   agent-session.json   a coding agent's session: 66 fragments of every kind
//   large-corpus.json    1,200 fragments shaped like a retrieval-heavy context
//   agent-session-variants.json   the agent session, its tool results and long documents with a
//                        summary and a one-line stub (docs/variants.md)
// Run: node www/samples/make-samples.mjs
import { writeFileSync } from 'node:fs';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;
let seed = 0x9e3779b9;
function rand() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const some = (xs, k) => xs.filter(() => rand() < k / xs.length);
const iso = (hoursAgo) => new Date(NOW - hoursAgo * HOUR).toISOString();

const ENTITIES = ['auth', 'session', 'login', 'jwt', 'refresh-token', 'rate-limit', 'postgres', 'redis', 'billing', 'webhook', 'ci', 'deploy'];

function agentSession() {
  const f = [];
  const add = (x) => f.push(x);
  add({ id: 'sys-prompt', kind: 'system', lod: 'macro', cost_tokens: 820, entities: [], timestamp: iso(2), citations: [], source: 'system',
    content: 'You are a careful coding agent working in the acme/api repository. Follow the style guide.' });
  add({ id: 'tool-schemas', kind: 'system', lod: 'macro', cost_tokens: 1450, entities: [], timestamp: iso(2), citations: [], source: 'system',
    content: 'Tools: read_file, grep, run_tests, edit_file, open_pr.' });
  add({ id: 'mem-user-prefs', kind: 'memory', lod: 'macro', cost_tokens: 180, entities: ['ci'], timestamp: iso(24 * 9), citations: ['profile'], source: 'memory',
    content: 'The user prefers small PRs and wants tests run before every commit.' });
  add({ id: 'mem-auth-decision', kind: 'memory', lod: 'macro', cost_tokens: 260, entities: ['auth', 'jwt', 'session'], timestamp: iso(24 * 20), citations: ['adr-0012'], source: 'memory',
    content: 'ADR-0012: sessions moved from server-side storage to signed JWTs with refresh tokens.' });
  add({ id: 'mem-incident', kind: 'memory', lod: 'micro', cost_tokens: 340, entities: ['rate-limit', 'login', 'redis'], timestamp: iso(24 * 3), citations: ['inc-221'], source: 'memory',
    content: 'Incident 221: login storms exhausted the redis rate limiter.' });
  const topics = [
    ['auth', 'login'], ['session', 'jwt'], ['refresh-token', 'session'], ['rate-limit', 'login'], ['postgres'], ['billing', 'webhook'], ['ci'], ['deploy', 'ci'],
  ];
  let turn = 0;
  for (let t = 0; t < 16; t++) {
    const ents = topics[t % topics.length];
    const hoursAgo = 1.5 - t * 0.09;
    add({ id: `turn-${String(++turn).padStart(2, '0')}-user`, kind: 'message', lod: 'atomic', cost_tokens: 40 + Math.floor(rand() * 160), entities: ents, timestamp: iso(hoursAgo), citations: [], source: 'chat',
      content: `User asks about ${ents.join(' and ')}.` });
    add({ id: `turn-${String(turn).padStart(2, '0')}-assistant`, kind: 'message', lod: 'micro', cost_tokens: 120 + Math.floor(rand() * 420), entities: ents, timestamp: iso(hoursAgo - 0.02), citations: some(['src/auth.ts', 'docs/auth.md'], 0.6), source: 'chat',
      dependencies: [`turn-${String(turn).padStart(2, '0')}-user`], content: `Assistant explains ${ents.join(', ')}.` });
    if (t % 2 === 0) {
      const call = `tool-call-${String(t / 2 + 1).padStart(2, '0')}`;
      add({ id: call, kind: 'tool_call', lod: 'atomic', cost_tokens: 30 + Math.floor(rand() * 60), entities: ents, timestamp: iso(hoursAgo - 0.03), citations: [], source: 'tools',
        group: call, content: `grep -rn "${ents[0]}" src/` });
      add({ id: `${call}-result`, kind: 'tool_result', lod: 'micro', cost_tokens: 300 + Math.floor(rand() * 2200), entities: some(ENTITIES, 2).concat(ents), timestamp: iso(hoursAgo - 0.035), citations: [`src/${ents[0]}.ts`], source: 'tools',
        group: call, dependencies: [call], content: `Matches for ${ents[0]} in 14 files.` });
    }
  }
  const docs = [
    ['doc-auth-guide', ['auth', 'login', 'session'], 1800, 'docs'],
    ['doc-jwt-rotation', ['jwt', 'refresh-token'], 1100, 'docs'],
    ['doc-rate-limits', ['rate-limit', 'redis'], 950, 'docs'],
    ['doc-postgres-pool', ['postgres'], 1300, 'wiki'],
    ['doc-billing-webhooks', ['billing', 'webhook'], 1600, 'wiki'],
    ['doc-deploy-runbook', ['deploy', 'ci'], 2400, 'wiki'],
    ['doc-session-store', ['session', 'redis'], 700, 'code'],
    ['doc-login-handler', ['login', 'auth', 'rate-limit'], 1250, 'code'],
    ['doc-refresh-handler', ['refresh-token', 'jwt', 'session'], 900, 'code'],
    ['doc-api-overview', ['auth', 'billing', 'postgres'], 3000, 'docs'],
    ['doc-changelog', ['deploy'], 600, 'docs'],
    ['doc-security-policy', ['auth', 'jwt'], 1400, 'wiki'],
  ];
  for (const [id, ents, cost, source] of docs) {
    add({ id, kind: 'document', lod: rand() < 0.3 ? 'macro' : 'micro', cost_tokens: cost, entities: ents, timestamp: iso(24 * (1 + rand() * 40)), citations: some(['https://intranet/acme/' + id, 'git:acme/api'], 1.2), source, content: `Retrieved document ${id}.` });
  }
  add({ id: 'summary-earlier-session', kind: 'memory', lod: 'macro', cost_tokens: 520, entities: ['auth', 'session', 'jwt', 'login'], timestamp: iso(5), citations: [], source: 'summary',
    content: 'Summary of the earlier session: the agent traced the logout bug to stale refresh tokens.' });
  return f;
}

function largeCorpus(n) {
  const kinds = ['message', 'tool_result', 'document', 'memory', 'tool_call'];
  const sources = ['chat', 'tools', 'docs', 'wiki', 'code', 'memory', 'web'];
  const out = [];
  for (let i = 0; i < n; i++) {
    // log-normal token counts with a median near 300
    const u1 = rand() || 1e-9, u2 = rand();
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    const cost = Math.max(1, Math.min(16000, Math.round(300 * Math.exp(0.9 * z))));
    const kind = pick(kinds);
    out.push({
      id: `frag-${String(i).padStart(4, '0')}`,
      kind,
      lod: pick(['macro', 'micro', 'micro', 'atomic']),
      cost_tokens: cost,
      entities: some(ENTITIES, 2.2),
      timestamp: iso(rand() * 24 * 60),
      citations: some(['a', 'b', 'c'], 0.8).map((c) => `ref-${c}-${i}`),
      source: pick(sources),
      content: `Synthetic ${kind} fragment ${i}.`,
    });
  }
  return out;
}

/**
 * The session with shorter versions: every tool result and every micro document of 900 tokens or
 * more gets a summary (an eighth of its tokens, lod macro) and a stub (lod atomic) naming what was
 * left out. No random draws: the other samples stay as they were.
 */
function withVariants(fragments) {
  return fragments.map((f) => {
    const long = f.kind === 'tool_result' || (f.kind === 'document' && f.lod === 'micro' && f.cost_tokens >= 900);
    if (!long) return f;
    const what = f.kind === 'tool_result' ? 'tool result' : 'document';
    return {
      ...f,
      variants: [
        { id: 'summary', cost_tokens: Math.ceil(f.cost_tokens / 8), lod: 'macro', content: `Summary of ${f.id}: the key lines only.` },
        { id: 'stub', cost_tokens: 12, lod: 'atomic', content: `[${what} omitted: ${f.cost_tokens.toLocaleString('en-US')} tokens]` },
      ],
    };
  });
}

const here = new URL('.', import.meta.url);
const session = agentSession();
writeFileSync(new URL('agent-session.json', here), JSON.stringify({
  description: 'A coding agent session: system prompt and tool schemas, chat turns, tool calls with their results, retrieved documents and memories.',
  now: new Date(NOW).toISOString(),
  gaze: { entities: ['auth', 'session', 'login'] },
  budgets: { tokens_max: 6000 },
  fragments: session,
}, null, 2) + '\n');
writeFileSync(new URL('agent-session-variants.json', here), JSON.stringify({
  description: 'The coding agent session with a summary and a one-line stub for every tool result and long document: at most one version of each goes in.',
  now: new Date(NOW).toISOString(),
  gaze: { entities: ['auth', 'session', 'login'] },
  budgets: { tokens_max: 6000 },
  fragments: withVariants(session),
}, null, 2) + '\n');
writeFileSync(new URL('large-corpus.json', here), JSON.stringify({
  description: '1,200 synthetic fragments: log-normal token counts (median about 300), mixed kinds and sources.',
  now: new Date(NOW).toISOString(),
  gaze: { entities: ['auth', 'postgres', 'deploy'] },
  budgets: { tokens_max: 32000 },
  fragments: largeCorpus(1200),
}) + '\n');
