// Anthropic server-side compaction (compact_20260112, or a `compaction` config): the API answers
// with an assistant message that opens with a `compaction` block, which a later request sends back
// as the first block of the conversation, in place of every message it summarises (anything else
// is refused: compaction_block_misplaced, compaction_block_ambiguous in @anthropic-ai/sdk's errors).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSession, fitMessages, validateMessages } from 'ctxpack';
import { rng } from './rng.mjs';

const compaction = (summary) => ({ type: 'compaction', content: summary, signature: 'sig-' + summary.length });
const call = (id, path) => ({ type: 'tool_use', id, name: 'read_file', input: { path } });
const result = (id, text) => ({ type: 'tool_result', tool_use_id: id, content: text });

/** A coding agent's history: `before` tool rounds, then (if `summary`) a compaction, then `after` rounds. */
function history(r, before, summary, after) {
  const h = [{ role: 'user', content: 'Refactor the parser and keep the tests green.' }];
  let id = 0;
  const round = (opening = []) => {
    const c = `t${id++}`;
    h.push({ role: 'assistant', content: [...opening, { type: 'text', text: `Reading file ${id}.` }, call(c, `src/f${id}.ts`)] });
    h.push({ role: 'user', content: [result(c, 'export const x = 1;\n'.repeat(r.int(5, 200)))] });
  };
  for (let i = 0; i < before; i++) round();
  if (summary !== undefined) round([compaction(summary)]);
  for (let i = 0; i < after; i++) round();
  h.push({ role: 'assistant', content: 'The parser is refactored.' });
  h.push({ role: 'user', content: 'Now add a test for empty input.' });
  return h;
}

const opensWithCompaction = (messages) => messages[0].role === 'assistant' && messages[0].content[0].type === 'compaction';

test('the latest compaction opens the request; every message before it is left out as compacted, at every budget', () => {
  const h = history(rng(1), 6, 'Summary: parser refactor under way; f1-f6 read.', 4);
  const at = h.findIndex((m) => Array.isArray(m.content) && m.content[0]?.type === 'compaction');
  const pinned = fitMessages(h.slice(at), { format: 'anthropic', budgets: { tokens_max: 1e6 } }).metrics.pinned_tokens;
  for (const budget of [pinned, pinned + 50, pinned + 400, 5_000, 1e6]) {
    const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: budget } });
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), [], `budget ${budget}`);
    assert.ok(opensWithCompaction(r.messages), `budget ${budget}: the request opens with the compaction`);
    assert.equal(r.messages[0], h[at], 'the compaction message is sent as it came (its signature verifies)');
    for (const d of r.decisions.slice(0, at)) assert.deepEqual([d.included, d.reason], [false, 'compacted']);
    assert.ok(r.messages.includes(h[h.length - 1]), 'the latest user message is kept');
  }
});

test('only the latest compaction counts: an earlier one is compacted with the rest', () => {
  const r0 = rng(2);
  const h = history(r0, 2, 'First summary.', 2);
  const more = history(r0, 0, 'Second summary.', 2).slice(1); // without its task
  const all = [...h, ...more];
  const r = fitMessages(all, { format: 'anthropic', budgets: { tokens_max: 1e6 } });
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  assert.equal(r.messages[0].content[0].content, 'Second summary.');
  assert.equal(r.messages.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'compaction')).length, 1);
});

test('validateMessages: a compaction after the first message is compaction_not_first; opening the request it is no first_not_user', () => {
  const h = history(rng(3), 2, 'Summary.', 1);
  const at = h.findIndex((m) => Array.isArray(m.content) && m.content[0]?.type === 'compaction');
  assert.deepEqual(validateMessages(h, 'anthropic').map((v) => [v.index, v.rule]), [[at, 'compaction_not_first']]);
  assert.deepEqual(validateMessages(h.slice(at), 'anthropic'), []);
  // An assistant message without a compaction block still may not open the request.
  assert.deepEqual(validateMessages(h.slice(at + 2), 'anthropic').map((v) => v.rule), ['first_not_user']);
});

test('a failed compaction (content null) is no compaction: the history before it stays a candidate', () => {
  const h = history(rng(4), 3, 'x', 2);
  const at = h.findIndex((m) => Array.isArray(m.content) && m.content[0]?.type === 'compaction');
  h[at] = { ...h[at], content: [{ type: 'compaction', content: null }, ...h[at].content.slice(1)] };
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 1e6 } });
  assert.ok(r.decisions.every((d) => d.included), 'everything fits and is sent');
  assert.equal(r.messages[0], h[0]);
});

test('a session: the requests after a compaction open with it, every request valid, the cut said once', () => {
  const r0 = rng(5);
  const before = history(r0, 8, undefined, 0).slice(0, -2);
  const after = history(r0, 0, 'Summary of the first eight reads.', 5).slice(1);
  const all = [...before, ...after];
  const at = before.length;
  const session = createSession({ format: 'anthropic', budgets: { tokens_max: 6_000 }, cache: 'anthropic' });
  let seenCompaction = false;
  for (let end = 1; end <= all.length; end++) {
    if (all[end - 1].role !== 'user') continue;
    const r = session.fit(all.slice(0, end));
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), [], `turn ending at ${end}`);
    if (end > at) {
      assert.ok(opensWithCompaction(r.messages), `turn ending at ${end} opens with the compaction`);
      seenCompaction = true;
    }
  }
  assert.ok(seenCompaction);
});

test('random histories and budgets: always valid, and with a compaction always opened by it', () => {
  for (let seed = 0; seed < 60; seed++) {
    const r = rng(100 + seed);
    const h = history(r, r.int(0, 6), r.next() < 0.7 ? `Summary ${seed}.` : undefined, r.int(0, 6));
    const has = h.some((m) => Array.isArray(m.content) && m.content[0]?.type === 'compaction');
    let out;
    try {
      out = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: r.int(200, 20_000) } });
    } catch (err) {
      assert.equal(err.code, 'PINNED_OVER_BUDGET', `seed ${seed}: ${err.message}`);
      continue;
    }
    assert.deepEqual(validateMessages(out.messages, 'anthropic'), [], `seed ${seed}`);
    if (has) assert.ok(opensWithCompaction(out.messages), `seed ${seed}`);
  }
});

// A new-user trial found the encrypted content of compaction and web search result blocks counted
// as text: base64 through the counter, and into the relevance index. It is an opaque part, as the
// Responses API's encrypted items are: a compaction's is "opaque metadata" beside the summary the
// model reads (0), a web search result's stands for page content Anthropic bills as input tokens
// (one token per byte it decodes to); countPart receives the block to count it better.
test('Anthropic encrypted_content (compaction, web search result) is an opaque part, never text: 0 and one token per byte, countPart counts it', async () => {
  const { randomBytes } = await import('node:crypto');
  const blob = randomBytes(3000).toString('base64'); // 4000 characters, 3000 bytes
  const opening = { role: 'user', content: 'Find the parser release notes.' };
  const asked = { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'parser release notes' } }] };
  const searched = (encrypted) => ({
    role: 'assistant',
    content: [{ type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [{ type: 'web_search_result', url: 'https://example.com/notes', title: 'Release notes', encrypted_content: encrypted, page_age: null }] }],
  });
  const tokens = (h, extra = {}) => fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 100_000 }, ...extra }).metrics.prompt_tokens;
  const withBlob = tokens([opening, asked, searched(blob)]);
  const without = tokens([opening, asked, searched('')]);
  assert.equal(withBlob - without, 3000, 'a web search result: one token per byte of its encrypted content');

  const compacted = (encrypted) => [{ role: 'assistant', content: [{ type: 'compaction', content: 'Summary: the parser is refactored.', encrypted_content: encrypted }] }, { role: 'user', content: 'Go on.' }];
  assert.equal(tokens(compacted(blob)), tokens(compacted(null)), 'a compaction: its encrypted metadata is 0, its summary counted');
  // countPart receives the block itself.
  const seen = [];
  const counted = tokens(compacted(blob), { countPart: (part) => (seen.push(part.type), part.type === 'compaction' ? 7 : undefined) });
  assert.deepEqual(seen, ['compaction']);
  assert.equal(counted, tokens(compacted(null)) + 7);
  // Never text: the blob is not in what relevance reads (a query of its characters finds nothing).
  const scores = (encrypted) => fitMessages([opening, asked, searched(encrypted), { role: 'user', content: 'thanks' }], { format: 'anthropic', budgets: { tokens_max: 100_000 }, query: blob.slice(0, 200) }).decisions.map((d) => d.score);
  assert.deepEqual(scores(blob), scores(randomBytes(3000).toString('base64')));
});
