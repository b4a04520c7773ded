// Writes the long chat sample, deterministically:
//   agent-loop.openai.json   a generated tool-heavy agent loop in OpenAI format (16 rounds, 82
//                            requests), long enough that a session cuts it several times
// The history comes from the generator the session tests and bench/sessions.mjs use.
// Run: node www/samples/make-chat-samples.mjs
import { writeFileSync } from 'node:fs';
import { agentSession } from '../../pkg/test/agent-sessions.mjs';

const SEED = 3;
const ROUNDS = 16;
const { messages } = agentSession(SEED, 'openai', ROUNDS);
const doc = {
  description: `A generated agent loop (seed ${SEED}, ${ROUNDS} rounds of a request, tool calls and a reply; its words are made up).`,
  budgets: { tokens_max: 12_000 },
  messages,
};
// One message per line: readable diffs, a third of the size of indented JSON.
const body = `{\n"description": ${JSON.stringify(doc.description)},\n"budgets": ${JSON.stringify(doc.budgets)},\n"messages": [\n${messages.map((m) => JSON.stringify(m)).join(',\n')}\n]\n}\n`;
writeFileSync(new URL('agent-loop.openai.json', import.meta.url), body);
