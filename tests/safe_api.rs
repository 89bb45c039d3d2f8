//! Issue 11's probes of the safe API, as a user's program makes them (through the `wavekit`
//! facade only), on the CPU backend and the SIMT executor at 32 and 64 lanes: each bad call
//! must come back as a typed error with every caller-visible buffer unchanged. The CUDA
//! backend gets the same probes in cuda_probes.rs.

use wavekit::prelude::*;
use wavekit::{Csr, WavekitError as E};

/// `$body` is a `fn(&B)` generic over the backend; one `#[test]` per backend and width.
macro_rules! on_every_backend {
    ($name:ident, $body:path) => {
        mod $name {
            use super::*;
            #[test]
            fn cpu_w32() {
                $body(&CpuBackend::new(WarpWidth::W32));
            }
            #[test]
            fn cpu_w64() {
                $body(&CpuBackend::new(WarpWidth::W64));
            }
            #[cfg(feature = "simt")]
            #[test]
            fn simt_w32() {
                $body(&wavekit::simt::open(WarpWidth::W32).unwrap());
            }
            #[cfg(feature = "simt")]
            #[test]
            fn simt_w64() {
                $body(&wavekit::simt::open(WarpWidth::W64).unwrap());
            }
        }
    };
}

/// Hole 1: a validated CSR matrix cannot be changed after `Csr::new` (its fields are private,
/// see the compile_fail example in `wavekit::safety`); its shape is read through getters and
/// every SpMV is checked against it.
fn csr_shape_is_fixed<B: Collectives>(b: &B) {
    let a = Csr::new(b, 2, 3, &[0, 1, 3], &[2, 0, 1], &[1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 3));
    let x = b.upload(&[1.0f32, 10.0, 100.0]).unwrap();
    let mut y = b.upload(&[7.0f32; 3]).unwrap();
    let r = b.spmv(&a, &x, &mut y, VectorSize::Auto);
    assert!(
        matches!(
            r,
            Err(E::LengthMismatch {
                expected: 2,
                got: 3,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(b.download(&y).unwrap(), [7.0; 3]);
    let short_x = b.upload(&[1.0f32; 2]).unwrap();
    let mut y = b.upload(&[7.0f32; 2]).unwrap();
    let r = b.spmv(&a, &short_x, &mut y, VectorSize::Auto);
    assert!(
        matches!(
            r,
            Err(E::LengthMismatch {
                expected: 3,
                got: 2,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(b.download(&y).unwrap(), [7.0; 2]);
    b.spmv(&a, &x, &mut y, VectorSize::Auto).unwrap();
    assert_eq!(b.download(&y).unwrap(), [100.0, 2.0 + 30.0]);
}
on_every_backend!(hole1_csr_shape_is_fixed, csr_shape_is_fixed);

/// Hole 2: the calls issue 11 made through the raw entry points (now unreachable, see
/// `wavekit::safety`) made through the validated API instead: a scan into one element, a
/// tile shuffle of a short slice, a compaction whose output the API sizes itself.
fn raw_calls_through_the_api<B: Collectives + WarpPrimitives>(b: &B) {
    let input = b.upload(&[1u32, 2, 3, 4]).unwrap();
    let mut one = b.upload(&[9u32]).unwrap();
    let r = b.scan(&input, &mut one, ReduceOp::Sum, ScanKind::Inclusive);
    assert!(
        matches!(
            r,
            Err(E::LengthMismatch {
                expected: 4,
                got: 1,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(b.download(&one).unwrap(), [9]);
    let c = b.compact(&input, Predicate::Ge(2), true).unwrap();
    assert_eq!(c.data.len(), 4);
    assert_eq!(b.download(&c.data).unwrap()[..c.len], [2, 3, 4]);
    // Three values for tiles of four: no complete tile, so no defined lane.
    let r = b.tile_shfl(4, Shfl::Down, &[1u32, 2, 3], 1).unwrap();
    assert_eq!(r, [None, None, None]);
}
on_every_backend!(hole2_raw_calls_through_the_api, raw_calls_through_the_api);

/// Hole 6: arithmetic that overflowed in debug builds. `Csr::new` with `usize::MAX` rows
/// computed `rows + 1` ("attempt to add with overflow"); the executor's per-lane outputs
/// `n * 8` (see support/raw_probes.rs, and activemask below); `shfl_source` with
/// width 0 computed `width - 1` (and in release returned a lane of another segment).
fn debug_overflow<B: Collectives + WarpPrimitives>(b: &B) {
    let r = Csr::new(b, usize::MAX, 4, &[0, 1], &[0], &[1.0f32]);
    assert!(matches!(r, Err(E::TooLarge { .. })), "{:?}", r.err());
    let full = wavekit::LaneMask::full(b.warp_width());
    let r = b.activemask(usize::MAX, full);
    assert!(
        matches!(r, Err(E::OutOfMemory { bytes: u64::MAX })),
        "{r:?}"
    );
    // i32::MAX is cut to its low log2(W) bits as the hardware does: 31 at W=32 (lane 31 reads
    // 31 - 31 = 0 up and 31 ^ 31 = 0 xor), 63 at W=64 (every kind keeps lane 31's own value).
    let w = b.warp_width();
    let want = if w.lanes() == 32 {
        [31, 0, 31, 0]
    } else {
        [31; 4]
    };
    for (kind, want) in [Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor]
        .into_iter()
        .zip(want)
    {
        assert_eq!(wavekit::lanes::shfl_source(kind, 37, 3, 0, w), 37);
        assert_eq!(
            wavekit::lanes::shfl_source(kind, 31, i32::MAX, 32, w),
            want,
            "{kind:?}"
        );
    }
}
on_every_backend!(hole6_debug_overflow, debug_overflow);
