/**
 * The sentences of the core's errors, written from the fields the wasm boundary gives
 * (src/wasm/errors.rs): the one place a core error's JS message is written. Each names the field
 * and the index; none shows a caller's string (kinds and content cross as indexes, values are
 * described by the core before they cross). Why a budget, an option, a field or an input was refused
 * crosses as `reasonKind` and its fields ({@link ReasonFields}), and {@link REASON_TEXT} writes it.
 *
 * @internal
 * @module
 */

/** The codes the Rust core raises (its `CtxpackError::CODES`, the glue's `errorCodes()`). */
export type CoreErrorCode =
  | 'INVALID_SCORE'
  | 'INVALID_BUDGET'
  | 'INVALID_BUCKET_SIZE'
  | 'INVALID_COUNT_ENTRY'
  | 'TABLE_TOO_LARGE'
  | 'COUNT_REQUIREMENT_SHORTFALL'
  | 'COUNT_REQUIREMENT_OVER_BUDGET'
  | 'NOT_MONOTONIC'
  | 'INVALID_OPTION'
  | 'INVALID_FIELD'
  | 'INVALID_INPUT';

/** The kinds of {@link ReasonFields} (the core's `ErrorReason::KINDS`, the glue's `errorReasonKinds()`). */
export type ReasonKind =
  | 'required'
  | 'unreadable'
  | 'unknown'
  | 'expected'
  | 'range'
  | 'atLeast'
  | 'atMost'
  | 'below'
  | 'indexOfAnother'
  | 'outOfRange'
  | 'notSupported'
  | 'bytes'
  | 'notIncreasing'
  | 'kindId'
  | 'groupTokens'
  | 'sumPast'
  | 'tooManyOptions'
  | 'keptPosition'
  | 'noOpensUser'
  | 'indexOutOfRange'
  | 'describes'
  | 'lengths'
  | 'entries'
  | 'perItem'
  | 'depOffsets'
  | 'textEnd'
  | 'statsTruncated'
  | 'statsMatch'
  | 'vectorLength'
  | 'notFinite'
  | 'scoresPerText'
  | 'score'
  | 'oneOf'
  | 'takes'
  | 'phrase';

/**
 * Why INVALID_BUDGET, INVALID_OPTION, INVALID_FIELD, INVALID_INPUT and an INVALID_COUNT_ENTRY of an
 * entry's shape were raised (the core's `ErrorReason`, src/error/reason.rs; sent by
 * src/wasm/reason.rs): `reasonKind` and the kind's fields, numbers as numbers, fixed phrases
 * (`what`, `than`, `by`…) as the core's static strings, values described (`got`: `a string`,
 * `missing`, a number as JS prints it), never a caller's content. Which fields each kind sets:
 * - `required`, `unreadable`: none.
 * - `unknown`: `what` (`a known option`), `known` (the keys taken).
 * - `expected`: `expected` (what the field takes), `got` (when given).
 * - `range`: `what`, `min`, `max`, `maxByName` (2^53 − 1 written `2^53 - 1`), `got` (when given).
 * - `atLeast`: `than` (when named), `min`, `got`. `atMost`: `than`, `max`, `got`.
 * - `below`: `what`, `limit`, `got`. `indexOfAnother`: `got`, `len`. `outOfRange`: `len`.
 * - `notSupported`: `what`, `plural`, `by`. `bytes`: `want`, `got`, `atLeast`.
 * - `notIncreasing`: `got`, `after`. `kindId`: `id`, `kindNames`. `keptPosition`: `position`.
 * - `groupTokens`: `members`, `tokens` (absent: past `limit`), `limit`. `sumPast`: `limit`.
 * - `tooManyOptions`: `max`. `noOpensUser`: `unitId`, `flags`.
 * - `indexOutOfRange`: `what`, `at`, `len`. `describes`: `what`, `describes`, `got`.
 * - `lengths`: `what` (the columns), `must`, `lengths` (three). `entries`: `what`, `want`, `got`.
 * - `perItem`: `what`, `orEmpty`, `got`, `items`. `depOffsets`: `want`, `targets`.
 * - `textEnd`: `text`, `end`, `from`, `len`. `statsTruncated`: `text`, `len`.
 * - `statsMatch`: `text`, `entry`, `terms`, `term`, `count`. `vectorLength`: `dim`, `got`.
 * - `notFinite`: `vector` (absent: the query's), `number`. `scoresPerText`: `lexical`, `caller`, `texts`.
 * - `score`: `list`, `at`. `oneOf`: `what`, `names`, `length`. `takes`: `what`, `expected`, `got`.
 * - `phrase`: `phrase` (a fixed sentence or tail, no values).
 */
export interface ReasonFields {
  reasonKind?: ReasonKind;
  what?: string;
  known?: readonly string[];
  expected?: string;
  /** A value described (a string), or the rejected number. */
  got?: string | number;
  min?: number;
  max?: number;
  maxByName?: boolean;
  than?: string;
  limit?: number;
  len?: number;
  plural?: boolean;
  by?: string;
  want?: number;
  atLeast?: boolean;
  after?: number;
  id?: number;
  kindNames?: number;
  members?: number;
  tokens?: number;
  position?: number;
  unitId?: number;
  flags?: number;
  at?: number;
  describes?: number;
  must?: string;
  lengths?: readonly number[];
  orEmpty?: boolean;
  items?: number;
  targets?: number;
  text?: number;
  end?: number;
  from?: number;
  entry?: number;
  terms?: number;
  term?: number;
  count?: number;
  dim?: number;
  vector?: number;
  number?: number;
  lexical?: number;
  caller?: number;
  texts?: number;
  list?: string;
  names?: readonly string[];
  length?: number;
  phrase?: string;
}

/** What a core error carries across the boundary; which fields are set depends on the code. */
export interface CoreErrorFields extends ReasonFields {
  code: CoreErrorCode;
  /** The field or option, as JS callers name it. */
  field?: string;
  /** The item's (in the caller's list) or the count entry's index. */
  index?: number;
  /** How the caller's list is named (`items`, `candidates`…): set when `index` is an item's. */
  noun?: string;
  /** INVALID_SCORE, INVALID_BUCKET_SIZE: the rejected number. */
  value?: number;
  /** TABLE_TOO_LARGE (and `limit`, of {@link ReasonFields}). INVALID_BUCKET_SIZE of a value that is not an integer: `got`, the value described. */
  candidates?: number;
  capacity?: number;
  columns?: number;
  cells?: number;
  bytes?: number;
  unit?: 'bytes' | 'cells' | 'addressable';
  bucketHelps?: boolean;
  /** INVALID_COUNT_ENTRY of an entry's shape: the entry's field at fault (absent: the entry or the list). */
  member?: string;
  /** INVALID_COUNT_ENTRY: what is wrong, with the entry's counts or the earlier entry of its kind. */
  problem?: 'cap_zero' | 'require_over_cap' | 'duplicate_kind';
  requireCount?: number;
  capCount?: number;
  first?: number;
  /** COUNT_REQUIREMENT_SHORTFALL. */
  satisfied?: number;
  required?: number;
  /** COUNT_REQUIREMENT_OVER_BUDGET. */
  requiredTokens?: number;
  targetTokens?: number;
  bucketSize?: number;
  /** NOT_MONOTONIC: the strategy's name. */
  slicer?: string;
}

/** The item or entry the error is about: `noun[index]`. */
function item(e: CoreErrorFields): string {
  return `${e.noun ?? 'items'}[${e.index ?? 0}]`;
}

/** `noun[index].field`, `noun[index]` or `field`: the subject of a sentence about a field. */
function subject(e: CoreErrorFields): string {
  if (e.index === undefined || e.noun === undefined) return e.field ?? '';
  return e.field === undefined || e.field === '' ? item(e) : `${item(e)}.${e.field}`;
}

/** Numbers as JS prints them (`NaN`, `1e+300`). */
const num = (v: number | undefined): string => String(v ?? 0);

/** The largest integer a JS number holds exactly. */
const SAFE = 9007199254740991;

/** `, got {got}` when the value is given. */
const got = (e: ReasonFields): string => (e.got === undefined ? '' : `, got ${String(e.got)}`);

/** The sentence of each reason kind, from its fields: the tail after the subject, or (INVALID_INPUT) the whole sentence. */
export const REASON_TEXT: Readonly<Record<ReasonKind, (e: ReasonFields) => string>> = Object.freeze({
  required: () => 'is required',
  unreadable: () => 'could not be read',
  unknown: (e) => `is not ${e.what} (known: ${(e.known ?? []).join(', ')})`,
  expected: (e) => `must be ${e.expected}${got(e)}`,
  range: (e) => `must be ${e.what} from ${num(e.min)} to ${e.maxByName === true && e.max === SAFE ? '2^53 - 1' : num(e.max)}${got(e)}`,
  atLeast: (e) => `must be at least ${e.than === undefined ? '' : `${e.than} (`}${num(e.min)}${e.than === undefined ? '' : ')'}${got(e)}`,
  atMost: (e) => `must be at most ${e.than} (${num(e.max)})${got(e)}`,
  below: (e) => `must be ${e.what} below ${num(e.limit)}${got(e)}`,
  indexOfAnother: (e) => `must be the index of another item${got(e)} (there are ${num(e.len)} items)`,
  outOfRange: (e) => `is out of range: there are ${num(e.len)} items`,
  notSupported: (e) => `${e.what} ${e.plural === true ? 'are' : 'is'} not supported by ${e.by}`,
  bytes: (e) => `must ${e.atLeast === true ? 'hold at least' : 'derive a key of'} ${num(e.want)} bytes${got(e)} bytes`,
  notIncreasing: (e) => `must increase strictly${got(e)} after ${num(e.after)}`,
  kindId: (e) => `is kind id ${num(e.id)}, but there are ${num(e.kindNames)} kind names`,
  groupTokens: (e) =>
    e.tokens === undefined
      ? `is in a group of ${num(e.members)} items totalling more than ${num(e.limit)} tokens`
      : `is in a group of ${num(e.members)} items totalling ${num(e.tokens)} tokens, over ${num(e.limit)}`,
  sumPast: (e) => `tokens sum past ${num(e.limit)}`,
  tooManyOptions: (e) => `the group's combinations of versions keep more than ${num(e.max)} options`,
  keptPosition: (e) => `position ${num(e.position)} is also an item's`,
  noOpensUser: (e) => `unit ${num(e.unitId)} has no opens-user flag (there are ${num(e.flags)})`,
  indexOutOfRange: (e) => `${e.what} ${num(e.at)} is out of range for ${num(e.len)} items`,
  describes: (e) => `the ${e.what} describe ${num(e.describes)} items${got(e)} items`,
  lengths: (e) => {
    const [a, b, c] = e.lengths ?? [];
    return `${e.what} must ${e.must}, got ${num(a)}, ${num(b)} and ${num(c)}`;
  },
  entries: (e) => `${e.what} must have ${num(e.want)} entries${got(e)}`,
  perItem: (e) => `${e.what} must ${e.orEmpty === true ? 'be empty or ' : ''}have one entry per item${got(e)} for ${num(e.items)} items`,
  depOffsets: (e) => `depOffsets must be empty or ${num(e.want)} non-decreasing offsets from 0 to depTargets.length (${num(e.targets)})`,
  textEnd: (e) => `texts[${num(e.text)}]: ends[${num(e.text)}] = ${num(e.end)} must be at least ${num(e.from)}, at most ${num(e.len)} and end a UTF-8 text`,
  statsTruncated: (e) =>
    `stats end inside text ${num(e.text)}: each text is its length, its number of matches m, then m (term, count) pairs; got ${num(e.len)} numbers`,
  statsMatch: (e) =>
    `stats[${num(e.text)}] match ${num(e.entry)}: term numbers must be strictly ascending and below terms = ${num(e.terms)}, counts above 0; got term ${num(e.term)}, count ${num(e.count)}`,
  vectorLength: (e) => `the texts' vectors must be whole vectors of the query vector's length (${num(e.dim)}, at least 1)${got(e)} numbers`,
  notFinite: (e) => `${e.vector === undefined ? "the query vector's" : `vector ${num(e.vector)}'s`} number ${num(e.number)} must be finite`,
  scoresPerText: (e) => `lexical (${num(e.lexical)}) and caller (${num(e.caller)}) scores must be one per text (${num(e.texts)})`,
  score: (e) => `${e.list} score ${num(e.at)} must be a finite number of at least 0`,
  oneOf: (e) => `${e.what} must be one of ${(e.names ?? []).map((n) => `'${n}'`).join(', ')}, got a string of length ${num(e.length)}`,
  takes: (e) => `${e.what} takes ${e.expected}${got(e)}`,
  phrase: (e) => e.phrase ?? '',
});

/** Why the core refused, from `reasonKind` and its fields ({@link REASON_TEXT}). */
export function reasonText(e: ReasonFields): string {
  return e.reasonKind === undefined ? '' : REASON_TEXT[e.reasonKind](e);
}

/** A table over its limit: its shape, and what to raise (never a limit already at its largest). */
function tableTooLarge(e: CoreErrorFields): string {
  const shape = `knapsack table too large: ${num(e.candidates)} candidates x ${num(e.columns)} columns (capacity ${num(e.capacity)}) = ${num(e.cells)} cells, ${num(e.bytes)} bytes`;
  const raiseBucket = e.bucketHelps === true ? 'raise bucketSize or ' : '';
  if (e.unit === 'addressable') {
    // No option raises the address space: only a coarser bucket or a smaller budget helps.
    return `${shape}, more than the ${num(e.limit)} bytes this platform can address; ${raiseBucket}lower the budget`;
  }
  const facts = `${shape}, over the limit of ${num(e.limit)} ${e.unit ?? 'bytes'}`;
  if ((e.limit ?? 0) >= Number.MAX_SAFE_INTEGER) return `${facts}; ${e.field} is at its largest: ${raiseBucket}lower the budget`;
  return `${facts}; raise ${e.bucketHelps === true ? 'bucketSize or ' : ''}${e.field}`;
}

/** INVALID_COUNT_ENTRY in JS names, the entry named by the option the caller wrote (`field`). */
function countEntry(e: CoreErrorFields): string {
  const option = `options.${e.field ?? 'entries'}`;
  if (e.problem === undefined) {
    // The list or an entry of the wrong shape: what it takes and got (the reason's fields).
    const at = e.index === undefined ? option : `${option}[${e.index}]${e.member === undefined ? '' : `.${e.member}`}`;
    return `${at} ${reasonText(e)}`;
  }
  const why =
    e.problem === 'cap_zero' ? `capCount 0 with requireCount ${num(e.requireCount)} can never be satisfied`
    : e.problem === 'require_over_cap' ? `requireCount ${num(e.requireCount)} must not exceed capCount ${num(e.capCount)}`
    : `the kind is already constrained by ${option}[${num(e.first)}] (kinds compare case-insensitively)`;
  return `${option}[${num(e.index)}]: ${why}`;
}

/** The sentence of each core code, from its fields. */
export const CORE_ERROR_TEXT: Readonly<Record<CoreErrorCode, (e: CoreErrorFields) => string>> = Object.freeze({
  INVALID_SCORE: (e) => `${item(e)}.score must be a finite number, got ${num(e.value)}`,
  INVALID_BUDGET: (e) => `budget.${e.field} ${reasonText(e)}`,
  INVALID_BUCKET_SIZE: (e) => `options.bucketSize must be a positive integer, got ${e.got === undefined ? num(e.value) : String(e.got)}`,
  INVALID_COUNT_ENTRY: countEntry,
  TABLE_TOO_LARGE: tableTooLarge,
  COUNT_REQUIREMENT_SHORTFALL: (e) =>
    // The specification's message, the kind named by its entry (kinds may carry content).
    `CountConstrainedKnapsackSlice: candidate pool for the kind of entries[${e.index}] has ${num(e.satisfied)} items but RequireCount is ${num(e.required)}.`,
  COUNT_REQUIREMENT_OVER_BUDGET: (e) =>
    e.bucketSize === 1
      ? `the required items need at least ${num(e.requiredTokens)} tokens, over the budget of ${num(e.targetTokens)}`
      : `the required items need at least ${num(e.requiredTokens)} tokens (counts rounded up to multiples of ${num(e.bucketSize)}), over the budget of ${num(e.targetTokens)}`,
  NOT_MONOTONIC: (e) =>
    `budget simulation is not defined for '${e.slicer}': its selection is not monotonic in the budget (required items can exceed it, and its value can fall as the budget grows), so a curve, a minimum budget or a slack would mislead; run the slicer at each budget instead`,
  INVALID_OPTION: (e) => {
    if (e.reasonKind === undefined && e.members !== undefined) {
      // A counted kind in a group: the one INVALID_OPTION without a reason.
      return `${item(e)} is in a group of ${num(e.members)} items and its kind has a count entry: count-constrained strategies count items, not groups`;
    }
    return e.field === undefined ? `options: ${reasonText(e)}` : `options.${e.field} ${reasonText(e)}`;
  },
  INVALID_FIELD: (e) =>
    // The one INVALID_FIELD without a reason: an item among its own dependencies (which the caller named by id).
    e.reasonKind === undefined ? `${subject(e)} must name another item, not the item itself` : `${subject(e)} ${reasonText(e)}`,
  INVALID_INPUT: (e) =>
    e.reasonKind === undefined
      ? `${subject(e)} could not be read: a getter or a Proxy trap threw, or a Proxy was revoked (the thrown value is this error's cause)`
      : reasonText(e),
});

/** The message of a core error. */
export function coreErrorText(e: CoreErrorFields): string {
  return CORE_ERROR_TEXT[e.code](e);
}
