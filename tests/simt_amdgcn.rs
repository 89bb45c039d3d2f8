//! The executor's AMDGCN builtins (csrc/simt/amdgcn) against the AMD ISA's description of the
//! instructions they lower to, run through the executor at 64 lanes (gfx90a/gfx940, CDNA
//! wave64) and 32 (gfx1030, RDNA2 wave32), in lockstep as AMD waves run and under a random
//! lane order, which must not change what a wave instruction sees. Expected values are
//! written out by hand from the ISA's pseudo-code and examples, or computed here from its
//! formulas.

#![cfg(feature = "simt")]

use wavekit::WarpWidth;
use wavekit::simt::amdgcn::{self, Lane, Probe, Written};
use wavekit::simt::{HazardKind, Report, Schedule, Session};

const SCHEDULES: [Schedule; 2] = [Schedule::Lockstep, Schedule::Random(0x4d_6364)];

fn run(s: &Session, width: WarpWidth, probe: Probe, arg: u32, lanes: &[Lane]) -> Vec<Written> {
    amdgcn::run(s, width, probe, arg, lanes).expect("probe launch")
}

/// Runs `probe` and checks that the launch reported nothing.
fn clean(
    width: WarpWidth,
    schedule: Schedule,
    probe: Probe,
    arg: u32,
    lanes: &[Lane],
) -> Vec<Written> {
    let s = Session::new(schedule);
    let out = run(&s, width, probe, arg, lanes);
    let reports = s.take_reports();
    assert!(
        reports.is_empty(),
        "{probe:?} w{width} {schedule:?}: unexpected reports:\n{}",
        listed(&reports)
    );
    out
}

fn listed(reports: &[Report]) -> String {
    reports.iter().map(|r| format!("  {r}\n")).collect()
}

fn lanes(n: usize, f: impl Fn(usize) -> Lane) -> Vec<Lane> {
    (0..n).map(f).collect()
}

fn active(a: u32, b: u32) -> Lane {
    Lane { active: true, a, b }
}

fn x(out: &[Written]) -> Vec<Option<u64>> {
    out.iter().map(|w| w.0).collect()
}

// ---- v_mbcnt_lo_u32_b32 / v_mbcnt_hi_u32_b32 ----
// "ThreadMask = (1 << ThreadPosition) - 1; D.u = CountOneBits(S0.u & ThreadMask[31:0]) + S1.u"
// (lo; hi takes ThreadMask[63:32]).

#[test]
fn mbcnt_counts_the_mask_bits_below_the_lane() {
    for schedule in SCHEDULES {
        // The lane id idiom mbcnt_hi(~0, mbcnt_lo(~0, 0)), in two steps, at 64 lanes.
        let all = lanes(64, |_| active(!0, 0));
        let lo = x(&clean(WarpWidth::W64, schedule, Probe::MbcntLo, 0, &all));
        let want_lo: Vec<Option<u64>> = (0..64u64).map(|t| Some(t.min(32))).collect();
        assert_eq!(lo, want_lo, "mbcnt_lo(~0, 0)");
        let hi_in = lanes(64, |t| active(!0, t.min(32) as u32));
        let hi = x(&clean(WarpWidth::W64, schedule, Probe::MbcntHi, 0, &hi_in));
        let want_id: Vec<Option<u64>> = (0..64u64).map(Some).collect();
        assert_eq!(hi, want_id, "mbcnt_hi(~0, mbcnt_lo(~0, 0))");

        // Partial masks, worked by hand. Lane 3, mask 0b1011: bits 0 and 1 lie below it.
        // Lane 40, hi mask 0x101 (lanes 32 and 40): only lane 32 lies below it.
        let mut probe = lanes(64, |_| Lane::default());
        probe[3] = active(0b1011, 10);
        probe[40] = active(0x101, 7);
        probe[31] = active(0x8000_0000, 0); // its own bit does not count
        let lo = x(&clean(WarpWidth::W64, schedule, Probe::MbcntLo, 0, &probe));
        assert_eq!((lo[3], lo[31], lo[40]), (Some(12), Some(0), Some(7 + 2)));
        let hi = x(&clean(WarpWidth::W64, schedule, Probe::MbcntHi, 0, &probe));
        assert_eq!((hi[3], hi[31], hi[40]), (Some(10), Some(0), Some(7 + 1)));
        assert_eq!(
            lo.iter().filter(|v| v.is_some()).count(),
            3,
            "inactive lanes wrote"
        );
    }
}

#[test]
fn mbcnt_hi_adds_nothing_on_wave32() {
    // ThreadMask[63:32] is zero for every lane of a 32-lane wave.
    for schedule in SCHEDULES {
        let probe = lanes(64, |t| active(!0, 5 + t as u32));
        let hi = x(&clean(WarpWidth::W32, schedule, Probe::MbcntHi, 0, &probe));
        let want: Vec<Option<u64>> = (0..64u64).map(|t| Some(5 + t)).collect();
        assert_eq!(hi, want);
        let lo = x(&clean(WarpWidth::W32, schedule, Probe::MbcntLo, 0, &probe));
        let want: Vec<Option<u64>> = (0..64u64).map(|t| Some(5 + t + t % 32)).collect();
        assert_eq!(lo, want, "second warp counts from its own lane 0");
    }
}

#[test]
fn arch_hip_lane_id_and_lanemask_lt() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as u64;
        for schedule in SCHEDULES {
            let out = clean(
                width,
                schedule,
                Probe::LaneId,
                0,
                &lanes(128, |_| active(0, 0)),
            );
            for (t, got) in out.iter().enumerate() {
                let lane = t as u64 % w;
                assert_eq!(
                    *got,
                    (Some(lane), Some((1u64 << lane) - 1)),
                    "w{width} thread {t}"
                );
            }
        }
    }
}

// ---- llvm.amdgcn.icmp (v_cmp_*_e64 to an SGPR pair) ----

#[test]
fn uicmp_is_the_mask_of_active_lanes_where_the_compare_holds() {
    // LLVM's CmpInst predicates and Rust's own comparisons of the same operands.
    type Holds = fn(u32, u32) -> bool;
    let preds: [(u32, Holds); 10] = [
        (32, |a, b| a == b),
        (33, |a, b| a != b),
        (34, |a, b| a > b),
        (35, |a, b| a >= b),
        (36, |a, b| a < b),
        (37, |a, b| a <= b),
        (38, |a, b| (a as i32) > (b as i32)),
        (39, |a, b| (a as i32) >= (b as i32)),
        (40, |a, b| (a as i32) < (b as i32)),
        (41, |a, b| (a as i32) <= (b as i32)),
    ];
    let operand = |t: usize| [0u32, 1, 7, 0x8000_0000, 0xffff_ffff][t % 5];
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        for schedule in SCHEDULES {
            // Two warps; every third thread has its EXEC bit off.
            let probe = lanes(2 * w, |t| Lane {
                active: t % 3 != 1,
                a: operand(t),
                b: operand(t / 2),
            });
            for (code, holds) in preds {
                for which in [Probe::Uicmp, Probe::Sicmp] {
                    let out = x(&clean(width, schedule, which, code, &probe));
                    for (t, got) in out.iter().enumerate() {
                        let warp = t / w;
                        let want = (0..w)
                            .filter(|&l| {
                                let u = &probe[warp * w + l];
                                u.active && holds(u.a, u.b)
                            })
                            .fold(0u64, |m, l| m | 1 << l);
                        let want = probe[t].active.then_some(want);
                        assert_eq!(*got, want, "{which:?} pred {code} w{width} thread {t}");
                    }
                }
            }
        }
    }
}

#[test]
fn ballots_are_zero_extended_on_wave32_and_read_exec_is_exec() {
    for schedule in SCHEDULES {
        // All 32 lanes true: 0x0000_0000_ffff_ffff, not a sign-extended all-ones.
        let all = lanes(64, |_| active(1, 0));
        let got = x(&clean(WarpWidth::W32, schedule, Probe::Uicmp, 33, &all));
        assert!(got.iter().all(|g| *g == Some(0xffff_ffff)), "{got:x?}");
        let got = x(&clean(WarpWidth::W32, schedule, Probe::ReadExec, 0, &all));
        assert!(got.iter().all(|g| *g == Some(0xffff_ffff)), "{got:x?}");
        // EXEC of a partial wave64: lanes 0, 33 and 63.
        let mut some = lanes(64, |_| Lane::default());
        for t in [0, 33, 63] {
            some[t] = active(0, 0);
        }
        let got = x(&clean(WarpWidth::W64, schedule, Probe::ReadExec, 0, &some));
        let exec = 1 | 1 << 33 | 1 << 63;
        for t in [0, 33, 63] {
            assert_eq!(got[t], Some(exec));
        }
    }
}

// ---- ds_bpermute_b32 ----
// src_lane = (VGPR[ADDR] + OFFSET) / 4 % 64 (CDNA; % 32 on wave32), "High-order bits are
// ignored", "If src_lane selects a disabled thread then zero is returned".

/// The ISA's two examples (simplified 4-thread wavefronts), in the first 4 lanes of a wave
/// whose other lanes are off.
#[test]
fn bpermute_matches_the_isa_examples() {
    let (a, b, c, d) = (0xA, 0xB, 0xC, 0xD);
    let data = [a, b, c, d];
    let addr = [0, 0, 12, 4];
    for width in WarpWidth::ALL {
        for schedule in SCHEDULES {
            let w = width.lanes() as usize;
            // EXEC = 0xF: { A, A, D, B }.
            let probe = lanes(w, |t| Lane {
                active: t < 4,
                a: addr.get(t).copied().unwrap_or(0),
                b: data.get(t).copied().unwrap_or(0),
            });
            let got = x(&clean(width, schedule, Probe::Bpermute, 0, &probe));
            assert_eq!(
                got[..4],
                [Some(a), Some(a), Some(d), Some(b)].map(|v| v.map(u64::from))
            );
            assert!(got[4..].iter().all(Option::is_none));

            // EXEC = 0xA: { -, 0, -, B }; lane 1 read the disabled lane 0, which is reported.
            let probe = lanes(w, |t| Lane {
                active: t == 1 || t == 3,
                ..probe[t]
            });
            let s = Session::new(schedule);
            let got = x(&run(&s, width, Probe::Bpermute, 0, &probe));
            assert_eq!(got[..4], [None, Some(0), None, Some(u64::from(b))]);
            let reports = s.take_reports();
            assert_eq!(reports.len(), 1, "{}", listed(&reports));
            assert_eq!(reports[0].kind, HazardKind::ShflOutsideMask);
            assert_eq!(reports[0].lanes.bits(), 0b10);
            assert!(reports[0].detail.contains("EXEC"), "{}", reports[0].detail);
        }
    }
}

#[test]
fn bpermute_takes_the_lane_from_address_bits_modulo_the_wave() {
    for width in WarpWidth::ALL {
        let w = width.lanes();
        for schedule in SCHEDULES {
            // Every lane holds 1000 + its lane; each reads through a different address.
            let addrs: [(u32, u32); 6] = [
                (4 * 5 + 3, 5),           // the low two bits are ignored
                (4 * w + 8, 2),           // past the wave: modulo its size
                (4 * 33, 33 % w),         // lane 33 at 64, lane 1 at 32
                (-4i32 as u32, w - 1),    // high-order bits ignored: the last lane
                (0x1000_0000 + 4 * 7, 7), // far out of range
                (4 * (w - 1), w - 1),
            ];
            let probe = lanes(w as usize, |t| Lane {
                active: true,
                a: addrs.get(t).map_or(4 * t as u32, |p| p.0),
                b: 1000 + t as u32,
            });
            let got = x(&clean(width, schedule, Probe::Bpermute, 0, &probe));
            for (t, (addr, src)) in addrs.iter().enumerate() {
                assert_eq!(
                    got[t],
                    Some(1000 + u64::from(*src)),
                    "w{w} address {addr:#x}"
                );
            }
            for (t, g) in got.iter().enumerate().take(w as usize).skip(addrs.len()) {
                assert_eq!(*g, Some(1000 + t as u64), "w{w} lane {t} reads itself");
            }
        }
    }
}

#[test]
fn arch_hip_moves_64_bit_values_as_two_halves() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        for schedule in SCHEDULES {
            let probe = lanes(2 * w, |t| active(0x1111 * t as u32, 0xF000_0000 | t as u32));
            let src = 3;
            let got = x(&clean(width, schedule, Probe::Shfl64, src, &probe));
            for (t, g) in got.iter().enumerate() {
                let from = (t / w) * w + src as usize;
                let want = (0xF000_0000 | from as u64) << 32 | (0x1111 * from as u64);
                assert_eq!(*g, Some(want), "w{width} thread {t}");
            }
            // Lane 3 off: both halves read a disabled lane and come back 0, both reported.
            let off = lanes(w, |t| Lane {
                active: t != 3,
                ..probe[t]
            });
            let s = Session::new(schedule);
            let got = x(&run(&s, width, Probe::Shfl64, src, &off));
            assert!(
                got.iter()
                    .enumerate()
                    .all(|(t, g)| *g == (t != 3).then_some(0))
            );
            let reports = s.take_reports();
            assert_eq!(reports.len(), 2, "{}", listed(&reports));
            assert!(
                reports
                    .iter()
                    .all(|r| r.kind == HazardKind::ShflOutsideMask)
            );
        }
    }
}

// ---- v_readfirstlane_b32 ----

#[test]
fn readfirstlane_reads_the_lowest_active_lane() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        for schedule in SCHEDULES {
            // Warp 0: lanes 5, 9 and the last; warp 1: every lane from 2 on.
            let probe = lanes(2 * w, |t| Lane {
                active: matches!(t % w, 5 | 9) && t < w || t % w == w - 1 || t >= w + 2,
                a: 0,
                b: 700 + t as u32,
            });
            let got = x(&clean(width, schedule, Probe::Readfirstlane, 0, &probe));
            for (t, g) in got.iter().enumerate() {
                let first = if t < w { 705 } else { 700 + w as u64 + 2 };
                assert_eq!(*g, probe[t].active.then_some(first), "w{width} thread {t}");
            }
        }
    }
}

// ---- divergence: lanes that left a branch wait for it, as a wave's EXEC mask does ----

#[test]
fn lanes_meet_again_after_a_branch() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        let full = if w == 64 { !0u64 } else { 0xffff_ffff };
        for schedule in SCHEDULES {
            // Odd lanes and lanes 0..4 take the branch; a[t] != 0 for lanes divisible by 3.
            let probe = lanes(w, |t| Lane {
                active: t % 2 == 1 || t < 4,
                a: (t % 3 == 0) as u32,
                b: (t % 5 == 0) as u32,
            });
            let bits = |f: &dyn Fn(&Lane) -> bool| {
                (0..w)
                    .filter(|&l| f(&probe[l]))
                    .fold(0u64, |m, l| m | 1 << l)
            };
            let in_branch = bits(&|l| l.active && l.a != 0);
            let after = bits(&|l| l.b != 0);
            let got = clean(width, schedule, Probe::BranchJoin, 0, &probe);
            for (t, g) in got.iter().enumerate() {
                let x = if probe[t].active { in_branch } else { 0 };
                assert_eq!(
                    *g,
                    (Some(x), Some(after)),
                    "w{width} {schedule:?} thread {t}"
                );
            }

            let taken = bits(&|l| l.active);
            let got = clean(width, schedule, Probe::IfElse, 0, &probe);
            for (t, g) in got.iter().enumerate() {
                let x = if probe[t].active {
                    in_branch
                } else {
                    full & !taken
                };
                assert_eq!(
                    *g,
                    (Some(x), Some(full)),
                    "w{width} {schedule:?} thread {t}"
                );
            }
        }
    }
}

#[test]
fn lanes_meet_again_after_a_loop_with_lane_dependent_trips() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        let full = if w == 64 { !0u64 } else { 0xffff_ffff };
        for schedule in SCHEDULES {
            let trips = |t: usize| (t * 7 % 5) as u32;
            let probe = lanes(w, |t| active(trips(t), 0));
            let got = clean(width, schedule, Probe::Loop, 0, &probe);
            for (t, g) in got.iter().enumerate() {
                // Round i runs with the lanes that still loop: those with more than i trips.
                let sum: u64 = (0..trips(t))
                    .map(|i| (0..w).filter(|&u| trips(u) > i).count() as u64)
                    .sum();
                assert_eq!(
                    *g,
                    (Some(sum), Some(full)),
                    "w{width} {schedule:?} thread {t}"
                );
            }
        }
    }
}

// ---- s_barrier and fences: what orders LDS accesses ----

#[test]
fn s_barrier_orders_the_block_and_its_absence_is_a_race() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        for schedule in SCHEDULES {
            let probe = lanes(3 * w, |t| active(50 + t as u32, 0));
            let got = x(&clean(width, schedule, Probe::LdsBarrier, 1, &probe));
            for (t, g) in got.iter().enumerate() {
                assert_eq!(*g, Some(50 + ((t + w) % (3 * w)) as u64));
            }
            let s = Session::new(schedule);
            run(&s, width, Probe::LdsBarrier, 0, &probe);
            let reports = s.take_reports();
            assert!(
                reports.iter().any(|r| r.kind == HazardKind::SharedRace),
                "w{width} {schedule:?}: no race without the barrier:\n{}",
                listed(&reports)
            );
        }
    }
}

/// arch_hip.h's claim for the emulated __syncwarp: a ballot between two workgroup fences
/// orders the wave's LDS accesses. `wave_barrier`, which emits no instruction, does not.
#[test]
fn fenced_ballot_orders_lds_in_a_wave_and_wave_barrier_does_not() {
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        for schedule in SCHEDULES {
            let probe = lanes(2 * w, |t| active(900 + t as u32, 0));
            let got = x(&clean(width, schedule, Probe::LdsWave, 1, &probe));
            for (t, g) in got.iter().enumerate() {
                assert_eq!(*g, Some(900 + (t ^ 1) as u64));
            }
            let s = Session::new(schedule);
            run(&s, width, Probe::LdsWave, 0, &probe);
            let reports = s.take_reports();
            assert!(
                reports.iter().any(|r| r.kind == HazardKind::SharedRace),
                "w{width} {schedule:?}: no race without fences:\n{}",
                listed(&reports)
            );
        }
    }
}

#[test]
fn probe_rejects_empty_and_oversized_blocks() {
    let s = Session::new(Schedule::Lockstep);
    assert!(amdgcn::run(&s, WarpWidth::W64, Probe::ReadExec, 0, &[]).is_err());
    let big = vec![Lane::default(); 1025];
    assert!(amdgcn::run(&s, WarpWidth::W64, Probe::ReadExec, 0, &big).is_err());
}
