//! Every conformance case at small scale on CUDA, native and emulated: the binary that
//! `scripts/gpu-test.sh sanitize` runs under compute-sanitizer's memcheck, racecheck,
//! synccheck and initcheck (the full-size suite would take too long under the tools).

#[macro_use]
mod common;

instantiate_conformance!(
    small_native,
    wavekit::cuda::open(0).expect("CUDA device 0"),
    scale = Small,
    ignore = "needs a CUDA device"
);
instantiate_conformance!(
    small_emulated,
    wavekit::cuda::open(0)
        .expect("CUDA device 0")
        .with_emulation(true),
    scale = Small,
    ignore = "needs a CUDA device"
);
