#![cfg(feature = "cuda")]
//! Each software emulation in csrc/wavekit/emulated.h (what HIP uses for uni, match, syncwarp
//! and activemask) run on the GPU against CUDA's native instruction on the same inputs.

use wavekit::cuda::{self, CudaBackend};
use wavekit::element::splitmix;
use wavekit::prelude::*;

fn pair() -> (CudaBackend, CudaBackend) {
    let native = cuda::open(0).expect("CUDA device 0");
    let emulated = cuda::open(0).expect("CUDA device 0").with_emulation(true);
    assert!(!native.emulation() && emulated.emulation());
    (native, emulated)
}

/// Full, empty-but-one, alternating, half and random masks.
fn masks(w: WarpWidth) -> Vec<LaneMask> {
    let mut m = vec![
        LaneMask::full(w),
        LaneMask::single(0, w).unwrap(),
        LaneMask::single(w.lanes() - 1, w).unwrap(),
        LaneMask::from_fn(w, |l| l % 2 == 0),
        LaneMask::from_fn(w, |l| l % 2 == 1),
        LaneMask::from_fn(w, |l| l < w.lanes() / 2),
    ];
    for s in 0..24u64 {
        m.push(LaneMask::from_bits(splitmix(s) & w.full_bits(), w).unwrap());
    }
    m
}

const THREADS: [usize; 5] = [1, 31, 32, 100, 1000];

#[test]
#[ignore = "needs a CUDA device"]
fn uni_emulation_matches_native() {
    let (n, e) = pair();
    let w = n.warp_width();
    for mask in masks(w) {
        for &t in &THREADS {
            for density in [0u64, 1, 2, 3] {
                let preds: Vec<bool> = (0..t as u64)
                    .map(|i| match density {
                        0 => false,
                        1 => true,
                        _ => splitmix(i * 7 + density).is_multiple_of(density),
                    })
                    .collect();
                let a = n.vote(Vote::Uni, &preds, mask).unwrap();
                let b = e.vote(Vote::Uni, &preds, mask).unwrap();
                assert_eq!(a, b, "uni, mask {mask:?}, {t} threads, density {density}");
                for tile in [2u32, 4, 8, 16, 32] {
                    let a = n.tile_vote(tile, Vote::Uni, &preds).unwrap();
                    let b = e.tile_vote(tile, Vote::Uni, &preds).unwrap();
                    assert_eq!(a, b, "tile uni, tile {tile}, {t} threads");
                }
            }
        }
    }
}

fn match_case<T: Element>(n: &CudaBackend, e: &CudaBackend, distinct: u64) {
    let w = n.warp_width();
    for mask in masks(w) {
        for &t in &THREADS {
            let vals: Vec<T> = (0..t as u64)
                .map(|i| T::from_seed(splitmix(i) % distinct))
                .collect();
            let a = n.match_any(&vals, mask).unwrap();
            let b = e.match_any(&vals, mask).unwrap();
            assert_eq!(
                a,
                b,
                "match_any {} mask {mask:?} {t} threads",
                T::KIND.name()
            );
            let a = n.match_all(&vals, mask).unwrap();
            let b = e.match_all(&vals, mask).unwrap();
            assert_eq!(
                a,
                b,
                "match_all {} mask {mask:?} {t} threads",
                T::KIND.name()
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn match_emulation_matches_native() {
    let (n, e) = pair();
    for distinct in [1u64, 2, 5, 1 << 40] {
        match_case::<i32>(&n, &e, distinct);
        match_case::<u32>(&n, &e, distinct);
        match_case::<i64>(&n, &e, distinct);
        match_case::<u64>(&n, &e, distinct);
        match_case::<f32>(&n, &e, distinct);
        match_case::<f64>(&n, &e, distinct);
    }
    // Bit patterns: -0.0 and +0.0 differ, equal NaN bits match.
    let w = n.warp_width();
    let vals: Vec<f32> = (0..64)
        .map(|i| [0.0f32, -0.0, f32::NAN, 1.0][i % 4])
        .collect();
    let a = n.match_any(&vals, LaneMask::full(w)).unwrap();
    let b = e.match_any(&vals, LaneMask::full(w)).unwrap();
    assert_eq!(a, b);
}

#[test]
#[ignore = "needs a CUDA device"]
fn syncwarp_emulation_matches_native() {
    let (n, e) = pair();
    for mask in masks(n.warp_width()) {
        for &t in &THREADS {
            let vals: Vec<u64> = (0..t as u64).map(splitmix).collect();
            let a = n.syncwarp_transpose(&vals, mask).unwrap();
            let b = e.syncwarp_transpose(&vals, mask).unwrap();
            assert_eq!(a, b, "transpose mask {mask:?} {t} threads");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn activemask_emulation_keeps_the_guarantee() {
    // Both may legitimately see fewer lanes than the branch (SEMANTICS "activemask"): each
    // must hold the caller and only branch lanes.
    let (n, e) = pair();
    let w = n.warp_width();
    for mask in masks(w) {
        for &t in &THREADS {
            for b in [&n, &e] {
                let got = b.activemask(t, mask).unwrap();
                for (i, r) in got.iter().enumerate() {
                    let lane = (i % w.lanes() as usize) as u32;
                    match r {
                        None => assert!(!mask.contains(lane), "member {i} got None"),
                        Some(m) => {
                            assert!(
                                m.contains(lane),
                                "{} thread {i}: {m:?} lacks the caller",
                                b.name()
                            );
                            assert_eq!(
                                m.intersect(mask.complement()).count(),
                                0,
                                "{m:?} beyond {mask:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn agg_inc_with_emulated_match_matches_native_counts() {
    let (n, e) = pair();
    for (threads, counters) in [(1usize, 1usize), (100, 3), (5000, 7), (70_000, 1000)] {
        let slots: Vec<u32> = (0..threads as u64)
            .map(|i| (splitmix(i) % counters as u64) as u32)
            .collect();
        let start: Vec<u32> = (0..counters as u32).map(|c| c * 1000).collect();
        let mut finals = Vec::new();
        for b in [&n, &e] {
            let s = b.upload(&slots).unwrap();
            let mut c = b.upload(&start).unwrap();
            let olds = b.download(&b.atomic_agg_inc(&s, &mut c).unwrap()).unwrap();
            // Per counter, the old values are exactly start, start+1, ... each once.
            let mut per: Vec<Vec<u32>> = vec![Vec::new(); counters];
            for (t, &slot) in slots.iter().enumerate() {
                per[slot as usize].push(olds[t]);
            }
            for (k, mut got) in per.into_iter().enumerate() {
                got.sort_unstable();
                let want: Vec<u32> = (0..got.len() as u32).map(|i| start[k] + i).collect();
                assert_eq!(got, want, "{} counter {k}", b.name());
            }
            finals.push(b.download(&c).unwrap());
        }
        assert_eq!(finals[0], finals[1]);
    }
}

/// `warp_reduce_sync` of 32-bit integers: the hardware reduce (redux.sync, sm_80+) on the native
/// backend, the canonical shuffle tree on the emulated one, for every op and mask; also against
/// the suite's reference, so both paths are held to the same value.
fn reduce_sync_case<T: Element>(n: &CudaBackend, e: &CudaBackend) {
    let w = n.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for mask in masks(w) {
            for &t in &THREADS {
                let vals: Vec<T> = (0..t as u64)
                    .map(|i| T::from_seed(splitmix(i ^ mask.bits())))
                    .collect();
                let a = n.warp_reduce_sync(&vals, op, mask).unwrap();
                let b = e.warp_reduce_sync(&vals, op, mask).unwrap();
                let want = wavekit_conformance::reference::warp_reduce_sync(&vals, op, mask);
                let ctx = format!("{op:?} {} mask {mask:?} {t} threads", T::KIND.name());
                assert_eq!(a, want, "native, {ctx}");
                assert_eq!(b, want, "emulated, {ctx}");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn warp_reduce_sync_hardware_matches_the_tree() {
    let (n, e) = pair();
    reduce_sync_case::<i32>(&n, &e);
    reduce_sync_case::<u32>(&n, &e);
}
