//! The exact multiple-choice knapsack: an expanding core around the LP
//! break class, after Pisinger's mcknap ("A minimal algorithm for the
//! multiple-choice knapsack problem", EJOR 83, 1995). Pruned by dominance
//! and by the Lagrangian bound of the LP's break slope; past its guards
//! the bucketed DP answers. The argument: `docs/variants.md`.

use super::classes::Class;
use super::mckp::{self, Row};
use crate::exact::fallback_bucket;
use crate::{
    CtxpackError, ExactKnapsackSlice, ExactReport, ExclusionReason, FallbackReason, Solver,
};

/// Largest target the exact search takes (state sums stay far from
/// overflow).
const MAX_CAPACITY: i64 = 1 << 60;
/// Largest sum of the classes' best values the exact search takes.
const MAX_VALUE_SUM: i64 = 1 << 62;

/// A class's points: the base (index 0, weight and value 0) and its
/// undominated versions, weights and values strictly increasing.
struct Points {
    w: Vec<i64>,
    v: Vec<i64>,
    /// The class's option at each point after the base.
    option: Vec<usize>,
}

#[derive(Clone, Copy)]
struct State {
    dw: i64,
    dv: i64,
    node: u32,
}

const ROOT: u32 = u32::MAX;

/// Solves the multiple-choice knapsack over `pool`'s classes at token
/// precision: the chosen `(class, option)` in `pool` order and the report.
///
/// # Errors
/// The fallback's [`CtxpackError::TableTooLarge`].
pub(crate) fn solve(
    classes: &[Class],
    pool: &[usize],
    target: i64,
    config: &ExactKnapsackSlice,
    reasons: &mut [ExclusionReason],
) -> Result<(Vec<(usize, usize)>, ExactReport), CtxpackError> {
    let rows = mckp::rows(classes, pool, target, |t| t, reasons);
    let points: Vec<Points> = rows.iter().map(points).collect();
    let best_sum = points
        .iter()
        .map(|p| i128::from(*p.v.last().unwrap_or(&0)))
        .sum::<i128>();
    let outcome = if target > MAX_CAPACITY || best_sum > i128::from(MAX_VALUE_SUM) {
        Err((FallbackReason::ValueRange, 0, 0))
    } else {
        Search::run(&points, target, config)
    };
    match outcome {
        Ok((choice, work, peak)) => {
            let chosen = answer(&rows, &points, &choice);
            let mut report = ExactReport::new(Solver::Exact, value(classes, &chosen));
            report.work = work;
            report.peak_states = peak;
            Ok((chosen, report))
        }
        Err((reason, work, peak)) => {
            let version_rows: usize = rows.iter().map(|r| r.versions.len()).sum();
            let bucket_size = fallback_bucket(
                version_rows as u64,
                target,
                config.max_table_bytes(),
                config.max_work(),
            );
            let chosen = mckp::solve(
                classes,
                pool,
                target,
                bucket_size,
                config.max_table_bytes(),
                reasons,
            )?;
            let mut report = ExactReport::new(
                Solver::BucketedFallback {
                    bucket_size,
                    reason,
                },
                value(classes, &chosen),
            );
            report.work = work;
            report.peak_states = peak;
            Ok((chosen, report))
        }
    }
}

/// The total scaled value of a choice, saturating.
pub(crate) fn value(classes: &[Class], chosen: &[(usize, usize)]) -> i64 {
    chosen.iter().fold(0i64, |acc, &(c, k)| {
        acc.saturating_add(classes[c].options[k].value)
    })
}

/// A row's points: the base, then the versions pruned to strictly
/// increasing values in weight order.
fn points(row: &Row) -> Points {
    let mut vs = row.versions.clone();
    crate::sort::sort_stable_by(&mut vs, |a, b| {
        a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2))
    });
    let mut p = Points {
        w: vec![0],
        v: vec![0],
        option: Vec::new(),
    };
    for (w, v, k) in vs {
        if v > *p.v.last().unwrap_or(&0) {
            p.w.push(w);
            p.v.push(v);
            p.option.push(k);
        }
    }
    p
}

/// Maps a point per row back to the classes' options, in pool order.
fn answer(rows: &[Row], points: &[Points], choice: &[usize]) -> Vec<(usize, usize)> {
    rows.iter()
        .zip(points)
        .zip(choice)
        .filter_map(|((r, p), &j)| {
            let option = if j == 0 {
                r.base.map(|(k, _)| k)
            } else {
                Some(p.option[j - 1])
            };
            option.map(|k| (r.class, k))
        })
        .collect()
}

/// The search's working state.
struct Search<'a> {
    points: &'a [Points],
    capacity: i64,
    /// The break solution: a point per row, its weight and value.
    lp: Vec<usize>,
    w0: i64,
    v0: i64,
    /// The break slope `lambda_v / lambda_w`.
    lambda_v: i128,
    lambda_w: i128,
    /// Nodes: (parent, row, point).
    nodes: Vec<(u32, u32, u32)>,
    best: i64,
    best_at: Option<u32>,
    best_start: Vec<usize>,
}

type Found = (Vec<usize>, u64, usize);
type Stop = (FallbackReason, u64, usize);

impl<'a> Search<'a> {
    fn run(
        points: &'a [Points],
        capacity: i64,
        config: &ExactKnapsackSlice,
    ) -> Result<Found, Stop> {
        // The LP: every row's upper hull, its segments by slope.
        let mut segs: Vec<(i64, i64, usize, usize, usize)> = Vec::new(); // dw, dv, row, from, to
        for (r, p) in points.iter().enumerate() {
            let mut hull: Vec<usize> = vec![0];
            for j in 1..p.w.len() {
                while hull.len() >= 2 {
                    let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
                    let cross = i128::from(p.w[b] - p.w[a]) * i128::from(p.v[j] - p.v[a])
                        - i128::from(p.v[b] - p.v[a]) * i128::from(p.w[j] - p.w[a]);
                    if cross >= 0 {
                        hull.pop();
                    } else {
                        break;
                    }
                }
                hull.push(j);
            }
            for h in hull.windows(2) {
                segs.push((p.w[h[1]] - p.w[h[0]], p.v[h[1]] - p.v[h[0]], r, h[0], h[1]));
            }
        }
        crate::sort::sort_stable_by(&mut segs, |a, b| {
            (i128::from(b.1) * i128::from(a.0))
                .cmp(&(i128::from(a.1) * i128::from(b.0)))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        let mut lp = vec![0usize; points.len()];
        let (mut w0, mut v0) = (0i64, 0i64);
        let mut broke = None;
        for (s, &(dw, dv, r, _, to)) in segs.iter().enumerate() {
            if w0 + dw <= capacity {
                w0 += dw;
                v0 += dv;
                lp[r] = to;
            } else {
                broke = Some(s);
                break;
            }
        }
        let Some(b) = broke else {
            return Ok((lp, 0, 1)); // everything at its best fits: optimal
        };
        // A first incumbent: the break solution, greedily filled further.
        let mut start = lp.clone();
        let (mut w, mut v) = (w0, v0);
        for &(dw, dv, r, from, to) in &segs[b..] {
            if start[r] == from && w + dw <= capacity {
                w += dw;
                v += dv;
                start[r] = to;
            }
        }
        let search = Search {
            points,
            capacity,
            lp,
            w0,
            v0,
            lambda_v: i128::from(segs[b].1),
            lambda_w: i128::from(segs[b].0),
            nodes: Vec::new(),
            best: v,
            best_at: None,
            best_start: start,
        };
        search.expand(config)
    }

    /// The Lagrangian bound of a state, times `lambda_w`.
    fn bound(&self, s: State) -> i128 {
        i128::from(self.v0 + s.dv) * self.lambda_w
            + i128::from(self.capacity - self.w0 - s.dw) * self.lambda_v
    }

    /// How much row `r`'s point `j` loses against its LP point, at the
    /// break slope, times `lambda_w` (0 or more).
    fn gap(&self, r: usize, j: usize) -> i128 {
        let p = &self.points[r];
        let l = self.lp[r];
        (i128::from(p.v[l] - p.v[j]) * self.lambda_w - i128::from(p.w[l] - p.w[j]) * self.lambda_v)
            .max(0)
    }

    fn expand(mut self, config: &ExactKnapsackSlice) -> Result<Found, Stop> {
        let n = self.points.len();
        let mut core: Vec<(i128, usize)> = (0..n)
            .filter(|&r| self.points[r].w.len() >= 2)
            .map(|r| {
                let g = (0..self.points[r].w.len())
                    .filter(|&j| j != self.lp[r])
                    .map(|j| self.gap(r, j))
                    .min()
                    .unwrap_or(i128::MAX);
                (g, r)
            })
            .collect();
        crate::sort::sort_stable_by(&mut core, Ord::cmp);
        let mut states = vec![State {
            dw: 0,
            dv: 0,
            node: ROOT,
        }];
        let mut next: Vec<(State, u32)> = Vec::new();
        let (mut work, mut peak) = (0u64, 1usize);
        for &(g, r) in &core {
            let best = i128::from(self.best) * self.lambda_w;
            let top = states.iter().map(|&s| self.bound(s)).max();
            if top.map_or(true, |t| t.saturating_sub(g) <= best) {
                break;
            }
            let p = &self.points[r];
            let l = self.lp[r];
            work += (states.len() * p.w.len()) as u64;
            if work > config.max_work() {
                return Err((FallbackReason::WorkLimit, work, peak));
            }
            next.clear();
            for &s in &states {
                for j in 0..p.w.len() {
                    let moved = State {
                        dw: s.dw + p.w[j] - p.w[l],
                        dv: s.dv + p.v[j] - p.v[l],
                        node: s.node,
                    };
                    next.push((moved, u32::try_from(j).unwrap_or(u32::MAX)));
                }
            }
            // Stable: among equal states the earlier (fewer changes) stays.
            crate::sort::sort_stable_by(&mut next, |a, b| {
                a.0.dw.cmp(&b.0.dw).then(b.0.dv.cmp(&a.0.dv))
            });
            states.clear();
            let mut last = i64::MIN;
            for &(s, j) in &next {
                if s.dv <= last {
                    continue; // dominated
                }
                last = s.dv;
                let mut s = s;
                if j as usize != l {
                    self.nodes
                        .push((s.node, u32::try_from(r).unwrap_or(u32::MAX), j));
                    s.node = u32::try_from(self.nodes.len() - 1).unwrap_or(u32::MAX);
                }
                if self.w0 + s.dw <= self.capacity && self.v0 + s.dv > self.best {
                    self.best = self.v0 + s.dv;
                    self.best_at = Some(s.node);
                }
                if self.bound(s) > i128::from(self.best) * self.lambda_w {
                    states.push(s);
                }
            }
            peak = peak.max(states.len());
            if states.len() > config.max_states() {
                return Err((FallbackReason::StateLimit, work, peak));
            }
        }
        let choice = match self.best_at {
            None => self.best_start.clone(),
            Some(node) => {
                let mut choice = self.lp.clone();
                let mut seen = vec![false; n];
                let mut at = node;
                while at != ROOT {
                    let (parent, r, j) = self.nodes[at as usize];
                    if !seen[r as usize] {
                        seen[r as usize] = true;
                        choice[r as usize] = j as usize;
                    }
                    at = parent;
                }
                choice
            }
        };
        Ok((choice, work, peak))
    }
}
