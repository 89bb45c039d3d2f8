//! Issue 11's probes on the CUDA backend, the bad calls the executor and the CPU get in
//! safe_api.rs, simt_raw_checks.rs and the conformance suite: inconsistent raw calls
//! (support/raw_probes.rs, made through the unsafe test hook) and the public API's bad
//! arguments, each a typed error with no write past a device allocation.
//! `scripts/gpu-test.sh` stages this binary; `run.sh sanitize` runs it under
//! compute-sanitizer memcheck, which must report nothing.

#![cfg(feature = "cuda")]

use wavekit::{Backend, Collectives, Csr, LaneMask, VectorSize, WarpPrimitives, WavekitError as E};

fn open() -> wavekit::cuda::CudaBackend {
    wavekit::cuda::open(0).expect("CUDA device 0")
}

mod raw {
    wavekit_tests::raw_probes!(super::open(), ignore = "needs a CUDA device");
}

#[test]
#[ignore = "needs a CUDA device"]
fn public_api_bad_calls() {
    let b = open();
    let full = LaneMask::full(b.warp_width());
    // Sizes no device holds: refused before any launch.
    let keys = b.upload(&[1u32, 2, 3]).unwrap();
    assert!(matches!(
        b.histogram(&keys, u32::MAX),
        Err(E::OutOfMemory { .. })
    ));
    assert!(matches!(
        b.activemask(1 << 38, full),
        Err(E::OutOfMemory { .. })
    ));
    assert!(matches!(
        b.activemask(usize::MAX, full),
        Err(E::OutOfMemory { .. })
    ));
    assert!(matches!(
        b.alloc::<u32>(1 << 60),
        Err(E::OutOfMemory { .. })
    ));
    // A slot past the counters as the last thread: nothing incremented.
    let mut slots = vec![0u32; 1000];
    slots[999] = 2;
    let slots = b.upload(&slots).unwrap();
    let mut counters = b.upload(&[5u32, 6]).unwrap();
    let r = b.atomic_agg_inc(&slots, &mut counters);
    assert!(matches!(
        r,
        Err(E::IndexOutOfRange {
            value: 2,
            limit: 2,
            ..
        })
    ));
    assert_eq!(b.download(&counters).unwrap(), [5, 6]);
    // SpMV with x and y of the wrong lengths, and a CSR matrix with too many rows.
    let a = Csr::new(&b, 2, 3, &[0, 1, 3], &[2, 0, 1], &[1.0f32, 2.0, 3.0]).unwrap();
    let x = b.upload(&[1.0f32; 2]).unwrap();
    let mut y = b.upload(&[7.0f32; 2]).unwrap();
    assert!(b.spmv(&a, &x, &mut y, VectorSize::Auto).is_err());
    assert_eq!(b.download(&y).unwrap(), [7.0; 2]);
    let r = Csr::new(&b, usize::MAX, 3, &[0], &[], &[] as &[f32]);
    assert!(matches!(r, Err(E::TooLarge { .. })));
    // A scan into one element.
    let input = b.upload(&[1u32; 5000]).unwrap();
    let mut one = b.upload(&[9u32]).unwrap();
    let r = b.scan(
        &input,
        &mut one,
        wavekit::ReduceOp::Sum,
        wavekit::ScanKind::Inclusive,
    );
    assert!(matches!(r, Err(E::LengthMismatch { .. })));
    assert_eq!(b.download(&one).unwrap(), [9]);
}
