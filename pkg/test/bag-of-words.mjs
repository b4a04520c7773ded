// A deterministic stand-in for an embedding model, shared by the tests and the eval's fake
// embedder: a hashed bag of lowercased words (FNV-1a into `dim` buckets), so that texts sharing
// words point the same way. Not a model.

/** The vector of `text`: `dim` counts of its words' hashes. */
export function bagOfWords(text, dim) {
  const v = new Array(dim).fill(0);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w === '') continue;
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % dim] += 1;
  }
  return v;
}
