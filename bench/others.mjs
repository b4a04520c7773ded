// The other libraries' ways of fitting a history that the bench prints beside ctxpack's, loaded
// from pkg/'s dev dependencies (the real packages): LangChain's `trimMessages` and the AI SDK's
// `pruneMessages`. For bench/sessions.mjs and bench/scale.mjs.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'pkg/package.json'));

export const { trimMessages } = await import(pathToFileURL(require.resolve('@langchain/core/messages')).href);
export const { pruneMessages } = await import(pathToFileURL(require.resolve('ai')).href);

/** A LangChain message's text as a counter reads it: its content (or its parts as JSON) and its tool calls as JSON. */
const text = (m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) + JSON.stringify(m.tool_calls ?? []);

/**
 * A `tokenCounter` for `trimMessages` that counts each message once (`count(text) + frame`) and
 * remembers it within the call: trimMessages counts every shrinking prefix of the history (about N
 * calls over up to N messages), which with a plain counter is N × the history's tokens per call.
 * Make a new one per call, as a careful caller would.
 */
export function trimCounter(count, frame = 0) {
  const memo = new WeakMap();
  const one = (m) => memo.get(m) ?? memo.set(m, count(text(m)) + frame).get(m);
  return (msgs) => msgs.reduce((a, m) => a + one(m), 0);
}
