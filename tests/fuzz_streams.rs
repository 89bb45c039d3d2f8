//! Fuzz of two backends on one device sharing buffers (issue 28): two executors of one arch
//! and width are two streams of one device (`GpuRuntime::same_device`), and on a CUDA device
//! (`#[ignore]`d) two streams of its primary context. A pool of buffers, each made by either
//! backend, goes through random operations on either backend: writes into views, scans and
//! reduces from a view of one buffer into a view of another, counts, downloads, new buffers,
//! freeing a buffer, synchronising, dropping one backend while its buffers live on, a backend of
//! another device refused, and phases where both backends run at once on two threads, reading
//! shared inputs and writing outputs the other backend made.
//!
//! Ordering between streams is the caller's, as in CUDA: before a backend touches a buffer
//! the other one queued work on, the model synchronises that other backend (and nothing else).
//! The property: every result equals the reference computed on the host copies, the host copy
//! of every buffer equals what a download returns, a foreign backend gets `ForeignBuffer`;
//! never a panic, an abort or a hang (tests/support/fuzz).

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
use wavekit::{Backend, Collectives, Predicate, ReduceOp, ScanKind, WavekitError};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;

/// One operation: which (`kind`), on which backend (`on`), over which buffers (`a`, `b`) and
/// ranges (`r`), with numbers to make data from (`seed`).
#[derive(Clone, Debug)]
struct Op {
    kind: u8,
    on: bool,
    a: u16,
    b: u16,
    r: (u64, u64),
    seed: u64,
}

fn ops() -> impl Strategy<Value = (Vec<usize>, Vec<Op>)> {
    let op = (
        0u8..12,
        any::<bool>(),
        any::<u16>(),
        any::<u16>(),
        any::<(u64, u64)>(),
        any::<u64>(),
    )
        .prop_map(|(kind, on, a, b, r, seed)| Op {
            kind,
            on,
            a,
            b,
            r,
            seed,
        });
    let lens = proptest::collection::vec(len(), 2..5);
    (lens, proptest::collection::vec(op, 1..16))
}

fn fail(e: WavekitError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// A pooled buffer, the host copy of what it holds, and which backend queued work on it last.
struct Slot<R: GpuRuntime> {
    buf: GpuBuffer<i32, R>,
    host: Vec<i32>,
    last: Option<usize>,
}

/// The two backends (either may have been dropped), a backend of another device if there is
/// one, and the pool.
struct World<R: GpuRuntime> {
    streams: [Option<GpuBackend<R>>; 2],
    foreign: Option<GpuBackend<R>>,
    pool: Vec<Slot<R>>,
    tally: Tally,
}

/// A sub-range of `0..len` from two random words (empty ones included).
fn range(len: usize, (x, y): (u64, u64)) -> Range<usize> {
    let (x, y) = (x % (len as u64 + 1), y % (len as u64 + 1));
    x.min(y) as usize..x.max(y) as usize
}

/// `&pool[i]` and `&mut pool[j]`, `i != j`.
fn two<R: GpuRuntime>(pool: &mut [Slot<R>], i: usize, j: usize) -> (&Slot<R>, &mut Slot<R>) {
    if i < j {
        let (lo, hi) = pool.split_at_mut(j);
        (&lo[i], &mut hi[0])
    } else {
        let (lo, hi) = pool.split_at_mut(i);
        (&hi[0], &mut lo[j])
    }
}

impl<R: GpuRuntime> World<R> {
    /// The backend an op runs on: the one it asks for if it is alive, else the other.
    fn pick(&self, on: bool) -> usize {
        let want = on as usize;
        if self.streams[want].is_some() {
            want
        } else {
            1 - want
        }
    }

    fn stream(&self, x: usize) -> &GpuBackend<R> {
        self.streams[x]
            .as_ref()
            .expect("picked among the live ones")
    }

    /// Orders backend `x` after the other backend's queued work on the buffers `bufs` (the
    /// caller's job between streams), then records `x` as their last user.
    fn order(&mut self, x: usize, bufs: &[usize]) -> Result<(), TestCaseError> {
        for &i in bufs {
            if let Some(y) = self.pool[i].last.filter(|&y| y != x)
                && let Some(other) = &self.streams[y]
            {
                other.synchronize().map_err(fail)?;
                self.tally.calls += 1;
            }
        }
        for &i in bufs {
            self.pool[i].last = Some(x);
        }
        Ok(())
    }

    /// A new pooled buffer of random values, made by backend `x`.
    fn add(&mut self, x: usize, len: usize, seed: u64) -> Result<(), TestCaseError> {
        let host: Vec<i32> = inputs::values(len, seed);
        let buf = self.stream(x).upload(&host).map_err(fail)?;
        self.pool.push(Slot {
            buf,
            host,
            last: Some(x),
        });
        self.tally.calls += 1;
        Ok(())
    }

    fn run(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let x = self.pick(op.on);
        let n = self.pool.len();
        let (i, j) = (op.a as usize % n, op.b as usize % n);
        match op.kind {
            0 => {
                // Part of a buffer rewritten through a view.
                self.order(x, &[i])?;
                let b = self.streams[x].as_ref().expect("live");
                let s = &mut self.pool[i];
                let r = range(s.host.len(), op.r);
                let data: Vec<i32> = inputs::values(r.len(), op.seed);
                let mut v = b.slice_mut(&mut s.buf, r.clone()).map_err(fail)?;
                b.write(&mut v, &data).map_err(fail)?;
                s.host[r].copy_from_slice(&data);
            }
            1 | 2 if i != j => {
                self.order(x, &[i, j])?;
                let b = self.streams[x].as_ref().expect("live");
                let (src, dst) = two(&mut self.pool, i, j);
                if op.kind == 1 {
                    scan(b, src, dst, op)?;
                } else {
                    reduce(b, src, dst, op)?;
                }
            }
            1..=3 => {
                self.order(x, &[i])?;
                let s = &self.pool[i];
                let got = self.stream(x).download(&s.buf).map_err(fail)?;
                prop_assert!(got == s.host, "buffer {} read back on stream {}", i, x);
            }
            4 => self.stream(x).synchronize().map_err(fail)?,
            5 if n > 2 => {
                // Freed whatever the other stream queued: the buffer waits for the device.
                self.pool.swap_remove(i);
            }
            5 | 6 => self.add(x, 1 + op.seed as usize % 3000, op.seed)?,
            7 => {
                let s = &self.pool[i];
                if let Some(f) = &self.foreign {
                    prop_assert_eq!(f.download(&s.buf).err(), Some(WavekitError::ForeignBuffer));
                    let r = f.reduce(&s.buf, ReduceOp::Sum).err();
                    prop_assert!(
                        s.host.is_empty() || r == Some(WavekitError::ForeignBuffer),
                        "{:?}",
                        r
                    );
                    self.tally.calls += 2;
                    self.tally.errors += 2;
                }
            }
            8 if self.streams.iter().all(Option::is_some) => {
                // One stream goes away after its work; its buffers stay usable on the other.
                self.stream(x).synchronize().map_err(fail)?;
                self.streams[x] = None;
            }
            9 if self.streams.iter().all(Option::is_some) => {
                let t = threads::both(self, op)?;
                self.tally += t;
            }
            10 => {
                self.order(x, &[i])?;
                let b = self.stream(x);
                let s = &self.pool[i];
                let r = range(s.host.len(), op.r);
                let pred = Predicate::Gt(op.seed as i32);
                let mut out = b.alloc::<u64>(1).map_err(fail)?;
                let v = b.slice(&s.buf, r.clone()).map_err(fail)?;
                b.count_if_into(&v, pred, &mut out).map_err(fail)?;
                let want = reference::count_if(&s.host[r], &pred);
                prop_assert_eq!(b.download(&out).map_err(fail)?, vec![want]);
            }
            _ => {
                // Every buffer read back on one stream, after ordering it after the other.
                let all: Vec<usize> = (0..n).collect();
                self.order(x, &all)?;
                for (k, s) in self.pool.iter().enumerate() {
                    let got = self.stream(x).download(&s.buf).map_err(fail)?;
                    prop_assert!(got == s.host, "buffer {} read back on stream {}", k, x);
                }
                self.tally.calls += n as u64;
            }
        }
        self.tally.calls += 1;
        Ok(())
    }
}

/// An inclusive or exclusive scan of a range of `src` into a range of `dst` of the same length.
fn scan<R: GpuRuntime>(
    b: &GpuBackend<R>,
    src: &Slot<R>,
    dst: &mut Slot<R>,
    op: &Op,
) -> Result<(), TestCaseError> {
    let r = range(src.host.len(), op.r);
    let n = r.len().min(dst.host.len());
    let r = r.start..r.start + n;
    let at = (op.seed as usize >> 4) % (dst.host.len() - n + 1);
    let kind = [ScanKind::Inclusive, ScanKind::Exclusive][(op.seed & 1) as usize];
    let input = b.slice(&src.buf, r.clone()).map_err(fail)?;
    let mut out = b.slice_mut(&mut dst.buf, at..at + n).map_err(fail)?;
    b.scan(&input, &mut out, ReduceOp::Sum, kind)
        .map_err(fail)?;
    let want = reference::device_scan(&src.host[r], ReduceOp::Sum, kind);
    dst.host[at..at + n].copy_from_slice(&want);
    Ok(())
}

/// A reduce of a non-empty range of `src` into one element of `dst`.
fn reduce<R: GpuRuntime>(
    b: &GpuBackend<R>,
    src: &Slot<R>,
    dst: &mut Slot<R>,
    op: &Op,
) -> Result<(), TestCaseError> {
    let r = range(src.host.len(), op.r);
    if r.is_empty() || dst.host.is_empty() {
        return Ok(());
    }
    let ops = [
        ReduceOp::Sum,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::BitXor,
    ];
    let rop = ops[(op.seed % 4) as usize];
    let at = (op.seed as usize >> 4) % dst.host.len();
    let input = b.slice(&src.buf, r.clone()).map_err(fail)?;
    let mut out = b.slice_mut(&mut dst.buf, at..at + 1).map_err(fail)?;
    b.reduce_into(&input, rop, &mut out).map_err(fail)?;
    dst.host[at] = reference::device_reduce(&src.host[r], rop);
    Ok(())
}

#[path = "fuzz_streams/threads.rs"]
mod threads;

/// One case: a pool made by both backends, the ops, then everything read back on each live
/// backend.
fn case<R: GpuRuntime>(
    open: &dyn Fn() -> GpuBackend<R>,
    foreign: Option<GpuBackend<R>>,
    lens: &[usize],
    ops: &[Op],
) -> Result<Tally, TestCaseError> {
    let mut w = World {
        streams: [Some(open()), Some(open())],
        foreign,
        pool: Vec::new(),
        tally: Tally::default(),
    };
    for (k, &len) in lens.iter().enumerate() {
        w.add(k % 2, len, k as u64 * 77 + len as u64)?;
    }
    for op in ops {
        w.run(op)?;
    }
    for x in 0..2 {
        if w.streams[x].is_some() {
            w.run(&Op {
                kind: 11,
                on: x == 1,
                a: 0,
                b: 0,
                r: (0, 0),
                seed: 0,
            })?;
        }
    }
    Ok(w.tally)
}

/// How a context opens the two streams of one device, and a backend of another device.
struct Device<R: GpuRuntime> {
    open: Box<dyn Fn() -> GpuBackend<R>>,
    foreign: Box<dyn Fn() -> Option<GpuBackend<R>>>,
}

fn fuzz_on<R: GpuRuntime>(devices: &[(String, Device<R>)], default_cases: u32) {
    run_contexts(
        "two streams",
        default_cases,
        ops(),
        devices,
        |d, (lens, ops)| case(&d.open, (d.foreign)(), &lens, &ops),
    );
}

#[test]
fn fuzz_streams() {
    use wavekit::simt::{self, Arch};
    static FOREIGN: AtomicUsize = AtomicUsize::new(0);
    let devices: Vec<_> = wavekit::WarpWidth::ALL
        .map(|w| {
            let other = match w {
                wavekit::WarpWidth::W32 => wavekit::WarpWidth::W64,
                _ => wavekit::WarpWidth::W32,
            };
            let device = Device {
                open: Box::new(move || simt::open(w).unwrap()),
                // Another device: the other width, or this width on the AMD arch layer, in turn.
                foreign: Box::new(move || match FOREIGN.fetch_add(1, Ordering::Relaxed) % 2 {
                    0 => Some(simt::open(other).unwrap()),
                    _ => Some(simt::open_arch(Arch::Hip, w).unwrap()),
                }),
            };
            (format!("simt/w{}", w.lanes()), device)
        })
        .into();
    fuzz_on(&devices, 64);
}

#[test]
#[ignore = "needs a CUDA device"]
#[cfg(feature = "cuda")]
fn fuzz_streams_cuda() {
    // Two streams of the primary context of device 0: `cuda::open` makes one per backend.
    let device = Device {
        open: Box::new(|| wavekit::cuda::open(0).expect("CUDA device 0")),
        foreign: Box::new(|| None),
    };
    fuzz_on(&[("cuda:0".to_string(), device)], 64);
}
