// Images and PDFs counted the way providers count them (src/tokens/media.ts over the core's
// readers and rules): real images made by sharp in PNG, JPEG (baseline, progressive, with a
// 60 KB EXIF block), GIF and WebP (lossy, lossless, animated) at several sizes, read from every
// input type; the token rules against the providers' own worked examples; PDFs; the errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { importMedia } from './internal.mjs';

const media = await importMedia();
const { countImageTokens, countPdfTokens, imageSizeOf, pdfPagesOf, wasmMemoryBytes } = media;

/** A `w × h` image in `format` (sharp's output options), with some texture. */
async function image(w, h, format, options = {}, meta = undefined) {
  let img = sharp({ create: { width: w, height: h, channels: 3, background: { r: (w * 7) % 256, g: (h * 13) % 256, b: 90 } } });
  if (meta) img = img.withExif(meta);
  return img.toFormat(format, options).toBuffer();
}

const SIZES = [
  [1, 1],
  [17, 9],
  [384, 384],
  [512, 512],
  [1024, 1024],
  [1920, 1080],
  [1080, 1920],
  [2048, 4096],
];

const FORMATS = [
  ['png', {}, 'png'],
  ['jpeg', {}, 'jpeg'],
  ['jpeg', { progressive: true }, 'jpeg'],
  ['gif', {}, 'gif'],
  ['webp', { quality: 50 }, 'webp'],
  ['webp', { lossless: true }, 'webp'],
];

const base64Url = (buf) => buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

test('sizes of real images in every format and input type', async () => {
  for (const [w, h] of SIZES) {
    for (const [format, options, name] of FORMATS) {
      const buf = await image(w, h, format, options);
      const expected = { width: w, height: h, format: name };
      const what = `${name} ${JSON.stringify(options)} ${w}x${h}`;
      assert.deepEqual(imageSizeOf(buf), expected, `${what} Buffer`);
      const copy = new Uint8Array(buf);
      assert.deepEqual(imageSizeOf(copy.buffer), expected, `${what} ArrayBuffer`);
      assert.deepEqual(imageSizeOf(new DataView(copy.buffer)), expected, `${what} DataView`);
      assert.deepEqual(imageSizeOf(buf.toString('base64')), expected, `${what} base64`);
      assert.deepEqual(imageSizeOf(`data:image/${name};base64,${buf.toString('base64')}`), expected, `${what} data URL`);
      assert.deepEqual(imageSizeOf(base64Url(buf)), expected, `${what} URL-safe base64`);
    }
  }
});

test('a JPEG with a 60 KB EXIF block before its frame header, and a WebP with an alpha channel (VP8X)', async () => {
  const exif = { IFD0: { ImageDescription: 'x'.repeat(60_000), Copyright: 'ctxpack' } };
  for (const progressive of [false, true]) {
    const buf = await image(4032, 3024, 'jpeg', { progressive }, exif);
    assert.ok(buf.indexOf(Buffer.from([0xff, 0xc0 + (progressive ? 2 : 0)])) > 60_000, 'the SOF is past the first windows');
    assert.deepEqual(imageSizeOf(buf), { width: 4032, height: 3024, format: 'jpeg' });
    assert.deepEqual(imageSizeOf(`data:image/jpeg;base64,${buf.toString('base64')}`), { width: 4032, height: 3024, format: 'jpeg' });
  }
  const alpha = await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
    .webp()
    .toBuffer();
  assert.equal(alpha.subarray(12, 16).toString('latin1'), 'VP8X');
  assert.deepEqual(imageSizeOf(alpha), { width: 300, height: 200, format: 'webp' });
});

test('truncated, unknown and non-image inputs have no size', async () => {
  const png = await image(640, 480, 'png');
  const jpeg = await image(640, 480, 'jpeg');
  assert.equal(imageSizeOf(png.subarray(0, 20)), undefined);
  assert.equal(imageSizeOf(jpeg.subarray(0, 100)), undefined);
  assert.equal(imageSizeOf(await sharp(png).tiff().toBuffer()), undefined, 'TIFF is not read');
  assert.equal(imageSizeOf(new Uint8Array(0)), undefined);
  assert.equal(imageSizeOf('data:text/plain,hello'), undefined);
  assert.equal(imageSizeOf('not base64 at all!'), undefined);
  assert.throws(() => imageSizeOf(42), { name: 'CtxpackError', code: 'INVALID_INPUT', field: 'media' });
});

test('token rules match the providers’ worked examples, from real image bytes', async () => {
  const count = async (w, h, provider, model, detail) => countImageTokens(await image(w, h, 'png'), { provider, model, detail });
  // OpenAI's guide, gpt-4o: 1024 × 1024 high = 85 + 170 × 4; 2048 × 4096 high = 85 + 170 × 6; low = 85.
  assert.equal(await count(1024, 1024, 'openai', 'gpt-4o', 'high'), 765);
  assert.equal(await count(2048, 4096, 'openai', 'gpt-4o', 'high'), 1105);
  assert.equal(await count(2048, 4096, 'openai', 'gpt-4o', 'low'), 85);
  assert.equal(await count(1024, 1024, 'openai', 'gpt-4o', undefined), 765, 'auto counts as high');
  // gpt-4o-mini: 2833 + 5667 × 4.
  assert.equal(await count(1024, 1024, 'openai', 'gpt-4o-mini', 'high'), 25_501);
  // The patch rule: 1800 × 2400 shrinks to 1452 patches; × 1.62 for gpt-4.1-mini, rounded up.
  assert.equal(await count(1800, 2400, 'openai', 'gpt-4.1-mini', 'auto'), 2353);
  assert.equal(await count(1024, 1024, 'openai', 'gpt-4.1-mini', 'auto'), 1659);
  // Anthropic's table: 200 × 200 ≈ 54, 1000 × 1000 ≈ 1334, 1092 × 1092 ≈ 1590.
  assert.equal(await count(200, 200, 'anthropic', 'claude-sonnet-4-5', ''), 54);
  assert.equal(await count(1000, 1000, 'anthropic', 'claude-sonnet-4-5', ''), 1334);
  assert.equal(await count(1092, 1092, 'anthropic', 'claude-sonnet-4-5', ''), 1590);
  // Gemini's guide: both sides ≤ 384 = 258; 960 × 540 = crop unit 360, 3 × 2 tiles of 258.
  assert.equal(await count(384, 384, 'gemini', 'gemini-2.5-flash', ''), 258);
  assert.equal(await count(960, 540, 'gemini', 'gemini-2.5-flash', ''), 1548);
  assert.equal(await count(960, 540, 'gemini', 'gemini-3-pro-preview', 'low'), 280);
  // A known size, and an unknown one (an image by URL): the rule's documented maximum.
  assert.equal(countImageTokens({ width: 1024, height: 1024 }, { provider: 'openai', model: 'gpt-4o' }), 765);
  assert.equal(countImageTokens(undefined, { provider: 'openai', model: 'gpt-4o' }), 85 + 8 * 170);
  assert.equal(countImageTokens(undefined, { provider: 'anthropic', model: 'claude-opus-4-1' }), 1640);
  assert.equal(countImageTokens(undefined, { provider: 'gemini', model: 'gemini-2.0-flash' }), 1548);
  assert.equal(countImageTokens(new Uint8Array([1, 2, 3]), { provider: 'openai', model: 'gpt-4o', detail: 'low' }), 85);
});

test('bad providers and details are INVALID_OPTION naming the field', () => {
  const size = { width: 10, height: 10 };
  assert.throws(() => countImageTokens(size, { provider: 'azure', model: 'gpt-4o' }), { name: 'CtxpackError', code: 'INVALID_OPTION', field: 'provider' });
  assert.throws(() => countImageTokens(size, { provider: 'openai', model: 'gpt-4o', detail: 'medium' }), { code: 'INVALID_OPTION', field: 'detail' });
  assert.throws(() => countImageTokens({ width: -1, height: 10 }, { provider: 'openai', model: 'gpt-4o' }), { code: 'INVALID_OPTION', field: 'width' });
  assert.throws(() => countPdfTokens({ pages: 1.5 }, { provider: 'anthropic', model: 'claude' }), { code: 'INVALID_OPTION', field: 'pages' });
});

/** A PDF of `pages` pages, each with `pad` bytes of content stream. */
function pdf(pages, pad = 0) {
  const parts = ['%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', `2 0 obj\n<< /Type /Pages /Count ${pages} >>\nendobj\n`];
  for (let i = 0; i < pages; i++) parts.push(`${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nstream\n${'q'.repeat(pad)}\nendstream\nendobj\n`);
  parts.push('trailer << /Root 1 0 R >>\n%%EOF\n');
  return Buffer.from(parts.join(''), 'latin1');
}

test('PDF pages from bytes or base64, and their estimated tokens', () => {
  const three = pdf(3);
  assert.equal(pdfPagesOf(three), 3);
  assert.equal(pdfPagesOf(three.toString('base64')), 3);
  assert.equal(pdfPagesOf(`data:application/pdf;base64,${three.toString('base64')}`), 3);
  assert.equal(pdfPagesOf(new Uint8Array([1, 2, 3])), undefined);
  // 600 pages of 10 KB: past the 4 MiB scanned, the count is scaled to the file's length.
  const big = pdf(600, 10_000);
  assert.ok(big.length > 4 * 1024 * 1024);
  const estimate = pdfPagesOf(big);
  assert.ok(Math.abs(estimate - 600) <= 2, `${estimate}`);
  assert.ok(Math.abs(pdfPagesOf(big.toString('base64')) - 600) <= 2);
  const opts = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
  assert.equal(countPdfTokens(three, opts), 3 * (3000 + 1640));
  assert.equal(countPdfTokens({ pages: 2 }, { provider: 'gemini', model: 'gemini-2.5-pro' }), 516);
  assert.equal(countPdfTokens(undefined, opts), 100 * (3000 + 1640), 'unknown: 100 pages');
});

test('large images cross into wasm as small windows only', async () => {
  const big = Buffer.alloc(8 * 1024 * 1024);
  (await image(4000, 3000, 'png')).copy(big); // a PNG header at the front of 8 MB
  const before = wasmMemoryBytes();
  for (let i = 0; i < 20; i++) {
    assert.equal(imageSizeOf(big).width, 4000);
    assert.equal(imageSizeOf(`data:image/png;base64,${big.toString('base64')}`).width, 4000);
  }
  assert.ok(wasmMemoryBytes() - before < 1024 * 1024, `memory grew by ${wasmMemoryBytes() - before}`);
});
