//! The GPU backend's memory cache (backends/gpu/src/mem_cache.rs): a dropped buffer's memory
//! serves the next allocation of a like size, only within the limit, never a much smaller
//! request, and goes back on `release_cached_memory`; collectives whose outputs land in reused
//! memory (holding an earlier call's data) still give the reference's results. On the SIMT
//! executor at both widths (caching turned on: its default is off) and on CUDA.

use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{Backend, Collectives, ReduceOp, ScanKind, Sort, SortOrder, WarpWidth};
use wavekit_conformance::reference as refr;

fn reuse<R: GpuRuntime>(b: &GpuBackend<R>) {
    b.set_memory_cache_limit(usize::MAX);
    b.release_cached_memory();
    let first = b.upload(&[7u32; 4096]).unwrap();
    let at = first.device_ptr();
    drop(first);
    assert_eq!(
        b.cached_memory(),
        16384,
        "the dropped buffer's block is kept"
    );
    let same = b.alloc::<u32>(4000).unwrap();
    assert_eq!(
        same.device_ptr(),
        at,
        "a slightly smaller request reuses the block"
    );
    assert_eq!(b.cached_memory(), 0);
    let other = b.alloc::<u32>(1000).unwrap();
    assert_ne!(
        other.device_ptr(),
        at,
        "a block 4x the request is not handed out"
    );
    drop(same);
    let bigger = b.alloc::<u32>(4097).unwrap();
    assert_ne!(
        bigger.device_ptr(),
        at,
        "a block smaller than the request is not handed out"
    );
    assert_eq!(b.cached_memory(), 16384);
    drop((other, bigger));
    assert_eq!(b.cached_memory(), 16384 + 4000 + 16388);
    assert_eq!(b.release_cached_memory(), 16384 + 4000 + 16388);
    assert_eq!(b.cached_memory(), 0);

    // The limit: a block that does not fit in what is left is freed; lowering it frees now.
    b.set_memory_cache_limit(20000);
    drop((b.alloc::<u32>(4096).unwrap(), b.alloc::<u32>(4096).unwrap()));
    assert_eq!(
        b.cached_memory(),
        16384,
        "only one 16 KiB block fits under 20000 bytes"
    );
    b.set_memory_cache_limit(0);
    assert_eq!(
        b.cached_memory(),
        0,
        "a lower limit gives back what is over it"
    );
    drop(b.alloc::<u32>(4096).unwrap());
    assert_eq!(b.cached_memory(), 0, "limit 0 keeps nothing");
}

/// Outputs allocated by each call land in blocks that held an earlier call's data (the
/// returning forms and their scratch): the results must not depend on what was there.
fn results_in_reused_memory<R: GpuRuntime>(b: &GpuBackend<R>) {
    b.set_memory_cache_limit(usize::MAX);
    let n = 20000;
    let keys: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let floats: Vec<f32> = keys.iter().map(|&k| (k % 1000) as f32 - 499.5).collect();
    let k = b.upload(&keys).unwrap();
    let f = b.upload(&floats).unwrap();
    let mut sorted = keys.clone();
    sorted.sort();
    let scanned = refr::device_scan(&floats, ReduceOp::Sum, ScanKind::Exclusive);
    let mut before: Vec<u64> = vec![];
    for round in 0..3 {
        let s = b.sort_keys(&k, SortOrder::ASCENDING).unwrap();
        assert_eq!(b.download(&s).unwrap(), sorted, "sort, round {round}");
        let mut out = b.alloc::<f32>(n).unwrap();
        b.scan(&f, &mut out, ReduceOp::Sum, ScanKind::Exclusive)
            .unwrap();
        let got = b.download(&out).unwrap();
        assert!(
            got.iter()
                .zip(&scanned)
                .all(|(a, e)| a.to_bits() == e.to_bits()),
            "scan, round {round}"
        );
        let mut now = vec![s.device_ptr(), out.device_ptr()];
        now.sort();
        assert!(
            round == 0 || now == before,
            "round {round} reuses round {}'s blocks",
            round - 1
        );
        before = now;
    }
    b.set_memory_cache_limit(0);
}

#[cfg(feature = "simt")]
mod simt {
    use super::*;

    #[test]
    fn reuse_w32() {
        reuse(&wavekit::simt::open(WarpWidth::W32).unwrap());
    }

    #[test]
    fn reuse_w64() {
        reuse(&wavekit::simt::open(WarpWidth::W64).unwrap());
    }

    #[test]
    fn off_by_default() {
        let b = wavekit::simt::open(WarpWidth::W32).unwrap();
        drop(b.upload(&[1u32; 100]).unwrap());
        assert_eq!(
            b.cached_memory(),
            0,
            "the executor keeps no freed memory by default"
        );
    }

    #[test]
    fn results_w32() {
        results_in_reused_memory(&wavekit::simt::open(WarpWidth::W32).unwrap());
    }

    #[test]
    fn results_w64() {
        results_in_reused_memory(&wavekit::simt::open(WarpWidth::W64).unwrap());
    }
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;

    #[test]
    #[ignore = "needs a CUDA device"]
    fn reuse_and_results() {
        let b = wavekit::cuda::open(0).expect("CUDA device 0");
        drop(b.upload(&[1u32; 100]).unwrap());
        assert_eq!(b.cached_memory(), 400, "CUDA keeps freed memory by default");
        reuse(&b);
        results_in_reused_memory(&b);
    }
}
