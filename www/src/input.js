// Turns a text (a bundled sample, pasted JSON, a dropped file) into fragments or a chat history,
// plus the optional settings a document may carry. Checks only the shape of the document; every
// fragment field and every message is checked by the package itself when the page plans.
// Messages never quote the text.

import { locateJsonError } from './json-error.js';

/** The largest text the page reads (a dropped file can be anything). */
export const MAX_INPUT_CHARS = 64 * 1024 * 1024;

/** A problem with the text the user gave; the message is safe to show. */
export class InputError extends Error {
  name = 'InputError';
}

/**
 * @typedef {object} Document  Fragments to plan with `selectFragments`.
 * @property {'fragments'} kind
 * @property {unknown[]} fragments  Non-empty; validated by `selectFragments`.
 * @property {string[] | undefined} gaze  `gaze.entities`, when the document has a gaze.
 * @property {number | undefined} budget  `budgets.tokens_max`, when the document has budgets.
 * @property {string | number | undefined} now  The planner's clock, when the document has one.
 * @property {string | undefined} description
 */

/**
 * @typedef {object} History  A chat history to fit with `fitMessages`.
 * @property {'messages'} kind
 * @property {unknown[]} messages  Non-empty; validated by `fitMessages`.
 * @property {unknown} system  Anthropic's top-level system prompt, when the document has one.
 * @property {string | undefined} format  When the document says; else the package detects it.
 * @property {number | undefined} budget  `budgets.tokens_max`, when the document has budgets.
 * @property {string | undefined} query
 * @property {string | undefined} description
 */

const SHAPE =
  'an array of fragments, or an object { "fragments": [...], "gaze"?, "budgets"?, "now"? }; ' +
  'or a chat history: an array of messages, or an object { "messages": [...], "system"?, "format"?, "budgets"?, "query"? }';

/**
 * @param {string} text
 * @returns {Document | History}
 * @throws {InputError}
 */
export function parseDocument(text) {
  return readDocument(parseJson(text));
}

function parseJson(text) {
  if (text.length > MAX_INPUT_CHARS) {
    throw new InputError(`The text is too long (${text.length.toLocaleString('en-US')} characters; at most ${MAX_INPUT_CHARS.toLocaleString('en-US')}).`);
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // a byte order mark
  if (body.trim() === '') throw new InputError(`There is nothing to read: expected ${SHAPE}.`);
  try {
    return JSON.parse(body);
  } catch {
    const at = locateJsonError(body);
    if (at === null) throw new InputError('The text is not valid JSON.');
    throw new InputError(
      `The text is not valid JSON: at line ${at.line}, column ${at.column} (character ${at.offset + 1}) ` +
        `expected ${at.expected}, found ${at.found}.`,
    );
  }
}

/** A message, as JSON holds one: an object with a string `role` (fragments have none). */
const isMessage = (v) => isObject(v) && typeof v.role === 'string';

function readDocument(json) {
  if (Array.isArray(json)) {
    if (json.length > 0 && json.every(isMessage)) return readHistory({ messages: json });
    return { kind: 'fragments', fragments: nonEmpty(json, 'The array'), gaze: undefined, budget: undefined, now: undefined, description: undefined };
  }
  if (!isObject(json)) throw new InputError(`The JSON is ${describe(json)}, not fragments: expected ${SHAPE}.`);
  if ('messages' in json && !('fragments' in json)) return readHistory(json);
  if (!('fragments' in json)) throw new InputError(`The JSON is an object without "fragments" or "messages": expected ${SHAPE}.`);
  if (!Array.isArray(json.fragments)) throw new InputError(`"fragments" is ${describe(json.fragments)}, not an array of fragments.`);
  return {
    kind: 'fragments',
    fragments: nonEmpty(json.fragments, '"fragments"'),
    gaze: readGaze(json.gaze),
    budget: readBudget(json.budgets),
    now: readNow(json.now),
    description: typeof json.description === 'string' ? json.description : undefined,
  };
}

/** @returns {History} */
function readHistory(json) {
  if (!Array.isArray(json.messages)) throw new InputError(`"messages" is ${describe(json.messages)}, not an array of messages.`);
  if (json.messages.length === 0) throw new InputError('"messages" is empty: there are no messages to fit.');
  if (json.format !== undefined && typeof json.format !== 'string') throw new InputError(`"format" must be a string, got ${describe(json.format)}.`);
  if (json.query !== undefined && typeof json.query !== 'string') throw new InputError(`"query" must be a string, got ${describe(json.query)}.`);
  return {
    kind: 'messages',
    messages: json.messages,
    system: json.system,
    format: json.format,
    budget: readBudget(json.budgets),
    query: json.query,
    description: typeof json.description === 'string' ? json.description : undefined,
  };
}

function nonEmpty(fragments, name) {
  if (fragments.length === 0) throw new InputError(`${name} is empty: there are no fragments to plan.`);
  return fragments;
}

function readGaze(gaze) {
  if (gaze === undefined) return undefined;
  if (!isObject(gaze) || !Array.isArray(gaze.entities)) throw new InputError(`"gaze" must be an object { "entities": [...] }, got ${describe(gaze)}.`);
  const bad = gaze.entities.findIndex((e) => typeof e !== 'string');
  if (bad !== -1) throw new InputError(`"gaze.entities[${bad}]" must be a string, got ${describe(gaze.entities[bad])}.`);
  return gaze.entities;
}

function readBudget(budgets) {
  if (budgets === undefined) return undefined;
  const max = isObject(budgets) ? budgets.tokens_max : undefined;
  if (!Number.isSafeInteger(max) || max < 0) {
    throw new InputError(`"budgets.tokens_max" must be a whole number of tokens, 0 or more, got ${describe(max)}.`);
  }
  return max;
}

function readNow(now) {
  if (now === undefined || typeof now === 'string' || typeof now === 'number') return now;
  throw new InputError(`"now" must be an ISO 8601 time or epoch milliseconds, got ${describe(now)}.`);
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a value is, without its text. */
function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  switch (typeof v) {
    case 'string':
      return `a string of length ${v.length}`;
    case 'number':
    case 'boolean':
      return String(v);
    case 'undefined':
      return 'missing';
    default:
      return 'an object';
  }
}
