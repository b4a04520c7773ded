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

/// Sorts `v` stably by `cmp` through [`sort_indexes_by`]: the standard
/// sort is not compiled again for `T` (only this small permutation is).
pub(crate) fn sort_stable_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    sort_indexes_by(&mut idx, |a, b| cmp(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    *v = idx.into_iter().filter_map(|i| slots[i].take()).collect();
}
