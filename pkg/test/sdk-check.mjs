// The SDKs' own checks of a request, for the property tests: the AI SDK's modelMessageSchema, and
// LangChain's pairing (AIMessage.tool_calls ids ↔ ToolMessage.tool_call_id). Apart from
// messages-histories.mjs, which the browser and worker tests bundle.
import assert from 'node:assert/strict';
import { modelMessageSchema } from 'ai';
import { BaseMessage } from '@langchain/core/messages';

/** The AI SDK's own schema, and LangChain's pairing (AIMessage.tool_calls ids ↔ ToolMessage.tool_call_id). */
export function sdkCheck(format, messages) {
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
