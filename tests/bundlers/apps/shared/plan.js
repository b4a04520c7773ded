// The plan every consumer makes: four fragments, a budget that fits only some of them. The
// expected ids are what plain Node plans (bundlers.test.mjs checks that first). No import of
// ctxpack here: each app hands over the module it got, by `import` or by `require`.

export const FRAGMENTS = [
  { id: 'sys', cost_tokens: 300, lod: 'macro', kind: 'system', entities: [], timestamp: 1_700_000_000_000 },
  { id: 'auth-doc', cost_tokens: 500, entities: ['auth', 'session'], timestamp: 1_700_000_000_000, citations: ['docs/auth.md'] },
  { id: 'billing-doc', cost_tokens: 600, entities: ['billing'], timestamp: 1_700_000_000_000 },
  { id: 'turn-1', cost_tokens: 150, entities: ['auth'], timestamp: 1_700_000_060_000 },
];
export const EXPECTED_IDS = ['auth-doc', 'turn-1', 'sys']; // rank order; billing-doc does not fit

/**
 * Plans with `ctxpack` (the package's module); `wasm` is what init() gets (by default nothing: the
 * package finds its .wasm itself). Returns the ids, or the error's name, code and message: what a
 * page puts on window.__ctxpack, a program prints and a route returns.
 */
export async function outcomeWith(ctxpack, wasm) {
  try {
    await ctxpack.init(wasm);
    const plan = ctxpack.selectFragments(FRAGMENTS, { entities: ['auth', 'session'] }, { tokens_max: 1000 }, { now: 1_700_000_120_000 });
    return { ok: true, ids: plan.fragments.map((f) => f.id) };
  } catch (err) {
    return { ok: false, name: err?.name, code: err?.code, message: String(err?.message ?? err) };
  }
}
