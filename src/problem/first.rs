//! `'exact'` and `'knapsack'` under the rule on the first message.
//!
//! A selection keeps the rule exactly when its first unit `f` (in position
//! order) is a user unit, or when it selects nothing before a kept-for-sure
//! user message. So the optimum is the best, over those choices, of
//! `v(f) + OPT(units after f, budget − w(f))` (f in some option), and of
//! `OPT(units after the kept-for-sure message, budget)`:
//!
//! 1. The strategy solves without the rule over the units that can go in at
//!    all (not an assistant unit before every user unit). When that keeps
//!    the rule, it is the answer: the rule only removes selections.
//! 2. Otherwise each choice is a candidate with an upper bound (its value
//!    plus the fractional bound of the units after it, `bound.rs`, capped by
//!    step 1's value), the rule-keeping repair of step 1 (its leading
//!    assistant units dropped) is the first incumbent, and candidates are
//!    solved in order of their bounds, highest first, each by the strategy
//!    itself over its units with `f` forced in (its options lifted by more
//!    than every other class is worth together, so every answer that can
//!    hold `f` does), until a bound is no better than the incumbent.
//!
//! With `'exact'` this is the optimum under the rule when every solve was
//! exact and the search ended by its bounds, not by [`MAX_FIRST_SOLVES`];
//! otherwise (`optimal: false`) the best selection found, which keeps the
//! rule and fits. With `'knapsack'` the same search over bucketed solves:
//! the best of the bucketed optima it reached, which keeps the rule.

use super::bound::Bound;
use super::lead::Lead;
use crate::variants::classes::Class;
use crate::variants::mcknap;
use crate::variants::slice::solve;
use crate::{CtxpackError, ExclusionReason, GroupedStrategy, Solver};

/// The most candidate first units solved one by one; past it the best
/// selection found is returned, not proven optimal. Each solve is one run
/// of the strategy over at most every unit.
pub const MAX_FIRST_SOLVES: u32 = 64;

/// What the search returns.
pub(crate) struct FirstSolved {
    pub(crate) chosen: Vec<(usize, usize)>,
    /// The classes of the answer without the rule (step 1).
    pub(crate) root: Vec<usize>,
    pub(crate) reasons: Vec<ExclusionReason>,
    /// Every solve exact and the search complete.
    pub(crate) optimal: bool,
    /// Solves past step 1.
    pub(crate) solves: u32,
    /// No selection keeps the rule (a user unit must precede the first
    /// kept-for-sure message and none fits).
    pub(crate) unmet: bool,
}

/// The best selection so far: its value, its `(class, option)` pairs and
/// the reasons its solve gave.
type Incumbent = (i64, Vec<(usize, usize)>, Vec<ExclusionReason>);

/// A candidate first choice: `Some(f)`, or `None` for nothing before the
/// kept-for-sure user message; and its bound.
struct Candidate {
    first: Option<usize>,
    upper: f64,
}

/// Solves `strategy` over `classes` under `lead` with `target` tokens,
/// among the classes `alive`.
pub(crate) fn solve_first(
    strategy: &GroupedStrategy,
    classes: &mut [Class],
    lead: &Lead,
    alive: &[bool],
    target: i64,
) -> Result<FirstSolved, CtxpackError> {
    let c = classes.len();
    let exact = matches!(strategy, GroupedStrategy::Exact(_));
    let fresh = || vec![ExclusionReason::NotInOptimalSet; c];
    let pool: Vec<usize> = (0..c).filter(|&u| alive[u]).collect();
    let mut reasons = fresh();
    let (root, report) = solve(strategy, classes, &pool, target, &mut reasons)?;
    let mut optimal = !exact || report.is_some_and(|r| r.solver == Solver::Exact);
    let root_classes: Vec<usize> = root.iter().map(|&(u, _)| u).collect();
    if lead.holds(root_classes.iter().copied()) {
        return Ok(FirstSolved {
            chosen: root,
            root: root_classes,
            reasons,
            optimal,
            solves: 0,
            unmet: false,
        });
    }
    let cap = mcknap::value(classes, &root);
    let mut best: Option<Incumbent> = None;
    let mut repaired = root;
    if lead.repair(&mut repaired) {
        best = Some((mcknap::value(classes, &repaired), repaired, reasons));
    }

    let mut candidates = candidates(classes, lead, alive, target, bucket(strategy));
    crate::sort::sort_stable_by(&mut candidates, |a, b| {
        b.upper.total_cmp(&a.upper).then(
            a.first
                .map_or(usize::MAX, |f| f)
                .cmp(&b.first.map_or(usize::MAX, |f| f)),
        )
    });
    let mut solves = 0u32;
    for cand in candidates {
        // Values are integers: a candidate is worth at most its bound's floor
        // (a little above, for the bound's rounding).
        let upper = (cand.upper + 1e-9 * cand.upper.abs().max(1.0)).floor();
        #[allow(clippy::cast_precision_loss)]
        let limit = (cap as f64).min(upper);
        if best.as_ref().is_some_and(|(v, _, _)| {
            #[allow(clippy::cast_precision_loss)]
            let v = *v as f64;
            v >= limit
        }) || limit.is_infinite()
        {
            break;
        }
        if solves == MAX_FIRST_SOLVES {
            optimal = false;
            break;
        }
        solves += 1;
        let mut reasons = fresh();
        let (chosen, report) = match cand.first {
            None => {
                let after = lead.kept.map_or(u32::MAX, |(p, _)| p);
                let pool: Vec<usize> = (0..c)
                    .filter(|&u| alive[u] && lead.pos[u] > after)
                    .collect();
                solve(strategy, classes, &pool, target, &mut reasons)?
            }
            Some(f) => {
                let pool: Vec<usize> = std::iter::once(f)
                    .chain((f + 1..c).filter(|&u| alive[u]))
                    .collect();
                let chosen = forced(strategy, classes, &pool, target, &mut reasons)?;
                if !chosen.0.iter().any(|&(u, _)| u == f) {
                    continue; // f fits in no option
                }
                chosen
            }
        };
        if exact && report.map_or(true, |r| r.solver != Solver::Exact) {
            optimal = false;
        }
        let v = mcknap::value(classes, &chosen);
        if best.as_ref().map_or(true, |(b, _, _)| v > *b) {
            best = Some((v, chosen, reasons));
        }
    }
    Ok(match best {
        Some((_, chosen, reasons)) => FirstSolved {
            chosen,
            root: root_classes,
            reasons,
            optimal,
            solves,
            unmet: false,
        },
        None => FirstSolved {
            chosen: Vec::new(),
            root: root_classes,
            reasons: fresh(),
            optimal,
            solves,
            unmet: true,
        },
    })
}

/// The strategy over `pool` with its first class forced in when any of its
/// options fits: that class's values lifted by more than the rest of the
/// pool is worth, for the solve only.
fn forced(
    strategy: &GroupedStrategy,
    classes: &mut [Class],
    pool: &[usize],
    target: i64,
    reasons: &mut [ExclusionReason],
) -> Result<crate::variants::slice::Solved, CtxpackError> {
    let f = pool[0];
    let lift = pool[1..]
        .iter()
        .map(|&u| {
            classes[u]
                .options
                .iter()
                .map(|o| o.value)
                .max()
                .unwrap_or(0)
        })
        .fold(1i64, i64::saturating_add);
    for o in &mut classes[f].options {
        o.value = o.value.saturating_add(lift);
    }
    let out = solve(strategy, classes, pool, target, reasons);
    for o in &mut classes[f].options {
        o.value = o.value.saturating_sub(lift);
    }
    out
}

/// The token unit the strategy's solves count in: the knapsack's bucket
/// (sizes rounded up to it, the target down), 1 for the exact one. Bounds
/// in that unit hold for what the solves can reach, and are far tighter for
/// the knapsack than bounds over real tokens.
fn bucket(strategy: &GroupedStrategy) -> i64 {
    match strategy {
        GroupedStrategy::Knapsack(k) => k.bucket_size().max(1),
        _ => 1,
    }
}

/// The candidates with their bounds: every user unit (before the first
/// kept-for-sure message), and nothing-before-it when that message is a
/// user message (or nothing is kept: the empty selection).
fn candidates(
    classes: &[Class],
    lead: &Lead,
    alive: &[bool],
    target: i64,
    bucket: i64,
) -> Vec<Candidate> {
    let c = classes.len();
    let limit = lead.kept.map_or(u32::MAX, |(p, _)| p);
    let none_allowed = lead.needs_user_before().is_none();
    let weight = |t: i64| if t <= 0 { 0 } else { (t - 1) / bucket + 1 };
    let capacity = target / bucket;
    let mut bound = Bound::new(classes, weight);
    let mut out = Vec::new();
    let mut none_done = false;
    let none = |bound: &Bound| Candidate {
        first: None,
        upper: if lead.kept.is_some() {
            bound.upper(capacity)
        } else {
            0.0
        },
    };
    for u in (0..c).rev() {
        if !none_done && lead.pos[u] < limit {
            none_done = true;
            if none_allowed {
                out.push(none(&bound));
            }
        }
        if alive[u] && lead.user[u] && lead.pos[u] < limit {
            let upper = classes[u]
                .options
                .iter()
                .map(|o| {
                    #[allow(clippy::cast_precision_loss)]
                    let v = o.value as f64;
                    v + bound.upper(capacity - weight(o.tokens))
                })
                .fold(f64::NEG_INFINITY, f64::max);
            out.push(Candidate {
                first: Some(u),
                upper,
            });
        }
        if alive[u] {
            bound.insert(u);
        }
    }
    if !none_done && none_allowed {
        out.push(none(&bound));
    }
    out
}
