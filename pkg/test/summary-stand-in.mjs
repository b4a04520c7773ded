// A deterministic stand-in for a model's summary, for the tests and the evaluation: from the
// messages' texts (every string in them), the lines that carry a number, a path, a name in
// capitals or a decision word, each once, in order, up to about `maxTokens` (4 characters a
// token). The same for every strategy, so that a comparison needs no model.

const KEEP = /\d|[\w.-]+\/[\w./-]+|\b[A-Z][a-z]+[A-Z]\w*|\b(decided|decision|because|error|failed|fixed|todo|open question|must|should)\b/i;

/** Every string in `value` (a message of any format, LangChain's included), in order. */
function strings(value, out = [], depth = 0) {
  if (depth > 8 || value === null || value === undefined) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out, depth + 1);
  else if (typeof value === 'object') {
    const content = value.content ?? value.kwargs?.content;
    if (content !== undefined) strings(content, out, depth + 1);
    for (const key of ['text', 'output', 'arguments', 'input', 'args', 'result', 'tool_calls', 'function']) if (key in value && key !== 'content') strings(value[key], out, depth + 1);
  }
  return out;
}

/** The stand-in summary of `messages`, at most about `maxTokens` tokens. */
export function standInSummary(messages, maxTokens = 500) {
  const seen = new Set();
  const kept = [];
  let chars = 0;
  for (const text of messages.flatMap((m) => strings(m))) {
    for (const line of text.split(/\n|(?<=[.!?])\s+/)) {
      const l = line.trim();
      if (l === '' || seen.has(l) || !KEEP.test(l)) continue;
      if (chars + l.length > maxTokens * 4) return kept.join('\n') || 'Nothing to keep.';
      seen.add(l);
      kept.push(l);
      chars += l.length + 1;
    }
  }
  return kept.join('\n') || 'Nothing to keep.';
}
