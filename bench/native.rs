//! `make bench`, native half: ctxpack and the published `cupel` 1.2.0 crate,
//! side by side on fixed-seed synthetic candidate sets.
//!
//! ```text
//! cargo bench --bench native -- [--smoke] [--out DIR]
//! cargo test --bench native          # the smoke run, in a debug build
//! ```
//!
//! Writes `DIR/data.bin` (the candidate set, which `bench/bench.mjs` reads so
//! that every implementation sees the same items) and `DIR/native.json` (the
//! cases and their measurements), and prints a table. `DIR` defaults to
//! `bench/out` (`bench/out/smoke` with `--smoke`).
//!
//! The candidate set: token counts log-normal with median 300 (σ = 1, at
//! least 1, at most 32 000), scores uniform in [0, 1), five kinds; the first
//! `n` items of one stream of 100 000 (`SplitMix64`, seed 2026).
//!
//! Timing: one warm-up call, then calls until 1 s has passed (at least 3, at
//! most 50); the median. Peak memory: the allocator's high-water mark above
//! what was allocated before the call (a counting global allocator).
//! No timing is asserted anywhere; `--smoke` runs tiny sizes once, to keep
//! this program working.

#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ctxpack_core::{
    Budget, CountQuotaEntry, ExactCountConstrainedSlice, ExactKnapsackSlice, GreedySlice,
    GroupedStrategy, Groups, Item, KnapsackSlice, ScarcityBehavior, Selection, Slicer as _, Solver,
    Variants,
};
use cupel::{ContextBudget, ContextItemBuilder, ContextKind, ScoredItem, Slicer as _};

/// Counts live heap bytes and their high-water mark.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are
// updated on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
            grow(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `SplitMix64`, as in the tests.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1), 53 bits.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / 9_007_199_254_740_992.0
    }
}

pub const KINDS: [&str; 5] = ["system", "turn", "tool", "doc", "memory"];
/// The eight kinds of the exact count-constrained cases: item `i` of kind
/// `k` (of the five) has kind `(k + 5 · (i mod 2)) mod 8` of these.
pub const KINDS8: [&str; 8] = [
    "system", "turn", "tool", "doc", "memory", "summary", "code", "image",
];
/// Their count entries (kind, require, cap): every kind constrained.
pub const COUNT_ENTRIES: [(&str, usize, usize); 8] = [
    ("system", 1, 1),
    ("turn", 4, 12),
    ("tool", 2, 6),
    ("doc", 1, 5),
    ("memory", 0, 3),
    ("summary", 1, 2),
    ("code", 0, 4),
    ("image", 0, 1),
];

fn kind8(i: usize, k: u8) -> usize {
    (usize::from(k) + 5 * (i % 2)) % 8
}
const SET_SIZE: usize = 100_000;
const SEED: u64 = 2026;

/// The candidate set: tokens, scores, kind ids.
struct Data {
    tokens: Vec<u32>,
    scores: Vec<f64>,
    kinds: Vec<u8>,
}

fn generate(n: usize) -> Data {
    let mut rng = Rng(SEED);
    let mut data = Data {
        tokens: Vec::with_capacity(n),
        scores: Vec::with_capacity(n),
        kinds: Vec::with_capacity(n),
    };
    for _ in 0..n {
        // Box–Muller: a standard normal from two uniforms.
        let u1 = 1.0 - rng.unit(); // (0, 1]
        let u2 = rng.unit();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let tokens = (300.0 * z.exp()).round().clamp(1.0, 32_000.0);
        data.tokens.push(tokens as u32);
        data.scores.push(rng.unit());
        data.kinds.push((rng.next_u64() % KINDS.len() as u64) as u8);
    }
    data
}

/// `data.bin`: "CTXB", n (u32 LE), tokens (u32 LE × n), scores (f64 LE × n),
/// kinds (u8 × n).
fn write_data(path: &std::path::Path, d: &Data) -> std::io::Result<()> {
    let n = d.tokens.len();
    let mut bytes = Vec::with_capacity(8 + n * 13);
    bytes.extend_from_slice(b"CTXB");
    bytes.extend_from_slice(&u32::try_from(n).expect("n fits u32").to_le_bytes());
    for t in &d.tokens {
        bytes.extend_from_slice(&t.to_le_bytes());
    }
    for s in &d.scores {
        bytes.extend_from_slice(&s.to_le_bytes());
    }
    bytes.extend_from_slice(&d.kinds);
    std::fs::write(path, bytes)
}

/// One benchmark case.
#[derive(Clone, Copy)]
struct Case {
    algo: &'static str,
    n: usize,
    budget: i64,
    /// Knapsack bucket size (0 for greedy).
    bucket: i64,
    /// Part of the main grid (extras answer one question each).
    extra: bool,
}

fn cases(smoke: bool) -> Vec<Case> {
    let (sizes, budgets): (&[usize], &[(i64, i64)]) = if smoke {
        (&[2_000], &[(8_000, 1), (128_000, 16)])
    } else {
        (
            &[1_000, 10_000, 100_000],
            &[(8_000, 1), (128_000, 16), (1_000_000, 100)],
        )
    };
    let mut out = Vec::new();
    for algo in ["greedy", "knapsack"] {
        for &n in sizes {
            for &(budget, bucket) in budgets {
                out.push(Case {
                    algo,
                    n,
                    budget,
                    bucket: if algo == "knapsack" { bucket } else { 0 },
                    extra: false,
                });
            }
        }
    }
    // The exact strategies on the same instances: ExactKnapsackSlice at
    // every (n, budget), its value beside the bucketed knapsack's (at the
    // bucket of the knapsack rows) and greedy's; ExactCountConstrainedSlice
    // with eight constrained kinds at 10 000 capacity cells (token
    // precision at a budget of 10 000), beside the three-phase heuristic.
    for &n in sizes {
        for &(budget, bucket) in budgets {
            out.push(Case {
                algo: "exact",
                n,
                budget,
                bucket,
                extra: false,
            });
        }
    }
    // Issue 13: the multiple-choice knapsack, exact, every item with a
    // summary and a stub (`versions`), beside the 0/1 case above.
    out.push(Case {
        algo: "exact-variants",
        n: if smoke { 2_000 } else { 10_000 },
        budget: 128_000,
        bucket: 16,
        extra: false,
    });
    for n in if smoke {
        vec![2_000]
    } else {
        vec![1_000, 10_000]
    } {
        out.push(Case {
            algo: "exact-count",
            n,
            budget: 10_000,
            bucket: 0,
            extra: false,
        });
    }
    if !smoke {
        // The largest table cupel accepts at a capacity of 10 000 (50 M
        // cells), and a 400 M-cell table.
        for n in [5_000, 40_000] {
            out.push(Case {
                algo: "knapsack",
                n,
                budget: 1_000_000,
                bucket: 100,
                extra: true,
            });
        }
    }
    out
}

/// What one implementation did on one case.
struct Outcome {
    status: &'static str,
    reason: String,
    ms: f64,
    min_ms: f64,
    peak_bytes: usize,
    selected: Vec<usize>,
    total_tokens: i64,
    /// The exact cases' values and report, as a JSON object (empty: none).
    values: String,
}

/// FNV-1a (32-bit) over the selected indexes in output order, as
/// `bench.mjs` computes it.
fn fingerprint(selected: &[usize]) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for &i in selected {
        h ^= i as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The median and the fastest call in ms, the peak bytes of the first call,
/// and its result.
fn measure<T>(smoke: bool, mut f: impl FnMut() -> T) -> (f64, f64, usize, T) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let first = f();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let mut times = Vec::new();
    let start = Instant::now();
    let (min_reps, max_reps, budget) = if smoke {
        (1, 1, Duration::ZERO)
    } else {
        (3, 50, Duration::from_secs(1))
    };
    while times.len() < min_reps || (times.len() < max_reps && start.elapsed() < budget) {
        let t = Instant::now();
        black_box(f());
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], peak, first)
}

/// The knapsack's value of a selection: `Σ max(0, floor(score × 10000))`.
fn value(items: &[Item<'_>], s: &Selection) -> i64 {
    s.selected
        .iter()
        .map(|&i| ((items[i].score * 10_000.0).floor() as i64).max(0))
        .sum()
}

fn entries() -> Vec<CountQuotaEntry> {
    COUNT_ENTRIES
        .iter()
        .map(|&(k, r, c)| CountQuotaEntry::new(k, r, c))
        .collect()
}

fn solver_json(s: &Selection) -> String {
    let Some(r) = s.exact else {
        return "null".to_owned();
    };
    let (name, bucket) = match r.solver {
        Solver::Exact => ("exact", 1),
        Solver::Bucketed { bucket_size } => ("bucketed", bucket_size),
        Solver::BucketedFallback { bucket_size, .. } => ("bucketed-fallback", bucket_size),
        Solver::Heuristic { bucket_size } => ("heuristic", bucket_size),
    };
    format!(
        "{{\"solver\":{},\"bucketSize\":{bucket},\"value\":{},\"heuristicValue\":{},\"heuristicOverBudget\":{},\"work\":{},\"peakStates\":{}}}",
        json_str(name),
        r.value,
        r.heuristic_value.map_or("null".to_owned(), |v| v.to_string()),
        r.heuristic_over_budget,
        r.work,
        r.peak_states
    )
}

/// The values an exact case compares: the exact slice's, and the seed
/// slicers' on the same input.
fn values_json(case: &Case, items: &[Item<'_>], s: &Selection) -> String {
    let budget = Budget::new(case.budget);
    if case.algo == "exact" {
        let knapsack = KnapsackSlice::new(case.bucket)
            .expect("positive bucket")
            .slice(items, &budget)
            .map_or("null".to_owned(), |k| value(items, &k).to_string());
        let greedy = value(items, &GreedySlice.slice(items, &budget).expect("greedy"));
        format!(
            "{{\"exact\":{},\"knapsack\":{knapsack},\"greedy\":{greedy},\"report\":{}}}",
            value(items, s),
            solver_json(s)
        )
    } else {
        format!(
            "{{\"exact\":{},\"report\":{}}}",
            value(items, s),
            solver_json(s)
        )
    }
}

/// Two shorter versions of every item, as `bench.mjs` makes them: a summary
/// of ⌈tokens / 8⌉ tokens and a stub of min(12, tokens), each worth the
/// score × sqrt(its tokens / the item's) (the planner's default rule).
fn versions(items: &[Item<'_>]) -> Variants {
    let mut v = Variants::new(items.len());
    for (i, it) in items.iter().enumerate() {
        for t in [(it.tokens + 7) / 8, it.tokens.min(12)] {
            let scale = (t as f64 / it.tokens as f64).sqrt();
            v = v.add(i, t, it.score * scale).expect("valid version");
        }
    }
    v
}

fn run_variants(case: &Case, items: &[Item<'_>], smoke: bool) -> Outcome {
    let budget = Budget::new(case.budget);
    let v = versions(items);
    let groups = Groups::new(items.len());
    let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
    let (ms, min_ms, peak_bytes, s) = measure(smoke, || {
        v.slice(&exact, items, &groups, &budget).expect("variants")
    });
    let report = s.selection.exact.expect("exact report");
    Outcome {
        status: "ok",
        reason: String::new(),
        ms,
        min_ms,
        peak_bytes,
        total_tokens: s.selection.total_tokens,
        values: format!(
            "{{\"exact\":{},\"report\":{}}}",
            report.value,
            solver_json(&s.selection)
        ),
        selected: s.selection.selected,
    }
}

fn run_ctxpack(case: &Case, items: &[Item<'_>], items8: &[Item<'_>], smoke: bool) -> Outcome {
    if case.algo == "exact-variants" {
        return run_variants(case, items, smoke);
    }
    let budget = Budget::new(case.budget);
    let exact_count = ExactCountConstrainedSlice::new(entries(), ScarcityBehavior::Degrade)
        .expect("valid entries");
    let items = if case.algo == "exact-count" {
        items8
    } else {
        items
    };
    let slice = |items: &[Item<'_>]| match case.algo {
        "greedy" => GreedySlice.slice(items, &budget),
        "exact" => ExactKnapsackSlice::new().slice(items, &budget),
        "exact-count" => exact_count.slice(items, &budget),
        _ => KnapsackSlice::new(case.bucket)
            .expect("positive bucket")
            .slice(items, &budget),
    };
    if let Err(e) = slice(items) {
        return refused(e.code().to_owned());
    }
    let (ms, min_ms, peak_bytes, s) = measure(smoke, || slice(items).expect("checked above"));
    let values = if case.algo.starts_with("exact") {
        values_json(case, items, &s)
    } else {
        String::new()
    };
    Outcome {
        status: "ok",
        reason: String::new(),
        ms,
        min_ms,
        peak_bytes,
        total_tokens: s.total_tokens,
        selected: s.selected,
        values,
    }
}

fn run_cupel(case: &Case, items: &[ScoredItem], smoke: bool) -> Outcome {
    if case.algo.starts_with("exact") {
        return refused("no such slicer in cupel".to_owned());
    }
    let budget =
        ContextBudget::new(case.budget, case.budget, 0, HashMap::new(), 0.0).expect("valid budget");
    let slice = |items: &[ScoredItem]| match case.algo {
        "greedy" => cupel::GreedySlice.slice(items, &budget),
        _ => cupel::KnapsackSlice::new(case.bucket)
            .expect("positive bucket")
            .slice(items, &budget),
    };
    if let Err(e) = slice(items) {
        let reason = match e {
            cupel::CupelError::TableTooLarge { cells, .. } => {
                format!("TableTooLarge ({cells} cells > 50 M)")
            }
            other => other.to_string(),
        };
        return refused(reason);
    }
    let (ms, min_ms, peak_bytes, out) = measure(smoke, || slice(items).expect("checked above"));
    let selected: Vec<usize> = out
        .iter()
        .map(|it| it.content().parse().expect("content is the index"))
        .collect();
    Outcome {
        status: "ok",
        reason: String::new(),
        ms,
        min_ms,
        peak_bytes,
        total_tokens: out.iter().map(cupel::ContextItem::tokens).sum(),
        selected,
        values: String::new(),
    }
}

fn refused(reason: String) -> Outcome {
    Outcome {
        status: "refused",
        reason,
        ms: f64::NAN,
        min_ms: f64::NAN,
        peak_bytes: 0,
        selected: Vec::new(),
        total_tokens: 0,
        values: String::new(),
    }
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_owned()
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The table row of one case.
fn print_row(case: &Case, ours: &Outcome, theirs: &Outcome, same: &str) {
    let show = |o: &Outcome| {
        if o.status == "ok" {
            format!("{:.3}", o.ms)
        } else {
            "refused".to_owned()
        }
    };
    println!(
        "{:<9} {:>7} {:>9} {:>6}  {:>12} {:>9.1}M {:>12} {:>9.1}M  {:>8}  {same}",
        case.algo,
        case.n,
        case.budget,
        case.bucket,
        show(ours),
        ours.peak_bytes as f64 / 1_048_576.0,
        show(theirs),
        theirs.peak_bytes as f64 / 1_048_576.0,
        if ours.status == "ok" && theirs.status == "ok" {
            format!("{:.1}x", theirs.ms / ours.ms)
        } else {
            "-".to_owned()
        },
    );
}

/// One case of `native.json`.
fn case_json(case: &Case, results: &[(&str, &Outcome)]) -> String {
    let mut json = format!(
        "{{\"algo\":{},\"n\":{},\"budget\":{},\"bucket\":{},\"extra\":{},\"results\":{{",
        json_str(case.algo),
        case.n,
        case.budget,
        case.bucket,
        case.extra
    );
    for (j, (name, o)) in results.iter().enumerate() {
        if j > 0 {
            json.push(',');
        }
        let _ = write!(
            json,
            "{}:{{\"status\":{},\"reason\":{},\"ms\":{},\"minMs\":{},\"peakBytes\":{},\"count\":{},\"tokens\":{},\"hash\":{}}}",
            json_str(name),
            json_str(o.status),
            json_str(&o.reason),
            json_num(o.ms),
            json_num(o.min_ms),
            o.peak_bytes,
            o.selected.len(),
            o.total_tokens,
            fingerprint(&o.selected)
        );
        if !o.values.is_empty() {
            json.truncate(json.len() - 1);
            let _ = write!(json, ",\"values\":{}}}", o.values);
        }
    }
    json.push_str("}}");
    json
}

/// `--smoke` and `--out DIR` (relative to the package root).
fn parse_args() -> (bool, std::path::PathBuf) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`,
    // `cargo test --all-targets`) only the smoke run is done.
    let smoke = args.iter().any(|a| a == "--smoke") || !args.iter().any(|a| a == "--bench");
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map_or(
            if smoke {
                "bench/out/smoke"
            } else {
                "bench/out"
            },
            String::as_str,
        );
    (
        smoke,
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(out),
    )
}

fn main() {
    let (smoke, out_dir) = parse_args();
    std::fs::create_dir_all(&out_dir).expect("create the output directory");

    let set_size = if smoke { 2_000 } else { SET_SIZE };
    let data = generate(set_size);
    write_data(&out_dir.join("data.bin"), &data).expect("write data.bin");
    let items: Vec<Item<'static>> = (0..set_size)
        .map(|i| {
            Item::new(i64::from(data.tokens[i]), data.scores[i])
                .with_kind(KINDS[usize::from(data.kinds[i])])
        })
        .collect();
    let items8: Vec<Item<'static>> = (0..set_size)
        .map(|i| {
            Item::new(i64::from(data.tokens[i]), data.scores[i])
                .with_kind(KINDS8[kind8(i, data.kinds[i])])
        })
        .collect();
    let cupel_items: Vec<ScoredItem> = (0..set_size)
        .map(|i| ScoredItem {
            item: ContextItemBuilder::new(i.to_string(), i64::from(data.tokens[i]))
                .kind(ContextKind::new(KINDS[usize::from(data.kinds[i])]).expect("kind"))
                .build()
                .expect("item"),
            score: data.scores[i],
        })
        .collect();

    println!(
        "{:<9} {:>7} {:>9} {:>6}  {:>12} {:>10} {:>12} {:>10}  {:>8}  same",
        "algo", "n", "budget", "bucket", "ctxpack ms", "peak", "cupel ms", "peak", "ratio"
    );
    let mut cases_json = Vec::new();
    for case in &cases(smoke) {
        let ours = run_ctxpack(case, &items[..case.n], &items8[..case.n], smoke);
        let theirs = run_cupel(case, &cupel_items[..case.n], smoke);
        let same = match (ours.status, theirs.status) {
            ("ok", "ok") if ours.selected == theirs.selected => "yes",
            ("ok", "ok") => "NO",
            _ => "-",
        };
        assert_ne!(same, "NO", "ctxpack and cupel disagree on {}", case.algo);
        print_row(case, &ours, &theirs, same);
        cases_json.push(case_json(
            case,
            &[("ctxpack-native", &ours), ("cupel-native", &theirs)],
        ));
    }
    let json = format!(
        "{{\"cases\":[{}],\"smoke\":{smoke},\"setSize\":{set_size},\"kinds\":[{}],\"kinds8\":[{}],\"countEntries\":[{}]}}",
        cases_json.join(","),
        KINDS.map(json_str).join(","),
        KINDS8.map(json_str).join(","),
        COUNT_ENTRIES
            .map(|(k, r, c)| format!(
                "{{\"kind\":{},\"requireCount\":{r},\"capCount\":{c}}}",
                json_str(k)
            ))
            .join(",")
    );
    std::fs::write(out_dir.join("native.json"), json).expect("write native.json");
    println!("wrote {}", out_dir.join("native.json").display());
}
