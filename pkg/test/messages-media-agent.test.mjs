// A computer-use agent: 64 steps, a 0.5–3 MB screenshot each (PNG and JPEG made by sharp), in each
// of the four formats as each carries them (data URLs, base64, bytes), fitted by a session at a
// 128k budget at every step: every request valid, within budget, no exception, the task and the
// step in flight always in it. Before media were counted, these screenshots counted as ~700k
// tokens of base64 each (or millions of byte strings), and no step fitted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { createSession, fitMessages } from 'ctxpack';
import { checkAgentRequest } from './sdk-check.mjs';

const STEPS = 64;
const TASK = 'Book the cheapest flight from Lisbon to Oslo next Friday.';
const SYSTEM = 'You operate a computer through the computer tool. Take a screenshot after every action.';
// An accessibility tree per step, ~1.8k tokens: the history outgrows the budget after some forty steps in every format.
const tree = (k) => Array.from({ length: 240 }, (_, j) => `[${k}.${j}] button "item ${(k * 31 + j) % 97}"`).join('\n');

async function screenshots() {
  const noisy = (w, h) => sharp({ create: { width: w, height: h, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
  const shots = [
    { buf: await noisy(1024, 768).png().toBuffer(), type: 'image/png' },
    { buf: await noisy(1280, 720).jpeg({ quality: 92 }).toBuffer(), type: 'image/jpeg' },
    { buf: await noisy(700, 500).png().toBuffer(), type: 'image/png' },
    { buf: await noisy(1024, 768).jpeg({ quality: 95 }).toBuffer(), type: 'image/jpeg' },
  ];
  for (const s of shots) assert.ok(s.buf.length >= 500_000 && s.buf.length <= 3_000_000, `a screenshot of ${s.buf.length} bytes`);
  return shots;
}

/** Step k's messages in `format`: the call, and the screenshot as the format carries it. */
function step(format, k, shot) {
  const id = `call_${k}`;
  const input = { action: k % 3 === 0 ? 'screenshot' : 'left_click', coordinate: [k * 7, k * 3] };
  const b64 = shot.buf.toString('base64');
  switch (format) {
    case 'openai':
      // Chat completions take images in user messages only: the screenshot follows the result.
      return [
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'computer', arguments: JSON.stringify(input) } }] },
        { role: 'tool', tool_call_id: id, content: tree(k) },
        { role: 'user', content: [{ type: 'text', text: `screenshot after step ${k}` }, { type: 'image_url', image_url: { url: `data:${shot.type};base64,${b64}`, detail: 'high' } }] },
      ];
    case 'anthropic':
      return [
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'computer', input }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: tree(k) }, { type: 'image', source: { type: 'base64', media_type: shot.type, data: b64 } }] }] },
      ];
    case 'ai-sdk':
      return [
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'computer', input }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: id, toolName: 'computer', output: { type: 'content', value: [{ type: 'text', text: tree(k) }, { type: 'image-data', data: b64, mediaType: shot.type }] } }],
        },
        // Every other step the agent also shows the screen as bytes in a user turn.
        ...(k % 2 === 1 ? [{ role: 'user', content: [{ type: 'text', text: `screen ${k}` }, { type: 'image', image: new Uint8Array(shot.buf), mediaType: shot.type }] }] : []),
      ];
    case 'langchain':
      return [
        new AIMessage({ content: '', tool_calls: [{ id, name: 'computer', args: input }] }),
        new ToolMessage({
          tool_call_id: id,
          content: [{ type: 'text', text: tree(k) }, k % 2 === 0 ? { type: 'image', source_type: 'base64', data: b64, mime_type: shot.type } : { type: 'image_url', image_url: { url: `data:${shot.type};base64,${b64}` } }],
        }),
      ];
  }
}

const first = {
  openai: () => [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }],
  anthropic: () => [{ role: 'user', content: TASK }],
  'ai-sdk': () => [{ role: 'user', content: TASK }],
  langchain: () => [new SystemMessage(SYSTEM), new HumanMessage(TASK)],
};
const systemOf = { anthropic: SYSTEM, 'ai-sdk': SYSTEM };
const isTask = (m) => (m instanceof HumanMessage ? m.content === TASK : m.role === 'user' && m.content === TASK);

const shots = await screenshots();

for (const format of ['openai', 'anthropic', 'ai-sdk', 'langchain']) {
  test(`${format}: a 64-step computer-use agent with a screenshot per step stays valid and within 128k at every step`, async () => {
    const budgets = { tokens_max: 128_000, output_reserve: 4_000 };
    const session = createSession({ format, budgets, ...(systemOf[format] ? { system: systemOf[format] } : {}), ...(format === 'ai-sdk' || format === 'langchain' ? { provider: 'openai' } : {}), model: 'gpt-4o' });
    const history = first[format]();
    let trimmed = false;
    for (let k = 0; k < STEPS; k++) {
      const added = step(format, k, shots[k % shots.length]);
      history.push(...added);
      const r = session.fit(history);
      checkAgentRequest(format, r, k, isTask);
      // The step in flight: its call and its screenshot, as the history has them (OpenAI: the
      // screenshot's user message, which is the last message; its call competes like any other).
      const callIndex = history.length - (format === 'openai' ? 1 : added.length);
      assert.ok(r.decisions[callIndex].included && r.decisions.slice(callIndex).every((d) => d.included), `step ${k}: the step in flight`);
      assert.ok(r.decisions.slice(callIndex).some((d) => d.media_tokens > 0), `step ${k}: its screenshot is counted`);
      trimmed ||= r.decisions.some((d) => !d.included);
    }
    assert.ok(trimmed, 'the history outgrew the budget: the test trims');
  });
}

// Chat completions cannot put an image in a tool message, so a computer-use agent sends each
// screenshot as a user message right after the result. That message is part of the step, not the
// task: the task stays pinned (and is what relevance is measured against), however many steps
// follow. A user message of text after a result is someone typing (an interjection): it is the task.
test('openai: a screenshot sent as a user message after a tool result is not the task', () => {
  const shot = { role: 'user', content: [{ type: 'text', text: 'screenshot' }, { type: 'image_url', image_url: { url: 'https://example.com/s.png' } }] };
  const stepOf = (k) => [
    { role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'computer', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: `c${k}`, content: `clicked ${k}` },
    shot,
  ];
  const history = [{ role: 'user', content: TASK }, ...stepOf(1), ...stepOf(2), ...stepOf(3)];
  const r = fitMessages(history, { format: 'openai', budgets: { tokens_max: 1_000_000 } });
  assert.equal(r.decisions[0].reason, 'pinned');
  assert.equal(r.decisions[3].reason, 'scored', 'an earlier screenshot competes');
  const typed = [...history, ...stepOf(4).slice(0, 2), { role: 'user', content: 'stop, book the train instead' }];
  const t = fitMessages(typed, { format: 'openai', budgets: { tokens_max: 1_000_000 } });
  assert.equal(t.decisions[0].reason, 'scored', 'the interjection is the task now');
  assert.equal(t.decisions.at(-1).reason, 'pinned');
});

// Found by a new-user trial: a truncated tool result came back as one text, its screenshot gone
// (and an AI SDK content output as a text output). Truncation cuts a result's text only.
test('a truncated tool result keeps its screenshot, in every format that carries images in results', () => {
  const shot = shots[2];
  const log = 'ERROR at line 42: connection refused\n'.repeat(800);
  const histories = {
    anthropic: [{ role: 'user', content: TASK }, ...step('anthropic', 1, shot)],
    'ai-sdk': [{ role: 'user', content: TASK }, ...step('ai-sdk', 0, shot)],
    langchain: [new HumanMessage(TASK), ...step('langchain', 0, shot)],
    'openai-responses': [
      { role: 'user', content: TASK },
      { type: 'function_call', call_id: 'c1', name: 'computer', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'x' }, { type: 'input_image', image_url: `data:${shot.type};base64,${shot.buf.toString('base64')}` }] },
    ],
  };
  const b64 = shot.buf.toString('base64');
  const withLog = (format, h) => {
    // The result's text part made long, the image part as it was.
    const last = h.at(-1);
    if (format === 'anthropic') return [...h.slice(0, -1), { ...last, content: [{ ...last.content[0], content: [{ type: 'text', text: log }, last.content[0].content[1]] }] }];
    if (format === 'ai-sdk') return [...h.slice(0, -1), { ...last, content: [{ ...last.content[0], output: { type: 'content', value: [{ type: 'text', text: log }, last.content[0].output.value[1]] } }] }];
    if (format === 'langchain') return [...h.slice(0, -1), new ToolMessage({ tool_call_id: last.tool_call_id, content: [{ type: 'text', text: log }, last.content[1]] })];
    return [...h.slice(0, -1), { ...last, output: [{ type: 'input_text', text: log }, last.output[1]] }];
  };
  for (const [format, base] of Object.entries(histories)) {
    const h = withLog(format, base);
    const r = fitMessages(h, { format, budgets: { tokens_max: 4_000 } });
    const d = r.decisions.at(-1);
    assert.ok(d.truncated !== undefined && d.truncated.to < d.truncated.from, `${format}: the result is truncated`);
    const sent = r.messages.at(-1);
    assert.notEqual(sent, h.at(-1), `${format}: a copy`);
    const json = JSON.stringify(sent.content ?? sent.output);
    assert.ok(json.includes(b64), `${format}: the screenshot is still in the result`);
    assert.ok(json.includes('characters left out'), `${format}: its text is cut`);
    assert.ok(d.media_tokens > 0, `${format}: and counted`);
    assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, format);
    checkAgentRequest(format, r, 0, (m) => (m instanceof HumanMessage ? m.content === TASK : m.role === 'user' && m.content === TASK));
    if (format === 'ai-sdk') assert.equal(sent.content[0].output.type, 'content', 'a content output stays one');
  }
  // A stub still stands for the whole result, its media too.
  const older = [...withLog('anthropic', histories.anthropic), { role: 'assistant', content: 'done' }, { role: 'user', content: 'thanks' }];
  const stubbed = fitMessages(older, { format: 'anthropic', budgets: { tokens_max: 1_500 }, stubToolResults: true, truncateToolResults: false });
  assert.equal(stubbed.decisions[2].stubbed, true);
  assert.ok(!JSON.stringify(stubbed.messages).includes(b64), 'a stub carries no screenshot');
});
