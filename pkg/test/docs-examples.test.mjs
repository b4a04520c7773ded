// Every code block of README.md, CONTRIBUTING.md and docs/*.md (not docs/specs/) is executed or
// checked here, so that no example rots:
//
// - ```js, ```mjs and ```ts blocks run as ES modules, each a module of its own, against the
//   built package: every bare import (`'ctxpack'`, `'ctxpack/tokenizers/js-tiktoken'`, `'ai'`) is
//   resolved from this file, so `'ctxpack'` is the package under test (its own `exports`). A ts
//   block is stripped of its types by esbuild first. The names a block uses without defining them
//   are the stand-ins below (STAND-INS), made fresh for each block: fake clients check that every
//   request they get is valid for its format. Where a block's comments promise a result, CHECKS
//   holds the assertion, found by a snippet of the block (a check whose block is gone fails).
// - ```bash blocks: every `make X` is a Makefile target, every `ctxpack X` a subcommand of
//   pkg/bin/ctxpack.js, every `npm install` name the package or one of its dependencies; a
//   `npx ctxpack …` line whose input file is in the repository runs, and must exit 0.
// - ```rust blocks: README.md's are doctests (src/lib.rs includes the README, `cargo test`);
//   docs/rust.md's are copied into tests/docs_rust.rs (`cargo test --test docs_rust`), and each
//   must appear there as written.
// - any other block must carry `<!-- not run: reason -->` on the line before it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import * as ctxpack from 'ctxpack';
import * as ctxpackSlicers from 'ctxpack/slicers';
import * as ctxpackAcs from 'ctxpack/acs';
import * as ctxpackAiSdk from 'ctxpack/ai-sdk';
import * as ctxpackAgents from 'ctxpack/openai-agents';
import { OpenAIResponsesModel, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import * as ctxpackLangchain from 'ctxpack/langchain';
import * as ctxpackMastra from 'ctxpack/mastra';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';

const { ERROR_CODES, validateMessages } = ctxpack;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const RUN = new Set(['js', 'mjs', 'ts']);

/** The fenced code blocks of a Markdown file: { file, line, lang, code, notRun }. */
function blocksOf(file) {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== '```') end++;
    assert.ok(end < lines.length, `${file}:${i + 1}: a code block that is never closed`);
    let prev = i - 1;
    while (prev >= 0 && lines[prev].trim() === '') prev--;
    const marker = prev >= 0 ? /^<!-- not run:(.*)-->$/.exec(lines[prev].trim()) : null;
    out.push({ file, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join('\n') + '\n', notRun: marker ? marker[1].trim() : undefined });
    i = end;
  }
  return out;
}

const BLOCKS = FILES.flatMap(blocksOf);
const where = (b) => `${b.file}:${b.line}`;

// ---- stand-ins --------------------------------------------------------------------------------

const SYSTEM = 'You are a coding agent.';
const TASK = 'Fix the login bug.';

/** A short agent history with one tool call, in each format. */
const HISTORIES = {
  openai: () => [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Why does login fail?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_logs', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'auth: session token expired' },
    { role: 'assistant', content: 'The session token expires too early.' },
    { role: 'user', content: 'Fix the session token expiry.' },
  ],
  anthropic: () => [
    { role: 'user', content: 'Why does login fail?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_logs', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'auth: session token expired' }] },
    { role: 'assistant', content: 'The session token expires too early.' },
    { role: 'user', content: 'Fix the session token expiry.' },
  ],
  'ai-sdk': () => [
    { role: 'user', content: 'Why does login fail?' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_logs', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_logs', output: { type: 'text', value: 'auth: session token expired' } }] },
    { role: 'assistant', content: 'The session token expires too early.' },
    { role: 'user', content: 'Fix the session token expiry.' },
  ],
  langchain: () => [
    new SystemMessage(SYSTEM),
    new HumanMessage('Why does login fail?'),
    new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'read_logs', args: {} }] }),
    new ToolMessage({ content: 'auth: session token expired', tool_call_id: 'call_1' }),
    new AIMessage('The session token expires too early.'),
    new HumanMessage('Fix the session token expiry.'),
  ],
};

/** OpenAI's client: checks every request, answers with a tool call for three turns, then text (chat completions and Responses); embeddings are a hashed bag of words. */
function fakeOpenAI(seen) {
  return {
    embeddings: {
      create: async ({ model, input }) => {
        assert.ok(typeof model === 'string' && Array.isArray(input) && input.length > 0 && input.every((t) => typeof t === 'string' && t !== ''), 'openai.embeddings got an invalid request');
        const vector = (t) => {
          const v = new Array(16).fill(0);
          for (const w of t.toLowerCase().split(/\W+/)) if (w !== '') v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)] += 1;
          return v;
        };
        // As the API answers: one datum per input, with its index (not necessarily in order).
        return { data: input.map((t, index) => ({ index, embedding: vector(t) })).reverse() };
      },
    },
    responses: {
      create: async ({ input }) => {
        assert.deepEqual(validateMessages(input, 'openai-responses'), [], 'openai.responses got an invalid request');
        seen.push(input.length);
        const k = seen.length;
        const output = k < 4 ? [{ type: 'function_call', id: `fc_${k}`, call_id: `c${k}`, name: 'read', arguments: '{}' }] : [{ type: 'message', id: `msg_${k}`, role: 'assistant', content: [{ type: 'output_text', text: 'done', annotations: [] }] }];
        return { output };
      },
    },
    chat: {
      completions: {
        create: async ({ messages }) => {
          assert.deepEqual(validateMessages(messages, 'openai'), [], 'openai got an invalid request');
          seen.push(messages.length);
          const k = seen.length;
          const message = k < 4
            ? { role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read', arguments: '{}' } }] }
            : { role: 'assistant', content: 'done' };
          return { choices: [{ message }] };
        },
      },
    },
  };
}

/** Anthropic's client: checks every request and counts its cache_control breakpoints. */
function fakeAnthropic(seen) {
  return {
    messages: {
      create: async ({ messages, system }) => {
        assert.equal(system, SYSTEM);
        assert.deepEqual(validateMessages(messages, 'anthropic'), [], 'anthropic got an invalid request');
        seen.push(messages.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.cache_control)).length);
        const k = seen.length;
        return { content: k < 4 ? [{ type: 'tool_use', id: `t${k}`, name: 'read', input: {} }] : [{ type: 'text', text: 'done' }] };
      },
    },
  };
}

/** A model: the AI SDK's mock language model, or a LangChain chat model's `invoke`; both check the request. */
function fakeModel(format, seen) {
  // A chat model of @langchain/core's, so that createAgent (ctxpack/langchain) takes it too.
  if (format === 'langchain') {
    return new (class extends BaseChatModel {
      _llmType() {
        return 'docs';
      }
      bindTools() {
        return this;
      }
      async _generate(messages) {
        assert.deepEqual(validateMessages(messages, 'langchain'), []);
        seen.push(messages.length);
        return { generations: [{ text: 'ok', message: new AIMessage('ok') }] };
      }
    })({});
  }
  // With tools (ctxpack/ai-sdk's agents), a tool call for three steps, then text; every prompt
  // (the SDK's provider-level prompt) must be valid: system messages stand where the SDK put them.
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      assert.deepEqual(validateMessages(options.prompt, { name: 'ai-sdk', allowSystemInMessages: true }), [], 'the model got an invalid prompt');
      seen.push(options.prompt.length);
      const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
      if ((options.tools?.length ?? 0) > 0 && seen.length < 4) {
        const call = { type: 'tool-call', toolCallId: `c${seen.length}`, toolName: 'read_logs', input: '{}' };
        return { content: [call], finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage, warnings: [] };
      }
      return { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

/**
 * The OpenAI Agents SDK's model for ctxpack/openai-agents' blocks: the SDK's own Responses model
 * over the `openai` client, whose fetch checks every request the SDK would send and answers with
 * a tool call for three turns, then text.
 */
function fakeAgentsModel(seen) {
  setTracingDisabled(true);
  const fetch = async (_url, init) => {
    const { input } = JSON.parse(init.body);
    assert.deepEqual(validateMessages(input, 'openai-responses'), [], 'the Agents SDK sent an invalid request');
    seen.push(input.length);
    const k = seen.length;
    const output = k < 4
      ? [{ type: 'function_call', id: `fc_${k}`, call_id: `c${k}`, name: 'read_logs', arguments: '{}', status: 'completed' }]
      : [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] }];
    const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
    return new Response(JSON.stringify({ id: `resp_${k}`, object: 'response', created_at: 0, model: 'gpt-5', status: 'completed', output, usage }), { headers: { 'content-type': 'application/json' } });
  };
  return new OpenAIResponsesModel(new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 }), 'gpt-5');
}

/** STAND-INS: the names blocks may use without defining them, made for one block. */
function standIns(format) {
  const seen = [];
  return {
    seen,
    globals: {
      history: (HISTORIES[format] ?? HISTORIES.openai)(),
      system: SYSTEM,
      task: TASK,
      // The AI SDK takes its tools as an object of tools; the other clients an array of definitions.
      tools: format === 'ai-sdk' || format === 'mastra' ? { read_logs: tool({ inputSchema: jsonSchema({ type: 'object', properties: {} }), execute: async () => 'log line '.repeat(800) }) }
        : format === 'openai-agents' ? [agentsTool({ name: 'read_logs', description: 'Reads the logs.', parameters: z.object({}), execute: async () => 'log line '.repeat(800) })]
        : [],
      runTool: async () => 'log line '.repeat(800),
      openai: fakeOpenAI(seen),
      anthropic: fakeAnthropic(seen),
      model: format === 'openai-agents' ? fakeAgentsModel(seen) : fakeModel(format, seen),
      fragments: [
        { id: 'sys', cost_tokens: 800, kind: 'system', pinned: true },
        { id: 'doc-auth', cost_tokens: 1800, entities: ['auth'] },
        { id: 'turn-1', cost_tokens: 120, entities: ['auth', 'session'] },
      ],
      gaze: { entities: ['auth', 'session'] },
    },
  };
}

// ---- running a block --------------------------------------------------------------------------

const scratch = mkdtempSync(join(tmpdir(), 'ctxpack-docs-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let serial = 0;

/** Brackets balance on this line, outside string literals. */
function balanced(text) {
  let depth = 0;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    if (depth < 0) return false;
  }
  return depth === 0 && quote === null;
}

const KEYWORD = /^(const|let|var|import|export|for|if|while|return|try|catch|function|class|await\s+(?:using)\b)\b/;

/**
 * The block as a module: bare imports resolved from here; each top-level one-line expression
 * statement (`plan.fragments;  // …`) records its value, so that a check can compare it with what
 * the comment says; the top-level bindings exported.
 */
async function moduleSource(block) {
  let code = block.code;
  if (block.lang === 'ts') code = (await transform(code, { loader: 'ts', format: 'esm' })).code;
  code = code.replace(/(\bfrom\s+|\bimport\s+|\bimport\()(['"])([^'"./][^'"]*)\2/g, (_, lead, q, spec) => `${lead}${q}${import.meta.resolve(spec)}${q}`);
  const lines = code.split('\n').map((line) => {
    const m = /^([A-Za-z_$[(].*?);(\s*\/\/.*)?$/.exec(line);
    if (!m || KEYWORD.test(m[1]) || !balanced(m[1]) || /^[\w$.]+\s*=[^=]/.test(m[1])) return line;
    return `globalThis.__docsRecord(${JSON.stringify(m[1])}, (${m[1]}));${m[2] ?? ''}`;
  });
  const names = new Set();
  for (const m of code.matchAll(/^(?:const|let|var)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]);
  for (const m of code.matchAll(/^(?:const|let|var)\s+\{([^}]*)\}\s*=/gm)) {
    for (const part of m[1].split(',')) {
      const name = part.split(':').at(-1).split('=')[0].trim();
      if (name) names.add(name);
    }
  }
  return `${lines.join('\n')}\n${names.size > 0 ? `export { ${[...names].join(', ')} };\n` : ''}`;
}

/** Runs a block (or `code` in its place) with fresh stand-ins; its exports, recorded values and what the fakes saw. */
async function runBlock(block, code = block.code) {
  // The AI SDK's blocks: a format named, the ai-sdk format with its options, or ctxpack/ai-sdk.
  const format = /format: '([\w-]+)'/.exec(code)?.[1] ?? (/'ctxpack\/ai-sdk'|name: 'ai-sdk'/.test(code) ? 'ai-sdk' : /'ctxpack\/openai-agents'/.test(code) ? 'openai-agents' : /'ctxpack\/langchain'/.test(code) ? 'langchain' : /'ctxpack\/mastra'/.test(code) ? 'mastra' : 'openai');
  const { seen, globals } = standIns(HISTORIES[format] || format === 'openai-agents' || format === 'mastra' ? format : 'openai');
  const values = [];
  const saved = new Map();
  const put = (name, value) => {
    saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  };
  for (const [name, value] of Object.entries(globals)) put(name, value);
  put('__docsRecord', (expr, value) => {
    values.push([expr, value]);
    return value;
  });
  const log = console.log;
  console.log = () => {};
  const file = join(scratch, `block-${++serial}.mjs`);
  writeFileSync(file, await moduleSource({ ...block, code }));
  try {
    const exports = await import(pathToFileURL(file).href);
    const value = (snippet) => {
      const hits = values.filter(([expr]) => expr.includes(snippet));
      assert.equal(hits.length >= 1, true, `no recorded expression contains ${snippet}`);
      return hits[0][1];
    };
    return { exports, value, values, seen, globals };
  } finally {
    console.log = log;
    for (const [name, desc] of saved) {
      if (desc) Object.defineProperty(globalThis, name, desc);
      else delete globalThis[name];
    }
  }
}

// ---- what the comments promise ----------------------------------------------------------------

const CHECKS = [
  {
    file: 'docs/messages.md',
    snippet: "openai.embeddings.create({ model: 'text-embedding-3-small', input: texts })",
    check: ({ value }) => assert.deepEqual(value('r.warnings'), []),
  },
  {
    file: 'docs/messages.md',
    snippet: 'relevance: { caller: 1 } });',
    check: ({ value }) => assert.equal(value('fused.decisions.length === yoursAlone'), true),
  },
  {
    file: 'docs/sessions.md',
    snippet: 'return texts.map((t) => [t.length % 7',
    check: ({ value }) => assert.equal(value('embedded.length - first'), 2),
  },
  {
    file: 'README.md',
    snippet: "content: 'auth: session token expired\\n'.repeat(300)",
    check: ({ exports, value, seen }) => {
      assert.deepEqual(value('decisions.map('), ['0: pinned', '1: scored', '2: scored', '3: scored (1804 → 731 tokens)', '4: scored', '5: pinned']);
      assert.deepEqual(exports.decisions[3].truncated, { from: 1804, to: 731 });
      assert.deepEqual(seen, [6]);
    },
  },
  ...['README.md', 'docs/sessions.md'].map((file) => ({
    file,
    snippet: "cache: 'openai',\n});\nconst history",
    check: ({ seen }) => assert.deepEqual(seen, [2, 4, 6, 8]),
  })),
  {
    file: 'docs/messages.md',
    snippet: "format: 'openai-responses',\n  system: 'You are a coding agent.'",
    check: ({ value, seen }) => {
      assert.deepEqual(value('r.decisions.map('), ['0: scored (unit 0)', '1: scored (unit 1)', '2: scored (unit 1)', '3: scored (unit 1) truncated', '4: scored (unit 4)', '5: pinned (unit 5)']);
      assert.deepEqual(seen, [6]);
    },
  },
  {
    file: 'docs/messages.md',
    snippet: "image_url: { url: 'https://example.com/page.png', detail: 'low' }",
    check: ({ value }) => {
      assert.equal(value('r.decisions[0].media_tokens'), 85);
      assert.deepEqual(value('r.warnings'), ["image_size_unknown: 1 image(s) counted at the model's maximum (given by URL or file id, or of a format whose size cannot be read)"]);
      assert.equal(value('mine.decisions[0].media_tokens'), 255);
    },
  },
  {
    file: 'docs/sessions.md',
    snippet: "format: 'openai-responses',\n  system: instructions",
    check: ({ seen }) => assert.deepEqual(seen, [1, 3, 5, 7]),
  },
  {
    file: 'docs/sessions.md',
    snippet: "cache: 'anthropic', // or",
    check: ({ seen }) => {
      assert.equal(seen.length, 4);
      assert.ok(seen.at(-1) > 0, 'the last requests carry cache_control breakpoints');
    },
  },
  {
    file: 'docs/sessions.md',
    snippet: 'fitMessagesAsync(history',
    check: ({ exports, globals }) => {
      assert.deepEqual(validateMessages(exports.messages, 'openai'), []);
      assert.equal(exports.metrics.fragments_counted, globals.history.length);
    },
  },
  {
    file: 'docs/sessions.md',
    snippet: 'first.exportState()',
    check: ({ value, globals }) => assert.equal(value('count_cache_hits'), globals.history.length),
  },
  {
    file: 'docs/sessions.md',
    snippet: 'summarizeReplay(turns)',
    check: ({ exports }) => {
      assert.ok(exports.turns.length > 0);
      assert.equal(typeof exports.summary, 'object');
    },
  },
  {
    file: 'docs/sessions.md',
    snippet: 'replaySessionAsync(history',
    check: ({ exports }) => {
      assert.ok(exports.replayed.length > 0 && exports.replayed.every((t) => t.summary !== undefined));
      assert.deepEqual(exports.later, exports.replayed);
    },
  },
  {
    file: 'docs/getting-started.md',
    snippet: "{ id: 'sys', cost_tokens: 800",
    check: ({ exports }) => {
      assert.deepEqual(exports.plan.fragments.map((f) => f.id), ['sys', 'turn-1']);
      assert.deepEqual(exports.plan.decisions.map((d) => d.reason), ['pinned', 'scored', 'budget_exceeded']);
    },
  },
  ...[['openai', 'budgets: { tokens_max: 128_000, output_reserve: 4_000 } });'], ['anthropic', 'system, budgets'], ['langchain', 'budgets']].map(([format, rest]) => ({
    file: 'docs/getting-started.md',
    snippet: `{ format: '${format}', ${rest}`,
    check: ({ exports, seen }) => {
      assert.equal(seen.length, 1, 'one request sent');
      assert.deepEqual(validateMessages(exports.messages, format), []);
    },
  })),
  {
    file: 'docs/openai-agents.md',
    snippet: 'callModelInputFilter: ctxpackInputFilter({ budgets',
    check: ({ exports, seen }) => {
      assert.equal(exports.result.finalOutput, 'done'); // three tool calls, then the answer
      assert.equal(seen.length, 4);
    },
  },
  {
    file: 'docs/ai-sdk.md',
    snippet: 'prepareStep: ctxpackPrepareStep({ budgets',
    check: ({ exports, seen }) => {
      assert.equal(exports.steps.length, 4); // three tool calls, then the answer
      assert.equal(seen.length, 4);
    },
  },
  {
    file: 'docs/ai-sdk.md',
    snippet: 'middleware: ctxpackLanguageModelMiddleware({ budgets',
    check: ({ exports, seen }) => {
      assert.equal(exports.text, 'ok');
      assert.equal(seen.length, 4);
    },
  },
  {
    file: 'docs/mastra.md',
    snippet: 'inputProcessors: [ctxpackInputProcessor({ budgets',
    check: ({ exports, seen }) => {
      assert.equal(exports.result.text, 'ok'); // three tool calls, then the answer
      assert.equal(seen.length, 4);
    },
  },
  ...['ctxpackAgentMiddleware({ budgets', 'tokenCounter: (messages)'].map((snippet) => ({
    file: 'docs/langchain.md',
    snippet,
    check: ({ exports, seen }) => {
      assert.deepEqual(seen, [2]); // the system prompt and the task: one model call, which answers
      assert.equal(exports.result.messages.at(-1).text, 'ok');
    },
  })),
  {
    file: 'docs/ai-sdk.md',
    snippet: "format: { name: 'ai-sdk', allowSystemInMessages: true }",
    check: ({ value, exports }) => {
      assert.equal(value('messages.at(-1).role'), 'system');
      assert.deepEqual(validateMessages(exports.messages, { name: 'ai-sdk', allowSystemInMessages: true }), []);
    },
  },
  {
    file: 'docs/getting-started.md',
    snippet: "format: 'ai-sdk'",
    check: ({ exports, seen }) => {
      assert.equal(exports.text, 'ok');
      assert.equal(seen.length, 1);
      assert.deepEqual(validateMessages(exports.messages, 'ai-sdk'), []);
    },
  },
  {
    file: 'docs/getting-started.md',
    snippet: "countTokens: forModel('gpt-4o') });",
    check: ({ exports, globals }) => assert.equal(exports.metrics.fragments_counted, globals.history.length),
  },
  {
    file: 'docs/getting-started.md',
    snippet: 'effectiveBudget({',
    check: ({ value }) => assert.equal(value('effectiveBudget('), 120344),
  },
  {
    file: 'docs/messages.md',
    snippet: 'stubToolResults: false,',
    check: ({ exports, globals }) => {
      assert.equal(exports.r.decisions.length, globals.history.length);
      assert.deepEqual(validateMessages(exports.r.messages, 'openai'), []);
    },
  },
  {
    file: 'docs/messages.md',
    snippet: "const violations = validateMessages(",
    check: ({ exports }) => assert.deepEqual(exports.violations.map(({ index, rule }) => ({ index, rule })), [{ index: 1, rule: 'missing_tool_result' }]),
  },
  {
    file: 'docs/messages.md',
    snippet: 'detectMessageFormat([{',
    check: ({ values }) => assert.deepEqual(values.map(([, v]) => v), ['anthropic', 'openai', 'anthropic']),
  },
  {
    file: 'docs/fragments.md',
    snippet: "{ id: 'call-7', cost_tokens: 40",
    check: ({ exports }) => {
      assert.deepEqual(exports.plan.decisions.map((d) => [d.id, d.reason, d.group_reason]), [
        ['call-7', 'group_excluded', 'budget_exceeded'],
        ['result-7', 'budget_exceeded', undefined],
        ['summary', 'dependency_excluded', undefined],
        ['turn-3', 'scored', undefined],
      ]);
    },
  },
  {
    file: 'docs/fragments.md',
    snippet: "id: 'search-3', cost_tokens: 4210",
    check: async ({ exports, block }) => {
      assert.deepEqual(
        exports.plan.decisions.map((d) => [d.id, d.variant_id, d.versions?.map((v) => v.status)]),
        [['search-3', 'summary', ['too_large', 'selected', 'other_version']], ['auth-guide', undefined, undefined], ['turn-9', undefined, undefined]],
      );
      assert.equal(exports.plan.metrics.tokens_selected, 2650);
      const at = async (tokens) => (await runBlock(block, block.code.replace('tokens_max: 2700', `tokens_max: ${tokens}`))).exports.plan;
      assert.equal((await at(10000)).decisions[0].variant, null);
      assert.equal((await at(2400)).decisions[0].variant_id, 'stub');
    },
  },
  {
    file: 'docs/fragments.md',
    snippet: "{ id: 'memory-42', cost_tokens: 35",
    check: ({ exports }) => {
      assert.equal(exports.plan.metrics.effective_budget, 120344);
      assert.equal(exports.plan.metrics.fragments_counted, 3);
    },
  },
  {
    file: 'docs/strategies.md',
    snippet: 'knapsackSlice(items, { targetTokens: 100 }, { bucketSize: 1 })',
    check: ({ value }) => {
      assert.deepEqual(value('knapsackSlice(items'), ['b', 'a']);
      assert.deepEqual(value('greedySlice(items'), ['c', 'a']);
    },
  },
  {
    file: 'docs/strategies.md',
    snippet: 'budgetCurve(items, 150',
    check: ({ exports, value }) => {
      const c = exports.curve;
      assert.equal(c.length, 151);
      assert.deepEqual([c[9], c[10], c[69], c[70], c[89], c[90], c[149], c[150]], [0, 2000, 2000, 7000, 7000, 10000, 10000, 15000]);
      const { first, stableFrom } = value('minBudgetFor(');
      assert.deepEqual({ first, stableFrom }, { first: 70, stableFrom: 150 });
    },
  },
  {
    file: 'docs/strategies.md',
    snippet: "STRATEGIES.find((s) => s.name === 'ranked')",
    check: ({ value }) => {
      assert.deepEqual(value("STRATEGIES.find("), { name: 'ranked', engine: 'packer', options: [], skipLimit: 0, monotonic: true, exact: false, ownBucket: false });
      assert.deepEqual(value('STRATEGIES.filter('), ['count-knapsack', 'exact-count']);
      assert.equal(value('OPTION_DEFAULTS.bucketSize'), 100);
    },
  },
  {
    file: 'docs/errors.md',
    snippet: "cost_tokens: -5",
    check: ({ value }) => {
      assert.equal(value('instanceof CtxpackError'), true);
      assert.deepEqual(value('[error.code'), ['INVALID_FIELD', 'cost_tokens', 0]);
    },
  },
  {
    file: 'docs/runtimes.md',
    snippet: 'await init();',
    check: ({ exports }) => assert.deepEqual(exports.plan.fragments.map((f) => f.id), ['sys', 'turn-1', 'doc-auth']),
  },
  {
    file: 'docs/runtimes.md',
    snippet: 'async fetch(request)',
    check: async ({ exports, globals }) => {
      const body = JSON.stringify({ fragments: globals.fragments, gaze: globals.gaze, budgets: { tokens_max: 2000 } });
      const response = await exports.default.fetch(new Request('http://worker.test/', { method: 'POST', body }));
      assert.deepEqual((await response.json()).fragments.map((f) => f.id), ['sys', 'turn-1']);
    },
  },
];

// ---- the tests --------------------------------------------------------------------------------

test('the documentation has code blocks, and every check finds its block', () => {
  assert.ok(BLOCKS.filter((b) => RUN.has(b.lang)).length >= 20);
  for (const c of CHECKS) {
    const hits = BLOCKS.filter((b) => b.file === c.file && b.code.includes(c.snippet));
    assert.equal(hits.length, 1, `${c.file}: ${hits.length} blocks contain ${JSON.stringify(c.snippet)} (want 1)`);
  }
});

test('every block that is not run says why, and every block has a language', () => {
  for (const b of BLOCKS) {
    assert.notEqual(b.lang, '', `${where(b)}: a block without a language (rustdoc would compile it as Rust)`);
    if (RUN.has(b.lang) || b.lang === 'bash' || b.lang === 'rust') continue;
    assert.ok(b.notRun, `${where(b)}: a \`\`\`${b.lang} block is neither run nor marked <!-- not run: reason -->`);
  }
  for (const b of BLOCKS.filter((x) => x.notRun !== undefined)) assert.ok(b.notRun.length > 0, `${where(b)}: <!-- not run --> without a reason`);
});

for (const b of BLOCKS.filter((x) => RUN.has(x.lang) && x.notRun === undefined)) {
  test(`${where(b)} runs`, async () => {
    const result = await runBlock(b);
    for (const c of CHECKS.filter((x) => x.file === b.file && b.code.includes(x.snippet))) await c.check({ ...result, block: b });
  });
}

const MAKEFILE = readFileSync(join(ROOT, 'Makefile'), 'utf8');
const TARGETS = new Set([...MAKEFILE.matchAll(/^([\w-]+):/gm)].map((m) => m[1]));
const SUBCOMMANDS = new Set([...readFileSync(join(ROOT, 'pkg/bin/ctxpack.js'), 'utf8').matchAll(/ctxpack (\w+) </g)].map((m) => m[1]));
const PKG = JSON.parse(readFileSync(join(ROOT, 'pkg/package.json'), 'utf8'));
const INSTALLABLE = new Set([PKG.name, ...Object.keys(PKG.peerDependencies ?? {}), ...Object.keys(PKG.devDependencies ?? {})]);

for (const b of BLOCKS.filter((x) => x.lang === 'bash' && x.notRun === undefined)) {
  test(`${where(b)}: its commands exist`, () => {
    for (const raw of b.code.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line === '') continue;
      const words = line.split(/\s+/);
      if (words[0] === 'make') {
        for (const t of words.slice(1)) assert.ok(TARGETS.has(t), `${where(b)}: make ${t} is not a Makefile target`);
      } else if (words[0] === 'npm' && words[1] === 'install') {
        for (const p of words.slice(2)) assert.ok(INSTALLABLE.has(p), `${where(b)}: npm install ${p}: not ctxpack or one of its dependencies`);
      } else if (words[0] === 'npx' && words[1] === 'ctxpack') {
        assert.ok(SUBCOMMANDS.has(words[2]), `${where(b)}: ctxpack ${words[2]} is not a subcommand`);
        if (existsSync(join(ROOT, words[3]))) {
          const r = spawnSync(process.execPath, [join(ROOT, 'pkg/bin/ctxpack.js'), ...words.slice(2)], { cwd: ROOT, encoding: 'utf8' });
          assert.equal(r.status, 0, `${where(b)}: ${line} exited ${r.status}: ${r.stderr}`);
        }
      } else {
        assert.fail(`${where(b)}: ${line}: a command this test does not know; check it here or mark the block <!-- not run: reason -->`);
      }
    }
  });
}

test('Rust blocks: the README\'s are doctests, docs/rust.md\'s are in tests/docs_rust.rs', () => {
  assert.match(readFileSync(join(ROOT, 'src/lib.rs'), 'utf8'), /#\[doc = include_str!\("\.\.\/README\.md"\)\]/);
  const copies = readFileSync(join(ROOT, 'tests/docs_rust.rs'), 'utf8').replace(/\s+/g, '');
  for (const b of BLOCKS.filter((x) => x.lang === 'rust' && x.notRun === undefined)) {
    if (b.file === 'README.md') continue;
    assert.equal(b.file, 'docs/rust.md', `${where(b)}: a Rust block outside README.md and docs/rust.md is not compiled by anything`);
    const shown = b.code.split('\n').filter((l) => !l.startsWith('# ')).join('').replace(/\s+/g, '');
    assert.ok(copies.includes(shown), `${where(b)}: not in tests/docs_rust.rs as written`);
  }
});

test('docs/errors.md names every error code', () => {
  const page = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  for (const code of ERROR_CODES) assert.match(page, new RegExp(`^\\| \`${code}\` \\|`, 'm'), `${code} is not in the table of docs/errors.md`);
});

test("the README's table names only functions the package exports, each from the entry the row names", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const table = /## Which function when\n([^]*?)\n\n/.exec(readme)[1];
  const entries = { ctxpack, 'ctxpack/slicers': ctxpackSlicers, 'ctxpack/acs': ctxpackAcs, 'ctxpack/ai-sdk': ctxpackAiSdk, 'ctxpack/openai-agents': ctxpackAgents, 'ctxpack/langchain': ctxpackLangchain, 'ctxpack/mastra': ctxpackMastra };
  for (const row of table.split('\n').slice(2)) {
    const from = /from `(ctxpack\/[\w-]+)`/.exec(row)?.[1] ?? 'ctxpack';
    for (const [, name] of row.split('|')[2].matchAll(/`([a-z]\w+)\(?/g)) {
      // Not the package's: its own words, the AI SDK's (prepareStep, wrapLanguageModel), the Agents SDK's (callModelInputFilter), Mastra's (inputProcessors).
      if (['npx', 'ctxpack', 'session', 'fitAsync', 'openai', 'anthropic', 'langchain', 'prepareStep', 'wrapLanguageModel', 'callModelInputFilter', 'inputProcessors'].includes(name) || name.startsWith('ai')) continue;
      assert.equal(typeof entries[from][name], 'function', `README: ${name} is not a function ${from} exports`);
    }
  }
});

test('README.md shows make demo and make test, and stays short', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.match(readme, /^make demo\b/m);
  assert.match(readme, /^make test\b/m);
  assert.ok(readme.split('\n').length <= 260, `README.md has ${readme.split('\n').length} lines`);
});

test('every relative link of the documentation resolves to a file', () => {
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      assert.ok(existsSync(join(ROOT, file, '..', target)), `${file}: the link ${target} leads nowhere`);
    }
  }
});
