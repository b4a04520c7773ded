/**
 * `ctxpack/openai-agents`: a session in the OpenAI Agents SDK (`@openai/agents`) in one line, as
 * the run's `callModelInputFilter`. The SDK's items (`AgentInputItem`) are its own protocol, not
 * the Responses API's wire items (`callId` for `call_id`, `function_call_result` for
 * `function_call_output`, …): each item is read through a view in the wire shape, the views are
 * fitted by `createSession` (format `'openai-responses'`), and the SDK gets back its own items.
 * So selection, validity (a call never without its output) and the cut are the session's; this
 * file only translates, finds the conversation, and stands in for the calls a server holds. The
 * SDK is never imported at run time: its types only (docs/openai-agents.md).
 *
 * @module
 */

import type { AgentInputItem, CallModelInputFilter, CallModelInputFilterArgs, ModelInputData } from '@openai/agents';
import { CtxpackError, readingInput, reindexed } from '../errors.js';
import { adapterOf } from '../messages/formats.js';
import { callOf, RESPONSES_ITEM_TYPES } from '../messages/responses.js';
import { jsonText, readTurn } from '../messages/turns.js';
import { createSession, type Session } from '../session/session.js';
import type { CachePricing, SessionFitResult, SessionOptions, SessionTurnOptions } from '../session/types.js';
import { textKey } from '../tokens/cache.js';
import type { Budgets } from '../types.js';
import { isRecord } from '../validate/fields.js';
import { invalidOption } from '../validate/options.js';
import { type AdapterOptions, type AdapterSpec, Conversations, fitReported, readAdapterOptions } from './sessions.js';

const FORMAT = 'openai-responses';
/** The cache by default: OpenAI's automatic caching of a stable prefix. */
const CACHE = 'openai';

/** Options of `ctxpackInputFilter`: a session's, less what the SDK's call gives. */
export interface OpenAIAgentsOptions extends Omit<SessionOptions, 'format' | 'system' | 'tools' | 'state' | 'cache' | 'budgets' | 'keep'> {
  /** The budgets of every model call: `tokens_max` the model's window or your cap (docs/getting-started.md, "Budgets"). */
  budgets: Budgets;
  /** The prompt cache the plans are made for. Default `'openai'` (automatic caching of a stable prefix). */
  cache?: CachePricing;
  /** Also always keep the last N items, or the items (the SDK's own) for which the predicate is true. */
  keep?: number | ((item: AgentInputItem, index: number) => boolean);
  /** Called with each call's fit (decisions, metrics, cache figures; its messages are views in the Responses API's shape) before the model is called. */
  onFit?: (result: SessionFitResult<unknown>) => void;
  /** Conversations whose sessions are kept at once (least recently used go first). Default 64. */
  maxSessions?: number;
}

/** The options, read once when the filter is made: the SDK's call gives the format, instructions and tools; `keep` is the filter's (over the SDK's items). */
type Keep = { keep: OpenAIAgentsOptions['keep'] };
type Read = AdapterOptions & Keep;
const OPTIONS: AdapterSpec<Keep> = {
  entry: 'ctxpack/openai-agents', from: "the SDK's call", given: ['format', 'system', 'tools'], own: ['keep'],
  read: (o) => {
    const keep = o['keep'];
    if (keep !== undefined && typeof keep !== 'function' && typeof keep !== 'number') throw invalidOption('keep', 'a number or a function', keep);
    return { keep: keep as Keep['keep'] };
  },
  check: (r) => ({ keep: r.keep, format: FORMAT, cache: r.cache ?? CACHE }),
};

// ---- The SDK's items as Responses API items (what ctxpack reads; never sent) ----

type Rec = Readonly<Record<string, unknown>>;

/** The wire type of each SDK item type that differs from it. */
const WIRE_TYPE: Readonly<Record<string, string>> = {
  function_call_result: 'function_call_output',
  computer_call_result: 'computer_call_output',
};

/** An SDK media part (`image` / `file` fields) as the wire's (`image_url`, `file_id`, `file_data`, `file_url`), so that it is counted as media. */
function mediaPart(part: unknown): unknown {
  if (!isRecord(part)) return part;
  const type = part['type'];
  if (type === 'input_image' || type === 'image') {
    const image = part['image'];
    const detail = part['detail'];
    const src = typeof image === 'string' ? { image_url: image }
      : isRecord(image) && typeof image['url'] === 'string' ? { image_url: image['url'] }
      : isRecord(image) && typeof image['data'] === 'string' ? { image_url: image['data'].startsWith('data:') ? image['data'] : `data:${String(image['mediaType'] ?? 'image/png')};base64,${image['data']}` }
      : isRecord(image) && (typeof image['id'] === 'string' || typeof image['fileId'] === 'string') ? { file_id: image['id'] ?? image['fileId'] }
      : { image_url: part['image_url'], file_id: part['file_id'] };
    return { type: 'input_image', ...src, ...(detail !== undefined ? { detail } : {}) };
  }
  if (type === 'input_file' || type === 'file') {
    const file = part['file'];
    const src = typeof file === 'string' ? (file.startsWith('data:') ? { file_data: file } : { file_url: file })
      : isRecord(file) && typeof file['id'] === 'string' ? { file_id: file['id'] }
      : isRecord(file) && typeof file['url'] === 'string' ? { file_url: file['url'] }
      : isRecord(file) && typeof file['data'] === 'string' ? { file_data: file['data'].startsWith('data:') ? file['data'] : `data:${String(file['mediaType'] ?? 'application/octet-stream')};base64,${file['data']}` }
      : { file_data: part['file_data'], file_url: part['file_url'], file_id: part['file_id'] };
    const filename = isRecord(file) && typeof file['filename'] === 'string' ? file['filename'] : part['filename'];
    return { type: 'input_file', ...src, ...(filename !== undefined ? { filename } : {}) };
  }
  if (type === 'computer_screenshot' && typeof part['data'] === 'string') {
    const data = part['data'];
    return { type, image_url: data.startsWith('data:') || /^https?:/.test(data) ? data : `data:image/png;base64,${data}` };
  }
  return part;
}

/** Each media part of a view (wire-shaped) to the SDK's part it was read from: a fitted item's parts go back to the SDK as the SDK's own. */
const SDK_PART = new WeakMap<object, unknown>();

function viewPart(part: unknown): unknown {
  const view = mediaPart(part);
  if (view !== part && isRecord(view)) SDK_PART.set(view, part);
  return view;
}

const media = (value: unknown): unknown => (Array.isArray(value) ? value.map(viewPart) : isRecord(value) ? viewPart(value) : value);

/**
 * A fitted view's parts (a message's content, a tool output) in the SDK's shape: each part the
 * format kept is the SDK's own again (an image's, a file's source), each it wrote (the truncated
 * text, a media stub's note) is an `input_text` part, which the SDK takes in both. A single part
 * the format wrote is its text (the SDK reads a lone output object only as text, image or file).
 */
function sdkParts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((p: unknown) => (isRecord(p) ? SDK_PART.get(p) ?? p : p));
  if (!isRecord(value)) return value;
  const own = SDK_PART.get(value);
  if (own !== undefined) return own;
  return value['type'] === 'input_text' && typeof value['text'] === 'string' ? value['text'] : value;
}

/** The wire type of each `hosted_tool_call` the SDK sends from its `providerData` (its converter's names, older ones too). */
const HOSTED_TYPE: Readonly<Record<string, string>> = {
  web_search_call: 'web_search_call',
  web_search: 'web_search_call',
  file_search_call: 'file_search_call',
  file_search: 'file_search_call',
  code_interpreter_call: 'code_interpreter_call',
  code_interpreter: 'code_interpreter_call',
  image_generation_call: 'image_generation_call',
  image_generation: 'image_generation_call',
  mcp_list_tools: 'mcp_list_tools',
  mcp_approval_request: 'mcp_approval_request',
  mcp_approval_response: 'mcp_approval_response',
  mcp_call: 'mcp_call',
};

const snakeKey = (key: string): string => key.replace(/([A-Z])/g, '_$1').toLowerCase();

/** `value` with its objects' keys in snake case, nested objects too, arrays as they are (the SDK's converter's `camelOrSnakeToSnakeCase`). */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice();
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) out[snakeKey(key)] = snakeKeys(entry);
  return out;
}

/**
 * An `unknown` item (a provider item the SDK has no type for: a custom tool call, a local shell
 * call, an item type newer than the SDK) as the SDK's Responses converter sends it: its
 * `providerData`, keys in snake case, with the item's id. Of a type the format knows, it is read
 * by the format's rules (a call then needs its output); of one it does not, it is a unit of its
 * own, from the model (after a reasoning item, in its unit), its JSON counted as text.
 */
function unknownView(m: Rec): Rec {
  const wire = { ...(isRecord(m['providerData']) ? (snakeKeys(m['providerData']) as Rec) : {}) };
  // The converter writes `id: item.id` over providerData's: without one, none is sent.
  if (m['id'] === undefined) delete wire['id'];
  else wire['id'] = m['id'];
  const type = wire['type'];
  if (typeof type === 'string' && RESPONSES_ITEM_TYPES.has(type)) return wire;
  return { type: 'mcp_call', ...(typeof m['id'] === 'string' ? { id: m['id'] } : {}), output: jsonText(wire) };
}

/**
 * A `hosted_tool_call` as the wire item the SDK sends for it: its `providerData` (the item the
 * API returned, keys in snake case as the SDK writes them), typed by `providerData.type` or, for
 * MCP items, the item's `name`, with the item's id where `providerData` has none. What the SDK
 * keeps apart in `output` is read too: an image generation's base64 image as its `result` (an
 * image, never text), an MCP call's output as its `output` (text); the program that made the call
 * as its `caller`. Not a hosted item the SDK knows: `undefined`.
 */
function hostedView(m: Rec, caller: Rec): Rec | undefined {
  const pd = isRecord(m['providerData']) ? m['providerData'] : {};
  const known = (name: unknown): string | undefined => (typeof name === 'string' && Object.hasOwn(HOSTED_TYPE, name) ? HOSTED_TYPE[name] : undefined);
  // The SDK's converter falls back on the item's name for MCP items only.
  const type = known(pd['type']) ?? (String(m['name']).startsWith('mcp_') ? known(m['name']) : undefined);
  if (type === undefined) return undefined;
  const wire: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pd)) wire[snakeKey(key)] = value;
  wire['type'] = type;
  if (wire['id'] === undefined && typeof m['id'] === 'string') wire['id'] = m['id'];
  const output = m['output'];
  if (type === 'image_generation_call' && typeof output === 'string' && output.length > 0) wire['result'] = output;
  if (type === 'mcp_call' && output !== undefined && output !== null && wire['output'] === undefined) wire['output'] = output;
  return { ...wire, ...caller };
}

/**
 * The Responses API item ctxpack reads for one SDK item: the same pairing (`callId` as
 * `call_id`), text and media, in the wire's names. Items of types the SDK does not define are
 * passed as they are: the format then refuses what it does not know (`INVALID_MESSAGE` naming
 * the index), as the SDK's own conversion would.
 */
export function responsesView(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const m = item as Rec;
  const type = m['type'];
  if (type === undefined || type === 'message') return 'content' in m ? { ...m, content: media(m['content']) } : m;
  if (typeof type !== 'string') return m;
  const id = typeof m['id'] === 'string' ? { id: m['id'] } : {};
  const callId = m['call_id'] ?? m['callId'];
  const caller = isRecord(m['caller']) && m['caller']['type'] === 'program' ? { caller: { type: 'program', caller_id: m['caller']['callerId'] ?? m['caller']['caller_id'] } } : {};
  switch (type) {
    case 'reasoning': {
      const pd = isRecord(m['providerData']) ? m['providerData'] : {};
      const encrypted = m['encrypted_content'] ?? pd['encrypted_content'] ?? pd['encryptedContent'];
      return { type, ...id, summary: m['content'], content: m['rawContent'], ...(typeof encrypted === 'string' ? { encrypted_content: encrypted } : {}) };
    }
    // A hosted tool's item as the wire item it is sent as, read by the format's own rules (an MCP
    // approval's response pairs with its request); one the SDK does not know, a unit of its own
    // whose name, arguments and output are read as text.
    case 'hosted_tool_call':
      return hostedView(m, caller) ?? { type: 'mcp_call', ...id, name: m['name'], arguments: m['arguments'], output: m['output'] };
    // Provider items the SDK passes through: counted as what it sends.
    case 'unknown':
      return unknownView(m);
    case 'tool_search_call':
    case 'tool_search_output':
      return { ...m, ...(callId !== undefined ? { call_id: callId } : {}) };
    case 'shell_call_output': {
      const out = Array.isArray(m['output']) ? m['output'].map((o) => (isRecord(o) ? { stdout: o['stdout'], stderr: o['stderr'] } : o)) : m['output'];
      return { type, ...id, call_id: callId, output: out };
    }
    case 'program_output':
      return { type, ...id, call_id: callId, result: m['result'] ?? m['output'] };
    default:
      break;
  }
  if (callId === undefined) return m;
  return { ...m, type: WIRE_TYPE[type] ?? type, ...id, call_id: callId, output: media(m['output']), ...caller };
}

/**
 * `original` as its fitted view was rewritten, in the SDK's shape: a message's content (its text
 * truncated, `truncateUserMessage`; its media as notes, `stubMedia`), a tool's output (truncated,
 * its media kept; stubbed, `stubToolResults`; its media as notes). The parts the format kept are
 * the SDK's own again ({@link sdkParts}).
 */
function sdkItem(original: Rec, fitted: Rec, index: number): unknown {
  const type = original['type'];
  if (type === undefined || type === 'message') return { ...original, content: sdkParts(fitted['content']) };
  switch (type) {
    case 'function_call_result':
    case 'apply_patch_call_output':
      return { ...original, output: sdkParts(fitted['output']) };
    case 'program_output':
      return { ...original, ['result' in original ? 'result' : 'output']: fitted['result'] };
    case 'unknown':
      // The SDK sends providerData as it is: the rewritten wire item (an output truncated, stubbed).
      return { ...original, providerData: fitted };
    case 'shell_call_output': {
      const first: unknown = Array.isArray(fitted['output']) ? fitted['output'][0] : undefined;
      const stdout = isRecord(first) ? first['stdout'] : '';
      const was: unknown = Array.isArray(original['output']) ? original['output'][0] : undefined;
      const outcome = isRecord(was) && isRecord(was['outcome']) ? was['outcome'] : { type: 'exit', exitCode: 0 };
      return { ...original, output: [{ ...(isRecord(was) ? was : {}), stdout, stderr: '', outcome }] };
    }
    default:
      // The format rewrites no other item (a screenshot stays, reasoning and hosted items have no
      // text part it cuts nor media it stubs). Sending the original would break the budget: refused.
      throw new CtxpackError('INTERNAL', `ctxpack/openai-agents cannot give back input[${index}] as rewritten in the SDK's shape: please report it`, { field: 'input', index });
  }
}

// ---- Conversations ----

/**
 * What the session fits for one call: the views, and for each the SDK item it stands for (-1: a
 * stand-in, never sent) and whether it must be kept.
 */
interface Fitted {
  readonly views: readonly unknown[];
  readonly item: readonly number[];
  readonly held: readonly boolean[];
}

/**
 * The views of `items`. With `previousResponseId` or `conversationId` the server holds the
 * history, and each call after the first passes the filter only what is new: the outputs of the
 * calls of the server's last response (the SDK tells the filter nothing else of it). So an input
 * without a user message is read as continuing a history the server holds: each output in it
 * whose call is not in it (by the format's own pairing) answers a call the server holds; it is
 * read with a stand-in of that call just before it (the format's call for that output, `callOf`:
 * a function call with its call id and name, a computer call, the MCP approval request its
 * response names, …), which is never sent, and kept, as the step in
 * flight is (the server refuses a call without its output). An input with a user message holds
 * its history: an output without its call there is left out, or refused in flight.
 */
function viewsOf(items: readonly AgentInputItem[]): Fitted {
  const views = items.map(responsesView);
  const plain = { views, item: views.map((_, i) => i), held: views.map(() => false) };
  if (views.some((v) => isRecord(v) && v['role'] === 'user' && (v['type'] === undefined || v['type'] === 'message'))) return plain;
  const adapter = adapterOf(FORMAT);
  const turns = views.map((v, i) => readTurn(adapter, v, i));
  const calls = new Set(turns.flatMap((t) => t.calls));
  const out: Fitted = { views: [], item: [], held: [] };
  const push = (view: unknown, item: number, held: boolean): void => {
    (out.views as unknown[]).push(view);
    (out.item as number[]).push(item);
    (out.held as boolean[]).push(held);
  };
  views.forEach((view, i) => {
    // A NUL-led id is the format's for an output that names no call: no stand-in can be its.
    const onServer = turns[i]!.results.filter((id) => !calls.has(id) && !id.startsWith('\u0000'));
    let held = false;
    for (const id of onServer) {
      // The call the output answers, as the format pairs them (a computer call for a computer call's output, …).
      const call = callOf(view, id);
      if (call === undefined) continue;
      push(call, -1, true);
      calls.add(id);
      held = true;
    }
    push(view, i, held);
  });
  return out;
}

/** For each view, the index of the SDK item it is read from; a stand-in's, the output it stands before (what it was made for). */
function callerIndexes(fitted: Fitted): number[] {
  const out = [...fitted.item];
  for (let v = out.length - 2; v >= 0; v--) if (out[v]! < 0) out[v] = out[v + 1]!;
  return out;
}

/** One conversation's session, and the call being fitted (for `keep`: the SDK's items, and what must be kept). */
class Conversation {
  readonly session: Session;
  private items: readonly AgentInputItem[] = [];
  private fitted: Fitted = { views: [], item: [], held: [] };

  constructor(private readonly o: Read) {
    const keep = o.keep;
    // The session's `keep`, over the views: what the server needs, and the caller's `keep` over the SDK's items.
    const kept = (i: number): boolean => {
      if (this.fitted.held[i] === true) return true;
      const item = this.fitted.item[i]!;
      if (item < 0 || keep === undefined) return false;
      return typeof keep === 'number' ? item >= this.items.length - keep : keep(this.items[item]!, item);
    };
    this.session = createSession({ ...o.session, keep: (_view: unknown, i: number) => kept(i), format: FORMAT, cache: o.cache ?? CACHE } as SessionOptions);
  }

  async fit(items: readonly AgentInputItem[], instructions: string | undefined, tools: unknown): Promise<AgentInputItem[]> {
    this.items = items;
    const fitted = readingInput(() => viewsOf(items), items);
    this.fitted = fitted;
    const { views } = fitted;
    let result: SessionFitResult<unknown>;
    try {
      result = await fitReported(this.session, views, { ...(instructions === undefined ? {} : { system: instructions }), ...(tools === undefined ? {} : { tools }) } as SessionTurnOptions, this.o.onFit);
    } catch (err) {
      // An error about a view names the caller's item: the stand-ins shift the views' indexes.
      throw err instanceof CtxpackError && err.index !== undefined && err.message.includes(`messages[${err.index}]`) ? reindexed(err, 'messages', callerIndexes(fitted)) : err;
    }
    // The result is the kept views in input order, each the view itself or its rewritten copy,
    // and with `summarize` the summary at `summary.index` (a user message, an input item as it is).
    const kept = result.decisions.filter((d) => d.included).map((d) => d.index).sort((a, b) => a - b);
    const at = result.summary?.index ?? -1;
    const out: AgentInputItem[] = [];
    result.messages.forEach((message, k) => {
      if (k === at) return void out.push(message as AgentInputItem);
      const v = kept[at >= 0 && k > at ? k - 1 : k]!;
      const i = fitted.item[v]!;
      if (i < 0) return; // a stand-in for a call the server holds
      out.push((message === views[v] ? items[i] : sdkItem(items[i] as Rec, message as Rec, i)) as AgentInputItem);
    });
    return out;
  }
}

/** A conversation's identity: its first item (the task), the same at every call of a run, whatever the agent (handoffs keep the history). */
function conversationKey(items: readonly unknown[]): string {
  let text: string;
  try {
    text = JSON.stringify(items[0]) ?? '';
  } catch {
    text = ''; // a first item JSON cannot write (a cycle, a BigInt): one shared session, which costs cache reuse, never validity
  }
  return textKey(text);
}

/**
 * A `callModelInputFilter` for `run()` or a `Runner` that fits every model call's input to the
 * budget through a session, one per conversation (its first item, the task), so that each call
 * appends to the last request and OpenAI's prompt cache holds. The instructions are counted as
 * the system prompt and returned as they came; a tool call and its output go in together or not
 * at all:
 *
 * ```ts
 * const result = await run(agent, task, { callModelInputFilter: ctxpackInputFilter({ budgets: { tokens_max: 128_000 } }) });
 * ```
 *
 * Bad options are a `CtxpackError` (`INVALID_OPTION`, `INVALID_BUDGET`) here. A call that cannot
 * be fitted (what must be kept exceeds the budget: `PINNED_OVER_BUDGET`) fails the run with that
 * error rather than send a request the API refuses.
 */
export function ctxpackInputFilter(options: OpenAIAgentsOptions): CallModelInputFilter<any> {
  const o = readAdapterOptions(options, OPTIONS);
  const conversations = new Conversations<Conversation>(o.maxSessions);
  return async (args: CallModelInputFilterArgs<any>): Promise<ModelInputData> => {
    const { input, instructions, tools, conversation } = readingInput(() => {
      const data = isRecord(args) ? args.modelData : undefined;
      if (!isRecord(data) || !Array.isArray(data.input)) throw invalidOption('modelData.input', "an array of items (callModelInputFilter's argument from the Agents SDK)", isRecord(data) ? data.input : data);
      const ins = data.instructions;
      if (ins !== undefined && typeof ins !== 'string') throw invalidOption('modelData.instructions', 'a string or undefined', ins);
      const conversation = conversations.get(conversationKey(data.input), () => new Conversation(o));
      return { input: data.input as AgentInputItem[], instructions: ins as string | undefined, tools: toolsToCount(isRecord(args) ? args.agent : undefined), conversation };
    }, args);
    const fitted = await conversation.fit(input, instructions, tools);
    return instructions === undefined ? { input: fitted } : { input: fitted, instructions };
  };
}

/** The agent's tools as the Responses API receives them, to be counted: a function tool's name, description and JSON schema; another tool's type and name. */
function toolsToCount(agent: unknown): unknown {
  const tools = isRecord(agent) ? agent['tools'] : undefined;
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((t) => (!isRecord(t) ? {} : t['type'] === 'function'
    ? { type: 'function', name: t['name'], description: t['description'], parameters: t['parameters'] }
    : { type: t['type'], name: t['name'] }));
}
