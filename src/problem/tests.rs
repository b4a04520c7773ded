//! The problem against a brute force on small random histories: every
//! strategy keeps the rule on the first message, units whole and the
//! budget; `'exact'` reaches the optimum under the rule.

use super::*;
use crate::knapsack::scaled_value;
use proptest::prelude::*;

/// A small history: items in position order (positions `2i`, so that a
/// kept-for-sure message can sit between them at `2i + 1`).
#[derive(Debug, Clone)]
struct Case {
    budget: u64,
    sizes: Vec<u32>,
    values: Vec<f64>,
    units: Vec<u32>,
    user: Vec<bool>,
    stubs: Vec<Option<(u32, f64)>>,
    kept: Option<(u32, bool)>,
    kept_tokens: u64,
}

impl Case {
    fn problem(&self) -> Problem {
        let n = self.sizes.len();
        let positions = (0..n).map(|i| u32::try_from(2 * i).unwrap()).collect();
        let (mut si, mut ss, mut sv) = (Vec::new(), Vec::new(), Vec::new());
        for (i, s) in self.stubs.iter().enumerate() {
            if let Some((t, v)) = *s {
                si.push(u32::try_from(i).unwrap());
                ss.push(t);
                sv.push(v);
            }
        }
        let (kp, ku): (Vec<u32>, Vec<bool>) = self.kept.into_iter().unzip();
        Problem::new(
            self.budget,
            self.sizes.clone(),
            self.values.clone(),
            self.units.clone(),
        )
        .and_then(|p| p.with_positions(positions))
        .and_then(|p| p.with_stubs(&si, &ss, &sv))
        .and_then(|p| p.with_kept(self.kept_tokens, &kp, &ku))
        .and_then(|p| p.with_first_user(self.user.clone()))
        .unwrap()
    }

    fn room(&self) -> u64 {
        self.budget.saturating_sub(self.kept_tokens)
    }

    /// Whether a choice (per item: its version, or out) keeps the rule.
    fn holds(&self, version: &[Option<u8>]) -> bool {
        let first = version.iter().position(Option::is_some);
        let kept = self.kept.map(|(p, u)| (p as usize, u));
        match (first, kept) {
            (Some(i), Some((p, u))) if p < 2 * i => u,
            (Some(i), _) => self.user[self.units[i] as usize],
            (None, Some((_, u))) => u,
            (None, None) => true,
        }
    }

    fn size(&self, i: usize, v: u8) -> u64 {
        u64::from(if v == 0 {
            self.sizes[i]
        } else {
            self.stubs[i].unwrap().0
        })
    }

    fn worth(&self, i: usize, v: u8) -> i64 {
        let raw = if v == 0 {
            self.values[i]
        } else {
            self.stubs[i].unwrap().1
        };
        scaled_value(ProblemStrategy::Exact.score(raw))
    }

    /// The best value under the rule, units whole, within the room; `None`
    /// when no choice keeps the rule.
    fn brute(&self) -> Option<i64> {
        let n = self.sizes.len();
        if self.room() == 0 {
            // The slicers' specs: no budget selects nothing, zero-token items included.
            return self.holds(&vec![None; n]).then_some(0);
        }
        let mut best = None;
        let mut version = vec![None; n];
        // Each item: out, full, or its stub (when it has one).
        let mut counter = vec![0u8; n];
        loop {
            for i in 0..n {
                version[i] = match counter[i] {
                    0 => None,
                    k => Some(k - 1),
                };
            }
            let whole = (0..n).all(|i| {
                (0..n).all(|j| {
                    self.units[i] != self.units[j] || version[i].is_some() == version[j].is_some()
                })
            });
            let tokens: u64 = (0..n)
                .filter_map(|i| version[i].map(|v| self.size(i, v)))
                .sum();
            if whole && tokens <= self.room() && self.holds(&version) {
                let v: i64 = (0..n)
                    .filter_map(|i| version[i].map(|v| self.worth(i, v)))
                    .sum();
                best = Some(best.map_or(v, |b: i64| b.max(v)));
            }
            // The next choice.
            let mut i = 0;
            while i < n {
                let top = if self.stubs[i].is_some() { 2 } else { 1 };
                if counter[i] < top {
                    counter[i] += 1;
                    break;
                }
                counter[i] = 0;
                i += 1;
            }
            if i == n {
                return best;
            }
        }
    }
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=8).prop_flat_map(|n| {
        (
            0u64..=220,
            proptest::collection::vec(0u32..=60, n),
            proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0], n),
            proptest::collection::vec(0u32..u32::try_from(n).unwrap(), n),
            proptest::collection::vec(proptest::bool::weighted(0.35), n),
            proptest::collection::vec(
                proptest::option::weighted(0.3, (0u32..=10, 0.0f64..=1.0)),
                n,
            ),
            proptest::option::weighted(0.5, (0u32..=u32::try_from(n).unwrap(), any::<bool>())),
            0u64..=40,
        )
            .prop_map(
                |(budget, sizes, values, units, user, stubs, kept, kept_tokens)| Case {
                    // A stub is worth a part of its item, as with fitMessages.
                    stubs: stubs
                        .iter()
                        .zip(&values)
                        .map(|(s, &v)| s.map(|(t, f)| (t, v * f)))
                        .collect(),
                    budget,
                    sizes,
                    values,
                    units,
                    user,
                    kept: kept.map(|(k, u)| (2 * k + 1, u)),
                    kept_tokens,
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn every_strategy_keeps_the_rule_and_exact_reaches_the_optimum(c in case()) {
        let p = c.problem();
        let best = c.brute();
        for s in ProblemStrategy::ALL {
            let out = p.solve(s).unwrap();
            prop_assert_eq!(out.unmet, best.is_none(), "{}: unmet", s.name());
            if out.unmet {
                continue;
            }
            prop_assert!(c.holds(&out.version), "{}: the rule", s.name());
            let n = c.sizes.len();
            let tokens: u64 = (0..n).filter_map(|i| out.version[i].map(|v| c.size(i, v))).sum();
            prop_assert!(tokens <= c.room(), "{}: over budget", s.name());
            prop_assert_eq!(tokens, out.tokens);
            for i in 0..n {
                if out.reasons[i] == Reason::FirstNotUser {
                    // Only assistant units, and never one that went in.
                    prop_assert!(!out.included[i] && !c.user[c.units[i] as usize], "{}", s.name());
                }
                prop_assert_eq!(out.included[i], out.version[i].is_some());
                prop_assert_eq!(out.included[i], out.reasons[i].is_included());
                for j in 0..n {
                    if c.units[i] == c.units[j] {
                        prop_assert_eq!(out.included[i], out.included[j], "{}: unit split", s.name());
                    }
                }
            }
            if s == ProblemStrategy::Exact {
                let v: i64 = (0..n).filter_map(|i| out.version[i].map(|v| c.worth(i, v))).sum();
                prop_assert_eq!(out.optimal, Some(true));
                prop_assert_eq!(Some(v), best, "exact: the optimum");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// The units of dense labels are those of the groups of the same labels.
    #[test]
    fn units_of_ids_are_the_groups_of_the_labels(labels in proptest::collection::vec(0usize..12, 0..40)) {
        let ids = crate::Units::from_ids(labels.iter().copied(), 12);
        let groups = crate::Groups::from_labels(labels.iter().map(|&l| Some(l))).units();
        prop_assert_eq!(ids, groups);
    }

    /// One call at several sizes answers as a solve per size, with the rule
    /// on the first message and without it.
    #[test]
    fn solving_at_several_sizes_is_a_solve_per_size(
        c in case(),
        budgets in proptest::collection::vec(0u64..=240, 0..6),
        rule in any::<bool>(),
    ) {
        let mut p = c.problem();
        if !rule {
            p.first_user = false;
        }
        for s in ProblemStrategy::ALL {
            let many = p.solve_sizes(s, &budgets).unwrap();
            prop_assert_eq!(many.len(), budgets.len());
            for (out, &b) in many.iter().zip(&budgets) {
                let mut one = p.clone();
                one.budget = b;
                prop_assert_eq!(out, &one.solve(s).unwrap(), "{} at {}", s.name(), b);
            }
        }
    }
}

fn history(user: &[bool]) -> Vec<bool> {
    user.to_vec()
}

#[test]
fn the_walks_defer_an_assistant_unit_until_a_user_unit_before_it_goes_in() {
    // assistant 0 (the most valuable), user 1, assistant 2, user 3.
    let p = Problem::new(
        80,
        vec![30, 30, 30, 30],
        vec![0.9, 0.5, 0.8, 0.1],
        vec![0, 1, 2, 3],
    )
    .unwrap()
    .with_first_user(history(&[false, true, false, true]))
    .unwrap();
    // Ranked: 0 can never go in (no user unit before it); 2 is deferred, then
    // taken when 1 goes in; 3 does not fit.
    let out = p.solve(ProblemStrategy::Ranked).unwrap();
    assert_eq!(out.included, [false, true, true, false]);
    let codes: Vec<&str> = out.reasons.iter().map(|r| r.code()).collect();
    assert_eq!(
        codes,
        ["first_not_user", "scored", "scored", "budget_exceeded"]
    );
}

#[test]
fn a_kept_first_assistant_message_needs_a_user_unit_or_the_rule_is_unmet() {
    // Items at 0 (user), 1 (assistant); a kept assistant message at 5.
    let base = Problem::new(40, vec![30, 10], vec![0.1, 0.9], vec![0, 1])
        .unwrap()
        .with_first_user(vec![true, false])
        .unwrap();
    let p = base.clone().with_kept(0, &[5], &[false]).unwrap();
    for s in ProblemStrategy::ALL {
        let out = p.solve(s).unwrap();
        assert!(!out.unmet && out.included[0], "{}", s.name());
    }
    // The user unit does not fit: no request keeps the rule.
    let p = base.with_kept(20, &[5], &[false]).unwrap();
    for s in ProblemStrategy::ALL {
        assert!(p.solve(s).unwrap().unmet, "{}", s.name());
    }
}

#[test]
fn everything_that_can_go_in_fits_and_goes_in() {
    let p = Problem::new(
        1_000,
        vec![10, 20, 30, 40],
        vec![0.0, 0.0, 0.0, 0.0],
        vec![0, 1, 1, 2],
    )
    .unwrap()
    .with_first_user(vec![false, true, false])
    .unwrap();
    for s in ProblemStrategy::ALL {
        let out = p.solve(s).unwrap();
        assert_eq!(out.included, [false, true, true, true], "{}", s.name());
        assert_eq!(out.reasons[0], Reason::FirstNotUser);
    }
}

#[test]
fn without_the_rule_the_slicers_answer_as_they_do() {
    let p = Problem::new(50, vec![30, 30, 20], vec![0.9, 0.5, 0.6], vec![0, 1, 2]).unwrap();
    let ranked = p.solve(ProblemStrategy::Ranked).unwrap();
    assert_eq!(ranked.included, [true, false, true]);
    let exact = p.solve(ProblemStrategy::Exact).unwrap();
    assert_eq!(
        (exact.included.as_slice(), exact.optimal),
        (&[true, false, true][..], Some(true))
    );
}

#[test]
fn bad_columns_are_errors() {
    let err = Problem::new(10, vec![1], vec![0.5], vec![0])
        .unwrap()
        .with_positions(vec![1, 2])
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    let err = Problem::new(10, vec![1, 1], vec![0.5, 0.5], vec![0, 1])
        .unwrap()
        .with_positions(vec![3, 3])
        .unwrap_err();
    assert_eq!((err.field(), err.index()), (Some("positions"), Some(1)));
    let err = Problem::new(10, vec![1], vec![f64::NAN], vec![0]).unwrap_err();
    assert_eq!(err.field(), Some("values"));
    let p = Problem::new(10, vec![1], vec![0.5], vec![0]).unwrap();
    assert_eq!(
        p.clone()
            .with_stubs(&[0, 0], &[1, 1], &[0.1, 0.1])
            .unwrap_err()
            .field(),
        Some("stubs")
    );
    assert_eq!(
        p.clone()
            .with_stubs(&[0], &[1], &[2.0])
            .unwrap_err()
            .field(),
        Some("stubs.values")
    );
    assert_eq!(
        p.clone()
            .with_stubs(&[0], &[1], &[0.6])
            .unwrap_err()
            .field(),
        Some("stubs.values")
    );
    assert_eq!(
        p.clone().with_kept(1, &[0], &[true]).unwrap_err().field(),
        Some("kept")
    );
    assert_eq!(
        p.with_first_user(Vec::new()).unwrap_err().field(),
        Some("units")
    );
}
