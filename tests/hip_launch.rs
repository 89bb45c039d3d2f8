#![cfg(feature = "hip")]
//! Launch-level checks on an AMD GPU: the warp width comes from the device and matches its
//! target's code object (wave64 on CDNA/GCN, wave32 on RDNA), lane masks carry every lane of
//! the wave (bit 63 on wave64), and kernels refuse a width they were not compiled for.

use wavekit::WavekitError;
use wavekit::gpu::GpuRuntime;
use wavekit::prelude::*;

/// What HIP compiles a target for: gfx6..gfx9 wave64, gfx10 and later wave32.
fn expected_lanes(arch: &str) -> u32 {
    let processor = arch.split(':').next().unwrap().strip_prefix("gfx").unwrap();
    let major: u32 = processor[..processor.len() - 2].parse().unwrap();
    if major >= 10 { 32 } else { 64 }
}

#[test]
#[ignore = "needs an AMD GPU"]
fn device_width_matches_its_target() {
    let b = wavekit::hip::open(0).expect("HIP device 0");
    let rt = b.runtime();
    let lanes = expected_lanes(rt.arch());
    assert_eq!(rt.warp_size(), lanes, "{}", rt.arch());
    assert_eq!(b.warp_width().lanes(), lanes);
    assert!(rt.multiprocessors() > 0);
    assert!(b.name().starts_with("hip:0 ("), "{}", b.name());
    println!("{} with {} compute units", b.name(), rt.multiprocessors());
}

#[test]
#[ignore = "needs an AMD GPU"]
fn masks_reach_the_last_lane_of_the_wave() {
    let b = wavekit::hip::open(0).expect("HIP device 0");
    let w = b.warp_width();
    let last = w.lanes() - 1;
    // Two warps; only the last lane of each votes true.
    let preds: Vec<bool> = (0..2 * w.lanes()).map(|t| t % w.lanes() == last).collect();
    let want = LaneMask::single(last, w).unwrap();
    let r = b.vote(Vote::Ballot, &preds, LaneMask::full(w)).unwrap();
    assert!(
        r.iter()
            .all(|v| *v == Some(wavekit::VoteResult::Ballot(want))),
        "{r:?}"
    );
    // A 64-bit value read from the last lane by every lane moves whole.
    let vals: Vec<u64> = (0..2 * w.lanes() as u64)
        .map(|t| t << 40 | 0xdead_beef)
        .collect();
    let got = b
        .shfl(Shfl::Idx, &vals, last as i32, w.lanes(), LaneMask::full(w))
        .unwrap();
    for (t, g) in got.iter().enumerate() {
        let src = t / w.lanes() as usize * w.lanes() as usize + last as usize;
        assert_eq!(*g, Some(vals[src]), "thread {t}");
    }
}

#[test]
#[ignore = "needs an AMD GPU"]
fn kernels_refuse_a_warp_size_they_were_not_compiled_for() {
    let good = wavekit::hip::open(0).expect("HIP device 0");
    let w = good.warp_width();
    let other = if w.lanes() == 64 { 32 } else { 64 };
    let bad = wavekit::hip::open(0)
        .expect("HIP device 0")
        .with_launch_warp_size(other);
    let mask = LaneMask::full(w);
    match bad
        .vote(Vote::Any, &[true; 40], mask)
        .expect_err("a launch planned for another width")
    {
        WavekitError::Device {
            backend: "hip",
            call,
            message,
        } => {
            assert_eq!(call, "vote");
            assert!(message.contains("warp width"), "{message}");
        }
        other => panic!("expected a Device error, got {other:?}"),
    }
    let r = good.vote(Vote::Any, &[true; 40], mask).unwrap();
    assert_eq!(r[0], Some(wavekit::VoteResult::Bool(true)));
}
