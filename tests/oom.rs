//! Out of memory is a typed error, never an abort (issue #80). Each collective runs in a child
//! process (this binary again, `CASE_VAR` naming the case) whose address space is limited
//! (RLIMIT_AS) to what it already holds, its inputs and outputs made, plus a headroom; the
//! parent tries a ladder of headrooms, so that one run meets each allocation the call makes at
//! some rung. Each child must exit normally, printing `ok` (the call fitted) or `oom` (the
//! call returned `WavekitError::OutOfMemory` and its output holds what it held before): never
//! killed by a signal (an abort is SIGABRT), never another error. Every case must meet `oom`
//! on some rung (the ladder is tight enough to reach its allocations) and `ok` on the top one
//! (it is a working call).
//!
//! Before the fix, the CPU histogram's many-bin table aborted ("memory allocation of 134217728
//! bytes failed") and every executor launch past its fiber stacks aborted ("cannot map a fiber
//! stack"): those children die of SIGABRT and the parent fails.
//!
//! `harness = false`: the binary is its own parent and child. Linux only (RLIMIT_AS and
//! /proc/self/status); elsewhere it says so and fails.

use std::process::{Command, ExitCode};
use wavekit::cpu::CpuBackend;
use wavekit::raw::RawBackend;
use wavekit::{
    Backend, ByKey, Collectives, LaneMask, Partition, Predicate, ReduceOp, Runs, ScanKind,
    SegmentedSort, Segments, Sort, SortOrder, TopK, VectorSize, Vote, WarpPrimitives, WarpWidth,
    WavekitError,
};

/// The case a child runs: "BACKEND/COLLECTIVE".
const CASE_VAR: &str = "WAVEKIT_OOM_CASE";
/// The child's headroom in bytes above what it holds when the limit is set.
const HEADROOM_VAR: &str = "WAVEKIT_OOM_HEADROOM";
/// What every output holds before the call, and still holds after an `OutOfMemory`.
const SENTINEL: u32 = 0xA5A5_5A5A;

/// The rungs: from below one fiber stack (68 KiB) to well above the largest table a case
/// allocates (the CPU histogram's 2^24 bins, 128 MiB).
const HEADROOMS: [u64; 7] = [
    32 << 10,
    256 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
    64 << 20,
    512 << 20,
];

/// Elements of each case's input: enough that the CPU backend's scratch (per-chunk tables,
/// sort buffers) takes megabytes; the executor runs every lane on the host, so its inputs stay
/// small, and its fiber stacks (64 KiB a thread of a block) are what the ladder reaches.
const CPU_N: usize = 1 << 20;
const SIMT_N: usize = 1 << 12;
/// The many-bin histogram: its table is 8 bytes a bin (the abort the review found).
const MANY_BINS: u32 = 1 << 24;

/// A case: the collective a child runs, and whether its call allocates memory sized by its
/// input (a table, a scratch array, its results, the executor's fiber stacks and scratch), so
/// that the ladder must reach it. The others (a CPU scan, reduce, compaction, ...) keep their
/// scratch small enough that every rung fits them; they are here for the property alone (never
/// a signal, `ok` or `oom`).
struct Case {
    name: &'static str,
    allocating: bool,
}

const fn case(name: &'static str, allocating: bool) -> Case {
    Case { name, allocating }
}

const CPU_CASES: &[Case] = &[
    case("histogram_many_bins", true),
    case("histogram", false),
    case("scan", false),
    case("reduce", false),
    case("compact", false),
    case("partition", false),
    case("sort_keys", false),
    case("sort_pairs", true),
    case("segmented_sort", false),
    case("reduce_by_key", false),
    case("run_length_encode", false),
    case("top_k", true),
    case("vote", true),
    case("warp_scan", false),
];

/// Every executor case allocates: its fiber stacks and scratch.
const SIMT_CASES: &[Case] = &[
    case("histogram", true),
    case("scan", true),
    case("reduce", true),
    case("compact", true),
    case("partition", true),
    case("sort_keys", true),
    case("reduce_by_key", true),
    case("vote", true),
];

fn main() -> ExitCode {
    if let Ok(case) = std::env::var(CASE_VAR) {
        return child(&case);
    }
    if !cfg!(target_os = "linux") {
        eprintln!("tests/oom.rs needs Linux (RLIMIT_AS, /proc/self/status)");
        return ExitCode::FAILURE;
    }
    let named = |backend: &str, c: &Case| (format!("{backend}/{}", c.name), c.allocating);
    let mut cases: Vec<(String, bool)> = CPU_CASES.iter().map(|c| named("cpu", c)).collect();
    if cfg!(feature = "simt") {
        cases.extend(SIMT_CASES.iter().map(|c| named("simt", c)));
    }
    let mut failures = Vec::new();
    for (case, allocating) in &cases {
        let mut outcomes = Vec::new();
        for &headroom in &HEADROOMS {
            match run_child(case, headroom) {
                Ok(outcome) => outcomes.push(outcome),
                Err(why) => failures.push(format!("{case} at {} KiB: {why}", headroom >> 10)),
            }
        }
        println!("{case}: {}", outcomes.join(" "));
        for o in &outcomes {
            if o == "oom-written" {
                failures.push(format!("{case}: OutOfMemory, but the output was changed"));
            }
        }
        if outcomes.len() == HEADROOMS.len() {
            if *allocating && !outcomes.iter().any(|o| o.starts_with("oom")) {
                failures.push(format!(
                    "{case}: no rung ran out of memory ({outcomes:?}): the ladder does not reach \
                     its allocations"
                ));
            }
            if outcomes.last().map(String::as_str) != Some("ok") {
                failures.push(format!("{case}: the top rung did not fit ({outcomes:?})"));
            }
        }
    }
    if failures.is_empty() {
        println!(
            "oom: {} cases, every child exited with ok or oom",
            cases.len()
        );
        ExitCode::SUCCESS
    } else {
        for f in &failures {
            eprintln!("FAILED {f}");
        }
        ExitCode::FAILURE
    }
}

/// Runs `case` in a child at `headroom`; its outcome (`ok` or `oom`), or why it failed.
fn run_child(case: &str, headroom: u64) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .env(CASE_VAR, case)
        .env(HEADROOM_VAR, headroom.to_string())
        // One rayon pool size on every machine, so the children's needs do not vary with it.
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = out.status.signal() {
            return Err(format!(
                "killed by signal {sig} (an abort is 6); stderr: {}",
                stderr.trim()
            ));
        }
    }
    let last = stdout.lines().last().unwrap_or("").trim().to_string();
    if !out.status.success() || !(last == "ok" || last.starts_with("oom")) {
        return Err(format!(
            "{}; stdout: {}; stderr: {}",
            out.status,
            stdout.trim(),
            stderr.trim()
        ));
    }
    Ok(last)
}

// ---- the child ----

fn child(case: &str) -> ExitCode {
    let headroom: u64 = std::env::var(HEADROOM_VAR)
        .ok()
        .and_then(|h| h.parse().ok())
        .unwrap_or(0);
    let (backend, name) = case.split_once('/').unwrap_or((case, ""));
    // Printed before any limit, so stdout's buffer exists when the verdict is printed.
    println!("case {case}, headroom {headroom}");
    let verdict = match backend {
        "cpu" => {
            // The pool and the first uses of each collective (rayon's threads, lazy statics) on
            // a small input first, so the limited call meets only what it allocates itself.
            warm_up(cpu_backend, name);
            run(&cpu_backend(), name, CPU_N, headroom)
        }
        #[cfg(feature = "simt")]
        "simt" => {
            // The warm-up on another thread: the executor's fiber stacks belong to the thread
            // that launches, so this thread's first launch, limited, still maps them.
            warm_up(simt_backend, name);
            run(&simt_backend(), name, SIMT_N, headroom)
        }
        _ => Err(format!("unknown backend `{backend}`")),
    };
    match verdict {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("error: {e}");
            ExitCode::from(3)
        }
    }
}

fn cpu_backend() -> CpuBackend {
    CpuBackend::new(WarpWidth::W32)
}

#[cfg(feature = "simt")]
fn simt_backend() -> wavekit::simt::SimtBackend {
    wavekit::simt::open(WarpWidth::W32).expect("the executor opens")
}

/// Runs case `name` once on a small input, unlimited, on a thread of its own.
fn warm_up<B: RawBackend>(open: impl Fn() -> B + Send + Sync, name: &str) {
    std::thread::scope(|s| {
        s.spawn(|| {
            let r = run(&open(), name, 64, u64::MAX);
            assert_eq!(r.as_deref(), Ok("ok"), "warm-up of {name}");
        });
    });
}

/// The address-space limit: set to what the process holds plus `headroom` for the duration of
/// a call, then lifted again (only the soft limit moves; the hard one stays infinite).
mod limit {
    #[repr(C)]
    struct RLimit {
        cur: u64,
        max: u64,
    }
    /// RLIMIT_AS on Linux (every architecture of the generic resource numbers).
    const RLIMIT_AS: i32 = 9;

    unsafe extern "C" {
        fn getrlimit(resource: i32, rlim: *mut RLimit) -> i32;
        fn setrlimit(resource: i32, rlim: *const RLimit) -> i32;
    }

    fn set(cur: u64) {
        let mut r = RLimit { cur: 0, max: 0 };
        // SAFETY: getrlimit writes one RLimit (two rlim_t, u64 on 64-bit Linux) through a
        // pointer to a live local of that layout.
        let got = unsafe { getrlimit(RLIMIT_AS, &mut r) };
        assert_eq!(got, 0, "getrlimit(RLIMIT_AS)");
        r.cur = cur.min(r.max);
        // SAFETY: setrlimit reads one RLimit through a pointer to a live local.
        let set = unsafe { setrlimit(RLIMIT_AS, &r) };
        assert_eq!(set, 0, "setrlimit(RLIMIT_AS, {cur})");
    }

    /// Bytes of address space the process holds now (VmSize).
    fn held() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmSize:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a VmSize line");
        kb << 10
    }

    /// `f()` under a limit of what the process holds plus `headroom` (none for u64::MAX).
    pub fn within<R>(headroom: u64, f: impl FnOnce() -> R) -> R {
        if headroom == u64::MAX {
            return f();
        }
        set(held().saturating_add(headroom));
        let r = f();
        set(u64::MAX);
        r
    }
}

/// `ok` when the call fitted, `oom` when it returned `OutOfMemory` and `unchanged()` (the
/// outputs still hold the sentinel, read once the limit is lifted); any other result is an
/// error naming it.
fn verdict(
    r: wavekit::Result<()>,
    unchanged: impl FnOnce() -> wavekit::Result<bool>,
) -> Result<&'static str, String> {
    match r {
        Ok(()) => Ok("ok"),
        Err(WavekitError::OutOfMemory { .. }) => match unchanged() {
            Ok(true) => Ok("oom"),
            Ok(false) => Ok("oom-written"),
            Err(e) => Err(format!("OutOfMemory, then reading the output failed: {e}")),
        },
        Err(e) => Err(format!("not OutOfMemory: {e}")),
    }
}

fn is_sentinel<T: wavekit::Element>(v: &[T]) -> bool {
    let s = sentinel::<T>();
    v.iter().all(|x| x.same(s))
}

fn sentinel<T: wavekit::Element>() -> T {
    T::from_bits(u64::from(SENTINEL) | u64::from(SENTINEL) << 32)
}

fn filled<B: Backend, T: wavekit::Element>(b: &B, n: usize) -> wavekit::Result<B::Buffer<T>> {
    b.upload(&vec![sentinel::<T>(); n])
}

/// Keys with runs, a spread of values and some past any bin count used here.
fn keys(n: usize) -> Vec<u32> {
    (0..n as u64)
        .map(|i| (wavekit::element::splitmix(i) % 4096) as u32 / 4)
        .collect()
}

fn floats(n: usize) -> Vec<f32> {
    keys(n).iter().map(|&k| k as f32 - 300.0).collect()
}

/// Case `name` at size `n` on `b`, its call under the limit: `ok`, `oom`, or an error.
fn run<B>(b: &B, name: &str, n: usize, headroom: u64) -> Result<&'static str, String>
where
    B: RawBackend
        + Collectives
        + Partition
        + Sort
        + SegmentedSort
        + ByKey
        + Runs
        + TopK
        + WarpPrimitives,
{
    let r = (|| -> wavekit::Result<Result<&'static str, String>> {
        let ks = b.upload(&keys(n))?;
        let fs = b.upload(&floats(n))?;
        let lim = |f: &mut dyn FnMut() -> wavekit::Result<()>| limit::within(headroom, f);
        Ok(match name {
            "histogram_many_bins" | "histogram" => {
                let bins = if name == "histogram" { 256 } else { MANY_BINS };
                let mut counts = filled::<B, u64>(b, bins as usize + 1)?;
                let r = lim(&mut || b.histogram_into(&ks, bins, &mut counts));
                verdict(r, || Ok(is_sentinel(&b.download(&counts)?)))
            }
            "scan" => {
                let mut out = filled::<B, f32>(b, n)?;
                let r = lim(&mut || b.scan(&fs, &mut out, ReduceOp::Sum, ScanKind::Inclusive));
                verdict(r, || Ok(is_sentinel(&b.download(&out)?)))
            }
            "reduce" => {
                let mut out = filled::<B, f32>(b, 1)?;
                let r = lim(&mut || b.reduce_into(&fs, ReduceOp::Sum, &mut out));
                verdict(r, || Ok(is_sentinel(&b.download(&out)?)))
            }
            "compact" => {
                let (mut out, mut count) = (filled::<B, f32>(b, n)?, filled::<B, u64>(b, 1)?);
                let p = Predicate::Gt(100.0);
                let r = lim(&mut || b.compact_into(&fs, p, true, &mut out, &mut count));
                verdict(r, || {
                    Ok(is_sentinel(&b.download(&out)?) && is_sentinel(&b.download(&count)?))
                })
            }
            "partition" => {
                let (mut out, mut count) = (filled::<B, f32>(b, n)?, filled::<B, u64>(b, 1)?);
                let p = Predicate::Lt(0.0);
                let r = lim(&mut || b.partition_into(&fs, p, &mut out, &mut count));
                verdict(r, || {
                    Ok(is_sentinel(&b.download(&out)?) && is_sentinel(&b.download(&count)?))
                })
            }
            "sort_keys" => {
                let mut out = filled::<B, u32>(b, n)?;
                let r = lim(&mut || b.sort_keys_into(&ks, &mut out, SortOrder::ASCENDING));
                verdict(r, || Ok(is_sentinel(&b.download(&out)?)))
            }
            "sort_pairs" => {
                let (mut ko, mut vo) = (filled::<B, u32>(b, n)?, filled::<B, f32>(b, n)?);
                let r = lim(&mut || {
                    b.sort_pairs_into(&ks, &fs, &mut ko, &mut vo, SortOrder::ASCENDING)
                });
                verdict(r, || {
                    Ok(is_sentinel(&b.download(&ko)?) && is_sentinel(&b.download(&vo)?))
                })
            }
            "segmented_sort" => {
                let segs = Segments::fixed(1000, VectorSize::Auto)?;
                let mut out = filled::<B, u32>(b, n)?;
                let r = lim(&mut || {
                    b.segmented_sort_keys_into(&ks, &segs, &mut out, SortOrder::ASCENDING)
                });
                verdict(r, || Ok(is_sentinel(&b.download(&out)?)))
            }
            "reduce_by_key" => {
                let (mut ko, mut vo) = (filled::<B, u32>(b, n)?, filled::<B, f32>(b, n)?);
                let mut count = filled::<B, u64>(b, 1)?;
                let r = lim(&mut || {
                    b.reduce_by_key_into(&ks, &fs, &mut ko, &mut vo, &mut count, ReduceOp::Sum)
                });
                verdict(r, || {
                    Ok(is_sentinel(&b.download(&ko)?)
                        && is_sentinel(&b.download(&vo)?)
                        && is_sentinel(&b.download(&count)?))
                })
            }
            "run_length_encode" => {
                let (mut ko, mut lo) = (filled::<B, u32>(b, n)?, filled::<B, u32>(b, n)?);
                let mut count = filled::<B, u64>(b, 1)?;
                let r = lim(&mut || b.run_length_encode_into(&ks, &mut ko, &mut lo, &mut count));
                verdict(r, || {
                    Ok(is_sentinel(&b.download(&ko)?)
                        && is_sentinel(&b.download(&lo)?)
                        && is_sentinel(&b.download(&count)?))
                })
            }
            "top_k" => {
                let k = n / 4;
                let mut out = filled::<B, f32>(b, k)?;
                let r = lim(&mut || b.top_k_into(&fs, k, SortOrder::DESCENDING, &mut out));
                verdict(r, || Ok(is_sentinel(&b.download(&out)?)))
            }
            // The warp primitives return their results: nothing of the caller's to change.
            "vote" => {
                let preds: Vec<bool> = keys(n).iter().map(|k| k % 3 == 0).collect();
                let mask = LaneMask::full(b.warp_width());
                let r = lim(&mut || b.vote(Vote::Ballot, &preds, mask).map(drop));
                verdict(r, || Ok(true))
            }
            "warp_scan" => {
                let vals = floats(n);
                let width = b.warp_width().lanes();
                let r = lim(&mut || {
                    b.warp_scan(&vals, width, ReduceOp::Sum, ScanKind::Exclusive)
                        .map(drop)
                });
                verdict(r, || Ok(true))
            }
            other => Err(format!("unknown case `{other}`")),
        })
    })();
    r.unwrap_or_else(|e| Err(format!("making the inputs failed: {e}")))
}
