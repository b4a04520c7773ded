// A Cloudflare Worker that plans a context per request, as a deployed edge function would.
import { selectFragments, knapsackSlice, fitMessages, CtxpackError } from 'ctxpack';

export default {
  async fetch(request) {
    const body = await request.json();
    try {
      if (body.op === 'fit') {
        const r = fitMessages(body.messages, body.options);
        return Response.json({ messages: r.messages, decisions: r.decisions });
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
