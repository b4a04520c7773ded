/**
 * The sentences of the core's errors, written from the fields the wasm boundary gives
 * (src/wasm/errors.rs): the one place a core error's JS message is written. Each names the field
 * and the index; none shows a caller's string (kinds and content cross as indexes, values are
 * described by the core before they cross: `reason` never quotes content).
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

/** What a core error carries across the boundary; which fields are set depends on the code. */
export interface CoreErrorFields {
  code: CoreErrorCode;
  /** The field or option, as JS callers name it. */
  field?: string;
  /** The item's (in the caller's list) or the count entry's index. */
  index?: number;
  /** How the caller's list is named (`items`, `candidates`…): set when `index` is an item's. */
  noun?: string;
  /** The rest of the sentence after its subject, written by the core (never quoting content). */
  reason?: string;
  /** INVALID_SCORE, INVALID_BUCKET_SIZE: the rejected number. */
  value?: number;
  /** INVALID_BUCKET_SIZE of a value that is not an integer: the value, described. */
  got?: string;
  /** TABLE_TOO_LARGE. */
  candidates?: number;
  capacity?: number;
  columns?: number;
  cells?: number;
  bytes?: number;
  limit?: number;
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
  /** INVALID_OPTION of a counted kind in a group: the group's size. */
  members?: number;
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
    // The list or an entry of the wrong shape: what it takes and got (`reason`).
    const at = e.index === undefined ? option : `${option}[${e.index}]${e.member === undefined ? '' : `.${e.member}`}`;
    return `${at} ${e.reason ?? ''}`;
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
  INVALID_BUDGET: (e) => `budget.${e.field} ${e.reason}`,
  INVALID_BUCKET_SIZE: (e) => `options.bucketSize must be a positive integer, got ${e.got ?? num(e.value)}`,
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
    if (e.members !== undefined) {
      return `${item(e)} is in a group of ${e.members} items and its kind has a count entry: count-constrained strategies count items, not groups`;
    }
    return e.field === undefined ? `options: ${e.reason}` : `options.${e.field} ${e.reason}`;
  },
  INVALID_FIELD: (e) =>
    // The one reason without text: an item among its own dependencies (which the caller named by id).
    e.reason === undefined ? `${subject(e)} must name another item, not the item itself` : `${subject(e)} ${e.reason}`,
  INVALID_INPUT: (e) =>
    e.reason ?? `${subject(e)} could not be read: a getter or a Proxy trap threw, or a Proxy was revoked (the thrown value is this error's cause)`,
});

/** The message of a core error. */
export function coreErrorText(e: CoreErrorFields): string {
  return CORE_ERROR_TEXT[e.code](e);
}
