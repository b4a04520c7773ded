// A Vercel Edge Function that plans a context per request, as a deployed one would. The test
// bundles it with ./canonical.mjs, so that the plan is serialised inside the Edge runtime.
import { CtxpackError, init, isInitialized, selectFragments, wasmMemoryBytes } from 'ctxpack';
import { budgetCurve, knapsackSlice } from 'ctxpack/slicers';
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
  if (body.op === 'trap') {
    // A trap of the core (a billion budgets, the table limit raised), `times` times in a row.
    const codes = new Set();
    for (let i = 0; i < body.times; i++) {
      try {
        budgetCurve([{ id: 'a', tokens: 10, score: 1 }], 1e9, { slicer: 'knapsack', maxTableBytes: 2 ** 52 });
      } catch (err) {
        codes.add(err.code);
      }
    }
    return Response.json({ codes: [...codes] });
  }
  if (body.op === 'memory') {
    // A knapsack of about 48 MB of table (its instance is discarded when it returns), then a small call.
    const items = Array.from({ length: 2000 }, (_, i) => ({ id: `i${i}`, tokens: 50 + (i % 97), score: ((i * 7919) % 1000) / 1000 }));
    knapsackSlice(items, { targetTokens: 190_000 }, { bucketSize: 1 });
    const afterLarge = wasmMemoryBytes();
    knapsackSlice(items.slice(0, 3), { targetTokens: 100 }, { bucketSize: 1 });
    return Response.json({ afterLarge, bytes: wasmMemoryBytes() });
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
