// Canonical JSON (keys sorted at every level) of a plan without its timing, metrics.planner_ms:
// the form in which the plans of two runtimes are compared byte for byte. Plain ES, no imports, so
// the programs run in Deno and the Edge runtime use this same file.
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
  }
  return value;
}

export function canonicalJson(value) {
  return JSON.stringify(sorted(JSON.parse(JSON.stringify(value))));
}

export function canonicalPlan(plan) {
  const { planner_ms: _ms, ...metrics } = plan.metrics;
  return canonicalJson({ ...plan, metrics });
}
