#!/usr/bin/env node
// A turn of a long-lived session at about 1,000 and 10,000 messages (issue 30: a turn costs what
// is new), the measurement behind bench/sessions.mjs's *Per turn as the history grows*, and on
// its own, side by side in one run with an earlier build:
//
//   node bench/session-turns.mjs --before <dir>   # <dir>/dist and <dir>/wasm, as pkg/ holds them
//   node bench/session-turns.mjs [--smoke]        # this build alone
//   ... --rounds 6                                # sessions of each build per size (default 4)
//   ... --format anthropic                        # another format's histories (default openai; also openai-responses, ai-sdk)
//   ... --copies                                  # each turn's history an equal copy (structuredClone), as frameworks rebuild it
//
// With --before, both builds take turns at each size, each round a fresh session of each, the
// order swapped every round (one build's garbage is collected during the next one's turns), so
// that a busy machine weighs on both alike; the figures are over all rounds. Run with
// --expose-gc to collect the garbage between sessions as well.
// Nothing here asserts a time; a request over budget, or plans that differ between the builds, fail.

import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { mean, median, quantile } from './stats.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { agentSession } = await import(pathToFileURL(join(root, 'pkg/test/agent-sessions.mjs')).href);

/** How many turns are timed (the last ones), and how many untimed ones go before them. */
export const turnCounts = (smoke) => ({ last: smoke ? 2 : 12, warm: smoke ? 2 : 30 });

/**
 * A generated agent history in `format` (OpenAI's by default) cut at about `n` messages (at a
 * request end); a session of `lib` fits it up to
 * `warm + last` requests before its end, then each request after, one after another, the last
 * `last` timed: the turns of a long-lived session (the untimed ones before also let the engine
 * compile the turn's code, which the first turns of a process run unoptimised). `plans`, when
 * given, collects each turn's decisions as JSON. `copies`: each turn's history is an equal copy
 * (structuredClone) of the messages, not the same objects.
 */
export function turnsAt(lib, n, { smoke = false, fits = smoke ? 1 : 3, plans, format = 'openai', copies = false } = {}) {
  const { last, warm } = turnCounts(smoke);
  const { messages, system } = agentSession(1, format, Math.max(1, Math.ceil(n / 7)));
  // Cut at the last request end of the whole history within `n` messages: a cut between parallel
  // calls' results would leave the last request with a call unanswered (refused, the step in flight).
  const ends = lib.requestEnds(messages, format).filter((e) => e < n);
  const history = messages.slice(0, ends[ends.length - 1] + 1);
  const from = Math.max(0, ends.length - last - warm - 1);
  const budget = Math.max(2_000, history.length * 40);
  const cache = format === 'anthropic' ? 'anthropic' : 'openai';
  const session = lib.createSession({ format, system, budgets: { tokens_max: budget }, cache });
  const turnMs = [];
  const cpuMs = [];
  for (let k = from; k < ends.length; k++) {
    // `copies`: each turn an equal copy of the history, as frameworks that rebuild their messages each step pass it (made before the clock starts).
    const now = copies ? structuredClone(history.slice(0, ends[k] + 1)) : history.slice(0, ends[k] + 1);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = session.fit(now);
    if (k >= ends.length - last) {
      turnMs.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpuMs.push((c.user + c.system) / 1000);
    }
    if (r.metrics.budget_used > r.metrics.effective_budget) throw new Error(`turns at ${n}: over budget`);
    plans?.push(JSON.stringify(r.decisions));
  }
  const fitMs = [];
  for (let k = 0; k < fits; k++) {
    const t0 = performance.now();
    lib.fitMessages(history, { format, system, budgets: { tokens_max: budget } });
    fitMs.push(performance.now() - t0);
  }
  return { messages: history.length, turnMs, cpuMs, turn: median(turnMs), turnMean: mean(turnMs), turnP90: quantile(turnMs, 0.9), fit: median(fitMs) };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const smoke = args.includes('--smoke');
  const beforeDir = args.includes('--before') ? args[args.indexOf('--before') + 1] : undefined;
  const format = args.includes('--format') ? args[args.indexOf('--format') + 1] : 'openai';
  const copies = args.includes('--copies');
  const now = await import(pathToFileURL(join(root, 'pkg/dist/node.js')).href);
  const then = beforeDir === undefined ? undefined : await import(pathToFileURL(join(beforeDir, 'dist/node.js')).href);
  const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : smoke ? 2 : 4;
  const f = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  const line = (name, { turnMs, cpuMs }) =>
    `${name}: median ${f(median(turnMs))} ms, mean ${f(mean(turnMs))}, p90 ${f(quantile(turnMs, 0.9))}; CPU (the process's, all threads) median ${f(median(cpuMs))} ms (${turnMs.length} turns)`;
  for (const n of smoke ? [100, 400] : [1_000, 10_000]) {
    const all = { before: { turnMs: [], cpuMs: [] }, after: { turnMs: [], cpuMs: [] } };
    let messages = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const plans = { before: [], after: [] };
      const builds = then === undefined ? [['after', now]] : [['before', then], ['after', now]];
      if (round % 2 === 1) builds.reverse();
      for (const [name, lib] of builds) {
        globalThis.gc?.();
        const r = turnsAt(lib, n, { smoke, fits: 0, plans: plans[name], format, copies });
        all[name].turnMs.push(...r.turnMs);
        all[name].cpuMs.push(...r.cpuMs);
        messages = r.messages;
      }
      if (then !== undefined && plans.before.join('\n') !== plans.after.join('\n')) throw new Error(`turns at ${n}: the builds planned differently`);
    }
    console.log(`${format}, ${messages} messages${copies ? ', each turn an equal copy' : ''}, a turn (${ROUNDS} sessions of each build, the last ${turnCounts(smoke).last} turns of each):`);
    if (then !== undefined) console.log(`  ${line('before', all.before)}`);
    console.log(`  ${line('after ', all.after)}`);
  }
}
