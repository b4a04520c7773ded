//! Atomic groups and dependencies: the constraints ([`Groups`]) and the
//! units they make ([`Units`]).
//!
//! Items that must go in together become one *unit* (one item for the
//! slicers), a slicer selects among the units, and the answer is expanded
//! back to the items ([`Units::slice`], in `group_slice.rs`). This file
//! builds the constraints and forms the units; `units.rs` is what a unit
//! is as an item (its tokens, score and value).
//!
//! * **Units.** Items sharing a group form one unit; with
//!   [`DependencyMode::Require`], so do items that depend on each other (a
//!   cycle of dependencies: none can go in without the others). A unit's
//!   tokens are its members' sum. Its score is what the strategy needs to
//!   treat the unit as the sum of its members ([`UnitScore`]): for greedy
//!   and the packer the sum of the members' scores (greedy orders by the
//!   unit's total score per token; the packer places the unit at its first
//!   member), for the knapsack strategies a score whose scaled value
//!   `max(0, floor(score × 10000))` is exactly the sum of the members'
//!   scaled values (the knapsack's value is per item, so the plain sum of
//!   scores could round differently). So with groups alone, `knapsack`,
//!   `exact` and `exact-count` are optimal over the grouped problem, exactly.
//! * **Dependencies** ([`DependencyMode::Require`]): an item goes in only
//!   with every item it depends on (transitively). See
//!   [`Units::slice`] for how each strategy honours them.

use std::collections::HashMap;
use std::hash::Hash;

pub use super::units::{UnitScore, Units};
use crate::{CtxpackError, ErrorReason};

/// How the dependencies of a [`Groups`] are treated.
///
/// ```
/// use ctxpack_core::DependencyMode;
/// assert_eq!(DependencyMode::default(), DependencyMode::Ignore);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DependencyMode {
    /// Dependencies are validated, then ignored: only groups constrain.
    #[default]
    Ignore,
    /// An item goes in only with every item it depends on, transitively;
    /// items that depend on each other form one unit.
    Require,
}

/// The constraints over a list of items: which items go in together
/// (groups) and which items need which (dependencies), by index.
///
/// Build it for the items' count ([`Groups::new`]) or from one optional
/// label per item ([`Groups::from_labels`]), add groups and dependencies,
/// choose a [`DependencyMode`], then slice with [`Groups::slice`] (or build
/// the [`Units`] once with [`Groups::units`]). Indexes are checked as they
/// are added: a bad one is [`CtxpackError::InvalidField`] naming the field
/// and the item.
///
/// ```
/// use ctxpack_core::{Budget, DependencyMode, Groups, GroupedStrategy, Item};
/// let items = [
///     Item::new(50, 0.9).with_kind("tool_call"),
///     Item::new(400, 0.1).with_kind("tool_result"),
///     Item::new(100, 0.3),
///     Item::new(20, 0.8), // a question about the tool's answer
/// ];
/// let groups = Groups::from_labels([Some("t1"), Some("t1"), None, None])
///     .depends_on(3, [0])?
///     .with_mode(DependencyMode::Require);
/// let s = groups.slice(&GroupedStrategy::Greedy, &items, &Budget::new(200))?;
/// assert_eq!(s.selection.selected, [2]); // call and result do not fit together
/// let codes: Vec<_> = s.selection.decisions.iter().map(|d| d.code()).collect();
/// assert_eq!(codes, ["group_excluded", "budget_exceeded", "scored", "dependency_excluded"]);
/// assert_eq!(s.group_reasons[0].map(|r| ctxpack_core::Decision::Excluded(r).code()), Some("budget_exceeded"));
/// # Ok::<(), ctxpack_core::CtxpackError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Groups {
    len: usize,
    /// Pairs of items that go in together.
    joins: Vec<(usize, usize)>,
    /// Dependency edges `(item, the item it needs)`.
    edges: Vec<(usize, usize)>,
    mode: DependencyMode,
}

impl Groups {
    /// No constraints over `len` items (every item is its own unit) and
    /// [`DependencyMode::Ignore`].
    ///
    /// ```
    /// use ctxpack_core::Groups;
    /// let units = Groups::new(3).units();
    /// assert_eq!((units.len(), units.is_grouped()), (3, false));
    /// ```
    pub const fn new(len: usize) -> Self {
        Groups {
            len,
            joins: Vec::new(),
            edges: Vec::new(),
            mode: DependencyMode::Ignore,
        }
    }

    /// One optional group label per item (any `Eq + Hash` key: `&str`,
    /// `String`, numbers): items with equal labels go in together; `None`
    /// is no group.
    ///
    /// ```
    /// use ctxpack_core::Groups;
    /// let units = Groups::from_labels([Some(7), None, Some(7), Some(8)]).units();
    /// assert_eq!(units.members(), [vec![0, 2], vec![1], vec![3]]);
    /// ```
    pub fn from_labels<K, I>(labels: I) -> Self
    where
        K: Eq + Hash,
        I: IntoIterator<Item = Option<K>>,
    {
        let mut first: HashMap<K, usize> = HashMap::new();
        let mut groups = Groups::new(0);
        for (i, label) in labels.into_iter().enumerate() {
            groups.len = i + 1;
            if let Some(label) = label {
                let f = *first.entry(label).or_insert(i);
                if f != i {
                    groups.joins.push((f, i));
                }
            }
        }
        groups
    }

    /// The same constraints with `members` in one group (joined with any
    /// group a member is already in).
    ///
    /// # Errors
    /// [`CtxpackError::InvalidField`] (field `group`, the index) for an
    /// index out of range.
    ///
    /// ```
    /// use ctxpack_core::Groups;
    /// let units = Groups::new(4).group([3, 1])?.units();
    /// assert_eq!(units.unit_of(), [0, 1, 2, 1]);
    /// let err = Groups::new(4).group([1, 4]).unwrap_err();
    /// assert_eq!((err.code(), err.field(), err.index()), ("INVALID_FIELD", Some("group"), Some(4)));
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn group(mut self, members: impl IntoIterator<Item = usize>) -> Result<Self, CtxpackError> {
        let mut first = None;
        for i in members {
            if i >= self.len {
                return Err(CtxpackError::InvalidField {
                    field: "group".into(),
                    index: Some(i),
                    reason: ErrorReason::OutOfRange { len: self.len },
                });
            }
            match first {
                None => first = Some(i),
                Some(f) if f != i => self.joins.push((f, i)),
                Some(_) => {}
            }
        }
        Ok(self)
    }

    /// The same constraints with item `item` depending on the items `on`
    /// (it goes in only with them under [`DependencyMode::Require`]).
    /// Repeated dependencies are harmless.
    ///
    /// # Errors
    /// [`CtxpackError::InvalidField`] naming the item: field `dependencies`
    /// when `item` is out of range, `dependencies[k]` when the `k`-th index
    /// of `on` is out of range or is `item` itself.
    ///
    /// ```
    /// use ctxpack_core::Groups;
    /// let g = Groups::new(3).depends_on(2, [0, 1])?;
    /// let err = g.clone().depends_on(1, [0, 1]).unwrap_err();
    /// assert_eq!((err.field(), err.index()), (Some("dependencies[1]"), Some(1)));
    /// assert_eq!(err.to_string(), "items[1].dependencies[1] must be the index of another item, got 1 (the item itself)");
    /// assert_eq!(g.depends_on(0, [3]).unwrap_err().code(), "INVALID_FIELD");
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn depends_on(
        self,
        item: usize,
        on: impl IntoIterator<Item = usize>,
    ) -> Result<Self, CtxpackError> {
        self.depends_on_at(item, on.into_iter().enumerate())
    }

    /// [`depends_on`](Self::depends_on) with each index of `on` at the
    /// position `k` the caller's list has it (errors name
    /// `dependencies[k]`): for a caller whose list also holds entries that
    /// name no item, which it leaves out.
    ///
    /// # Errors
    /// As [`depends_on`](Self::depends_on), naming each index by its given
    /// position.
    ///
    /// ```
    /// use ctxpack_core::Groups;
    /// // The caller's list: [an id outside the call, item 0, item 1 itself].
    /// let err = Groups::new(2).depends_on_at(1, [(1, 0), (2, 1)]).unwrap_err();
    /// assert_eq!((err.field(), err.index()), (Some("dependencies[2]"), Some(1)));
    /// ```
    pub fn depends_on_at(
        mut self,
        item: usize,
        on: impl IntoIterator<Item = (usize, usize)>,
    ) -> Result<Self, CtxpackError> {
        if item >= self.len {
            return Err(CtxpackError::InvalidField {
                field: "dependencies".into(),
                index: Some(item),
                reason: ErrorReason::OutOfRange { len: self.len },
            });
        }
        for (k, j) in on {
            if j == item {
                return Err(CtxpackError::SelfDependency {
                    index: item,
                    dependency: k,
                    field: format!("dependencies[{k}]"),
                });
            }
            if j >= self.len {
                return Err(CtxpackError::InvalidField {
                    field: format!("dependencies[{k}]"),
                    index: Some(item),
                    reason: ErrorReason::IndexOfAnother {
                        got: j,
                        len: self.len,
                    },
                });
            }
            self.edges.push((item, j));
        }
        Ok(self)
    }

    /// The same constraints with dependencies treated as `mode`.
    ///
    /// ```
    /// use ctxpack_core::{DependencyMode, Groups};
    /// let g = Groups::new(2).with_mode(DependencyMode::Require);
    /// assert_eq!((g.mode(), g.len(), g.is_empty()), (DependencyMode::Require, 2, false));
    /// ```
    #[must_use]
    pub const fn with_mode(mut self, mode: DependencyMode) -> Self {
        self.mode = mode;
        self
    }

    /// How dependencies are treated.
    pub const fn mode(&self) -> DependencyMode {
        self.mode
    }

    /// The number of items described.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether no item is described.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The units: union-find over the groups, then, under
    /// [`DependencyMode::Require`], the strongly connected components of
    /// the dependency graph over the grouped items merged into one unit
    /// (iterative Tarjan: no recursion, whatever the input). What remains
    /// of the dependencies is a DAG over the units ([`Units::needs`]).
    ///
    /// ```
    /// use ctxpack_core::{DependencyMode, Groups};
    /// // 0 and 2 need each other; 1 needs 2.
    /// let g = Groups::new(3).depends_on(0, [2])?.depends_on(2, [0])?.depends_on(1, [2])?;
    /// assert_eq!(g.units().len(), 3); // ignored: no merging
    /// let units = g.with_mode(DependencyMode::Require).units();
    /// assert_eq!(units.members(), [vec![0, 2], vec![1]]);
    /// assert_eq!(units.needs(), [vec![], vec![0]]);
    /// # Ok::<(), ctxpack_core::CtxpackError>(())
    /// ```
    pub fn units(&self) -> Units {
        let n = self.len;
        let mut sets = Sets::new(n);
        for &(a, b) in &self.joins {
            sets.union(a, b);
        }
        let require = self.mode == DependencyMode::Require && !self.edges.is_empty();
        if require {
            // Cycles over the grouped graph must go in together too.
            let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
            for &(a, b) in &self.edges {
                let (ra, rb) = (sets.find(a), sets.find(b));
                if ra != rb {
                    out[ra].push(rb);
                }
            }
            for (a, b) in components(&out) {
                sets.union(a, b);
            }
        }
        let mut unit_of = vec![0; n];
        // Indexed by root (an item): no hashing on the hot path.
        let mut unit_of_root = vec![usize::MAX; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (i, slot) in unit_of.iter_mut().enumerate() {
            let root = sets.find(i);
            if unit_of_root[root] == usize::MAX {
                unit_of_root[root] = members.len();
                members.push(Vec::new());
            }
            let u = unit_of_root[root];
            members[u].push(i);
            *slot = u;
        }
        let mut needs: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
        if require {
            for &(a, b) in &self.edges {
                let (ua, ub) = (unit_of[a], unit_of[b]);
                if ua != ub {
                    needs[ua].push(ub);
                }
            }
            for ns in &mut needs {
                ns.sort_unstable();
                ns.dedup();
            }
        }
        Units {
            unit_of,
            members,
            needs,
            mode: self.mode,
        }
    }
}

/// Union-find with path halving; the smaller root wins.
struct Sets {
    parent: Vec<usize>,
}

impl Sets {
    fn new(n: usize) -> Self {
        Sets {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}

/// The strongly connected components of the graph `out` (iterative
/// Tarjan): pairs `(a, b)` of nodes of one component, enough to union
/// every component.
fn components(out: &[Vec<usize>]) -> Vec<(usize, usize)> {
    const UNSEEN: usize = usize::MAX;
    let n = out.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut work: Vec<(usize, usize)> = Vec::new();
    let mut pairs = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        work.push((root, 0));
        while let Some(frame) = work.last_mut() {
            let (v, e) = *frame;
            if e == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = out[v].get(e) {
                frame.1 = e + 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    if w == v {
                        break;
                    }
                    pairs.push((v, w));
                }
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_of_a_long_chain_and_a_long_cycle_use_no_recursion() {
        let n = 200_000;
        let chain: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        assert!(components(&chain).is_empty());
        let cycle: Vec<Vec<usize>> = (0..n).map(|i| vec![(i + 1) % n]).collect();
        assert_eq!(components(&cycle).len(), n - 1);
    }
}
