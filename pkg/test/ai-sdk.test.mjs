// ctxpack/ai-sdk with the real AI SDK (ai@7) and its own fake model (MockLanguageModelV4 from
// ai/test, in adapter-agents.mjs): 64-step tool agents under generateText, streamText and
// ToolLoopAgent, through ctxpackPrepareStep and ctxpackLanguageModelMiddleware. Every prompt the
// model receives must be valid (by validateMessages, and by the SDK's modelMessageSchema, also for
// the messages prepareStep returns), hold the task and the step in flight, fit the budget, and
// reuse the previous prompt's prefix at least as much as a plain session given the same histories.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, jsonSchema, modelMessageSchema, stepCountIs, streamText, tool, ToolLoopAgent, wrapLanguageModel } from 'ai';
import { CtxpackError, createSession, estimateTokens, validateMessages } from 'ctxpack';
import { ctxpackLanguageModelMiddleware, ctxpackPrepareStep, isAnthropicModel } from 'ctxpack/ai-sdk';
import { agentModel, anthropicMarked, BUDGET, checkPrompts, INSTRUCTIONS, prefixShare as sharedPrefix, READ_FILE, STEPS, TASK } from './adapter-agents.mjs';

const FORMAT = { name: 'ai-sdk', allowSystemInMessages: true };
const tools = {
  [READ_FILE.name]: tool({
    description: READ_FILE.description,
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => READ_FILE.read(path),
  }),
};

const withoutMarks = (m) => {
  if (m.providerOptions === undefined) return m;
  const { providerOptions, ...rest } = m;
  const { anthropic, ...others } = providerOptions;
  const { cacheControl, ...left } = anthropic ?? {};
  const po = { ...others, ...(Object.keys(left).length > 0 ? { anthropic: left } : {}) };
  return Object.keys(po).length > 0 ? { ...rest, providerOptions: po } : rest;
};
/** The prefix share of the prompts, the breakpoints ctxpack wrote aside. */
const prefixShare = (prompts) => sharedPrefix(prompts, withoutMarks);

/** The plain session's prompts for the same histories, for the prefix comparison. */
function plainSession(histories, options) {
  const session = createSession({ format: FORMAT, budgets: { tokens_max: BUDGET }, cache: 'openai', ...options });
  return histories.map(({ prompt, tools: sent }) => session.fit(prompt, { tools: sent }).messages);
}

test('middleware: a 64-step tool agent under generateText gets valid prompts within budget, with the prefix reuse of a plain session', async () => {
  const { model, calls } = agentModel();
  const unfitted = [];
  const recorder = { specificationVersion: 'v4', transformParams: async ({ params }) => (unfitted.push({ prompt: params.prompt, tools: params.tools }), params) };
  const wrapped = wrapLanguageModel({ model, middleware: [recorder, ctxpackLanguageModelMiddleware({ budgets: { tokens_max: BUDGET } })] });
  const result = await generateText({ model: wrapped, tools, instructions: INSTRUCTIONS, messages: [{ role: 'user', content: TASK }], stopWhen: stepCountIs(STEPS) });
  assert.equal(result.steps.length, STEPS);
  checkPrompts(calls);
  // Unfitted, the last prompt is the whole history: the SDK's own messages are never changed.
  assert.equal(unfitted.at(-1).prompt.length, 2 + 2 * (STEPS - 1));
  const ours = prefixShare(calls.map((c) => c.prompt));
  const plain = prefixShare(plainSession(unfitted));
  assert.ok(ours >= plain, `prefix share ${ours} < a plain session's ${plain}`);
  assert.ok(ours > 0.5, `prefix share ${ours}`);
});

test('middleware: streamText and ToolLoopAgent, 64 steps each, valid prompts within budget', async () => {
  const { model, calls } = agentModel();
  const result = streamText({ model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: BUDGET } }) }), tools, instructions: INSTRUCTIONS, prompt: TASK, stopWhen: stepCountIs(STEPS) });
  assert.equal((await result.steps).length, STEPS);
  checkPrompts(calls);

  const agentCalls = agentModel();
  const agent = new ToolLoopAgent({ model: wrapLanguageModel({ model: agentCalls.model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: BUDGET } }) }), tools, instructions: INSTRUCTIONS, stopWhen: stepCountIs(STEPS) });
  assert.equal((await agent.generate({ prompt: TASK })).steps.length, STEPS);
  checkPrompts(agentCalls.calls);
});

test('prepareStep: a 64-step tool agent (generateText and streamText) gets SDK-valid messages within budget, the whole history kept by the helper', async () => {
  for (const stream of [false, true]) {
    const { model, calls } = agentModel();
    const returned = [];
    const seen = [];
    const prepareStep = ctxpackPrepareStep({ budgets: { tokens_max: BUDGET }, tools, onFit: (r) => seen.push(r.decisions.length) });
    const spy = async (step) => {
      const r = await prepareStep(step);
      returned.push(r.messages);
      return r;
    };
    const args = { model, tools, instructions: INSTRUCTIONS, messages: [{ role: 'user', content: TASK }], stopWhen: stepCountIs(STEPS), prepareStep: spy };
    const steps = stream ? await streamText(args).steps : (await generateText(args)).steps;
    assert.equal(steps.length, STEPS);
    for (const [k, messages] of returned.entries()) {
      for (const [i, m] of messages.entries()) assert.ok(modelMessageSchema.safeParse(m).success, `step ${k}: messages[${i}] fails the SDK's schema`);
      assert.deepEqual(validateMessages(messages, 'ai-sdk'), []);
    }
    checkPrompts(calls);
    // The session sees the whole history at every step (task, then a call and its result per step), not what the SDK carries forward.
    assert.deepEqual(seen, Array.from({ length: STEPS }, (_, k) => 1 + 2 * k));
    assert.ok(prefixShare(calls.map((c) => c.prompt.slice(1))) > 0.5);
  }
});

test('Anthropic: the session breakpoints reach the model as providerOptions.anthropic.cacheControl, at most 4, on the last message', async () => {
  for (const glue of ['middleware', 'prepareStep']) {
    const { model, calls } = agentModel({ provider: 'anthropic.messages' });
    const options = { budgets: { tokens_max: BUDGET } };
    const args = glue === 'middleware'
      ? { model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware(options) }) }
      : { model, prepareStep: ctxpackPrepareStep(options) };
    await generateText({ ...args, tools, instructions: INSTRUCTIONS, prompt: TASK, stopWhen: stepCountIs(STEPS) });
    const marked = anthropicMarked(calls, glue);
    assert.ok(marked >= STEPS - 4, `${glue}: ${marked} prompts marked`);
  }
  // Not Anthropic's model: no markers.
  const { model, calls } = agentModel({ provider: 'openai.chat' });
  await generateText({ model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: BUDGET } }) }), tools, prompt: TASK, stopWhen: stepCountIs(8) });
  assert.ok(calls.every(({ prompt }) => prompt.every((m) => m.providerOptions?.anthropic === undefined)));
});

// A new-user trial found prepareStep's counted copy of the tools without their providerOptions:
// the caller's own tool marker went uncounted, and the provider dropped a fifth breakpoint.
test('Anthropic: a marker the caller put on a tool counts against the four, through both glues', async () => {
  const marked = { [READ_FILE.name]: tool({ ...tools[READ_FILE.name], providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }) };
  for (const glue of ['middleware', 'prepareStep']) {
    const { model, calls } = agentModel({ provider: 'anthropic.messages' });
    const options = { budgets: { tokens_max: BUDGET } };
    const args = glue === 'middleware'
      ? { model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware(options) }) }
      : { model, prepareStep: ctxpackPrepareStep({ ...options, tools: marked }) };
    await generateText({ ...args, tools: marked, instructions: INSTRUCTIONS, prompt: TASK, stopWhen: stepCountIs(12) });
    for (const [k, { prompt, tools: sent }] of calls.entries()) {
      const inTools = sent.filter((t) => t.providerOptions?.anthropic?.cacheControl !== undefined).length;
      assert.equal(inTools, 1, `${glue}: the tool reaches the model with its marker`);
      const inPrompt = prompt.filter((m) => m.providerOptions?.anthropic?.cacheControl !== undefined).length;
      assert.ok(inPrompt + inTools <= 4, `${glue}, request ${k}: ${inPrompt} + ${inTools} markers`);
      if (k >= 4) assert.equal(inPrompt, 3, `${glue}, request ${k}: the adapter uses the room left`);
    }
  }
});

test('middleware: a system message mid-conversation, which ai@7 allows with allowSystemInMessages, is kept where it stands', async () => {
  const { model, calls } = agentModel();
  const messages = [
    { role: 'user', content: TASK },
    { role: 'assistant', content: 'I will read the auth module.' },
    { role: 'system', content: 'The repository is read-only until the user says otherwise.' },
    { role: 'user', content: 'Go on.' },
  ];
  const wrapped = wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: BUDGET } }) });
  await generateText({ model: wrapped, tools, instructions: INSTRUCTIONS, messages, allowSystemInMessages: true, stopWhen: stepCountIs(12) });
  assert.equal(calls.length, 12);
  for (const { prompt } of calls) {
    assert.deepEqual(validateMessages(prompt, FORMAT), []);
    assert.ok(prompt.some((m) => m.role === 'system' && m.content.startsWith('The repository')));
  }
  assert.notDeepEqual(validateMessages(calls[0].prompt, 'ai-sdk'), []); // the plain format refuses it
});

test('interleaved conversations through one middleware keep a session each', async () => {
  const { model, calls } = agentModel();
  const wrapped = wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware({ budgets: { tokens_max: 4_000 }, onFit: (r) => fits.push(r.cache) }) });
  const fits = [];
  const run = (task) => generateText({ model: wrapped, tools, instructions: INSTRUCTIONS, prompt: task, stopWhen: stepCountIs(10) });
  await Promise.all([run(TASK), run('Add a test for the token refresh.')]);
  assert.equal(calls.length, 20);
  // Every step after each conversation's first appends to (or cuts) that conversation's last request.
  const appended = fits.filter((c) => c.prefixMessages > 0).length;
  assert.ok(appended >= 16, `${appended} of 20 steps reused a prefix`);
});

test('options: bad ones are a CtxpackError naming the field, at creation', () => {
  const bad = [
    // As fitMessages and createSession say it.
    [{}, 'budgets', 'INVALID_BUDGET'],
    [{ budgets: { tokens_max: 1000 }, format: 'openai' }, 'format'],
    [{ budgets: { tokens_max: 1000 }, system: 'x' }, 'system'],
    [{ budgets: { tokens_max: 1000 }, cache: 'fast' }, 'cache'],
    [{ budgets: { tokens_max: 1000 }, breakpoints: 'yes' }, 'breakpoints'],
    [{ budgets: { tokens_max: 1000 }, onFit: 1 }, 'onFit'],
    [{ budgets: { tokens_max: 1000 }, colour: 'red' }, 'colour'],
    // The adapter keeps its sessions in memory: a state would never be read nor saved.
    [{ budgets: { tokens_max: 1000 }, state: {} }, 'state', 'INVALID_OPTION', /keeps one session per conversation in memory/],
    [{ budgets: { tokens_max: 1000 }, stateKey: 'k' }, 'stateKey', 'INVALID_OPTION', /saves no state/],
    // A typo of the adapter's own option is hinted, among the adapter's names, not createSession's.
    [{ budgets: { tokens_max: 1000 }, onfit: () => {} }, 'onfit', 'INVALID_OPTION', /not an option of ctxpack\/ai-sdk \(known: (?!.*\bformat\b).*\bonFit\b.*did you mean onFit\?$/],
    [{ budgets: { tokens_max: 1000 }, maxSession: 2 }, 'maxSession', 'INVALID_OPTION', /did you mean maxSessions\?$/],
    // 0 sessions would keep none: refused, not read as 1 (a new-user trial finding).
    [{ budgets: { tokens_max: 1000 }, maxSessions: 0 }, 'maxSessions', 'INVALID_OPTION', /must be a positive integer/],
  ];
  for (const make of [ctxpackPrepareStep, ctxpackLanguageModelMiddleware]) {
    for (const [options, field, code = 'INVALID_OPTION', message = /./] of bad) {
      assert.throws(() => make(options), (err) => err instanceof CtxpackError && err.code === code && err.field === field && message.test(err.message), `${make.name} ${field}`);
    }
  }
});

test('odd step input is a CtxpackError, never a raw exception', async () => {
  const prepareStep = ctxpackPrepareStep({ budgets: { tokens_max: 1000 } });
  await assert.rejects(prepareStep({ steps: [], messages: 'hi' }), (err) => err instanceof CtxpackError && err.field === 'step.messages');
  await assert.rejects(prepareStep({ steps: [], messages: [{ role: 'robot', content: 'x' }] }), (err) => err instanceof CtxpackError && err.code === 'INVALID_FIELD');
  const { transformParams } = ctxpackLanguageModelMiddleware({ budgets: { tokens_max: 1000 } });
  await assert.rejects(transformParams({ type: 'generate', params: { prompt: null }, model: {} }), (err) => err instanceof CtxpackError && err.field === 'params.prompt');
  const onFit = () => {
    throw new Error('boom');
  };
  await assert.rejects(ctxpackPrepareStep({ budgets: { tokens_max: 1000 }, onFit })({ steps: [], messages: [{ role: 'user', content: 'hi' }] }), (err) => err instanceof CtxpackError && err.field === 'onFit');
});

test('isAnthropicModel: the provider, or an anthropic/ id through the AI Gateway', () => {
  assert.equal(isAnthropicModel({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' }), true);
  assert.equal(isAnthropicModel({ provider: 'gateway', modelId: 'anthropic/claude-sonnet-4.5' }), true);
  assert.equal(isAnthropicModel('anthropic/claude-sonnet-4.5'), true);
  assert.equal(isAnthropicModel({ provider: 'openai.chat', modelId: 'gpt-4o' }), false);
  assert.equal(isAnthropicModel(undefined), false);
});

test('prepareStep: the tools, which the SDK does not pass it, are counted when given as its tools option; the middleware takes them from the call', async () => {
  const tokens = [];
  for (const options of [{}, { tools }]) {
    const { model } = agentModel();
    const prepareStep = ctxpackPrepareStep({ budgets: { tokens_max: BUDGET }, onFit: (r) => tokens.push(r.metrics.prompt_tokens), ...options });
    await generateText({ model, tools, instructions: INSTRUCTIONS, prompt: TASK, stopWhen: stepCountIs(1), prepareStep });
  }
  const [bare, withTools] = tokens;
  assert.ok(withTools >= bare + estimateTokens(`${READ_FILE.description} {"type":"object","properties":{"path":{"type":"string"}}}`), `${bare} → ${withTools}`);
  assert.throws(() => ctxpackPrepareStep({ budgets: { tokens_max: 1_000 }, tools: [tools.read_file] }), (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.field === 'tools');
  assert.throws(() => ctxpackLanguageModelMiddleware({ budgets: { tokens_max: 1_000 }, tools }), (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.field === 'tools');
});

// prepareStep is not given the tools: passed as the option, they are counted as the model gets
// them, a zod schema (the SDK's usual way) as its JSON Schema, as jsonSchema() tools and the
// middleware (which the SDK hands JSON Schema) count them. Before, a zod tool counted its name
// and description only: a 30-field schema was 29 tokens.
test('prepareStep counts zod tools as their JSON Schema, as jsonSchema() tools and the middleware do', async () => {
  const { z } = await import('zod');
  const props = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, z.string().describe(`The description of field number ${i}, long enough to weigh`)]));
  const zodTools = { big: tool({ description: 'A tool', inputSchema: z.object(props), execute: async () => 'x' }) };
  // The same schema as JSON Schema: zod's conversion, without its `$schema` URL (as ctxpack converts it).
  const { $schema: _, ...converted } = z.toJSONSchema(z.object(props));
  const jsonTools = { big: tool({ description: 'A tool', inputSchema: jsonSchema(converted), execute: async () => 'x' }) };
  const messages = [{ role: 'user', content: 'hi' }];
  const viaPrepareStep = async (tools) => {
    let tokens;
    const prepareStep = ctxpackPrepareStep({ budgets: { tokens_max: 100_000 }, tools, onFit: (r) => (tokens = r.metrics.prompt_tokens) });
    await prepareStep({ steps: [], messages });
    return tokens;
  };
  const none = await viaPrepareStep(undefined);
  const zod = await viaPrepareStep(zodTools);
  const json = await viaPrepareStep(jsonTools);
  assert.ok(zod - none > 500, `the zod schema counted ${zod - none} tokens`);
  assert.equal(zod, json);
});

// A new-user trial found the middleware writing 1-hour markers after the caller's 5-minute one on
// the instructions (5m -> 1h), which Anthropic refuses ("must not come after a ttl='5m'").
test('Anthropic cache TTL order: with a 1-hour profile after the caller\'s 5-minute marker on the instructions, both glues write 5-minute markers and say so', async () => {
  const { anthropicTtlCheck } = await import('./sdk-check.mjs');
  const cache = { readCost: 0.1, writeCost: 2, minCacheableTokens: 1024, maxBreakpoints: 4, ttl: '1h' };
  const mark = { anthropic: { cacheControl: { type: 'ephemeral' } } };
  const instructions = { role: 'system', content: `${INSTRUCTIONS} `.repeat(60), providerOptions: mark };
  // The markers of a prompt in the provider's processing order: tools, system messages, then the rest (a message's own after its parts').
  const controls = ({ prompt, tools: sent = [] }) => {
    const own = (x) => (x.providerOptions?.anthropic?.cacheControl ? [x.providerOptions.anthropic.cacheControl] : []);
    const inMessage = (m) => [...(Array.isArray(m.content) ? m.content.flatMap(own) : []), ...own(m)];
    return [...sent.flatMap(own), ...prompt.filter((m) => m.role === 'system').flatMap(inMessage), ...prompt.filter((m) => m.role !== 'system').flatMap(inMessage)];
  };
  for (const glue of ['middleware', 'prepareStep']) for (const caller of [true, false]) {
    const { model, calls } = agentModel({ provider: 'anthropic.messages' });
    const warnings = [];
    const options = { budgets: { tokens_max: BUDGET }, cache, onFit: (r) => warnings.push(...r.warnings) };
    const args = glue === 'middleware'
      ? { model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware(options) }) }
      : { model, prepareStep: ctxpackPrepareStep({ ...options, tools }) };
    await generateText({ ...args, tools, instructions: caller ? instructions : { ...instructions, providerOptions: undefined }, prompt: TASK, stopWhen: stepCountIs(12) });
    const ttls = calls.map((c, k) => anthropicTtlCheck(controls(c), `${glue}, request ${k}`));
    const ours = ttls.flatMap((t) => (caller ? t.slice(1) : t));
    assert.ok(ours.length >= 12, `${glue}: ctxpack marked the prompts`);
    assert.ok(ours.every((t) => t === (caller ? '5m' : '1h')), `${glue}, caller's marker ${caller}: ${ours.join(',')}`);
    assert.equal(warnings.some((w) => w.startsWith('cache_ttl_shortened: ')), caller, `${glue}: the warning says it when it shortened`);
  }
});

// The caller's markers, told apart from the ones ctxpack writes (`{ type: 'ephemeral' }`) by their explicit ttl.
const CALLER_MARK = { anthropic: { cacheControl: { type: 'ephemeral', ttl: '5m' } } };
/**
 * The cache markers an Anthropic request made of an AI SDK prompt carries, counted as
 * @ai-sdk/anthropic counts them (4.0.105, read; not a dependency here, so the prompt the model
 * receives is counted): a system message's own; per part of another message, the part's, else its
 * tool output's, else the message's own on its last part; then the tools'. Past 4 the SDK drops
 * them with a warning, so every marker counts toward the 4 in that order.
 */
function sdkMarks(prompt, sentTools = []) {
  const control = (po) => po?.anthropic?.cacheControl ?? po?.anthropic?.cache_control;
  const all = [];
  for (const m of prompt) {
    if (m.role === 'system') {
      if (control(m.providerOptions)) all.push(control(m.providerOptions));
      continue;
    }
    const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    parts.forEach((p, k) => {
      const c = control(p.providerOptions) ?? control(p.output?.providerOptions) ?? (k === parts.length - 1 ? control(m.providerOptions) : undefined);
      if (c) all.push(c);
    });
  }
  for (const t of sentTools) if (control(t.providerOptions)) all.push(control(t.providerOptions));
  const caller = all.filter((c) => c.ttl === '5m').length;
  return { all: all.length, caller, ours: all.length - caller };
}

test("Anthropic: the caller's markers on the instructions and messages count against the four: the breakpoints the session reports are the ones the prompt carries", async () => {
  const marked = (text) => ({ role: 'user', content: [{ type: 'text', text, providerOptions: CALLER_MARK }] });
  for (const glue of ['middleware', 'prepareStep']) for (const callerMarks of [2, 3, 5]) {
    const { model, calls } = agentModel({ provider: 'anthropic.messages' });
    const fits = [];
    const options = { budgets: { tokens_max: BUDGET }, onFit: (r) => fits.push(r) };
    const args = glue === 'middleware'
      ? { model: wrapLanguageModel({ model, middleware: ctxpackLanguageModelMiddleware(options) }) }
      : { model, prepareStep: ctxpackPrepareStep({ ...options, tools }) };
    // The instructions' marker, and the rest on earlier turns: on a part, and on a message (the SDK puts it on the message's last part).
    const messages = [];
    for (let k = 0; k < callerMarks - 1; k++) {
      messages.push(k % 2 === 0 ? marked(`an earlier question ${k}: ${'about the session store '.repeat(30)}`) : { role: 'user', content: `an earlier question ${k}`, providerOptions: CALLER_MARK });
      messages.push({ role: 'assistant', content: `an earlier answer ${k}` });
    }
    messages.push({ role: 'user', content: TASK });
    await generateText({ ...args, tools, instructions: { role: 'system', content: INSTRUCTIONS, providerOptions: CALLER_MARK }, messages, stopWhen: stepCountIs(12) });
    assert.equal(calls.length, 12);
    // prepareStep reports the first step's fit too, and the middleware every call's: the last 12.
    const last = fits.slice(-calls.length);
    let written = 0;
    for (const [k, { prompt, tools: sent }] of calls.entries()) {
      const marks = sdkMarks(prompt, sent);
      // ctxpack adds none past 4 (the caller's own past 4 are the SDK's to drop, with its warning).
      assert.ok(marks.all <= Math.max(4, callerMarks), `${glue}, ${callerMarks} caller's markers, request ${k}: ${marks.all} markers (the SDK would drop the ones past 4)`);
      assert.equal(marks.caller, callerMarks, `${glue}, request ${k}: the caller's markers`);
      assert.equal(marks.ours, last[k].cache.breakpoints.length, `${glue}, ${callerMarks} caller's markers, request ${k}: the session reports ${last[k].cache.breakpoints.length} breakpoints, the prompt carries ${marks.ours}`);
      written += marks.ours;
    }
    if (callerMarks < 4) assert.ok(written > 0, `${glue}: the room left is used`);
  }
});
