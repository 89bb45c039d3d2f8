//! `wavekit check` on plain CUDA and HIP, end to end: the seeds' kernels from their published
//! text (tests/plain/seeds) and kernels of ours in CUDA's and HIP's own spellings
//! (tests/plain/kernels), built unmodified at 32 and 64 lanes, their hazards reported at the
//! lines of the file given, their outputs what the code computes, and what the executor cannot
//! model refused with the construct and its line.

#![cfg(feature = "simt")]

mod common;

use common::{at, check, check_path, fixture, line_of, nth_line_of, values};

#[test]
fn a_plain_cuda_warp_sum_runs_as_it_is_and_its_full_mask_is_reported_on_64_lanes() {
    // The kernel a new user tries first (issue 22): `__global__`, `__shfl_down_sync(0xffffffff,
    // v, off)` from 16, no include, no export line.
    let f = "kernels/warp_sum.cu";
    let (code, t) = check(
        f,
        &["--kernel", "warp_sum", "--block", "64", "--arg", "0=1"],
    );
    assert_eq!(code, Some(1), "{t}");
    let w32 = at(&t, "warp_sum", 32);
    assert!(
        w32.contains(": no hazard") && w32.contains("out arg 1: [32, 32, 0"),
        "{t}"
    );
    let w64 = at(&t, "warp_sum", 64);
    let line = line_of(f, "__shfl_down_sync");
    assert!(
        w64.contains("MismatchedCollective in warp_sum (w64)"),
        "{t}"
    );
    assert!(w64.contains("ShflOutsideMask in warp_sum (w64)"), "{t}");
    assert!(
        w64.contains(&format!("tests/plain/{f}")) && w64.contains(&line),
        "{t}"
    );
}

#[test]
fn seed_001_hip_spmv_reports_its_barrier_inside_the_branch() {
    // The seed's whole program, main and cudaMalloc included; x holds N * 256 values.
    let f = "seeds/001_spmv.cu";
    let (code, t) = check(
        f,
        &[
            "--kernel",
            "test_kernel",
            "--block",
            "256",
            "--len",
            "2048",
            "--arg",
            "2=1",
            "--schedule",
            "reverse",
        ],
    );
    assert_eq!(code, Some(1), "{t}");
    // The seed's label:sync2 (its highlighted lines 42 and 44 close and reopen the branch).
    let sync2 = line_of(f, "label:sync2");
    for lanes in [32, 64] {
        let w = at(&t, "test_kernel", lanes);
        let barrier = w
            .lines()
            .find(|l| l.contains("BarrierDivergence"))
            .unwrap_or_else(|| panic!("no barrier report at {lanes} lanes:\n{t}"));
        assert!(barrier.contains(&sync2), "{barrier}");
        assert!(
            barrier.contains("threads 0-127") && barrier.contains("threads 128-255"),
            "{barrier}"
        );
        // The skipping warps overwrite SH while the others still read it.
        assert!(w.contains("SharedRace") && w.contains("shared 'SH'"), "{t}");
    }
}

#[test]
fn seed_002_kernels_give_the_reports_the_seed_describes() {
    let run = |file: &str, kernel: &str, block: &str| {
        check(
            file,
            &[
                "--kernel",
                kernel,
                "--block",
                block,
                "--schedule",
                "forward",
            ],
        )
    };
    // The 256-thread shared sum without barriers "sometimes makes mistakes": a race.
    let (_, t) = run("seeds/002_sum256.cu", "sum", "256");
    assert!(at(&t, "sum", 32).contains("SharedRace"), "{t}");
    assert!(at(&t, "sum", 64).contains("SharedRace"), "{t}");
    // The synchronised one keeps `idx < threshold` in its loop condition, so threads leave the
    // loop, and its __syncthreads, at different rounds: a barrier not all threads reach.
    let f = "seeds/002_sum_synchronized.cu";
    let (_, t) = run(f, "sum_synchronized", "256");
    let in_loop = nth_line_of(f, "__syncthreads", 2);
    for lanes in [32, 64] {
        let w = at(&t, "sum_synchronized", lanes);
        assert!(
            w.contains("BarrierDivergence") && w.contains(&in_loop),
            "{t}"
        );
    }
    // The 32-thread shuffle sum is right on 32 lanes; on 64 its 0xffffffff mask and offsets
    // from 16 read lanes that are not there.
    let f = "seeds/002_shfl32.cu";
    let (_, t) = run(f, "sum_synchronized", "32");
    assert!(
        at(&t, "sum_synchronized", 32).contains(": no hazard"),
        "{t}"
    );
    let w64 = at(&t, "sum_synchronized", 64);
    assert!(
        w64.contains("ShflOutsideMask") && w64.contains(&line_of(f, "__shfl_down_sync")),
        "{t}"
    );
    // The 256-thread one reads shared_mem[8] of 8 in `if (idx<=8)`, whose full-mask shuffles
    // name lanes 9.. that never call them.
    let f = "seeds/002_shfl256.cu";
    let (_, t) = run(f, "sum_synchronized", "256");
    let w32 = at(&t, "sum_synchronized", 32);
    assert!(
        w32.contains("SharedOutOfBounds") && w32.contains(&line_of(f, "val=shared_mem[idx]")),
        "{t}"
    );
    assert!(w32.contains("InactiveMaskLane"), "{t}");
}

#[test]
fn a_write_unordered_with_the_first_of_many_reads_is_a_race() {
    // Thread 0 reads the cell, then the writer's warp reads it four rounds over (129 or 257
    // reads: past the 64 from which the executor compacts its list of them); only thread 0's
    // read, the oldest, is unordered with the write. With a barrier before the write, no hazard.
    let f = "kernels/stale_read.cu";
    let write = line_of(f, "// BUG");
    for schedule in ["forward", "reverse"] {
        let (code, t) = check(
            f,
            &[
                "--kernel",
                "stale_read",
                "--kernel",
                "stale_read_fixed",
                "--block",
                "128",
                "--len",
                "128",
                "--schedule",
                schedule,
            ],
        );
        assert_eq!(code, Some(1), "{t}");
        for lanes in [32, 64] {
            let w = at(&t, "stale_read", lanes);
            let race = w
                .lines()
                .find(|l| l.contains("SharedRace"))
                .unwrap_or_else(|| panic!("no race at {lanes} lanes ({schedule}):\n{t}"));
            assert!(
                race.contains(&write) && race.contains("thread 0 "),
                "{race}"
            );
            assert!(
                at(&t, "stale_read_fixed", lanes).contains(": no hazard"),
                "{t}"
            );
        }
    }
}

#[test]
fn seed_003_ladder_is_right_on_32_lanes_and_its_full_mask_breaks_on_64() {
    let (code, t) = check(
        "seeds/003_ladder.cu",
        &[
            "--kernel",
            "reduce_syncwarp",
            "--kernel",
            "reduce_shfl",
            "--kernel",
            "reduce_cg",
            "--block",
            "128",
            "--shared",
            "512",
            "--arg",
            "0=1",
            "--show",
            "1",
            "--schedule",
            "forward",
        ],
    );
    assert_eq!(code, Some(1), "{t}");
    for k in ["reduce_syncwarp", "reduce_shfl", "reduce_cg"] {
        let w = at(&t, k, 32);
        assert!(
            w.contains(": no hazard") && w.contains("out arg 1: [128"),
            "{k}:\n{t}"
        );
    }
    // The syncwarp ladder and the tile of 32 are right on 64 lanes too.
    assert!(at(&t, "reduce_syncwarp", 64).contains(": no hazard"), "{t}");
    assert!(at(&t, "reduce_cg", 64).contains(": no hazard"), "{t}");
    // FULL_MASK (0xffffffff) in the seed's shuffle fragment leaves out lanes 32..63.
    let w = at(&t, "reduce_shfl", 64);
    let line = line_of("seeds/003_shfl.inc", "__shfl_down_sync");
    assert!(
        w.contains("MismatchedCollective") && w.contains(&line),
        "{line}:\n{t}"
    );
}

#[test]
fn templates_run_by_instantiation_and_a_bare_template_name_is_refused() {
    let f = "kernels/block_sum.cu";
    let (code, t) = check(
        f,
        &[
            "--kernel",
            "block_sum<float, 128>",
            "--block",
            "128",
            "--grid",
            "2",
            "--arg",
            "0=1",
            "--len",
            "256",
            "--show",
            "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [128, 128, ...]").count(), 2, "{t}");
    let (code, t) = check(
        f,
        &[
            "--kernel",
            "block_sum<int,256>",
            "--block",
            "256",
            "--arg",
            "0=2",
            "--show",
            "1",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [512, ...]").count(), 2, "{t}");
    let (code, t) = check(f, &["--kernel", "block_sum", "--block", "128"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains("`block_sum` is a template <typename T, int BLOCK>: name an instantiation"),
        "{t}"
    );
    let (_, t) = check(f, &["--kernel", "no_such", "--block", "128"]);
    assert!(
        t.contains("no __global__ function `no_such`") && t.contains("block_sum <typename T"),
        "{t}"
    );
}

#[test]
fn a_struct_of_pointers_and_scalars_is_passed_field_by_field() {
    let (code, t) = check(
        "kernels/saxpy_struct.cu",
        &[
            "--kernel", "saxpy", "--block", "64", "--arg", "0.x=1,2", "--arg", "0.y=10", "--arg",
            "0.a=3", "--show", "4",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.contains("saxpy(struct Saxpy { const f32* x; f32* y; f32 a; i32 n })"),
        "{t}"
    );
    assert_eq!(
        t.matches("out arg 0.y: [13, 16, 13, 16, ...]").count(),
        2,
        "{t}"
    );
    let (code, t) = check(
        "kernels/saxpy_struct.cu",
        &["--kernel", "saxpy", "--block", "64", "--arg", "0.z=1"],
    );
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains("--arg 0.z=..: parameter 0 is struct Saxpy"),
        "{t}"
    );
}

#[test]
fn hip_spellings_run_in_lockstep_at_both_widths() {
    let (code, t) = check(
        "kernels/hip_spellings.cu",
        &[
            "--kernel",
            "hip_block_sum",
            "--kernel",
            "hip_count_positive",
            "--block",
            "128",
            "--shared",
            "64",
            "--arg",
            "0=1,-1,1",
            "--show",
            "1",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("lockstep: no hazard").count(), 4, "{t}");
    // 128 values of 1, -1, 1, ...: 85 ones, 43 minus ones.
    assert_eq!(t.matches("out arg 1: [42, ...]").count(), 2, "{t}");
    // Positives among lanes 0..W-1 of warp 0: lanes l with l % 3 != 1.
    assert!(
        at(&t, "hip_count_positive", 32).contains("[21, ...]"),
        "{t}"
    );
    assert!(
        at(&t, "hip_count_positive", 64).contains("[43, ...]"),
        "{t}"
    );
}

#[test]
fn cooperative_groups_and_the_other_intrinsics_compute_what_cuda_does() {
    let (code, t) = check(
        "kernels/cooperative.cu",
        &[
            "--kernel",
            "tiles",
            "--kernel",
            "warp_misc",
            "--kernel",
            "shared_atomics",
            "--block",
            "64",
            "--arg",
            "0=1",
            "--show",
            "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches(": no hazard").count(), 6, "{t}");
    // Tiles of 16 ones: sum 16, the butterfly agrees (+100), all vote (+1000, +10000, +100000),
    // lane 0 holds 1 (+1000000).
    assert_eq!(t.matches("[1111116, 1111116, ...]").count(), 2, "{t}");
    // Peers W, match_all true, total W, 64 positives in the block.
    assert!(at(&t, "warp_misc", 32).contains("[6432132, 6432132"), "{t}");
    assert!(at(&t, "warp_misc", 64).contains("[6464164, 6464164"), "{t}");
    // All 64 threads add to bin 1; thread t reads stage[63 - t], whose w is 63 - t.
    assert_eq!(t.matches("[63000, 62064, ...]").count(), 2, "{t}");
}

#[test]
fn what_the_executor_cannot_model_is_refused_with_its_line() {
    let f = "kernels/unsupported_asm.cu";
    let (code, t) = check(f, &["--kernel", "lanes", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "{}: `asm`: inline assembly",
            line_of(f, "asm volatile")
        )),
        "{t}"
    );
}

#[test]
fn headers_of_the_programs_include_folders_are_found_with_dash_i() {
    let f = "kernels/with_include.cu";
    let (code, t) = check(f, &["--kernel", "block_max", "--block", "128"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains("block_tools.cuh") && t.contains("does not build"),
        "{t}"
    );
    let (code, t) = check(
        f,
        &[
            "--kernel",
            "block_max",
            "--block",
            "128",
            "--grid",
            "2",
            "-I",
            &fixture("kernels/include"),
            "--arg",
            "0=1,7,3",
            "--show",
            "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [7, 7, ...]").count(), 2, "{t}");
}

#[test]
fn a_store_past_a_buffer_is_reported_and_the_check_goes_on() {
    let f = "kernels/past_the_end.cu";
    let (code, t) = check(f, &["--kernel", "past_the_end", "--block", "64"]);
    // Exit code 1, not a signal: both widths ran and reported.
    assert_eq!(code, Some(1), "{t}");
    assert_eq!(t.matches("InvalidAccess in past_the_end").count(), 2, "{t}");
    assert_eq!(t.matches("launch abandoned").count(), 2, "{t}");
    assert!(t.contains(&line_of(f, "// PAST")), "{t}");
}

#[test]
fn vector_types_pass_as_buffers_of_their_components_and_shuffle_whole() {
    let values: Vec<String> = (0..32).map(|i| i.to_string()).collect();
    let (code, t) = check(
        "kernels/vectors.cu",
        &[
            "--kernel",
            "rotate4",
            "--block",
            "8",
            "--arg",
            &format!("0={}", values.join(",")),
            "--show",
            "16",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("rotate4(const f32x4*, f32x4*)"), "{t}");
    assert_eq!(
        t.matches("out arg 1: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, ...]")
            .count(),
        2,
        "{t}"
    );
}

#[test]
fn namespace_scope_shared_variables_are_each_launchs_and_blocks_own() {
    // Three kernels and a helper share `tile` and `total`, declared at namespace scope.
    let f = "kernels/ns_shared.cu";
    let (code, t) = check(
        f,
        &[
            "--kernel", "fill", "--kernel", "count", "--kernel", "stale", "--grid", "2", "--block",
            "8", "--show", "16",
        ],
    );
    assert_eq!(code, Some(1), "{t}");
    for lanes in [32, 64] {
        // Block b's tile holds t + 100 b, read back reversed; thread 0 adds 1000 times its sum.
        let w = at(&t, "fill", lanes);
        assert!(w.contains(": no hazard"), "{t}");
        assert!(
            w.contains(
                "out arg 0: [28007, 6, 5, 4, 3, 2, 1, 0, 828107, 106, 105, 104, 103, 102, 101, 100]"
            ),
            "{t}"
        );
        let w = at(&t, "count", lanes);
        assert!(w.contains(": no hazard"), "{t}");
        assert!(
            w.contains(&format!("out arg 0: [{}]", ["8"; 16].join(", "))),
            "{t}"
        );
        // A launch of its own: nothing `fill` wrote is in its tile.
        let w = at(&t, "stale", lanes);
        assert!(
            w.contains("UninitSharedRead") && w.contains("shared 'tile'[0..7]"),
            "{t}"
        );
        assert!(w.contains(&line_of(f, "void stale")), "{t}");
    }
}

#[test]
fn labeled_and_binary_partitions_group_the_threads_cuda_groups() {
    let f = "kernels/partitions.cu";
    let ins: Vec<String> = (0..64).map(|t| t.to_string()).collect();
    let (code, t) = check(
        f,
        &[
            "--kernel",
            "labels",
            "--block",
            "64",
            "--arg",
            &format!("0={}", ins.join(",")),
            "--show",
            "64",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    // Thread t (input t) of its tile of 32: the tile's threads with its input mod 4 (8 of
    // them, t its rank (t % 32) / 4 among them), and those of its parity.
    let tile = |t: i64| (t / 32 * 32)..(t / 32 * 32 + 32);
    let same: Vec<i64> = (0..64)
        .map(|t| tile(t).filter(|u| u % 4 == t % 4).sum::<i64>() + 8000 + t % 32 / 4 * 100000)
        .collect();
    let parity: Vec<i64> = (0..64)
        .map(|t| tile(t).filter(|u| u % 2 == t % 2).sum())
        .collect();
    for lanes in [32, 64] {
        let w = at(&t, "labels", lanes);
        assert_eq!(values(&w, "1"), same, "{w}");
        assert_eq!(values(&w, "2"), parity, "{w}");
    }
    // Inputs -1, 0, 1, 2, 3 repeated: the positive ones (a coalesced group of the warp) split
    // by input mod 3, that is by input: each group the warp's lanes holding that input. In
    // lockstep, as coalesced_threads() then holds every lane that took the branch (in Volta's
    // order it holds those that happen to be converged there).
    let (code, t) = check(
        f,
        &[
            "--kernel",
            "coalesced",
            "--block",
            "64",
            "--arg",
            "0=-1,0,1,2,3",
            "--show",
            "64",
            "--schedule",
            "lockstep",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    for lanes in [32i64, 64] {
        let want: Vec<i64> = (0..64i64)
            .map(|t| match t % 5 - 1 {
                v if v <= 0 => -1,
                v => {
                    let warp = (t / lanes * lanes)..(t / lanes * lanes + lanes);
                    warp.filter(|u| u % 5 == t % 5).count() as i64 * 1000 + v
                }
            })
            .collect();
        let w = at(&t, "coalesced", lanes as u32);
        assert_eq!(values(&w, "1"), want, "{w}");
    }
}

#[test]
fn a_file_with_windows_line_ends_and_latin_1_bytes_is_checked_as_it_is() {
    // As AMD's older HIP samples are: a header with CRLF line ends whose macros continue over
    // them, and a `©` in Latin-1 in the file's license comment.
    let dir = std::env::temp_dir().join(format!("wavekit-crlf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("util.hpp"),
        b"#pragma once\r\n#define SCALE(v) \\\r\n  ((v) * \\\r\n   3)\r\n#define CHECK(x) \\\r\n  { \\\r\n    if (!(x)) return 1; \\\r\n  }\r\nstatic int host_only() { CHECK(1); return 0; }\r\n",
    )
    .expect("written");
    std::fs::write(
        dir.join("scale.cpp"),
        b"// Copyright \xa9 2015\n#include <hip/hip_runtime.h>\n#include \"util.hpp\"\n\
          __global__ void scale(const int* in, int* out) {\n\
          \x20 out[hipThreadIdx_x] = SCALE(in[hipThreadIdx_x]);\n}\n",
    )
    .expect("written");
    let (code, t) = check_path(
        &dir.join("scale.cpp"),
        &[
            "--kernel", "scale", "--block", "64", "--arg", "0=1,2", "--show", "4",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [3, 6, 3, 6, ...]").count(), 2, "{t}");
}
