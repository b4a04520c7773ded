// A Cloudflare Worker that plans a context per request, as a deployed edge function would.
import { selectFragments, fitMessages, wasmMemoryBytes, CtxpackError } from 'ctxpack';
import { knapsackSlice, budgetCurve } from 'ctxpack/slicers';

export default {
  async fetch(request) {
    const body = await request.json();
    try {
      if (body.op === 'fit') {
        const r = fitMessages(body.messages, body.options);
        return Response.json({ messages: r.messages, decisions: r.decisions });
      }
      if (body.op === 'trap') {
        // A trap of the core (a billion budgets, the table limit raised), `times` times in a row.
        const codes = [];
        let message = '';
        for (let i = 0; i < body.times; i++) {
          try {
            budgetCurve([{ id: 'a', tokens: 10, score: 1 }], 1e9, { slicer: 'knapsack', maxTableBytes: 2 ** 52 });
          } catch (err) {
            codes.push(err.code);
            message = err.message;
          }
        }
        return Response.json({ codes: [...new Set(codes)], count: codes.length, message });
      }
      if (body.op === 'memory') {
        // A knapsack of about 48 MB of table (its instance is discarded when it returns), then a small call.
        const items = Array.from({ length: 2000 }, (_, i) => ({ id: `i${i}`, tokens: 50 + (i % 97), score: ((i * 7919) % 1000) / 1000 }));
        knapsackSlice(items, { targetTokens: 190_000 }, { bucketSize: 1 });
        const afterLarge = wasmMemoryBytes();
        knapsackSlice(items.slice(0, 3), { targetTokens: 100 }, { bucketSize: 1 });
        return Response.json({ afterLarge, bytes: wasmMemoryBytes() });
      }
      if (body.op === 'knapsack') {
        return Response.json(knapsackSlice(body.items, body.budget, body.options));
      }
      const plan = selectFragments(body.fragments, body.gaze, body.budgets, body.options);
      return Response.json({ ok: true, plan });
    } catch (err) {
      if (err instanceof CtxpackError) {
        return Response.json({ ok: false, code: err.code, field: err.field ?? null, index: err.index ?? null, message: err.message }, { status: 400 });
      }
      throw err;
    }
  },
};
