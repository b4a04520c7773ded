// Seeded random agent histories (user turns, replies, parallel tool calls with huge results,
// thinking/reasoning, histories that end mid tool loop) rendered into the five formats that
// fitMessages takes. Shared by the messages-*.test.mjs files.
import { AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { rng } from './rng.mjs';

const WORDS = 'alpha beta gamma delta deploy server login token cache index query build error retry parse schema user file path commit branch merge test lint docs'.split(' ');

function words(r, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(r.pick(WORDS));
  return out.join(' ');
}

/** A neutral history: events `{ kind: 'user' | 'assistant', text }` or `{ kind: 'calls', text?, thinking?, calls: [{ id, name, args, result }], split }`. */
export function randomHistory(seed) {
  const r = rng(seed);
  const events = [{ kind: 'user', text: words(r, r.int(1, 30)) }];
  const n = r.int(0, 30);
  let call = 0;
  for (let k = 0; k < n; k++) {
    const roll = r.next();
    if (roll < 0.3) events.push({ kind: 'user', text: words(r, r.int(1, 40)) });
    else if (roll < 0.55) events.push({ kind: 'assistant', text: words(r, r.int(1, 60)) });
    else {
      const calls = [];
      for (let c = r.int(1, 4); c > 0; c--) {
        const huge = r.chance(0.15);
        calls.push({ id: `call_${seed}_${call++}`, name: r.pick(['read_file', 'search', 'run']), args: { q: words(r, r.int(1, 5)) }, result: words(r, huge ? r.int(2000, 6000) : r.int(1, 80)) });
      }
      events.push({ kind: 'calls', text: r.chance(0.5) ? words(r, r.int(1, 20)) : undefined, thinking: r.chance(0.3) ? words(r, r.int(5, 40)) : undefined, calls, split: r.chance(0.5) });
    }
  }
  // End on a user turn, on a tool loop in flight, or on an assistant reply.
  const end = r.next();
  if (end < 0.5) events.push({ kind: 'user', text: words(r, r.int(1, 20)) });
  else if (end < 0.8) {
    events.push({ kind: 'user', text: words(r, r.int(1, 20)) });
    events.push({ kind: 'calls', calls: [{ id: `call_${seed}_${call++}`, name: 'run', args: { q: 'x' }, result: words(r, r.int(1, 300)) }], split: false });
  }
  return { system: words(r, r.int(3, 50)), events };
}

/** A user message someone typed (the generator's user turns are plain strings, or Responses `input_text` parts). */
export function isTypedUserTurn(m) {
  if (m instanceof BaseMessage) return m.getType() === 'human';
  return m.role === 'user' && (typeof m.content === 'string' || (Array.isArray(m.content) && m.content.some((p) => p.type === 'input_text')));
}

export const FORMATS = ['openai', 'openai-responses', 'anthropic', 'ai-sdk', 'langchain'];

/** `{ messages, system? }` in `format`. */
export function render(history, format) {
  const out = [];
  serial = 0;
  // Anthropic takes the system prompt beside the messages, and so does ai@7 (its `instructions`:
  // it refuses system messages among them unless allowSystemInMessages).
  const beside = format === 'anthropic' || format === 'ai-sdk';
  if (!beside) out.push(systemMessage(history.system, format));
  for (const e of history.events) {
    if (format === 'openai-responses' && e.kind !== 'calls') out.push(responsesMessage(e.kind, e.text));
    else if (e.kind === 'user') out.push(format === 'langchain' ? new HumanMessage(e.text) : { role: 'user', content: e.text });
    else if (e.kind === 'assistant') out.push(format === 'langchain' ? new AIMessage(e.text) : { role: 'assistant', content: e.text });
    else out.push(...renderCalls(e, format));
  }
  return beside ? { messages: out, system: history.system } : { messages: out };
}

function systemMessage(text, format) {
  if (format === 'openai-responses') return { type: 'message', role: 'developer', content: [{ type: 'input_text', text }] };
  return format === 'langchain' ? new SystemMessage(text) : { role: 'system', content: text };
}

/** Item ids of the history being rendered (the API refuses an id twice). */
let serial = 0;

/** Responses: a user or assistant message, in the easy-input form or typed with parts (by the text's length, so each history mixes both). */
function responsesMessage(kind, text) {
  if (text.length % 2 === 0) return { role: kind, content: text };
  if (kind === 'user') return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
  return { type: 'message', id: `msg_${serial++}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

/**
 * Responses: a model turn as the API returns it (reasoning with its encrypted content, the text,
 * the calls) and the caller's outputs after all of them. `run` is the shell tool, `search` a
 * custom tool, the others functions.
 */
function responsesCalls(e) {
  const first = e.calls[0].id;
  const items = [];
  if (e.thinking) items.push({ type: 'reasoning', id: `rs_${first}`, summary: [{ type: 'summary_text', text: e.thinking }], encrypted_content: `gAAAA${first}` });
  if (e.text) items.push(responsesMessage('assistant', e.text));
  for (const c of e.calls) {
    if (c.name === 'run') items.push({ type: 'shell_call', call_id: c.id, action: { commands: [JSON.stringify(c.args)] }, status: 'completed' });
    else if (c.name === 'search') items.push({ type: 'custom_tool_call', call_id: c.id, name: c.name, input: JSON.stringify(c.args) });
    else items.push({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' });
  }
  for (const c of e.calls) {
    if (c.name === 'run') items.push({ type: 'shell_call_output', call_id: c.id, output: [{ stdout: c.result, stderr: '', outcome: { type: 'exit', exit_code: 0 } }] });
    else if (c.name === 'search') items.push({ type: 'custom_tool_call_output', call_id: c.id, output: c.result });
    else items.push({ type: 'function_call_output', call_id: c.id, output: c.result });
  }
  return items;
}

function renderCalls(e, format) {
  switch (format) {
    case 'openai-responses':
      return responsesCalls(e);
    case 'openai':
      return [
        { role: 'assistant', content: e.text ?? null, tool_calls: e.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) },
        ...e.calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: c.result })),
      ];
    case 'anthropic':
      return [
        {
          role: 'assistant',
          content: [
            ...(e.thinking ? [{ type: 'thinking', thinking: e.thinking, signature: 'sig' }] : []),
            ...(e.text ? [{ type: 'text', text: e.text }] : []),
            ...e.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
          ],
        },
        { role: 'user', content: e.calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: c.result })) },
      ];
    case 'ai-sdk': {
      const result = (c) => ({ type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: 'text', value: c.result } });
      return [
        {
          role: 'assistant',
          content: [
            ...(e.thinking ? [{ type: 'reasoning', text: e.thinking }] : []),
            ...(e.text ? [{ type: 'text', text: e.text }] : []),
            ...e.calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.args })),
          ],
        },
        ...(e.split ? e.calls.map((c) => ({ role: 'tool', content: [result(c)] })) : [{ role: 'tool', content: e.calls.map(result) }]),
      ];
    }
    case 'langchain':
      return [
        new AIMessage({ content: e.text ?? '', tool_calls: e.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: 'tool_call' })) }),
        ...e.calls.map((c) => new ToolMessage({ content: c.result, tool_call_id: c.id })),
      ];
  }
  throw new Error(format);
}

// Long generated chats for the relevance evaluation (messages-eval.test.mjs, messages-trim.test.mjs).
const SYL = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vi', 'nu', 'pe', 'dor', 'li', 'ma', 'zo', 'qui', 'ber', 'tan'];

function vocabulary(r, n) {
  const out = new Set();
  while (out.size < n) out.add(r.pick(SYL) + r.pick(SYL) + (r.chance(0.5) ? r.pick(SYL) : ''));
  return [...out];
}

/** One chat: `{ messages, evidence: Set<index> }`. */
export function chat(seed, turns = 600) {
  const r = rng(seed);
  const vocab = vocabulary(r, 900);
  const common = vocab.slice(0, 600);
  const topic = vocab.slice(600);
  const zipf = () => common[Math.min(common.length - 1, Math.floor(common.length ** r.next()) - 1)];
  const filler = (n) => Array.from({ length: n }, zipf);
  const q = [r.pick(topic), r.pick(topic), r.pick(topic)];
  const answer = [r.pick(topic), r.pick(topic)];
  const lines = Array.from({ length: turns }, () => filler(r.int(8, 40)));
  const evidence = new Set();
  const plant = (at, words) => {
    lines[at].splice(r.int(0, lines[at].length), 0, ...words);
    evidence.add(at);
  };
  const first = r.int(5, turns - 40);
  plant(first, [q[0], q[1], answer[0]]);
  plant(first + 1, [answer[1], r.chance(0.5) ? q[2] : zipf()]);
  if (r.chance(0.5)) plant(r.int(5, turns - 40), [q[2], answer[0]]);
  for (let d = 0; d < 15; d++) {
    const at = r.int(0, turns - 1);
    if (!evidence.has(at)) lines[at].splice(r.int(0, lines[at].length), 0, r.pick(q));
  }
  const messages = lines.map((words, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: words.join(' ') }));
  messages.push({ role: 'user', content: `${filler(3).join(' ')} ${q.join(' ')} ${filler(2).join(' ')}?` });
  return { messages, evidence };
}

