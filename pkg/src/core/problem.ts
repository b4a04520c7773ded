/**
 * The message layer's one call into the core: a chat history's selection as a columnar problem
 * (src/problem in the crate): per message its size, value, unit and position, its stub, which
 * units open with a user message, and what is kept for sure. The core decides everything,
 * structure included (units whole, Anthropic's first user message); this file only moves the
 * columns across.
 *
 * @internal
 * @module
 */

import * as glue from '../../wasm/ctxpack.js';
import { call } from './instance.js';

/** The strategies of `fitMessages`' `slicer`. */
export type ProblemStrategy = 'exact' | 'knapsack' | 'greedy' | 'ranked' | 'packer';

/** A problem in columns: one row per competing message, in conversation order. */
export interface ProblemInput {
  readonly strategy: ProblemStrategy;
  /** Tokens for the messages and what is kept for sure together. */
  readonly budget: number;
  /** Per message: tokens, overhead included. */
  readonly sizes: Uint32Array;
  /** Per message: its value in [0, 1] (the core lifts it for `'exact'` and `'knapsack'`). */
  readonly values: Float64Array;
  /** Per message: its unit's id, below the number of messages (a unit goes in whole). */
  readonly units: Uint32Array;
  /** Per message: its index in the history (strictly increasing). */
  readonly positions: Uint32Array;
  /** Stubs: `items[k]` may go in as `sizes[k]` tokens worth `values[k]` (at most its own value). */
  readonly stubs?: { readonly items: Uint32Array; readonly sizes: Uint32Array; readonly values: Float64Array };
  /** The rule "the first kept message opens a user unit" (Anthropic): per unit id, 1 when it opens with a user message. */
  readonly opensUser?: Uint8Array;
  /** Kept for sure (pinned, a session's prefix): the tokens they take, their positions, 1 for a user message. */
  readonly kept: { readonly tokens: number; readonly positions: Uint32Array; readonly user: Uint8Array };
}

/** What the core decided, per message (rows as the input's). */
export interface ProblemResult {
  readonly included: Uint8Array;
  /** 0 the message, 1 its stub, {@link NOT_IN} when left out. */
  readonly version: Uint8Array;
  /** Reason ids: {@link problemReason} names them. */
  readonly reasons: Uint8Array;
  /** For `group_excluded`: the unit's own reason id; {@link NOT_IN} when none. */
  readonly groupReasons: Uint8Array;
  readonly tokens: number;
  /** `'exact'`: whether the answer is proven optimal; `null` for the other strategies. */
  readonly optimal: boolean | null;
  /** Solves the core's search for the first unit ran (0 when the plain answer kept the rule). */
  readonly firstSolves: number;
  /** The first kept-for-sure message is not a user message and no user unit before it fits. */
  readonly unmet: boolean;
}

/** `version`'s and `groupReasons`' "none". */
export const NOT_IN = 255;

const EMPTY_U32 = new Uint32Array(0);
const EMPTY_F64 = new Float64Array(0);
const EMPTY_U8 = new Uint8Array(0);

let codes: readonly string[] | undefined;

/** The reason code of id `id` in a {@link ProblemResult} (the slicers' codes, then `first_not_user`). */
export function problemReason(id: number): string {
  codes ??= call(() => glue.problemReasonCodes()) as string[];
  return codes[id]!;
}

/**
 * Solves the problem in one call.
 *
 * @throws {CtxpackError} `INVALID_INPUT`, `INVALID_FIELD`, `INVALID_BUDGET` for columns the core refuses.
 */
export function solveProblem(p: ProblemInput): ProblemResult {
  return solveProblemSizes(p, [p.budget])[0]!;
}

/**
 * Solves the problem at each of `budgets` (in place of `p.budget`) in one call: the core builds
 * the items, units and order once and walks them at each size (a session's cut weighs fifteen).
 *
 * @throws {CtxpackError} as {@link solveProblem}.
 */
export function solveProblemSizes(p: Omit<ProblemInput, 'budget'>, budgets: readonly number[]): ProblemResult[] {
  const [bytes, numbers] = call(
    () =>
      glue.solveProblem(
        p.strategy,
        Float64Array.from(budgets),
        p.sizes,
        p.values,
        p.units,
        p.positions,
        p.stubs?.items ?? EMPTY_U32,
        p.stubs?.sizes ?? EMPTY_U32,
        p.stubs?.values ?? EMPTY_F64,
        p.opensUser ?? EMPTY_U8,
        p.opensUser !== undefined,
        p.kept.tokens,
        p.kept.positions,
        p.kept.user,
      ) as [Uint8Array, Float64Array],
  );
  // Per budget 4n bytes and four numbers (src/wasm/problem.rs `packed`); the rows are views.
  const n = p.sizes.length;
  const out: ProblemResult[] = [];
  for (let k = 0; k < budgets.length; k++) {
    const at = 4 * n * k;
    const optimal = numbers[4 * k + 1]!;
    out.push({
      included: bytes.subarray(at, at + n),
      version: bytes.subarray(at + n, at + 2 * n),
      reasons: bytes.subarray(at + 2 * n, at + 3 * n),
      groupReasons: bytes.subarray(at + 3 * n, at + 4 * n),
      tokens: numbers[4 * k]!,
      optimal: optimal < 0 ? null : optimal === 1,
      firstSolves: numbers[4 * k + 2]!,
      unmet: numbers[4 * k + 3] === 1,
    });
  }
  return out;
}
