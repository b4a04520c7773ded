//! One instantiation of the standard library's stable sort for index
//! slices, shared by the slicers' cold sorts: each distinct comparator
//! closure would otherwise compile its own copy (several KB of wasm each).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub(crate) fn sort_indexes_by(v: &mut [usize], mut cmp: impl FnMut(usize, usize) -> Ordering) {
    sort_dyn(v, &mut |a: &usize, b: &usize| cmp(*a, *b));
}

#[inline(never)]
fn sort_dyn(v: &mut [usize], cmp: &mut dyn FnMut(&usize, &usize) -> Ordering) {
    v.sort_by(cmp);
}
