// ctxpack/openai-agents with the real OpenAI Agents SDK (@openai/agents 0.20): 64-step tool
// agents through run() and a Runner, with ctxpackInputFilter as callModelInputFilter. Two models:
// a fake implementing the SDK's own `Model` interface (its seam for custom models), which sees
// the SDK's items; and the SDK's real OpenAIResponsesModel over the real `openai` client, whose
// fetch answers locally, which sees the Responses API request the SDK would send. Every request
// must be valid (validateMessages, and sdk-check.mjs's Responses API refusals), hold the task and
// the step in flight, fit the budget, and reuse the previous request's prefix at least as much as
// a plain session given the same histories.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, applyPatchTool, computerTool, hostedMcpTool, imageGenerationTool, OpenAIResponsesModel, Runner, run, setTracingDisabled, tool, Usage } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { CtxpackError, createSession, estimateTokens, fitMessages, validateMessages } from 'ctxpack';
import { ctxpackInputFilter, responsesView } from 'ctxpack/openai-agents';
import { BUDGET, INSTRUCTIONS, prefixShare, READ_FILE, STEPS, TASK } from './adapter-agents.mjs';
import { sdkCheck } from './sdk-check.mjs';

setTracingDisabled(true);

const readFile = tool({
  name: READ_FILE.name,
  description: READ_FILE.description,
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => READ_FILE.read(path),
});
const agentWith = (model) => new Agent({ name: 'coder', instructions: INSTRUCTIONS, model, tools: [readFile] });

/** The fake model (the SDK's `Model` interface): a tool call at each of 64 steps, then a final message; records each request. */
function fakeModel() {
  const requests = [];
  const respond = (request) => {
    requests.push({ input: structuredClone(request.input), instructions: request.systemInstructions });
    const k = requests.length;
    const output = k <= STEPS
      ? [{ type: 'function_call', id: `fc_${k}`, callId: `call_${k}`, name: 'read_file', arguments: JSON.stringify({ path: `src/auth/file${k}.ts` }), status: 'completed' }]
      : [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Fixed: the expiry is one hour.' }] }];
    return { usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 10, totalTokens: 20 }), output, responseId: `resp_${k}` };
  };
  return {
    requests,
    model: {
      async getResponse(request) {
        return respond(request);
      },
      async *getStreamedResponse(request) {
        const response = respond(request);
        yield { type: 'response_done', response: { id: response.responseId, usage: { inputTokens: 10, outputTokens: 10, totalTokens: 20 }, output: response.output } };
      },
    },
  };
}

/** The Responses API answer to the k-th request: a function call for 64 steps, then a message. */
function responseBody(k) {
  const output = k <= STEPS
    ? [{ type: 'function_call', id: `fc_${k}`, call_id: `call_${k}`, name: 'read_file', arguments: JSON.stringify({ path: `src/auth/file${k}.ts` }), status: 'completed' }]
    : [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Fixed.', annotations: [] }] }];
  return {
    id: `resp_${k}`, object: 'response', created_at: 0, model: 'gpt-5', status: 'completed', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [],
    usage: { input_tokens: 10, output_tokens: 10, total_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
}

/** The SDK's real Responses model over the real `openai` client; its fetch records each request body and answers locally. */
function wireModel() {
  const bodies = [];
  const fetch = async (_url, init) => {
    bodies.push(JSON.parse(init.body));
    return new Response(JSON.stringify(responseBody(bodies.length)), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 });
  return { bodies, model: new OpenAIResponsesModel(client, 'gpt-5') };
}

/** A plain session's requests for the same histories (Responses API items), for the prefix comparison. */
function plainSession(histories) {
  const session = createSession({ format: 'openai-responses', budgets: { tokens_max: BUDGET }, cache: 'openai' });
  return histories.map((input) => session.fit(input, { system: INSTRUCTIONS }).messages);
}
const userText = (m) => m.role === 'user' && (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(''));

/** Every request: valid, the task and the step in flight in it, within the budget (counted again here, with the instructions). */
function checkWire(inputs) {
  assert.equal(inputs.length, STEPS + 1);
  for (const [k, input] of inputs.entries()) {
    assert.deepEqual(validateMessages(input, 'openai-responses'), [], `request ${k}: invalid`);
    sdkCheck('openai-responses', input);
    assert.ok(input.some((m) => userText(m) === TASK), `request ${k}: the task is missing`);
    if (k > 0) {
      assert.equal(input.at(-1).type, 'function_call_output', `request ${k}: the step in flight is missing`);
      assert.equal(input.at(-1).call_id, `call_${k}`);
    }
    const counted = fitMessages(input, { format: 'openai-responses', system: INSTRUCTIONS, budgets: { tokens_max: 10_000_000 } });
    assert.ok(counted.metrics.prompt_tokens <= BUDGET, `request ${k}: ${counted.metrics.prompt_tokens} tokens`);
  }
  // The run outgrew the budget: the late requests are cut, not the whole history.
  assert.ok(inputs.at(-1).length < 1 + 2 * STEPS);
}

test('run() with the real Responses model: 65 requests, each valid, within budget, with the task and the step in flight; prefix reuse of a plain session', async () => {
  const { bodies, model } = wireModel();
  const result = await run(agentWith(model), TASK, { maxTurns: 100, callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: BUDGET } }) });
  assert.equal(result.finalOutput, 'Fixed.');
  checkWire(bodies.map((b) => b.input));
  for (const b of bodies) assert.equal(b.instructions, INSTRUCTIONS);

  // The same run unfiltered: the whole history every time (over budget), the histories a plain session is given.
  const unfiltered = wireModel();
  await run(agentWith(unfiltered.model), TASK, { maxTurns: 100 });
  assert.equal(unfiltered.bodies.at(-1).input.length, 1 + 2 * STEPS);
  const ours = prefixShare(bodies.map((b) => b.input));
  const plain = prefixShare(plainSession(unfiltered.bodies.map((b) => b.input)));
  assert.ok(ours >= plain, `prefix share ${ours} < a plain session's ${plain}`);
  assert.ok(ours > 0.5, `prefix share ${ours}`);
});

// Here each step adds two items (call, output), so an even window never splits a pair; an odd one
// does at every other step, as reasoning items and messages do to any fixed window in real runs.
test("a hand-written 'task + last N items' filter sends orphaned outputs, which the same checks catch", async () => {
  const { bodies, model } = wireModel();
  const naive = ({ modelData }) => ({ ...modelData, input: modelData.input.length <= 20 ? modelData.input : [modelData.input[0], ...modelData.input.slice(-19)] });
  await run(agentWith(model), TASK, { maxTurns: 100, callModelInputFilter: naive });
  const invalid = bodies.filter((b) => validateMessages(b.input, 'openai-responses').length > 0);
  assert.ok(invalid.length >= 20, `${invalid.length} invalid requests`);
  for (const b of invalid) assert.throws(() => sdkCheck('openai-responses', b.input));
  assert.throws(() => checkWire(bodies.map((b) => b.input)));
});

test('a Runner and a fake Model (the SDK interface): the SDK items come back as they were, a call never without its result', async () => {
  const { requests, model } = fakeModel();
  const runner = new Runner({ callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: BUDGET } }) });
  const result = await runner.run(agentWith(model), TASK, { maxTurns: 100 });
  assert.equal(result.finalOutput, 'Fixed: the expiry is one hour.');
  assert.equal(requests.length, STEPS + 1);
  const unfiltered = fakeModel();
  await run(agentWith(unfiltered.model), TASK, { maxTurns: 100 });
  const full = unfiltered.requests.at(-1).input;
  for (const [k, { input, instructions }] of requests.entries()) {
    assert.equal(instructions, INSTRUCTIONS);
    // The SDK's own items, unchanged (none is truncated here), in the order of the history.
    let at = 0;
    for (const item of input) {
      while (at < full.length && JSON.stringify(full[at]) !== JSON.stringify(item)) at++;
      assert.ok(at < full.length, `request ${k}: an item not in the history, or out of order`);
    }
    const calls = new Set(input.filter((m) => m.type === 'function_call').map((m) => m.callId));
    const results = new Set(input.filter((m) => m.type === 'function_call_result').map((m) => m.callId));
    assert.deepEqual(calls, results, `request ${k}: a call without its result, or a result without its call`);
  }
  checkWire(requests.map((r) => r.input.map(responsesView)));
  assert.ok(requests.at(-1).input.length < full.length);
  const ours = prefixShare(requests.map((r) => r.input.map(responsesView)));
  const plain = prefixShare(plainSession(unfiltered.requests.map((r) => r.input.map(responsesView))));
  assert.ok(ours >= plain, `prefix share ${ours} < a plain session's ${plain}`);
});

test('streamed runs fit the same way', async () => {
  const { requests, model } = fakeModel();
  const stream = await run(agentWith(model), TASK, { maxTurns: 100, stream: true, callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: BUDGET } }) });
  for await (const _event of stream); // drain
  await stream.completed;
  checkWire(requests.map((r) => r.input.map(responsesView)));
});

test('one filter serves concurrent conversations, each with its own session', async () => {
  const filter = ctxpackInputFilter({ budgets: { tokens_max: BUDGET } });
  const a = wireModel();
  const b = wireModel();
  const task = (t) => `${TASK} (${t})`;
  await Promise.all([
    run(agentWith(a.model), task('a'), { maxTurns: 100, callModelInputFilter: filter }),
    run(agentWith(b.model), task('b'), { maxTurns: 100, callModelInputFilter: filter }),
  ]);
  for (const [bodies, t] of [[a.bodies, task('a')], [b.bodies, task('b')]]) {
    assert.equal(bodies.length, STEPS + 1);
    for (const body of bodies) {
      assert.deepEqual(validateMessages(body.input, 'openai-responses'), []);
      assert.ok(body.input.some((m) => userText(m) === t));
    }
    assert.ok(prefixShare(bodies.map((x) => x.input)) > 0.5);
  }
});

test('a tool output larger than half the budget goes in truncated, as the SDK item with a shorter output', async () => {
  const big = tool({ name: 'read_file', description: 'Reads a file.', parameters: z.object({ path: z.string() }), execute: async () => 'auth: session token expired\n'.repeat(3_000) });
  const { bodies, model } = wireModel();
  const agent = new Agent({ name: 'coder', instructions: INSTRUCTIONS, model, tools: [big] });
  await run(agent, TASK, { maxTurns: 3, callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 8_000 } }) }).catch((err) => assert.equal(err.name, 'MaxTurnsExceededError'));
  assert.equal(bodies.length, 3);
  for (const body of bodies.slice(1)) {
    assert.deepEqual(validateMessages(body.input, 'openai-responses'), []);
    const out = body.input.at(-1);
    assert.equal(out.type, 'function_call_output');
    assert.ok(out.output.length < 'auth: session token expired\n'.length * 3_000);
    assert.ok(fitMessages(body.input, { format: 'openai-responses', system: INSTRUCTIONS, budgets: { tokens_max: 10_000_000 } }).metrics.prompt_tokens <= 8_000);
  }
});

test('bad options and odd input are a CtxpackError with a stable code, naming the field, never the content', async () => {
  const code = (fn, c) => assert.throws(fn, (err) => err instanceof CtxpackError && err.code === c);
  code(() => ctxpackInputFilter(), 'INVALID_BUDGET');
  code(() => ctxpackInputFilter({}), 'INVALID_BUDGET');
  code(() => ctxpackInputFilter({ budgets: { tokens_max: 1_000 }, stateKey: 'k' }), 'INVALID_OPTION');
  code(() => ctxpackInputFilter({ budgets: { tokens_max: -1 } }), 'INVALID_BUDGET');
  code(() => ctxpackInputFilter({ budgets: { tokens_max: 1_000 }, format: 'openai' }), 'INVALID_OPTION');
  code(() => ctxpackInputFilter({ budgets: { tokens_max: 1_000 }, system: 'x' }), 'INVALID_OPTION');
  code(() => ctxpackInputFilter({ budgets: { tokens_max: 1_000 }, cache: 'nope' }), 'INVALID_OPTION');
  code(() => ctxpackInputFilter({ budgets: { tokens_max: 1_000 }, onFit: 3 }), 'INVALID_OPTION');
  const filter = ctxpackInputFilter({ budgets: { tokens_max: 1_000 } });
  const rejects = async (args, c) => assert.rejects(() => filter(args), (err) => err instanceof CtxpackError && err.code === c && !err.message.includes('SECRET'));
  await rejects(undefined, 'INVALID_OPTION');
  await rejects({ modelData: { input: 'SECRET' } }, 'INVALID_OPTION');
  await rejects({ modelData: { input: [], instructions: 7 } }, 'INVALID_OPTION');
  await rejects({ modelData: { input: [{ type: 'SECRET', x: 1 }] } }, 'INVALID_FIELD');
  await rejects({ modelData: { input: [null] } }, 'INVALID_FIELD');
  await rejects({ modelData: { input: [{ role: 'user', content: 'SECRET '.repeat(5_000) }] } }, 'PINNED_OVER_BUDGET');
  // An orphaned result in what the SDK passes is left out, never sent; last (the step in flight, which must be kept), it is refused.
  const orphan = { type: 'function_call_result', callId: 'c9', name: 'f', status: 'completed', output: 'x' };
  const input = [{ role: 'user', content: 'hi' }, orphan, { role: 'user', content: 'go on' }];
  const out = await filter({ modelData: { input } });
  assert.deepEqual(out.input, [input[0], input[2]]);
  await rejects({ modelData: { input: [input[0], orphan] } }, 'INVALID_MESSAGES');
  // Deterministic: the same input in a fresh filter gives the same output.
  assert.deepEqual(await ctxpackInputFilter({ budgets: { tokens_max: 1_000 } })({ modelData: { input } }), out);
});

/** The SDK's item types beside function calls, as the SDK holds them (its protocol, not the wire's). */
const MIXED = () => [
  { type: 'message', role: 'user', content: 'Set up the project.' },
  { type: 'reasoning', id: 'rs_1', content: [{ type: 'input_text', text: 'List the files first.' }], providerData: { encrypted_content: 'gAAAA' } },
  { type: 'shell_call', id: 'sh_1', callId: 's1', status: 'completed', action: { commands: ['ls'] } },
  { type: 'shell_call_output', callId: 's1', output: [{ stdout: 'src test\n'.repeat(400), stderr: '', outcome: { type: 'exit', exitCode: 0 } }] },
  { type: 'hosted_tool_call', id: 'ws_1', name: 'web_search_call', status: 'completed', arguments: '{"query":"session expiry"}', providerData: { type: 'web_search_call' } },
  { type: 'computer_call', id: 'cu_1', callId: 'cc1', status: 'completed', action: { type: 'screenshot' } },
  { type: 'computer_call_result', callId: 'cc1', output: { type: 'computer_screenshot', data: 'data:image/png;base64,iVBORw0KGgo=' } },
  { type: 'apply_patch_call', id: 'ap_1', callId: 'p1', status: 'completed', operation: { type: 'create_file', path: 'a.ts', diff: '+x' } },
  { type: 'apply_patch_call_output', callId: 'p1', status: 'completed', output: 'done' },
  { type: 'unknown', id: 'u_1', providerData: { type: 'something_new' } },
  { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Set up.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Now add the tests.' }] },
  { type: 'function_call', id: 'fc_1', callId: 'f1', name: 'write', arguments: '{}', status: 'completed' },
  { type: 'function_call_result', callId: 'f1', name: 'write', status: 'completed', output: { type: 'text', text: 'ok' } },
];

test("the SDK's other items: read as the Responses API's, given back as the same objects, pairs and reasoning kept together", async () => {
  const input = MIXED();
  const fits = [];
  const roomy = await ctxpackInputFilter({ budgets: { tokens_max: 100_000 }, onFit: (r) => fits.push(r) })({ modelData: { input, instructions: INSTRUCTIONS } });
  assert.equal(roomy.instructions, INSTRUCTIONS);
  assert.equal(roomy.input.length, input.length);
  roomy.input.forEach((item, i) => assert.equal(item, input[i], `item ${i} is not the SDK's own`));
  assert.deepEqual(validateMessages(input.map(responsesView), 'openai-responses'), []);
  const unit = fits[0].decisions.map((d) => d.unit);
  assert.equal(unit[2], unit[1]); // the reasoning goes with the call after it
  assert.equal(unit[3], unit[2]); // the shell call with its output
  assert.equal(unit[6], unit[5]);
  assert.equal(unit[8], unit[7]);
  assert.equal(unit[4], 4); // a hosted tool call: a unit of its own
  assert.equal(unit[9], 9); // an unknown item likewise

  // Tight: whatever is left out, no call goes without its output, no reasoning without its item.
  for (const tokens_max of [400, 700, 1_200, 2_500]) {
    const { input: out } = await ctxpackInputFilter({ budgets: { tokens_max } })({ modelData: { input: MIXED(), instructions: INSTRUCTIONS } });
    const views = out.map(responsesView);
    assert.deepEqual(validateMessages(views, 'openai-responses'), [], `tokens_max ${tokens_max}`);
    sdkCheck('openai-responses', views);
    assert.ok(out.some((m) => m.role === 'user' && m.content[0]?.text === 'Now add the tests.'));
  }
  // The shell output, over half the budget and kept by rule, goes in truncated: a copy in the SDK's shape, its outcome kept.
  const { input: out } = await ctxpackInputFilter({ budgets: { tokens_max: 700 }, keep: (item) => item.type === 'shell_call_output' })({ modelData: { input } });
  const shell = out.find((m) => m.type === 'shell_call_output');
  assert.notEqual(shell, input[3]);
  assert.ok(shell.output[0].stdout.length < 'src test\n'.length * 400);
  assert.deepEqual(shell.output[0].outcome, { type: 'exit', exitCode: 0 });
  assert.equal(shell.callId, 's1');
  assert.ok(out.includes(input[2]));
});

test('keep: a predicate over the SDK items, and a number', async () => {
  const input = MIXED();
  const reasons = [];
  const kept = await ctxpackInputFilter({ budgets: { tokens_max: 700 }, keep: (item) => item.type === 'hosted_tool_call', onFit: (r) => reasons.push(r.decisions[4].reason) })({ modelData: { input } });
  assert.ok(kept.input.includes(input[4]));
  await ctxpackInputFilter({ budgets: { tokens_max: 700 }, onFit: (r) => reasons.push(r.decisions[4].reason) })({ modelData: { input: MIXED() } });
  assert.deepEqual(reasons, ['pinned', 'scored']); // kept by the predicate; without it, scored like any other item
  const last = await ctxpackInputFilter({ budgets: { tokens_max: 100_000 }, keep: 2 })({ modelData: { input: MIXED() } });
  assert.equal(last.input.length, input.length);
});

test('two runs of the same task with one filter share a session: still valid, within budget', async () => {
  const filter = ctxpackInputFilter({ budgets: { tokens_max: BUDGET } });
  for (let r = 0; r < 2; r++) {
    const { bodies, model } = wireModel();
    await run(agentWith(model), TASK, { maxTurns: 100, callModelInputFilter: filter });
    checkWire(bodies.map((b) => b.input));
  }
});

test("the agent's tools are counted: a function tool's name, description and JSON schema", async () => {
  const tokens = [];
  for (const tools of [[], [readFile]]) {
    const { model } = fakeModel();
    const agent = new Agent({ name: 'coder', instructions: INSTRUCTIONS, model, tools });
    await run(agent, TASK, { maxTurns: 1, callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: BUDGET }, onFit: (r) => tokens.push(r.metrics.prompt_tokens) }) }).catch(() => undefined);
  }
  const [bare, withTool] = [tokens[0], tokens.at(-1)];
  assert.ok(withTool >= bare + estimateTokens(`${READ_FILE.description} {"type":"object","properties":{"path":{"type":"string"}}}`), `${bare} → ${withTool}`);
});

// ---- Trial defects: each checked through the real SDK and its OpenAIResponsesModel ----

/** The SDK's real Responses model over a client whose fetch answers `script(body, k)` (the output items of the k-th request, from 1) locally; records each request body. */
function scriptedModel(script) {
  const bodies = [];
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    bodies.push(body);
    const k = bodies.length;
    return new Response(JSON.stringify({ ...responseBody(k), output: script(body, k) }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 });
  return { bodies, model: new OpenAIResponsesModel(client, 'gpt-5') };
}
const callOf = (name, k) => ({ type: 'function_call', id: `fc_${k}`, call_id: `call_${k}`, name, arguments: '{}', status: 'completed' });
const say = (text, k = 0) => ({ type: 'message', id: `msg_${k}_${text.length}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
/** A request as sent, counted by the format's own rules with the instructions: its prompt tokens. */
const sentTokens = (body) => fitMessages(body.input, { format: 'openai-responses', system: body.instructions, budgets: { tokens_max: 100_000_000 } }).metrics.prompt_tokens;
/** A request as sent: valid, by ctxpack's rules and the API's refusals, and within `budget`. */
function checkSent(body, budget, label) {
  assert.deepEqual(validateMessages(body.input, 'openai-responses'), [], `${label}: invalid`);
  sdkCheck('openai-responses', body.input);
  const tokens = sentTokens(body);
  assert.ok(tokens <= budget, `${label}: ${tokens} tokens sent, budget ${budget}`);
}
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** A PNG's signature and IHDR chunk for a `side` × `side` image: what the image rule reads of its size. */
function pngHeader(side) {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12);
  header.writeUInt32BE(side, 16);
  header.writeUInt32BE(side, 20);
  return header;
}
const PDF = 'data:application/pdf;base64,JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvUGFnZT4+ZW5kb2JqCiUlRU9G';

test('previousResponseId and conversationId: the outputs of calls the server holds are kept, in flight, and the run completes', async () => {
  const read = tool({ name: 'read', description: 'Reads a file.', parameters: z.object({ path: z.string() }), execute: async ({ path }) => `${path}: ${'file content\n'.repeat(2_000)}` });
  for (const opts of [{ previousResponseId: 'resp_prev' }, { conversationId: 'conv_1' }]) {
    // Two parallel calls at the first request, one at the second, then the answer.
    const { bodies, model } = scriptedModel((_body, k) => (k === 1 ? [callOf('read', 1), { ...callOf('read', 2), arguments: '{"path":"b"}' }] : k === 2 ? [callOf('read', 3)] : [say('done')]));
    const agent = new Agent({ name: 'a', instructions: INSTRUCTIONS, model, tools: [read] });
    const result = await run(agent, TASK, { ...opts, callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 4_000 } }) });
    assert.equal(result.finalOutput, 'done', JSON.stringify(opts));
    assert.equal(bodies.length, 3);
    // After the first call, the input is only the new outputs, each for a call the server holds: all sent, truncated to fit.
    assert.deepEqual(bodies[1].input.map((i) => [i.type, i.call_id]), [['function_call_output', 'call_1'], ['function_call_output', 'call_2']]);
    assert.deepEqual(bodies[2].input.map((i) => [i.type, i.call_id]), [['function_call_output', 'call_3']]);
    for (const body of bodies.slice(1)) {
      assert.ok(body.previous_response_id !== undefined || body.conversation !== undefined);
      for (const out of body.input) assert.ok(out.output.length < 'file content\n'.length * 2_000, 'the output is truncated');
      // Counted here with their calls (the server's, and not sent): within the budget.
      const withCalls = body.input.flatMap((out) => [{ type: 'function_call', call_id: out.call_id, name: 'read', arguments: '' }, out]);
      assert.ok(sentTokens({ ...body, input: withCalls }) <= 4_000, `${sentTokens({ ...body, input: withCalls })} tokens`);
    }
  }
  // An input with a user message holds its own history: an output in flight without its call there is still refused.
  const filter = ctxpackInputFilter({ budgets: { tokens_max: 1_000 } });
  const orphan = { type: 'function_call_result', callId: 'c9', name: 'f', status: 'completed', output: 'x' };
  await assert.rejects(() => filter({ modelData: { input: [{ role: 'user', content: 'hi' }, orphan] } }), (err) => err instanceof CtxpackError && err.code === 'INVALID_MESSAGES');
  // Without one, the output answers a call the server holds: kept, and the stand-in of its call is never sent.
  assert.deepEqual((await filter({ modelData: { input: [orphan] } })).input, [orphan]);
});

test('a truncated tool output keeps its image and its file, in the SDK shape, so the request carries their sources', async () => {
  for (const [part, source] of [[{ type: 'image', image: PNG }, 'image_url'], [{ type: 'file', file: PDF, filename: 'a.pdf' }, 'file_data']]) {
    const inspect = tool({ name: 'inspect', description: 'Inspects the page.', parameters: z.object({}), execute: async () => [{ type: 'text', text: 'dom node\n'.repeat(20_000) }, part] });
    const sent = async (filter) => {
      const { bodies, model } = scriptedModel((_body, k) => (k === 1 ? [callOf('inspect', 1)] : [say('ok')]));
      await run(new Agent({ name: 'a', instructions: INSTRUCTIONS, model, tools: [inspect] }), TASK, filter === undefined ? {} : { callModelInputFilter: filter });
      return bodies[1];
    };
    const body = await sent(ctxpackInputFilter({ budgets: { tokens_max: 12_000 } }));
    const out = body.input.find((i) => i.type === 'function_call_output');
    assert.equal(out.output[0].type, 'input_text');
    assert.ok(out.output[0].text.length < 'dom node\n'.length * 20_000, 'the text is truncated');
    // The media part goes as the SDK sends it without the filter: its source with it.
    const whole = (await sent(undefined)).input.find((i) => i.type === 'function_call_output');
    assert.deepEqual(out.output[1], whole.output[1], part.type);
    assert.ok(out.output[1][source].startsWith('data:'), `${part.type}: its ${source} is sent`);
    checkSent(body, 12_000, part.type);
  }
});

test('truncateUserMessage, stubMedia and stubToolResults: the rewritten items are sent, in the SDK shape, within the budget', async () => {
  // truncateUserMessage: a pasted 72k-token task goes in cut.
  const task = 'log line with an error code 42\n'.repeat(8_000);
  const a = scriptedModel(() => [say('ok')]);
  await run(new Agent({ name: 'a', instructions: INSTRUCTIONS, model: a.model }), task, { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 4_000 }, truncateUserMessage: true }) });
  assert.ok(userText(a.bodies[0].input[0]).length < task.length);
  checkSent(a.bodies[0], 4_000, 'truncateUserMessage');

  // stubMedia: an earlier message's four large images go in as notes, its text kept.
  const big = `data:image/png;base64,${Buffer.concat([pngHeader(2_000), Buffer.alloc(100)]).toString('base64')}`;
  const history = [
    { role: 'user', content: [{ type: 'input_text', text: 'What is in these?' }, ...Array.from({ length: 4 }, () => ({ type: 'input_image', image: big }))] },
    { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Four charts. '.repeat(100) }] },
    { role: 'user', content: 'Thanks; something else.' },
  ];
  const b = scriptedModel(() => [say('ok')]);
  await run(new Agent({ name: 'a', instructions: INSTRUCTIONS, model: b.model }), history, { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 1_500 }, stubMedia: true }) });
  const first = b.bodies[0].input[0];
  assert.deepEqual(first.content.map((p) => p.type), ['input_text', 'input_text', 'input_text', 'input_text', 'input_text']);
  assert.equal(first.content[0].text, 'What is in these?');
  assert.ok(first.content.slice(1).every((p) => p.text.startsWith('[image omitted')), JSON.stringify(first.content[1]));
  checkSent(b.bodies[0], 1_500, 'stubMedia');

  // stubToolResults: earlier large outputs go in as stubs rather than be left out.
  const read = tool({ name: 'read', description: 'Reads a file.', parameters: z.object({}), execute: async () => 'export const line = 1;\n'.repeat(600) });
  const c = scriptedModel((_body, k) => (k <= 6 ? [callOf('read', k)] : [say('done')]));
  const fits = [];
  await run(new Agent({ name: 'a', instructions: INSTRUCTIONS, model: c.model, tools: [read] }), TASK, { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 6_000 }, stubToolResults: true, onFit: (r) => fits.push(r) }) });
  assert.ok(fits.some((r) => r.decisions.some((d) => d.included && d.stubbed)), 'no output was stubbed');
  let stubs = 0;
  for (const [k, body] of c.bodies.entries()) {
    checkSent(body, 6_000, `stubToolResults, request ${k}`);
    stubs += body.input.filter((i) => i.type === 'function_call_output' && typeof i.output === 'string' && i.output.startsWith('[tool result omitted')).length;
  }
  assert.ok(stubs > 0, 'no stub was sent');
});

test('hosted tool items are counted as the wire items the SDK sends from providerData', async () => {
  // File search and code interpreter: their results, code and logs are counted, and the request fits.
  const doc = 'The retention policy keeps audit logs for ninety days unless legal hold applies. '.repeat(400);
  const hosted = [
    { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['retention policy'], results: [{ file_id: 'file_1', filename: 'policy.md', score: 0.9, text: doc, attributes: {} }] },
    { type: 'code_interpreter_call', id: 'ci_1', status: 'completed', container_id: 'cntr_1', code: 'import pandas as pd\n'.repeat(300), outputs: [{ type: 'logs', logs: 'row\n'.repeat(2_000) }] },
  ];
  const a = scriptedModel((_body, k) => (k === 1 ? [...hosted, say('Ninety days.')] : [say('ok')]));
  const agent = new Agent({ name: 'a', instructions: INSTRUCTIONS, model: a.model });
  const filter = ctxpackInputFilter({ budgets: { tokens_max: 3_000 }, onFit: (r) => fits.push(r) });
  const fits = [];
  const first = await run(agent, 'How long are audit logs kept?', { callModelInputFilter: filter });
  assert.deepEqual(first.history.slice(1, 3).map((i) => [i.type, i.providerData.type]), [['hosted_tool_call', 'file_search_call'], ['hosted_tool_call', 'code_interpreter_call']]);
  const history = [...first.history, { role: 'user', content: 'And billing records?' }];
  await run(agent, history, { callModelInputFilter: filter });
  const costs = fits.at(-1).decisions.slice(1, 3).map((d) => d.cost_tokens);
  const wire = fitMessages(hosted, { format: 'openai-responses', budgets: { tokens_max: 100_000_000 } }).decisions.map((d) => d.cost_tokens);
  assert.deepEqual(costs, wire, 'counted as the wire items are');
  checkSent(a.bodies.at(-1), 3_000, 'file search and code interpreter');
  // Roomy, they are sent: the SDK sends them from providerData.
  const roomy = ctxpackInputFilter({ budgets: { tokens_max: 100_000 } });
  await run(agent, history, { callModelInputFilter: roomy });
  assert.deepEqual(a.bodies.at(-1).input.slice(1, 3).map((i) => i.type), ['file_search_call', 'code_interpreter_call']);

  // An MCP approval (the SDK's interruption, approved): its request's arguments counted, its response paired with it by approval_request_id.
  const args = JSON.stringify({ q: 'transport protocols of the spec '.repeat(200) });
  const b = scriptedModel((_body, k) => (k === 1 ? [{ type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'deepwiki', name: 'ask_question', arguments: args }] : [say('Approved.')]));
  const mcp = new Agent({ name: 'a', instructions: INSTRUCTIONS, model: b.model, tools: [hostedMcpTool({ serverLabel: 'deepwiki', serverUrl: 'https://mcp.deepwiki.com/mcp', requireApproval: 'always' })] });
  const asked = await run(mcp, 'Ask deepwiki about the MCP spec.');
  asked.state.approve(asked.interruptions[0]);
  const approved = await run(mcp, asked.state);
  const items = [...approved.history, { role: 'user', content: 'Now something else.' }];
  const request = items.findIndex((i) => i.name === 'mcp_approval_request');
  const response = items.findIndex((i) => i.name === 'mcp_approval_response');
  assert.ok(request > 0 && response > request);
  const mcpFits = [];
  const { input } = await ctxpackInputFilter({ budgets: { tokens_max: 100_000 }, onFit: (r) => mcpFits.push(r) })({ modelData: { input: items, instructions: INSTRUCTIONS } });
  assert.equal(input.length, items.length);
  const d = mcpFits[0].decisions;
  assert.equal(d[response].unit, d[request].unit, 'the response goes with its request');
  assert.ok(d[request].cost_tokens >= estimateTokens(args) / 2, `the arguments count: ${d[request].cost_tokens} tokens`);
  // Tight: the pair is left out whole, and what is sent fits.
  const c = scriptedModel(() => [say('ok')]);
  await run(new Agent({ name: 'a', instructions: INSTRUCTIONS, model: c.model }), items, { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 600 } }) });
  checkSent(c.bodies[0], 600, 'MCP approval');

  // Image generation: the base64 image the SDK keeps in `output` counts as an image, never as text.
  const image = Buffer.concat([pngHeader(1_024), Buffer.from(Array.from({ length: 1_000_000 }, (_, i) => (i * 7_919) % 251))]).toString('base64');
  const g = scriptedModel((_body, k) => (k === 1 ? [{ type: 'image_generation_call', id: 'ig_1', status: 'completed', result: image, revised_prompt: 'a cat' }, say('Here is your cat.')] : [say('ok')]));
  const draw = new Agent({ name: 'a', instructions: INSTRUCTIONS, model: g.model, tools: [imageGenerationTool()] });
  const drawn = await run(draw, 'Draw a cat.');
  assert.equal(drawn.history[1].output, image);
  const igFits = [];
  await run(draw, [...drawn.history, { role: 'user', content: 'Make it blue.' }], { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 20_000 }, onFit: (r) => igFits.push(r) }) });
  const ig = igFits[0].decisions[1];
  assert.ok(ig.included, 'the generated image is kept');
  const asImage = fitMessages([{ role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${image}` }] }], { format: 'openai-responses', budgets: { tokens_max: 100_000 } }).decisions[0].cost_tokens;
  assert.ok(ig.cost_tokens <= asImage + 50, `${ig.cost_tokens} tokens, an image of its size ${asImage}`);
});

// ---- A second trial's defects ----

/** A computer (the SDK's `Computer`) that does nothing and shows a 1x1 screenshot; an editor (its `Editor`) that creates files. */
const COMPUTER = { environment: 'browser', dimensions: [1024, 768], screenshot: async () => PNG.slice('data:image/png;base64,'.length), click: async () => {}, doubleClick: async () => {}, scroll: async () => {}, type: async () => {}, wait: async () => {}, move: async () => {}, keypress: async () => {}, drag: async () => {} };
const EDITOR = { createFile: async () => ({ status: 'completed', output: 'created' }), updateFile: async () => {}, deleteFile: async () => {} };

test("a server's calls: each output is counted with a stand-in of the call the format pairs it with (a computer call, an apply patch call), never sent", async () => {
  const { bodies, model } = scriptedModel((_body, k) => (k === 1 ? [
    { type: 'computer_call', id: 'cu_1', call_id: 'call_c', action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' },
    { type: 'apply_patch_call', id: 'ap_1', call_id: 'call_p', status: 'completed', operation: { type: 'create_file', path: 'a.ts', diff: '+x' } },
  ] : [say('done')]));
  const agent = new Agent({ name: 'a', instructions: INSTRUCTIONS, model, tools: [computerTool({ computer: COMPUTER }), applyPatchTool({ editor: EDITOR })] });
  const fits = [];
  const result = await run(agent, TASK, { previousResponseId: 'resp_0', callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 4_000 }, onFit: (r) => fits.push(r) }) });
  assert.equal(result.finalOutput, 'done');
  assert.deepEqual(bodies[1].input.map((i) => [i.type, i.call_id]), [['computer_call_output', 'call_c'], ['apply_patch_call_output', 'call_p']]);
  // In the views, each output follows a stand-in of its own call's type, with its call id.
  assert.deepEqual(fits[1].messages.map((m) => [m.type, m.call_id]), [['computer_call', 'call_c'], ['computer_call_output', 'call_c'], ['apply_patch_call', 'call_p'], ['apply_patch_call_output', 'call_p']]);
  assert.deepEqual(validateMessages(fits[1].messages, 'openai-responses'), []);
  assert.equal(bodies[1].previous_response_id, 'resp_1');
});

test("a server's calls: an error about an item names its index in the SDK's input, not among the stand-ins", async () => {
  const filter = ctxpackInputFilter({ budgets: { tokens_max: 1_000 } });
  const out = (callId, extra = {}) => ({ type: 'function_call_result', callId, name: 'read', status: 'completed', output: 'SECRET', ...extra });
  const fails = async (input, index, field, otherIndex) => assert.rejects(() => filter({ modelData: { input } }), (err) => {
    assert.ok(err instanceof CtxpackError, String(err));
    assert.deepEqual([err.code, err.field, err.index, err.otherIndex], ['INVALID_MESSAGES', field, index, otherIndex]);
    assert.ok(err.message.startsWith(`messages[${index}] `), err.message);
    assert.ok(!err.message.includes('SECRET'));
    return true;
  });
  // Two outputs of the server's calls (two stand-ins before them), then a reasoning item with nothing after it: item 2.
  await fails([out('c1'), out('c2'), { type: 'reasoning', id: 'rs_1', content: [] }], 2, 'reasoning_without_item', undefined);
  // The second output repeats the first's item id: item 1.
  await fails([out('c1', { id: 'fco_1' }), out('c2', { id: 'fco_1' })], 1, 'duplicate_item_id', undefined);
});

test("unknown items are counted as what the SDK sends for them: their providerData, read by the format's rules", async () => {
  const rows = 'order id,total\n'.repeat(2_000);
  const summary = 'observation of the build graph '.repeat(300);
  const input = () => [
    { role: 'user', content: 'Query the totals.' },
    // A custom tool's call and output, which the SDK has no items for, and an item type newer than the SDK.
    { type: 'unknown', id: 'ctc_1', providerData: { type: 'custom_tool_call', callId: 'call_x', name: 'sql', input: 'SELECT id, total FROM orders;' } },
    { type: 'unknown', providerData: { type: 'custom_tool_call_output', callId: 'call_x', output: rows } },
    { type: 'unknown', id: 'fut_1', providerData: { type: 'future_item', status: 'completed', findings: { summary } } },
    { role: 'user', content: 'And now?' },
  ];
  const { bodies, model } = scriptedModel(() => [say('ok')]);
  const agent = new Agent({ name: 'a', instructions: INSTRUCTIONS, model });
  await run(agent, input());
  const sent = bodies[0].input;
  assert.deepEqual(sent.slice(1, 4).map((i) => [i.type, i.call_id]), [['custom_tool_call', 'call_x'], ['custom_tool_call_output', 'call_x'], ['future_item', undefined]]);

  // Roomy: all sent, the custom pair in one unit and counted as the wire items are, the new item's content counted.
  const fits = [];
  await run(agent, input(), { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 100_000 }, onFit: (r) => fits.push(r) }) });
  assert.deepEqual(bodies.at(-1).input, sent);
  const d = fits[0].decisions;
  assert.equal(d[2].unit, d[1].unit, 'the output goes with its call');
  const wire = fitMessages(sent.slice(1, 3), { format: 'openai-responses', budgets: { tokens_max: 100_000_000 } }).decisions.map((x) => x.cost_tokens);
  assert.deepEqual([d[1].cost_tokens, d[2].cost_tokens], wire);
  assert.ok(d[3].cost_tokens >= estimateTokens(summary), `the new item: ${d[3].cost_tokens} tokens`);

  // Tight, the output kept: it goes in truncated, in providerData, with its call; what is sent is valid and fits.
  const keep = (item) => item.providerData?.type === 'custom_tool_call_output';
  await run(agent, input(), { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 3_000 }, keep }) });
  const tight = bodies.at(-1);
  const out = tight.input.find((i) => i.type === 'custom_tool_call_output');
  assert.ok(out.output.length < rows.length, 'the output is truncated');
  assert.ok(tight.input.some((i) => i.type === 'custom_tool_call' && i.call_id === 'call_x'));
  checkSent(tight, 3_000, 'unknown items');
});

test('a history the server holds is inferred from the input (the SDK passes the filter no previousResponseId): the limits docs/openai-agents.md states', async () => {
  const filter = ctxpackInputFilter({ budgets: { tokens_max: 1_000 } });
  const orphan = { type: 'function_call_result', callId: 'c9', name: 'f', status: 'completed', output: 'x' };
  const user = { role: 'user', content: 'Something new.' };
  // With a user message, an output whose call only the server holds is left out, or refused last.
  assert.deepEqual((await filter({ modelData: { input: [orphan, user] } })).input, [user]);
  await assert.rejects(() => filter({ modelData: { input: [user, orphan] } }), (err) => err instanceof CtxpackError && err.code === 'INVALID_MESSAGES');
  // Without one, an output whose call is not in the input is taken for a server's call's and sent.
  const developer = { role: 'developer', content: 'Be brief.' };
  assert.deepEqual((await filter({ modelData: { input: [developer, orphan] } })).input, [developer, orphan]);
});
