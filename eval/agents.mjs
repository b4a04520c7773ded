// Generated multi-session agent conversations (OpenAI chat format) with planted facts that a final
// question asks about. Seeded and deterministic: the same seed gives the same conversation.
//
// Each conversation is 6–8 sessions of a coding agent at work: user requests, parallel tool calls
// with their results (config files, test runs, logs, grep hits), summaries, small talk. Into it go
// seven facts, each of which becomes one case (the conversation plus its question as the last user
// message):
//   tool-result  a value read by a tool (one config among many of the same shape)
//   correction   a fact stated early and superseded later: only the correction is evidence
//   long-ago     a fact mentioned once, in the first session
//   exchange     a question and its answer in two adjacent turns, asked about again in other words
//   paraphrase   a fact that shares only the service's name with its question
//   multi-hop    two facts sessions apart, both needed (who joined a team; which team has a pager)
//   rollback     a tool result answering a question worded differently from the request before it
// Every fact's words also occur in filler turns (the same services, people and keys elsewhere), so
// a word match alone is not enough.
import { rng } from '../pkg/test/rng.mjs';

const SERVICES = ['billing', 'auth', 'search', 'notifications', 'checkout', 'inventory', 'reports', 'gateway', 'payments', 'profiles'];
const PEOPLE = ['Priya', 'Tomás', 'Aiko', 'Jonas', 'Fatima', 'Wei', 'Lena', 'Omar', 'Grace', 'Mateo'];
const DEPS = ['fastify', 'pg', 'redis', 'zod', 'vitest', 'jose', 'undici', 'pino', 'prisma', 'bullmq'];
const VERBS = ['parses', 'validates', 'caches', 'retries', 'serialises', 'schedules', 'batches', 'signs', 'streams', 'normalises'];
const NOUNS = ['request', 'token', 'invoice', 'cursor', 'payload', 'session', 'webhook', 'queue', 'snapshot', 'header', 'receipt', 'index'];
const CAUSES = [
  'a race in {fn}: the retry timer fires before the mock resolves',
  'a stale snapshot file that still had the old {noun} shape',
  'the test reading the system clock, so it failed around midnight UTC',
  'two tests sharing one {dep} connection and closing it in the wrong order',
];
const TEAMS = ['platform', 'growth', 'core', 'data', 'mobile', 'infra'];
const SMALL_TALK = [
  'Thanks, that helps.',
  'Great, let us keep going.',
  'Sounds good to me.',
  'OK, makes sense.',
  'Perfect, thank you!',
  'Nice, that was quick.',
  'Alright. Give me a second to look at it myself.',
  'Cool. I will grab a coffee and come back.',
];

function id(r) {
  return r.pick(NOUNS) + r.pick(['Handler', 'Store', 'Client', 'Worker', 'Builder', 'Mapper']);
}

function fileOf(r, svc) {
  return `src/${svc}/${r.pick(NOUNS)}${r.pick(['', 's', '-utils', '-store'])}.ts`;
}

function code(r, svc, lines) {
  const out = [`// ${fileOf(r, svc)}`, `import { ${id(r)} } from '../${r.pick(SERVICES)}/index.js';`];
  for (let i = 0; i < lines; i++) {
    const v = r.pick(NOUNS);
    out.push(
      r.pick([
        `export function ${r.pick(VERBS).replace(/s$/, '')}${v[0].toUpperCase()}${v.slice(1)}(${v}) {`,
        `  const ${v} = await ${id(r)}.${r.pick(['get', 'load', 'find', 'open'])}(${r.pick(NOUNS)}Id);`,
        `  if (!${v}) throw new Error('${svc}: missing ${v}');`,
        `  return ${r.pick(NOUNS)}.${r.pick(['map', 'filter', 'slice'])}((x) => x.${r.pick(NOUNS)});`,
        `}`,
        `  // ${r.pick(VERBS)} the ${v} before the ${r.pick(NOUNS)} is sent`,
        `  logger.info({ ${v} }, '${svc} ${r.pick(VERBS)} ${v}');`,
      ]),
    );
  }
  return out.join('\n');
}

function testRun(r, svc, failing) {
  const out = [` RUN  v2.1.8 /repo`];
  const n = r.int(4, 9);
  for (let i = 0; i < n; i++) out.push(`  ✓ ${svc}/${r.pick(NOUNS)}.test.ts > ${r.pick(VERBS)} the ${r.pick(NOUNS)} (${r.int(2, 90)} ms)`);
  if (failing) out.push(`  × ${svc}/${r.pick(NOUNS)}.test.ts > ${r.pick(VERBS)} the ${r.pick(NOUNS)}`, `    AssertionError: expected ${r.int(1, 500)} to be ${r.int(1, 500)}`);
  out.push(` Tests  ${failing ? '1 failed | ' : ''}${n} passed (${n + (failing ? 1 : 0)})`);
  return out.join('\n');
}

function config(r, svc, key, value) {
  const keys = [
    `service: ${svc}`,
    `replicas: ${r.int(1, 6)}`,
    `max_connections: ${r.int(10, 99)}`,
    `timeout_ms: ${r.int(2, 30) * 500}`,
    `log_level: ${r.pick(['info', 'warn', 'debug'])}`,
    `queue: ${svc}-${r.pick(NOUNS)}s`,
  ];
  const i = keys.findIndex((k) => k.startsWith(`${key}:`));
  if (i >= 0) keys[i] = `${key}: ${value}`;
  return `# deploy/${svc}.yaml\n${keys.join('\n')}`;
}

function grep(r, svc) {
  const out = [];
  for (let i = r.int(2, 6); i > 0; i--) out.push(`${fileOf(r, svc)}:${r.int(3, 400)}: ${r.pick(VERBS)} ${r.pick(NOUNS)} via ${id(r)}`);
  return out.join('\n');
}

function logs(r, svc) {
  const out = [];
  for (let i = r.int(3, 8); i > 0; i--) {
    out.push(`2026-11-${String(r.int(1, 28)).padStart(2, '0')}T${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}Z ${r.pick(['INFO', 'WARN', 'ERROR'])} ${svc} ${r.pick(NOUNS)} ${r.pick(['accepted', 'rejected', 'timed out', 'retried', 'queued'])} in ${r.int(3, 900)} ms`);
  }
  return out.join('\n');
}

/** Builds messages with tool calls; `call()` hands out unique ids. */
class Builder {
  constructor(r) {
    this.r = r;
    this.messages = [];
    this.calls = 0;
  }
  user(content) {
    this.messages.push({ role: 'user', content });
    return this.messages.length - 1;
  }
  assistant(content) {
    this.messages.push({ role: 'assistant', content });
    return this.messages.length - 1;
  }
  /** An assistant message with parallel tool calls and their results; returns the results' indexes. */
  tools(lead, calls) {
    const ids = calls.map(() => `call_${++this.calls}`);
    this.messages.push({
      role: 'assistant',
      content: lead,
      tool_calls: calls.map(([name, args], k) => ({ id: ids[k], type: 'function', function: { name, arguments: JSON.stringify(args) } })),
    });
    return calls.map(([, , result], k) => {
      this.messages.push({ role: 'tool', tool_call_id: ids[k], content: result });
      return this.messages.length - 1;
    });
  }
}

/**
 * One filler episode about `svc`: a request, tool work, a summary, maybe an acknowledgement. Some
 * have the shape of a planted fact about another service (a deploy config, a staging host, an
 * owner, a flaky test): `facts` names the services of the planted facts, which filler of the same
 * shape avoids so that every question has one answer.
 */
function episode(b, svc, facts) {
  const r = b.r;
  let kind = r.int(0, 9);
  if ((kind === 2 && svc === facts.config) || (kind === 5 && svc === facts.staging) || (kind === 6 && svc === facts.owner) || (kind === 7 && svc === facts.flaky)) kind = 3;
  if (kind === 0) {
    b.user(`Can you check why the ${svc} tests fail after the ${r.pick(DEPS)} bump?`);
    b.tools(null, [['run_tests', { path: svc }, testRun(r, svc, true)], ['read_file', { path: fileOf(r, svc) }, code(r, svc, r.int(6, 16))]]);
    b.assistant(`The failure is in ${id(r)}: it ${r.pick(VERBS)} the ${r.pick(NOUNS)} before the ${r.pick(NOUNS)} is ready. I can change the order so the ${svc} test passes.`);
  } else if (kind === 1) {
    b.user(`Where do we ${r.pick(VERBS).replace(/s$/, '')} the ${r.pick(NOUNS)} in ${svc}?`);
    b.tools(null, [['grep', { pattern: r.pick(NOUNS), path: `src/${svc}` }, grep(r, svc)]]);
    b.assistant(`It happens in ${fileOf(r, svc)}, through ${id(r)}; ${r.pick(['there is one call site', 'two modules share it', 'it is only used by the worker'])}.`);
  } else if (kind === 2) {
    b.user(`Show me the deploy config of ${svc}, I want to compare it with ${r.pick(SERVICES)}.`);
    b.tools(`Reading the ${svc} deployment file.`, [['read_file', { path: `deploy/${svc}.yaml` }, config(r, svc)]]);
    b.assistant(`The ${svc} deployment runs ${r.pick(['a few', 'several', 'two', 'three'])} replicas with a ${r.pick(['short', 'long', 'default'])} timeout; nothing unusual.`);
  } else if (kind === 3) {
    b.user(`Any errors in the ${svc} logs from last night?`);
    b.tools(null, [['read_logs', { service: svc, since: '12h' }, logs(r, svc)], ['read_logs', { service: r.pick(SERVICES), since: '12h' }, logs(r, svc)]]);
    b.assistant(`A few ${r.pick(NOUNS)} timeouts in ${svc}, all retried; nothing that needs action today.`);
  } else if (kind === 5) {
    b.user(`For the ${svc} staging checks, use ${svc}-stg-${r.int(1, 19)}.acme.dev.`);
    b.assistant(`OK, running the ${svc} staging checks there: ${r.int(5, 40)} passed.`);
  } else if (kind === 6) {
    const who = r.pick(PEOPLE);
    b.user(r.pick([`${who} is on call for ${svc} this week, in case anything breaks.`, `${who} reviewed the ${svc} schema change yesterday.`, `Ask ${who} if the ${svc} change needs a migration.`]));
    b.assistant(`Understood, I will keep ${who} in the loop on ${svc}.`);
  } else if (kind === 7) {
    b.user(`Why is the ${svc} ${r.pick(['unit', 'e2e', 'snapshot'])} test flaky again?`);
    b.assistant(`It looks like ${r.pick(CAUSES).replace('{fn}', id(r)).replace('{noun}', r.pick(NOUNS)).replace('{dep}', r.pick(DEPS))}; I will keep an eye on it.`);
  } else if (kind === 8) {
    b.user(`The ${svc} release v${r.int(1, 4)}.${r.int(0, 20)} went out this morning; anything to watch?`);
    b.assistant(`Error rates for ${svc} look normal since the release; I will check again after lunch.`);
  } else if (kind === 9) {
    const team = r.pick(TEAMS);
    b.user(`The ${team} team asked for a ${svc} dashboard with ${r.pick(NOUNS)} latency; can you sketch one?`);
    b.assistant(`Sure: p50 and p99 of the ${svc} ${r.pick(NOUNS)} path, plus the error rate, per region.`);
  } else {
    b.user(`Please refactor ${id(r)} in ${svc} so it ${r.pick(VERBS)} the ${r.pick(NOUNS)} once.`);
    b.tools(null, [['edit_file', { path: fileOf(r, svc) }, `edited ${fileOf(r, svc)}: ${r.int(1, 4)} replacements`]]);
    b.tools(null, [['run_tests', { path: svc }, testRun(r, svc, false)]]);
    b.assistant(`Done: ${id(r)} now ${r.pick(VERBS)} the ${r.pick(NOUNS)} once, and the ${svc} suite passes.`);
  }
  if (r.chance(0.4)) b.user(r.pick(SMALL_TALK));
}

/**
 * One conversation and its seven cases: `{ messages, cases: [{ kind, question, evidence: number[] }] }`.
 * `messages` has no question; a case appends its question as the last user message.
 */
export function agentConversation(seed, { sessions = [6, 8], episodesPerSession = [8, 12] } = {}) {
  const r = rng(seed * 7919 + 17);
  const b = new Builder(r);
  b.messages.push({ role: 'system', content: 'You are a coding agent working in the acme monorepo. Use the tools to read files, run tests, read logs and edit code. Keep changes small and explain them.' });
  const svc = r.pick(SERVICES);
  const others = SERVICES.filter((s) => s !== svc);
  const [factSvc, corrSvc, ownSvc, flakySvc] = [svc, r.pick(others), r.pick(others), r.pick(others)];
  const owner = r.pick(PEOPLE);
  const maxConn = r.int(101, 999); // outside the filler's 10–99, so the value itself is unique
  const hosts = [`${corrSvc}-stg-${r.int(1, 9)}.acme.dev`, `${corrSvc}-stg-${r.int(10, 19)}.acme.dev`];
  const cause = r.pick(CAUSES);
  const [cacheSvc, pagerSvc, rollSvc] = [r.pick(SERVICES), r.pick(SERVICES), r.pick(SERVICES)];
  const joiner = r.pick(PEOPLE.filter((p) => p !== owner));
  const team = r.pick(TEAMS);
  const version = `v${r.int(1, 4)}.${r.int(0, 20)}.${r.int(1, 9)}`;
  const causeText = cause.replace('{fn}', id(r)).replace('{noun}', r.pick(NOUNS)).replace('{dep}', r.pick(DEPS));

  const nSessions = r.int(sessions[0], sessions[1]);
  // When each fact is planted: session and episode slot.
  const at = {
    longAgo: [0, r.int(1, 3)],
    stated: [r.int(1, 2), r.int(0, 5)],
    corrected: [r.int(nSessions - 3, nSessions - 2), r.int(0, 5)],
    tool: [r.int(1, nSessions - 2), r.int(0, 7)],
    exchange: [r.int(1, nSessions - 2), r.int(0, 7)],
    paraphrase: [r.int(1, nSessions - 2), r.int(0, 7)],
    joined: [r.int(0, 1), r.int(0, 7)],
    pager: [r.int(nSessions - 3, nSessions - 1), r.int(0, 7)],
    rollback: [r.int(1, nSessions - 2), r.int(0, 7)],
  };
  const evidence = {};
  for (let s = 0; s < nSessions; s++) {
    b.user(`New session, day ${s * 3 + r.int(1, 2)}. Let's continue with ${r.pick(SERVICES)} and ${r.pick(SERVICES)} today.`);
    b.assistant(`Sure. Last time we ${r.pick(['fixed the flaky tests', 'looked at the logs', 'refactored the store', 'reviewed the deploy configs'])}; I will start from there.`);
    const episodes = r.int(episodesPerSession[0], episodesPerSession[1]);
    for (let e = 0; e < episodes; e++) {
      const here = ([ss, ee]) => ss === s && ee === e;
      if (here(at.longAgo)) {
        evidence.longAgo = [b.user(`By the way, ${owner} owns the ${ownSvc} service; ask ${owner} before changing its database schema.`)];
        b.assistant(`Noted, I will check with ${owner} first.`);
      }
      if (here(at.stated)) {
        evidence.stale = [b.user(`For the ${corrSvc} staging checks, the staging host is ${hosts[0]}.`)];
        b.assistant(`Got it, I will run the ${corrSvc} staging checks against that host.`);
      }
      if (here(at.corrected)) {
        evidence.correction = [b.user(`Correction: ${corrSvc} staging moved to ${hosts[1]} this week; the old host is gone.`)];
        b.assistant('Thanks, updated.');
      }
      if (here(at.tool)) {
        b.user(`What limits does the ${factSvc} deployment set?`);
        evidence.tool = b.tools(`Reading the ${factSvc} deployment file.`, [['read_file', { path: `deploy/${factSvc}.yaml` }, config(r, factSvc, 'max_connections', maxConn)]]);
        b.assistant(`${factSvc} has the usual replicas and timeout; the connection pool is larger than most.`);
      }
      if (here(at.exchange)) {
        const ask = b.user(`Did you find out why the ${flakySvc} integration test was flaky?`);
        const answer = b.assistant(`Yes: it was ${causeText}. I fixed it in the test helper.`);
        evidence.exchange = [ask, answer];
      }
      if (here(at.paraphrase)) {
        evidence.paraphrase = [b.user(`We dropped Redis from ${cacheSvc}: it keeps everything in process memory now, for five minutes at most.`)];
        b.assistant(r.pick(SMALL_TALK));
      }
      if (here(at.joined)) {
        evidence.joined = [b.user(`${joiner} joined the ${team} team last month, so loop them in on reviews.`)];
        b.assistant(`Will do.`);
      }
      if (here(at.pager)) {
        evidence.pager = [b.user(`This week the ${team} team carries the ${pagerSvc} pager.`)];
        b.assistant(`OK, I will route ${pagerSvc} alerts to them.`);
      }
      if (here(at.rollback)) {
        b.user(`The ${rollSvc} error rate doubled after the deploy. Please undo it.`);
        evidence.rollback = b.tools(null, [['run_command', { cmd: `deploy rollback ${rollSvc}` }, `rolled back ${rollSvc} to ${version}; healthy in ${r.int(20, 90)} s`]]);
        b.assistant(`Rolled back; ${rollSvc} errors are back to normal.`);
      }
      episode(b, r.chance(0.3) ? r.pick([factSvc, corrSvc, ownSvc, flakySvc]) : r.pick(SERVICES), { config: factSvc, staging: corrSvc, owner: ownSvc, flaky: flakySvc });
    }
  }
  const cases = [
    { kind: 'tool-result', question: `How many database connections at most can the ${factSvc} deployment open?`, evidence: evidence.tool },
    { kind: 'correction', question: `Which host should the ${corrSvc} staging checks use now?`, evidence: evidence.correction, stale: evidence.stale },
    { kind: 'long-ago', question: `Who do I need to talk to before I change the ${ownSvc} schema?`, evidence: evidence.longAgo },
    { kind: 'exchange', question: `Remind me: what made that ${flakySvc} integration test flaky?`, evidence: evidence.exchange },
    { kind: 'paraphrase', question: `What does ${cacheSvc} use for caching these days?`, evidence: evidence.paraphrase },
    { kind: 'multi-hop', question: `Is ${joiner} on the rotation that has the ${pagerSvc} pager this week?`, evidence: [...evidence.joined, ...evidence.pager] },
    { kind: 'rollback', question: `Which version did ${rollSvc} go back to after the bad deploy?`, evidence: evidence.rollback },
  ];
  return { messages: b.messages, cases };
}
