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
