#![cfg(feature = "cuda")]
//! Launch-level checks on the GPU: kernels compare the runtime warp size with the width they
//! were compiled for, and the device's attributes are read, not assumed.

#![cfg(feature = "cuda")]

use wavekit::WavekitError;
use wavekit::gpu::GpuRuntime;
use wavekit::prelude::*;

#[test]
#[ignore = "needs a CUDA device"]
fn device_attributes_are_read_at_run_time() {
    let b = wavekit::cuda::open(0).expect("CUDA device 0");
    let rt = b.runtime();
    assert_eq!(
        rt.warp_size(),
        32,
        "every NVIDIA GPU so far has 32-lane warps"
    );
    assert_eq!(b.warp_width(), WarpWidth::W32);
    assert!(rt.multiprocessors() > 0);
    assert!(b.name().starts_with("cuda:0 ("), "{}", b.name());
    println!("{} with {} SMs", b.name(), rt.multiprocessors());
}

#[test]
#[ignore = "needs a CUDA device"]
fn kernels_refuse_a_warp_size_they_were_not_compiled_for() {
    let b = wavekit::cuda::open(0)
        .expect("CUDA device 0")
        .with_launch_warp_size(64);
    let mask = LaneMask::full(WarpWidth::W32);
    let err = b
        .vote(Vote::Any, &[true; 40], mask)
        .expect_err("a 64-lane launch on 32-lane kernels");
    match err {
        WavekitError::Device {
            backend: "cuda",
            call,
            message,
        } => {
            assert_eq!(call, "vote");
            assert!(message.contains("warp width"), "{message}");
        }
        other => panic!("expected a Device error, got {other:?}"),
    }
    // The status word is cleared after the error: a correct launch on the same device works.
    let ok = wavekit::cuda::open(0).expect("CUDA device 0");
    let r = ok.vote(Vote::Any, &[true; 40], mask).unwrap();
    assert_eq!(r[0], Some(wavekit::VoteResult::Bool(true)));
}

#[test]
#[ignore = "needs a CUDA device"]
fn buffers_of_another_stream_are_shared() {
    // Two backends of one device are two streams over one memory (docs/INTEROP.md): a buffer
    // of one is used by the other, with the ordering between the streams the caller's.
    let a = wavekit::cuda::open(0).expect("CUDA device 0");
    let b = wavekit::cuda::open(0).expect("CUDA device 0");
    let buf = a.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    a.synchronize().unwrap();
    assert_eq!(b.download(&buf).unwrap(), [1.0, 2.0, 3.0]);
    assert_eq!(b.reduce(&buf, ReduceOp::Sum).unwrap(), 6.0);
    assert_eq!(a.reduce(&buf, ReduceOp::Sum).unwrap(), 6.0);
}
