// Images, PDFs, audio and files in messages, counted from their data by the provider's rule in
// every format (messages/media.ts), never as text; countPart; tools. The expected counts are the
// providers' documented formulas written out here, on real images made by sharp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { createSession, estimateTokens, fitMessages, validateMessages } from 'ctxpack';

/** A `w × h` image in `format`, with some texture. */
function image(w, h, format) {
  return sharp({ create: { width: w, height: h, channels: 3, background: { r: (w * 7) % 256, g: (h * 13) % 256, b: 90 } } })
    .toFormat(format)
    .toBuffer();
}

// ---- the documented formulas ----------------------------------------------------------------------

/** OpenAI's tiles (GPT-4o: 85 + 170 per 512 px tile; fit in 2048², shortest side to 768, only shrinking). */
function openaiTiles(w, h, detail = 'auto') {
  if (detail === 'low') return 85;
  let s = Math.min(1, 2048 / Math.max(w, h));
  [w, h] = [w * s, h * s];
  s = Math.min(1, 768 / Math.min(w, h));
  [w, h] = [w * s, h * s];
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Anthropic: w × h / 750, for images the vision guide does not resize (long edge ≤ 1568, ≤ 1.15 MP). */
/** A message's framing (framing.ts: 3 and its role's 1 token), part of each decision's cost_tokens. */
const USER_FRAMING = 4;
const anthropicPixels = (w, h) => Math.ceil((w * h) / 750);

/** Gemini 2.x tiles: 258 up to 384², else ⌈w/u⌉·⌈h/u⌉ tiles of 258 with u = max(256, ⌊min(w,h)/1.5⌋). */
function geminiTiles(w, h) {
  if (w <= 384 && h <= 384) return 258;
  const u = Math.max(256, Math.floor(Math.min(w, h) / 1.5));
  return 258 * Math.ceil(w / u) * Math.ceil(h / u);
}

const RULES = { openai: (w, h) => openaiTiles(w, h), anthropic: anthropicPixels, gemini: geminiTiles };
// Sizes where every rule is exact (no resize at Anthropic, whose resize rounding is its own).
const SIZES = [
  [200, 200],
  [512, 512],
  [1000, 1000],
  [1092, 1092],
  [960, 540],
  [700, 1400],
];
const IMAGE_FORMATS = ['png', 'jpeg', 'gif', 'webp'];
const mime = (f) => `image/${f}`;
const dataUrl = (buf, type) => `data:${type};base64,${buf.toString('base64')}`;

/** A user message carrying `buf` (`type` its media type) as `format` carries an image, and the text 'look'. */
function imageMessage(format, buf, type, carry) {
  switch (format) {
    case 'openai':
      return { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: dataUrl(buf, type) } }] };
    case 'anthropic':
      return { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: type, data: buf.toString('base64') } }, { type: 'text', text: 'look' }] };
    case 'ai-sdk': {
      const image = carry === 'bytes' ? new Uint8Array(buf) : carry === 'buffer' ? buf : carry === 'arraybuffer' ? new Uint8Array(buf).buffer : carry === 'dataurl' ? dataUrl(buf, type) : buf.toString('base64');
      return { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image, mediaType: type }] };
    }
    case 'langchain':
      return carry === 'image_url'
        ? new HumanMessage({ content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: dataUrl(buf, type) } }] })
        : new HumanMessage({ content: [{ type: 'text', text: 'look' }, { type: 'image', source_type: 'base64', data: buf.toString('base64'), mime_type: type }] });
  }
}

const CASES = [
  ['openai', 'openai', undefined],
  ['anthropic', 'anthropic', undefined],
  ...['openai', 'anthropic', 'gemini'].flatMap((p) => [
    ['ai-sdk', p, 'bytes'],
    ['ai-sdk', p, 'buffer'],
    ['ai-sdk', p, 'arraybuffer'],
    ['ai-sdk', p, 'base64'],
    ['ai-sdk', p, 'dataurl'],
    ['langchain', p, 'image_url'],
    ['langchain', p, 'standard'],
  ]),
];

test('images count the documented formula of the provider, in every format, image format and way of carrying them', async () => {
  const images = [];
  for (const [w, h] of SIZES) for (const f of IMAGE_FORMATS) images.push({ w, h, f, buf: await image(w, h, f) });
  for (const [format, provider, carry] of CASES) {
    const messages = images.map((im) => imageMessage(format, im.buf, mime(im.f), carry));
    const options = { format, budgets: { tokens_max: 1_000_000 }, ...(format === 'ai-sdk' || format === 'langchain' ? { provider } : {}) };
    const r = fitMessages(messages, options);
    images.forEach((im, i) => {
      const what = `${format} ${provider} ${carry} ${im.f} ${im.w}x${im.h}`;
      const expected = RULES[provider](im.w, im.h);
      assert.equal(r.decisions[i].media_tokens, expected, what);
      assert.equal(r.decisions[i].cost_tokens, estimateTokens('look') + expected + USER_FRAMING, what);
    });
    assert.deepEqual(r.warnings, [], `${format} ${provider} ${carry}`);
  }
});

test("OpenAI's detail and the model's rule: low is the base, gpt-4o-mini's figures, Gemini 3's budget", async () => {
  const buf = await image(1024, 1024, 'png');
  const msg = (detail) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(buf, 'image/png'), detail } }] });
  const r = fitMessages([msg('low'), msg('high'), msg('auto')], { format: 'openai', budgets: { tokens_max: 100_000 } });
  assert.deepEqual(r.decisions.map((d) => d.media_tokens), [85, 765, 765]);
  const mini = fitMessages([msg('high')], { format: 'openai', model: 'gpt-4o-mini', budgets: { tokens_max: 100_000 } });
  assert.equal(mini.decisions[0].media_tokens, 2833 + 5667 * 4);
  const g3 = fitMessages([{ role: 'user', content: [{ type: 'image', image: new Uint8Array(buf), mediaType: 'image/png' }] }], {
    format: 'ai-sdk',
    provider: 'gemini',
    model: 'gemini-3-pro-preview',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(g3.decisions[0].media_tokens, 1120);
  assert.throws(
    () => fitMessages([msg('huge')], { format: 'openai', budgets: { tokens_max: 100_000 } }),
    (e) => e.code === 'INVALID_FIELD' && e.index === 0 && !e.message.includes('huge'),
  );
  assert.throws(() => fitMessages([msg('low')], { format: 'openai', provider: 'google', budgets: { tokens_max: 100_000 } }), { code: 'INVALID_OPTION' });
});

test('images by URL or file id count the maximum and warn once for all', () => {
  const url = 'https://example.com/cat.png';
  const openai = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url } }, { type: 'image_url', image_url: { url, detail: 'low' } }] },
    { role: 'assistant', content: 'a cat' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `${url}?2` } }, { type: 'text', text: 'and this?' }] },
  ];
  const r = fitMessages(openai, { format: 'openai', budgets: { tokens_max: 100_000 } });
  assert.deepEqual(r.decisions.map((d) => d.media_tokens), [85 + 170 * 8 + 85, undefined, 85 + 170 * 8]);
  assert.deepEqual(r.warnings, ["image_size_unknown: 3 image(s) counted at the model's maximum (given by URL or file id, or of a format whose size cannot be read)"]);
  const anthropic = [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url } }, { type: 'image', source: { type: 'file', file_id: 'file_1' } }] }];
  const a = fitMessages(anthropic, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.equal(a.decisions[0].media_tokens, 2 * 1640);
  assert.equal(a.warnings.filter((w) => w.startsWith('image_size_unknown: 2 image(s)')).length, 1);
  const sdk = [{ role: 'user', content: [{ type: 'image', image: new URL(url) }, { type: 'text', text: 'hi' }] }];
  assert.equal(fitMessages(sdk, { format: 'ai-sdk', provider: 'gemini', budgets: { tokens_max: 100_000 } }).decisions[0].media_tokens, 1548);
});

/** A PDF of `pages` pages (as media.test.mjs makes them). */
function pdf(pages) {
  const parts = ['%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', `2 0 obj\n<< /Type /Pages /Count ${pages} >>\nendobj\n`];
  for (let i = 0; i < pages; i++) parts.push(`${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nstream\n\nendstream\nendobj\n`);
  parts.push('trailer << /Root 1 0 R >>\n%%EOF\n');
  return Buffer.from(parts.join(''), 'latin1');
}

test('PDFs count their pages at the provider; a text document counts as its text; audio is counted as 0 with a warning', () => {
  const three = pdf(3);
  const b64 = three.toString('base64');
  const perPage = { openai: 3000 + 1445, anthropic: 3000 + 1640, gemini: 258 };
  const o = fitMessages([{ role: 'user', content: [{ type: 'file', file: { file_data: `data:application/pdf;base64,${b64}`, filename: 'a.pdf' } }] }], {
    format: 'openai',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(o.decisions[0].media_tokens, 3 * perPage.openai);
  const a = fitMessages([{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b64 } }] }], {
    format: 'anthropic',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(a.decisions[0].media_tokens, 3 * perPage.anthropic);
  const s = fitMessages([{ role: 'user', content: [{ type: 'file', data: new Uint8Array(three), mediaType: 'application/pdf' }] }], {
    format: 'ai-sdk',
    provider: 'gemini',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(s.decisions[0].media_tokens, 3 * perPage.gemini);

  // Anthropic's plain-text document: its data is what the model reads.
  const text = 'The quarterly report says revenue grew. '.repeat(2000); // 80k characters
  const doc = fitMessages([{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, title: 'Report' }] }], {
    format: 'anthropic',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(doc.decisions[0].cost_tokens, estimateTokens(`${text}\nReport`) + USER_FRAMING);
  // The AI SDK's text file, as bytes: counted as its text.
  const file = fitMessages([{ role: 'user', content: [{ type: 'file', data: new TextEncoder().encode(text), mediaType: 'text/plain' }] }], {
    format: 'ai-sdk',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(file.decisions[0].cost_tokens, estimateTokens(text) + USER_FRAMING);

  const audio = fitMessages([{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg'.repeat(1000), format: 'wav' } }, { type: 'text', text: 'hi' }] }], {
    format: 'openai',
    budgets: { tokens_max: 100_000 },
  });
  assert.equal(audio.decisions[0].cost_tokens, 1 + USER_FRAMING);
  assert.ok(audio.warnings.some((w) => w.startsWith('media_not_counted: 1 part(s)')));
});

test('binary data never reaches the text counter, in any format or nesting', async () => {
  const png = await image(640, 480, 'png');
  const pdf3 = pdf(3);
  const seen = [];
  const countTokens = (text) => (seen.push(text), Math.ceil(text.length / 4));
  const b64 = png.toString('base64');
  const histories = {
    openai: [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(png, 'image/png') } }, { type: 'file', file: { file_data: `data:application/pdf;base64,${pdf3.toString('base64')}` } }, { type: 'input_audio', input_audio: { data: b64, format: 'wav' } }] },
    ],
    anthropic: [
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf3.toString('base64') } }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'screenshot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'done' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }] }] },
    ],
    'ai-sdk': [
      { role: 'user', content: [{ type: 'image', image: png }, { type: 'image', image: new Uint8Array(png).buffer }, { type: 'file', data: new Uint8Array(pdf3), mediaType: 'application/pdf' }, { type: 'file', data: { type: 'data', data: png }, mediaType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'screenshot', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'screenshot', output: { type: 'content', value: [{ type: 'text', text: 'done' }, { type: 'image-data', data: b64, mediaType: 'image/png' }, { type: 'file-data', data: pdf3.toString('base64'), mediaType: 'application/pdf' }] } }] },
    ],
    langchain: [
      new HumanMessage({ content: [{ type: 'image_url', image_url: dataUrl(png, 'image/png') }, { type: 'image', source_type: 'base64', data: b64, mime_type: 'image/png' }, { type: 'file', data: new Uint8Array(pdf3), mimeType: 'application/pdf' }] }),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'screenshot', args: {} }] }),
      new ToolMessage({ tool_call_id: 'c1', content: [{ type: 'text', text: 'done' }, { type: 'image', data: new Uint8Array(png), mimeType: 'image/png' }] }),
    ],
  };
  for (const [format, messages] of Object.entries(histories)) {
    seen.length = 0;
    const r = fitMessages(messages, { format, countTokens, budgets: { tokens_max: 1_000_000 } });
    assert.ok(r.decisions.every((d) => d.included), format);
    assert.ok(r.decisions[0].media_tokens > 0, format);
    for (const text of seen) {
      assert.ok(text.length < 100, `${format}: the counter was given ${text.length} characters`);
      assert.doesNotMatch(text, /[A-Za-z0-9+/]{64}|\d+(\n\d+){16}/, format);
    }
  }
});

test('an 8 MB image given as bytes counts in milliseconds', async () => {
  const head = await image(1920, 1080, 'png');
  const bytes = new Uint8Array(8 * 1024 * 1024);
  bytes.set(head);
  const messages = [{ role: 'user', content: [{ type: 'text', text: 'what is on the screen?' }, { type: 'image', image: bytes, mediaType: 'image/png' }] }];
  fitMessages(messages, { format: 'ai-sdk', budgets: { tokens_max: 100_000 } }); // warm the wasm module
  const t0 = performance.now();
  const r = fitMessages(messages, { format: 'ai-sdk', budgets: { tokens_max: 100_000 } });
  const ms = performance.now() - t0;
  assert.equal(r.decisions[0].media_tokens, openaiTiles(1920, 1080));
  assert.ok(ms < 50, `${ms} ms`);
});

test('countPart overrides the rule per part; undefined keeps it; bad answers are TOKEN_COUNT_FAILED naming the part', async () => {
  const png = await image(1000, 1000, 'png');
  const messages = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }, { type: 'image', source: { type: 'url', url: 'https://example.com/x.png' } }] },
  ];
  const calls = [];
  const countPart = (part, context) => (calls.push(context), part.source.type === 'url' ? 7 : undefined);
  const r = fitMessages(messages, { format: 'anthropic', model: 'claude-sonnet-4-5', countPart, budgets: { tokens_max: 100_000 } });
  assert.equal(r.decisions[0].media_tokens, anthropicPixels(1000, 1000) + 7);
  assert.deepEqual(calls, [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }, { provider: 'anthropic', model: 'claude-sonnet-4-5' }]);
  assert.deepEqual(r.warnings, [], 'the URL image was counted by countPart: no warning');
  for (const bad of [-1, 1.5, 'x', Promise.resolve(3), 2 ** 32]) {
    assert.throws(
      () => fitMessages(messages, { format: 'anthropic', countPart: () => bad, budgets: { tokens_max: 100_000 } }),
      (e) => e.code === 'TOKEN_COUNT_FAILED' && e.field === 'countPart' && e.index === 0 && /messages\[0\] \(its media part 0\)/.test(e.message),
    );
  }
  const boom = new Error('secret content');
  assert.throws(
    () => fitMessages(messages, { format: 'anthropic', countPart: () => { throw boom; }, budgets: { tokens_max: 100_000 } }),
    (e) => e.code === 'TOKEN_COUNT_FAILED' && e.cause === boom && !e.message.includes('secret'),
  );
  assert.throws(() => fitMessages(messages, { format: 'anthropic', countPart: 3, budgets: { tokens_max: 100_000 } }), { code: 'INVALID_OPTION' });
});

test('tools are counted as their JSON, charged like the system prompt, named in errors; Anthropic markers in tools are capped with the rest', () => {
  const tools = [{ name: 'read_file', description: 'Reads a file from the workspace.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
  const messages = [{ role: 'user', content: 'read the config' }];
  const without = fitMessages(messages, { format: 'anthropic', budgets: { tokens_max: 10_000 } });
  const r = fitMessages(messages, { format: 'anthropic', tools, budgets: { tokens_max: 10_000 } });
  const toolTokens = estimateTokens(JSON.stringify(tools));
  assert.equal(r.metrics.pinned_tokens - without.metrics.pinned_tokens, toolTokens);
  assert.equal(r.metrics.budget_used - without.metrics.budget_used, toolTokens);
  assert.throws(() => fitMessages(messages, { format: 'anthropic', tools, budgets: { tokens_max: toolTokens + 2 } }), { code: 'PINNED_OVER_BUDGET' });
  assert.throws(
    () => fitMessages(messages, { format: 'anthropic', tools, countTokens: (t) => (t.startsWith('[') ? -1 : 1), budgets: { tokens_max: 10_000 } }),
    (e) => e.code === 'TOKEN_COUNT_FAILED' && e.message.includes('options.tools'),
  );
  const cyclic = [{}];
  cyclic[0].self = cyclic;
  assert.throws(() => fitMessages(messages, { format: 'anthropic', tools: cyclic, budgets: { tokens_max: 10_000 } }), { code: 'INVALID_OPTION' });
  assert.throws(() => fitMessages(messages, { format: 'anthropic', tools: 'read_file', budgets: { tokens_max: 10_000 } }), { code: 'INVALID_OPTION' });

  const marked = { type: 'ephemeral' };
  const markedTools = [{ ...tools[0], cache_control: marked }, { name: 'write_file', input_schema: { type: 'object' }, cache_control: marked }];
  const history = [1, 2, 3].flatMap((k) => [
    { role: 'user', content: [{ type: 'text', text: `question ${k}`, cache_control: marked }] },
    { role: 'assistant', content: `answer ${k}` },
  ]);
  history.push({ role: 'user', content: 'last' });
  const capped = fitMessages(history, { format: 'anthropic', tools: markedTools, system: [{ type: 'text', text: 'sys', cache_control: marked }], budgets: { tokens_max: 10_000 } });
  const left = capped.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.cache_control).length;
  assert.equal(left, 1, '2 in the tools and 1 in the system prompt leave 1 for the messages');
  assert.ok(capped.warnings.some((w) => w.startsWith('cache_markers_removed: 2 ')));
});

test("a session: new tools invalidate the cached prefix; a message's new image makes it another message; media never counted as text", async () => {
  const [a, b] = [await image(800, 600, 'png'), await image(800, 601, 'png')];
  const shot = (buf) => ({ role: 'user', content: [{ type: 'text', text: 'screen' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: buf.toString('base64') } }] });
  const history = [{ role: 'user', content: 'the task' }, { role: 'assistant', content: 'ok' }, shot(a), { role: 'assistant', content: 'seen' }, { role: 'user', content: 'next' }];
  const tools = [{ name: 'click', input_schema: { type: 'object' } }];
  const s = createSession({ format: 'anthropic', tools, cache: 'anthropic', budgets: { tokens_max: 50_000 } });
  s.fit(history);
  const same = s.fit([...history, { role: 'assistant', content: 'fine' }, { role: 'user', content: 'more' }]);
  assert.equal(same.cache.prefixMessages, 5);
  const swapped = [...history.slice(0, 2), shot(b), ...history.slice(3), { role: 'assistant', content: 'fine' }, { role: 'user', content: 'more' }];
  const after = s.fit(swapped);
  assert.equal(after.cache.prefixMessages, 2, 'the prefix ends at the message whose image changed');
  const newTools = s.fit([...swapped, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go' }], { tools: [...tools, { name: 'type', input_schema: { type: 'object' } }] });
  assert.equal(newTools.cache.prefixMessages, 0, 'the tools are part of the head: no prefix survives their change');
});

test('bytes where a JSON API wants a string (OpenAI image_url.url, Anthropic base64 data, Responses image_url and file_data) are INVALID_FIELD naming the part; the AI SDK takes bytes', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  const cases = [
    ['openai', [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: png } }] }], 'content[1]'],
    ['openai', [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: new Uint8Array(8), format: 'wav' } }] }], 'content[0]'],
    ['anthropic', [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] }], 'content[0]'],
    ['openai-responses', [{ role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: png, detail: 'auto' }] }], 'content[1]'],
    ['openai-responses', [{ type: 'message', role: 'user', content: [{ type: 'input_file', file_data: new Uint8Array(8), filename: 'a.pdf' }] }], 'content[0]'],
    // Nested in a tool output: the part is named by the item's field.
    ['openai-responses', [{ role: 'user', content: 'go' }, { type: 'function_call', call_id: 'c', name: 'shot', arguments: '{}' }, { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: png }] }], 'output[0]', 2],
  ];
  for (const [format, messages, field, index = 0] of cases) {
    assert.throws(() => fitMessages(messages, { format, budgets: { tokens_max: 10_000 } }), (e) => e.code === 'INVALID_FIELD' && e.index === index && e.field === field, `${format} ${field}`);
    // (An unreadable tool output leaves its call unanswered too.)
    assert.deepEqual(validateMessages(messages, format).map((v) => [v.index, v.rule]).filter(([, rule]) => rule !== 'missing_tool_result'), [[index, 'malformed']]);
  }
  // The same image as base64 is taken; the AI SDK takes the bytes themselves.
  const ok = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }] }];
  assert.equal(fitMessages(ok, { format: 'openai', budgets: { tokens_max: 10_000 } }).messages.length, 1);
  const aiSdk = [{ role: 'user', content: [{ type: 'image', image: png, mediaType: 'image/png' }] }];
  assert.deepEqual(validateMessages(aiSdk, 'ai-sdk'), []);
});
