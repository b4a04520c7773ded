// The media of the step in flight that cutting text cannot make fit: a tool that returns a PDF or
// many screenshots. A new-user trial found a 45-page PDF in an Anthropic tool_result ending the
// agent's run at a 200k budget with PINNED_OVER_BUDGET (208,847 tokens), whatever the options
// (stubMedia, stubToolResults, truncateToolResults: { maxTokens }), and the error saying "with
// its tool results truncated" when there was no text to cut. Now the step's media go in as their
// notes, the largest first, only when the texts cut to their markers still would not fit; the
// request is valid in each format, the warning names the message, and the error names what is
// over when nothing more can go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createSession, fitMessages, fitMessagesAsync, estimateTokens, validateMessages } from 'ctxpack';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { sdkCheck } from './sdk-check.mjs';

/** A real PDF of `pages` pages, each with a line of text, its xref table and trailer. */
function makePdf(pages) {
  const objs = ['<< /Type /Catalog /Pages 2 0 R >>'];
  objs.push(`<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages} >>`);
  for (let i = 0; i < pages; i++) {
    const stream = `BT /F1 24 Tf 72 720 Td (Clause ${i + 1} of the contract) Tj ET`;
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>`);
    objs.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = '%PDF-1.4\n';
  const offsets = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const PDF = makePdf(45);
const B64 = PDF.toString('base64');
const NOTE = '[PDF omitted: 45 pages]';
const TASK = 'Summarise the contract the tool returns.';
const SYSTEM = 'You are an analyst.';
const BUDGETS = { tokens_max: 200_000, output_reserve: 8_000 };

/** The trial's history: the task, the call, its result holding the PDF (and `text` before it, when given). */
function anthropicHistory(text) {
  const content = [...(text === undefined ? [] : [{ type: 'text', text }]), { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: B64 } }];
  return [
    { role: 'user', content: TASK },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'contract.pdf' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content }] },
  ];
}

/** What a fit with the PDF as its note must be: valid, within budget, the note where the document was, the warning naming the message. */
function checkNoted(r, history, label) {
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), [], label);
  sdkCheck('anthropic', r.messages, history);
  assert.equal(r.messages.length, 3, `${label}: the task, the call and its result`);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, label);
  const result = r.messages[2].content[0];
  assert.equal(result.type, 'tool_result');
  assert.equal(result.tool_use_id, 'toolu_1', `${label}: the pair is kept`);
  assert.deepEqual(result.content.at(-1), { type: 'text', text: NOTE }, `${label}: the note stands where the document was`);
  assert.ok(!JSON.stringify(r.messages).includes(B64.slice(0, 200)), `${label}: no PDF bytes go out`);
  const d = r.decisions[2];
  assert.equal(d.reason, 'pinned');
  assert.ok(d.truncated.from > r.metrics.effective_budget && d.truncated.to === d.cost_tokens && d.cost_tokens < 100, `${label}: ${JSON.stringify(d)}`);
  assert.equal(d.media_tokens, undefined, `${label}: no media left in it`);
  const w = r.warnings.filter((x) => x.startsWith('media_replaced:'));
  assert.equal(w.length, 1, `${label}: ${r.warnings}`);
  assert.match(w[0], /^media_replaced: messages\[2\] went in with 1 PDF of its tool results replaced by a note/);
  assert.ok(!w[0].includes('Summarise') && !w[0].includes('contract'), `${label}: the warning names no content`);
}

test('anthropic: a 45-page PDF in the tool result in flight goes in as its note at 200k, with every option the trial tried', () => {
  const history = anthropicHistory();
  const before = JSON.stringify(history);
  for (const extra of [{}, { stubMedia: true }, { stubToolResults: true, stubMedia: true }, { truncateToolResults: { maxTokens: 20_000 } }]) {
    const r = fitMessages(history, { format: 'anthropic', system: SYSTEM, budgets: BUDGETS, ...extra });
    checkNoted(r, history, JSON.stringify(extra));
  }
  assert.equal(JSON.stringify(history), before, "the caller's messages are never modified");
});

test('anthropic: a session fits the step in flight with the note, and goes on once the step is done; the async fit agrees', async () => {
  const history = anthropicHistory('The contract, as the tool read it:');
  const options = { format: 'anthropic', system: SYSTEM, budgets: BUDGETS };
  const session = createSession(options);
  const first = session.fit(history);
  checkNoted(first, history, 'session');
  assert.equal(first.messages[2].content[0].content[0].text, 'The contract, as the tool read it:', 'the text beside it is kept whole');
  const sync = fitMessages(history, options);
  const async_ = await fitMessagesAsync(history, { ...options, countTokens: async (t) => estimateTokens(t) });
  assert.deepEqual(async_.messages, sync.messages, 'an async counter gives the same request');
  assert.deepEqual(async_.warnings, sync.warnings);
  // The model answered from the note; the next task: the PDF step is no longer in flight, and competes (too large: left out).
  const later = [...history, { role: 'assistant', content: 'The tool returned a 45-page PDF that did not fit; ask for pages.' }, { role: 'user', content: 'Then read its first page only.' }];
  const next = session.fit(later);
  assert.deepEqual(validateMessages(next.messages, 'anthropic'), []);
  assert.ok(next.metrics.budget_used <= next.metrics.effective_budget);
  assert.equal(next.decisions.at(-1).reason, 'pinned');
  assert.ok(!next.warnings.some((w) => w.startsWith('media_replaced:')), 'only a step in flight has its media replaced');
});

test('the text is cut first: when the texts cut leave room for the PDF, the PDF stays', () => {
  // 45 pages at 4,640 tokens each: 208,800. At 260k the PDF fits beside a cut log, not beside the whole log.
  const log = Array.from({ length: 12_000 }, (_, i) => `line ${i}: GET /api/clause/${i % 977} 200`).join('\n');
  assert.ok(estimateTokens(log) > 60_000);
  const history = anthropicHistory(log);
  const r = fitMessages(history, { format: 'anthropic', system: SYSTEM, budgets: { tokens_max: 260_000 } });
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  const content = r.messages[2].content[0].content;
  assert.equal(content.at(-1).type, 'document', 'the PDF is kept');
  assert.match(content[0].text, /\[… \d+ characters left out …\]/, 'its text is cut');
  assert.equal(r.decisions[2].media_tokens, 45 * (3000 + 1640));
  assert.ok(!r.warnings.some((w) => w.startsWith('media_replaced:')));
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
});

test('ai-sdk: a PDF file-data item in a content output goes in as a text item, the output a valid content output', () => {
  const history = [
    { role: 'user', content: TASK },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'contract.pdf' } }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'content', value: [{ type: 'text', text: 'contract.pdf' }, { type: 'file-data', data: B64, mediaType: 'application/pdf' }] } }],
    },
  ];
  const r = fitMessages(history, { format: 'ai-sdk', provider: 'anthropic', system: SYSTEM, budgets: BUDGETS });
  sdkCheck('ai-sdk', r.messages, history);
  assert.deepEqual(validateMessages(r.messages, 'ai-sdk'), []);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
  const part = r.messages[2].content[0];
  assert.equal(part.toolCallId, 'c1');
  assert.deepEqual(part.output, { type: 'content', value: [{ type: 'text', text: 'contract.pdf' }, { type: 'text', text: NOTE }] });
  assert.ok(r.warnings.some((w) => w.startsWith('media_replaced: messages[2] went in with 1 PDF')), String(r.warnings));
});

test('langchain: a PDF file block in a ToolMessage goes in as a text block of a new ToolMessage, its call id kept', () => {
  const history = [
    new HumanMessage(TASK),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_file', args: { path: 'contract.pdf' } }] }),
    new ToolMessage({ tool_call_id: 'c1', content: [{ type: 'text', text: 'contract.pdf' }, { type: 'file', source_type: 'base64', data: B64, mime_type: 'application/pdf' }] }),
  ];
  const r = fitMessages(history, { format: 'langchain', provider: 'anthropic', budgets: BUDGETS });
  sdkCheck('langchain', r.messages, history);
  assert.deepEqual(validateMessages(r.messages, 'langchain'), []);
  assert.ok(r.messages[2] instanceof ToolMessage && r.messages[2] !== history[2]);
  assert.equal(r.messages[2].tool_call_id, 'c1');
  assert.deepEqual(r.messages[2].content, [{ type: 'text', text: 'contract.pdf' }, { type: 'text', text: NOTE }]);
  assert.equal(history[2].content[1].type, 'file', "the caller's message is never modified");
});

test('openai-responses: screenshots in a function_call_output go in as input_text notes, the largest first and no more than needed', async () => {
  const shot = async (w, h) => `data:image/png;base64,${(await sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 30, b: 60 } } }).png().toBuffer()).toString('base64')}`;
  const big = await shot(1920, 1080);
  const small = await shot(400, 300);
  // Twelve full-screen shots and four thumbnails, interleaved, in one result.
  const output = [{ type: 'input_text', text: 'the screens, in order' }];
  for (let k = 0; k < 16; k++) output.push({ type: 'input_image', image_url: k % 4 === 3 ? small : big, detail: 'high' });
  const history = [
    { role: 'user', content: 'Which screen shows the error?' },
    { type: 'function_call', call_id: 'fc_1', name: 'capture_screens', arguments: '{}' },
    { type: 'function_call_output', call_id: 'fc_1', output },
  ];
  const one = (url) => fitMessages([{ role: 'user', content: [{ type: 'input_image', image_url: url, detail: 'high' }] }], { format: 'openai-responses', model: 'gpt-4o', budgets: { tokens_max: 100_000 } }).decisions[0].media_tokens;
  const [bigTokens, smallTokens] = [one(big), one(small)];
  assert.ok(bigTokens > 2 * smallTokens, `${bigTokens} ${smallTokens}`);
  const options = { format: 'openai-responses', model: 'gpt-4o', budgets: { tokens_max: 9_000 } };
  const r = fitMessages(history, options);
  sdkCheck('openai-responses', r.messages, history);
  assert.deepEqual(validateMessages(r.messages, 'openai-responses'), []);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
  const sent = r.messages[2].output;
  assert.equal(r.messages[2].call_id, 'fc_1');
  assert.equal(sent.length, output.length, 'every part stands where it was');
  const noted = sent.map((p, k) => (p.type === 'input_text' && k > 0 ? k : -1)).filter((k) => k >= 0);
  for (const k of noted) assert.deepEqual(sent[k], { type: 'input_text', text: '[image omitted: 1920×1080]' }, 'only full-screen shots are replaced');
  assert.ok(noted.length > 0 && noted.length < 12);
  // The earliest of the largest first, and no more than needed: one fewer would not fit.
  assert.deepEqual(noted, [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14].map((k) => k + 1).slice(0, noted.length));
  assert.ok(r.metrics.budget_used + bigTokens > r.metrics.effective_budget, `${r.metrics.budget_used} + ${bigTokens}`);
  assert.match(r.warnings.find((w) => w.startsWith('media_replaced:')), new RegExp(`^media_replaced: messages\\[2\\] went in with ${noted.length} images of its tool results replaced by notes`));
});

test('truncateToolResults: { media: false } keeps the media and fails, naming why; false too; a non-boolean is INVALID_OPTION', () => {
  const history = anthropicHistory();
  const options = { format: 'anthropic', system: SYSTEM, budgets: BUDGETS };
  assert.throws(
    () => fitMessages(history, { ...options, truncateToolResults: { media: false } }),
    (e) => e.code === 'PINNED_OVER_BUDGET' && /the most is messages\[2\], \d+ tokens \(208800 of them its images, PDFs or files\): truncateToolResults\.media is false$/.test(e.message),
  );
  assert.throws(
    () => fitMessages(history, { ...options, truncateToolResults: false }),
    (e) => e.code === 'PINNED_OVER_BUDGET' && e.message.endsWith(': truncateToolResults is false') && !e.message.includes('truncated'),
  );
  assert.throws(() => fitMessages(history, { ...options, truncateToolResults: { media: 'no' } }), (e) => e.code === 'INVALID_OPTION' && e.field === 'truncateToolResults.media');
  assert.throws(() => fitMessages(history, { ...options, truncateToolResults: { pdf: false } }), (e) => e.code === 'INVALID_OPTION' && e.field === 'truncateToolResults.pdf');
  assert.equal(fitMessages(history, { ...options, truncateToolResults: { media: true } }).messages[2].content[0].content[0].text, NOTE);
});

test('PINNED_OVER_BUDGET when nothing more can go says what was done and what is over, never the content', () => {
  const SECRET = 'SECRET-CLAUSE';
  // A pasted task of ~250k tokens: a user message is cut only with truncateUserMessage.
  const pasted = `${SECRET} `.repeat(150_000);
  assert.ok(estimateTokens(pasted) > BUDGETS.tokens_max);
  const history = [{ role: 'user', content: pasted }, ...anthropicHistory().slice(1)];
  const options = { format: 'anthropic', system: SYSTEM, budgets: BUDGETS };
  assert.throws(
    () => fitMessages(history, options),
    (e) =>
      e.code === 'PINNED_OVER_BUDGET' &&
      e.field === 'budgets' &&
      / tokens with 1 PDF of its tool results as a note, \d+ more than the effective budget 192000; the most is messages\[0\], \d+ tokens: a user message is cut only with truncateUserMessage: true$/.test(e.message) &&
      !e.message.includes('tool results truncated') &&
      !e.message.includes(SECRET),
  );
  // Nothing to cut at all (no tool result): no claim that anything was truncated.
  assert.throws(
    () => fitMessages([{ role: 'user', content: pasted }], options),
    (e) => e.code === 'PINNED_OVER_BUDGET' && !e.message.includes('truncated') && !e.message.includes(' as a note') && /; the most is messages\[0\], \d+ tokens: a user message is cut only with truncateUserMessage: true$/.test(e.message),
  );
  // The system prompt alone over the budget: named as such.
  assert.throws(
    () => fitMessages(anthropicHistory(), { ...options, system: `${SECRET} `.repeat(150_000) }),
    (e) => e.code === 'PINNED_OVER_BUDGET' && /; the most is options\.system, \d+ tokens, which is never cut$/.test(e.message) && !e.message.includes(SECRET),
  );
  // With truncateUserMessage, the same history fits: the task cut, the PDF as its note.
  const r = fitMessages(history, { ...options, truncateUserMessage: true });
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget);
  assert.ok(r.decisions[0].truncated && r.decisions[2].truncated);
});
