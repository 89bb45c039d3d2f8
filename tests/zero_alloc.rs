//! No device allocation in steady state: once a backend's workspace is sized (by `reserve`, or
//! by a first call of each collective), repeated calls of every `_into` collective, `scan` and
//! `spmv` (3 of the sorts, runs, by_key and partition) into preallocated outputs make no device
//! allocation, and their results are the reference's: 100 calls on CUDA, 10 on the executor.
//! Runs on the SIMT executor at 32 and 64 lanes (a `GpuRuntime`, the same host code as CUDA and
//! HIP) and on CUDA.

use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{
    ArgOp, ArgReduce, Backend, Collectives, Csr, Element, Predicate, ReduceOp, ScanKind, Segments,
    VectorSize, WarpWidth,
};
use wavekit_conformance::reference as refr;

#[path = "zero_alloc/grouped.rs"]
mod grouped;
use grouped::sorts;

/// Calls of the sorts in the counted loop: each is several passes, slow on the executor, and
/// the first repeat already shows an allocation a call would make.
const SORT_CALLS: usize = 3;

/// Bit for bit, NaNs of any payload equal (a float product of many values may be one).
fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(*y))
}

type Buf<R, T> = <GpuBackend<R> as Backend>::Buffer<T>;

/// How the workspace is sized before the counted loop.
#[derive(Clone, Copy, Debug)]
enum Warm {
    /// `reserve::<T>(n)` for every element type used; no collective has run.
    Reserve,
    /// One call of each collective.
    FirstCall,
}

/// Inputs on the device and every output, allocated once.
struct Setup<R: GpuRuntime> {
    n: usize,
    floats: Vec<f32>,
    ints: Vec<u32>,
    keys: Vec<u32>,
    slots: Vec<u32>,
    offsets: Vec<u32>,
    f_in: Buf<R, f32>,
    u_in: Buf<R, u32>,
    keys_in: Buf<R, u32>,
    slots_in: Buf<R, u32>,
    counters: Buf<R, u32>,
    olds: Buf<R, u32>,
    f_one: Buf<R, f32>,
    u_one: Buf<R, u32>,
    count: Buf<R, u64>,
    counts2: Buf<R, u64>,
    f_scan: Buf<R, f32>,
    u_scan: Buf<R, u32>,
    compacted: Buf<R, u32>,
    fixed_out: Buf<R, f32>,
    offsets_out: Buf<R, f32>,
    blocks_out: Buf<R, u32>,
    hist: Buf<R, u64>,
    y: Buf<R, f32>,
    sorted_u: Buf<R, u32>,
    sorted_f: Buf<R, f32>,
    sorted_v: Buf<R, u32>,
    top_v: Buf<R, f32>,
    top_i: Buf<R, u32>,
    arg_v: Buf<R, f32>,
    arg_i: Buf<R, u64>,
    seg_arg_v: Buf<R, f32>,
    seg_arg_i: Buf<R, u32>,
    fixed: Segments<GpuBackend<R>>,
    by_offsets: Segments<GpuBackend<R>>,
    csr: Csr<GpuBackend<R>, f32>,
    csr_host: (Vec<u32>, Vec<u32>, Vec<f32>),
}

const SEGMENT: usize = 100;
const BLOCK: u32 = 256;
const BINS: u32 = 40;
const COUNTERS: usize = 7;
const THRESHOLD: u32 = 1 << 31;
const TOP_K: usize = 64;

fn setup<R: GpuRuntime>(b: &GpuBackend<R>, n: usize) -> Setup<R> {
    let floats: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 101) as f32) * 0.25 - 9.0)
        .collect();
    let ints: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32)
        .collect();
    let keys: Vec<u32> = ints.iter().map(|k| k % (BINS + 5)).collect();
    let slots: Vec<u32> = ints.iter().map(|k| k % COUNTERS as u32).collect();
    // Segments of 0, 1, 2, ... elements, the last taking the rest.
    let mut offsets = vec![0u32];
    let mut at = 0usize;
    for len in 0.. {
        if at + len >= n {
            break;
        }
        at += len;
        offsets.push(at as u32);
    }
    offsets.push(n as u32);
    // A banded matrix: row r holds columns r, r + 1, r + 5 (those below the column count).
    let rows = n / 4;
    let (mut ro, mut cols, mut vals) = (vec![0u32], vec![], vec![]);
    for r in 0..rows {
        for c in [r, r + 1, r + 5] {
            if c < n {
                cols.push(c as u32);
                vals.push(((r + c) % 7) as f32 - 3.0);
            }
        }
        ro.push(cols.len() as u32);
    }
    let csr = Csr::new(b, rows, n, &ro, &cols, &vals).unwrap();
    let segs = offsets.len() - 1;
    Setup {
        n,
        f_in: b.upload(&floats).unwrap(),
        u_in: b.upload(&ints).unwrap(),
        keys_in: b.upload(&keys).unwrap(),
        slots_in: b.upload(&slots).unwrap(),
        counters: b.alloc(COUNTERS).unwrap(),
        olds: b.alloc(n).unwrap(),
        f_one: b.alloc(1).unwrap(),
        u_one: b.alloc(1).unwrap(),
        count: b.alloc(1).unwrap(),
        counts2: b.alloc(2).unwrap(),
        f_scan: b.alloc(n).unwrap(),
        u_scan: b.alloc(n).unwrap(),
        compacted: b.alloc(n).unwrap(),
        fixed_out: b.alloc(n.div_ceil(SEGMENT)).unwrap(),
        offsets_out: b.alloc(segs).unwrap(),
        blocks_out: b.alloc(n.div_ceil(BLOCK as usize)).unwrap(),
        hist: b.alloc(BINS as usize + 1).unwrap(),
        y: b.alloc(rows).unwrap(),
        sorted_u: b.alloc(n).unwrap(),
        sorted_f: b.alloc(n).unwrap(),
        sorted_v: b.alloc(n).unwrap(),
        top_v: b.alloc(TOP_K).unwrap(),
        top_i: b.alloc(TOP_K).unwrap(),
        arg_v: b.alloc(1).unwrap(),
        arg_i: b.alloc(1).unwrap(),
        seg_arg_v: b.alloc(segs).unwrap(),
        seg_arg_i: b.alloc(segs).unwrap(),
        fixed: Segments::fixed(SEGMENT, VectorSize::Lanes(4)).unwrap(),
        by_offsets: Segments::from_offsets(b, &offsets, n, VectorSize::Auto).unwrap(),
        csr,
        csr_host: (ro, cols, vals),
        floats,
        ints,
        keys,
        slots,
        offsets,
    }
}

/// The float ops: every op but the bitwise ones.
fn float_ops() -> impl Iterator<Item = ReduceOp> {
    ReduceOp::ALL.into_iter().filter(|op| !op.is_bitwise())
}

/// One call of every collective into the setup's outputs, each checked against the reference
/// when `check` (the reads allocate host memory only).
fn every_collective<R: GpuRuntime>(b: &GpuBackend<R>, s: &mut Setup<R>, check: bool) {
    let ge = Predicate::Ge(THRESHOLD);
    for op in ReduceOp::ALL {
        b.reduce_into(&s.u_in, op, &mut s.u_one).unwrap();
        if check {
            let want = refr::device_reduce(&s.ints, op);
            assert_eq!(b.download(&s.u_one).unwrap(), [want], "reduce u32 {op:?}");
        }
    }
    for op in float_ops() {
        b.reduce_into(&s.f_in, op, &mut s.f_one).unwrap();
        if check {
            let want = refr::device_reduce(&s.floats, op);
            let got = b.download(&s.f_one).unwrap();
            assert!(same(&got, &[want]), "reduce f32 {op:?}: {got:?} != {want}");
        }
    }
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        b.scan(&s.f_in, &mut s.f_scan, ReduceOp::Sum, kind).unwrap();
        b.scan(&s.u_in, &mut s.u_scan, ReduceOp::Max, kind).unwrap();
        if check {
            let want = refr::device_scan(&s.floats, ReduceOp::Sum, kind);
            let got = b.download(&s.f_scan).unwrap();
            assert!(same(&got, &want), "scan f32 {kind:?}");
            let want = refr::device_scan(&s.ints, ReduceOp::Max, kind);
            assert_eq!(b.download(&s.u_scan).unwrap(), want, "scan u32 {kind:?}");
        }
    }
    b.count_if_into(&s.u_in, ge, &mut s.count).unwrap();
    let selected = refr::compact(&s.ints, &ge);
    if check {
        assert_eq!(b.download(&s.count).unwrap(), [selected.len() as u64]);
    }
    for stable in [true, false] {
        if check {
            // Below the threshold, so no selected value: the tail must keep it.
            b.write(&mut s.compacted, &vec![7; s.n]).unwrap();
        }
        b.compact_into(&s.u_in, ge, stable, &mut s.compacted, &mut s.count)
            .unwrap();
        if check {
            assert_eq!(b.download(&s.count).unwrap(), [selected.len() as u64]);
            let all = b.download(&s.compacted).unwrap();
            assert!(all[selected.len()..].iter().all(|&x| x == 7), "the tail");
            let mut got = all[..selected.len()].to_vec();
            let mut want = selected.clone();
            if !stable {
                got.sort_unstable();
                want.sort_unstable();
            }
            assert_eq!(got, want, "compact stable={stable}");
        }
    }
    b.segmented_reduce_into(&s.f_in, &s.fixed, ReduceOp::Sum, &mut s.fixed_out)
        .unwrap();
    b.segmented_reduce_into(&s.f_in, &s.by_offsets, ReduceOp::Max, &mut s.offsets_out)
        .unwrap();
    b.block_reduce_into(&s.u_in, BLOCK, ReduceOp::BitXor, &mut s.blocks_out)
        .unwrap();
    b.histogram_into(&s.keys_in, BINS, &mut s.hist).unwrap();
    b.spmv(&s.csr, &s.f_in, &mut s.y, VectorSize::Auto).unwrap();
    if check {
        let want = refr::segmented_reduce_fixed(&s.floats, SEGMENT, 4, ReduceOp::Sum);
        let got = b.download(&s.fixed_out).unwrap();
        assert!(same(&got, &want));
        let vector = refr::auto_vector(s.n, s.offsets.len() - 1);
        let want = refr::segmented_reduce_offsets(&s.floats, &s.offsets, vector, ReduceOp::Max);
        let got = b.download(&s.offsets_out).unwrap();
        assert!(same(&got, &want));
        let want = refr::block_reduce(&s.ints, BLOCK, ReduceOp::BitXor);
        assert_eq!(b.download(&s.blocks_out).unwrap(), want);
        let (mut want, outside) = refr::histogram(&s.keys, BINS);
        want.push(outside);
        assert_eq!(b.download(&s.hist).unwrap(), want);
        let (ro, cols, vals) = &s.csr_host;
        let vector = refr::auto_vector(cols.len(), ro.len() - 1);
        let want = refr::spmv(ro, cols, vals, &s.floats, vector);
        let got = b.download(&s.y).unwrap();
        assert!(same(&got, &want));
    }
    arg_reduces(b, s, check);
    b.atomic_agg_inc_into(&s.slots_in, &mut s.counters, &mut s.olds)
        .unwrap();
}

/// argmin and argmax of the floats, and the segmented argmax over the offset segments.
fn arg_reduces<R: GpuRuntime>(b: &GpuBackend<R>, s: &mut Setup<R>, check: bool) {
    for op in ArgOp::ALL {
        b.arg_reduce_into(&s.f_in, op, &mut s.arg_v, &mut s.arg_i)
            .unwrap();
        if check {
            let (v, i) = refr::arg_reduce(&s.floats, op).unwrap();
            assert_eq!(b.download(&s.arg_v).unwrap(), [v], "{op:?} value");
            assert_eq!(b.download(&s.arg_i).unwrap(), [i as u64], "{op:?} index");
        }
    }
    b.segmented_arg_reduce_into(
        &s.f_in,
        &s.by_offsets,
        ArgOp::Max,
        &mut s.seg_arg_v,
        &mut s.seg_arg_i,
    )
    .unwrap();
    if check {
        let bounds = refr::offset_segments(&s.offsets);
        let (v, i) = refr::segmented_arg_reduce(&s.floats, &bounds, ArgOp::Max);
        assert!(
            same(&b.download(&s.seg_arg_v).unwrap(), &v),
            "segmented argmax"
        );
        assert_eq!(
            b.download(&s.seg_arg_i).unwrap(),
            i,
            "segmented argmax indices"
        );
    }
}

/// Checks the counters and old values after `calls` increments of every slot, from zero.
fn check_atomics<R: GpuRuntime>(b: &GpuBackend<R>, s: &Setup<R>, calls: u32) {
    let mut per_slot = [0u32; COUNTERS];
    for &k in &s.slots {
        per_slot[k as usize] += 1;
    }
    let want: Vec<u32> = per_slot.iter().map(|&c| c * calls).collect();
    assert_eq!(b.download(&s.counters).unwrap(), want);
    // The last call's old values of slot k are (calls - 1) * c_k + 0 .. c_k, in some order.
    let olds = b.download(&s.olds).unwrap();
    for (k, &c) in per_slot.iter().enumerate() {
        let mut got: Vec<u32> = s
            .slots
            .iter()
            .zip(&olds)
            .filter(|&(&slot, _)| slot as usize == k)
            .map(|(_, &o)| o)
            .collect();
        got.sort_unstable();
        let want: Vec<u32> = ((calls - 1) * c..calls * c).collect();
        assert_eq!(got, want, "old values of slot {k}");
    }
}

fn steady_state<R: GpuRuntime>(b: &GpuBackend<R>, n: usize, warm: Warm, repeats: usize) {
    let mut s = setup(b, n);
    let mut calls = 0;
    match warm {
        Warm::Reserve => {
            b.reserve::<f32>(n).unwrap();
            b.reserve::<u32>(n).unwrap();
        }
        Warm::FirstCall => {
            every_collective(b, &mut s, true);
            sorts(b, &mut s, true);
            calls += 1;
        }
    }
    b.synchronize().unwrap();
    let before = b.device_allocations();
    for i in 0..repeats {
        every_collective(b, &mut s, false);
        if i < SORT_CALLS {
            sorts(b, &mut s, false);
        }
        calls += 1;
    }
    b.synchronize().unwrap();
    assert_eq!(
        b.device_allocations(),
        before,
        "{} device allocations in {repeats} calls of each collective ({warm:?}, {} on {})",
        b.device_allocations() - before,
        n,
        b.name()
    );
    check_atomics(b, &s, calls);
    // The results of the last calls are the reference's (checked outside the count: the
    // reads allocate host memory only, but `download` is not what is measured).
    every_collective(b, &mut s, true);
    sorts(b, &mut s, true);
    // The one-value conveniences reuse a slot the backend keeps (`reserve` makes it; without,
    // the first convenience call does).
    b.reduce(&s.f_in, ReduceOp::Sum).unwrap();
    // argmin reads its value and its index through two lent slots.
    b.argmin(&s.f_in).unwrap();
    let before = b.device_allocations();
    for _ in 0..repeats {
        b.reduce(&s.f_in, ReduceOp::Sum).unwrap();
        b.count_if(&s.u_in, Predicate::Lt(THRESHOLD)).unwrap();
        b.argmin(&s.f_in).unwrap();
    }
    assert_eq!(
        b.device_allocations(),
        before,
        "conveniences on {}",
        b.name()
    );
}

/// An allocation the test makes is counted: the counter can fail the test above.
fn the_counter_counts<R: GpuRuntime>(b: &GpuBackend<R>) {
    let before = b.device_allocations();
    let buf = b.alloc::<u32>(10).unwrap();
    let _up = b.upload(&[1u32, 2]).unwrap();
    assert_eq!(b.device_allocations(), before + 2);
    // A first scan of a larger input grows the scratch pool.
    let big = 1 << 16;
    let input = b.alloc::<u32>(big).unwrap();
    let mut out = b.alloc::<u32>(big).unwrap();
    let before = b.device_allocations();
    b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    assert!(b.device_allocations() > before, "the scan's scratch");
    drop(buf);
}

#[cfg(feature = "simt")]
mod simt {
    use super::*;

    /// Large enough for several scan and reduce tiles (4096 elements each).
    const N: usize = 9000;
    /// Calls in the counted loop. The executor runs every kernel on the CPU, and 100 rounds of
    /// every collective were a minute of CI; an allocation a call makes shows from the first
    /// repeat on (the scratch pools grow on a larger input, a new type or a failed launch, none
    /// of which a repeat brings). CUDA runs 100.
    const CALLS: usize = 10;

    fn run(w: WarpWidth, warm: Warm) {
        let b = wavekit::simt::open(w).unwrap();
        steady_state(&b, N, warm, CALLS);
    }

    #[test]
    fn reserved_w32() {
        run(WarpWidth::W32, Warm::Reserve);
    }

    #[test]
    fn reserved_w64() {
        run(WarpWidth::W64, Warm::Reserve);
    }

    #[test]
    fn warmed_by_a_first_call_w32() {
        run(WarpWidth::W32, Warm::FirstCall);
    }

    #[test]
    fn counter() {
        the_counter_counts(&wavekit::simt::open(WarpWidth::W32).unwrap());
    }
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;

    /// Calls in the counted loop.
    const CALLS: usize = 100;

    #[test]
    #[ignore = "needs a CUDA device"]
    fn reserved_and_warmed() {
        let b = wavekit::cuda::open(0).expect("CUDA device 0");
        for n in [9000, 1 << 20] {
            steady_state(&b, n, Warm::Reserve, CALLS);
            steady_state(&b, n, Warm::FirstCall, CALLS);
        }
        // A fresh backend: this one's pool already fits every size the counter test uses.
        the_counter_counts(&wavekit::cuda::open(0).expect("CUDA device 0"));
    }

    /// After `reserve`, one call of each collective at a time, so an allocation names its
    /// collective (the steady-state test above only sees the total).
    #[test]
    #[ignore = "needs a CUDA device"]
    fn reserve_covers_each_collective() {
        let b = wavekit::cuda::open(0).expect("CUDA device 0");
        let n = 1 << 20;
        let mut s = setup(&b, n);
        b.reserve::<f32>(n).unwrap();
        b.reserve::<u32>(n).unwrap();
        let ge = Predicate::Ge(THRESHOLD);
        let mut grew = vec![];
        let mut step = |name: String, f: &mut dyn FnMut(&mut Setup<_>)| {
            let before = b.device_allocations();
            f(&mut s);
            b.synchronize().unwrap();
            let after = b.device_allocations();
            if after != before {
                grew.push(format!("{name}: {}", after - before));
            }
        };
        for op in ReduceOp::ALL {
            step(format!("reduce_into u32 {op:?}"), &mut |s| {
                b.reduce_into(&s.u_in, op, &mut s.u_one).unwrap()
            });
        }
        for op in float_ops() {
            step(format!("reduce_into f32 {op:?}"), &mut |s| {
                b.reduce_into(&s.f_in, op, &mut s.f_one).unwrap()
            });
        }
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            step(format!("scan {kind:?}"), &mut |s| {
                b.scan(&s.f_in, &mut s.f_scan, ReduceOp::Sum, kind).unwrap();
                b.scan(&s.u_in, &mut s.u_scan, ReduceOp::Max, kind).unwrap();
            });
        }
        step("count_if_into".into(), &mut |s| {
            b.count_if_into(&s.u_in, ge, &mut s.count).unwrap()
        });
        for stable in [true, false] {
            step(format!("compact_into stable={stable}"), &mut |s| {
                b.compact_into(&s.u_in, ge, stable, &mut s.compacted, &mut s.count)
                    .unwrap()
            });
        }
        step("segmented_reduce_into".into(), &mut |s| {
            b.segmented_reduce_into(&s.f_in, &s.fixed, ReduceOp::Sum, &mut s.fixed_out)
                .unwrap();
            b.segmented_reduce_into(&s.f_in, &s.by_offsets, ReduceOp::Max, &mut s.offsets_out)
                .unwrap();
        });
        step("block_reduce_into".into(), &mut |s| {
            b.block_reduce_into(&s.u_in, BLOCK, ReduceOp::BitXor, &mut s.blocks_out)
                .unwrap()
        });
        step("histogram_into".into(), &mut |s| {
            b.histogram_into(&s.keys_in, BINS, &mut s.hist).unwrap()
        });
        step("spmv".into(), &mut |s| {
            b.spmv(&s.csr, &s.f_in, &mut s.y, VectorSize::Auto).unwrap()
        });
        step("sorts".into(), &mut |s| sorts(&b, s, false));
        step(
            "arg_reduce_into, segmented_arg_reduce_into".into(),
            &mut |s| arg_reduces(&b, s, false),
        );
        step("atomic_agg_inc_into".into(), &mut |s| {
            b.atomic_agg_inc_into(&s.slots_in, &mut s.counters, &mut s.olds)
                .unwrap()
        });
        assert!(grew.is_empty(), "allocations after reserve: {grew:?}");
    }
}
