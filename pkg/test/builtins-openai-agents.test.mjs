// docs/openai-agents.md, "Beside the Agents SDK's own": the same 64-step tool agent through run()
// (@openai/agents 0.20, its OpenAIResponsesModel over the openai client, whose fetch answers
// locally) with nothing, with the SDK's OpenAIResponsesCompactionSession, and with ctxpack's
// callModelInputFilter; each Responses API request measured by builtins.mjs, the page's table
// checked against the run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, OpenAIResponsesCompactionSession, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { ctxpackInputFilter } from 'ctxpack/openai-agents';
import { ANSWER, BUDGET, checkTable, countText, fileText, filePath, measure, STEPS, SYSTEM, TASK, TOOL } from './builtins.mjs';

setTracingDisabled(true);

const readFile = tool({ ...TOOL, parameters: z.object({ path: z.string() }), execute: async ({ path }) => fileText(path) });
const usage = { input_tokens: 10, output_tokens: 10, total_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
const json = (body) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

/**
 * The Responses API, locally: read_file at each of the first STEPS - 1 requests, then the answer;
 * `responses.compact` (the compaction session's) answers as OpenAI documents it: the input's user
 * messages (none when the request names a previous_response_id) and one opaque compaction item.
 * Records both.
 */
function scriptedClient() {
  const bodies = [];
  const compactions = [];
  const fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    if (String(url).endsWith('/responses/compact')) {
      compactions.push(body);
      const output = [...(body.input ?? []).filter((i) => i.role === 'user'), { type: 'compaction', id: `cmp_${compactions.length}`, encrypted_content: 'gAAAA' }];
      return json({ id: `cmp_${compactions.length}`, object: 'response.compaction', created_at: 0, output, usage });
    }
    bodies.push(body);
    const k = bodies.length;
    const output = k < STEPS
      ? [{ type: 'function_call', id: `fc_${k}`, call_id: `call_${k}`, name: TOOL.name, arguments: JSON.stringify({ path: filePath(k) }), status: 'completed' }]
      : [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ANSWER, annotations: [] }] }];
    return json({ id: `resp_${k}`, object: 'response', created_at: 0, model: 'gpt-5', status: 'completed', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage });
  };
  return { bodies, compactions, client: new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 }) };
}

/** `[label, the options of run() it adds]` per row. */
const ROWS = [
  ['nothing (the whole history every call)', () => ({})],
  ["`session: new OpenAIResponsesCompactionSession({ client, model: 'gpt-5' })`", (client) => ({ session: new OpenAIResponsesCompactionSession({ client, model: 'gpt-5' }) })],
  ["`callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 22_000 }, countTokens: forEncoding('o200k_base') })`", () => ({ callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: BUDGET }, countTokens: countText }) })],
];

test("the Agents SDK's compaction session beside ctxpack's callModelInputFilter on one 64-step agent: docs/openai-agents.md's table", async () => {
  const measured = [];
  for (const [label, glue] of ROWS) {
    const { bodies, compactions, client } = scriptedClient();
    const agent = new Agent({ name: 'coder', instructions: SYSTEM, model: new OpenAIResponsesModel(client, 'gpt-5'), tools: [readFile] });
    const result = await run(agent, TASK, { maxTurns: 100, ...glue(client) });
    assert.equal(result.finalOutput, ANSWER, label);
    assert.equal(bodies.length, STEPS, label);
    for (const b of bodies) assert.equal(b.instructions, SYSTEM);
    measured.push([label, measure(bodies.map((b) => b.input), { format: 'openai-responses', system: SYSTEM, extraCalls: compactions.length })]);
  }
  const ours = measured.at(-1)[1];
  assert.deepEqual([ours.valid, ours.taskKept, ours.withinBudget], [STEPS, STEPS, STEPS]);
  checkTable('docs/openai-agents.md', "Beside the Agents SDK's own", measured);
});
