// A session turn resumes the structure passes of the previous one (issue 30: a turn costs what is
// new; src/messages/structure-memo.ts): the units, the compaction marks, the rule violations and
// the messages pinned for what they are.
// Property: over random histories in every format and random sequences of appends (the history's
// next messages; a stray copy of an earlier message or of another history's, which repeats ids,
// orphans results and leaves calls unanswered; a compaction, a lone reasoning item, AI SDK
// approvals, an empty assistant message that is a prefill only while it is the last), in-place
// edits of an earlier message (an id, its content), replacements by a new object, truncations
// (of the last message alone too) and reads the structure is not asked for, every turn's units
// (and each unit's members), compaction marks, violations and system and compaction pins through
// a history memo equal those of the same passes from scratch, and prepareFit through a memo gives
// the same units, pins, broken units and warnings (or the same error) as without one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { AIMessage, SystemMessage } from '@langchain/core/messages';
import { FORMATS, randomHistory, render } from './messages-histories.mjs';
import { importStructure } from './internal.mjs';

const { HistoryMemo, historyStructure, prepareFit, adapterOf, readTurn } = await importStructure();
const RUNS = Number(process.env.CTXPACK_PROPERTY_RUNS ?? 150);

/** Messages that break or bend a rule where they land, per format (besides stray copies). */
function oddMessages(format) {
  switch (format) {
    case 'anthropic':
      return [
        { role: 'assistant', content: [{ type: 'compaction', content: 'what came before', signature: 'sig' }] },
        { role: 'assistant', content: '' }, // a prefill when last, empty_content otherwise
        { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'tool_result', tool_use_id: 'call_x', content: 'late' }] },
      ];
    case 'openai-responses':
      return [
        { type: 'compaction', encrypted_content: 'gAAAA-compacted' },
        { type: 'reasoning', id: 'rs_lone', summary: [] }, // needs an item after it; its id twice is a duplicate
        { role: 'developer', content: 'late rules' },
      ];
    case 'ai-sdk':
      return [
        { role: 'system', content: 'late rules' }, // refused among the messages by ai@7
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'ap_1', toolName: 'run', input: {} },
            { type: 'tool-approval-request', approvalId: 'apr_1', toolCallId: 'ap_1' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'apr_1', approved: true }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'ap_1', toolName: 'run', output: { type: 'text', value: 'ok' } }] },
      ];
    case 'langchain':
      return [new SystemMessage('late rules'), new AIMessage({ content: '', tool_calls: [{ id: 'lc_open', name: 'run', args: {}, type: 'tool_call' }] })];
    default:
      return [{ role: 'system', content: 'late rules' }, { role: 'assistant', content: null }];
  }
}

/** A message as a new object with the same content (LangChain's classes: the same message again). */
const copy = (m) => (typeof m.constructor === 'function' && m.constructor !== Object ? m : structuredClone(m));

const ID_KEYS = new Set(['id', 'tool_call_id', 'tool_use_id', 'toolCallId', 'call_id', 'approvalId']);

/** The `[object, key]` of every id-like string in `v`, three levels deep. */
function idSlots(v, depth = 0, out = []) {
  if (depth > 3 || typeof v !== 'object' || v === null) return out;
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (typeof x === 'string' && ID_KEYS.has(key)) out.push([v, key]);
    else if (typeof x === 'object') idSlots(x, depth + 1, out);
  }
  return out;
}

/** Changes message `m` in place: one of its ids to another id of the history (or a new one), or its text. */
function editInPlace(m, history, pick, id) {
  const slots = idSlots(m);
  if (id && slots.length > 0) {
    const ids = history.flatMap((h) => idSlots(h).map(([o, k]) => o[k]));
    const [o, k] = slots[pick % slots.length];
    o[k] = pick % 3 === 0 ? `edited_${pick}` : ids[pick % ids.length];
  } else if (typeof m.content === 'string') m.content = `${m.content} edited`;
  else if (Array.isArray(m.content)) m.content.push({ type: 'text', text: 'edited' });
  else m.content = 'edited';
}

/** What prepareFit derives from the structure, or its error. */
function prepared(list, options, memo) {
  try {
    const p = memo === undefined ? prepareFit(list, options) : prepareFit(list, options, [], memo);
    return { unitOf: Array.from(p.units.unitOf), pinned: Array.from(p.pinned), broken: Array.from(p.broken), warnings: p.warnings };
  } catch (e) {
    return { error: e.code, message: e.message };
  }
}

function sameStructure(inc, ref, where) {
  assert.deepEqual(Array.from(inc.units.unitOf), Array.from(ref.units.unitOf), `${where}: units`);
  for (let i = 0; i < ref.units.unitOf.length; i++) {
    if (ref.units.unitOf[i] === i) assert.deepEqual(inc.units.members.get(i), ref.units.members.get(i), `${where}: members of unit ${i}`);
  }
  assert.deepEqual(Array.from(inc.compacted), Array.from(ref.compacted), `${where}: compaction marks`);
  assert.deepEqual(inc.violations, ref.violations, `${where}: violations`);
  assert.deepEqual(inc.pinnable, ref.pinnable, `${where}: messages pinned for what they are`);
}

const opArb = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append'), count: fc.integer({ min: 1, max: 8 })}), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('stray'), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('odd'), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('edit'), at: fc.nat(), pick: fc.nat(), id: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('replace'), at: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('truncate'), at: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('pop') }), weight: 1 },
);

test('the structure passes resumed from the previous turn equal them from scratch, over appends, edits, replacements and truncations in every format', () => {
  const tally = { turns: 0, resumed: 0 };
  fc.assert(
    fc.property(
      fc.nat({ max: 100_000 }),
      fc.constantFrom(...FORMATS),
      fc.nat(),
      fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      fc.array(opArb, { minLength: 1, maxLength: 25 }),
      (seed, format, initial, keep, ops) => {
        const { messages: source, system } = render(randomHistory(seed), format);
        const other = render(randomHistory(seed + 1), format).messages;
        const odd = oddMessages(format);
        const adapter = adapterOf(format);
        const options = { format, budgets: { tokens_max: 100_000 }, ...(system === undefined ? {} : { system }), ...(keep === undefined ? {} : { keep }) };
        const memo = new HistoryMemo(); // its structure, checked directly
        const fitMemo = new HistoryMemo(); // prepareFit's
        let cursor = initial % (source.length + 1);
        const history = source.slice(0, cursor).map(copy);
        const turn = (step, unseen) => {
          const list = history.slice();
          const where = `seed ${seed} ${format} step ${step}`;
          let fresh;
          let refused;
          try {
            fresh = list.map((m, i) => readTurn(adapter, m, i));
          } catch (e) {
            refused = e.message;
          }
          let turns;
          try {
            turns = memo.read(adapter, list);
          } catch (e) {
            assert.equal(e.message, refused, `${where}: the same message refused`);
          }
          if (turns !== undefined && !unseen) {
            assert.equal(refused, undefined, where);
            sameStructure(memo.structure.of(turns, adapter, memo.reads, memo.same), historyStructure(fresh, adapter), where);
            tally.turns++;
            if (memo.structure.resumed) tally.resumed++;
          }
          assert.deepEqual(prepared(list, options, fitMemo), prepared(list, options), `${where}: prepareFit`);
        };
        turn(-1);
        ops.forEach((op, step) => {
          const n = history.length;
          if (op.kind === 'append') {
            for (let k = 0; k < op.count; k++) history.push(cursor < source.length ? source[cursor++] : copy(other[(cursor++ - source.length) % other.length]));
          } else if (op.kind === 'stray') {
            const pool = [...history, ...other];
            history.push(copy(pool[op.pick % pool.length]));
          } else if (op.kind === 'odd') {
            history.push(copy(odd[op.pick % odd.length]));
          } else if (n > 0 && op.kind === 'edit') editInPlace(history[op.at % n], history, op.pick, op.id);
          else if (n > 0 && op.kind === 'replace') history[op.at % n] = copy(history[op.at % n]);
          else if (op.kind === 'truncate') history.length = op.at % (n + 1);
          else if (op.kind === 'pop') history.pop(); // the one before becomes the last: a prefill, a reasoning item with nothing after it
          // Now and then the memo reads a history its structure is not asked for: the next turn cannot resume.
          turn(step, (seed + step) % 7 === 0);
        });
      },
    ),
    { numRuns: RUNS },
  );
  // The property is about the resumed scans: most turns must have resumed.
  assert.ok(tally.resumed > tally.turns / 3, `${tally.resumed} of ${tally.turns} turns resumed`);
});
