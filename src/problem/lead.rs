//! The rule on the first message (Anthropic: a request starts with a user
//! message), over the units as classes: in position order, the first kept
//! message (kept for sure or selected) must open a unit that opens with a
//! user message.
//!
//! Equivalently, every selected unit that opens otherwise (an *assistant*
//! unit here) has a kept user-opening unit before it, and a kept-for-sure
//! first message that is not a user message has a selected user unit
//! before it. So user units can always go in; an assistant unit goes in
//! only behind an *anchor*: a selected user unit, or a kept-for-sure user
//! message, before it.

use super::input::KeptFirst;
use crate::Units;

/// The rule's view of the classes (one per unit, in position order).
#[derive(Debug, Clone)]
pub(crate) struct Lead {
    /// Per class: the position of its first item.
    pub(crate) pos: Vec<u32>,
    /// Per class: whether it opens with a user message.
    pub(crate) user: Vec<bool>,
    /// The first kept-for-sure message.
    pub(crate) kept: KeptFirst,
}

impl Lead {
    /// The rule over `units` (built over items in position order, so a
    /// class's first member is its earliest item).
    pub(crate) fn new(
        units: &Units,
        positions: &[u32],
        unit_ids: &[u32],
        opens_user: &[bool],
        kept: KeptFirst,
    ) -> Self {
        let first = |m: &Vec<usize>| m.first().copied().unwrap_or(0);
        Lead {
            pos: units
                .members()
                .iter()
                .map(|m| positions[first(m)])
                .collect(),
            user: units
                .members()
                .iter()
                .map(|m| opens_user[unit_ids[first(m)] as usize])
                .collect(),
            kept,
        }
    }

    /// The kept-for-sure anchor: the first kept message's position when it
    /// is a user message.
    fn kept_anchor(&self) -> u32 {
        match self.kept {
            Some((p, true)) => p,
            _ => u32::MAX,
        }
    }

    /// The position before which a user unit must be selected: the first
    /// kept-for-sure message's, when it is not a user message.
    pub(crate) fn needs_user_before(&self) -> Option<u32> {
        match self.kept {
            Some((p, false)) => Some(p),
            _ => None,
        }
    }

    /// Per class, whether it can go in at all: not an assistant unit with
    /// no user unit and no kept-for-sure user message before it.
    pub(crate) fn alive(&self) -> Vec<bool> {
        let first_user = (0..self.user.len())
            .find(|&u| self.user[u])
            .map_or(u32::MAX, |u| self.pos[u]);
        let anchor = first_user.min(self.kept_anchor());
        (0..self.user.len())
            .map(|c| self.user[c] || self.pos[c] > anchor)
            .collect()
    }

    /// Whether a selection of classes (any order) keeps the rule.
    pub(crate) fn holds(&self, chosen: impl IntoIterator<Item = usize>) -> bool {
        let earliest = chosen.into_iter().min_by_key(|&c| self.pos[c]);
        match (earliest, self.kept) {
            (Some(c), Some((p, user))) if p < self.pos[c] => user,
            (Some(c), _) => self.user[c],
            (None, Some((_, user))) => user,
            (None, None) => true,
        }
    }

    /// The position of the first kept message: selected (`chosen`) or kept
    /// for sure; `u32::MAX` when nothing is kept.
    pub(crate) fn first_kept(&self, chosen: impl IntoIterator<Item = usize>) -> u32 {
        let kept = self.kept.map_or(u32::MAX, |(p, _)| p);
        chosen.into_iter().map(|c| self.pos[c]).fold(kept, u32::min)
    }

    /// Drops from `chosen` the assistant units with no anchor before them
    /// (a selection made without the rule, made to keep it). Whether the
    /// rest keeps the rule (it does unless a user unit was needed before
    /// the first kept-for-sure message and none is left).
    pub(crate) fn repair(&self, chosen: &mut Vec<(usize, usize)>) -> bool {
        crate::sort::sort_stable_by(chosen, |a, b| self.pos[a.0].cmp(&self.pos[b.0]));
        let mut anchor = self.kept_anchor();
        chosen.retain(|&(c, _)| {
            if self.user[c] {
                anchor = anchor.min(self.pos[c]);
                true
            } else {
                anchor < self.pos[c]
            }
        });
        self.holds(chosen.iter().map(|&(c, _)| c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Groups;

    fn lead(user: &[bool], kept: KeptFirst) -> Lead {
        let n = user.len();
        let ids: Vec<u32> = (0..n).map(|i| u32::try_from(i).unwrap()).collect();
        let positions: Vec<u32> = ids.iter().map(|i| i * 2).collect();
        let units = Groups::new(n).units();
        Lead::new(&units, &positions, &ids, user, kept)
    }

    #[test]
    fn assistant_units_need_an_anchor_before_them() {
        // Positions 0, 2, 4, 6: assistant, user, assistant, user.
        let l = lead(&[false, true, false, true], None);
        assert_eq!(l.alive(), [false, true, true, true]);
        assert!(l.holds([1, 2]) && l.holds([3]) && l.holds([]));
        assert!(!l.holds([2, 3]));
        let mut chosen = vec![(2, 0), (3, 0), (0, 0)];
        assert!(l.repair(&mut chosen));
        assert_eq!(chosen, [(3, 0)]);
    }

    #[test]
    fn a_kept_first_message_anchors_or_needs_a_user_unit() {
        // A kept user message at position 3: the assistant unit at 4 may go in alone.
        let l = lead(&[false, true, false, true], Some((3, true)));
        assert!(l.holds([2]) && l.holds([]) && !l.holds([0]));
        assert_eq!(l.first_kept([2, 3]), 3);
        // A kept assistant message at 3: a user unit before it is needed.
        let l = lead(&[false, true, false, true], Some((3, false)));
        assert_eq!(l.needs_user_before(), Some(3));
        assert!(!l.holds([]) && !l.holds([2]) && l.holds([1, 2]));
        let mut chosen = vec![(2, 0)];
        assert!(!l.repair(&mut chosen));
    }
}
