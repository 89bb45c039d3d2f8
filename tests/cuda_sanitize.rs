#![cfg(feature = "cuda")]
//! Every conformance case at small scale on CUDA, native and emulated: the binary that
//! `scripts/gpu-test.sh sanitize` runs under compute-sanitizer's memcheck, racecheck,
//! synccheck and initcheck (the full-size suite would take too long under the tools).

wavekit_conformance::instantiate!(
    small_native,
    wavekit::cuda::open(0).expect("CUDA device 0"),
    scale = Small,
    ignore = "needs a CUDA device"
);
wavekit_conformance::instantiate!(
    small_emulated,
    wavekit::cuda::open(0)
        .expect("CUDA device 0")
        .with_emulation(true),
    scale = Small,
    ignore = "needs a CUDA device"
);
