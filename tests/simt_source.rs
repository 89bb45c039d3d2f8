//! A kernel source held in a string, as a program compiles it at run time with NVRTC or hipRTC
//! (examples/nvrtc_warp.cu, the text examples/nvrtc_warp.rs gives NVRTC), checked on the SIMT
//! executor at 32 and 64 lanes through `wavekit::simt::user::check_source`: the example runs
//! clean and matches the CPU backend at each width; the same text with a CUDA port's full mask
//! planted in its ballot is reported at 64 lanes, at its line; a source that does not build, a
//! kernel it does not export and a source with no export line are typed errors.

#![cfg(feature = "simt")]

use wavekit::prelude::*;
use wavekit::simt::HazardKind;
use wavekit::simt::user::{Arg, LaunchShape, SourceBuild, SourceCheck, Value, Values};

/// `check_source` on this file's sources (and the example's): none has a global initialiser,
/// and each kernel indexes only the buffers `args` gives it, within their lengths (the planted
/// and broken variants change a mask or a line, no index).
fn check_source(
    name: &str,
    source: &str,
    kernel: &str,
    shape: LaunchShape,
    args: &[Arg],
) -> wavekit::Result<Vec<SourceCheck>> {
    // SAFETY: as above: the kernels write only inside the guarded buffers they are given.
    unsafe { wavekit::simt::user::check_source(name, source, kernel, shape, args) }
}

/// `SourceBuild::compile` on this file's sources, under `check_source`'s reasoning.
fn compile(name: &str, source: &str) -> wavekit::Result<SourceBuild> {
    // SAFETY: no global initialiser runs at load; kernels are launched only through
    // `check_source`-shaped guarded launches or not at all.
    unsafe { SourceBuild::compile(name, source) }
}

const SOURCE: &str = include_str!("../examples/nvrtc_warp.cu");
const N: usize = 300;
const BLOCK: u32 = 128;

fn input() -> Vec<f32> {
    // Mixed signs and magnitudes, so the order of the additions shows in the bits.
    (0..N)
        .map(|i| ((i * 7919) % 613) as f32 * 0.37 - 100.0 + 1.0 / (i as f32 + 3.0))
        .collect()
}

fn args(width: usize) -> Vec<Arg> {
    let warps = N.div_ceil(width);
    vec![
        Arg::Buffer(Values::F32(input())),
        Arg::Buffer(Values::F32(vec![f32::NAN; warps])),
        Arg::Buffer(Values::U32(vec![u32::MAX; warps])),
        Arg::Scalar(Value::U32(N as u32)),
    ]
}

fn shape() -> LaunchShape {
    LaunchShape::linear(N.div_ceil(BLOCK as usize) as u32, BLOCK)
}

#[test]
fn the_example_runs_clean_and_matches_the_cpu_backend_at_both_widths() {
    // Buffers sized for the narrower warp hold both widths' outputs; the 64-lane run writes
    // the first ceil(N / 64).
    let runs = check_source("nvrtc_warp.cu", SOURCE, "warp_sums", shape(), &args(32)).unwrap();
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert!(
            run.is_clean(),
            "{:?}: {:?} {:?}",
            run.width,
            run.reports,
            run.launch
        );
        let w = run.width.lanes() as usize;
        let warps = N.div_ceil(w);
        let cpu = CpuBackend::new(run.width);
        let want_sums = cpu.warp_reduce(&input(), w as u32, ReduceOp::Sum).unwrap();
        let want_pos: Vec<u32> = input()
            .chunks(w)
            .map(|c| c.iter().filter(|&&v| v > 0.0).count() as u32)
            .collect();
        let (Arg::Buffer(Values::F32(sums)), Arg::Buffer(Values::U32(pos))) =
            (&run.args[1], &run.args[2])
        else {
            panic!("arguments 1 and 2 are the f32 and u32 outputs")
        };
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&sums[..warps]), bits(&want_sums), "{w} lanes: sums");
        assert_eq!(pos[..warps], want_pos[..], "{w} lanes: positives");
    }
}

#[test]
fn a_full_32_bit_mask_planted_in_the_ballot_is_reported_at_64_lanes_at_its_line() {
    let ballot = "arch::ballot_sync(WK_FULL_MASK,";
    assert!(SOURCE.contains(ballot), "the example's ballot line changed");
    let planted = SOURCE.replace(ballot, "arch::ballot_sync(0xffffffffu,");
    let line = 1 + planted
        .lines()
        .position(|l| l.contains("0xffffffffu"))
        .unwrap();
    let runs = check_source("planted.cu", &planted, "warp_sums", shape(), &args(32)).unwrap();
    let (w32, w64) = (&runs[0], &runs[1]);
    assert_eq!(w32.width, WarpWidth::W32);
    assert!(w32.is_clean(), "32 lanes: {:?}", w32.reports);
    assert!(!w64.reports.is_empty(), "the wave64 bug went unreported");
    let at = format!("planted.cu:{line}");
    assert!(
        w64.reports
            .iter()
            .any(|r| r.kind == HazardKind::MismatchedCollective && r.detail.contains(&at)),
        "no MismatchedCollective at {at}: {:#?}",
        w64.reports
    );
}

#[test]
fn a_source_that_does_not_build_is_a_compile_error_with_the_log() {
    let broken = SOURCE.replace(
        "warp_reduce<OP_SUM>(v)",
        "warp_reduce<OP_SUM>(v, undeclared_width)",
    );
    match compile("broken.cu", &broken) {
        Err(WavekitError::Compile {
            source_name, log, ..
        }) => {
            assert_eq!(source_name, "broken.cu");
            assert!(log.contains("undeclared_width"), "the log: {log}");
        }
        other => panic!("expected a Compile error, got {other:?}"),
    }
}

#[test]
fn kernels_are_found_by_their_export_lines() {
    let build = compile("nvrtc_warp.cu", SOURCE).unwrap();
    assert_eq!(build.kernels(), ["warp_sums"]);
    let k = build.kernel("warp_sums").unwrap();
    assert_eq!(k.at(WarpWidth::W64).width(), WarpWidth::W64);
    assert_eq!(k.at(WarpWidth::W32).params().len(), 4);
    match build.kernel("warp_sum") {
        Err(WavekitError::UnknownKernel {
            kernel, available, ..
        }) => {
            assert_eq!(kernel, "warp_sum");
            assert_eq!(available, ["warp_sums"]);
        }
        other => panic!("expected UnknownKernel, got {other:?}"),
    }
    let unexported = SOURCE.replace("WK_EXPORT_KERNEL(warp_sums);", "");
    assert!(matches!(
        compile("unexported.cu", &unexported),
        Err(WavekitError::UserSource { .. })
    ));
}

/// A kernel as a cudarc program holds it for NVRTC today: plain CUDA, no wavekit header, a
/// warp of 32 written into the shuffle loop, the mask and the lane test.
const PLAIN: &str = r#"
extern "C" __global__ void warp_max(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : -3.0e38f;
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, o));
  if ((threadIdx.x & 31) == 0 && i < n) out[i / 32] = v;
}
"#;

#[test]
fn a_plain_cuda_source_is_checked_unmodified_and_its_wave64_bug_reported() {
    let n = 256usize;
    let x = input()[..n].to_vec();
    let args = vec![
        Arg::Buffer(Values::F32(x.clone())),
        Arg::Buffer(Values::F32(vec![0.0; n / 32])),
        Arg::Scalar(Value::I32(n as i32)),
    ];
    let runs = check_source(
        "warp_max.cu",
        PLAIN,
        "warp_max",
        LaunchShape::linear(2, 128),
        &args,
    )
    .unwrap();
    let (w32, w64) = (&runs[0], &runs[1]);
    assert!(
        w32.is_clean(),
        "32 lanes: {:?} {:?}",
        w32.reports,
        w32.launch
    );
    let Arg::Buffer(Values::F32(out)) = &w32.args[1] else {
        panic!("argument 1 is the f32 output")
    };
    let want: Vec<f32> = x
        .chunks(32)
        .map(|c| c.iter().copied().fold(f32::MIN, f32::max))
        .collect();
    assert_eq!(out, &want, "32 lanes: per-warp maxima");
    let line = 1 + PLAIN
        .lines()
        .position(|l| l.contains("__shfl_down_sync"))
        .unwrap();
    let at = format!("warp_max.cu:{line}");
    assert!(
        w64.reports.iter().any(|r| r.detail.contains(&at)),
        "64 lanes: nothing reported at {at}: {:#?}",
        w64.reports
    );
    // The staged copy's folder never shows: reports say the name the caller gave.
    assert!(
        w64.reports
            .iter()
            .all(|r| !r.detail.contains("wavekit-source-"))
    );
    // A plain source's kernels are found by name; a template needs its instantiation named.
    let build = compile("warp_max.cu", PLAIN).unwrap();
    assert_eq!(build.kernels(), ["warp_max"]);
    assert!(matches!(
        build.kernel("warp_min"),
        Err(WavekitError::UnknownKernel { .. })
    ));
}

/// The device API's argmax over segments of 16 lanes (`warp_arg_reduce<OP_MAX>`), on inputs
/// with ties, both zeros and a NaN: clean at both widths and, lane by lane, the collective's.
#[test]
fn the_device_warp_arg_reduce_is_the_collectives_at_both_widths() {
    const ARG_SOURCE: &str = r#"
#include <wavekit.h>
WK_KERNELS_BEGIN
__global__ void seg_argmax(const float* in, float* vals, unsigned* lanes, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const ArgResult<float> m = warp_arg_reduce<OP_MAX>(in[i], 16);
  if (i < n) {
    vals[i] = m.value;
    lanes[i] = m.lane;
  }
}
WK_KERNELS_END
WK_EXPORT_KERNEL(seg_argmax);
"#;
    let n = 256;
    let input: Vec<f32> = (0..n)
        .map(|i| match i {
            100 => f32::NAN,
            _ if i % 13 == 0 => -0.0,
            _ if i % 7 == 0 => 0.0,
            _ => ((i * 37) % 11) as f32 - 5.0,
        })
        .collect();
    let args = vec![
        Arg::Buffer(Values::F32(input.clone())),
        Arg::Buffer(Values::F32(vec![1.0; n])),
        Arg::Buffer(Values::U32(vec![u32::MAX; n])),
        Arg::Scalar(Value::U32(n as u32)),
    ];
    let shape = LaunchShape::linear(2, 128);
    let runs = check_source("seg_argmax.cu", ARG_SOURCE, "seg_argmax", shape, &args).unwrap();
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert!(run.is_clean(), "{:?}: {:?}", run.width, run.reports);
        let cpu = CpuBackend::new(run.width);
        let want = cpu.warp_arg_reduce(&input, 16, ArgOp::Max).unwrap();
        let (Arg::Buffer(Values::F32(vals)), Arg::Buffer(Values::U32(lanes))) =
            (&run.args[1], &run.args[2])
        else {
            panic!("arguments 1 and 2 are the f32 and u32 outputs")
        };
        for (i, &(v, l)) in want.iter().enumerate() {
            assert!(
                v.same(vals[i]) && l == lanes[i],
                "{:?} lane {i}: want ({v}, {l}), got ({}, {})",
                run.width,
                vals[i],
                lanes[i]
            );
        }
    }
}
