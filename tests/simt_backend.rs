//! The executor backend against the CPU oracle, bit for bit, at both widths and under every
//! schedule, and the plumbing that turns hazards into errors.

#![cfg(feature = "simt")]

use wavekit::gpu::GpuRuntime;
use wavekit::simt::pitfalls;
use wavekit::simt::{self, HazardKind, Schedule, SimtBackend, SimtRuntime};
use wavekit::{
    Backend, Collectives, Element, LaneMask, ReduceOp, ScanKind, Shfl, VectorSize, WarpPrimitives,
    WarpWidth, cpu::CpuBackend,
};

const SCHEDULES: [Schedule; 4] = [
    Schedule::Lockstep,
    Schedule::Forward,
    Schedule::Reverse,
    Schedule::Random(99),
];

fn floats(n: usize, seed: u64) -> Vec<f32> {
    (0..n as u64)
        .map(|i| f32::from_seed(seed * 1_000_003 + i))
        .collect()
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn backends(width: WarpWidth) -> impl Iterator<Item = (Schedule, SimtBackend)> {
    SCHEDULES
        .into_iter()
        .map(move |s| (s, simt::open_with(width, s).unwrap()))
}

#[test]
fn names_and_widths() {
    for width in WarpWidth::ALL {
        let b = simt::open(width).unwrap();
        assert_eq!(b.warp_width(), width);
        assert!(b.name().starts_with("simt:0"), "{}", b.name());
        assert!(
            b.name().contains(&format!("{} lanes", width.lanes())),
            "{}",
            b.name()
        );
        assert_eq!(simt::open(width).unwrap().warp_width(), width);
    }
}

#[test]
fn float_reduce_and_scan_match_the_oracle_bit_for_bit() {
    // Three reduce tiles and two scan tiles with a ragged end: rounding shows any change of order.
    let data = floats(2 * 4096 + 1234, 7);
    for width in WarpWidth::ALL {
        let cpu = CpuBackend::new(width);
        let cin = cpu.upload(&data).unwrap();
        let want_sum = cpu.reduce(&cin, ReduceOp::Sum).unwrap();
        let mut cout = cpu.alloc::<f32>(data.len()).unwrap();
        cpu.scan(&cin, &mut cout, ReduceOp::Sum, ScanKind::Inclusive)
            .unwrap();
        let want_scan = cpu.download(&cout).unwrap();
        let want_blocks = cpu.block_reduce(&cin, 96, ReduceOp::Sum).unwrap();
        for (schedule, b) in backends(width) {
            let input = b.upload(&data).unwrap();
            let got = b.reduce(&input, ReduceOp::Sum).unwrap();
            assert_eq!(
                got.to_bits(),
                want_sum.to_bits(),
                "reduce w{width} {schedule:?}"
            );
            let mut out = b.alloc::<f32>(data.len()).unwrap();
            b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
                .unwrap();
            assert!(
                same_bits(&b.download(&out).unwrap(), &want_scan),
                "scan w{width} {schedule:?}"
            );
            let blocks = b.block_reduce(&input, 96, ReduceOp::Sum).unwrap();
            assert!(
                same_bits(&blocks, &want_blocks),
                "block reduce w{width} {schedule:?}"
            );
            assert!(b.runtime().take_hazards().is_empty());
        }
    }
}

#[test]
fn spmv_and_warp_collectives_match_the_oracle() {
    let rows = 40usize;
    let cols = 33usize;
    let mut offsets = vec![0u32];
    let mut col_idx = Vec::new();
    for r in 0..rows {
        for k in 0..(r * 7 % 23) {
            col_idx.push(((r * 5 + k * 3) % cols) as u32);
        }
        offsets.push(col_idx.len() as u32);
    }
    let vals = floats(col_idx.len(), 3);
    let x = floats(cols, 4);
    let warp_in = floats(200, 5);
    for width in WarpWidth::ALL {
        let cpu = CpuBackend::new(width);
        let a = wavekit::Csr::new(&cpu, rows, cols, &offsets, &col_idx, &vals).unwrap();
        let cx = cpu.upload(&x).unwrap();
        let mut cy = cpu.alloc::<f32>(rows).unwrap();
        cpu.spmv(&a, &cx, &mut cy, VectorSize::Lanes(8)).unwrap();
        let want_y = cpu.download(&cy).unwrap();
        let want_scan = cpu
            .warp_scan(&warp_in, 16, ReduceOp::Sum, ScanKind::Exclusive)
            .unwrap();
        for (schedule, b) in backends(width) {
            let a = wavekit::Csr::new(&b, rows, cols, &offsets, &col_idx, &vals).unwrap();
            let bx = b.upload(&x).unwrap();
            let mut by = b.alloc::<f32>(rows).unwrap();
            b.spmv(&a, &bx, &mut by, VectorSize::Lanes(8)).unwrap();
            assert!(
                same_bits(&b.download(&by).unwrap(), &want_y),
                "spmv w{width} {schedule:?}"
            );
            let scan = b
                .warp_scan(&warp_in, 16, ReduceOp::Sum, ScanKind::Exclusive)
                .unwrap();
            assert!(
                same_bits(&scan, &want_scan),
                "warp scan w{width} {schedule:?}"
            );
        }
    }
}

#[test]
fn shuffles_of_non_members_are_expected_not_hazards() {
    for width in WarpWidth::ALL {
        let b = simt::open(width).unwrap();
        let vals: Vec<u32> = (0..width.lanes() * 2).collect();
        let even = LaneMask::from_fn(width, |l| l % 2 == 0);
        let got = b.shfl(Shfl::Down, &vals, 1, width.lanes(), even).unwrap();
        let want = CpuBackend::new(width)
            .shfl(Shfl::Down, &vals, 1, width.lanes(), even)
            .unwrap();
        assert_eq!(got, want);
        assert!(
            got.iter().all(Option::is_none),
            "every even lane reads an odd one: {got:?}"
        );
        assert!(
            b.runtime().expected_hazards() > 0,
            "the executor saw the reads of odd lanes"
        );
        assert!(b.runtime().take_hazards().is_empty());
    }
}

#[test]
fn emulated_and_native_primitives_agree() {
    for width in WarpWidth::ALL {
        let native = simt::open(width).unwrap();
        let emulated = simt::open(width).unwrap().with_emulation(true);
        let vals: Vec<u64> = (0..width.lanes() as u64 * 3 - 5)
            .map(|i| i % 5 * 0x1_0000_0001)
            .collect();
        let mask = LaneMask::from_fn(width, |l| l % 3 != 1);
        assert_eq!(
            native.match_any(&vals, mask).unwrap(),
            emulated.match_any(&vals, mask).unwrap()
        );
        assert_eq!(
            native.match_all(&vals, mask).unwrap(),
            emulated.match_all(&vals, mask).unwrap()
        );
        assert_eq!(
            native.syncwarp_transpose(&vals, mask).unwrap(),
            emulated.syncwarp_transpose(&vals, mask).unwrap()
        );
        assert!(native.runtime().take_hazards().is_empty());
        assert!(emulated.runtime().take_hazards().is_empty());
    }
}

#[test]
fn activemask_under_independent_scheduling_keeps_only_the_guarantee() {
    for width in WarpWidth::ALL {
        let branch = LaneMask::from_fn(width, |l| l < width.lanes() - 3);
        let threads = width.lanes() as usize;
        let lock = simt::open_with(width, Schedule::Lockstep).unwrap();
        let full = lock.activemask(threads, branch).unwrap();
        assert!(
            full.iter().flatten().all(|m| *m == branch),
            "lockstep: the whole branch"
        );
        let its = simt::open(width).unwrap();
        let got = its.activemask(threads, branch).unwrap();
        for (l, m) in got.iter().enumerate() {
            if let Some(m) = m {
                assert!(
                    m.contains(l as u32) && m.intersect(branch) == *m,
                    "lane {l}: {m:?}"
                );
                assert!(
                    m.count() < branch.count(),
                    "independent scheduling splits the branch"
                );
            }
        }
    }
}

#[test]
fn a_hazard_fails_the_call_and_is_kept() {
    let rt = SimtRuntime::new(WarpWidth::W32, Schedule::Forward);
    let a = vec![50; 64];
    pitfalls::vote_all(rt.session(), WarpWidth::W32, false, &a, 40).unwrap();
    let err = rt.check(3, "vote").unwrap_err().to_string();
    assert!(
        err.contains("InactiveMaskLane") && err.contains("vote_all<false>"),
        "{err}"
    );
    let kept = rt.take_hazards();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].kind, HazardKind::InactiveMaskLane);
    assert!(rt.take_hazards().is_empty());
}

#[test]
fn copies_outside_allocations_are_errors() {
    let rt = SimtRuntime::new(WarpWidth::W64, Schedule::Forward);
    let p = rt.alloc(16).unwrap();
    // SAFETY: the 16 bytes `alloc` just returned, used by no other thread.
    assert!(unsafe { rt.copy_htod(p, &[1; 16]) }.is_ok());
    // The next calls break the trait's bounds promise on purpose: SimtRuntime checks every
    // range against its live allocations before it touches memory (its documented defence),
    // which is what this test shows; nothing else uses `p`, the other half of the contract.
    // SAFETY: refused by the executor's range check before any byte is written.
    assert!(unsafe { rt.copy_htod(p + 8, &[1; 16]) }.is_err());
    let mut back = [0u8; 17];
    // SAFETY: as above, refused before any byte is read.
    assert!(unsafe { rt.copy_dtoh(&mut back, p) }.is_err());
    // SAFETY: allocated above and not used afterwards.
    unsafe { rt.free(p) };
    // SAFETY: as above: `p` is no longer a live allocation, so the check refuses it.
    assert!(unsafe { rt.copy_htod(p, &[1; 4]) }.is_err());
}

/// The checked forms of the runtime's raw copies (`copy`, `fill_zero`): lengths and devices
/// refused before anything is written, ranges through views.
#[test]
fn checked_device_copies_refuse_bad_lengths_and_devices() {
    let b = simt::open(WarpWidth::W32).unwrap();
    let src = b.upload(&[1u32, 2, 3, 4]).unwrap();
    let mut dst = b.upload(&[9u32; 6]).unwrap();
    // 4 elements into 6: refused, `dst` untouched.
    assert!(matches!(
        b.copy(&src, &mut dst),
        Err(wavekit::WavekitError::LengthMismatch {
            expected: 4,
            got: 6,
            ..
        })
    ));
    assert_eq!(b.download(&dst).unwrap(), [9; 6]);
    // Elements 2..4 of `src` into 1..3 of `dst`.
    let part = b.slice(&src, 2..4).unwrap();
    let mut head = b.slice_mut(&mut dst, 1..3).unwrap();
    b.copy(&part, &mut head).unwrap();
    drop(head);
    assert_eq!(b.download(&dst).unwrap(), [9, 3, 4, 9, 9, 9]);
    let mut mid = b.slice_mut(&mut dst, 3..5).unwrap();
    b.fill_zero(&mut mid).unwrap();
    drop(mid);
    assert_eq!(b.download(&dst).unwrap(), [9, 3, 4, 0, 0, 9]);
    // A buffer of a 64-lane executor is another device's.
    let wide = simt::open(WarpWidth::W64).unwrap();
    let other = wide.upload(&[5u32; 6]).unwrap();
    assert!(matches!(
        b.copy(&other, &mut dst),
        Err(wavekit::WavekitError::ForeignBuffer)
    ));
    assert_eq!(b.download(&dst).unwrap(), [9, 3, 4, 0, 0, 9]);
}
