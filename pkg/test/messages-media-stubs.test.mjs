// stubMedia: a message with images or files that is not kept by rule may go in as a stub whose
// non-text parts read as a note (`[image omitted: 1568×980]`, the size from the header), valid
// where the part was in each format, deterministic, and said in the decision (`stubbed: true`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { createSession, fitMessages, validateMessages } from 'ctxpack';
import { sdkCheck } from './sdk-check.mjs';

const W = 1568;
const H = 980;
const png = await sharp({ create: { width: W, height: H, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer();
const b64 = png.toString('base64');
const url = `data:image/png;base64,${b64}`;
const NOTE = `[image omitted: ${W}×${H}]`;
const STEPS = 10;

/** A user message with the text `text` and the screenshot, as `format` carries it. */
function shot(format, text) {
  switch (format) {
    case 'openai':
      return { role: 'user', content: [{ type: 'text', text }, { type: 'image_url', image_url: { url, detail: 'high' } }] };
    case 'anthropic':
      return { role: 'user', content: [{ type: 'text', text }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }] };
    case 'ai-sdk':
      return { role: 'user', content: [{ type: 'text', text }, { type: 'image', image: new Uint8Array(png), mediaType: 'image/png' }] };
    case 'langchain':
      return new HumanMessage({ content: [{ type: 'text', text }, { type: 'image', source_type: 'base64', data: b64, mime_type: 'image/png' }] });
    case 'openai-responses':
      return { role: 'user', content: [{ type: 'input_text', text }, { type: 'input_image', image_url: url, detail: 'high' }] };
  }
}

function reply(format, text) {
  if (format === 'langchain') return new AIMessage(text);
  if (format === 'anthropic' || format === 'ai-sdk' || format === 'openai-responses') return { role: 'assistant', content: [{ type: format === 'openai-responses' ? 'output_text' : 'text', text, ...(format === 'openai-responses' ? { annotations: [] } : {}) }] };
  return { role: 'assistant', content: text };
}

/** A task, then per step a screenshot with a line of text and the assistant's reply. */
function history(format) {
  const h = [];
  for (let k = 0; k < STEPS; k++) {
    h.push(shot(format, `Screen after step ${k}: the booking form, field ${k} filled.`));
    h.push(reply(format, `Step ${k} done; clicking the next field.`));
  }
  h.push(shot(format, 'Now submit the form.'));
  return h;
}

const FORMATS = ['openai', 'anthropic', 'ai-sdk', 'langchain', 'openai-responses'];
const options = (format, extra = {}) => ({ format, budgets: { tokens_max: 7_000 }, ...extra });
const json = (messages) => JSON.stringify(messages, (k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));

for (const format of FORMATS) {
  test(`${format}: old screenshots go in as notes, their text kept, a valid request within budget`, () => {
    const h = history(format);
    const before = json(h);
    const without = fitMessages(h, options(format));
    const r = fitMessages(h, options(format, { stubMedia: true }));
    assert.deepEqual(validateMessages(r.messages, format), []);
    sdkCheck(format, r.messages);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
    const stubbed = r.decisions.filter((d) => d.stubbed);
    assert.ok(stubbed.length > 0, 'no message went in as a stub');
    assert.ok(r.metrics.messages_kept > without.metrics.messages_kept, `kept ${r.metrics.messages_kept}, without stubs ${without.metrics.messages_kept}`);
    for (const d of stubbed) assert.ok(d.stub_tokens < d.cost_tokens && d.media_tokens > 0);
    // Each stub carries its text and the note, and no bytes of the image.
    const sent = json(r.messages);
    const notes = sent.split(NOTE).length - 1;
    assert.equal(notes, stubbed.length);
    assert.equal(sent.split(b64.slice(0, 64)).length - 1, r.metrics.messages_kept - stubbed.length - r.decisions.filter((d) => d.included && d.index % 2 === 1).length);
    for (const d of stubbed) assert.ok(sent.includes(`Screen after step ${d.index / 2}:`));
    // The caller's messages are untouched, and the same history gives the same bytes.
    assert.equal(json(h), before);
    assert.equal(json(fitMessages(h, options(format, { stubMedia: true })).messages), sent);
  });
}

test('the note stands where the image was, as a text part of the format', () => {
  const at = (format) => fitMessages(history(format), options(format, { stubMedia: true }));
  const first = (r) => r.messages[0];
  assert.deepEqual(first(at('openai')).content, [{ type: 'text', text: 'Screen after step 0: the booking form, field 0 filled.' }, { type: 'text', text: NOTE }]);
  assert.deepEqual(first(at('anthropic')).content[1], { type: 'text', text: NOTE });
  assert.deepEqual(first(at('ai-sdk')).content[1], { type: 'text', text: NOTE });
  const lc = first(at('langchain'));
  assert.ok(lc instanceof HumanMessage);
  assert.deepEqual(lc.content[1], { type: 'text', text: NOTE });
  assert.deepEqual(first(at('openai-responses')).content[1], { type: 'input_text', text: NOTE });
});

test('Anthropic: a screenshot inside a tool_result becomes a text block there, the pair kept', () => {
  const h = [{ role: 'user', content: 'Book the flight.' }];
  for (let k = 0; k < STEPS; k++) {
    h.push({ role: 'assistant', content: [{ type: 'text', text: `Step ${k}.` }, { type: 'tool_use', id: `tu_${k}`, name: 'computer', input: { action: 'screenshot' } }] });
    h.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `tu_${k}`, content: [{ type: 'text', text: `screen ${k}` }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 }, ...(k < 3 ? { cache_control: { type: 'ephemeral' } } : {}) }] }],
    });
  }
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 7_000 }, stubMedia: true });
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  // The first three images carry cache_control (3 markers, within Anthropic's 4): a stub of one keeps it on its note.
  const stubs = r.decisions.filter((d) => d.stubbed).map((d) => d.index);
  assert.ok(stubs.includes(2), `stubbed: ${stubs}`);
  const stub = r.messages[r.decisions.filter((d) => d.included && d.index < 2).length];
  assert.equal(stub.content[0].type, 'tool_result');
  assert.equal(stub.content[0].tool_use_id, 'tu_0');
  assert.deepEqual(stub.content[0].content, [{ type: 'text', text: 'screen 0' }, { type: 'text', text: NOTE, cache_control: { type: 'ephemeral' } }]);
});

test('AI SDK: image-data in a tool result content output, and a PDF file part, as text items', async () => {
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n2 0 obj << /Type /Page >> endobj\n3 0 obj << /Type /Pages /Count 2 >> endobj\n%%EOF\n');
  const h = [{ role: 'user', content: [{ type: 'text', text: 'Read the contract.' }, { type: 'file', data: new Uint8Array(pdf), mediaType: 'application/pdf' }] }];
  for (let k = 0; k < STEPS; k++) {
    h.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${k}`, toolName: 'screenshot', input: {} }] });
    h.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${k}`, toolName: 'screenshot', output: { type: 'content', value: [{ type: 'text', text: `screen ${k}` }, { type: 'image-data', data: b64, mediaType: 'image/png' }] } }] });
  }
  h.push({ role: 'user', content: 'Go on.' });
  // 9,600 tokens: eight screenshot steps whole, the two oldest as stubs.
  const r = fitMessages(h, { format: 'ai-sdk', budgets: { tokens_max: 9_600 }, stubMedia: true });
  sdkCheck('ai-sdk', r.messages);
  assert.deepEqual(validateMessages(r.messages, 'ai-sdk'), []);
  const tool = r.messages.find((m) => m.role === 'tool' && JSON.stringify(m).includes(NOTE));
  assert.deepEqual(tool.content[0].output.value[1], { type: 'text', text: NOTE });
  // The contract (a PDF of 2 pages, counted at 2 × (3000 + 1105)) goes in as its text and a note.
  assert.equal(r.decisions[0].stubbed, true);
  assert.deepEqual(r.messages[0].content, [{ type: 'text', text: 'Read the contract.' }, { type: 'text', text: '[PDF omitted: 2 pages]' }]);
});

test('with stubToolResults too, one stub carries both notes', () => {
  const h = [{ role: 'user', content: 'Book the flight.' }];
  for (let k = 0; k < STEPS; k++) {
    h.push({ role: 'assistant', content: [{ type: 'tool_use', id: `tu_${k}`, name: 'computer', input: {} }] });
    h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${k}`, content: [{ type: 'text', text: `screen ${k} `.repeat(200) }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }] }] });
  }
  const both = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 4_000 }, stubMedia: true, stubToolResults: true });
  assert.deepEqual(validateMessages(both.messages, 'anthropic'), []);
  const stub = both.messages.find((m, k) => k > 0 && JSON.stringify(m).includes('[tool result omitted'));
  assert.ok(stub !== undefined);
  assert.ok(!JSON.stringify(stub).includes(b64.slice(0, 64)));
});

test('default off; a message kept by rule is never stubbed; invalid values are INVALID_OPTION', () => {
  const h = history('openai');
  assert.ok(fitMessages(h, options('openai')).decisions.every((d) => d.stubbed === undefined));
  const r = fitMessages(h, options('openai', { stubMedia: true }));
  assert.equal(r.decisions.at(-1).reason, 'pinned');
  assert.equal(r.decisions.at(-1).stubbed, undefined);
  assert.ok(json(r.messages.at(-1)).includes(b64.slice(0, 64)));
  assert.throws(() => fitMessages(h, options('openai', { stubMedia: 'yes' })), { code: 'INVALID_OPTION' });
  assert.throws(() => createSession(options('openai', { stubMedia: 'yes' })).fit(h), { code: 'INVALID_OPTION' });
});

for (const format of FORMATS) {
  test(`${format}: a session with stubMedia sends a screenshot step it stubbed as the same stub while it is in the reused prefix`, () => {
    const session = createSession(options(format, { stubMedia: true, cache: 'openai' }));
    const full = history(format);
    let previous;
    let reusedStubs = 0;
    for (let end = 1; end <= full.length; end += 2) {
      const r = session.fit(full.slice(0, end));
      assert.deepEqual(validateMessages(r.messages, format), [], `end ${end}`);
      sdkCheck(format, r.messages);
      assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, `end ${end}`);
      if (previous !== undefined) {
        const n = r.cache.prefixMessages;
        assert.equal(json(r.messages.slice(0, n)), json(previous.slice(0, n)), `end ${end}: the reused prefix is the previous request's bytes`);
      }
      reusedStubs += r.decisions.filter((d) => d.stubbed && d.reason === 'cached_prefix').length;
      previous = r.messages;
    }
    assert.ok(reusedStubs > 0, 'a stub went out again as the same stub');
  });
}

test('Responses: a computer call screenshot is never rewritten', () => {
  const items = [{ role: 'user', content: 'Book the flight.' }];
  for (let k = 0; k < STEPS; k++) {
    items.push({ type: 'computer_call', id: `cu_${k}`, call_id: `call_${k}`, action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' });
    items.push({ type: 'computer_call_output', call_id: `call_${k}`, output: { type: 'computer_screenshot', image_url: url } });
  }
  const r = fitMessages(items, { format: 'openai-responses', budgets: { tokens_max: 7_000 }, stubMedia: true });
  assert.ok(r.decisions.every((d) => d.stubbed === undefined));
  sdkCheck('openai-responses', r.messages);
});

/** A PDF of `pages` pages (as media.test.mjs makes them). */
function pdfBase64(pages) {
  const parts = ['%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', `2 0 obj\n<< /Type /Pages /Count ${pages} >>\nendobj\n`];
  for (let i = 0; i < pages; i++) parts.push(`${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nstream\n\nendstream\nendobj\n`);
  parts.push('trailer << /Root 1 0 R >>\n%%EOF\n');
  return Buffer.from(parts.join(''), 'latin1').toString('base64');
}

// A new-user trial found stubMedia turning the document of an assistant's web_fetch_tool_result
// into a text block: @anthropic-ai/sdk's BetaWebFetchBlockParam.content must be a document, so the
// API refused the request.
test('server tool results are left whole: Anthropic web_fetch_tool_result (and through LangChain), the AI SDK provider-executed tool-result', async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const fetched = { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'web_fetch_result', url: 'https://example.com/report.pdf', retrieved_at: '2025-01-01T00:00:00Z',
    content: { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdfBase64(2) }, title: 'report.pdf', citations: { enabled: true } } } };
  const serverCall = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_fetch', input: { url: 'https://example.com/report.pdf' } };
  const history = [
    { role: 'user', content: [{ type: 'text', text: 'Fetch the report, and look at this screenshot.' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }] },
    { role: 'assistant', content: [serverCall, fetched, { type: 'text', text: 'The report says revenue grew.' }] },
    { role: 'user', content: 'Thanks. Now a haiku about rain.' },
  ];
  /** Every sent message holding a server tool result holds the caller's own block. */
  const wholeResults = (messages, label) => {
    for (const m of messages) {
      const blocks = Array.isArray(m.content) ? m.content : [];
      if (blocks.some((x) => x.type === 'web_fetch_tool_result')) assert.ok(blocks.includes(fetched), `${label}: the web_fetch_tool_result as it came`);
    }
  };
  // Below the document's count (2 pages) the assistant message cannot go whole: it is left out, never sent with a note for its document.
  for (const tokens_max of [1500, 1500 + 2 * (3000 + 1640)]) {
    const r = fitMessages(history, { format: 'anthropic', budgets: { tokens_max }, stubMedia: true });
    assert.notEqual(r.decisions[1].stubbed, true, `${tokens_max}: no stub of the server tool result`);
    wholeResults(r.messages, String(tokens_max));
    assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  }
  // Above it, the screenshot's message goes in as a stub, the fetched document as it came.
  const r = fitMessages(history, { format: 'anthropic', budgets: { tokens_max: 1500 + 2 * (3000 + 1640) }, stubMedia: true });
  assert.equal(r.decisions[0].stubbed, true, 'the screenshot is stubbed');
  assert.equal(r.messages[1], history[1], 'the assistant message with the server tool result is the caller’s own');
  // @anthropic-ai/sdk's own types: the request, stub included, is a BetaMessageParam[] (a text block in place of the document is not).
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const dir = join(root, 'node_modules', '.cache', 'ctxpack-server-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'request.ts'), [
    "import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';",
    `export const sent: BetaMessageParam[] = ${JSON.stringify(r.messages)};`,
    `// @ts-expect-error: a text block is not a web_fetch_result's document\nexport const stubbed: BetaMessageParam = ${JSON.stringify({ role: 'assistant', content: [{ ...fetched, content: { ...fetched.content, content: { type: 'text', text: '[PDF omitted: 2 pages]' } } }] })};`,
  ].join('\n') + '\n');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: true, types: [] }, files: ['request.ts'] }));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc: ${String(e.stdout).slice(0, 2000)}`);
  }

  // LangChain passes Anthropic's blocks through: the same block is left whole there.
  const lc = [new HumanMessage({ content: history[0].content }), new AIMessage({ content: history[1].content }), new HumanMessage(history[2].content)];
  const lcWhole = fitMessages(lc, { format: 'langchain', budgets: { tokens_max: 100_000 } }).metrics.budget_used;
  for (const tokens_max of [1500, lcWhole - 100]) {
    const l = fitMessages(lc, { format: 'langchain', budgets: { tokens_max }, stubMedia: true });
    assert.notEqual(l.decisions[1].stubbed, true, `LangChain ${tokens_max}: no stub of the server tool result`);
    wholeResults(l.messages, `LangChain ${tokens_max}`);
  }
  const l = fitMessages(lc, { format: 'langchain', budgets: { tokens_max: lcWhole - 100 }, stubMedia: true });
  assert.equal(l.decisions[0].stubbed, true);
  assert.equal(l.messages[1], lc[1]);

  // The AI SDK: a provider-executed tool's result in the assistant message is sent back as it came; a client tool's image still becomes a note.
  const ai = [
    { role: 'user', content: 'Fetch the diagram.' },
    { role: 'assistant', content: [
      { type: 'tool-call', toolCallId: 'srv_1', toolName: 'web_fetch', input: { url: 'https://example.com/d.png' }, providerExecuted: true },
      { type: 'tool-result', toolCallId: 'srv_1', toolName: 'web_fetch', output: { type: 'content', value: [{ type: 'image-data', data: b64, mediaType: 'image/png' }] } },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} },
    ] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'shot', output: { type: 'content', value: [{ type: 'image-data', data: b64, mediaType: 'image/png' }] } }] },
    { role: 'user', content: 'What do they show?' },
  ];
  const whole = fitMessages(ai, { format: 'ai-sdk', budgets: { tokens_max: 100_000 } });
  assert.ok(whole.decisions.every((d) => d.included));
  const tight = fitMessages(ai, { format: 'ai-sdk', budgets: { tokens_max: whole.metrics.budget_used - 100 }, stubMedia: true });
  const stubbedTool = tight.decisions.find((d) => d.index === 2);
  assert.equal(stubbedTool.stubbed, true, 'the client tool result is stubbed');
  const sentAssistant = tight.messages.find((m) => m.role === 'assistant');
  assert.equal(sentAssistant, ai[1], 'the provider-executed result is left whole: the assistant message is the caller’s own');
  sdkCheck('ai-sdk', tight.messages);
});
