// The plain JavaScript baselines of `make bench`: what a user would write without ctxpack.
//
// * greedySlice, knapsackSlice: greedy-slice.md and knapsack-slice.md written out directly over
//   fragment objects `{ cost_tokens, score }`, with typed arrays where a careful user would use
//   them (a Float64Array value row and a Uint8Array keep table, one byte per cell), and the
//   seeds' guard: tables over 50 M cells are refused, as the reference implementation (cupel)
//   refuses them.
// * acsSelectFragments: the ACS seed's planner (acs-planner.md, "Greedy Selection Algorithm")
//   exactly as it stands, type annotations removed. The seed leaves calculateMeanBenefit
//   undefined; it is the mean of calculateBenefit over the selection here.

/** Tables above this many cells are refused, as cupel (the specs' reference) refuses them. */
export const SEED_MAX_CELLS = 50_000_000;

/** GreedySlice: indexes in density order. */
export function greedySlice(items, targetTokens) {
  if (items.length === 0 || targetTokens <= 0) return [];
  const densities = items.map((item, index) => ({
    density: item.cost_tokens === 0 ? Number.MAX_VALUE : item.score / item.cost_tokens,
    index,
  }));
  densities.sort((a, b) => b.density - a.density || a.index - b.index);
  let remaining = targetTokens;
  const selected = [];
  for (const { index } of densities) {
    const tokens = items[index].cost_tokens;
    if (tokens === 0) {
      selected.push(index);
    } else if (tokens <= remaining) {
      selected.push(index);
      remaining -= tokens;
    }
  }
  return selected;
}

/** KnapsackSlice: zero-token indexes, then the DP's picks in reconstruction order. */
export function knapsackSlice(items, targetTokens, bucketSize = 100) {
  if (items.length === 0 || targetTokens <= 0) return [];
  const zeroTokenItems = [];
  const candidates = [];
  for (let i = 0; i < items.length; i++) {
    const tokens = items[i].cost_tokens;
    if (tokens === 0) zeroTokenItems.push(i);
    else if (tokens > 0) candidates.push(i);
  }
  if (candidates.length === 0) return zeroTokenItems;
  const n = candidates.length;
  const capacity = Math.floor(targetTokens / bucketSize);
  if (capacity === 0) return zeroTokenItems;
  if (n * capacity > SEED_MAX_CELLS) {
    throw new Error(`table too large: ${n} x ${capacity} = ${n * capacity} cells`);
  }
  const weights = new Int32Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const item = items[candidates[i]];
    weights[i] = Math.ceil(item.cost_tokens / bucketSize);
    values[i] = Math.max(0, Math.floor(item.score * 10000));
  }
  const stride = capacity + 1;
  const dp = new Float64Array(stride);
  const keep = new Uint8Array(n * stride);
  for (let i = 0; i < n; i++) {
    const dw = weights[i];
    const dv = values[i];
    const row = i * stride;
    for (let w = capacity; w >= dw; w--) {
      const withItem = dp[w - dw] + dv;
      if (withItem > dp[w]) {
        dp[w] = withItem;
        keep[row + w] = 1;
      }
    }
  }
  const selected = [];
  let remaining = capacity;
  for (let i = n - 1; i >= 0; i--) {
    if (keep[i * stride + remaining] === 1) {
      selected.push(candidates[i]);
      remaining -= weights[i];
    }
  }
  return zeroTokenItems.concat(selected);
}

// ---- acs-planner.md, as it stands ----

function calculateBenefit(fragment, gaze) {
  const α = 0.6; // Entity overlap weight
  const β = 0.3; // Recency weight
  const γ = 0.1; // Citation weight

  const entity_overlap = calculateEntityOverlap(fragment.entities, gaze.entities);
  const recency = calculateRecencyScore(fragment.timestamp);
  const citation_availability = fragment.citations.length > 0 ? 1.0 : 0.5;

  return α * entity_overlap + β * recency + γ * citation_availability;
}

function calculateScore(fragment, gaze) {
  const benefit = calculateBenefit(fragment, gaze);
  const cost = fragment.cost_tokens;
  return benefit / (1 + cost / 1000); // Normalized cost scaling
}

function calculateEntityOverlap(fragmentEntities, gazeEntities) {
  const intersection = fragmentEntities.filter((e) => gazeEntities.includes(e));
  return gazeEntities.length > 0 ? intersection.length / gazeEntities.length : 0;
}

function calculateRecencyScore(timestamp) {
  const ageHours = (Date.now() - timestamp.getTime()) / (1000 * 60 * 60);
  return Math.exp(-ageHours / (24 * 7)); // Exponential decay over weeks
}

export function acsSelectFragments(candidates, gaze, budgets) {
  // 1. Score all candidates
  const scoredCandidates = candidates
    .map((fragment) => ({
      fragment,
      score: calculateScore(fragment, gaze),
    }))
    .sort((a, b) => b.score - a.score);

  // 2. Apply tie-breaking rules
  const rankedCandidates = applyTieBreaking(scoredCandidates);

  // 3. Greedy selection under budget constraint
  const selected = [];
  let totalTokens = 0;

  for (const candidate of rankedCandidates) {
    if (totalTokens + candidate.fragment.cost_tokens <= budgets.tokens_max) {
      selected.push(candidate.fragment);
      totalTokens += candidate.fragment.cost_tokens;
    }
  }

  return {
    fragments: selected,
    metrics: {
      total_cost_tokens: totalTokens,
      mean_benefit: calculateMeanBenefit(selected, gaze),
    },
  };
}

function applyTieBreaking(candidates) {
  return candidates.sort((a, b) => {
    // Primary: score (already applied)
    if (Math.abs(a.score - b.score) > 0.001) return b.score - a.score;

    // Tie-break 1: Freshness
    const freshnessA = a.fragment.timestamp.getTime();
    const freshnessB = b.fragment.timestamp.getTime();
    if (freshnessA !== freshnessB) return freshnessB - freshnessA;

    // Tie-break 2: Citation confidence
    const citationsA = a.fragment.citations.length;
    const citationsB = b.fragment.citations.length;
    if (citationsA !== citationsB) return citationsB - citationsA;

    // Tie-break 3: Size (smaller first near budget boundary)
    const costA = a.fragment.cost_tokens;
    const costB = b.fragment.cost_tokens;
    if (costA !== costB) return costA - costB;

    // Tie-break 4: Deterministic fallback
    return a.fragment.id.localeCompare(b.fragment.id);
  });
}

/** Not defined by the seed: the mean benefit of the selection. */
function calculateMeanBenefit(selected, gaze) {
  if (selected.length === 0) return 0;
  let sum = 0;
  for (const f of selected) sum += calculateBenefit(f, gaze);
  return sum / selected.length;
}
