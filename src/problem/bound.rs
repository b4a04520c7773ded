//! An upper bound on what classes can add under a capacity, cheap enough
//! to ask once per candidate first unit: the fractional knapsack over one
//! relaxed item per class, kept in a Fenwick tree over the classes' density
//! ranks so that classes are inserted one by one (walking from the last
//! position back) and each query is `O(log n)`.
//!
//! The relaxation: a class whose zero-token options are worth at most
//! `v0` and whose other options `(w, v)` satisfy `v − v0 ≤ d·w` and
//! `v ≤ vmax` is worth at most `v0 + min(vmax − v0, d·x)` with `x` tokens.
//! So any choice, one option per class, is worth at most `Σ v0` plus the
//! fractional knapsack of items `(vmax − v0) / d` tokens long, worth
//! `vmax − v0` each: what [`Bound::upper`] returns.

use crate::variants::classes::Class;

pub(crate) struct Bound {
    /// Per class: its rank (densest first), relaxed tokens and value, and
    /// the value it has at no tokens.
    rank: Vec<usize>,
    weight: Vec<f64>,
    value: Vec<f64>,
    free: Vec<f64>,
    /// Per rank, the inserted class's relaxed tokens and value (0 when
    /// none is inserted).
    at_w: Vec<f64>,
    at_v: Vec<f64>,
    /// Fenwick trees over the ranks (1-based).
    tree_w: Vec<f64>,
    tree_v: Vec<f64>,
    /// `Σ v0` of the inserted classes.
    base: f64,
}

impl Bound {
    /// The bound over no class yet, for `classes`' values (`Opt::value`,
    /// the knapsack's integers) and their tokens counted by `tokens_of` (the
    /// solver's unit: a bucketed knapsack's buckets).
    pub(crate) fn new(classes: &[Class], tokens_of: impl Fn(i64) -> i64) -> Self {
        let n = classes.len();
        let (mut weight, mut value, mut free, mut dens) =
            (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0f64; n]);
        for (c, class) in classes.iter().enumerate() {
            #[allow(clippy::cast_precision_loss)] // values and tokens far below 2^53
            let opts: Vec<(f64, f64)> = class
                .options
                .iter()
                .map(|o| (tokens_of(o.tokens.max(0)) as f64, o.value as f64))
                .collect();
            let v0 = opts
                .iter()
                .filter(|o| o.0 == 0.0)
                .fold(0.0f64, |a, o| a.max(o.1));
            let vmax = opts.iter().fold(v0, |a, o| a.max(o.1));
            let d = opts
                .iter()
                .filter(|o| o.0 > 0.0 && o.1 > v0)
                .fold(0.0f64, |a, o| a.max((o.1 - v0) / o.0));
            free[c] = v0;
            if d > 0.0 {
                value[c] = vmax - v0;
                weight[c] = value[c] / d;
                dens[c] = d;
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        crate::sort::sort_indexes_by(&mut order, |a, b| {
            dens[b].total_cmp(&dens[a]).then(a.cmp(&b))
        });
        let mut rank = vec![0; n];
        for (r, &c) in order.iter().enumerate() {
            rank[c] = r;
        }
        Bound {
            rank,
            weight,
            value,
            free,
            at_w: vec![0.0; n],
            at_v: vec![0.0; n],
            tree_w: vec![0.0; n + 1],
            tree_v: vec![0.0; n + 1],
            base: 0.0,
        }
    }

    /// Adds class `c` to the classes the bound is over.
    pub(crate) fn insert(&mut self, c: usize) {
        self.base += self.free[c];
        let r = self.rank[c];
        self.at_w[r] = self.weight[c];
        self.at_v[r] = self.value[c];
        let mut i = r + 1;
        while i < self.tree_w.len() {
            self.tree_w[i] += self.weight[c];
            self.tree_v[i] += self.value[c];
            i += i & i.wrapping_neg();
        }
    }

    /// At least the best value the inserted classes reach within
    /// `capacity` tokens, one option each (`-∞` below 0 tokens).
    pub(crate) fn upper(&self, capacity: i64) -> f64 {
        if capacity < 0 {
            return f64::NEG_INFINITY;
        }
        #[allow(clippy::cast_precision_loss)]
        let cap = capacity as f64;
        // The longest prefix of ranks whose tokens fit, by descent.
        let n = self.tree_w.len() - 1;
        let (mut pos, mut w, mut v) = (0usize, 0.0, 0.0);
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && w + self.tree_w[next] <= cap {
                pos = next;
                w += self.tree_w[next];
                v += self.tree_v[next];
            }
            step >>= 1;
        }
        // The next rank (0-based `pos`) is the break item: a part of it.
        if pos < n && self.at_w[pos] > 0.0 {
            v += (cap - w) / self.at_w[pos] * self.at_v[pos];
        }
        self.base + v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::classes::classes;
    use crate::{Groups, Item, Variants};

    #[test]
    fn the_bound_is_the_fractional_knapsack_of_what_was_inserted() {
        let items = [Item::new(10, 0.5), Item::new(20, 0.4), Item::new(0, 0.1)];
        let cs = classes(&Groups::new(3).units(), &items, &Variants::new(3), i64::MAX).unwrap();
        let mut b = Bound::new(&cs, |t| t);
        assert!(b.upper(100).abs() < 1e-9);
        b.insert(1);
        assert!((b.upper(10) - 2_000.0).abs() < 1e-6); // half of item 1
        b.insert(0);
        b.insert(2);
        assert!((b.upper(10) - 6_000.0).abs() < 1e-6); // item 0 and the free item 2
        assert!((b.upper(20) - 8_000.0).abs() < 1e-6);
        assert!(b.upper(-1).is_infinite());
    }
}
