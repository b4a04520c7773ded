// The deterministic stand-in for a model's summary that the tests and the evaluation use: the
// package's own extractiveSummarizer (pkg/src/session/extractive.ts holds the rule), called with
// the messages and a length, so that a comparison needs no model.
import { extractiveSummarizer } from 'ctxpack';

/** The extractive summary of `messages`, at most about `maxTokens` tokens (default 500). */
export function standInSummary(messages, maxTokens) {
  return extractiveSummarizer({ maxTokens })({ messages });
}
