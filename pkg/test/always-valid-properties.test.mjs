// Sessions over seeded random agent histories in every format, with what real applications do to
// them: saved states edited, truncated or taken from another conversation; the history array
// changed while the async counter runs; cache markers the caller placed (Anthropic). Every request
// is valid by validateMessages and by the SDKs' own checks, within budget, and has at most 4
// Anthropic cache markers; the only error a turn may give is PINNED_OVER_BUDGET (or, for a
// state that is not one, INVALID_OPTION when it is read).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, estimateTokens, requestEnds, validateMessages } from 'ctxpack';
import { FORMATS, randomHistory, render } from './messages-histories.mjs';
import { sdkCheck } from './sdk-check.mjs';
import { rng } from './rng.mjs';

const SEEDS = 40;
const BUDGETS = [300, 1500, 6000, 40_000];

function countMarkers(blocks) {
  return Array.isArray(blocks) ? blocks.reduce((n, b) => n + (b?.cache_control != null ? 1 : 0) + countMarkers(b?.content), 0) : 0;
}

/** Anthropic: cache_control on some blocks (string contents become a text block first), never on thinking. */
function withCallerMarkers(r, messages) {
  return messages.map((m) => {
    if (!r.chance(0.12)) return m;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.slice();
    const k = blocks.findLastIndex((b) => b.type !== 'thinking');
    if (k < 0) return m;
    blocks[k] = { ...blocks[k], cache_control: { type: 'ephemeral' } };
    return { ...m, content: blocks };
  });
}

/** A saved state as a database might hand it back: as it was, edited, truncated, or another conversation's. */
function mangle(r, state, other) {
  const s = structuredClone(state);
  if (s.previous === null) return s;
  const roll = r.next();
  if (roll < 0.25) s.previous.entries = s.previous.entries.filter(() => !r.chance(0.2));
  else if (roll < 0.45) s.previous.entries = s.previous.entries.slice(0, r.int(0, s.previous.entries.length));
  else if (roll < 0.6 && other?.previous) s.previous = structuredClone(other.previous);
  else if (roll < 0.7) s.previous.head = r.int(0, s.previous.entries.length + 3);
  return s;
}

test('sessions stay valid with mangled saved states, a history changed while counting, and caller cache markers', async () => {
  let turns = 0;
  let refused = 0;
  let statesIgnored = 0;
  let lastState = null;
  let duringCount = () => undefined;
  const countTokens = async (text) => {
    duringCount();
    await null;
    return estimateTokens(text);
  };
  for (let seed = 0; seed < SEEDS; seed++) {
    const r = rng(1000 + seed);
    const history = randomHistory(seed);
    for (const format of FORMATS) {
      let { messages, system } = render(history, format);
      if (format === 'anthropic') {
        messages = withCallerMarkers(r, messages);
        if (r.chance(0.5)) system = [{ type: 'text', text: system, ...(r.chance(0.6) ? { cache_control: { type: 'ephemeral' } } : {}) }];
      }
      const budgets = { tokens_max: r.pick(BUDGETS), per_fragment_overhead: 3 };
      const options = { format, budgets, cache: format === 'anthropic' ? { readCost: 0.1, writeCost: 1.25, minCacheableTokens: 50, maxBreakpoints: 4 } : 'openai' };
      if (format === 'anthropic') options.breakpoints = true;
      if (system !== undefined) options.system = system;
      let session = createSession({ ...options, countTokens, counterId: 'estimate' });
      for (const end of requestEnds(messages, format)) {
        const where = `seed ${seed} ${format} after messages[${end}]`;
        // Now and then the application restarts from a saved state that may not hold.
        if (r.chance(0.3)) {
          const state = mangle(r, session.exportState(), lastState);
          lastState = session.exportState();
          try {
            session = createSession({ ...options, state, countTokens, counterId: 'estimate' });
          } catch (e) {
            assert.equal(e.code, 'INVALID_OPTION', `${where}: ${e.message}`);
            refused++;
          }
        }
        const now = messages.slice(0, end + 1);
        const expected = now.slice();
        // The application changes the array it passed while the counter runs.
        let mutated = false;
        duringCount = () => {
          if (!mutated && r.chance(0.5)) {
            mutated = true;
            now.splice(r.int(0, now.length - 1), r.int(1, 3));
          }
        };
        let result;
        try {
          const pending = session.fitAsync(now);
          if (r.chance(0.5)) now.length = 0; // as soon as the call returned: nothing read later may change
          result = await pending;
        } catch (e) {
          assert.equal(e.code, 'PINNED_OVER_BUDGET', `${where}: ${e.message}`);
          refused++;
          continue;
        }
        turns++;
        if (result.warnings.some((w) => w.startsWith('state_mismatch'))) statesIgnored++;
        assert.deepEqual(validateMessages(result.messages, format), [], where);
        sdkCheck(format, result.messages, expected);
        assert.ok(result.metrics.budget_used <= result.metrics.effective_budget, where);
        assert.equal(result.decisions.length, expected.length, `${where}: the history as passed`);
        if (format === 'anthropic') {
          const total = countMarkers(Array.isArray(system) ? system : []) + result.messages.reduce((n, m) => n + countMarkers(m.content), 0);
          assert.ok(total <= 4, `${where}: ${total} cache markers`);
        }
      }
    }
  }
  assert.ok(turns > 1000, `${turns} turns checked`);
  assert.ok(statesIgnored > 0, 'some mangled states were caught');
  assert.ok(refused > 0);
});
