//! The walks (`'greedy'`, `'ranked'`, `'packer'`) under the rule on the
//! first message, in one pass: each class, in the walk's order, takes its
//! best option that fits ([`best_option`], the walks' rule), except an
//! assistant unit that fits but has no anchor before it yet (a taken user
//! unit, or a kept-for-sure user message), which is *deferred*. When a user unit is
//! taken, the deferred units after it are reconsidered at once, in the
//! order they were deferred, each taken if it still fits. A deferred unit
//! that misses then is not a miss of the packer's skip limit: the walk had
//! reached it before.
//!
//! When the first kept-for-sure message is not a user message, a user unit
//! before it must go in: the first in the walk's order that fits the whole
//! room is taken before the walk starts; when none fits, nothing keeps the
//! rule (`unmet`).

use super::lead::Lead;
use crate::variants::classes::Class;
use crate::variants::walk::best_option;
use crate::ExclusionReason;

/// What a walk returns: the chosen `(class, option)` in the order taken,
/// the units the rule held back (deferred, never taken), and whether the
/// rule could not be kept.
pub(crate) struct Walked {
    pub(crate) chosen: Vec<(usize, usize)>,
    pub(crate) held: Vec<usize>,
    pub(crate) unmet: bool,
}

/// Walks the classes of `order` with `target` tokens under the rule,
/// stopping after `skip_limit` consecutive misses (`None` or 0: never); sets
/// `reasons` of the classes that miss. Two walks answer and the one that
/// keeps the higher score wins (ties: [`rounds_walk`]): [`rounds_walk`]
/// keeps what the walk keeps when only a few units would open the request
/// (agent histories, where the anchor is often a low-ranked user message),
/// [`deferral_walk`] when many would (long user messages that never fit
/// before short answers).
pub(crate) fn lead_walk(
    classes: &[Class],
    order: &[usize],
    target: i64,
    skip_limit: Option<u32>,
    lead: &Lead,
    reasons: &mut [ExclusionReason],
) -> Walked {
    let mut r1 = reasons.to_vec();
    let a = rounds_walk(classes, order, target, skip_limit, lead, &mut r1);
    let mut r2 = reasons.to_vec();
    let b = deferral_walk(classes, order, target, skip_limit, lead, &mut r2);
    let score = |w: &Walked| -> f64 {
        w.chosen
            .iter()
            .map(|&(c, k)| classes[c].options[k].score)
            .sum()
    };
    let b_wins = match (a.unmet, b.unmet) {
        (true, false) => true,
        (false, true) => false,
        _ => score(&b).total_cmp(&score(&a)).is_gt(),
    };
    if b_wins {
        reasons.copy_from_slice(&r2);
        b
    } else {
        reasons.copy_from_slice(&r1);
        a
    }
}

/// Rounds of [`rounds_walk`] before what still opens the request is dropped.
const ROUNDS: usize = 8;

/// The walk without the rule; then again without the assistant units that
/// would open the request (no anchor before them), at most [`ROUNDS`]
/// times, so that the budget they took goes to others; what still opens the
/// request after the last round is dropped. Its first round is the walk's
/// own answer, kept whole when it keeps the rule.
fn rounds_walk(
    classes: &[Class],
    order: &[usize],
    target: i64,
    skip_limit: Option<u32>,
    lead: &Lead,
    reasons: &mut [ExclusionReason],
) -> Walked {
    let n = classes.len();
    let mut out = vec![false; n];
    let mut held: Vec<usize> = Vec::new();
    let limit = skip_limit.unwrap_or(0);
    let kept_anchor = match lead.kept {
        Some((p, true)) => p,
        _ => u32::MAX,
    };
    let mut round = 0;
    loop {
        let mut r = reasons.to_vec();
        let mut taken = vec![false; n];
        let mut chosen: Vec<(usize, usize)> = Vec::new();
        let mut left = target;
        if let Some(before) = lead.needs_user_before() {
            let first = order.iter().copied().find(|&c| {
                !out[c]
                    && lead.user[c]
                    && lead.pos[c] < before
                    && best_option(&classes[c], left).is_some()
            });
            let Some(c) = first else {
                return Walked {
                    chosen: Vec::new(),
                    held: Vec::new(),
                    unmet: true,
                };
            };
            if let Some(k) = best_option(&classes[c], left) {
                left -= classes[c].options[k].tokens;
                taken[c] = true;
                chosen.push((c, k));
            }
        }
        let mut misses = 0u32;
        for (step, &c) in order.iter().enumerate() {
            if out[c] || taken[c] {
                continue;
            }
            if let Some(k) = best_option(&classes[c], left) {
                left -= classes[c].options[k].tokens;
                taken[c] = true;
                chosen.push((c, k));
                misses = 0;
                continue;
            }
            r[c] = ExclusionReason::BudgetExceeded;
            misses += 1;
            if limit > 0 && misses >= limit {
                for &rest in &order[step + 1..] {
                    if !taken[rest] && !out[rest] {
                        r[rest] = ExclusionReason::SkipLimitReached;
                    }
                }
                break;
            }
        }
        let anchor = chosen
            .iter()
            .filter(|&&(c, _)| lead.user[c])
            .map(|&(c, _)| lead.pos[c])
            .fold(kept_anchor, u32::min);
        let leading: Vec<usize> = chosen
            .iter()
            .filter(|&&(c, _)| !lead.user[c] && lead.pos[c] < anchor)
            .map(|&(c, _)| c)
            .collect();
        if leading.is_empty() || round == ROUNDS {
            chosen.retain(|&(c, _)| lead.user[c] || lead.pos[c] > anchor);
            held.extend(leading);
            reasons.copy_from_slice(&r);
            return Walked {
                chosen,
                held,
                unmet: false,
            };
        }
        for c in leading {
            out[c] = true;
            held.push(c);
        }
        round += 1;
    }
}

/// Walks the classes of `order` with `target` tokens, stopping after
/// `skip_limit` consecutive misses (`None` or 0: never); sets `reasons` of
/// the classes that miss.
fn deferral_walk(
    classes: &[Class],
    order: &[usize],
    target: i64,
    skip_limit: Option<u32>,
    lead: &Lead,
    reasons: &mut [ExclusionReason],
) -> Walked {
    let mut w = Walk {
        classes,
        lead,
        left: target,
        anchor: match lead.kept {
            Some((p, true)) => p,
            _ => u32::MAX,
        },
        taken: vec![false; classes.len()],
        chosen: Vec::new(),
        deferred: Vec::new(),
    };
    if let Some(before) = lead.needs_user_before() {
        let first = order.iter().copied().find(|&c| {
            lead.user[c] && lead.pos[c] < before && best_option(&classes[c], w.left).is_some()
        });
        match first {
            Some(c) => {
                w.try_take(c, reasons);
            }
            None => {
                return Walked {
                    chosen: Vec::new(),
                    held: Vec::new(),
                    unmet: true,
                }
            }
        }
    }
    let limit = skip_limit.unwrap_or(0);
    let mut misses = 0u32;
    for (step, &c) in order.iter().enumerate() {
        if w.taken[c] {
            continue;
        }
        // A unit that does not fit now never will (what is left only
        // shrinks): a miss, whatever the rule says.
        let fits = best_option(&classes[c], w.left).is_some();
        if fits && !lead.user[c] && w.anchor > lead.pos[c] {
            w.deferred.push(c);
            continue;
        }
        if w.try_take(c, reasons) {
            misses = 0;
            continue;
        }
        misses += 1;
        if limit > 0 && misses >= limit {
            for &rest in &order[step + 1..] {
                if !w.taken[rest] {
                    reasons[rest] = ExclusionReason::SkipLimitReached;
                }
            }
            break;
        }
    }
    Walked {
        chosen: w.chosen,
        held: w.deferred,
        unmet: false,
    }
}

struct Walk<'a> {
    classes: &'a [Class],
    lead: &'a Lead,
    left: i64,
    /// The earliest anchor's position (`u32::MAX`: none yet).
    anchor: u32,
    taken: Vec<bool>,
    chosen: Vec<(usize, usize)>,
    /// Assistant units reached before any anchor preceded them, in order.
    deferred: Vec<usize>,
}

impl Walk<'_> {
    /// Takes class `c`'s best option that fits, if any (else its reason is
    /// `budget_exceeded`); a user unit taken before the anchor moves it and
    /// brings back the deferred units it now precedes.
    fn try_take(&mut self, c: usize, reasons: &mut [ExclusionReason]) -> bool {
        let Some(k) = best_option(&self.classes[c], self.left) else {
            reasons[c] = ExclusionReason::BudgetExceeded;
            return false;
        };
        self.left -= self.classes[c].options[k].tokens;
        self.taken[c] = true;
        self.chosen.push((c, k));
        let pos = self.lead.pos[c];
        if self.lead.user[c] && pos < self.anchor {
            self.anchor = pos;
            let (back, still): (Vec<usize>, Vec<usize>) =
                self.deferred.iter().partition(|&&d| self.lead.pos[d] > pos);
            self.deferred = still;
            for d in back {
                // Assistant units: they do not move the anchor.
                self.try_take(d, reasons);
            }
        }
        true
    }
}
