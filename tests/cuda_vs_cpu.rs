#![cfg(feature = "cuda")]
//! CUDA collectives against the CPU oracle at width 32, bit for bit (floats included, NaN
//! payloads aside): the canonical combining order makes them agree on any GPU model.

use wavekit::cpu::CpuBackend;
use wavekit::cuda::{self, CudaBackend};
use wavekit::element::splitmix;
use wavekit::prelude::*;
use wavekit::{Csr, Segments};

fn gpu() -> CudaBackend {
    cuda::open(0).expect("CUDA device 0")
}

fn cpu() -> CpuBackend {
    CpuBackend::new(WarpWidth::W32)
}

/// Seeded values; floats also get -0.0, +0.0 and, when `nan`, a NaN now and then.
fn input<T: Element>(n: usize, seed: u64, nan: bool) -> Vec<T> {
    (0..n as u64)
        .map(|i| {
            let r = splitmix(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            if T::KIND.is_float() {
                let bits32 = [0x8000_0000u64, 0, 0x7fc0_0000];
                let bits64 = [0x8000_0000_0000_0000u64, 0, 0x7ff8_0000_0000_0000];
                let special = if T::KIND.size() == 4 { bits32 } else { bits64 };
                match r % 1024 {
                    0 => return T::from_bits(special[0]),
                    1 => return T::from_bits(special[1]),
                    2 if nan => return T::from_bits(special[2]),
                    _ => {}
                }
            }
            T::from_seed(r)
        })
        .collect()
}

fn assert_same<T: Element>(what: &str, want: &[T], got: &[T]) {
    assert_eq!(want.len(), got.len(), "{what}: length");
    if let Some(i) = (0..want.len()).find(|&i| !want[i].same(got[i])) {
        panic!("{what}: index {i}: cpu {:?}, cuda {:?}", want[i], got[i]);
    }
}

macro_rules! for_each_type {
    ($f:ident($($arg:expr),*)) => {
        $f::<i32>($($arg),*);
        $f::<u32>($($arg),*);
        $f::<i64>($($arg),*);
        $f::<u64>($($arg),*);
        $f::<f32>($($arg),*);
        $f::<f64>($($arg),*);
    };
}

fn device_reduce_case<T: Element>(g: &CudaBackend, c: &CpuBackend, sizes: &[usize]) {
    for &n in sizes {
        for op in ReduceOp::ops_for(T::KIND) {
            for nan in [false, true] {
                let data = input::<T>(n, n as u64 * 31 + op as u64, nan);
                let want = c.reduce(&c.upload(&data).unwrap(), op).unwrap();
                let got = g.reduce(&g.upload(&data).unwrap(), op).unwrap();
                assert_same(
                    &format!("reduce {} {} n={n} nan={nan}", T::KIND.name(), op.name()),
                    &[want],
                    &[got],
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn device_reduce_matches_cpu() {
    let (g, c) = (gpu(), cpu());
    let sizes = [1, 5, 4095, 4096, 4097, 3 * 4096 + 17, (1 << 20) + 12345];
    for_each_type!(device_reduce_case(&g, &c, &sizes));
}

#[test]
#[ignore = "needs a CUDA device"]
fn device_reduce_three_levels_matches_cpu() {
    // 4099 tiles: the last block reduces 4099 partials into 2, then 2 into 1.
    let (g, c) = (gpu(), cpu());
    let n = 4099 * 4096 - 5;
    device_reduce_case::<f32>(&g, &c, &[n]);
    device_reduce_case::<f64>(&g, &c, &[n]);
}

/// The 16-bit floats' reduce from 2^14 tiles (2^26 elements), where blocks take four tiles (their
/// partials reduced together) and a second launch reduces the float partials: the sizes below
/// that, as the conformance suite's, never reach it. A last block of three tiles, the last one
/// short.
fn half_reduce_case<T: Element>(g: &CudaBackend, c: &CpuBackend) {
    let n = (1 << 26) + 3 * 4096 - 100;
    for op in ReduceOp::ops_for(T::KIND) {
        let data: Vec<T> = (0..n as u64)
            .map(|i| T::from_seed(splitmix(op as u64 ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))))
            .collect();
        let want = c.reduce(&c.upload(&data).unwrap(), op).unwrap();
        let got = g.reduce(&g.upload(&data).unwrap(), op).unwrap();
        let what = format!("reduce {} {} n={n}", T::KIND.name(), op.name());
        assert_same(&what, &[want], &[got]);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn device_reduce_of_16_bit_floats_in_four_tile_blocks_matches_cpu() {
    let (g, c) = (gpu(), cpu());
    half_reduce_case::<wavekit::f16>(&g, &c);
    half_reduce_case::<wavekit::bf16>(&g, &c);
}

fn device_scan_case<T: Element>(g: &CudaBackend, c: &CpuBackend, sizes: &[usize]) {
    for &n in sizes {
        for op in ReduceOp::ops_for(T::KIND) {
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                let data = input::<T>(n, n as u64 * 17 + op as u64, false);
                let ci = c.upload(&data).unwrap();
                let mut co = c.alloc::<T>(n).unwrap();
                c.scan(&ci, &mut co, op, kind).unwrap();
                let gi = g.upload(&data).unwrap();
                let mut go = g.alloc::<T>(n).unwrap();
                g.scan(&gi, &mut go, op, kind).unwrap();
                assert_same(
                    &format!("scan {kind:?} {} {} n={n}", T::KIND.name(), op.name()),
                    &c.download(&co).unwrap(),
                    &g.download(&go).unwrap(),
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn device_scan_matches_cpu() {
    let (g, c) = (gpu(), cpu());
    // 40 tiles: the look-back window of one warp is passed; 257 tiles for a longer chain.
    let sizes = [1, 17, 4096, 4097, 40 * 4096 + 5, 257 * 4096 - 3];
    for_each_type!(device_scan_case(&g, &c, &sizes));
}

/// The 16-bit floats' scan, whose tile prefixes advance in groups of four tiles (SEMANTICS
/// "device_scan" step 5): scan_kernel's two tiles a block (blocks start inside groups) below
/// 1024 tiles, scan_pairs_kernel's four from there (a last block of three tiles, the last one
/// short, and a last group cut short).
fn half_scan_case<T: Element>(g: &CudaBackend, c: &CpuBackend) {
    let sizes = [17 * 4096 + 9, 150 * 4096 + 3, (1 << 22) + 3 * 4096 - 100];
    device_scan_case::<T>(g, c, &sizes);
}

#[test]
#[ignore = "needs a CUDA device"]
fn device_scan_of_16_bit_floats_in_tile_groups_matches_cpu() {
    let (g, c) = (gpu(), cpu());
    half_scan_case::<wavekit::f16>(&g, &c);
    half_scan_case::<wavekit::bf16>(&g, &c);
}

fn small_collectives_case<T: Element>(g: &CudaBackend, c: &CpuBackend) {
    let n = 5003;
    for op in ReduceOp::ops_for(T::KIND) {
        let data = input::<T>(n, 99 + op as u64, true);
        let name = |what: &str| format!("{what} {} {}", T::KIND.name(), op.name());
        for block in [32u32, 64, 96, 256, 1024] {
            let want = c
                .block_reduce(&c.upload(&data).unwrap(), block, op)
                .unwrap();
            let got = g
                .block_reduce(&g.upload(&data).unwrap(), block, op)
                .unwrap();
            assert_same(&name(&format!("block_reduce {block}")), &want, &got);
        }
        for width in [1u32, 2, 4, 8, 16, 32] {
            assert_same(
                &name(&format!("warp_reduce {width}")),
                &c.warp_reduce(&data, width, op).unwrap(),
                &g.warp_reduce(&data, width, op).unwrap(),
            );
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                assert_same(
                    &name(&format!("warp_scan {kind:?} {width}")),
                    &c.warp_scan(&data, width, op, kind).unwrap(),
                    &g.warp_scan(&data, width, op, kind).unwrap(),
                );
            }
        }
        for tile in [2u32, 4, 8, 16, 32] {
            let want = c.tile_reduce(tile, op, &data).unwrap();
            let got = g.tile_reduce(tile, op, &data).unwrap();
            assert_eq!(want.len(), got.len());
            for (i, (w, o)) in want.iter().zip(&got).enumerate() {
                match (w, o) {
                    (Some(w), Some(o)) => assert!(
                        w.same(*o),
                        "{} tile {tile} lane {i}: {w:?} vs {o:?}",
                        name("tile_reduce")
                    ),
                    (None, None) => {}
                    _ => panic!(
                        "{} tile {tile} lane {i}: definedness differs",
                        name("tile_reduce")
                    ),
                }
            }
        }
        for vector in [
            VectorSize::Auto,
            VectorSize::Lanes(1),
            VectorSize::Lanes(4),
            VectorSize::Lanes(32),
        ] {
            for size in [1usize, 7, 64, 1000] {
                let cs = Segments::fixed(size, vector).unwrap();
                let gs = Segments::fixed(size, vector).unwrap();
                let want = c
                    .download(
                        &c.segmented_reduce(&c.upload(&data).unwrap(), &cs, op)
                            .unwrap(),
                    )
                    .unwrap();
                let got = g
                    .download(
                        &g.segmented_reduce(&g.upload(&data).unwrap(), &gs, op)
                            .unwrap(),
                    )
                    .unwrap();
                assert_same(
                    &name(&format!("segmented fixed {size} {vector:?}")),
                    &want,
                    &got,
                );
            }
            let mut offsets = vec![0u32];
            let mut at = 0u32;
            for k in 0..200u64 {
                at = (at + (splitmix(k) % 60) as u32).min(n as u32);
                offsets.push(at);
            }
            *offsets.last_mut().unwrap() = n as u32;
            let cs = Segments::from_offsets(c, &offsets, n, vector).unwrap();
            let gs = Segments::from_offsets(g, &offsets, n, vector).unwrap();
            let want = c
                .download(
                    &c.segmented_reduce(&c.upload(&data).unwrap(), &cs, op)
                        .unwrap(),
                )
                .unwrap();
            let got = g
                .download(
                    &g.segmented_reduce(&g.upload(&data).unwrap(), &gs, op)
                        .unwrap(),
                )
                .unwrap();
            assert_same(&name(&format!("segmented offsets {vector:?}")), &want, &got);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn small_collectives_match_cpu() {
    let (g, c) = (gpu(), cpu());
    for_each_type!(small_collectives_case(&g, &c));
}

fn spmv_case<T: Element>(g: &CudaBackend, c: &CpuBackend) {
    let (rows, cols) = (700usize, 300usize);
    let mut offsets = vec![0u32];
    let mut col_idx = Vec::new();
    for r in 0..rows as u64 {
        let len = splitmix(r) % 80;
        for k in 0..len {
            col_idx.push((splitmix(r * 1000 + k) % cols as u64) as u32);
        }
        offsets.push(col_idx.len() as u32);
    }
    let vals = input::<T>(col_idx.len(), 5, false);
    let x = input::<T>(cols, 6, false);
    for vector in [
        VectorSize::Auto,
        VectorSize::Lanes(1),
        VectorSize::Lanes(8),
        VectorSize::Lanes(32),
    ] {
        let ca = Csr::new(c, rows, cols, &offsets, &col_idx, &vals).unwrap();
        let mut cy = c.alloc::<T>(rows).unwrap();
        c.spmv(&ca, &c.upload(&x).unwrap(), &mut cy, vector)
            .unwrap();
        let ga = Csr::new(g, rows, cols, &offsets, &col_idx, &vals).unwrap();
        let mut gy = g.alloc::<T>(rows).unwrap();
        g.spmv(&ga, &g.upload(&x).unwrap(), &mut gy, vector)
            .unwrap();
        assert_same(
            &format!("spmv {} {vector:?}", T::KIND.name()),
            &c.download(&cy).unwrap(),
            &g.download(&gy).unwrap(),
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmv_matches_cpu() {
    let (g, c) = (gpu(), cpu());
    for_each_type!(spmv_case(&g, &c));
}

#[test]
#[ignore = "needs a CUDA device"]
fn selection_matches_cpu() {
    let (g, c) = (gpu(), cpu());
    for n in [1usize, 1000, 4096 * 3 + 1, 1 << 20] {
        let data = input::<f32>(n, 3, true);
        for pred in [
            Predicate::Lt(0.0f32),
            Predicate::Ne(0.0),
            Predicate::InRange(-10.0, 500.0),
        ] {
            let want = c.count_if(&c.upload(&data).unwrap(), pred).unwrap();
            assert_eq!(
                want,
                g.count_if(&g.upload(&data).unwrap(), pred).unwrap(),
                "count_if n={n} {pred:?}"
            );
            let cc = c.compact(&c.upload(&data).unwrap(), pred, true).unwrap();
            let gc = g.compact(&g.upload(&data).unwrap(), pred, true).unwrap();
            assert_eq!(cc.len, gc.len, "stable compact length n={n}");
            let want = c.download(&cc.data).unwrap();
            let got = g.download(&gc.data).unwrap();
            assert_same(
                &format!("stable compact n={n} {pred:?}"),
                &want[..cc.len],
                &got[..gc.len],
            );
            let gu = g.compact(&g.upload(&data).unwrap(), pred, false).unwrap();
            let mut got: Vec<u32> = g.download(&gu.data).unwrap()[..gu.len]
                .iter()
                .map(|v| v.to_bits())
                .collect();
            let mut want: Vec<u32> = want[..cc.len].iter().map(|v| v.to_bits()).collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(want, got, "unordered compact multiset n={n}");
        }
        let keys: Vec<u32> = (0..n as u64).map(|i| (splitmix(i) % 300) as u32).collect();
        for bins in [1u32, 7, 256, 10_000] {
            let want = c.histogram(&c.upload(&keys).unwrap(), bins).unwrap();
            let got = g.histogram(&g.upload(&keys).unwrap(), bins).unwrap();
            assert_eq!(
                (want.counts, want.outside),
                (got.counts, got.outside),
                "histogram n={n} bins={bins}"
            );
        }
    }
}

/// Keys in runs of 1 to 12 equal keys, the run keys drawn from a small set (so that neighbouring
/// runs sometimes merge); f32 keys get -0.0 / +0.0 and NaNs through `input`.
fn run_keys<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let pool = input::<T>(n / 4 + 1, seed, true);
    let mut keys = Vec::with_capacity(n);
    let mut r = 0u64;
    while keys.len() < n {
        let h = splitmix(seed ^ r);
        let len = (h % 12 + 1) as usize;
        let key = pool[(h >> 8) as usize % pool.len().min(5)];
        keys.extend(std::iter::repeat_n(key, len.min(n - keys.len())));
        r += 1;
    }
    keys
}

fn runs_case<T: Element>(g: &CudaBackend, c: &CpuBackend) {
    // 1024 tiles of 4096 keys and more take the launcher's wide shapes (two tiles a block for
    // the keys alone): whole, with a last block of one tile and one key, and with a partial tile.
    for n in [
        1000usize,
        4096 * 1024 - 1,
        4096 * 1024 + 4097,
        4096 * 1200 + 5,
    ] {
        let keys = run_keys::<T>(n, 7 + n as u64);
        let (ck, gk) = (c.upload(&keys).unwrap(), g.upload(&keys).unwrap());
        let (cu, gu) = (c.unique(&ck).unwrap(), g.unique(&gk).unwrap());
        assert_eq!(cu.len, gu.len, "unique count n={n} {:?}", T::KIND);
        assert_same(
            &format!("unique n={n} {:?}", T::KIND),
            &c.download(&cu.data).unwrap()[..cu.len],
            &g.download(&gu.data).unwrap()[..gu.len],
        );
        let (cr, gr) = (
            c.run_length_encode(&ck).unwrap(),
            g.run_length_encode(&gk).unwrap(),
        );
        assert_eq!(
            cr.len,
            gr.len,
            "run_length_encode count n={n} {:?}",
            T::KIND
        );
        assert_same(
            &format!("run_length_encode keys n={n} {:?}", T::KIND),
            &c.download(&cr.keys).unwrap()[..cr.len],
            &g.download(&gr.keys).unwrap()[..gr.len],
        );
        assert_eq!(
            c.download(&cr.lengths).unwrap()[..cr.len],
            g.download(&gr.lengths).unwrap()[..gr.len],
            "run_length_encode lengths n={n} {:?}",
            T::KIND
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn runs_at_every_shape_match_cpu() {
    let (g, c) = (gpu(), cpu());
    runs_case::<u32>(&g, &c);
    runs_case::<f32>(&g, &c);
    runs_case::<i64>(&g, &c);
}
