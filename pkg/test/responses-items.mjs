// One Responses API input list holding every item type of openai 7.57's ResponseInputItem, each
// with the fields the SDK requires (messages-types.test.mjs has tsc check it as
// ResponseInputItem[]). Shared by messages-responses.test.mjs.

/** A 1×1 PNG, as a data URL. */
export const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** `[item, what the test expects of it]`: its role as read, the call or output it is, and text it must count. */
export function everyItem() {
  return [
    { role: 'developer', content: 'You are a coding agent.' },
    { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Answer in English.' }] },
    { role: 'user', content: 'Why does login fail after the deploy?' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Here is the screen:' }, { type: 'input_image', detail: 'low', image_url: PNG }, { type: 'input_file', filename: 'report.pdf', file_id: 'file_1' }] },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Check the logs first.' }], encrypted_content: 'gAAAAB-encrypted-reasoning' },
    { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Reading the logs.', annotations: [] }, { type: 'refusal', refusal: 'I will not print secrets.' }] },
    { role: 'assistant', content: 'Easy-input assistant text.' },
    { type: 'function_call', id: 'fc_1', call_id: 'call_fn', name: 'read_logs', arguments: '{"env":"prod"}' },
    { type: 'function_call', id: 'fc_2', call_id: 'call_fn2', name: 'read_file', arguments: '{"path":"auth.ts"}' },
    { type: 'function_call_output', call_id: 'call_fn', output: 'auth: session token expired' },
    { type: 'function_call_output', call_id: 'call_fn2', output: [{ type: 'input_text', text: 'export const ttl = 60;' }, { type: 'input_image', detail: 'low', image_url: 'https://example.com/diagram.png' }] },
    { type: 'custom_tool_call', call_id: 'call_custom', name: 'apply_sql', input: 'SELECT 1' },
    { type: 'custom_tool_call_output', call_id: 'call_custom', output: 'one row' },
    { type: 'computer_call', id: 'cu_1', call_id: 'call_cu', status: 'completed', pending_safety_checks: [], action: { type: 'click', button: 'left', x: 10, y: 20 } },
    { type: 'computer_call_output', call_id: 'call_cu', output: { type: 'computer_screenshot', image_url: PNG } },
    { type: 'local_shell_call', id: 'ls_1', call_id: 'call_ls', status: 'completed', action: { type: 'exec', command: ['ls', '-la'], env: {} } },
    { type: 'local_shell_call_output', id: 'call_ls', output: '{"stdout":"README.md"}' },
    { type: 'shell_call', call_id: 'call_sh', action: { commands: ['npm test'] } },
    { type: 'shell_call_output', call_id: 'call_sh', output: [{ stdout: '3 passing', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
    { type: 'apply_patch_call', call_id: 'call_patch', status: 'completed', operation: { type: 'update_file', path: 'auth.ts', diff: '-ttl = 60\n+ttl = 3600' } },
    { type: 'apply_patch_call_output', call_id: 'call_patch', status: 'completed', output: 'patched' },
    { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['session ttl'], results: [{ file_id: 'file_2', filename: 'notes.md', text: 'ttl was 60 seconds' }] },
    { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'session token expiry best practice' } },
    { type: 'code_interpreter_call', id: 'ci_1', status: 'completed', container_id: 'cntr_1', code: 'print(60 * 60)', outputs: [{ type: 'logs', logs: '3600' }] },
    { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: PNG.slice('data:image/png;base64,'.length) },
    { type: 'mcp_list_tools', id: 'ml_1', server_label: 'deploys', tools: [{ name: 'rollback', input_schema: { type: 'object' }, description: 'Roll a deploy back' }] },
    { type: 'mcp_call', id: 'mc_1', server_label: 'deploys', name: 'status', arguments: '{}', output: 'deploy 42 live' },
    { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'deploys', name: 'rollback', arguments: '{"deploy":42}' },
    { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false, reason: 'not yet' },
    { type: 'tool_search_call', call_id: 'call_ts', execution: 'client', arguments: { query: 'deploy tools' } },
    { type: 'tool_search_output', call_id: 'call_ts', execution: 'client', tools: [{ type: 'function', name: 'deploy', parameters: { type: 'object' }, strict: true }] },
    { type: 'additional_tools', role: 'developer', tools: [{ type: 'function', name: 'restart', parameters: { type: 'object' }, strict: true }] },
    { type: 'configuration_update', reasoning: { effort: 'high' } },
    { type: 'program', id: 'pg_1', call_id: 'call_prog', code: 'await read_logs()', fingerprint: 'fp' },
    { type: 'function_call', call_id: 'call_by_prog', name: 'read_logs', arguments: '{}', caller: { type: 'program', caller_id: 'call_prog' } },
    { type: 'function_call_output', call_id: 'call_by_prog', output: 'logs', caller: { type: 'program', caller_id: 'call_prog' } },
    { type: 'program_output', id: 'po_1', call_id: 'call_prog', result: 'done', status: 'completed' },
    { type: 'item_reference', id: 'msg_stored_1' },
    { id: 'msg_stored_2' },
    { type: 'compaction', encrypted_content: 'gAAAAB-encrypted-compaction' },
    { type: 'compaction_trigger' },
    { role: 'user', content: 'Now fix the session token expiry.' },
  ];
}
