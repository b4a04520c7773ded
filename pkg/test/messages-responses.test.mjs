// format 'openai-responses': every input item type of openai 7.57's ResponseInputItem read and
// counted; calls and outputs paired by call_id wherever they come, parallel calls and the
// reasoning before them one unit; a compaction item kept, the model's items before it never
// sent; detection; validateMessages' rules; instructions as options.system; truncated and stubbed
// outputs; seeded histories with compactions; a 64-step agent replayed through a session.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, createSession, detectMessageFormat, estimateTokens, fitMessages, validateMessages } from 'ctxpack';
import { everyItem } from './responses-items.mjs';
import { randomHistory, render } from './messages-histories.mjs';
import { sdkCheck } from './sdk-check.mjs';
import { rng } from './rng.mjs';

const F = 'openai-responses';
const ample = { tokens_max: 1_000_000 };
const reasons = (r) => r.decisions.map((d) => d.reason);
const fc = (id, name = 'f') => ({ type: 'function_call', call_id: id, name, arguments: '{}' });
const out = (id, output = 'ok') => ({ type: 'function_call_output', call_id: id, output });
const rs = (id, text = 'thinking') => ({ type: 'reasoning', id, summary: [{ type: 'summary_text', text }], encrypted_content: `gAAAA-${id}` });
const user = (text) => ({ role: 'user', content: text });
const assistant = (text) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });

test('every item type of ResponseInputItem is read: a valid input, kept whole when it fits', () => {
  const items = everyItem();
  assert.deepEqual(validateMessages(items, F), []);
  sdkCheck(F, items);
  assert.equal(detectMessageFormat(items), F);
  const uncompacted = items.filter((i) => i.type !== 'compaction');
  const r = fitMessages(uncompacted, { format: F, budgets: ample, model: 'gpt-4o' });
  assert.equal(r.messages.length, uncompacted.length);
  assert.ok(r.decisions.every((d) => d.included));
});

test('what is counted: the visible text of each item, images by the rule, never encrypted content, ids or base64', () => {
  const seen = [];
  const countTokens = (text) => {
    seen.push(text);
    return estimateTokens(text);
  };
  const items = everyItem().filter((i) => i.type !== 'compaction');
  const r = fitMessages(items, { format: F, budgets: ample, model: 'gpt-4o', countTokens });
  const all = seen.join('\n');
  for (const visible of ['Check the logs first.', 'Reading the logs.', 'I will not print secrets.', 'read_logs', '{"env":"prod"}', 'export const ttl = 60;', 'SELECT 1', 'npm test', '3 passing', '+ttl = 3600', 'ttl was 60 seconds', 'session token expiry best practice', 'print(60 * 60)', 'Roll a deploy back', 'deploy 42 live', 'not yet', 'report.pdf']) {
    assert.ok(all.includes(visible), `${visible} is counted`);
  }
  for (const hidden of ['gAAAAB-encrypted', 'iVBORw0KGgo', 'call_fn', 'fc_1', 'mcpr_1', 'msg_stored', 'annotations']) assert.ok(!all.includes(hidden), `${hidden} is not counted as text`);
  const at = (pred) => r.decisions[items.findIndex(pred)];
  assert.equal(at((i) => i.type === 'message' && i.role === 'user' && Array.isArray(i.content)).media_tokens > 85, true, 'an image at low detail (85) and a PDF by file id');
  assert.equal(at((i) => i.type === 'computer_call_output').media_tokens, 255, 'the screenshot: a 1×1 image, GPT-4o high detail');
  assert.equal(at((i) => i.type === 'image_generation_call').media_tokens, 255, 'the generated image, from its base64');
  assert.equal(at((i) => i.type === 'reasoning').media_tokens, undefined, 'encrypted reasoning: 0 tokens');
  // countPart sees the opaque parts (encrypted reasoning, referenced items) and may count them.
  const parts = [];
  const counted = fitMessages(items, { format: F, budgets: ample, countPart: (p) => (parts.push(p.type ?? 'item_reference'), p.type === 'reasoning' ? 700 : undefined) });
  assert.ok(parts.includes('reasoning') && parts.includes('item_reference'));
  assert.equal(counted.decisions[items.findIndex((i) => i.type === 'reasoning')].media_tokens, 700);
});

test('calls pair with their outputs by call_id wherever they come; parallel calls, and a reasoning item with every item of its response, are one unit', () => {
  const items = [
    user('task'),
    rs('rs_1'),
    fc('a'),
    fc('b'),
    out('b'), // outputs in any order, after their calls
    out('a'),
    assistant('between'),
    rs('rs_2'),
    assistant('reasoned answer'),
    fc('c'),
    assistant('a message between a call and its output'),
    out('c'),
    user('next'),
  ];
  assert.deepEqual(validateMessages(items, F), []);
  const r = fitMessages(items, { format: F, budgets: ample });
  // rs_2's response is the answer, the call and the message after it ("Item 'fc_…' of type
  // 'function_call' was provided without its required 'reasoning' item"), and c's output joins its call.
  assert.deepEqual(r.decisions.map((d) => d.unit), [0, 1, 1, 1, 1, 1, 6, 7, 7, 7, 7, 7, 12]);
  // Tight: a unit goes whole or not at all, and the request stays valid at every budget.
  for (let tokens_max = 10; tokens_max < 80; tokens_max += 3) {
    let t;
    try {
      t = fitMessages(items, { format: F, budgets: { tokens_max } });
    } catch (e) {
      assert.equal(e.code, 'PINNED_OVER_BUDGET');
      continue;
    }
    assert.deepEqual(validateMessages(t.messages, F), [], `tokens_max ${tokens_max}`);
    sdkCheck(F, t.messages, items);
    const inc = t.decisions.map((d) => d.included);
    for (const unit of [[1, 2, 3, 4, 5], [7, 8], [9, 11]]) assert.ok(unit.every((i) => inc[i] === inc[unit[0]]), `tokens_max ${tokens_max}: unit ${unit} split`);
  }
});

test('pins: instructions, the latest user message, the last item with its unit, keep', () => {
  const items = [{ role: 'developer', content: 'rules' }, user('old '.repeat(200)), assistant('old answer '.repeat(100)), user('now'), rs('rs_1'), fc('a'), out('a', 'result')];
  const r = fitMessages(items, { format: F, budgets: { tokens_max: 60 } });
  assert.deepEqual(reasons(r), ['pinned', 'budget_exceeded', 'budget_exceeded', 'pinned', 'pinned', 'pinned', 'pinned']);
  const k = fitMessages(items, { format: F, budgets: ample, keep: (m) => m.role === 'assistant' || m.type === 'message' });
  assert.equal(k.decisions[2].reason, 'pinned');
});

test('a compaction item is kept; the model items before it are never sent (compacted), the user and system messages before it stay', () => {
  const items = [
    { role: 'developer', content: 'rules' },
    user('first task'),
    rs('rs_1'),
    fc('a'),
    out('a', 'long output '.repeat(40)),
    assistant('done with a'),
    user('second task'),
    { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA-compacted' },
    fc('b'),
    out('b'),
    assistant('done with b'),
    user('third task'),
  ];
  assert.deepEqual(validateMessages(items, F), []);
  const r = fitMessages(items, { format: F, budgets: ample, keep: 20 });
  assert.deepEqual(reasons(r), ['pinned', 'pinned', 'compacted', 'compacted', 'compacted', 'compacted', 'pinned', 'pinned', 'pinned', 'pinned', 'pinned', 'pinned']);
  assert.deepEqual(r.messages, [items[0], items[1], items[6], ...items.slice(7)]);
  // Tight: the compaction is kept as the step in flight's neighbours are cut.
  const tight = fitMessages(items, { format: F, budgets: { tokens_max: 40 } });
  assert.equal(tight.decisions[7].reason, 'pinned');
  assert.ok(tight.decisions.slice(2, 6).every((d) => d.reason === 'compacted'));
  // An earlier compaction is compacted by a later one.
  const twice = [...items.slice(0, 8), { type: 'compaction', encrypted_content: 'gAAAA-again' }, user('go on')];
  assert.deepEqual(reasons(fitMessages(twice, { format: F, budgets: ample })).slice(7), ['compacted', 'pinned', 'pinned']);
  // A call before the compaction whose output comes after it: the output cannot go alone.
  const across = [user('task'), fc('x'), { type: 'compaction', encrypted_content: 'gAAAA' }, out('x'), user('next')];
  const a = fitMessages(across, { format: F, budgets: ample });
  assert.deepEqual(reasons(a), ['scored', 'compacted', 'pinned', 'invalid_structure', 'pinned']);
  assert.match(a.warnings.join('\n'), /messages\[3\] carries a tool result whose call is not in the message the format requires \(rule orphan_tool_result\)/);
});

test('detection: Responses items are told apart from chat completions messages', () => {
  assert.equal(detectMessageFormat([user('hi'), fc('a'), out('a')]), F);
  assert.equal(detectMessageFormat([user('hi'), { type: 'function_call_output', call_id: 'a', output: 'x' }]), F);
  assert.equal(detectMessageFormat([{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]), F);
  assert.equal(detectMessageFormat([{ type: 'message', role: 'user', content: 'hi' }]), F);
  assert.equal(detectMessageFormat([user('hi'), { type: 'reasoning', id: 'r', summary: [] }]), F);
  assert.equal(detectMessageFormat([user('hi'), { type: 'compaction', encrypted_content: 'x' }]), F);
  // Chat completions shapes stay 'openai' (a refusal part is both formats'); plain text too.
  assert.equal(detectMessageFormat([{ role: 'system', content: 'x' }, { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }]), 'openai');
  assert.equal(detectMessageFormat([user('hi'), { role: 'assistant', content: 'hello' }]), 'openai');
  assert.equal(detectMessageFormat([{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'x' }]), 'openai');
  // Anthropic's compaction block is a content block, not an item.
  assert.equal(detectMessageFormat([{ role: 'assistant', content: [{ type: 'compaction', content: 'x' }] }]), 'anthropic');
});

test("Responses items as format 'openai' fail as before, naming the field; as 'openai-responses' they fit", () => {
  const items = [user('hi'), fc('a'), out('a')];
  assert.throws(() => fitMessages(items, { format: 'openai', budgets: ample }), (e) => e.code === 'INVALID_FIELD' && /messages\[1\]\.role/.test(e.message));
  assert.equal(fitMessages(items, { format: F, budgets: ample }).messages.length, 3);
});

test('validateMessages: the rules the Responses API enforces, by index, never the content', () => {
  const rules = (items) => validateMessages(items, F).map((v) => `${v.index}:${v.rule}`);
  assert.deepEqual(rules([user('x'), out('a')]), ['1:orphan_tool_result']);
  assert.deepEqual(rules([user('x'), out('a'), fc('a')]), ['1:orphan_tool_result', '2:missing_tool_result'], 'an output before its call');
  assert.deepEqual(rules([user('x'), fc('a')]), ['1:missing_tool_result']);
  assert.deepEqual(rules([user('x'), fc('a'), out('a'), out('a')]), ['3:orphan_tool_result'], 'answered twice');
  assert.deepEqual(rules([user('x'), fc('a'), out('a'), fc('a'), out('a')]), ['3:duplicate_tool_call_id']);
  assert.deepEqual(rules([user('x'), rs('rs_1')]), ['1:reasoning_without_item']);
  assert.deepEqual(rules([user('x'), rs('rs_1'), assistant('a'), rs('rs_1'), assistant('b')]), ['3:duplicate_item_id']);
  assert.deepEqual(rules([user('x'), { type: 'function_call_output', output: 'no call id' }]), ['1:orphan_tool_result']);
  assert.deepEqual(rules([user('x'), { type: 'mcp_approval_request', id: 'm', server_label: 's', name: 'n', arguments: '{}' }]), ['1:missing_tool_result']);
  assert.deepEqual(rules([user('x'), { type: 'mcp_approval_response', approval_request_id: 'm', approve: true }]), ['1:orphan_tool_result']);
  assert.deepEqual(rules([user('x'), { type: 'computer_call', id: 'c', call_id: 'cc', status: 'completed', pending_safety_checks: [] }]), ['1:missing_tool_result']);
  assert.deepEqual(rules([]), ['0:no_messages']);
  const secret = 'SECRET-CONTENT-7';
  const bad = validateMessages([user(secret), { type: 'nonsense', text: secret }, { role: 'robot', content: secret }, { type: 'function_call', name: secret }, 42], F);
  assert.deepEqual(bad.map((v) => `${v.index}:${v.rule}`), ['1:malformed', '2:malformed', '3:malformed', '4:malformed']);
  assert.match(bad[0].message, /messages\[1\]\.type/);
  assert.match(bad[1].message, /messages\[2\]\.role/);
  assert.match(bad[2].message, /messages\[3\]\.call_id/);
  assert.ok(bad.every((v) => !v.message.includes(secret)));
  // fitMessages: broken items are left out with a warning; one that must be kept is INVALID_MESSAGES.
  const r = fitMessages([user('x'), out('zz'), user('y')], { format: F, budgets: ample });
  assert.deepEqual(reasons(r), ['scored', 'invalid_structure', 'pinned']);
  assert.throws(() => fitMessages([user('x'), rs('r')], { format: F, budgets: ample }), (e) => e instanceof CtxpackError && e.code === 'INVALID_MESSAGES' && e.field === 'reasoning_without_item');
  assert.throws(() => fitMessages([user('x'), { type: 'nonsense' }], { format: F, budgets: ample }), (e) => e.code === 'INVALID_FIELD' && e.index === 1 && e.field === 'type');
});

test("options.system is the request's instructions: counted, kept, never returned", () => {
  const items = [user('hi')];
  const r = fitMessages(items, { format: F, budgets: ample, system: 'You are terse. '.repeat(20) });
  // With the request's framing: the reply's priming (3) and the instructions framed as a system message (4).
  const framing = 3 + 4;
  assert.equal(r.metrics.tokens_selected, estimateTokens('You are terse. '.repeat(20)) + framing + r.decisions[0].cost_tokens);
  assert.deepEqual(r.messages, items);
  assert.throws(() => fitMessages(items, { format: F, budgets: ample, system: 42 }), (e) => e.code === 'INVALID_OPTION' && e.field === 'system');
  assert.throws(() => fitMessages(items, { format: 'openai', budgets: ample, system: 'x' }), (e) => e.code === 'INVALID_OPTION' && /'openai-responses'/.test(e.message));
});

test('oversized outputs are truncated in a copy (function, custom, shell, apply patch), call ids kept; screenshots are not', () => {
  const log = Array.from({ length: 3000 }, (_, i) => `line ${i}: GET /api 200`).join('\n');
  const kinds = [
    [fc('a'), out('a', log)],
    [{ type: 'custom_tool_call', call_id: 'a', name: 'c', input: 'x' }, { type: 'custom_tool_call_output', call_id: 'a', output: [{ type: 'input_text', text: log }] }],
    [{ type: 'shell_call', call_id: 'a', action: { commands: ['cat log'] } }, { type: 'shell_call_output', call_id: 'a', output: [{ stdout: log, stderr: '', outcome: { type: 'exit', exit_code: 1 } }] }],
    [{ type: 'apply_patch_call', call_id: 'a', status: 'completed', operation: { type: 'delete_file', path: 'x' } }, { type: 'apply_patch_call_output', call_id: 'a', status: 'failed', output: log }],
    [{ type: 'local_shell_call', id: 'l', call_id: 'a', status: 'completed', action: { type: 'exec', command: ['cat'], env: {} } }, { type: 'local_shell_call_output', id: 'a', output: log }],
  ];
  for (const [call, output] of kinds) {
    const items = [user('why?'), call, output];
    const before = JSON.stringify(items);
    const r = fitMessages(items, { format: F, budgets: { tokens_max: 4000 } });
    assert.deepEqual(validateMessages(r.messages, F), [], output.type);
    sdkCheck(F, r.messages);
    const d = r.decisions[2];
    assert.ok(d.truncated && d.truncated.to <= 2000, output.type);
    const sent = r.messages[2];
    assert.equal(sent.type, output.type);
    assert.equal(sent.call_id ?? sent.id, 'a');
    assert.match(JSON.stringify(sent), /line 0: GET.*characters left out.*line 2999: GET/);
    if (output.type === 'shell_call_output') assert.deepEqual(sent.output[0].outcome, { type: 'exit', exit_code: 1 });
    assert.equal(JSON.stringify(items), before, 'the caller\'s items are untouched');
  }
  // A screenshot is not text: sent whole (or the call fails), never rewritten.
  const shot = [user('look'), { type: 'computer_call', id: 'c', call_id: 'a', status: 'completed', pending_safety_checks: [] }, { type: 'computer_call_output', call_id: 'a', output: { type: 'computer_screenshot', image_url: 'https://example.com/s.png' } }];
  const r = fitMessages(shot, { format: F, budgets: { tokens_max: 4000 } });
  assert.equal(r.messages[2], shot[2]);
});

test('stubToolResults: an output may go in as a stub with its call_id', () => {
  const items = [user('task one'), fc('a'), out('a', 'a long result '.repeat(300)), assistant('ok'), user('task two')];
  const r = fitMessages(items, { format: F, budgets: { tokens_max: 300 }, stubToolResults: true, truncateToolResults: false });
  assert.deepEqual(validateMessages(r.messages, F), []);
  const d = r.decisions[2];
  assert.ok(d.stubbed, reasons(r).join());
  const stub = r.messages[r.decisions.slice(0, 2).filter((x) => x.included).length];
  assert.deepEqual(stub, { type: 'function_call_output', call_id: 'a', output: '[tool result omitted: 4200 characters]' });
});

/** A random history with compaction items put in after some user turns, and outputs interleaved with calls now and then. */
function withCompactions(r, items) {
  const outItems = [];
  for (const item of items) {
    outItems.push(item);
    if (item.role === 'user' && typeof item.content === 'string' && r.chance(0.15)) outItems.push({ type: 'compaction', encrypted_content: `gAAAA${outItems.length}` });
  }
  return outItems;
}

test('seeded histories with compactions: every fit is valid by validateMessages and the API\'s refusals, nothing compacted is sent', () => {
  let runs = 0;
  let compacted = 0;
  for (let seed = 0; seed < 150; seed++) {
    const r = rng(7000 + seed);
    const items = withCompactions(r, render(randomHistory(seed), F).messages);
    assert.deepEqual(validateMessages(items, F), [], `seed ${seed}`);
    for (const tokens_max of [40, 300, 1500, 8000, 1_000_000]) {
      let fit;
      try {
        fit = fitMessages(items, { format: F, budgets: { tokens_max, per_fragment_overhead: 3 } });
      } catch (e) {
        assert.equal(e.code, 'PINNED_OVER_BUDGET', `seed ${seed} ${tokens_max}: ${e.message}`);
        continue;
      }
      runs++;
      const where = `seed ${seed} tokens_max ${tokens_max}`;
      assert.deepEqual(validateMessages(fit.messages, F), [], where);
      sdkCheck(F, fit.messages);
      assert.ok(fit.metrics.budget_used <= fit.metrics.effective_budget, where);
      const last = items.findLastIndex((i) => i.type === 'compaction');
      for (const d of fit.decisions) {
        const before = d.index < last && items[d.index].role !== 'user' && items[d.index].role !== 'developer';
        assert.equal(d.reason === 'compacted', before, `${where}: item ${d.index}`);
        if (d.reason === 'compacted') compacted++;
      }
      if (last >= 0) assert.ok(fit.decisions[last].included, `${where}: the compaction is kept`);
    }
  }
  assert.ok(runs > 500 && compacted > 1000, `${runs} fits, ${compacted} compacted decisions`);
});

test('a 64-step tool agent replayed through a session: every request valid, within budget, prefix-stable while it appends', () => {
  const budgets = { tokens_max: 6000, output_reserve: 500 };
  const session = createSession({ format: F, budgets, cache: 'openai', system: 'You are a coding agent.' });
  const history = [user('Make the flaky auth tests pass.')];
  let appended = 0;
  let cuts = 0;
  let previous;
  for (let step = 0; step < 64; step++) {
    const r = session.fit(history);
    assert.deepEqual(validateMessages(r.messages, F), [], `step ${step}`);
    sdkCheck(F, r.messages);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, `step ${step}`);
    assert.ok(r.decisions[0].included, `step ${step}: the task`);
    if (previous !== undefined && !r.cache.cut) {
      appended++;
      assert.deepEqual(r.messages.slice(0, previous.length), previous, `step ${step}: the previous request is the prefix`);
    }
    if (r.cache.cut) cuts++;
    if (step === 33) assert.ok(r.cache.cut, 'the request after the compaction is a cut');
    previous = r.messages;
    // The model's turn: reasoning, sometimes a note, one or two calls; then their outputs.
    const calls = step % 5 === 4 ? [`c${step}a`, `c${step}b`] : [`c${step}`];
    history.push(rs(`rs_${step}`, `step ${step}: what next`));
    if (step % 3 === 0) history.push({ ...assistant(`Step ${step}: reading more.`), id: `msg_${step}` });
    for (const id of calls) history.push({ ...fc(id, step % 2 ? 'read_file' : 'run_tests'), id: `fc_${id}` });
    for (const id of calls) history.push(out(id, `output of ${id}: ${'test auth session token '.repeat(step % 7 === 0 ? 300 : 30)}`));
    // Halfway, the server compacts: the compaction item comes back with the next output.
    if (step === 32) history.push({ type: 'compaction', id: 'cmp_32', encrypted_content: 'gAAAA-compacted-32' }, user('Keep going.'));
  }
  const last = session.fit(history);
  assert.deepEqual(validateMessages(last.messages, F), []);
  assert.ok(last.decisions.filter((d) => d.reason === 'compacted').length > 100);
  assert.ok(appended > 20 && cuts > 0, `${appended} appends, ${cuts} cuts`);
});
