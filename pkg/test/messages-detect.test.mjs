// detectMessageFormat on the four formats' own shapes (LangChain as real class instances), on the
// ambiguous plain-text case, and on what it must refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CtxpackError, detectMessageFormat, fitMessages, MESSAGE_FORMATS } from 'ctxpack';
import { FORMATS, randomHistory, render } from './messages-histories.mjs';

const hasTools = (h) => h.events.some((e) => e.kind === 'calls');

test('each format is detected from histories with tool calls (seeded random histories)', () => {
  let checked = 0;
  for (let seed = 0; seed < 60; seed++) {
    const history = randomHistory(seed);
    if (!hasTools(history)) continue;
    for (const format of MESSAGE_FORMATS) {
      const { messages, system } = render(history, format);
      assert.equal(detectMessageFormat(messages, { system }), format, `seed ${seed}, ${format}`);
      checked++;
    }
  }
  assert.ok(checked >= 100, `only ${checked} histories had tool calls`);
});

test('plain user/assistant text: openai, or anthropic when a top-level system prompt is given; either fits alike', () => {
  const messages = [
    { role: 'user', content: 'hello there' },
    { role: 'assistant', content: 'hi' },
    { role: 'user', content: 'what is the plan' },
  ];
  assert.equal(detectMessageFormat(messages), 'openai');
  assert.equal(detectMessageFormat(messages, { system: 'Be brief.' }), 'anthropic');
  const budgets = { tokens_max: 12 };
  const a = fitMessages(messages, { format: 'openai', budgets });
  const b = fitMessages(messages, { format: 'anthropic', budgets });
  assert.deepEqual(a.decisions, b.decisions);
});

test('an OpenAI system or developer message decides openai even without tool calls', () => {
  assert.equal(detectMessageFormat([{ role: 'developer', content: 'x' }, { role: 'user', content: 'y' }]), 'openai');
  assert.equal(detectMessageFormat([{ role: 'system', content: 'x' }, { role: 'user', content: 'y' }]), 'openai');
});

test('an AI SDK reasoning part decides ai-sdk; an Anthropic thinking block decides anthropic', () => {
  assert.equal(detectMessageFormat([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 'a' }] }]), 'ai-sdk');
  assert.equal(
    detectMessageFormat([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'r', signature: 's' }, { type: 'text', text: 'a' }] }]),
    'anthropic',
  );
});

test('messages that are not an array: INVALID_INPUT naming the field, never the value', () => {
  for (const bad of [undefined, null, 'messages', { role: 'user' }]) {
    assert.throws(
      () => detectMessageFormat(bad),
      (e) => e instanceof CtxpackError && e.code === 'INVALID_INPUT' && e.field === 'messages' && !e.message.includes('"messages"'),
    );
  }
});

test('junk elements are not read as any format: the default, left for fitMessages to report', () => {
  assert.equal(detectMessageFormat([null, 7, 'text', []]), 'openai');
  assert.throws(() => fitMessages([null], { format: detectMessageFormat([null]), budgets: { tokens_max: 10 } }), (e) => e instanceof CtxpackError && e.code === 'INVALID_FIELD');
});

// Issue 28: histories whose only Anthropic blocks were images, documents or MCP calls were read as
// OpenAI, and fitting them as OpenAI could open the request with an assistant message.
const ANTHROPIC_ONLY_BY = {
  'an image block with a source': { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
  'a document block with a source': { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } },
  'an mcp_tool_use block': { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'search', server_name: 's', input: {} },
  'an mcp_tool_result block': { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', content: 'r' },
  'a search_result block': { type: 'search_result', source: 'https://example.com', title: 't', content: [{ type: 'text', text: 'r' }] },
  'a container_upload block': { type: 'container_upload', file_id: 'file_1' },
  'a compaction block': { type: 'compaction', content: 'summary of the earlier turns' },
  'a code_execution_tool_result block': { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'code_execution_result', stdout: '', stderr: '', return_code: 0, content: [] } },
};

test('Anthropic histories are detected from any Anthropic-only block, images and documents by their source', () => {
  for (const [what, block] of Object.entries(ANTHROPIC_ONLY_BY)) {
    const long = 'an earlier question about the weather in several cities '.repeat(30);
    const messages = [
      { role: 'user', content: long },
      { role: 'assistant', content: 'an earlier answer' },
      { role: 'user', content: [block, { type: 'text', text: 'what does this say?' }] },
    ];
    const format = detectMessageFormat(messages);
    assert.equal(format, 'anthropic', what);
    // What the CLI does with the detected format: the request opens with a user message. (Parts by
    // URL count the rule's maximum, 100 pages for a PDF: one token each here, to keep the budget small.)
    const r = fitMessages(messages, { format, budgets: { tokens_max: 120 }, countPart: () => 1 });
    assert.equal(r.messages[0].role, 'user', what);
    assert.equal(r.decisions[1].reason, 'first_not_user', what);
  }
});

test('shared part types decide by their fields: OpenAI image_url and file parts, AI SDK image and file parts', () => {
  const withPart = (part) => [{ role: 'user', content: [{ type: 'text', text: 'look' }, part] }, { role: 'assistant', content: 'seen' }];
  assert.equal(detectMessageFormat(withPart({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } })), 'openai');
  assert.equal(detectMessageFormat(withPart({ type: 'file', file: { file_id: 'file-1' } })), 'openai');
  assert.equal(detectMessageFormat(withPart({ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } })), 'openai');
  assert.equal(detectMessageFormat(withPart({ type: 'image', image: 'https://example.com/a.png' })), 'ai-sdk');
  assert.equal(detectMessageFormat(withPart({ type: 'file', data: 'AAAA', mediaType: 'application/pdf' })), 'ai-sdk');
  assert.equal(detectMessageFormat(withPart({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } })), 'anthropic');
  // An image part with neither field says nothing: the plain-text default.
  assert.equal(detectMessageFormat(withPart({ type: 'image' })), 'openai');
  assert.equal(detectMessageFormat(withPart({ type: 'image' }), { system: 'x' }), 'anthropic');
});

test('fitMessages warns when the messages have a shape only another format has, and never for a history of its own format', () => {
  const anthropic = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'log '.repeat(400) }] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'next' },
  ];
  const r = fitMessages(anthropic, { format: 'openai', budgets: { tokens_max: 200 } });
  assert.ok(r.warnings.some((w) => w.includes("only the 'anthropic' format has") && w.includes("format is 'openai'")), r.warnings.join('\n'));
  assert.ok(!r.warnings.some((w) => w.includes('log')), 'never the text');
  for (const format of FORMATS) {
    for (const seed of [1, 2, 3]) {
      const { messages, system } = render(randomHistory(seed), format);
      const fit = fitMessages(messages, { format, budgets: { tokens_max: 100_000 }, ...(system === undefined ? {} : { system }) });
      assert.ok(!fit.warnings.some((w) => w.includes('only the')), `${format} ${seed}: ${fit.warnings.join('\n')}`);
    }
  }
});

test('an OpenAI tool message with text parts as content is openai, not ai-sdk (new-user trial finding)', () => {
  // openai's ChatCompletionToolMessageParam: content is a string or an array of text parts.
  const history = [
    { role: 'system', content: 'You are a coder.' },
    { role: 'user', content: 'Read the db.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_db', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'rows: 3' }] },
    { role: 'user', content: 'Summarise.' },
  ];
  assert.equal(detectMessageFormat(history), 'openai');
  const r = fitMessages(history, { format: 'openai', budgets: { tokens_max: 1000 } });
  assert.deepEqual(r.warnings, [], 'no warning of another format');
  assert.equal(r.messages.length, 5);
});
