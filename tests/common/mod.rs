//! Shared helpers of the differential and oracle tests: a small seeded
//! PRNG (`SplitMix64`) and generators for scores, token counts and budgets.
//!
//! No dependency: every instance is reproducible from its seed, which the
//! failing assertion prints.

#![allow(dead_code)] // each test binary uses a different subset

/// `SplitMix64` (Steele, Lea, Flood 2014): tiny, fast and good enough to
/// drive test-case generation.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`; distinct seeds give unrelated streams.
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B);
        rng.next_u64();
        rng
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        self.next_u64() % n
    }

    /// Uniform index in `0..n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        usize::try_from(self.below(n as u64)).expect("fits usize")
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "range({lo}, {hi})");
        let span = hi.abs_diff(lo) + 1;
        lo.wrapping_add_unsigned(self.below(span))
    }

    /// Uniform in `lo..=hi`, as usize.
    pub fn range_usize(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.index(hi - lo + 1)
    }

    /// `true` with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        let bits = self.next_u64() >> 11;
        // 2^53 and every value below it are exact in f64.
        #[allow(clippy::cast_precision_loss)]
        let x = bits as f64;
        x / 9_007_199_254_740_992.0
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.index(xs.len())]
    }
}

/// How the scores of one instance are drawn. Varying it per instance gives
/// some instances many exact ties and others none.
#[derive(Debug, Clone, Copy)]
pub enum ScoreMode {
    /// Uniform in `[0, 1)`, 53 bits: practically no ties.
    Continuous,
    /// Multiples of 0.01 in `[0, 1]` (the knapsack spec's conformance
    /// granularity).
    Hundredths,
    /// A handful of values: many exact ties.
    Palette,
    /// A mix of all of the above, plus exact 0 and 1.
    Mixed,
}

impl ScoreMode {
    /// A mode chosen at random.
    pub fn random(rng: &mut Rng) -> Self {
        match rng.below(4) {
            0 => ScoreMode::Continuous,
            1 => ScoreMode::Hundredths,
            2 => ScoreMode::Palette,
            _ => ScoreMode::Mixed,
        }
    }
}

/// A score in `[0, 1]` drawn according to `mode`.
pub fn score(rng: &mut Rng, mode: ScoreMode) -> f64 {
    const PALETTE: [f64; 6] = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0];
    match mode {
        ScoreMode::Continuous => rng.unit(),
        ScoreMode::Hundredths => hundredths(rng),
        ScoreMode::Palette => *rng.pick(&PALETTE),
        ScoreMode::Mixed => match rng.below(5) {
            0 => rng.unit(),
            1 => hundredths(rng),
            2 => *rng.pick(&PALETTE),
            3 => f64::from(u32::try_from(rng.below(10_001)).expect("small")) / 10_000.0,
            _ => {
                if rng.chance(1, 2) {
                    0.0
                } else {
                    1.0
                }
            }
        },
    }
}

fn hundredths(rng: &mut Rng) -> f64 {
    f64::from(u32::try_from(rng.below(101)).expect("small")) / 100.0
}

/// A non-negative token count up to `max`: about one in eight is zero,
/// and some are small so that many items fit.
pub fn tokens(rng: &mut Rng, max: i64) -> i64 {
    match rng.below(8) {
        0 => 0,
        1 | 2 => rng.range(1, 20.min(max.max(1))),
        _ => rng.range(1, max.max(1)),
    }
}

/// A budget target in `0..=4000`, often tight, sometimes tiny (below a
/// knapsack bucket) and sometimes zero.
pub fn target(rng: &mut Rng) -> i64 {
    match rng.below(10) {
        0 => 0,
        1 => rng.range(1, 120),
        2 | 3 => rng.range(0, 600),
        _ => rng.range(0, 4000),
    }
}
