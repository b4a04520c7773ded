// ctxpack/langchain with the real langchain@1 (createAgent, its middleware, a MemorySaver
// checkpointer) and @langchain/core: 64-step tool agents through createAgent with
// ctxpackAgentMiddleware. Every request the model receives must be valid (validateMessages, and
// LangChain's own pairing in sdk-check.mjs), hold the system prompt, the task and the step in
// flight, fit the budget, and reuse the previous request's prefix at least as much as a plain
// session given the same histories; the agent's state must keep every message.
//
// With Anthropic's model, @langchain/anthropic's real ChatAnthropic over the real Anthropic client
// (its fetch answers locally): the session's breakpoints must reach the API as cache_control.
//
// The model is otherwise a BaseChatModel of @langchain/core's, scripted (scripted-models.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, createMiddleware, MiddlewareError, tool } from 'langchain';
import { MemorySaver } from '@langchain/langgraph';
import { AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { z } from 'zod';
import { CtxpackError, createSession, estimateTokens, fitMessages, validateMessages } from 'ctxpack';
import { ctxpackAgentMiddleware } from 'ctxpack/langchain';
import { BUDGET, INSTRUCTIONS as SYSTEM, prefixShare, READ_FILE, STEPS, TASK } from './adapter-agents.mjs';
import { importInternal } from './internal.mjs';
import { sdkCheck } from './sdk-check.mjs';
import { ScriptedChatModel as ScriptedModel } from './scripted-models.mjs';

const readFile = tool(async ({ path }) => READ_FILE.read(path), {
  name: READ_FILE.name,
  description: READ_FILE.description,
  schema: z.object({ path: z.string() }),
});
// The tool as the middleware counts it: with its zod schema as JSON Schema, the provider's view of it.
const { $schema: _, ...readFileSchema } = z.toJSONSchema(readFile.schema);
const COUNTED_TOOLS = [{ name: READ_FILE.name, description: READ_FILE.description, parameters: readFileSchema }];

/** The checks of every request the model got: valid, the system prompt, the task and the step in flight in it, within the budget. */
function checkRequests(calls, steps = STEPS) {
  assert.equal(calls.length, steps);
  for (const [k, request] of calls.entries()) {
    assert.deepEqual(validateMessages(request, 'langchain'), [], `step ${k}: an invalid request`);
    sdkCheck('langchain', request);
    assert.ok(SystemMessage.isInstance(request[0]) && request[0].text === SYSTEM, `step ${k}: the system prompt is not first`);
    assert.equal(request.filter((m) => SystemMessage.isInstance(m)).length, 1, `step ${k}: the system prompt twice`);
    assert.ok(request.some((m) => HumanMessage.isInstance(m) && m.text === TASK), `step ${k}: the task is missing`);
    if (k > 0) {
      assert.equal(request.at(-1).getType(), 'tool', `step ${k}: the step in flight is missing`);
      assert.equal(request.at(-1).tool_call_id, `call_${k}`);
      assert.equal(request.at(-2).tool_calls[0].id, `call_${k}`);
    }
    const counted = fitMessages(request, { format: 'langchain', budgets: { tokens_max: 10_000_000 }, tools: COUNTED_TOOLS });
    assert.ok(counted.metrics.prompt_tokens <= BUDGET, `step ${k}: ${counted.metrics.prompt_tokens} tokens`);
  }
}

test('createAgent: a 64-step tool agent gets valid requests within budget, the state keeps every message, prefix reuse at least a plain session\'s', async () => {
  const model = new ScriptedModel();
  const unfitted = [];
  const recorder = createMiddleware({ name: 'recorder', wrapModelCall: (request, handler) => (unfitted.push([request.systemMessage, ...request.messages]), handler(request)) });
  const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM,
    middleware: [recorder, ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET } })] });
  const result = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  checkRequests(model.calls);
  // The graph's state is never fitted: the task, a call and its result per step, the answer.
  assert.equal(result.messages.length, 1 + 2 * (STEPS - 1) + 1);
  assert.equal(unfitted.at(-1).length, 1 + 1 + 2 * (STEPS - 1));
  // The run outgrew the budget: the late requests are cut.
  assert.ok(model.calls.at(-1).length < unfitted.at(-1).length);
  const session = createSession({ format: 'langchain', budgets: { tokens_max: BUDGET }, cache: 'openai', tools: COUNTED_TOOLS });
  const plain = prefixShare(unfitted.map((h) => session.fit(h).messages));
  const ours = prefixShare(model.calls);
  assert.ok(ours >= plain, `prefix share ${ours} < a plain session's ${plain}`);
  assert.ok(ours > 0.5, `prefix share ${ours}`);
});

test('threads: one middleware, two conversations interleaved on checkpointers, a session each, continued by a later turn', async () => {
  const fits = [];
  const middleware = ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, onFit: (r) => fits.push(r) });
  const calls = { a: [], b: [] };
  const agents = Object.fromEntries(['a', 'b'].map((t) => [t, createAgent({ model: new ScriptedModel(8, calls[t]), tools: [readFile], systemPrompt: SYSTEM, middleware: [middleware], checkpointer: new MemorySaver() })]));
  await Promise.all(['a', 'b'].map((t) => agents[t].invoke({ messages: [new HumanMessage(TASK)] }, { configurable: { thread_id: t }, recursionLimit: 100 })));
  for (const t of ['a', 'b']) checkRequests(calls[t], 8);
  assert.equal(fits.length, 16);
  // A later turn of thread a: the checkpointer gives back its state, the middleware its session, whose last request it extends.
  await agents.a.invoke({ messages: [new HumanMessage('Now add a test.')] }, { configurable: { thread_id: 'a' } });
  assert.equal(calls.a.length, 9);
  assert.equal(calls.a.at(-1).length, 1 + 1 + 2 * 7 + 1 + 1);
  assert.ok(fits.at(-1).cache.predictedCachedTokens > 0, 'a new session: nothing predicted cached');
});

test('tokenCounter: LangChain\'s convention, a function of messages or a chat model\'s getNumTokens, counts every text', async () => {
  const seen = [];
  // As trimMessages takes it: a count of messages, here a fraction (rounded up).
  const byMessages = (messages) => {
    for (const m of messages) seen.push(m);
    return messages.reduce((n, m) => n + m.text.length / 4 + 3, 0);
  };
  const model = new ScriptedModel(STEPS);
  const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, tokenCounter: byMessages })] });
  await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  checkRequests(model.calls);
  assert.ok(seen.length > STEPS && seen.every((m) => m instanceof BaseMessage));

  // A chat model: its own getNumTokens, with an encoder given so that it needs no download.
  const counting = new FakeListChatModel({ responses: ['unused'] });
  counting._encoding = new Tiktoken(o200k);
  const model2 = new ScriptedModel(16);
  const agent2 = createAgent({ model: model2, tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, tokenCounter: counting })] });
  await agent2.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  checkRequests(model2.calls, 16);
});

test('a counter never counts 0 in silence: a messages counter as countTokens, NaN, a string are TOKEN_COUNT_FAILED', async () => {
  // The trap: a counter of messages given a string reads no message, so every count is 0.
  const messagesCounter = (messages) => { let n = 0; for (const m of messages) n += typeof m.content === 'string' ? Math.ceil(m.content.length / 4) : 0; return n; };
  const bad = [['countTokens', messagesCounter], ['tokenCounter', () => Number.NaN], ['tokenCounter', () => '12'], ['countTokens', async () => undefined], ['tokenCounter', () => 0]];
  for (const [field, counter] of bad) {
    const agent = createAgent({ model: new ScriptedModel(2), tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, [field]: counter })] });
    const err = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }).then(() => undefined, (e) => e);
    const cause = err instanceof CtxpackError ? err : err?.cause;
    assert.ok(cause instanceof CtxpackError, `${field}: ${err}`);
    assert.equal(cause.code, 'TOKEN_COUNT_FAILED');
    assert.equal(cause.field, field);
    assert.ok(!cause.message.includes(TASK.slice(0, 20)));
  }
});

test('options: refused when the middleware is made, naming the field', () => {
  const cases = [
    // No budgets: as fitMessages and createSession say it.
    [undefined, 'INVALID_BUDGET', 'budgets'],
    [{}, 'INVALID_BUDGET', 'budgets'],
    [{ budgets: { tokens_max: -1 } }, 'INVALID_BUDGET'],
    [{ budgets: { tokens_max: 1_000 }, tokencounter: () => 1 }, 'INVALID_OPTION', 'tokencounter'],
    [{ budgets: { tokens_max: 1_000 }, state: {} }, 'INVALID_OPTION', 'state'],
    [{ budgets: { tokens_max: 1_000 }, system: 'x' }, 'INVALID_OPTION', 'system'],
    [{ budgets: { tokens_max: 1_000 }, format: 'openai' }, 'INVALID_OPTION', 'format'],
    [{ budgets: { tokens_max: 1_000 }, tokenCounter: 42 }, 'INVALID_OPTION', 'tokenCounter'],
    [{ budgets: { tokens_max: 1_000 }, tokenCounter: () => 1, countTokens: () => 1 }, 'INVALID_OPTION', 'tokenCounter'],
    [{ budgets: { tokens_max: 1_000 }, onFit: 'no' }, 'INVALID_OPTION', 'onFit'],
    [{ budgets: { tokens_max: 1_000 }, breakpoints: 'yes' }, 'INVALID_OPTION', 'breakpoints'],
    [{ budgets: { tokens_max: 1_000 }, cache: 'nope' }, 'INVALID_OPTION'],
  ];
  for (const [options, code, field] of cases) {
    assert.throws(() => ctxpackAgentMiddleware(options), (e) => e instanceof CtxpackError && e.code === code && (field === undefined || e.field === field), JSON.stringify(options));
  }
});

test('what must be kept exceeds the budget: the model call fails with PINNED_OVER_BUDGET, never sends an oversized request', async () => {
  const model = new ScriptedModel(2);
  const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM.repeat(200), middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: 500 } })] });
  const err = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }).then(() => undefined, (e) => e);
  // LangChain wraps what a middleware throws in its MiddlewareError; the cause is ours.
  assert.ok(err instanceof MiddlewareError);
  assert.ok(err.cause instanceof CtxpackError);
  assert.equal(err.cause.code, 'PINNED_OVER_BUDGET');
  assert.equal(model.calls.length, 0);
});

test('odd requests to wrapModelCall are a CtxpackError naming the field, and the model is not called', async () => {
  const { wrapModelCall } = ctxpackAgentMiddleware({ budgets: { tokens_max: 1_000 } });
  let called = 0;
  const handler = () => (called++, new AIMessage('x'));
  const cases = [[null, 'INVALID_OPTION'], [{ messages: 'hi' }, 'INVALID_OPTION'], [{ messages: [42] }, 'INVALID_FIELD'], [{ messages: [{ content: TASK }] }, 'INVALID_FIELD'],
    [{ messages: [new HumanMessage(TASK)], systemMessage: new SystemMessage(SYSTEM), tools: 'nope', runtime: null }, undefined]];
  for (const [request, code] of cases) {
    const err = await Promise.resolve().then(() => wrapModelCall(request, handler)).then(() => undefined, (e) => e);
    if (code === undefined) assert.equal(err, undefined);
    else {
      assert.ok(err instanceof CtxpackError && err.code === code, `${code}: ${err}`);
      assert.ok(!err.message.includes(TASK));
    }
  }
  assert.equal(called, 1);
});

test('the agent\'s system prompt and its tools\' names, descriptions and schemas are counted', async () => {
  const tokens = [];
  // A zod 4 schema counts as its JSON Schema (without `$schema`); a JSON Schema as itself.
  const big = z.object(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_number_${i}`, z.string().describe(`what field ${i} of the request holds`)])));
  const withSchema = (schema) => tool(async () => 'x', { name: READ_FILE.name, description: READ_FILE.description, schema });
  const { $schema: _s, ...bigJson } = z.toJSONSchema(big);
  for (const [systemPrompt, tools] of [[undefined, []], [SYSTEM, []], [SYSTEM, [readFile]], [SYSTEM, [withSchema(big)]], [SYSTEM, [withSchema(bigJson)]]]) {
    const middleware = ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, onFit: (r) => tokens.push(r.metrics.prompt_tokens) });
    await createAgent({ model: new ScriptedModel(1), tools, systemPrompt, middleware: [middleware] }).invoke({ messages: [new HumanMessage(TASK)] });
  }
  const [bare, withSystem, withTools, withBig, withJson] = tokens;
  assert.ok(withSystem >= bare + estimateTokens(SYSTEM), `${bare} → ${withSystem}`);
  assert.ok(withTools >= withSystem + estimateTokens('Reads a file of the repository.'), `${withSystem} → ${withTools}`);
  assert.ok(withBig >= withTools + estimateTokens(JSON.stringify(bigJson)) / 2, `a 30-field schema is counted: ${withTools} → ${withBig}`);
  assert.equal(withJson, withBig, 'the same schema as JSON Schema counts the same');
});

/** @langchain/anthropic's real ChatAnthropic over the real Anthropic client, whose fetch records each request body and answers locally: read_file for `steps - 1` calls, then text. */
function anthropicModel(steps = STEPS) {
  const bodies = [];
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    bodies.push(body);
    const k = bodies.length;
    const content = k < steps ? [{ type: 'tool_use', id: `call_${k}`, name: READ_FILE.name, input: { path: `src/auth/file${k}.ts` } }] : [{ type: 'text', text: 'Fixed.' }];
    const reply = { id: `msg_${k}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: k < steps ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } };
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { bodies, model: new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-test', maxRetries: 0, clientOptions: { fetch } }) };
}

/** The cache_control markers of an Anthropic request body: on system blocks, message content blocks and the blocks inside a tool_result. */
const cacheMarks = (blocks) => (Array.isArray(blocks) ? blocks.reduce((n, b) => n + (b.cache_control ? 1 : 0) + cacheMarks(b.content), 0) : 0);

test('Anthropic (ChatAnthropic): the session breakpoints reach the API as cache_control on content blocks, at most 4, the last message marked; valid Anthropic requests', async () => {
  const { bodies, model } = anthropicModel();
  const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET } })] });
  const result = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  assert.equal(bodies.length, STEPS);
  // The agent's state keeps every message as it was: no cache_control in it.
  assert.equal(result.messages.length, 1 + 2 * (STEPS - 1) + 1);
  assert.ok(result.messages.every((m) => typeof m.content === 'string' || cacheMarks(m.content) === 0));
  let marked = 0;
  for (const [k, body] of bodies.entries()) {
    assert.deepEqual(validateMessages(body.messages, 'anthropic'), [], `request ${k}: invalid`);
    const system = typeof body.system === 'string' ? body.system : body.system.map((b) => b.text).join('');
    assert.equal(system, SYSTEM);
    const marks = cacheMarks(body.messages) + (Array.isArray(body.system) ? cacheMarks(body.system) : 0);
    assert.ok(marks <= 4, `request ${k}: ${marks} markers`);
    if (marks > 0) {
      marked++;
      const last = body.messages.at(-1).content.at(-1);
      assert.ok(last.cache_control !== undefined || cacheMarks(last.content) > 0, `request ${k}: the last message carries no breakpoint`);
    }
  }
  assert.ok(marked >= STEPS - 4, `${marked} requests marked`);
  // Another model: no markers, the 'openai' profile.
  const plain = new ScriptedModel(8);
  await createAgent({ model: plain, tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET } })] }).invoke({ messages: [{ role: 'user', content: TASK }] });
  assert.ok(plain.calls.every((request) => request.every((m) => typeof m.content === 'string' || cacheMarks(m.content) === 0)));
  // breakpoints: false, none.
  const off = anthropicModel();
  await createAgent({ model: off.model, tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, breakpoints: false })] }).invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  assert.ok(off.bodies.every((b) => cacheMarks(b.messages) === 0));
});

test('ChatAnthropic: every breakpoint the session reports is written, on its message\'s last block on the wire', async () => {
  // ChatAnthropic's AI messages hold their tool_use blocks; a caller's history may hold AI
  // messages of text and tool_calls, whose tool_use blocks @langchain/anthropic appends after it.
  const earlier = [];
  for (let k = 0; k < 6; k++) {
    earlier.push(new HumanMessage(`question ${k}: ${'what does the module do? '.repeat(40)}`));
    earlier.push(new AIMessage({ content: `Reading the file for question ${k}.`, tool_calls: [{ id: `old_${k}`, name: READ_FILE.name, args: { path: `src/old${k}.ts` } }] }));
    earlier.push(new ToolMessage({ tool_call_id: `old_${k}`, content: `export const old${k} = ${k}; // ${'a line of the file '.repeat(60)}` }));
    earlier.push(new AIMessage(`Answer ${k}.`));
  }
  const { bodies, model } = anthropicModel(12);
  const reported = [];
  const middleware = ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, onFit: (r) => reported.push(r.cache.breakpoints) });
  await createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [middleware] }).invoke({ messages: [...earlier, new HumanMessage(TASK)] }, { recursionLimit: 1_000 });
  assert.equal(reported.length, bodies.length);
  const own = (b) => b.cache_control !== undefined && b.cache_control !== null;
  for (const [k, body] of bodies.entries()) {
    const marks = cacheMarks(body.messages) + (Array.isArray(body.system) ? cacheMarks(body.system) : 0);
    assert.equal(marks, reported[k].length, `request ${k}: ${reported[k].length} breakpoints reported, ${marks} written`);
    for (const [i, m] of body.messages.entries()) {
      if (!Array.isArray(m.content) || cacheMarks(m.content) === 0) continue;
      const last = m.content.at(-1);
      assert.ok(own(last) || cacheMarks(last.content) > 0, `request ${k}, message ${i}: the marker is not on the last block`);
    }
  }
  for (const body of bodies) assert.deepEqual(validateMessages(body.messages, 'anthropic'), []);
});

test('ChatAnthropic: a breakpoint on an AI message lands on its last block on the wire, whatever holds its tool calls (the real client converts the marked copy)', async () => {
  const { withCacheControl } = await importInternal("export { withCacheControl } from './src/adapters/langchain-markers.ts';");
  const call = { id: 'toolu_1', name: READ_FILE.name, args: { path: 'src/a.ts' } };
  const toolUse = { type: 'tool_use', id: 'toolu_1', name: READ_FILE.name, input: { path: 'src/a.ts' } };
  const searched = [{ type: 'text', text: 'Searching.' }, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'ctxpack' } }, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Example', encrypted_content: 'abc' }] }];
  const cases = {
    'tool calls only (content "")': new AIMessage({ content: '', tool_calls: [call] }),
    'text and tool calls (a string)': new AIMessage({ content: 'Reading it.', tool_calls: [call] }),
    "ChatAnthropic's own (tool_use blocks in content)": new AIMessage({ content: [{ type: 'text', text: 'Reading it.' }, toolUse], tool_calls: [call] }),
    'blocks without the tool_use of a tool call': new AIMessage({ content: [{ type: 'text', text: 'Reading it.' }], tool_calls: [call] }),
    'a server tool result last': new AIMessage({ content: searched }),
    'text only': new AIMessage('Done.'),
  };
  const mark = { type: 'ephemeral' };
  for (const [name, message] of Object.entries(cases)) {
    const followUp = message.tool_calls?.length ? [new ToolMessage({ tool_call_id: 'toolu_1', content: 'export const a = 1;' })] : [new HumanMessage('And then?')];
    const send = async (m) => {
      const { bodies, model } = anthropicModel(2);
      await model.invoke([new HumanMessage('Read src/a.ts.'), m, ...followUp]);
      return bodies[0].messages[1];
    };
    const plain = await send(message);
    const marked = await send(withCacheControl(message, mark));
    assert.equal(cacheMarks(marked.content), 1, `${name}: one marker`);
    assert.deepEqual(marked.content.at(-1).cache_control, mark, `${name}: the marker is not on the message's last block`);
    const { cache_control: _m, ...lastBlock } = marked.content.at(-1);
    assert.deepEqual([...marked.content.slice(0, -1), lastBlock], typeof plain.content === 'string' ? [{ type: 'text', text: plain.content }] : plain.content, `${name}: the marked message sends other blocks than the message`);
    assert.equal(message.content, cases[name].content, `${name}: the message itself is untouched`);
  }
});

test("ChatAnthropic: provider 'anthropic' by default, so a cut chat still opens with a user message (Claude on Bedrock refuses an assistant first)", async () => {
  const { bodies, model } = anthropicModel();
  // An earlier exchange whose question the budget cannot keep: its answer would open the request.
  const history = [new HumanMessage(`an old question ${'with a long pasted log '.repeat(300)}`), new AIMessage('an old answer'), new HumanMessage(TASK)];
  const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: 1_200 } })] });
  await agent.invoke({ messages: history }, { recursionLimit: 1_000 });
  assert.ok(bodies.length > 0);
  for (const [k, body] of bodies.entries()) {
    assert.equal(body.messages[0].role, 'user', `request ${k}`);
    assert.deepEqual(validateMessages(body.messages, 'anthropic'), [], `request ${k}`);
    assert.ok(!JSON.stringify(body.messages).includes('an old answer'), `request ${k}: the answer without its question is left out`);
  }
});

test('ChatAnthropic: a cache_control the caller put on a tool counts against the four (the body the real client sends)', async () => {
  const { bodies, model } = anthropicModel();
  const cached = { type: 'custom', name: 'lookup', description: 'Looks a word up.', input_schema: { type: 'object', properties: { q: { type: 'string' } } }, cache_control: { type: 'ephemeral' } };
  const agent = createAgent({ model, tools: [readFile, cached], systemPrompt: SYSTEM, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET } })] });
  await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 1_000 });
  assert.equal(bodies.length, STEPS);
  for (const [k, body] of bodies.entries()) {
    const inTools = cacheMarks(body.tools);
    assert.equal(inTools, 1, `request ${k}: the tool's marker is sent`);
    const marks = inTools + cacheMarks(body.messages) + (Array.isArray(body.system) ? cacheMarks(body.system) : 0);
    assert.ok(marks <= 4, `request ${k}: ${marks} markers`);
  }
});

// The caller's markers, told apart from the ones ctxpack writes (`{ type: 'ephemeral' }`) by their explicit ttl.
const CALLER_MARK = { type: 'ephemeral', ttl: '5m' };
/** The cache_control markers of a request body, the caller's (`ttl: '5m'`) and ctxpack's apart: system blocks, tools, message blocks and the blocks inside a tool_result. */
function bodyMarks(body) {
  const all = [];
  const walk = (blocks) => Array.isArray(blocks) && blocks.forEach((b) => (b.cache_control && all.push(b.cache_control), walk(b.content)));
  walk(Array.isArray(body.system) ? body.system : []);
  walk(body.tools);
  walk(body.messages);
  const caller = all.filter((c) => c.ttl === '5m').length;
  return { all: all.length, caller, ours: all.length - caller };
}

test('ChatAnthropic: the caller\'s markers on messages count against the four: the session\'s breakpoints are the ones the body carries, and past four the earliest of the caller\'s go', async () => {
  const marked = (text) => [{ type: 'text', text, cache_control: CALLER_MARK }];
  for (const callerMarks of [2, 5]) {
    const { bodies, model } = anthropicModel(12);
    const fits = [];
    // The system prompt's marker, and callerMarks - 1 on earlier turns of the conversation.
    const systemPrompt = new SystemMessage({ content: marked(SYSTEM) });
    const history = [];
    for (let k = 0; k < callerMarks - 1; k++) history.push(new HumanMessage({ content: marked(`an earlier question ${k}: ${'about the session store '.repeat(30)}`) }), new AIMessage(`an earlier answer ${k}`));
    history.push(new HumanMessage(TASK));
    const agent = createAgent({ model, tools: [readFile], systemPrompt, middleware: [ctxpackAgentMiddleware({ budgets: { tokens_max: BUDGET }, onFit: (r) => fits.push(r) })] });
    await agent.invoke({ messages: history }, { recursionLimit: 1_000 });
    assert.equal(bodies.length, 12);
    assert.equal(fits.length, bodies.length);
    let written = 0;
    for (const [k, body] of bodies.entries()) {
      assert.deepEqual(validateMessages(body.messages, 'anthropic'), [], `request ${k}: invalid`);
      const marks = bodyMarks(body);
      assert.ok(marks.all <= 4, `${callerMarks} caller's markers, request ${k}: ${marks.all} markers (Anthropic refuses more than 4)`);
      assert.equal(marks.caller, Math.min(callerMarks, 4), `request ${k}: the caller's markers sent`);
      assert.equal(marks.ours, fits[k].cache.breakpoints.length, `${callerMarks} caller's markers, request ${k}: the session reports ${fits[k].cache.breakpoints.length} breakpoints, the body holds ${marks.ours}`);
      assert.equal(fits[k].warnings.some((w) => w.startsWith('cache_markers_removed: 1 ')), callerMarks > 4, `request ${k}: the warning`);
      written += marks.ours;
    }
    if (callerMarks < 4) assert.ok(written > 0, 'the room left is used');
    // The caller's messages keep their markers (the request has copies).
    assert.ok(history.every((m) => typeof m.content === 'string' || m.content[0].cache_control === CALLER_MARK));
  }
});

test('fitMessages (langchain): more than 4 markers with the tools\' are cut to 4, the earliest removed, on copies of the same LangChain classes; the real ChatAnthropic sends them', async () => {
  const block = (text) => ({ type: 'text', text, cache_control: CALLER_MARK });
  const history = [
    new SystemMessage({ content: [block(SYSTEM)] }),
    new HumanMessage({ content: [block('first question')] }),
    new AIMessage({ content: [block('let me look')], tool_calls: [{ id: 'call_a', name: READ_FILE.name, args: { path: 'a.ts' } }] }),
    new ToolMessage({ content: [block(READ_FILE.read('a.ts'))], tool_call_id: 'call_a', name: READ_FILE.name }),
    new AIMessage({ content: [block('found it')] }),
    new HumanMessage({ content: [block('and now?')] }),
  ];
  const tools = [{ name: 'lookup', description: 'Looks a word up.', input_schema: { type: 'object', properties: { q: { type: 'string' } } }, cache_control: CALLER_MARK }];
  const r = fitMessages(history, { format: 'langchain', tools, budgets: { tokens_max: 100_000 } });
  assert.equal(r.messages.length, history.length);
  assert.ok(r.warnings.some((w) => w.startsWith('cache_markers_removed: 3 ')), r.warnings.join('\n'));
  // The latest three stay (with the tool's, four); the earliest three are copies without theirs.
  assert.deepEqual(r.messages.map((m) => (m.content[0].cache_control ? 1 : 0)), [0, 0, 0, 1, 1, 1]);
  for (const [k, m] of r.messages.entries()) {
    assert.equal(m.constructor, history[k].constructor, `messages[${k}] keeps its class`);
    assert.equal(m.content[0].text, history[k].content[0].text);
  }
  assert.equal(r.messages[3], history[3], 'a message whose markers stay is the caller\'s own');
  assert.deepEqual(r.messages[2].tool_calls, history[2].tool_calls);
  assert.ok(history.every((m) => m.content[0].cache_control === CALLER_MARK), 'the caller\'s messages are untouched');
  assert.deepEqual(validateMessages(r.messages, 'langchain'), []);
  const { bodies, model } = anthropicModel(1);
  await model.bindTools(tools).invoke(r.messages);
  assert.equal(bodyMarks(bodies[0]).all, 4, 'the body the real client sends');
  // Within the limit: the messages themselves, no warning.
  const plain = fitMessages(history.slice(2), { format: 'langchain', budgets: { tokens_max: 100_000 } });
  assert.ok(plain.messages.every((m, k) => m === history[k + 2]));
  assert.ok(!plain.warnings.some((w) => w.startsWith('cache_markers_removed')));
});
