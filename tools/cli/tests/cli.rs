//! The `wavekit` binary end to end: argument parsing, clean errors, `show` diagrams checked
//! against lane values worked out by hand, and the exit codes of `verify` and `bench`.

use std::process::{Command, Output};

fn wavekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed and returns its stdout.
fn ok(args: &[&str]) -> String {
    let o = wavekit(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

/// Runs a command that must fail with `code` and a clean message (no panic, no backtrace);
/// returns stderr.
fn fails(args: &[&str], code: i32) -> String {
    let o = wavekit(args);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{args:?}\nstdout:\n{}\nstderr:\n{err}",
        stdout(&o)
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{args:?} panicked:\n{err}"
    );
    err
}

/// The cells of every diagram row labelled `label`, all blocks joined in lane order.
fn cells(diagram: &str, label: &str) -> Vec<String> {
    diagram
        .lines()
        .filter_map(|l| l.strip_prefix(label).filter(|rest| rest.starts_with(' ')))
        .flat_map(|rest| rest.split_whitespace().map(str::to_string))
        .collect()
}

fn strings<T: ToString>(v: impl IntoIterator<Item = T>) -> Vec<String> {
    v.into_iter().map(|x| x.to_string()).collect()
}

#[test]
fn help_and_version_succeed() {
    assert!(ok(&["--help"]).contains("verify"));
    assert!(ok(&["show", "--help"]).contains("--mask"));
    assert!(ok(&["--version"]).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2_with_a_message() {
    assert!(fails(&["frobnicate"], 2).contains("unrecognized subcommand"));
    assert!(fails(&["show", "shuffle_sideways"], 2).contains("invalid value"));
    assert!(fails(&["show", "shfl", "--mask", "most"], 2).contains("unknown mask `most`"));
    assert!(fails(&["show", "shfl", "--warp", "48"], 2).contains("warp width 48 is not supported"));
    assert!(fails(&["bench", "--sizes", "2^16,lots"], 2).contains("`lots` is not a size"));
    assert!(fails(&["bench", "--sizes", "0"], 2).contains("at least 1"));
    assert!(fails(&["bench", "--reps", "0"], 2).contains("--reps"));
    assert!(fails(&["show", "shfl", "--threads", "0"], 2).contains("--threads"));
    assert!(fails(&["show", "shfl", "--threads", "100000"], 2).contains("--threads"));
    assert!(fails(&["verify", "--scale", "huge"], 2).contains("huge"));
    assert!(fails(&["verify", "--backend", "opencl"], 2).contains("opencl"));
}

#[test]
fn requests_the_library_refuses_exit_1_with_its_error() {
    let err = fails(&["show", "shfl_down", "--width", "3"], 1);
    assert!(err.starts_with("error: sub-width 3 is invalid"), "{err}");
    let err = fails(&["show", "shfl", "--mask", "lane:40"], 1);
    assert!(
        err.contains("lane 40 is outside a warp of 32 lanes"),
        "{err}"
    );
    let err = fails(&["show", "ballot", "--mask", "hex:0x1ffffffff"], 1);
    assert!(err.contains("beyond the warp width 32"), "{err}");
    let err = fails(&["show", "tile_reduce", "--tile", "128", "--warp", "64"], 1);
    assert!(err.contains("tile size 128 is invalid"), "{err}");
}

#[test]
fn shuffle_arguments_as_cuda_takes_them() {
    // Lane i of 0..32 holds i. `__shfl_sync(full, v, -1)`: -1 is lane 31 of the warp.
    let out = ok(&["show", "shfl", "--arg", "-1"]);
    assert_eq!(cells(&out, "out"), strings(vec![31u32; 32]));
    // A delta of the width (32, cut to 0 at W=32) or past a tile keeps the caller's value.
    let own: Vec<u32> = (0..32).collect();
    let out = ok(&["show", "shfl_up", "--arg", "32"]);
    assert_eq!(cells(&out, "out"), strings(own.clone()));
    let out = ok(&["show", "tile_shfl_down", "--tile", "8", "--arg", "8"]);
    assert_eq!(cells(&out, "out"), strings(own));
}

#[cfg(not(feature = "cuda"))]
#[test]
fn a_backend_not_built_in_is_a_clean_error() {
    let err = fails(&["show", "ballot", "--backend", "cuda"], 1);
    assert!(err.contains("backend cuda is not compiled in"), "{err}");
    let err = fails(&["verify", "--backend", "cuda"], 1);
    assert!(err.contains("--features cuda"), "{err}");
}

#[test]
fn info_lists_the_backends_built_in() {
    let out = ok(&["info"]);
    assert!(out.contains("cpu yes"), "{out}");
    let cuda = if cfg!(feature = "cuda") {
        "cuda yes"
    } else {
        "cuda no"
    };
    let hip = if cfg!(feature = "hip") {
        "hip yes"
    } else {
        "hip no"
    };
    assert!(out.contains(cuda) && out.contains(hip), "{out}");
    assert!(out.contains("cpu/w32") && out.contains("cpu/w64"), "{out}");
    assert!(out.contains("cores"), "{out}");
    // The executor runs its own arch layer and the real arch_hip.h, each at both widths.
    for arch in ["arch_simt.h", "arch_hip.h"] {
        for lanes in [32, 64] {
            let row = format!("{arch}, {lanes} lanes");
            assert!(out.contains(&row), "no {row} in\n{out}");
        }
    }
}

#[test]
fn shfl_down_by_2_in_segments_of_16() {
    let out = ok(&[
        "show",
        "shfl_down",
        "--arg",
        "2",
        "--width",
        "16",
        "--mask",
        "full",
    ]);
    assert!(
        out.starts_with("__shfl_down_sync(full 0xffffffff, v = lane, delta = 2, width = 16)"),
        "{out}"
    );
    assert_eq!(cells(&out, "lane"), strings(0..32));
    assert_eq!(cells(&out, "in"), strings(0..32));
    // Lanes 14, 15 (and 30, 31) would read past their 16-lane segment: they keep their own.
    let expected = [
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14, 15, //
        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 30, 31,
    ];
    assert_eq!(cells(&out, "out"), strings(expected));
    assert_eq!(cells(&out, "src"), strings(expected));
}

#[test]
fn shfl_idx_broadcasts_within_each_segment() {
    let out = ok(&["show", "shfl", "--arg", "2", "--width", "16"]);
    let expected: Vec<u32> = [2; 16].into_iter().chain([18; 16]).collect();
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn shfl_xor_1_swaps_neighbours() {
    let out = ok(&["show", "shfl_xor", "--arg", "1"]);
    let expected = [
        1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14, //
        17, 16, 19, 18, 21, 20, 23, 22, 25, 24, 27, 26, 29, 28, 31, 30,
    ];
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn shfl_xor_32_on_wave64_swaps_the_halves() {
    let out = ok(&["show", "shfl_xor", "--arg", "32", "--warp", "64"]);
    assert!(out.contains("cpu/w64"), "{out}");
    let expected: Vec<u32> = (32..64).chain(0..32).collect();
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn non_members_and_undefined_reads_show_as_dashes() {
    // Even lanes are members; each reads lane + 2 (even, a member) except lane 30, whose
    // source would be past the warp, so it keeps its own value. Odd lanes have no value.
    let out = ok(&["show", "shfl_down", "--arg", "2", "--mask", "even"]);
    let expected: Vec<String> = (0..32)
        .map(|l| match l {
            30 => "30".to_string(),
            l if l % 2 == 0 => (l + 2).to_string(),
            _ => "--".to_string(),
        })
        .collect();
    assert_eq!(cells(&out, "out"), expected);
    // With odd members reading one lane down, every member reads an even lane: undefined,
    // except lane 31 which keeps its own value.
    let out = ok(&["show", "shfl_down", "--arg", "1", "--mask", "odd"]);
    let expected: Vec<&str> = (0..32).map(|l| if l == 31 { "31" } else { "--" }).collect();
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn ballot_of_odd_lanes() {
    let out = ok(&["show", "ballot"]);
    assert_eq!(cells(&out, "pred"), strings((0..32).map(|l| l % 2)));
    assert_eq!(cells(&out, "out"), vec!["0xaaaaaaaa".to_string(); 32]);
    assert!(out.contains("__ballot_sync = 0xaaaaaaaa"), "{out}");
    // Members only: odd lanes outside the mask do not vote, even lanes vote false.
    let out = ok(&["show", "ballot", "--mask", "lower"]);
    let expected: Vec<&str> = (0..32)
        .map(|l| if l < 16 { "0x0000aaaa" } else { "--" })
        .collect();
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn match_any_groups_equal_values() {
    let out = ok(&["show", "match_any", "--values", "mod:4"]);
    let expected: Vec<&str> = (0..32)
        .map(|l| ["0x11111111", "0x22222222", "0x44444444", "0x88888888"][l % 4])
        .collect();
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn transpose_reads_the_column_major_slot() {
    let out = ok(&["show", "transpose"]);
    let expected = [
        0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27, //
        4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31,
    ];
    assert_eq!(cells(&out, "out"), strings(expected));
}

#[test]
fn tile_reduce_sums_each_tile_of_8() {
    let out = ok(&["show", "tile_reduce", "--tile", "8"]);
    // 0+..+7 = 28, 8+..+15 = 92, 16+..+23 = 156, 24+..+31 = 220.
    let expected: Vec<u32> = [28, 92, 156, 220]
        .into_iter()
        .flat_map(|s| [s; 8])
        .collect();
    assert_eq!(cells(&out, "out"), strings(expected));
    assert_eq!(cells(&out, "tile"), strings((0..32).map(|l| l / 8)));
}

#[test]
fn activemask_in_a_branch_of_even_lanes() {
    let out = ok(&["show", "activemask", "--mask", "even"]);
    let got = cells(&out, "out");
    assert_eq!(got.len(), 32, "{out}");
    for (lane, c) in got.iter().enumerate() {
        if lane % 2 == 1 {
            assert_eq!(c, "--", "lane {lane} is outside the branch");
        } else {
            // The guarantee only: the caller, and nothing outside the branch.
            let bits = u64::from_str_radix(c.trim_start_matches("0x"), 16).expect("a hex mask");
            assert_ne!(
                bits & 1 << lane,
                0,
                "lane {lane} missing from its own activemask"
            );
            assert_eq!(
                bits & !0x5555_5555,
                0,
                "lane {lane} sees lanes outside the branch: {c}"
            );
        }
    }
}

#[test]
fn a_partial_warp_has_only_its_lanes() {
    let out = ok(&["show", "shfl_down", "--arg", "4", "--threads", "20"]);
    // Lanes 16..19 would read lanes 20..23, which do not exist: undefined.
    let expected: Vec<String> = (0..20)
        .map(|l| {
            if l < 16 {
                (l + 4).to_string()
            } else {
                "--".into()
            }
        })
        .collect();
    assert_eq!(cells(&out, "out"), expected);
}

#[test]
fn verify_passes_on_the_cpu_oracle() {
    let o = wavekit(&["verify", "--backend", "cpu", "--scale", "small"]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("cpu/w32") && out.contains("cpu/w64"), "{out}");
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    // Progress goes to stderr, so the table on stdout can be kept or piped alone.
    assert!(err.contains("verified cpu/w32"), "{err}");
    assert!(!out.contains("verified "), "{out}");
}

#[test]
fn bench_with_no_backend_times_the_cpu_at_both_widths_and_not_the_executor() {
    let o = wavekit(&[
        "bench",
        "--sizes",
        "1000",
        "--reps",
        "1",
        "--only",
        "reduce sum",
    ]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("reduce sum"))
        .collect();
    for backend in ["cpu/w32", "cpu/w64"] {
        assert!(
            rows.iter().any(|r| r.contains(backend)),
            "no {backend} row:\n{out}"
        );
    }
    assert!(!rows.iter().any(|r| r.contains("simt")), "{out}");
    if cfg!(feature = "simt") {
        assert!(out.contains("not timed: simt"), "{out}");
    }
}

#[test]
fn bench_checks_then_times_every_collective() {
    let dir = std::env::temp_dir().join(format!("wavekit-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("bench.csv");
    let out = ok(&[
        "bench",
        "--backend",
        "cpu",
        "--warp",
        "32",
        "--sizes",
        "5000",
        "--reps",
        "2",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(!out.contains("REFUSED") && !out.contains("FAILED"), "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 70, "{text}");
    for row in &rows {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields.len(), 17, "{row}");
        assert_eq!(fields[2], "5000", "{row}");
        assert_eq!(fields[3], "cpu/w32", "{row}");
        assert_eq!(fields[16], "ok", "{row}");
        let gbs: f64 = fields[8].parse().unwrap();
        assert!(gbs > 0.0, "{row}");
    }
    for collective in [
        "reduce sum",
        "reduce min",
        "argmin",
        "argmax",
        "scan inclusive sum",
        "segreduce fixed 8",
        "spmv",
        "histogram",
    ] {
        assert!(text.contains(collective), "{collective} missing:\n{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_with_no_matching_collective_fails_cleanly() {
    let err = fails(
        &[
            "bench",
            "--backend",
            "cpu",
            "--only",
            "fft",
            "--sizes",
            "100",
        ],
        1,
    );
    assert!(err.contains("no collective matches `fft`"), "{err}");
}
