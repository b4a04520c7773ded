// Long, tool-heavy agent sessions, seeded: rounds of a user request, one to six steps of tool
// calls (sometimes parallel, sometimes with a large result) and a reply. Rendered into the chat
// formats by messages-histories.mjs. Shared by session.test.mjs and bench/sessions.mjs.
import { rng } from './rng.mjs';
import { render } from './messages-histories.mjs';

const SYL = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vi', 'nu', 'pe', 'dor', 'li', 'ma', 'zo', 'qui', 'ber', 'tan'];
const TOOLS = ['read_file', 'grep', 'run_tests', 'list_dir', 'edit_file', 'web_search'];

/** `{ system, events }` (the neutral history of messages-histories.mjs) of `rounds` rounds. */
export function agentHistory(seed, rounds = 80) {
  const r = rng(seed);
  const vocab = Array.from({ length: 400 }, () => r.pick(SYL) + r.pick(SYL) + (r.chance(0.5) ? r.pick(SYL) : ''));
  const words = (n) => Array.from({ length: n }, () => vocab[Math.min(vocab.length - 1, Math.floor(vocab.length ** r.next()) - 1)]).join(' ');
  const events = [];
  let call = 0;
  for (let k = 0; k < rounds; k++) {
    events.push({ kind: 'user', text: words(r.int(10, 60)) });
    for (let s = r.int(1, 6); s > 0; s--) {
      const calls = [];
      for (let c = r.chance(0.3) ? r.int(2, 3) : 1; c > 0; c--) {
        const large = r.chance(0.06);
        calls.push({ id: `call_${seed}_${call++}`, name: r.pick(TOOLS), args: { q: words(2) }, result: words(large ? r.int(1200, 2500) : r.int(40, 450)) });
      }
      events.push({ kind: 'calls', text: r.chance(0.4) ? words(r.int(5, 30)) : undefined, calls, split: r.chance(0.5) });
    }
    events.push({ kind: 'assistant', text: words(r.int(20, 120)) });
  }
  return { system: words(300), events };
}

/** `{ messages, system? }` of `agentHistory(seed, rounds)` in `format`. */
export function agentSession(seed, format, rounds = 80) {
  return render(agentHistory(seed, rounds), format);
}
