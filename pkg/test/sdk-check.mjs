// The SDKs' own checks of a request, for the property tests: the AI SDK's modelMessageSchema,
// LangChain's pairing (AIMessage.tool_calls ids ↔ ToolMessage.tool_call_id), and for the
// Responses API (whose SDK has types but no runtime check; tsc checks the types in
// messages-responses-types.test.mjs) the API's own refusals, written apart from validate.ts. Apart
// from messages-histories.mjs, which the browser and worker tests bundle.
import assert from 'node:assert/strict';
import { modelMessageSchema } from 'ai';
import { BaseMessage } from '@langchain/core/messages';
import { validateMessages } from 'ctxpack';

/**
 * The AI SDK's own schema, and LangChain's pairing (AIMessage.tool_calls ids ↔ ToolMessage.tool_call_id).
 * With `original` (the messages fitted), also the rules that depend on what the history held
 * ({@link keptCheck}).
 */
export function sdkCheck(format, messages, original) {
  if (original !== undefined) keptCheck(format, original, messages);
  if (format === 'openai-responses') responsesCheck(messages);
  if (format === 'ai-sdk') {
    for (const m of messages) assert.ok(modelMessageSchema.safeParse(m).success, 'modelMessageSchema rejects a kept message');
  }
  if (format === 'langchain') {
    const open = new Set();
    for (const m of messages) {
      assert.ok(m instanceof BaseMessage);
      if (m.getType() === 'ai') for (const c of m.tool_calls ?? []) open.add(c.id);
      if (m.getType() === 'tool') assert.ok(open.delete(m.tool_call_id), 'a ToolMessage without its AIMessage');
      if (m.getType() === 'human') assert.equal(open.size, 0, 'a tool call left unanswered');
    }
    assert.equal(open.size, 0);
  }
}

/**
 * One request of an agent's run (`r`, a fit's result, at step `k`): valid for its format and its
 * SDK, within budget, and the task (`isTask`) in it. The agent tests' common check.
 */
export function checkAgentRequest(format, r, k, isTask) {
  assert.deepEqual(validateMessages(r.messages, format), [], `step ${k}`);
  sdkCheck(format, r.messages);
  assert.ok(r.metrics.budget_used <= r.metrics.effective_budget, `step ${k}: ${r.metrics.budget_used} > ${r.metrics.effective_budget}`);
  assert.ok(r.messages.some(isTask), `step ${k}: the task is in the request`);
}

/** The output item type of each call item type the API pairs by `call_id`. */
const RESPONSES_OUTPUT_OF = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
  shell_call: 'shell_call_output',
  computer_call: 'computer_call_output',
  apply_patch_call: 'apply_patch_call_output',
  local_shell_call: 'local_shell_call_output',
};

/**
 * The Responses API's refusals of an input list: "No tool call found for function call output
 * with call_id …" (an output of a type its call's type does not answer, or before it), "No tool
 * output found for function call …", "Item … of type 'reasoning' was provided without its required
 * following item", "Duplicate item found with id …".
 */
function responsesCheck(items) {
  const open = new Map(); // call_id → the output type it needs
  const ids = new Set();
  items.forEach((item, i) => {
    assert.ok(item !== null && typeof item === 'object', `input[${i}] is not an object`);
    if (typeof item.id === 'string') {
      assert.ok(!ids.has(item.id), `Duplicate item found with id ${item.id}`);
      ids.add(item.id);
    }
    if (item.type === 'reasoning') assert.ok(i + 1 < items.length, `input[${i}]: reasoning provided without its required following item`);
    if (RESPONSES_OUTPUT_OF[item.type]) {
      assert.ok(!open.has(item.call_id), `input[${i}]: a repeated call_id`);
      open.set(item.call_id, RESPONSES_OUTPUT_OF[item.type]);
    } else if (Object.values(RESPONSES_OUTPUT_OF).includes(item.type)) {
      // local_shell_call_output names its call in `id` (the SDK's type) or `call_id` (OpenAI's guide).
      const id = item.call_id ?? (item.type === 'local_shell_call_output' ? item.id : undefined);
      assert.equal(open.get(id), item.type, `input[${i}]: no tool call found for ${item.type} with its call_id`);
      open.delete(id);
    }
  });
  assert.equal(open.size, 0, `no tool output found for ${[...open.keys()].length} call(s)`);
}

/**
 * The refusals that depend on what the history held (`original`) as much as on what was kept:
 * - Anthropic, with thinking on: "Expected `thinking` or `redacted_thinking`, but found
 *   `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking
 *   block": when the turn in flight (the steps since the latest user message that carries no tool
 *   result) opened with the model's thinking, the request's turn in flight opens with it too. The
 *   AI SDK's `reasoning` part is what its Anthropic provider sends as a thinking block.
 * - Responses: "Item 'fc_…' of type 'function_call' was provided without its required
 *   'reasoning' item": an item of a response that had a reasoning item (the items the model
 *   output after it, up to the next one it did not) goes with that reasoning item.
 */
export function keptCheck(format, original, kept) {
  if (format === 'anthropic' || format === 'ai-sdk') {
    const from = openingOfTurn(original);
    if (from >= 0 && opensWithThinking(original[from])) {
      const k = openingOfTurn(kept);
      assert.ok(k >= 0 && opensWithThinking(kept[k]), `the turn in flight opened with thinking, and the request's opens with ${k < 0 ? 'nothing' : kept[k].content[0]?.type}`);
    }
  }
  if (format === 'openai-responses') {
    const reasoningOf = new Map();
    let current;
    for (const item of original) {
      if (item.type === 'reasoning') current = item;
      else if (!fromModel(item)) current = undefined;
      else if (current !== undefined) reasoningOf.set(item, current);
    }
    const sent = new Set(kept);
    kept.forEach((item, i) => {
      const r = reasoningOf.get(item);
      assert.ok(r === undefined || sent.has(r), `input[${i}] (${item.type}) was provided without its required reasoning item ${r?.id}`);
    });
  }
}

/** The first assistant message after the latest user message that carries no tool result, or -1. */
function openingOfTurn(messages) {
  const carriesResult = (m) => Array.isArray(m.content) && m.content.some((b) => b?.type === 'tool_result');
  let i = messages.length - 1;
  while (i >= 0 && !(messages[i].role === 'user' && !carriesResult(messages[i]))) i--;
  for (i++; i < messages.length; i++) if (messages[i].role === 'assistant') return i;
  return -1;
}

const opensWithThinking = (m) => Array.isArray(m.content) && ['thinking', 'redacted_thinking', 'reasoning'].includes(m.content[0]?.type);

/** A Responses item the model outputs: an assistant message, a call, a hosted tool's item (not an output, not the caller's). */
const fromModel = (item) =>
  (item.type === 'message' && item.role === 'assistant') ||
  (item.type !== undefined && item.type.endsWith('_call')) ||
  ['mcp_approval_request', 'mcp_list_tools', 'program'].includes(item.type);

/**
 * Anthropic's refusal of a request whose cache markers mix lifetimes out of order: "A ttl='1h'
 * cache_control block must not come after a ttl='5m' cache_control block. Blocks are processed in
 * the following order: tools, system, messages" (the API's 400). `controls` is the request's
 * `cache_control` values in that order; returns their lifetimes after checking.
 */
export function anthropicTtlCheck(controls, label = '') {
  const ttls = controls.map((c) => (c.ttl === '1h' ? '1h' : '5m'));
  const short = ttls.indexOf('5m');
  assert.ok(short < 0 || !ttls.slice(short + 1).includes('1h'), `${label}: a 1h marker after a 5m one (${ttls.join(' -> ')})`);
  return ttls;
}

/** An Anthropic Messages request's `cache_control` values in processing order (tools, system, messages; a tool_result's blocks after it). */
export function anthropicControls({ tools = [], system = [], messages }) {
  const out = [];
  const visit = (b) => {
    if (b === null || typeof b !== 'object') return;
    if (b.cache_control) out.push(b.cache_control);
    if (Array.isArray(b.content)) b.content.forEach(visit);
  };
  tools.forEach(visit);
  if (Array.isArray(system)) system.forEach(visit);
  for (const m of messages) if (Array.isArray(m.content)) m.content.forEach(visit);
  return out;
}
