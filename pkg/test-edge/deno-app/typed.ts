// Type-checked (not run) by `deno check` in deno.test.mjs: a Deno user's TypeScript gets the
// package's declarations through the same bare import.
import { CtxpackError, init, selectFragments, type CtxpackErrorCode, type SelectionResult } from 'ctxpack';

interface Doc {
  id: string;
  cost_tokens: number;
  title: string;
}
const docs: Doc[] = [{ id: 'a', cost_tokens: 3, title: 'kept' }];

await init();
const plan: SelectionResult<Doc> = selectFragments(docs, { entities: [] }, { tokens_max: 100 });
export const title: string = plan.fragments[0]!.title;
export const code = (e: unknown): CtxpackErrorCode | null => (e instanceof CtxpackError ? e.code : null);
// @ts-expect-error unknown slicer
selectFragments(docs, { entities: [] }, { tokens_max: 1 }, { slicer: 'fast' });
// @ts-expect-error budgets are checked
selectFragments(docs, { entities: [] }, { tokens_max: '100' });
