//! The shuffle source-lane rules of the HIP device layer (csrc/wavekit/arch_hip.h src_idx,
//! src_up, src_down, src_xor), compiled by the same hipcc as the kernels and run on the host,
//! against `wavekit::lanes::shfl_source` (docs/SEMANTICS.md "shfl") for every kind, lane,
//! argument below the warp and arguments past it (negative, the warp width and beyond, i32's
//! extremes: only their low log2(W) bits count, as CUDA's shfl.sync reads them) and every width
//! of a wave64 and a wave32 warp. Needs hipcc, not an AMD GPU: it checks the index arithmetic
//! that replaces HIP's own __shfl* (which does not reduce an index modulo the width), not the
//! ds_bpermute that moves the data.
#![cfg(feature = "hip")]

use std::process::Command;
use wavekit::lanes::shfl_source;
use wavekit::{Shfl, WarpWidth};

const HIPCC: &str = wavekit::hip::build_info::HIPCC;

const HARNESS: &str = r#"
#include "wavekit/width.h"
#include <stdio.h>
int main() {
  const unsigned warps[2] = {32u, 64u};
  for (unsigned w : warps) {
    // Every argument below the warp, then EXTRA past it: -1, -w-3, w, w+1, 2w+3, INT_MAX, INT_MIN.
    const unsigned extra[7] = {~0u, ~0u - w - 2, w, w + 1, 2 * w + 3, 0x7fffffffu, 0x80000000u};
    for (unsigned width = 1; width <= w; width *= 2)
      for (unsigned lane = 0; lane < w; ++lane)
        for (unsigned i = 0; i < w + 7; ++i) {
          const unsigned arg = i < w ? i : extra[i - w];
          printf("%u %u %u %u %u %u %u %u\n", w, width, lane, arg,
                 WK_NS::arch::src_idx(lane, arg, width, w), WK_NS::arch::src_up(lane, arg, width, w),
                 WK_NS::arch::src_down(lane, arg, width, w),
                 WK_NS::arch::src_xor(lane, arg, width, w));
        }
  }
  return 0;
}
"#;

fn run_harness() -> String {
    let dir = std::env::temp_dir().join(format!("wavekit-hip-lane-math-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("lane_math.hip");
    let exe = dir.join("lane_math");
    std::fs::write(&src, HARNESS).unwrap();
    let csrc = concat!(env!("CARGO_MANIFEST_DIR"), "/../csrc");
    let out = Command::new(HIPCC)
        .env("HIP_PLATFORM", "amd")
        .args([
            "-x",
            "hip",
            "-std=c++17",
            "-O1",
            "-D__HIP_PLATFORM_AMD__=1",
            "--offload-arch=gfx90a",
        ])
        .arg("-I")
        .arg(csrc)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {HIPCC}: {e}"));
    assert!(
        out.status.success(),
        "hipcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run the harness");
    assert!(
        run.status.success(),
        "harness failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn device_layer_source_lanes_match_the_spec() {
    let output = run_harness();
    let mut checked = 0usize;
    for line in output.lines() {
        let v: Vec<u32> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        let (w, width, lane, arg) = (v[0], v[1], v[2], v[3] as i32);
        let warp = WarpWidth::new(w).unwrap();
        for (i, kind) in [Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor]
            .into_iter()
            .enumerate()
        {
            let want = shfl_source(kind, lane, arg, width, warp);
            let got = v[4 + i];
            assert_eq!(
                got, want,
                "W={w} {kind:?} lane {lane} arg {arg} width {width}"
            );
            assert!(got < w, "source lane {got} outside the warp of {w}");
        }
        checked += 1;
    }
    // (widths: 6 at W=32, 7 at W=64) x lanes x (W + 7 arguments)
    assert_eq!(
        checked,
        6 * 32 * (32 + 7) + 7 * 64 * (64 + 7),
        "harness printed too few cases"
    );
}
