// The agent every framework adapter's test runs (ai-sdk, langchain, openai-agents, mastra
// .test.mjs): a coding agent that reads a file of about 450 tokens at each of 64 steps against a
// budget of 22,000 tokens, and the prefix share its requests are measured by.
import { isDeepStrictEqual } from 'node:util';
import { estimateTokens } from 'ctxpack';

export const STEPS = 64;
export const BUDGET = 22_000;
export const INSTRUCTIONS = 'You are a coding agent. Read the files you need, one at a time, then fix the bug.';
export const TASK = 'Fix the login bug: sessions expire after one minute.';
/** The agent's one tool, as each framework defines it: its name, its description, and what it returns for a path (about 450 tokens). */
export const READ_FILE = {
  name: 'read_file',
  description: 'Reads a file of the repository.',
  read: (path) => `// ${path}\n${'export const line = "session token expiry";\n'.repeat(40)}`,
};

/** A message's tokens, as the prefix share counts them: its JSON, estimated. */
export const tokens = (m) => estimateTokens(JSON.stringify(m));

/**
 * The share of the requests' tokens that repeats the previous request's leading messages (what a
 * prompt cache can read). `view` is what is compared and counted of each message (default: the
 * message itself).
 */
export function prefixShare(requests, view = (m) => m) {
  let reused = 0;
  let total = 0;
  let previous = [];
  for (const request of requests) {
    const p = request.map(view);
    total += p.reduce((s, m) => s + tokens(m), 0);
    for (let i = 0; i < Math.min(p.length, previous.length) && isDeepStrictEqual(p[i], previous[i]); i++) reused += tokens(p[i]);
    previous = p;
  }
  return reused / total;
}
