#![cfg(feature = "cuda")]
//! The conformance suite on CUDA device 0, with the native primitives and with the software
//! emulations HIP relies on (uni, match, syncwarp, activemask) selected instead.

wavekit_conformance::instantiate!(
    cuda_native,
    wavekit::cuda::open(0).expect("CUDA device 0"),
    ignore = "needs a CUDA device"
);
wavekit_conformance::instantiate!(
    cuda_emulated,
    wavekit::cuda::open(0)
        .expect("CUDA device 0")
        .with_emulation(true),
    ignore = "needs a CUDA device"
);
