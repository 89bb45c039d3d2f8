#![cfg(feature = "cuda")]
//! wavekit inside a cudarc program: the caller's memory (CudaSlice, CudaView, CudaViewMut, raw
//! device pointers) adopted without a copy, the caller's streams, results read back by cudarc
//! and checked against the CPU oracle; cross-stream use ordered (cudarc writes on one stream,
//! wavekit reads on another, cudarc reads wavekit's output on the first).

use std::sync::Arc;
use wavekit::cpu::CpuBackend;
use wavekit::cuda::cudarc::driver::{CudaContext, CudaStream};
use wavekit::cuda::{self, AsWavekit, AsWavekitMut};
use wavekit::{Backend, Collectives, Predicate, ReduceOp, ScanKind, WarpWidth, WavekitError};

fn floats(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 1009) as f32 * 0.25 - 120.0)
        .collect()
}

fn ints(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| (i * 31) % 2003 - 1000).collect()
}

fn oracle() -> CpuBackend {
    CpuBackend::new(WarpWidth::W32)
}

fn stream() -> Arc<CudaStream> {
    CudaContext::new(0)
        .expect("CUDA device 0")
        .new_stream()
        .expect("stream")
}

#[test]
#[ignore = "needs a CUDA device"]
fn same_stream_reduce_scan_compact_on_cudarc_memory() {
    let s = stream();
    let wk = cuda::open_on_stream(s.clone()).unwrap();
    let cpu = oracle();

    let fs = floats(1 << 20);
    let d_fs = s.clone_htod(&fs).unwrap();
    let got = wk
        .reduce(&d_fs.as_wavekit(&wk).unwrap(), ReduceOp::Sum)
        .unwrap();
    let want = cpu.reduce(&cpu.view(&fs), ReduceOp::Sum).unwrap();
    assert_eq!(got.to_bits(), want.to_bits());

    // A CudaView of a range.
    let part = d_fs.slice(1000..300_000);
    let got = wk
        .reduce(&part.as_wavekit(&wk).unwrap(), ReduceOp::Max)
        .unwrap();
    let want = cpu
        .reduce(&cpu.view(&fs[1000..300_000]), ReduceOp::Max)
        .unwrap();
    assert_eq!(got.to_bits(), want.to_bits());

    // Scan into a cudarc slice, read back by cudarc.
    let xs = ints(1_000_003);
    let d_xs = s.clone_htod(&xs).unwrap();
    let mut d_out = s.alloc_zeros::<i32>(xs.len()).unwrap();
    wk.scan(
        &d_xs.as_wavekit(&wk).unwrap(),
        &mut d_out.as_wavekit_mut(&wk).unwrap(),
        ReduceOp::Sum,
        ScanKind::Exclusive,
    )
    .unwrap();
    let mut want = vec![0i32; xs.len()];
    cpu.scan(
        &cpu.view(&xs),
        &mut cpu.view_mut(&mut want),
        ReduceOp::Sum,
        ScanKind::Exclusive,
    )
    .unwrap();
    assert_eq!(s.clone_dtoh(&d_out).unwrap(), want);

    // Scan into a CudaViewMut window: only the window changes.
    let mut d_win = s.alloc_zeros::<i32>(3000).unwrap();
    {
        let mut window = d_win.slice_mut(1000..2000);
        let input = d_xs.slice(0..1000);
        wk.scan(
            &input.as_wavekit(&wk).unwrap(),
            &mut window.as_wavekit_mut(&wk).unwrap(),
            ReduceOp::Sum,
            ScanKind::Inclusive,
        )
        .unwrap();
    }
    let mut want = vec![0i32; 1000];
    cpu.scan(
        &cpu.view(&xs[..1000]),
        &mut cpu.view_mut(&mut want),
        ReduceOp::Sum,
        ScanKind::Inclusive,
    )
    .unwrap();
    let back = s.clone_dtoh(&d_win).unwrap();
    assert!(back[..1000].iter().chain(&back[2000..]).all(|&x| x == 0));
    assert_eq!(&back[1000..2000], want);

    // Compaction and count of adopted memory.
    let pred = Predicate::Gt(100i32);
    let view = d_xs.as_wavekit(&wk).unwrap();
    let got = wk.compact(&view, pred, true).unwrap();
    let want = cpu.compact(&cpu.view(&xs), pred, true).unwrap();
    assert_eq!(got.len, want.len);
    assert_eq!(
        &wk.download(&got.data).unwrap()[..got.len],
        &want.data.as_slice()[..want.len]
    );
    assert_eq!(wk.count_if(&view, pred).unwrap(), want.len as u64);
    drop(view);
    s.context().check_err().unwrap();
}

/// cudarc writes on S1, wavekit (on S2) reads it and writes its output into a cudarc slice of
/// S1, and cudarc reads that on S1: each step must see the previous one complete.
#[test]
#[ignore = "needs a CUDA device"]
fn cross_stream_adoption_is_ordered() {
    let ctx = CudaContext::new(0).unwrap();
    let s1 = ctx.new_stream().unwrap();
    let s2 = ctx.new_stream().unwrap();
    let wk = cuda::open_on_stream(s2.clone()).unwrap();
    let cpu = oracle();
    let n = 1 << 24;
    let xs = ints(n);
    for round in 0..5 {
        // Queue a long chain on S1: zero, then the data, so a read that is not ordered after
        // both sees zeros or a partial copy.
        let mut d_x = s1.alloc_zeros::<i32>(n).unwrap();
        s1.memset_zeros(&mut d_x).unwrap();
        s1.memcpy_htod(&xs, &mut d_x).unwrap();
        let mut d_y = s1.alloc_zeros::<i32>(n).unwrap();
        let sum = wk
            .reduce(&d_x.as_wavekit(&wk).unwrap(), ReduceOp::Sum)
            .unwrap();
        let want = cpu.reduce(&cpu.view(&xs), ReduceOp::Sum).unwrap();
        assert_eq!(sum, want, "round {round}: reduce on S2 of S1's writes");
        wk.scan(
            &d_x.as_wavekit(&wk).unwrap(),
            &mut d_y.as_wavekit_mut(&wk).unwrap(),
            ReduceOp::Max,
            ScanKind::Inclusive,
        )
        .unwrap();
        // cudarc on S1 right away, no host synchronisation.
        let back = s1.clone_dtoh(&d_y).unwrap();
        let mut want = vec![0i32; n];
        cpu.scan(
            &cpu.view(&xs),
            &mut cpu.view_mut(&mut want),
            ReduceOp::Max,
            ScanKind::Inclusive,
        )
        .unwrap();
        assert!(back == want, "round {round}: S1 read of S2's scan");
        // S1 overwrites its input after the views dropped; the backend's next read sees it.
        s1.memset_zeros(&mut d_x).unwrap();
        assert_eq!(
            wk.reduce(&d_x.as_wavekit(&wk).unwrap(), ReduceOp::Max)
                .unwrap(),
            0
        );
    }
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn raw_pointers_and_raw_streams() {
    use wavekit::cuda::cudarc::driver::DevicePtr;
    let s = stream();
    // SAFETY: `s` is a live stream of device 0's primary context, kept by this test until after
    // `wk` drops.
    let wk = unsafe { cuda::open_on_raw_stream(0, s.cu_stream()) }.unwrap();
    let xs = ints(4096);
    let d = s.clone_htod(&xs).unwrap();
    let (ptr, _sync) = d.device_ptr(&s);
    // SAFETY: `d` holds `xs.len()` initialised i32s on device 0, alive and unwritten until the end
    // of the test; the copy into it was queued on `s`, the backend's stream.
    let view = unsafe { wk.adopt::<i32>(ptr, xs.len()) }.unwrap();
    assert_eq!(
        wk.reduce(&view, ReduceOp::Sum).unwrap(),
        xs.iter().sum::<i32>()
    );
    assert!(matches!(
        // SAFETY: inside `d`, and refused anyway (misaligned) before any view exists.
        unsafe { wk.adopt::<i32>(ptr + 2, 1) },
        Err(WavekitError::Misaligned { align: 4, .. })
    ));
    let part = wk.slice(&view, 100..200).unwrap();
    assert_eq!(
        wk.reduce(&part, ReduceOp::Sum).unwrap(),
        xs[100..200].iter().sum::<i32>()
    );
}

/// One backend per stream: a buffer made by one is used by the other, and freeing it after the
/// allocating backend is gone is fine.
#[test]
#[ignore = "needs a CUDA device"]
fn buffers_cross_backends_of_one_device() {
    let ctx = CudaContext::new(0).unwrap();
    let a = cuda::open_on_stream(ctx.new_stream().unwrap()).unwrap();
    let b = cuda::open_on_stream(ctx.new_stream().unwrap()).unwrap();
    let xs = ints(100_000);
    let buf = a.upload(&xs).unwrap();
    let mut out = b.alloc::<i32>(xs.len()).unwrap();
    b.scan(&buf, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    // The scan is queued on b's stream; a's download waits for a's stream only (racecheck,
    // which slows kernels, read zeros here before this join).
    b.synchronize().unwrap();
    let mut want = vec![0i32; xs.len()];
    let cpu = oracle();
    cpu.scan(
        &cpu.view(&xs),
        &mut cpu.view_mut(&mut want),
        ReduceOp::Sum,
        ScanKind::Inclusive,
    )
    .unwrap();
    assert_eq!(a.download(&out).unwrap(), want);
    drop(a);
    assert_eq!(b.download(&buf).unwrap(), xs);
    drop(buf);
    drop(out);
    // Also wavekit's own backend (its own stream) with a caller's.
    let own = cuda::open(0).unwrap();
    let d = ctx.default_stream().clone_htod(&xs).unwrap();
    assert_eq!(
        own.reduce(&d.as_wavekit(&own).unwrap(), ReduceOp::Sum)
            .unwrap(),
        xs.iter().sum::<i32>()
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn foreign_contexts_are_refused() {
    let other = CudaContext::new_non_primary(0, 0).unwrap();
    let s = other.new_stream().unwrap();
    assert!(matches!(
        cuda::open_on_stream(s.clone()),
        Err(WavekitError::UnsupportedStream { .. })
    ));
    let wk = cuda::open(0).unwrap();
    let d = s.clone_htod(&[1i32, 2, 3]).unwrap();
    assert!(matches!(
        d.as_wavekit(&wk),
        Err(WavekitError::ForeignBuffer)
    ));
}
