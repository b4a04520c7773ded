//! The expanding-core search of [`ExactKnapsackSlice`](crate::ExactKnapsackSlice),
//! after Pisinger's minknap: the break item, the core growing around it, the
//! dominance- and bound-pruned state lists and the rebuild of the optimum
//! (the algorithm is described on the slice).

use std::cmp::Ordering;

/// A candidate: tokens, scaled value, index in the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cand {
    pub(crate) w: i64,
    pub(crate) p: i64,
    pub(crate) idx: usize,
}

/// Efficiency order: `p / w` descending (exact, by cross-multiplication),
/// then input index ascending, so that the order is total.
fn by_efficiency(a: &Cand, b: &Cand) -> Ordering {
    (i128::from(b.p) * i128::from(a.w))
        .cmp(&(i128::from(a.p) * i128::from(b.w)))
        .then(a.idx.cmp(&b.idx))
}

/// One DP state: tokens and value of the break solution modified on the
/// core items, this epoch's decisions (bit `k`: the `k`-th core item of the
/// epoch flipped), and its history node.
#[derive(Debug, Clone, Copy)]
struct State {
    w: i64,
    p: i64,
    bits: u64,
    hist: u32,
}

/// A history node: the decision word of one epoch and the node of the
/// epoch before.
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    bits: u64,
}

/// No history node (the first epoch).
const ROOT: u32 = u32::MAX;

/// A step's change to a state.
#[derive(Debug, Clone, Copy)]
struct Shift {
    w: i64,
    p: i64,
    bit: u64,
}

/// What the bounds of a step look at: the next item on each side, and the
/// most tokens a state may have and still shed its excess.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    right: Option<Cand>,
    left: Option<Cand>,
    over_limit: i64,
}

/// The incumbent: how to rebuild it.
#[derive(Debug, Clone, Copy)]
struct Incumbent {
    hist: u32,
    bits: u64,
    steps: usize,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_states: usize,
    pub(crate) max_work: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Abort {
    States,
    Work,
}

#[derive(Debug)]
pub(crate) struct Stopped {
    pub(crate) abort: Abort,
    pub(crate) work: u64,
    pub(crate) peak_states: usize,
}

#[derive(Debug)]
pub(crate) struct Solved {
    /// Input indexes of the optimal set (unordered).
    pub(crate) chosen: Vec<usize>,
    pub(crate) work: u64,
    pub(crate) peak_states: usize,
}

/// The search. Positions are indexes into `its`, which is permuted into
/// efficiency order as the core reaches each interval.
pub(crate) struct Minknap {
    its: Vec<Cand>,
    c: i64,
    /// The break item's position.
    b: usize,
    /// Tokens and value of the break solution (every position before `b`).
    wbar: i64,
    pbar: i64,
    /// Unsorted intervals `[from, to)` left and right of the sorted part,
    /// nearest to `b` on top.
    left_stack: Vec<(usize, usize)>,
    right_stack: Vec<(usize, usize)>,
    /// Right items still to process: `right_next..right_end`, in order.
    right_next: usize,
    right_end: usize,
    /// Left items still to process: `left_low..left_high`, from the top.
    left_low: usize,
    left_high: usize,
    /// Tokens the left items not yet processed (nor fixed) could shed.
    removable: i64,
    z: i64,
    incumbent: Incumbent,
    states: Vec<State>,
    spare: Vec<State>,
    arena: Vec<Node>,
    /// The position processed at each step.
    order: Vec<usize>,
    steps: usize,
    work: u64,
    peak_states: usize,
    limits: Limits,
}

impl Minknap {
    /// Solves the instance. Preconditions: every `w` in `1..=c`, every `p`
    /// positive, the weights sum above `c`, `c <= 2^60`, the values sum to
    /// at most 2^62.
    pub(crate) fn solve(its: Vec<Cand>, c: i64, limits: Limits) -> Result<Solved, Stopped> {
        let mut m = Minknap {
            its,
            c,
            b: 0,
            wbar: 0,
            pbar: 0,
            left_stack: Vec::new(),
            right_stack: Vec::new(),
            right_next: 0,
            right_end: 0,
            left_low: 0,
            left_high: 0,
            removable: 0,
            z: 0,
            incumbent: Incumbent {
                hist: ROOT,
                bits: 0,
                steps: 0,
            },
            states: Vec::new(),
            spare: Vec::new(),
            arena: Vec::new(),
            order: Vec::new(),
            steps: 0,
            work: 0,
            peak_states: 1,
            limits,
        };
        m.find_break();
        m.removable = m.wbar;
        m.z = m.pbar;
        m.states.push(State {
            w: m.wbar,
            p: m.pbar,
            bits: 0,
            hist: ROOT,
        });
        let stopped = |m: &Minknap, abort| Stopped {
            abort,
            work: m.work,
            peak_states: m.peak_states,
        };
        while !m.states.is_empty() {
            let mut progressed = false;
            if let Some(pos) = m.take_right() {
                m.step(pos, true).map_err(|a| stopped(&m, a))?;
                progressed = true;
            }
            if m.states.is_empty() {
                break;
            }
            if let Some(pos) = m.take_left() {
                m.step(pos, false).map_err(|a| stopped(&m, a))?;
                progressed = true;
            }
            if !progressed {
                break;
            }
        }
        Ok(Solved {
            chosen: m.rebuild(),
            work: m.work,
            peak_states: m.peak_states,
        })
    }

    /// Partitions `its` around the break item (quickselect on efficiency
    /// with a deterministic pseudo-random pivot), pushing the intervals it
    /// leaves on the stacks, and sorts the final small interval.
    fn find_break(&mut self) {
        let c = self.c;
        let (mut f, mut l) = (0usize, self.its.len());
        let mut ws: i64 = 0; // tokens of every position before f
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        loop {
            if l - f <= 16 {
                self.its[f..l].sort_unstable_by(by_efficiency);
                let mut b = f;
                while b + 1 < l && ws + self.its[b].w <= c {
                    ws += self.its[b].w;
                    b += 1;
                }
                self.b = b;
                self.left_low = f;
                self.left_high = b;
                self.right_next = b;
                self.right_end = l;
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pick = f + usize::try_from(seed % (l - f) as u64).unwrap_or(0);
            self.its.swap(pick, l - 1);
            let pivot = self.its[l - 1];
            let mut m = f;
            let mut wh: i64 = 0;
            for i in f..l - 1 {
                if by_efficiency(&self.its[i], &pivot) == Ordering::Less {
                    wh = wh.saturating_add(self.its[i].w);
                    self.its.swap(i, m);
                    m += 1;
                }
            }
            self.its.swap(m, l - 1);
            // Invariant: ws <= c < ws + (tokens of f..l). `wh` saturates;
            // every sum compared below is at most 2c once it passes.
            if ws.saturating_add(wh) > c {
                self.right_stack.push((m, l));
                l = m;
            } else if ws + wh + pivot.w > c {
                if f < m {
                    self.left_stack.push((f, m));
                }
                if m + 1 < l {
                    self.right_stack.push((m + 1, l));
                }
                self.b = m;
                self.left_low = m;
                self.left_high = m;
                self.right_next = m;
                self.right_end = m + 1;
                break;
            } else {
                ws += wh + pivot.w;
                self.left_stack.push((f, m + 1));
                f = m + 1;
            }
        }
        for it in &self.its[..self.b] {
            self.wbar += it.w;
            self.pbar += it.p;
        }
    }

    /// `floor(pbar ± p_j + (c − wbar ∓ w_j) · p_b / w_b) <= z`: forcing the
    /// item's flip cannot beat the incumbent. `sign` is +1 for a right item
    /// (forced in), −1 for a left item (forced out).
    fn cannot_improve(&self, j: usize, sign: i128) -> bool {
        let it = self.its[j];
        let brk = self.its[self.b];
        let profit = i128::from(self.pbar) + sign * i128::from(it.p) - i128::from(self.z) - 1;
        let slack = i128::from(self.c) - i128::from(self.wbar) - sign * i128::from(it.w);
        profit * i128::from(brk.w) + slack * i128::from(brk.p) < 0
    }

    /// The next right item, reducing and sorting the next interval when the
    /// current one is used up.
    fn peek_right(&mut self) -> Option<usize> {
        while self.right_next == self.right_end {
            let (from, to) = self.right_stack.pop()?;
            let mut keep = from;
            for j in from..to {
                if !self.cannot_improve(j, 1) {
                    self.its.swap(j, keep);
                    keep += 1;
                }
            }
            self.its[from..keep].sort_unstable_by(by_efficiency);
            self.right_next = from;
            self.right_end = keep;
        }
        Some(self.right_next)
    }

    fn take_right(&mut self) -> Option<usize> {
        let pos = self.peek_right()?;
        self.right_next += 1;
        Some(pos)
    }

    /// The next left item (the least efficient one left), reducing and
    /// sorting the next interval when the current one is used up.
    fn peek_left(&mut self) -> Option<usize> {
        while self.left_high == self.left_low {
            let (from, to) = self.left_stack.pop()?;
            let mut keep = to;
            for j in (from..to).rev() {
                if self.cannot_improve(j, -1) {
                    self.removable -= self.its[j].w; // fixed in: never shed
                } else {
                    keep -= 1;
                    self.its.swap(j, keep);
                }
            }
            self.its[keep..to].sort_unstable_by(by_efficiency);
            self.left_low = keep;
            self.left_high = to;
        }
        Some(self.left_high - 1)
    }

    fn take_left(&mut self) -> Option<usize> {
        let pos = self.peek_left()?;
        self.left_high -= 1;
        Some(pos)
    }

    /// One core step: the item at `pos` is added (right) or removed (left)
    /// in a copy of every state; the two lists merge with dominance and
    /// bound pruning.
    fn step(&mut self, pos: usize, add: bool) -> Result<(), Abort> {
        let slot = self.steps % 64;
        if slot == 0 && self.steps > 0 {
            self.new_epoch()?;
        }
        let item = self.its[pos];
        if !add {
            self.removable -= item.w;
        }
        self.order.push(pos);
        let shift = if add {
            Shift {
                w: item.w,
                p: item.p,
                bit: 1 << slot,
            }
        } else {
            Shift {
                w: -item.w,
                p: -item.p,
                bit: 1 << slot,
            }
        };
        let bounds = Bounds {
            right: self.peek_right().map(|j| self.its[j]),
            left: self.peek_left().map(|j| self.its[j]),
            over_limit: self.c.saturating_add(self.removable),
        };
        let old = std::mem::take(&mut self.states);
        let mut out = std::mem::take(&mut self.spare);
        self.merge(&old, shift, &bounds, &mut out);
        self.steps += 1;
        self.work = self.work.saturating_add(2 * old.len() as u64);
        self.peak_states = self.peak_states.max(out.len());
        self.spare = old;
        self.states = out;
        if self.states.len() > self.limits.max_states {
            return Err(Abort::States);
        }
        if self.work > self.limits.max_work {
            return Err(Abort::Work);
        }
        Ok(())
    }

    /// Moves every state's decision word into the history.
    fn new_epoch(&mut self) -> Result<(), Abort> {
        if self.arena.len() + self.states.len() >= ROOT as usize {
            return Err(Abort::Work);
        }
        for s in &mut self.states {
            self.arena.push(Node {
                parent: s.hist,
                bits: s.bits,
            });
            s.hist = u32::try_from(self.arena.len() - 1).unwrap_or(ROOT);
            s.bits = 0;
        }
        Ok(())
    }

    /// Merges `old` with its copy shifted by `shift` into `out`, in token
    /// order, keeping only undominated states whose bound can beat the
    /// incumbent, and updating the incumbent.
    fn merge(&mut self, old: &[State], shift: Shift, bounds: &Bounds, out: &mut Vec<State>) {
        out.clear();
        let len = old.len();
        let (mut i, mut j) = (0, 0);
        let mut last_p = i64::MIN;
        while i < len || j < len {
            let take_old = j == len
                || (i < len
                    && (old[i].w < old[j].w + shift.w
                        || (old[i].w == old[j].w + shift.w && old[i].p >= old[j].p + shift.p)));
            let s = if take_old {
                i += 1;
                old[i - 1]
            } else {
                j += 1;
                State {
                    w: old[j - 1].w + shift.w,
                    p: old[j - 1].p + shift.p,
                    bits: old[j - 1].bits | shift.bit,
                    hist: old[j - 1].hist,
                }
            };
            if s.p <= last_p {
                continue; // dominated
            }
            last_p = s.p;
            if s.w <= self.c && s.p > self.z {
                self.z = s.p;
                self.incumbent = Incumbent {
                    hist: s.hist,
                    bits: s.bits,
                    steps: self.steps + 1,
                };
            }
            if !self.hopeless(s, bounds) {
                out.push(s);
            }
        }
    }

    /// Whether the state's upper bound cannot beat the incumbent.
    fn hopeless(&self, s: State, bounds: &Bounds) -> bool {
        let gap = i128::from(s.p) - i128::from(self.z) - 1;
        if s.w <= self.c {
            // floor(p + (c − w) · p_r / w_r) <= z
            match bounds.right {
                Some(r) => gap * i128::from(r.w) + i128::from(self.c - s.w) * i128::from(r.p) < 0,
                None => gap < 0,
            }
        } else if s.w > bounds.over_limit {
            true // cannot shed enough
        } else {
            // floor(p − (w − c) · p_l / w_l) <= z
            match bounds.left {
                Some(l) => gap * i128::from(l.w) - i128::from(s.w - self.c) * i128::from(l.p) < 0,
                None => true,
            }
        }
    }

    /// The incumbent's input indexes: the break solution with the
    /// incumbent's recorded flips applied.
    fn rebuild(&self) -> Vec<usize> {
        let mut take = vec![false; self.its.len()];
        take[..self.b].fill(true);
        let inc = self.incumbent;
        if inc.steps > 0 {
            let mut epoch = (inc.steps - 1) / 64;
            let mut bits = inc.bits;
            let mut hist = inc.hist;
            loop {
                let mut word = bits;
                while word != 0 {
                    let k = word.trailing_zeros() as usize;
                    word &= word - 1;
                    let pos = self.order[epoch * 64 + k];
                    take[pos] = !take[pos];
                }
                if epoch == 0 || hist == ROOT {
                    break;
                }
                epoch -= 1;
                let node = self.arena[hist as usize];
                bits = node.bits;
                hist = node.parent;
            }
        }
        let chosen: Vec<usize> = (0..self.its.len())
            .filter(|&p| take[p])
            .map(|p| self.its[p].idx)
            .collect();
        debug_assert_eq!(
            (0..self.its.len())
                .filter(|&p| take[p])
                .map(|p| self.its[p].p)
                .sum::<i64>(),
            self.z
        );
        chosen
    }
}
