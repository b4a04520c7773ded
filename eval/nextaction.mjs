// Evidence for agent runs, defined from the run itself ("next-action support"): at each step where
// the agent calls tools, the earlier tool results that hold an identifier the call's arguments use
// (a path, a code identifier, a number of three or more digits). What the agent had to have read
// to write that call, so what a packer must keep for the step to be possible again.
//
// No registry package ships real recorded agent runs (eval/README.md); this runs on OpenAI-format
// histories, the recorded samples of www/samples/ and any run added later.

/**
 * The identifiers of a tool call's arguments (a JSON string, or anything else as its JSON): every
 * string or number leaf, split at whitespace and quotes, keeping the tokens shaped like what an
 * agent copies from a result: with a `/` or a `.` between word characters (a path, a file, a
 * dotted name), with an `_`, a lower-to-upper case change (camelCase) or both letters and digits,
 * or a number of three or more digits. Plain words ("auth", "fix") are not identifiers: they would
 * make every result that mentions them evidence. Trailing punctuation is dropped. Sorted, distinct.
 */
export function identifiers(args) {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      value = args;
    }
  }
  const leaves = [];
  const walk = (v) => {
    if (typeof v === 'string' || typeof v === 'number') leaves.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  const out = new Set();
  for (const leaf of leaves) {
    for (const raw of leaf.split(/[\s"'`(),;:=<>{}[\]]+/)) {
      const t = raw.replace(/^[^\w/.]+|[^\w]+$/g, '');
      if (t.length < 3) continue;
      const path = /\w[/.]\w/.test(t);
      const code = t.includes('_') || /[a-z][A-Z]/.test(t) || (/[A-Za-z]/.test(t) && /\d/.test(t));
      const number = /^\d{3,}$/.test(t);
      if (path || code || number) out.add(t);
    }
  }
  return [...out].sort();
}

const text = (m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('\n') : '');

/**
 * The next-action support of step `k` (an assistant message with tool calls): the indexes of the
 * tool results before `k` whose text holds one of the identifiers of any of its calls' arguments,
 * ascending. Empty when the step makes no call or its arguments have no identifier found earlier.
 */
export function nextActionSupport(messages, k) {
  const ids = (messages[k]?.tool_calls ?? []).flatMap((c) => identifiers(c.function?.arguments ?? ''));
  if (ids.length === 0) return [];
  const out = [];
  for (let j = 0; j < k; j++) {
    if (messages[j].role !== 'tool') continue;
    const t = text(messages[j]);
    if (ids.some((id) => t.includes(id))) out.push(j);
  }
  return out;
}

/**
 * One case per step of a run that has support: the history before the step (what the agent saw
 * when it wrote it), evidence its support, `kind` the step's tool names. Measured at every step.
 */
export function agentRunCases(dataset, name, messages) {
  const cases = [];
  for (let k = 1; k < messages.length; k++) {
    const evidence = nextActionSupport(messages, k);
    if (evidence.length === 0) continue;
    cases.push({ dataset, name: `${name} step ${k}`, messages: messages.slice(0, k), evidence });
  }
  return cases;
}
