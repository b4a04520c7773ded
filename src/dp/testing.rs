//! What the DP unit tests share (here and in the exact count-constrained
//! slice's): a seeded generator, the plain 0/1 loop, and the check of the
//! row update against it on random rows.

use super::blocks::Blocks;
use super::cell::Cell;
use super::row::update;

/// `SplitMix64`.
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

/// The plain loop: `dp[c] = max(dp[c], src[c − w] + v)` for descending
/// `c >= w`, `src` the row itself (read as it was before the update) or
/// `from`; the keep bit where strictly better.
pub(crate) fn plain<V: Cell>(dp: &[V], from: Option<&[V]>, w: usize, v: V) -> (Vec<V>, Vec<bool>) {
    let before = dp.to_vec();
    let src = from.unwrap_or(&before);
    let mut out = before.clone();
    let mut keep = vec![false; dp.len()];
    for c in (w..dp.len()).rev() {
        let with = src[c - w].plus(v);
        if with.beats(before[c]) {
            out[c] = with;
            keep[c] = true;
        }
    }
    (out, keep)
}

/// Runs `update` with `blocks` on random rows (lengths on and off
/// multiples of 16, weights from 0 to past the length) and compares values
/// and keep bits with the plain loop, in place and from another row.
pub(crate) fn check_rows<V: Cell + PartialEq + std::fmt::Debug>(
    name: &str,
    blocks: Option<Blocks<V>>,
    mut cell: impl FnMut(&mut Rng) -> V,
    mut gain: impl FnMut(&mut Rng) -> V,
) {
    let mut rng = Rng(0x524F_5753);
    for case in 0..2_000 {
        let len = match rng.below(3) {
            0 => rng.below(20),
            1 => 16 * (1 + rng.below(8)) + rng.below(3) - 1,
            _ => rng.below(300),
        };
        let w = match rng.below(3) {
            0 => rng.below(17),
            _ => rng.below(len + 2),
        };
        let v = gain(&mut rng);
        let dp: Vec<V> = (0..len).map(|_| cell(&mut rng)).collect();
        let from: Vec<V> = (0..len).map(|_| cell(&mut rng)).collect();
        for src in [None, Some(&from[..])] {
            if src.is_none() && w == 0 {
                continue; // in place needs w >= 1
            }
            let (want, want_keep) = plain(&dp, src, w, v);
            let mut got = dp.clone();
            let mut keep = vec![0u64; len.div_ceil(64)];
            update(blocks, &mut got, src, w, v, Some(&mut keep));
            let got_keep: Vec<bool> = (0..len)
                .map(|c| keep[c / 64] >> (c % 64) & 1 == 1)
                .collect();
            let form = if src.is_some() {
                "from a row"
            } else {
                "in place"
            };
            assert_eq!(got, want, "{name}, case {case}, {form}");
            assert_eq!(got_keep, want_keep, "{name}, case {case}, {form}: keep");
            let mut bare = dp.clone();
            update(blocks, &mut bare, src, w, v, None);
            assert_eq!(bare, want, "{name}, case {case}, {form}, no keep");
        }
    }
}
