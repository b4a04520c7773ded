// A Vercel Edge Function that plans a context per request, as a deployed one would. The test
// bundles it with ./canonical.mjs, so that the plan is serialised inside the Edge runtime.
import { CtxpackError, init, isInitialized, selectFragments } from 'ctxpack';
import { canonicalPlan } from './canonical.mjs';

export const config = { runtime: 'edge' };

export default async function handler(request) {
  const body = await request.json();
  if (body.op === 'init') {
    const first = init();
    const second = init();
    await first;
    await init();
    return Response.json({ sameInitPromise: first === second, initialized: isInitialized() });
  }
  try {
    const plan = selectFragments(body.fragments, body.gaze, body.budgets, body.options);
    return Response.json({ ok: true, plan: canonicalPlan(plan) });
  } catch (err) {
    if (err instanceof CtxpackError) {
      return Response.json({ ok: false, name: err.name, code: err.code, field: err.field ?? null, index: err.index ?? null }, { status: 400 });
    }
    throw err;
  }
}
