// A Deno program using ctxpack as a Deno user does: the package installed from npm into
// node_modules, imported by its bare name (Deno 2 resolves it through package.json).
// Reads { cases, bad } as JSON on stdin; prints what it saw as JSON on stdout.
import { CtxpackError, init, isInitialized, selectFragments } from 'ctxpack';
import { canonicalPlan } from './canonical.mjs';

const { cases, bad } = JSON.parse(await new Response(Deno.stdin.readable).text());

const first = init();
const second = init();
await first;
await init();

const plans = cases.map((c) => canonicalPlan(selectFragments(c.fragments, c.gaze, c.budgets, c.options)));

const errors = bad.map((c) => {
  try {
    selectFragments(c.fragments, c.gaze, c.budgets, c.options);
    return { threw: false };
  } catch (e) {
    return { threw: true, isCtxpackError: e instanceof CtxpackError, name: e.name, code: e.code, field: e.field ?? null, index: e.index ?? null };
  }
});

// The module keeps working after refusing bad input.
const afterErrors = canonicalPlan(selectFragments(cases[0].fragments, cases[0].gaze, cases[0].budgets, cases[0].options));

console.log(JSON.stringify({
  deno: Deno.version.deno,
  resolved: import.meta.resolve('ctxpack'),
  sameInitPromise: first === second,
  initialized: isInitialized(),
  plans,
  errors,
  afterErrors,
}));
