//! Constraints around any slicer: atomic groups and dependencies
//! ([`Groups`](crate::Groups)) turned into units (`groups.rs`; a unit as
//! an item, and what pinning items pulls in: `units.rs`), and the grouped
//! slice over those units (`group_slice.rs`: the strategies, the repair and
//! extend rounds, the expansion back to the items; `unit_walk.rs`: the walk
//! of greedy and the packer). The whole rule set, in
//! one place: `docs/groups.md`.

pub(crate) mod group_slice;
pub(crate) mod groups;
mod unit_walk;
pub(crate) mod units;
