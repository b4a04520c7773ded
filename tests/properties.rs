//! Property tests: invariants every slicer keeps on arbitrary input,
//! including negative token counts and finite scores outside `[0, 1]`.
//!
//! (i) the selection fits the target (the count-constrained knapsack may
//! overrun it only with phase 1 `required` items, and says so); (ii) one
//! decision per item, consistent with `selected`, no index twice; (iii)
//! determinism; (iv) negative-token items are excluded as such; (v) a
//! target of zero or less selects nothing; (vi) a NaN or infinite score is
//! refused with its index; (vii) count caps hold and requirements are met
//! when there are enough candidates; (viii) the totals are the sums over
//! `selected`.
#![cfg(not(target_arch = "wasm32"))] // native dev-dependencies (cupel, proptest)

use ctxpack_core::{
    Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, CtxpackError, Decision,
    ExclusionReason, GreedyPacker, GreedySlice, InclusionReason, Item, KnapsackSlice,
    ScarcityBehavior, Selection, Shortfall, Slicer,
};
use proptest::prelude::*;

/// Spellings of the kinds items and entries use; the families compare
/// equal case-insensitively. `"system"` is never an item's kind.
const FAMILIES: [&[&str]; 6] = [
    &["tool", "Tool", "TOOL"],
    &["msg", "Msg"],
    &["doc", "DOC"],
    &["memory", "Memory"],
    &["note"],
    &["system", "SYSTEM"],
];

const ITEM_KINDS: [&str; 12] = [
    "tool", "Tool", "TOOL", "msg", "Msg", "doc", "DOC", "memory", "Memory", "note", "", "other",
];

/// The slicer under test, with its configuration.
#[derive(Debug, Clone)]
enum Config {
    Greedy,
    Knapsack(i64),
    CountConstrained {
        entries: Vec<CountQuotaEntry>,
        bucket: i64,
        scarcity: ScarcityBehavior,
    },
    Packer(u32),
}

impl Config {
    fn build(&self) -> Box<dyn Slicer> {
        match self {
            Config::Greedy => Box::new(GreedySlice),
            Config::Knapsack(bucket) => Box::new(KnapsackSlice::new(*bucket).unwrap()),
            Config::CountConstrained {
                entries,
                bucket,
                scarcity,
            } => Box::new(
                CountConstrainedKnapsackSlice::new(
                    entries.clone(),
                    KnapsackSlice::new(*bucket).unwrap(),
                    *scarcity,
                )
                .unwrap(),
            ),
            Config::Packer(limit) => Box::new(GreedyPacker::new(*limit)),
        }
    }
}

fn tokens() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => Just(0i64),
        1 => -100i64..0,
        2 => 1i64..30,
        6 => 1i64..600,
    ]
}

fn finite_score() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0..=1.0f64,
        2 => (0u32..=100).prop_map(|k| f64::from(k) / 100.0),
        1 => Just(0.0f64),
        1 => -3.0..0.0f64,
        1 => 1.0..10.0f64,
        1 => -1e12..1e12f64,
    ]
}

fn items() -> impl Strategy<Value = Vec<Item<'static>>> {
    prop::collection::vec(
        (
            tokens(),
            finite_score(),
            prop::sample::select(&ITEM_KINDS[..]),
        ),
        0..30,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(t, s, k)| Item::new(t, s).with_kind(k))
            .collect()
    })
}

fn budget() -> impl Strategy<Value = Budget> {
    let target = prop_oneof![
        1 => -200i64..=0,
        2 => 1i64..200,
        4 => 1i64..3000,
    ];
    (target, prop_oneof![Just(0i64), 0i64..500])
        .prop_map(|(target, extra)| Budget::with_max(target, target + extra).unwrap())
}

/// Valid entries in random order: one per family at most (kinds are unique
/// case-insensitively), `require <= cap`, a cap of 0 only with no
/// requirement.
fn entries() -> impl Strategy<Value = Vec<CountQuotaEntry>> {
    prop::collection::vec((0..FAMILIES.len(), 0usize..3, 0usize..=3, 0usize..=3), 0..6).prop_map(
        |raw| {
            let mut seen = [false; FAMILIES.len()];
            let mut out = Vec::new();
            for (family, spelling, require, extra) in raw {
                if std::mem::replace(&mut seen[family], true) {
                    continue;
                }
                let kinds = FAMILIES[family];
                let cap = if require == 0 && extra == 3 {
                    0
                } else {
                    require.max(1) + extra
                };
                out.push(CountQuotaEntry::new(
                    kinds[spelling % kinds.len()],
                    require,
                    cap,
                ));
            }
            out
        },
    )
}

fn config() -> impl Strategy<Value = Config> {
    let bucket = prop::sample::select(vec![1i64, 3, 7, 50, 100]);
    prop_oneof![
        1 => Just(Config::Greedy),
        1 => bucket.clone().prop_map(Config::Knapsack),
        2 => (
            entries(),
            bucket,
            prop_oneof![Just(ScarcityBehavior::Degrade), Just(ScarcityBehavior::Throw)]
        )
            .prop_map(|(entries, bucket, scarcity)| Config::CountConstrained {
                entries,
                bucket,
                scarcity,
            }),
        1 => (0u32..6).prop_map(Config::Packer),
    ]
}

/// Non-negative-token items of `kind` (case-insensitively): phase 1's
/// candidates.
fn candidates<'a>(items: &'a [Item<'a>], kind: &'a str) -> impl Iterator<Item = usize> + 'a {
    (0..items.len())
        .filter(move |&i| items[i].tokens >= 0 && items[i].kind.eq_ignore_ascii_case(kind))
}

/// The shortfalls the spec records for these entries: every entry, in
/// entry order, with fewer candidates than it requires.
fn expected_shortfalls(items: &[Item<'_>], entries: &[CountQuotaEntry]) -> Vec<Shortfall> {
    entries
        .iter()
        .filter_map(|e| {
            let available = candidates(items, &e.kind).count();
            (available < e.require_count).then(|| Shortfall {
                kind: e.kind.clone(),
                required_count: e.require_count,
                satisfied_count: available,
            })
        })
        .collect()
}

#[allow(clippy::float_cmp)] // the score total must be the sum to the last bit
fn check(config: &Config, items: &[Item<'_>], budget: &Budget) -> Result<(), TestCaseError> {
    let slicer = config.build();
    let first = slicer.slice(items, budget);
    // (iii) Same input, same answer.
    prop_assert_eq!(&first, &slicer.slice(items, budget));
    let target = budget.target_tokens();
    let active = target > 0 && !items.is_empty();

    let s = match (first, config) {
        (Ok(s), _) => s,
        (
            Err(e),
            Config::CountConstrained {
                entries,
                scarcity: ScarcityBehavior::Throw,
                ..
            },
        ) => {
            // Throw fails on the first short entry, in entry order.
            prop_assert!(active);
            let short = expected_shortfalls(items, entries);
            prop_assert!(!short.is_empty());
            prop_assert_eq!(
                e,
                CtxpackError::CountRequirementShortfall {
                    index: entries
                        .iter()
                        .position(|en| en.kind == short[0].kind)
                        .unwrap_or(usize::MAX),
                    kind: short[0].kind.clone(),
                    satisfied: short[0].satisfied_count,
                    required: short[0].required_count,
                }
            );
            return Ok(());
        }
        (Err(e), _) => return Err(TestCaseError::fail(format!("unexpected error {e}"))),
    };

    // (ii) One decision per item, consistent with `selected`.
    prop_assert_eq!(s.decisions.len(), items.len());
    let mut in_selection = vec![false; items.len()];
    for &i in &s.selected {
        prop_assert!(i < items.len());
        prop_assert!(!in_selection[i], "index {} selected twice", i);
        in_selection[i] = true;
    }
    for (i, d) in s.decisions.iter().enumerate() {
        prop_assert_eq!(d.is_included(), in_selection[i], "item {}: {:?}", i, d);
        // (iv) Negative token counts are always excluded, as such.
        if items[i].tokens < 0 {
            prop_assert_eq!(*d, Decision::Excluded(ExclusionReason::NegativeTokens));
        }
        if *d == Decision::Included(InclusionReason::ZeroTokens) {
            prop_assert_eq!(items[i].tokens, 0);
        }
        if *d == Decision::Included(InclusionReason::Required) {
            let count_constrained = matches!(config, Config::CountConstrained { .. });
            prop_assert!(
                count_constrained,
                "item {} required outside the count slicer",
                i
            );
        }
    }

    // (viii) The totals are the sums over `selected` (scores in output
    // order).
    let tokens: i64 = s.selected.iter().map(|&i| items[i].tokens).sum();
    let score: f64 = s.selected.iter().map(|&i| items[i].score).sum();
    prop_assert_eq!(s.total_tokens, tokens);
    prop_assert_eq!(s.total_score, score);
    prop_assert_eq!(s.excluded_count(), items.len() - s.selected.len());

    // (v) A target of zero or less selects nothing.
    if target <= 0 {
        prop_assert!(s.selected.is_empty());
        prop_assert!(s.shortfalls.is_empty());
        prop_assert!(!s.over_budget && s.overrun_tokens == 0 && !s.budget_reached);
        for (i, d) in s.decisions.iter().enumerate() {
            if items[i].tokens >= 0 {
                prop_assert_eq!(*d, Decision::Excluded(ExclusionReason::NoBudget));
            }
        }
        return Ok(());
    }

    // (i) Within the target, except phase 1's required items.
    prop_assert_eq!(s.over_budget, s.total_tokens > target);
    prop_assert_eq!(s.overrun_tokens, (s.total_tokens - target).max(0));
    if let Config::CountConstrained {
        entries, scarcity, ..
    } = config
    {
        check_count_constrained(&s, items, target, entries, *scarcity)?;
    } else {
        prop_assert!(s.total_tokens <= target);
        prop_assert!(s.shortfalls.is_empty());
    }
    Ok(())
}

fn check_count_constrained(
    s: &Selection,
    items: &[Item<'_>],
    target: i64,
    entries: &[CountQuotaEntry],
    scarcity: ScarcityBehavior,
) -> Result<(), TestCaseError> {
    let required = |i: usize| s.decisions[i] == Decision::Included(InclusionReason::Required);
    let required_tokens: i64 = s
        .selected
        .iter()
        .filter(|&&i| required(i))
        .map(|&i| items[i].tokens)
        .sum();
    // Phase 2 and 3 items fit what phase 1 left of the target.
    prop_assert!(s.total_tokens - required_tokens <= (target - required_tokens).max(0));
    // The required items come first.
    let committed = s.selected.iter().take_while(|&&i| required(i)).count();
    prop_assert!(s.selected[committed..].iter().all(|&i| !required(i)));

    // (vii) Caps hold; requirements are met when candidates suffice, with
    // the best-scored candidates; shortfalls are exactly the short entries.
    for e in entries {
        let pool: Vec<usize> = candidates(items, &e.kind).collect();
        let chosen = pool
            .iter()
            .filter(|&&i| s.decisions[i].is_included())
            .count();
        prop_assert!(chosen <= e.cap_count, "kind {}: {} > cap", e.kind, chosen);
        let committed: Vec<usize> = pool.iter().copied().filter(|&i| required(i)).collect();
        prop_assert_eq!(committed.len(), e.require_count.min(pool.len()));
        let worst_committed = committed
            .iter()
            .map(|&i| items[i].score)
            .fold(f64::INFINITY, f64::min);
        for &i in &pool {
            if !required(i) {
                prop_assert!(
                    items[i].score <= worst_committed,
                    "kind {}: item {} beats a required one",
                    e.kind,
                    i
                );
            }
        }
    }
    for (i, it) in items.iter().enumerate() {
        if required(i) {
            prop_assert!(entries
                .iter()
                .any(|e| e.require_count > 0 && e.kind.eq_ignore_ascii_case(it.kind)));
        }
    }
    // The spec returns [] for no items before phase 1: no shortfall then.
    let short = if items.is_empty() {
        Vec::new()
    } else {
        expected_shortfalls(items, entries)
    };
    match scarcity {
        ScarcityBehavior::Degrade => prop_assert_eq!(&s.shortfalls, &short),
        ScarcityBehavior::Throw => prop_assert!(short.is_empty() && s.shortfalls.is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn invariants_hold(config in config(), items in items(), budget in budget()) {
        check(&config, &items, &budget)?;
    }

    /// (vi) A NaN or infinite score anywhere is refused, naming the first
    /// such item, whatever the slicer and the budget.
    #[test]
    fn non_finite_scores_are_refused(
        config in config(),
        items in items(),
        budget in budget(),
        bad in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY])),
            1..4,
        ),
    ) {
        let mut items = items;
        for (at, value) in &bad {
            let at = at.index(items.len() + 1);
            items.insert(at, Item::new(10, *value).with_kind("tool"));
        }
        let first = items.iter().position(|it| !it.score.is_finite()).unwrap();
        let err = config.build().slice(&items, &budget).unwrap_err();
        prop_assert_eq!(err.code(), "INVALID_SCORE");
        match err {
            CtxpackError::InvalidScore { index, value } => {
                prop_assert_eq!(index, first);
                prop_assert_eq!(value.to_bits(), items[first].score.to_bits());
            }
            other => prop_assert!(false, "{other:?}"),
        }
    }
}
